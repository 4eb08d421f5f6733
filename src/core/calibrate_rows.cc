// Published serving rows made ready to evaluate (calibrate.h): each row's
// model, GPU, dtypes, engine, layout and load read as its source states them,
// or the row skipped with the reason; and one row evaluated.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "modelcalc/calibrate.h"
#include "modelcalc/engine_rules.h"
#include "modelcalc/dtype.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/plan_engine.h"
#include "tsv.h"

namespace modelcalc {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void add_note(std::string* note, const std::string& what) {
  if (!note->empty()) *note += "; ";
  *note += what;
}

// The release a row names: its engine from the engine column, its family from
// the engine's version number in engine_version (find_engine_version,
// engine_family_at); a PyTorch-backend TensorRT-LLM row is trtllm-pytorch
// whatever its version says. Two texts name no TensorRT-LLM release:
// MLPerf's NVIDIA harness states the TensorRT it built engines with
// ("TensorRT 10.11, CUDA 12.9"): the TensorRT-engine family (trtllm), release
// unrecorded. Under Dynamo the version is Dynamo's (the
// ai-dynamo/tensorrtllm-runtime image tag, "0.8.1.post2"), and Dynamo serves
// TensorRT-LLM through its LLM API's PyTorch backend (recalled, verify):
// trtllm-pytorch, release unrecorded.
EngineRelease engine_of(const ServingRow& r, bool* known) {
  const std::string e = lower(r.engine);
  *known = true;
  const std::optional<EngineVersion> v = find_engine_version(r.engine_version);
  auto at = [&](Engine eng) { return EngineRelease{engine_family_at(eng, v), v}; };
  if (e.find("tensorrt-llm") != std::string::npos || e.find("trtllm") != std::string::npos) {
    if (e.find("dynamo") != std::string::npos) return EngineRelease{EngineFamily::kTrtllmPytorch, std::nullopt};
    if (e.find("pytorch") != std::string::npos) return EngineRelease{EngineFamily::kTrtllmPytorch, v};
    if (!v && lower(r.engine_version).find("tensorrt ") != std::string::npos) {
      return EngineRelease{EngineFamily::kTrtllm, std::nullopt};
    }
    return at(Engine::kTrtllm);
  }
  if (e.find("vllm") != std::string::npos) return at(Engine::kVllm);
  if (e.find("sglang") != std::string::npos) return at(Engine::kSglang);
  *known = false;
  return kDefaultEngine;
}

// Why a row's metric and load cannot be evaluated; empty when they can.
std::string metric_and_load_problem(const ServingRow& r) {
  if (r.metric == MeasuredMetric::kUnknown) {
    if (r.metric_text.size() > 7 && r.metric_text.ends_with("_median")) {
      return "metric '" + r.metric_text + "' is a median; the model predicts means";
    }
    return "metric '" + r.metric_text + "' is not one the model predicts (output_tokens_per_s, total_tokens_per_s, "
           "itl_s, ttft_s, tokens_per_s_per_user)";
  }
  if (r.load == MeasuredLoad::kUnknown) return "load '" + r.load_text + "' is not offline, qps=N, qps=inf or concurrency=N";
  const bool rate = r.metric == MeasuredMetric::kOutputTokensPerS || r.metric == MeasuredMetric::kTotalTokensPerS;
  if (!rate && (r.load == MeasuredLoad::kOffline || r.load == MeasuredLoad::kUnboundedRate)) {
    return "a latency with every request queued depends on how many were sent; not modelled";
  }
  if (r.isl == 0 || r.osl == 0) return "input/output lengths are not stated";
  if (r.tp == 0 || r.pp == 0 || r.ep == 0) return "the split (tp, pp, ep) is not stated";
  return "";
}

// The row's dtypes. An empty kv_dtype is what the checkpoint's quantization
// config states (resolve_run_model: a listed repository's hf_quant_config.json
// or quantization_config, e.g. NVIDIA's NVFP4 checkpoints' kv_cache_quant_algo
// FP8); without one, FP8 and NVFP4 weights read as an fp8 cache (TensorRT-LLM's
// FP8 and ModelOpt's NVFP4 quantization quantize the KV too), others bf16.
Status row_dtypes(const ServingRow& r, const ModelSpec& m, Dtype* w, Dtype* kv, std::string* note) {
  MC_ASSIGN_OR_RETURN(*w, parse_dtype(r.weight_dtype, "weight_dtype"));
  if (!r.kv_dtype.empty()) {
    MC_ASSIGN_OR_RETURN(*kv, parse_dtype(r.kv_dtype, "kv_dtype"));
    return Status::Ok();
  }
  if (m.quant && m.quant->kv) {
    *kv = *m.quant->kv;
    add_note(note, "kv_dtype not stated: read as " + std::string(dtype_name(*kv)) + ", as " + m.quant->source +
                       " states");
    return Status::Ok();
  }
  *kv = *w == Dtype::kFp8 || *w == Dtype::kNvfp4 ? Dtype::kFp8 : default_kv_dtype(*w);
  std::string why;
  if (*w == Dtype::kFp8) why = " (fp8 checkpoints quantize the KV cache too)";
  if (*w == Dtype::kNvfp4) why = " (NVIDIA's NVFP4 checkpoints ship an FP8 KV cache: kv_cache_quant_algo FP8)";
  add_note(note, "kv_dtype not stated: read as " + std::string(dtype_name(*kv)) + why);
  return Status::Ok();
}

// Requests each user sends in a closed-loop run, when the notes state it as
// benchmark_serving's "num-prompts=K*conc"; 0 otherwise.
double prompts_per_user(const ServingRow& r) {
  const size_t at = r.notes.find("num-prompts=");
  if (at == std::string::npos) return 0;
  const std::string_view rest = std::string_view(r.notes).substr(at + 12);
  const size_t star = rest.find("*conc");
  int64_t k = 0;
  if (star == std::string_view::npos || !tsv_int(rest.substr(0, star), &k) || k < 1) return 0;
  return static_cast<double>(k);
}

// One worker's split: TP ranks (the attention groups' width 1 under attention
// DP, which spreads the worker's tp GPUs over attn_dp = tp groups), EP ranks.
Parallelism worker_split(int64_t tp, int64_t pp, int64_t ep, bool dp_attention, int64_t dp) {
  Parallelism s;
  s.pp = pp;
  s.ep = ep;
  s.dp = dp;
  if (dp_attention && tp > 1) {
    s.dp_attention = true;
    s.attn_dp = tp;
    s.tp = 1;
  } else {
    s.tp = tp;
  }
  return s;
}

// The engine flags the row's script sets, by the engine's own names.
EngineFlags row_flags(const ServingRow& r, Engine e) {
  EngineFlags f;
  if (r.memory_fraction > 0) {
    switch (e) {
      case Engine::kTrtllm: f.kv_cache_free_gpu_mem_fraction = r.memory_fraction; break;
      case Engine::kVllm: f.gpu_memory_utilization = r.memory_fraction; break;
      case Engine::kSglang: f.mem_fraction_static = r.memory_fraction; break;
    }
  }
  if (r.max_num_seqs > 0) f.max_num_seqs = r.max_num_seqs;
  if (r.max_num_batched_tokens > 0) f.max_num_batched_tokens = r.max_num_batched_tokens;
  return f;
}

Status prepare_pool(const ModelSpec& m, const GpuSpec& g, DeploymentOptions o, const EngineRelease& e, const ServingRow& row,
                    const ServingRequest& rq, PreparedPool* pool) {
  o.context = rq.isl + rq.osl;
  o.prompt_tokens = rq.isl;
  MC_ASSIGN_OR_RETURN(const PlanPrepared p, prepare_serving(m, g, o, e, row_flags(row, e.engine()), rq.isl, rq.osl));
  MC_RETURN_IF_ERROR(check_workload(p.d, 1, o.context, rq.isl));
  pool->d = p.d;
  // The ceiling bounds every acceptance: each draft token accepted (K + 1 tokens a step).
  if (pool->d.spec_tokens > 0) pool->d.spec_accepted = static_cast<double>(pool->d.spec_tokens + 1);
  pool->engine_d = p.engine_d;
  pool->ceiling_memory = p.ceiling_memory;
  pool->settings = p.settings;
  pool->engine_memory = p.engine_memory;
  pool->ceiling_cap = p.ceiling_cap;
  pool->engine_cap = p.engine_cap;
  if (row.scheduler_poll_steps > 0) pool->engine_cap.poll_steps = static_cast<double>(row.scheduler_poll_steps);
  return Status::Ok();
}

// The layout: dp_attention and the drafter, as the row states them.
Status row_layout(const ServingRow& r, DeploymentOptions* o, std::string* note) {
  if (r.dp_attention < 0 && r.ep > 1) add_note(note, "dp_attention not stated: read as off");
  if (r.spec == "mtp") {
    if (r.spec_tokens < 1) return Status::InvalidArgument("spec_tokens", "an MTP row whose draft tokens are not stated");
    o->spec.method = SpecMethod::kMtp;
    o->spec.tokens = r.spec_tokens;
    o->spec.acceptance = kCalibrationMtpAcceptance;
  }
  return Status::Ok();
}

// A disaggregated row: both pools from the prefill_* and decode_* columns
// (dp_attention is the decode worker's, prefill_dp_attention the prefill
// worker's, else the same; workers of tp GPUs each).
Status prepare_disaggregated(const ModelSpec& m, const GpuSpec& g, const DeploymentOptions& base, const EngineRelease& e,
                             PreparedRow* p) {
  const ServingRow& r = *p->row;
  const PoolColumns& pc = r.prefill;
  const PoolColumns& dc = r.decode;
  if (pc.workers < 1 || pc.tp < 1 || dc.workers < 1 || dc.tp < 1) {
    return Status::InvalidArgument("prefill_workers", "a disaggregated row needs both pools' workers and tp");
  }
  if (pc.gpus != pc.workers * pc.tp || dc.gpus != dc.workers * dc.tp) {
    return Status::InvalidArgument("prefill_gpus", "each pool's GPUs must be its workers x tp");
  }
  const bool dpa = r.dp_attention == 1;
  const bool prefill_dpa = r.prefill_dp_attention < 0 ? dpa : r.prefill_dp_attention == 1;
  DeploymentOptions po = base, dq = base;
  po.split = worker_split(pc.tp, 1, std::max<int64_t>(1, pc.ep), prefill_dpa, 1);
  dq.split = worker_split(dc.tp, 1, std::max<int64_t>(1, dc.ep), dpa, 1);
  po.spec = SpeculativeDecoding{};  // the drafter runs on the decode pool
  MC_RETURN_IF_ERROR(prepare_pool(m, g, po, e, r, p->request, &p->prefill_pool));
  MC_RETURN_IF_ERROR(prepare_pool(m, g, dq, e, r, p->request, &p->pool));
  p->prefill_pool.replicas = static_cast<double>(pc.workers);
  p->pool.replicas = static_cast<double>(dc.workers);
  p->disaggregated = true;
  return Status::Ok();
}

void set_regimes(PreparedRow* p, Dtype weights) {
  const ServingRow& r = *p->row;
  const auto set = [&](DataRegime g, bool v) { p->regimes[static_cast<size_t>(g)] = v; };
  set(DataRegime::kThroughput,
      r.metric == MeasuredMetric::kOutputTokensPerS || r.metric == MeasuredMetric::kTotalTokensPerS);
  set(DataRegime::kTtft, r.metric == MeasuredMetric::kTtft);
  set(DataRegime::kTpot, r.metric == MeasuredMetric::kItl || r.metric == MeasuredMetric::kTokensPerSPerUser);
  set(DataRegime::kDense, !p->moe);
  set(DataRegime::kMoe, p->moe);
  set(DataRegime::kFp4, weights == Dtype::kNvfp4 || weights == Dtype::kMxfp4);
  set(DataRegime::kDisaggregated, p->disaggregated);
  set(DataRegime::kPrefillHeavy, r.osl <= 128 || r.isl >= 4 * r.osl);
  set(DataRegime::kLongContext, r.isl + r.osl >= 5000);
}

// The request as served: InferenceX's lengths are uniform in [0.8 L, L], 0.9 L
// on average; a dataset's isl/osl are its means.
ServingRequest row_request(const ServingRow& r) {
  ServingRequest q;
  const double f = r.length_dist == LengthDist::kUniform08 ? 0.9 : 1.0;
  q.isl = std::max<int64_t>(1, std::llround(f * static_cast<double>(r.isl)));
  q.osl = std::max<int64_t>(1, std::llround(f * static_cast<double>(r.osl)));
  switch (r.load) {
    case MeasuredLoad::kOffline:
    case MeasuredLoad::kUnboundedRate: q.load = ServingLoad::kSaturated; break;
    case MeasuredLoad::kRequestsPerS: q.load = ServingLoad::kRequestsPerS; break;
    case MeasuredLoad::kConcurrency:
      q.load = ServingLoad::kConcurrency;
      q.prompts_per_user = prompts_per_user(r);
      break;
    case MeasuredLoad::kUnknown: break;
  }
  q.value = r.load_value;
  return q;
}

// Everything but the skip checks of metric and load.
Status prepare_row(const ServingRow& r, PreparedRow* p) {
  std::string checkpoint_note;
  MC_ASSIGN_OR_RETURN(const ResolvedModel resolved, resolve_run_model(r.model, r.checkpoint, &checkpoint_note));
  const ModelSpec& m = resolved.spec;
  p->model = resolved.preset;
  if (!checkpoint_note.empty()) add_note(&p->note, checkpoint_note);
  auto g = find_gpu(r.gpu);
  if (!g.ok()) return Status::NotFound("GPU: " + g.status().message());
  Dtype w = Dtype::kBf16, kv = Dtype::kBf16;
  MC_RETURN_IF_ERROR(row_dtypes(r, m, &w, &kv, &p->note));
  bool known = true;
  p->engine = engine_of(r, &known);
  if (!known) p->engine = engine_for(std::nullopt, *g).value_or(kDefaultEngine);  // the GPU vendor's, as the commands
  if (!known) add_note(&p->note, "engine '" + r.engine + "' has no profile: evaluated with " +
                                     engine_release_key(p->engine));
  p->request = row_request(r);
  DeploymentOptions o;
  o.weight_dtype = w;
  o.kv_dtype = kv;
  MC_RETURN_IF_ERROR(row_layout(r, &o, &p->note));
  p->moe = m.n_expert > 0;
  if (r.layout == MeasuredLayout::kDisaggregated) {
    MC_RETURN_IF_ERROR(prepare_disaggregated(m, *g, o, p->engine, p));
  } else {
    o.split = worker_split(r.tp, r.pp, r.ep, r.dp_attention == 1, r.gpus / (r.tp * r.pp));
    MC_RETURN_IF_ERROR(prepare_pool(m, *g, o, p->engine, r, p->request, &p->pool));
  }
  set_regimes(p, w);
  return Status::Ok();
}

}  // namespace

