#include "deployment_options.h"

#include <string>
#include <utility>

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
  flags.text("--engine", "Serving engine the prediction models: trtllm, vllm or sglang (default: trtllm, the one the "
                         "published runs fit)", &e->engine)
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

Result<Engine> cli_engine(const EngineCliFlags& e) {
  if (e.engine.empty()) return kDefaultEngine;
  return parse_engine(e.engine, "--engine");
}

EngineFlags cli_engine_flags(const EngineCliFlags& e, const DeploymentFlags& d) {
  EngineFlags f = e.flags;
  f.reserve = d.reserve;
  return f;
}

Result<ScenarioEngine> scenario_engine(const EngineCliFlags& e, const DeploymentFlags& d, const EngineWorkload& w) {
  MC_ASSIGN_OR_RETURN(const Engine engine, cli_engine(e));
  return ScenarioEngine{engine, cli_engine_flags(e, d), w};
}

Result<DeploymentPrediction> predict_flags_deployment(const ModelSpec& m, const GpuSpec& gpu,
                                                      const DeploymentAnalysis& a, const EngineCliFlags& e,
                                                      const DeploymentFlags& d, const EngineWorkload& w) {
  MC_ASSIGN_OR_RETURN(const Engine engine, cli_engine(e));
  auto p = predict_deployment(m, gpu, a, engine, cli_engine_flags(e, d), w);
  if (!p.ok()) return as_flag_error(p.status());
  return p;
}

}  // namespace modelcalc
