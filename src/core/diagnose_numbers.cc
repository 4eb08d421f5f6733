// diagnose's numbers: validation of the evidence, then every number the
// evidence allows (ceilings first), which the rules (diagnose_rules.cc) read.
#include <algorithm>
#include <cmath>
#include <limits>

#include "diagnose_internal.h"
#include "error_number.h"
#include "modelcalc/deployment.h"
#include "modelcalc/diagnose.h"
#include "modelcalc/formulas.h"

namespace modelcalc {

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::kDecode: return "decode";
    case Phase::kPrefill: return "prefill";
    case Phase::kTraining: return "training";
  }
  return "?";
}

std::string_view regime_name(Regime r) {
  switch (r) {
    case Regime::kBandwidthBound: return "bandwidth-bound";
    case Regime::kComputeBound: return "compute-bound";
    case Regime::kCapacityBound: return "capacity-bound";
    case Regime::kCommunicationBound: return "communication-bound";
    case Regime::kOverheadBound: return "overhead-bound";
  }
  return "?";
}

const std::vector<std::string>& kernel_kinds() {
  static const std::vector<std::string> kKinds = {"gemm", "attention", "norm",          "elementwise", "cast",
                                                  "softmax", "copy",    "communication", "other"};
  return kKinds;
}

bool is_memory_bound_kind(std::string_view kind) {
  return kind == "norm" || kind == "elementwise" || kind == "cast" || kind == "softmax" || kind == "copy";
}

// ---------------------------------------------------------------- validation
namespace {

std::string num(double v) { return error_number_sig(v, 6); }

Status fraction(const std::optional<double>& v, std::string_view field) {
  if (v && !(*v >= 0 && *v <= 1)) {
    return Status::InvalidArgument(field, "must be a fraction between 0 and 1 (78 % is 0.78), got " + num(*v));
  }
  return Status::Ok();
}

Status positive(const std::optional<double>& v, std::string_view field) {
  if (v && !(*v > 0 && std::isfinite(*v))) {
    return Status::InvalidArgument(field, "must be a positive number, got " + num(*v));
  }
  return Status::Ok();
}

Status positive(const std::optional<int64_t>& v, std::string_view field) {
  if (v && *v <= 0) return Status::InvalidArgument(field, "must be a positive count, got " + std::to_string(*v));
  return Status::Ok();
}

Status range(const std::optional<Range>& r, std::string_view field) {
  if (!r) return Status::Ok();
  if (!(r->lo >= 0 && std::isfinite(r->hi))) {
    return Status::InvalidArgument(field, "durations must not be negative, got [" + num(r->lo) + ", " + num(r->hi) + "]");
  }
  if (r->lo > r->hi) {
    return Status::InvalidArgument(field, "must be [lo, hi] with lo <= hi, got [" + num(r->lo) + ", " + num(r->hi) + "]");
  }
  return Status::Ok();
}

}  // namespace