std::vector<PreparedRow> prepare_rows(std::span<const ServingRow> rows, const SearchControl* control) {
  std::vector<PreparedRow> out;
  out.reserve(rows.size());
  for (const ServingRow& r : rows) {
    if (should_stop(control, {"rows", static_cast<int64_t>(out.size()), static_cast<int64_t>(rows.size())})) break;
    PreparedRow p;
    p.row = &r;
    p.skipped = metric_and_load_problem(r);
    if (p.skipped.empty()) {
      if (const Status s = prepare_row(r, &p); !s.ok()) p.skipped = s.message();
    }
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

double metric_of(MeasuredMetric m, const ServingFigures& f, double ttft, double tpot) {
  switch (m) {
    case MeasuredMetric::kOutputTokensPerS: return f.output_tokens_per_s;
    case MeasuredMetric::kTotalTokensPerS: return f.output_tokens_per_s + f.input_tokens_per_s;
    case MeasuredMetric::kItl: return tpot;
    case MeasuredMetric::kTtft: return ttft;
    case MeasuredMetric::kTokensPerSPerUser: return 1 / tpot;
    case MeasuredMetric::kUnknown: break;
  }
  return 0;
}

}  // namespace

CalibrationParams compiled_calibration_params() {
  CalibrationParams c;
  for (EngineFamily f : kAllEngineFamilies) c.time[static_cast<size_t>(f)] = engine_profile(f).time;
  c.mtp_acceptance = engine_time_table().mtp_acceptance;
  return c;
}

namespace {

// The engine's deployment with the MTP drafter's acceptance `a` (the ceiling keeps K + 1).
const PreparedDeployment& with_acceptance(const PreparedDeployment& d, double a, PreparedDeployment* copy) {
  if (d.spec_method != SpecMethod::kMtp || d.spec_tokens < 1) return d;
  *copy = d;
  copy->spec_acceptance = a;
  copy->spec_accepted = accepted_tokens_per_step(d.spec_tokens, a);
  return *copy;
}

// The request the ceiling is evaluated at. A rate names a schedule, not what a finite run achieves (MLPerf's
// Poisson sample runs a little above its scheduled rate, so rate x osl is no bound): a throughput's ceiling is
// the hardware's saturated one; a latency's stays at the row's load.
ServingRequest ceiling_request(const PreparedRow& r) {
  ServingRequest q = r.request;
  const MeasuredMetric m = r.row->metric;
  const bool throughput = m == MeasuredMetric::kOutputTokensPerS || m == MeasuredMetric::kTotalTokensPerS;
  if (throughput && q.load == ServingLoad::kRequestsPerS) q.load = ServingLoad::kSaturated;
  return q;
}

// The row's figures; the ceiling's only when `with_ceiling` (the fit needs the prediction alone).
RowFigures row_figures(const PreparedRow& r, const CalibrationParams& cp, bool with_ceiling) {
  RowFigures f;
  const StepTimeParams& p = cp.time[static_cast<size_t>(r.engine.family)];
  const MeasuredMetric metric = r.row->metric;
  PreparedDeployment decode_copy, prefill_copy;
  const PreparedDeployment& de = with_acceptance(r.pool.engine_d, cp.mtp_acceptance, &decode_copy);
  if (!r.disaggregated) {
    f.prediction = serve(de, r.pool.engine_cap, p, false, r.request);
    f.predicted = metric_of(metric, f.prediction, f.prediction.ttft_s, f.prediction.tpot_s);
    if (!with_ceiling) return f;
    f.bound = serve(r.pool.d, r.pool.ceiling_cap, p, true, ceiling_request(r));
    f.ceiling = metric_of(metric, f.bound, f.bound.ttft_s, f.bound.tpot_s);
    return f;
  }
  const PreparedDeployment& pe = with_acceptance(r.prefill_pool.engine_d, cp.mtp_acceptance, &prefill_copy);
  const auto both = [&](bool ceiling) {
    const PreparedPool& pp = r.prefill_pool;
    const PreparedPool& dp = r.pool;
    const DisaggregatedPool pre{ceiling ? &pp.d : &pe, ceiling ? pp.ceiling_cap : pp.engine_cap, pp.replicas};
    const DisaggregatedPool dec{ceiling ? &dp.d : &de, ceiling ? dp.ceiling_cap : dp.engine_cap, dp.replicas};
    return serve_disaggregated(pre, dec, p, ceiling, ceiling ? ceiling_request(r) : r.request, false);
  };
  // The whole row's rates with the decode pool's steady state.
  const auto whole = [&](const DisaggregatedFigures& d) {
    ServingFigures w = d.decode;
    w.output_tokens_per_s = d.output_tokens_per_s, w.input_tokens_per_s = d.input_tokens_per_s;
    return metric_of(metric, w, d.ttft_s, d.tpot_s);
  };
  const DisaggregatedFigures e = both(false);
  f.prediction = e.decode;
  f.predicted = whole(e);
  if (!with_ceiling) return f;
  const DisaggregatedFigures c = both(true);
  f.bound = c.decode;
  f.ceiling = whole(c);
  return f;
}

}  // namespace

RowFigures evaluate_row(const PreparedRow& r, const CalibrationParams& cp) { return row_figures(r, cp, true); }

double predict_row(const PreparedRow& r, const CalibrationParams& cp) { return row_figures(r, cp, false).predicted; }

}  // namespace modelcalc
