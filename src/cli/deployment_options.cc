#include "deployment_options.h"

#include <string>
#include <utility>

#include "modelcalc/engine_rules.h"
#include "modelcalc/hf_config.h"
#include "quantity.h"

namespace modelcalc {

Result<DeploymentOptions> deployment_options(const DeploymentFlags& d, Dtype weights, Dtype kv, int64_t context,
                                             int64_t batch) {
  DeploymentOptions o;
  Parallelism& p = o.split;
  p.pp = d.pp.value_or(1);
  p.dp = d.dp.value_or(1);
  p.ep = d.ep.value_or(1);
  // Without --gpus, the split names the GPUs: gpus = tp x pp x dp (tp default 1).
  const int64_t gpus = d.gpus.value_or(d.tp.value_or(1) * p.pp * p.dp);
  if (d.tp) {
    p.tp = *d.tp;
  } else {
    if (gpus % (p.pp * p.dp) != 0) {
      return Status::InvalidArgument("--gpus", "must be a multiple of --pp x --dp (" + std::to_string(p.pp * p.dp) +
                                                   "), got " + std::to_string(gpus));
    }
    p.tp = gpus / (p.pp * p.dp);
  }
  // Each factor is at most kMaxGpus (2^20), so the product fits in 64 bits.
  if (p.tp * p.pp * p.dp != gpus) {
    return Status::InvalidArgument("--gpus", "must equal --tp x --pp x --dp (" + std::to_string(p.tp) + " x " +
                                                 std::to_string(p.pp) + " x " + std::to_string(p.dp) + "), got " +
                                                 std::to_string(gpus));
  }
  o.weight_dtype = weights;
  // Unset unless --kv-dtype was given (`kv` is then its value): the engine's
  // default follows the weights, so a varied scenario with other weights
  // keeps a 16-bit cache exactly as `--dtype X` alone does.
  if (d.kv_dtype || kv != default_kv_dtype(weights)) o.kv_dtype = kv;
  o.compute_dtype = d.compute_dtype;
  o.reserve_fraction = d.reserve.value_or(kCeilingReserveFraction);
  o.context = context;
  o.batch = batch;
  o.prompt_tokens = d.prompt.value_or(0);
  return o;
}

void add_engine_flags(FlagSet& flags, DeploymentFlags* d) {
  add_deployment_flags(flags, d,
                       {{Dep::kTp, kTpDefault},
                        {Dep::kPp, kPpDefault},
                        {Dep::kEp, kEpDefault},
                        {Dep::kDp, kDpDefault},
                        {Dep::kComputeDtype, kComputeDtypeDefault},
                        {Dep::kKvDtype, kKvDtypeDefault}});
  add_layout_flags(flags, &d->layout);
}

Result<DeploymentOptions> deployment_options(const DeploymentFlags& d, const ModelSpec& m, Dtype weights, Dtype kv,
                                             int64_t context, int64_t batch, ModelSpec* draft) {
  DeploymentFlags plain = d;
  if (d.layout.dp_attention) {  // --gpus is the replica's count: the split is read by apply_layout_flags
    plain.gpus.reset();
    plain.tp.reset();
    plain.pp.reset();
  }
  MC_ASSIGN_OR_RETURN(DeploymentOptions o, deployment_options(plain, weights, kv, context, batch));
  MC_RETURN_IF_ERROR(apply_layout_flags(d.layout, d, m, &o, draft));
  if (d.layout.expert_imbalance && o.split.ep <= 1) {
    return Status::InvalidArgument("--expert-imbalance", "needs expert parallelism (ep > 1): give --ep or --dp-attention");
  }
  return o;
}

Result<Parallelism> dp_attention_split(int64_t replica, int64_t tp, int64_t ep, int64_t dp) {
  if (replica % tp != 0) {
    return Status::InvalidArgument("--gpus", "with --dp-attention is the replica's GPU count and must be a multiple "
                                             "of --tp (" + std::to_string(tp) + "), got " + std::to_string(replica));
  }
  Parallelism p;
  p.dp_attention = true;
  p.tp = tp;
  p.attn_dp = replica / tp;
  p.ep = ep;
  p.dp = dp;
  return p;
}

const char* first_layout_flag(const LayoutCliFlags& l) {
  if (l.dp_attention) return "--dp-attention";
  if (l.expert_imbalance) return "--expert-imbalance";
  if (l.redundant_experts) return "--redundant-experts";
  if (l.two_batch_overlap) return "--two-batch-overlap";
  if (l.spec_tokens) return "--spec-tokens";
  if (l.spec_acceptance) return "--spec-acceptance";
  if (!l.spec_method.empty()) return "--spec-method";
  if (!l.draft_model.empty()) return "--draft-model";
  if (l.prefix_hit) return "--prefix-hit";
  return "--prefix-tokens";
}

void add_layout_flags(FlagSet& flags, LayoutCliFlags* f, bool for_plan) {
  if (for_plan) {
    flags
        .toggle("--disaggregated",
                "Search a prefill pool and a decode pool (x prefill replicas per y decode replicas, each its own GPU "
                "kind, split and dtypes; the KV moved over the NICs) and compare with the best aggregated plan",
                &f->disaggregated)
        .toggle("--kv-transfer-overlap",
                "Disaggregated: the KV streamed layer by layer behind the prefill (only the last layer's share adds "
                "to TTFT; default: sent after it)",
                &f->kv_transfer_overlap);
  } else {
    flags.toggle("--dp-attention",
                 "Attention data-parallel x MoE expert-parallel layout: --gpus is the replica's GPU count, attention, "
                 "KV, dense FFN and lm_head run in --gpus / --tp groups (each holds only its own sequences' KV), the "
                 "routed experts spread over --ep of them (default: all) with an all-to-all per MoE layer",
                 &f->dp_attention);
    flags.add<int64_t>("--redundant-experts",
                       "EPLB-style redundant expert slots per MoE layer (memory; needs --ep > 1; default: 0)",
                       &f->redundant_experts, [](std::string_view t, std::string_view fl) -> Result<int64_t> {
                         if (t == "0") return int64_t{0};
                         MC_ASSIGN_OR_RETURN(const int64_t v, parse_count(t, fl));
                         if (v > (int64_t{1} << 20)) return Status::InvalidArgument(fl, "must be at most 1,048,576");
                         return v;
                       });
  }
  flags
      .add<double>("--expert-imbalance",
                   "Busiest EP rank's routed tokens / the mean, 1 to 64 (default: 1, balanced; uniform routing's own "
                   "spread is added)",
                   &f->expert_imbalance,
                   [](std::string_view t, std::string_view fl) -> Result<double> {
                     MC_ASSIGN_OR_RETURN(const double v, parse_real(t, fl));
                     if (!(v >= 1 && v <= 64)) {
                       return Status::InvalidArgument(fl, "expected a factor from 1 to 64, got '" + std::string(t) + "'");
                     }
                     return v;
                   })
      .toggle("--two-batch-overlap",
              "Hide the all-to-all behind the other micro-batch's compute (SGLang's TBO, DeepSeek's dual micro-batch)",
              &f->two_batch_overlap)
      .add<int64_t>("--spec-tokens", "Speculative decoding: draft tokens K per target step, 1 to 64 (needs "
                                     "--spec-method mtp or --draft-model)",
                    &f->spec_tokens,
                    [](std::string_view t, std::string_view fl) -> Result<int64_t> {
                      auto v = parse_count(t, fl);
                      if (!v.ok() || *v > 64) {
                        return Status::InvalidArgument(fl, "expected a whole number of draft tokens from 1 to 64, "
                                                           "got '" + std::string(t) + "'");
                      }
                      return *v;
                    })
      .add<double>("--spec-acceptance", "Probability A each draft token is accepted, in [0, 1]: 0.8 or 80% (i.i.d.: "
                                        "(1 - A^(K+1)) / (1 - A) tokens per step)",
                   &f->spec_acceptance, parse_fraction)
      .text("--spec-method", "Drafter: mtp (the model's multi-token-prediction module) or draft (--draft-model; "
                             "the default when one is given)",
            &f->spec_method)
      .text("--draft-model", "Draft model for speculative decoding: a preset name or a config.json path (dense, the "
                             "model's vocabulary)",
            &f->draft_model)
      .add<double>("--prefix-hit", "Share of each prompt found in the prefix cache, in [0, 1): its tokens are not "
                                   "prefilled (default: 0)",
                   &f->prefix_hit, parse_fraction)
      .add<int64_t>("--prefix-tokens", "A prefix every request shares, in tokens: cached, its KV held once per "
                                       "attention group (default: 0)",
                    &f->prefix_tokens, [](std::string_view t, std::string_view fl) -> Result<int64_t> {
                      if (t == "0") return int64_t{0};
                      auto v = parse_count(t, fl);
                      if (!v.ok() || *v > (int64_t{1} << 30)) {
                        return Status::InvalidArgument(fl, "expected a whole number of tokens from 0 to 2^30, got '" +
                                                               std::string(t) + "'");
                      }
                      return *v;
                    });
}

Status apply_layout_flags(const LayoutCliFlags& l, const DeploymentFlags& d, const ModelSpec& m, DeploymentOptions* o,
                          ModelSpec* draft) {
  Parallelism& p = o->split;
  if (l.dp_attention) {
    if (d.pp && *d.pp != 1) return Status::InvalidArgument("--pp", "must be 1 with --dp-attention");
    const int64_t tp = d.tp.value_or(1), replica = d.gpus.value_or(tp);
    MC_ASSIGN_OR_RETURN(p, dp_attention_split(replica, tp, d.ep.value_or(m.n_expert > 0 ? replica : 1),
                                              d.dp.value_or(1)));
  }
  if (m.n_expert == 0 && (l.expert_imbalance || l.redundant_experts)) {
    return Status::InvalidArgument(l.expert_imbalance ? "--expert-imbalance" : "--redundant-experts",
                                   "applies to routed experts; " + m.name + " has none");
  }
  if (l.expert_imbalance) o->expert_imbalance = *l.expert_imbalance;
  if (l.redundant_experts) o->redundant_experts = *l.redundant_experts;
  o->two_batch_overlap = l.two_batch_overlap;
  if (l.two_batch_overlap && !l.dp_attention) {
    return Status::InvalidArgument("--two-batch-overlap", "hides the all-to-all of --dp-attention; give that too");
  }
  const bool spec = l.spec_tokens || l.spec_acceptance || !l.spec_method.empty() || !l.draft_model.empty();
  if (spec) {
    if (!l.spec_tokens) return Status::InvalidArgument("--spec-tokens", "speculative decoding needs K draft tokens");
    if (!l.spec_acceptance) {
      return Status::InvalidArgument("--spec-acceptance", "speculative decoding needs an acceptance rate A in [0, 1]");
    }
    SpeculativeDecoding& sp = o->spec;
    sp.tokens = *l.spec_tokens;
    sp.acceptance = *l.spec_acceptance;
    if (l.spec_method == "mtp") {
      if (!l.draft_model.empty()) return Status::InvalidArgument("--draft-model", "is not used with --spec-method mtp");
      sp.method = SpecMethod::kMtp;
    } else if (l.spec_method.empty() || l.spec_method == "draft") {
      if (l.draft_model.empty()) {
        return Status::InvalidArgument("--spec-method", "give --spec-method mtp or --draft-model NAME");
      }
      auto dm = find_preset(l.draft_model);
      if (!dm.ok()) {
        auto file = load_hf_config(l.draft_model);
        if (!file.ok()) {
          return Status::InvalidArgument("--draft-model", "'" + l.draft_model + "' is neither a preset nor a readable "
                                                          "config.json (modelcalc models lists the presets)");
        }
        dm = std::move(file);
      }
      *draft = *dm;
      sp.method = SpecMethod::kDraftModel;
      sp.draft = draft;
    } else {
      return Status::InvalidArgument("--spec-method", "unknown drafter '" + l.spec_method + "'; choose mtp or draft");
    }
  }
  if (l.prefix_hit) o->prefix.hit = *l.prefix_hit;
  if (l.prefix_tokens) o->prefix.shared_tokens = *l.prefix_tokens;
  return Status::Ok();
}

Result<DeploymentAnalysis> analyze_flags_deployment(const ModelSpec& m, const GpuSpec& gpu,
                                                    const DeploymentOptions& o, std::string_view context_flag) {
  auto a = analyze_deployment_full(m, gpu, o);
  if (!a.ok()) return as_flag_error(a.status(), context_flag);
  return a;
}

// A fraction in (0, 1]: 0.9 or 90%.
Result<double> engine_fraction(std::string_view text, std::string_view flag) {
  auto v = parse_fraction(text, flag);
  if (!v.ok() || !(*v > 0)) {
    return Status::InvalidArgument(flag, "expected a fraction in (0, 1], e.g. 0.9 or 90%, got '" + std::string(text) +
                                             "'");
  }
  return *v;
}

void add_engine_profile_flags(FlagSet& flags, EngineCliFlags* e, bool block_size) {
  EngineFlags& f = e->flags;
  flags.text("--engine", "Serving engine release the prediction models, NAME[@VERSION]: trtllm (TensorRT engines, "
                         "0.x), trtllm-pytorch (PyTorch backend, 1.x), vllm (V1, 0.8 on), vllm-v0, sglang; a version "
                         "picks the family (vllm@0.6 is V0, trtllm@1.0 the PyTorch backend); without one, the "
                         "family's current release (default: trtllm, the one the published runs fit); when given, a "
                         "layout that engine will not load is refused (docs/planning.md)", &e->engine)
      .add<double>("--gpu-memory-utilization", "vLLM: fraction of GPU memory it may use, (0, 1] (default: 0.9)",
                   &f.gpu_memory_utilization, engine_fraction)
      .add<double>("--kv-cache-free-gpu-mem-fraction",
                   "TensorRT-LLM: fraction of the memory free after weights and activations given to KV, (0, 1] "
                   "(default: 0.95, as NVIDIA's published runs; its own default is 0.9)",
                   &f.kv_cache_free_gpu_mem_fraction, engine_fraction)
      .add<double>("--mem-fraction-static", "SGLang: fraction of GPU memory for weights and the KV pool, (0, 1] "
                                            "(default: 0.88 at TP 1 down to 0.79 at TP 16)",
                   &f.mem_fraction_static, engine_fraction)
      .add<int64_t>("--max-model-len", "Tokens one sequence may hold, at most the model's limit (default: the "
                                       "model's max_position_embeddings)", &f.max_model_len, parse_count)
      .add<int64_t>("--max-num-batched-tokens", "Tokens one engine step carries (TensorRT-LLM's max_num_tokens; "
                                                "default: the engine's)", &f.max_num_batched_tokens, parse_count)
      .add<int64_t>("--max-num-seqs", "Sequences one engine step carries (TensorRT-LLM's max_batch_size; default: "
                                      "the engine's)", &f.max_num_seqs, parse_count)
      .toggle("--allow-long-max-model-len", "Let --max-model-len exceed the model's limit (vLLM's "
                                            "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)", &f.allow_long_max_model_len);
  if (block_size) {
    flags.add<int64_t>("--block-size", "Tokens per KV block (default: vllm 16, trtllm 64, sglang 1)", &f.block_size,
                       parse_count);
  }
}

Result<EngineRelease> cli_engine(const EngineCliFlags& e) {
  if (e.engine.empty()) return kDefaultEngine;
  return parse_engine(e.engine, "--engine");
}

EngineFlags cli_engine_flags(const EngineCliFlags& e, const DeploymentFlags& d) {
  EngineFlags f = e.flags;
  f.reserve = d.reserve;
  return f;
}

Result<ScenarioEngine> scenario_engine(const EngineCliFlags& e, const DeploymentFlags& d, const EngineWorkload& w) {
  MC_ASSIGN_OR_RETURN(const EngineRelease engine, cli_engine(e));
  return ScenarioEngine{engine, cli_engine_flags(e, d), w};
}

Result<DeploymentPrediction> predict_flags_deployment(const ModelSpec& m, const GpuSpec& gpu,
                                                      const DeploymentAnalysis& a, const EngineCliFlags& e,
                                                      const DeploymentFlags& d, const EngineWorkload& w) {
  MC_ASSIGN_OR_RETURN(const EngineRelease engine, cli_engine(e));
  // A layout the named engine refuses to load is refused (engine_rules.h); the default engine's prediction
  // stands beside the ceiling without that check.
  if (!e.engine.empty()) MC_RETURN_IF_ERROR(as_flag_error(check_engine_rules(engine.engine(), m, gpu, a.prepared)));
  auto p = predict_deployment(m, gpu, a, engine, cli_engine_flags(e, d), w);
  if (!p.ok()) return as_flag_error(p.status());
  return p;
}

}  // namespace modelcalc