Status validate(const Evidence& e) {
  const EvidenceModel& m = e.model;
  MC_RETURN_IF_ERROR(positive(m.params, "model.params"));
  if (m.params && *m.params > 1e15) return Status::InvalidArgument("model.params", "must be at most 1e15");
  MC_RETURN_IF_ERROR(positive(m.layers, "model.layers"));
  MC_RETURN_IF_ERROR(positive(m.hidden, "model.hidden"));
  MC_RETURN_IF_ERROR(positive(m.heads, "model.heads"));
  MC_RETURN_IF_ERROR(positive(m.kv_heads, "model.kv_heads"));
  MC_RETURN_IF_ERROR(positive(m.head_dim, "model.head_dim"));
  if (m.heads && m.kv_heads && (*m.kv_heads > *m.heads || *m.heads % *m.kv_heads != 0)) {
    return Status::InvalidArgument("model.kv_heads", "must divide model.heads (" + std::to_string(*m.heads) +
                                                         "), got " + std::to_string(*m.kv_heads));
  }
  if (m.hidden && m.heads && !m.head_dim && *m.hidden % *m.heads != 0) {
    return Status::InvalidArgument("model.heads", "must divide model.hidden (" + std::to_string(*m.hidden) +
                                                      "), or give model.head_dim");
  }
  MC_RETURN_IF_ERROR(positive(e.gpus, "gpus"));
  MC_RETURN_IF_ERROR(positive(e.batch, "batch"));
  MC_RETURN_IF_ERROR(positive(e.context, "context"));
  MC_RETURN_IF_ERROR(positive(e.prompt_tokens, "prompt_tokens"));
  MC_RETURN_IF_ERROR(positive(e.measured.tokens_per_s_per_sequence, "measured.tokens_per_s_per_sequence"));
  MC_RETURN_IF_ERROR(positive(e.measured.tokens_per_s_aggregate, "measured.tokens_per_s_aggregate"));
  MC_RETURN_IF_ERROR(positive(e.measured.ttft_s, "measured.ttft_s"));
  MC_RETURN_IF_ERROR(positive(e.measured.itl_s, "measured.itl_s"));
  const Profile& p = e.profile;
  MC_RETURN_IF_ERROR(fraction(p.flop_utilization, "profile.flop_utilization"));
  MC_RETURN_IF_ERROR(fraction(p.bandwidth_utilization, "profile.bandwidth_utilization"));
  double sum = 0;
  for (const auto& [kind, share] : p.kernel_time_fraction) {
    const std::string field = "profile.kernel_time_fraction." + kind;
    if (std::find(kernel_kinds().begin(), kernel_kinds().end(), kind) == kernel_kinds().end()) {
      return Status::InvalidArgument(field, "unknown kernel kind; allowed: gemm, attention, norm, elementwise, "
                                            "cast, softmax, copy, communication, other");
    }
    MC_RETURN_IF_ERROR(fraction(share, field));
    sum += share;
  }
  if (sum > 1.01) {
    return Status::InvalidArgument("profile.kernel_time_fraction",
                                   "shares of kernel time must sum to at most 1, got " + num(sum));
  }
  MC_RETURN_IF_ERROR(positive(p.kernels_per_step, "profile.kernels_per_step"));
  MC_RETURN_IF_ERROR(range(p.kernel_us, "profile.kernel_us"));
  MC_RETURN_IF_ERROR(range(p.gap_us, "profile.gap_us"));
  if (p.kernel_us && p.kernel_us->hi <= 0) {
    return Status::InvalidArgument("profile.kernel_us", "a kernel must take some time, got [0, 0]");
  }
  if (p.peak_transient_bytes && !(*p.peak_transient_bytes >= 0 && std::isfinite(*p.peak_transient_bytes))) {
    return Status::InvalidArgument("profile.peak_transient_bytes", "must not be negative, got " +
                                                                       num(*p.peak_transient_bytes));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- numbers
namespace {

// The shape the evidence gives, with the spec's fields filling in.
struct Shape {
  std::optional<double> params;
  std::optional<int64_t> layers, hidden, heads, kv_heads, head_dim;
  const ModelSpec* spec = nullptr;
};

Shape resolve_shape(const EvidenceModel& m) {
  Shape s;
  s.params = m.params;
  s.layers = m.layers;
  s.hidden = m.hidden;
  s.heads = m.heads;
  s.kv_heads = m.kv_heads;
  s.head_dim = m.head_dim;
  if (m.spec) {
    const ModelSpec& spec = *m.spec;
    s.spec = &spec;
    if (!s.params) {
      auto p = param_breakdown(spec);
      if (p.ok()) s.params = static_cast<double>(p->total());
    }
    s.layers = spec.n_layer;
    s.hidden = spec.n_embd;
    s.heads = spec.n_head;
    s.kv_heads = spec.n_head_kv;
    s.head_dim = spec.n_embd_head;
  }
  if (s.heads && !s.kv_heads) s.kv_heads = s.heads;
  if (s.hidden && s.heads && !s.head_dim) s.head_dim = *s.hidden / *s.heads;
  return s;
}


double activation_bytes(Dtype weights) {
  return dtype_bits(weights) >= 32 ? 4.0 : 2.0;  // int/fp8/fp4 weights still run fp16/bf16 activations
}

// The KV cache dtype diagnose assumes: the weights' (as the evidence states
// one dtype), except a weight-only format the KV formulas do not count
// (nvfp4/mxfp4), whose cache stays 16-bit as the engine's default.
Dtype evidence_kv_dtype(Dtype weights) {
  return dtype_info(weights).kv_cache ? weights : default_kv_dtype(weights);
}

double weight_bytes_of(double params, Dtype t) {
  const Exact n = Exact::from_double(std::round(params));
  const Exact w = weight_memory_bytes(n, t);
  if (w.overflow()) return params * dtype_bytes(t);  // beyond int64: the double product is the answer
  return static_cast<double>(w.value());
}

std::optional<double> kv_per_seq(const Shape& s, double ctx, Dtype t) {
  if (ctx <= 0) return std::nullopt;
  if (s.spec) {
    const Exact c = Exact::from_double(ctx);
    if (c.overflow()) return std::nullopt;
    auto kv = kv_bytes_per_sequence(*s.spec, c.value(), t);
    if (kv.ok()) return static_cast<double>(*kv);
    return std::nullopt;
  }
  if (!s.layers || !s.kv_heads || !s.head_dim) return std::nullopt;
  const Exact per_token = kv_bytes_per_token(Exact(*s.layers), Exact(*s.kv_heads * *s.head_dim), t);
  if (per_token.overflow()) return std::nullopt;
  return static_cast<double>(per_token.value()) * ctx;
}

// The engine's decode numbers: its step at the scenario, the ceilings of the
// varied scenarios the rules cite, and the measurement against them.
void engine_decode_numbers(const Evidence& e, const GpuSpec& gpu, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const DeploymentAnalysis& base = *d->modeled;
  const DecodeStep& st = base.result.decode;
  const PreparedDeployment& pd = base.prepared;
  n.modeled = true;
  n.ideal_step_time_s = st.seconds;
  n.bw_ceiling_per_seq = st.tokens_per_s_per_sequence;
  n.bw_ceiling_aggregate = st.tokens_per_s_aggregate;
  n.ceiling_aggregate = st.tokens_per_s_aggregate;
  n.step_intensity = st.intensity;
  n.ridge = st.ridge;
  n.step_bytes = st.bytes_per_gpu;
  n.modeled_flops = st.flops_per_gpu;
  n.modeled_bytes = st.bytes_per_gpu;
  n.modeled_compute_s = st.compute_seconds;
  n.modeled_memory_s = st.memory_seconds;
  n.modeled_comm_s = st.comm_seconds;
  // The compute ceiling: the batch over the step's FLOP time alone (active parameters, attention, lm_head).
  const double rows = static_cast<double>(st.batch) * static_cast<double>(pd.split.dp);
  if (st.compute_seconds > 0) n.compute_ceiling_aggregate = rows / st.compute_seconds;
  n.max_sequences = static_cast<double>(base.result.memory.max_sequences);
  d->ignored.push_back({DxCode::kIgnoredModeledCeiling, {}});
  // The quantized and fp8 ceilings: the engine on the varied scenarios.
  const Dtype w = pd.weight_dtype;
  auto ceiling = [&](Dtype t, std::optional<double>* tps, std::optional<double>* step) {
    ScenarioChange c;
    c.weight_dtype = t;
    auto v = evaluate_variation(*d->scenario, c);
    if (!v.ok()) return;
    *tps = v->after.result.decode.tokens_per_s_aggregate;
    *step = v->after.result.decode.seconds;
  };
  if (dtype_bits(w) > 8) ceiling(Dtype::kInt8, &n.int8_ceiling_aggregate, &n.int8_step_s);
  if (dtype_bits(w) > 4) ceiling(Dtype::kInt4, &n.int4_ceiling_aggregate, &n.int4_step_s);
  if (dtype_bits(w) == 16 && gpu.peak_fp8_flops > gpu.peak_bf16_flops) {
    n.fp8_peak_flops = gpu.peak_fp8_flops;  // per GPU, as the engine's peaks are
    ceiling(Dtype::kFp8, &n.fp8_ceiling_aggregate, &n.fp8_step_s);
  }
  d->ignored.push_back({DxCode::kIgnoredEngineNoOverheads, {}});
  if (n.measured_aggregate) {
    // The measured step against the engine's terms: what fraction of it the bytes and the FLOPs
    // would take at peak (achieved bandwidth and FLOP utilization, active parameters counted).
    const double step = rows / *n.measured_aggregate;
    n.fraction_of_ceiling = *n.measured_aggregate / *n.ceiling_aggregate;
    n.bandwidth_fraction = st.memory_seconds / step;
    n.implied_flop_utilization = st.compute_seconds / step;
    n.compute_fraction = n.implied_flop_utilization;
    if (e.profile.flop_utilization && *n.implied_flop_utilization > 0) {
      n.profiler_flop_excess = *e.profile.flop_utilization / *n.implied_flop_utilization;
    }
  }
}

void decode_numbers(const Evidence& e, const GpuSpec& gpu, Dtype dt, const DeploymentResult* modeled, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double B = n.batch;
  const Measured& m = e.measured;
  // The measurement, normalized to both views.
  if (m.tokens_per_s_aggregate) {
    n.measured_aggregate = *m.tokens_per_s_aggregate;
  } else if (m.tokens_per_s_per_sequence) {
    n.measured_aggregate = *m.tokens_per_s_per_sequence * B;
  } else if (m.itl_s) {
    n.measured_aggregate = B / *m.itl_s;
  }
  if (m.tokens_per_s_per_sequence) {
    n.measured_per_seq = *m.tokens_per_s_per_sequence;
  } else if (m.itl_s) {
    n.measured_per_seq = 1.0 / *m.itl_s;
  } else if (n.measured_aggregate) {
    n.measured_per_seq = *n.measured_aggregate / B;
  }
  if (n.measured_per_seq) n.step_time_s = 1.0 / *n.measured_per_seq;
  if (modeled != nullptr) {
    engine_decode_numbers(e, gpu, d);
    return;
  }
  if (!n.weight_bytes || n.bandwidth <= 0) return;

  const double W = *n.weight_bytes;
  const double kv = n.kv_bytes_per_seq.value_or(0);
  n.step_bytes = decode_step_bytes(W, kv, B);
  n.ideal_step_time_s = *n.step_bytes / n.bandwidth;
  n.bw_ceiling_aggregate = decode_tokens_per_sec(n.bandwidth, W, kv, B);
  n.bw_ceiling_per_seq = *n.bw_ceiling_aggregate / B;
  n.ceiling_aggregate = n.bw_ceiling_aggregate;
  const double flop_per_token = forward_flops_per_token(*n.params);
  if (n.peak_flops > 0) {
    n.compute_ceiling_aggregate = n.peak_flops / flop_per_token;
    n.step_intensity = arithmetic_intensity(flop_per_token * B, *n.step_bytes);
    n.ceiling_aggregate = std::min(*n.bw_ceiling_aggregate, *n.compute_ceiling_aggregate);
  }
  auto ceiling_with = [&](double weights, double peak) {
    const double bw_c = decode_tokens_per_sec(n.bandwidth, weights, kv, B);
    return peak > 0 ? std::min(bw_c, peak / flop_per_token) : bw_c;
  };
  if (dtype_bits(dt) > 8) n.int8_ceiling_aggregate = ceiling_with(weight_bytes_of(*n.params, Dtype::kInt8), n.peak_flops);
  if (dtype_bits(dt) > 4) n.int4_ceiling_aggregate = ceiling_with(weight_bytes_of(*n.params, Dtype::kInt4), n.peak_flops);
  const double gpus = static_cast<double>(e.gpus.value_or(1));
  if (dtype_bits(dt) == 16 && gpu.peak_fp8_flops > gpu.peak_bf16_flops) {
    n.fp8_peak_flops = gpu.peak_fp8_flops * gpus;
    n.fp8_ceiling_aggregate = ceiling_with(weight_bytes_of(*n.params, Dtype::kFp8), *n.fp8_peak_flops);
  }
  if (n.measured_aggregate) {
    n.fraction_of_ceiling = *n.measured_aggregate / *n.ceiling_aggregate;
    n.bandwidth_fraction = *n.measured_aggregate / *n.bw_ceiling_aggregate;
    if (n.peak_flops > 0) {
      n.implied_flop_utilization = mfu(*n.measured_aggregate, *n.params, n.peak_flops, MfuMode::kInference);
      n.compute_fraction = n.implied_flop_utilization;
      if (e.profile.flop_utilization && *n.implied_flop_utilization > 0) {
        n.profiler_flop_excess = *e.profile.flop_utilization / *n.implied_flop_utilization;
      }
    }
  }
}

void prefill_numbers(const Evidence& e, Dtype dt, const Shape& s, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const std::optional<int64_t> T = e.prompt_tokens ? e.prompt_tokens : e.context;
  if (!T) return;
  const double t = static_cast<double>(*T);
  n.prefill_tokens = t;
  if (n.params) {
    n.prefill_linear_flops = prefill_linear_flops(*n.params, t);
    n.prefill_flops = n.prefill_linear_flops;
  }
  if (s.layers && s.heads && s.head_dim) {
    const double d_attn = static_cast<double>(*s.heads * *s.head_dim);
    const double L = static_cast<double>(*s.layers);
    n.prefill_attention_flops = prefill_attention_flops(L, t, d_attn);
    if (n.prefill_flops) *n.prefill_flops += *n.prefill_attention_flops;
    n.score_matrix_bytes = attention_score_bytes(static_cast<double>(*s.heads), t, activation_bytes(dt));
    if (e.profile.peak_transient_bytes) n.transient_over_scores = *e.profile.peak_transient_bytes / *n.score_matrix_bytes;
    if (n.bandwidth > 0) n.score_traffic_s = 4.0 * *n.score_matrix_bytes * L / n.bandwidth;
    if (n.peak_flops > 0) n.attention_floor_s = *n.prefill_attention_flops / n.peak_flops;
  }
  const auto attn = e.profile.kernel_time_fraction.find("attention");
  if (attn != e.profile.kernel_time_fraction.end() && e.measured.ttft_s) {
    n.attention_time_s = attn->second * *e.measured.ttft_s;
    if (n.attention_floor_s) {
      n.ttft_fused_s = *e.measured.ttft_s - std::max(0.0, *n.attention_time_s - *n.attention_floor_s);
    }
  }
  if (n.prefill_flops && n.peak_flops > 0 && n.prefill_attention_flops) {
    n.ttft_floor_s = *n.prefill_flops / n.peak_flops;
    if (e.measured.ttft_s) {
      n.fraction_of_ceiling = *n.ttft_floor_s / *e.measured.ttft_s;
      n.compute_fraction = n.fraction_of_ceiling;
    }
  }
  if (n.weight_bytes && e.profile.peak_transient_bytes) {
    n.peak_memory_bytes = *n.weight_bytes + *e.profile.peak_transient_bytes;
  }
  // The decode side of the same request: ITL against its floor at this context.
  if (e.measured.itl_s && n.weight_bytes && n.bandwidth > 0) {
    const double kv = kv_per_seq(s, t, evidence_kv_dtype(dt)).value_or(0);
    n.itl_floor_s = decode_step_bytes(*n.weight_bytes, kv, n.batch) / n.bandwidth;
    n.itl_fraction = *n.itl_floor_s / *e.measured.itl_s;
  }
}

void training_numbers(const Evidence& e, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  if (e.batch && e.context) n.tokens_per_step = static_cast<double>(*e.batch) * static_cast<double>(*e.context);
  if (n.params && n.peak_flops > 0) {
    n.train_ceiling_tps = n.peak_flops / training_flops(*n.params, 1.0);
    if (e.measured.tokens_per_s_aggregate) {
      n.fraction_of_ceiling = *e.measured.tokens_per_s_aggregate / *n.train_ceiling_tps;
      n.compute_fraction = n.fraction_of_ceiling;
    }
  }
}

void timeline_numbers(const Evidence& e, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const Profile& p = e.profile;
  if (p.kernels_per_step && p.kernel_us) {
    const double k = static_cast<double>(*p.kernels_per_step);
    n.kernel_time_s = k * p.kernel_us->mid() * 1e-6;
    if (p.gap_us) {
      n.gap_time_s = k * p.gap_us->mid() * 1e-6;
      n.gap_share = timeline_gap_share(p.kernel_us->mid(), p.gap_us->mid());
      n.gap_share_lo = timeline_gap_share(p.kernel_us->hi, p.gap_us->lo);
      n.gap_share_hi = timeline_gap_share(p.kernel_us->lo, p.gap_us->hi);
      n.idle_share = n.gap_share;
      n.speedup_no_idle = (*n.kernel_time_s + *n.gap_time_s) / *n.kernel_time_s;
      if (*n.gap_time_s > 0) n.speedup_infinite_gpu = (*n.kernel_time_s + *n.gap_time_s) / *n.gap_time_s;
    }
    if (n.step_time_s && *n.step_time_s > *n.kernel_time_s) {
      // The measured step is the truth; the timeline's kernels are what is busy in it.
      n.busy_share = *n.kernel_time_s / *n.step_time_s;
      n.idle_share = 1.0 - *n.busy_share;
      n.speedup_no_idle = *n.step_time_s / *n.kernel_time_s;
      n.speedup_infinite_gpu = *n.step_time_s / (*n.step_time_s - *n.kernel_time_s);
    }
  }
  double mem = 0, compute = 0;
  bool any_mem = false, any_compute = false;
  for (const auto& [kind, share] : p.kernel_time_fraction) {
    if (is_memory_bound_kind(kind)) mem += share, any_mem = true;
    if (kind == "gemm" || kind == "attention") compute += share, any_compute = true;
  }
  if (any_mem) {
    n.memory_bound_share = mem;
    if (mem < 1) n.amdahl_memory_bound = amdahl_speedup(mem);
  }
  if (any_compute) {
    n.compute_kernel_share = compute;
    if (p.flop_utilization && compute > 0 && p.kernel_time_fraction.count("gemm")) n.in_kernel_flop_rate = *p.flop_utilization / compute;
  }
}

// The evidence the rules cite, copied so that they read the numbers only.
void given_numbers(const Evidence& e, DiagnosisNumbers* n) {
  const Profile& p = e.profile;
  n->gpus = static_cast<double>(e.gpus.value_or(1));
  n->ttft_s = e.measured.ttft_s;
  n->itl_s = e.measured.itl_s;
  n->flop_utilization_profiled = p.flop_utilization;
  n->peak_transient_bytes = p.peak_transient_bytes;
  n->kernels_per_step = p.kernels_per_step;
  if (p.kernel_us) n->kernel_us_mid = p.kernel_us->mid();
  if (p.gap_us) n->gap_us_lo = p.gap_us->lo, n->gap_us_hi = p.gap_us->hi;
  auto share = [&](const char* kind) -> std::optional<double> {
    const auto it = p.kernel_time_fraction.find(kind);
    if (it == p.kernel_time_fraction.end()) return std::nullopt;
    return it->second;
  };
  n->attention_share = share("attention");
  n->gemm_share = share("gemm");
  n->cast_share = share("cast");
}

}  // namespace

namespace diagnose_internal {

Phase infer_phase(const Evidence& e, bool* inferred) {
  *inferred = !e.phase.has_value();
  if (e.phase) return *e.phase;
  const Measured& m = e.measured;
  if (m.ttft_s && !m.tokens_per_s_per_sequence && !m.tokens_per_s_aggregate && !m.itl_s) return Phase::kPrefill;
  return Phase::kDecode;
}

void compute_numbers(const Evidence& e, const GpuSpec& gpu, Diagnosis* d) {
  const DeploymentResult* modeled = d->modeled ? &d->modeled->result : nullptr;
  DiagnosisNumbers& n = d->n;
  const Shape s = resolve_shape(e.model);
  const Dtype dt = e.model.dtype.value_or(kDefaultWeightDtype);
  if (!e.model.dtype && s.params) d->ignored.push_back({DxCode::kIgnoredDtypeAssumed, {}});
  const double gpus = static_cast<double>(e.gpus.value_or(1));
  n.bandwidth = gpu.bandwidth_bytes_per_s * gpus;
  n.capacity = gpu.capacity_bytes * gpus;
  n.peak_flops = gpu.peak_flops(default_compute_dtype(dt, gpu)) * gpus;
  if (n.bandwidth > 0 && n.peak_flops > 0) n.ridge = roofline_ridge_intensity(n.peak_flops, n.bandwidth);
  if (gpus > 1 && modeled == nullptr) {
    d->ignored.push_back({DxCode::kIgnoredGpusAsOne, {gpus}});
  }
  n.batch = static_cast<double>(e.batch.value_or(1));
  n.params = s.params;
  if (s.layers) n.layers = static_cast<double>(*s.layers);
  if (s.heads) n.heads = static_cast<double>(*s.heads);
  if (s.heads && s.head_dim) n.d_attn = static_cast<double>(*s.heads * *s.head_dim);
  if (s.kv_heads && s.head_dim) n.d_kv = static_cast<double>(*s.kv_heads * *s.head_dim);
  n.bytes_per_param = dtype_bytes(dt);
  n.kv_bytes_per_elem = dtype_bytes(evidence_kv_dtype(dt));
  if (s.params) n.weight_bytes = weight_bytes_of(*s.params, dt);
  // A model's own shape: its weights as served (the checkpoint's 16-bit parts and scales), as size's
  // weights.bytes; N x b is the evidence's figure without one.
  if (e.model.spec) {
    DeploymentOptions served;
    served.weight_dtype = dt;
    if (auto w = model_weights(*e.model.spec, served); w.ok()) n.weight_bytes = static_cast<double>(w->total());
  }
  const std::optional<int64_t> ctx = e.context ? e.context : e.prompt_tokens;
  n.context = ctx ? static_cast<double>(*ctx) : 0;
  n.kv_bytes_per_seq = kv_per_seq(s, n.context, evidence_kv_dtype(dt));
  if (modeled != nullptr) {
    n.max_sequences = static_cast<double>(modeled->memory.max_sequences);
  } else if (n.weight_bytes && n.kv_bytes_per_seq && *n.kv_bytes_per_seq > 0 && n.capacity > 0) {
    // A count beyond int64 leaves it unset: memory does not limit the batch.
    const Exact fit = max_batch_by_capacity(n.capacity, *n.weight_bytes, *n.kv_bytes_per_seq);
    if (!fit.overflow()) n.max_sequences = static_cast<double>(fit.value());
  }
  n.compute_fraction = e.profile.flop_utilization;
  n.bandwidth_fraction = e.profile.bandwidth_utilization;
  given_numbers(e, &n);

  switch (d->phase) {
    case Phase::kDecode:
      decode_numbers(e, gpu, dt, modeled, d);
      if (n.step_bytes && !n.kv_bytes_per_seq) {
        d->ignored.push_back({ctx ? DxCode::kIgnoredKvNoShape : DxCode::kIgnoredKvNoContext, {}});
      }
      break;
    case Phase::kPrefill: prefill_numbers(e, dt, s, d); break;
    case Phase::kTraining: training_numbers(e, d); break;
  }
  // Given utilizations win over the ones derived from the measurement.
  if (e.profile.flop_utilization) n.compute_fraction = e.profile.flop_utilization;
  if (e.profile.bandwidth_utilization) n.bandwidth_fraction = e.profile.bandwidth_utilization;
  timeline_numbers(e, d);
  if (s.spec && s.spec->n_expert > 0 && modeled == nullptr) {
    d->ignored.push_back({DxCode::kIgnoredMoe, {}});
  }
  if (n.prefill_flops) {
    d->ignored.push_back({DxCode::kIgnoredPrefillFlops, {}});
  }
}

}  // namespace diagnose_internal

}  // namespace modelcalc
