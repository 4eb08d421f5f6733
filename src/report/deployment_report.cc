#include "deployment_report.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "format.h"
#include "formula_text.h"
#include "modelcalc/sweep.h"

namespace modelcalc {

namespace {

std::string name(Dtype t) { return std::string(dtype_name(t)); }

Section deployment_section(const GpuSpec& gpu, const PreparedDeployment& d) {
  Section s{"Deployment (modeled)", {}, {}};
  const Parallelism& p = d.split;
  s.lines.push_back(given("deployment.gpus", "GPUs", p.gpus(), Unit::kNone,
                          "(" + gpu.name + "; tp × pp × dp = " + std::to_string(p.tp) + " × " +
                              std::to_string(p.pp) + " × " + std::to_string(p.dp) + ")"));
  s.lines.push_back(given("deployment.tp", "Tensor parallel", p.tp, Unit::kNone));
  s.lines.push_back(given("deployment.pp", "Pipeline stages", p.pp, Unit::kNone));
  s.lines.push_back(given("deployment.ep", "Expert parallel (inside TP)", p.ep, Unit::kNone));
  s.lines.push_back(given("deployment.dp", "Data-parallel replicas", p.dp, Unit::kNone));
  s.lines.push_back(given("deployment.weight_dtype", "Weights", name(d.weight_dtype), Unit::kNone));
  if (d.checkpoint_quant) {
    // A quantized checkpoint: weight_dtype is what its quantized parts hold; its 16-bit parts stay so.
    s.lines.push_back(given("deployment.attention_dtype", "  attention", name(d.attention_dtype), Unit::kNone,
                            "(as the checkpoint stores it)"));
    if (d.weights.mlp > 0) {
      s.lines.push_back(given("deployment.mlp_dtype", "  dense / shared MLP", name(d.mlp_dtype), Unit::kNone));
    }
    if (d.n_moe_layers > 0) {
      s.lines.push_back(given("deployment.experts_dtype", "  routed experts", name(d.experts_dtype), Unit::kNone));
    }
    if (d.n_recurrent_layers > 0) {
      s.lines.push_back(
          given("deployment.recurrent_dtype", "  recurrent mixers", name(d.recurrent_dtype), Unit::kNone));
    }
    if (d.fp8_block_scales) {
      s.lines.push_back(given("deployment.fp8_block_scales", "  fp8 block scales (128 x 128)", true, Unit::kNone));
    }
  }
  s.lines.push_back(given("deployment.compute_dtype", "Matmuls run in", name(d.compute_dtype), Unit::kNone));
  s.lines.push_back(given("deployment.kv_dtype", "KV cache", name(d.kv_dtype), Unit::kNone));
  if (d.n_recurrent_layers > 0) {
    s.lines.push_back(given("deployment.state_dtype", "Recurrent state", name(d.state_dtype), Unit::kNone));
  }
  s.lines.push_back(given("deployment.reserve_fraction", "HBM reserve", d.reserve_fraction, Unit::kFraction));
  s.lines.push_back(given("deployment.workspace_bytes", "Workspace per GPU", d.workspace_bytes, Unit::kBytes));
  if (p.tp > 1 || p.pp > 1) {
    s.notes.push_back("Links: TP over " + std::string(d.tp_crosses_domain ? "the scale-out NIC" : "the fast domain") +
                      ", PP over " + std::string(d.pp_crosses_domain ? "the scale-out NIC" : "the fast domain") +
                      " (" + std::to_string(gpu.domain_gpus) + " GPUs per fast domain).");
  }
  return s;
}

Section memory_section(const PreparedDeployment& d, const DeploymentResult& r) {
  const DeploymentMemory& m = r.memory;
  const WeightShard& w = m.weights;
  Section s{"Memory per GPU (worst pipeline stage)", {}, {}};
  s.lines.push_back(given("memory_per_gpu.capacity", "Capacity", m.capacity, Unit::kBytes));
  s.lines.push_back(computed("memory_per_gpu.reserve", "Reserve", m.reserve, Unit::kBytes, fx::kDepReserve,
                             {term("capacity", m.capacity), term("r", d.reserve_fraction)}));
  s.lines.push_back(given("memory_per_gpu.workspace", "Workspace", m.workspace, Unit::kBytes));
  std::vector<Term> wt = {term("emb", w.embeddings), term("lm_head", w.lm_head), term("attn", w.attention),
                          term("mlp", w.mlp),         term("experts", w.experts), term("other", w.other),
                          term("scales", w.scales)};
  if (w.recurrent > 0) wt.push_back(term("rec", w.recurrent));
  s.lines.push_back(computed("memory_per_gpu.weights", "Weight shard", w.total(), Unit::kBytes,
                             w.recurrent > 0 ? fx::kDepWeightsRec : fx::kDepWeights, std::move(wt)));
  const int64_t layers = d.stage_full_layers + d.stage_swa_layers + d.stage_chunked_layers;
  const double b_kv = static_cast<double>(d.kv_bits) / 8.0;
  if (d.index_elems_per_layer > 0) {
    s.lines.push_back(computed("memory_per_gpu.kv_per_token", "KV per token (+ indexer keys)", m.kv_per_token,
                               Unit::kBytes, fx::kDepKvTokIndex,
                               {term("L_stage", layers), term("e_rank", d.kv_elems_per_layer),
                                term("L_full", d.stage_full_layers), term("e_index", d.index_elems_per_layer),
                                term("b_kv", b_kv)}));
  } else {
    s.lines.push_back(computed("memory_per_gpu.kv_per_token", "KV per token", m.kv_per_token, Unit::kBytes,
                               fx::kDepKvTok,
                               {term("L_stage", layers), term("e_rank", d.kv_elems_per_layer), term("b_kv", b_kv)}));
  }
  const int64_t T = r.decode.context;
  const int64_t win = d.n_swa > 0 ? std::min(T, d.n_swa) : T;
  if (d.stage_chunked_layers > 0 || d.index_elems_per_layer > 0) {
    const int64_t chunk = d.n_chunk > 0 ? std::min(T, d.n_chunk) : T;
    s.lines.push_back(computed("memory_per_gpu.kv_per_sequence", "KV per sequence", m.kv_per_sequence, Unit::kBytes,
                               fx::kDepKvSeqLayers,
                               {term("e_rank", d.kv_elems_per_layer), term("L_full", d.stage_full_layers),
                                term("T", T), term("L_swa", d.stage_swa_layers), term("T_win", win),
                                term("L_chunk", d.stage_chunked_layers), term("T_chunk", chunk),
                                term("e_index", d.index_elems_per_layer), term("b_kv", b_kv)}));
  } else {
    s.lines.push_back(computed("memory_per_gpu.kv_per_sequence", "KV per sequence", m.kv_per_sequence, Unit::kBytes,
                               fx::kDepKvSeq,
                               {term("e_rank", d.kv_elems_per_layer), term("b_kv", b_kv),
                                term("L_full", d.stage_full_layers), term("T", T), term("L_swa", d.stage_swa_layers),
                                term("T_win", win)}));
  }
  if (d.stage_recurrent_layers > 0) {
    s.lines.push_back(computed("memory_per_gpu.state_per_sequence", "Recurrent state per sequence",
                               m.state_per_sequence, Unit::kBytes, fx::kDepStateSeq,
                               {term("L_rec", d.stage_recurrent_layers), term("e_state", d.state_elems_per_layer),
                                term("b_state", static_cast<double>(d.state_bits) / 8.0)},
                               "(fixed, whatever the context)"));
  } else {
    s.lines.push_back(given("memory_per_gpu.state_per_sequence", "Recurrent state per sequence",
                            m.state_per_sequence, Unit::kBytes, "(no recurrent layers)"));
  }
  s.lines.push_back(computed("memory_per_gpu.free_for_kv", "Free for KV", m.free_for_kv, Unit::kBytes, fx::kDepFree,
                             {term("capacity", m.capacity), term("reserve", m.reserve),
                              term("workspace", m.workspace), term("W", static_cast<double>(w.total()))}));
  if (m.state_per_sequence > 0) {
    s.lines.push_back(computed("memory_per_gpu.max_sequences", "Sequences that fit (per replica)", m.max_sequences,
                               Unit::kSequences, fx::kDepMaxSeqState,
                               {term("free", std::max(0.0, m.free_for_kv)), term("KV_seq", m.kv_per_sequence),
                                term("S_seq", m.state_per_sequence)}));
  } else {
    s.lines.push_back(computed("memory_per_gpu.max_sequences", "Sequences that fit (per replica)", m.max_sequences,
                               Unit::kSequences, fx::kDepMaxSeq,
                               {term("free", std::max(0.0, m.free_for_kv)), term("KV_seq", m.kv_per_sequence)}));
  }
  return s;
}

Section decode_section(const PreparedDeployment& d, const DeploymentResult& r) {
  const DecodeStep& st = r.decode;
  Section s{"Decode step (per GPU)", {}, {}};
  s.lines.push_back(given("decode_step.batch", "Batch B (per replica)", st.batch, Unit::kSequences));
  s.lines.push_back(given("decode_step.context", "Context T", st.context, Unit::kTokens));
  if (d.n_moe_layers > 0) {
    s.lines.push_back(computed("decode_step.experts_touched", "Experts read per MoE layer", st.experts_touched,
                               Unit::kNone, fx::kDepExperts,
                               {term("E", d.n_expert), term("k", d.n_expert_used),
                                term("B", st.batch)}));
  }
  const DecodeBytes& b = st.bytes;
  std::vector<Term> bt = {term("W_blocks", b.weights), term("W_experts", b.experts), term("W_lm_head", b.lm_head),
                          term("W_rows", b.embedding_rows), term("KV", b.kv)};
  if (b.state > 0) bt.push_back(term("S", b.state));
  s.lines.push_back(computed("decode_step.bytes_per_gpu", "Bytes read", st.bytes_per_gpu, Unit::kBytes,
                             b.state > 0 ? fx::kDepStepBytesState : fx::kDepStepBytes, std::move(bt),
                             b.state > 0 ? "(S: recurrent state read and written back)" : ""));
  const DecodeFlops& f = st.flops;
  std::vector<Term> ft = {term("F_linear", f.linear), term("F_attn", f.attention), term("F_lm_head", f.lm_head)};
  if (f.recurrent > 0) ft.push_back(term("F_rec", f.recurrent));
  s.lines.push_back(computed("decode_step.flops_per_gpu", "FLOPs", st.flops_per_gpu, Unit::kFlop,
                             f.recurrent > 0 ? fx::kDepStepFlopsRec : fx::kDepStepFlops, std::move(ft)));
  s.lines.push_back(computed("decode_step.intensity", "Intensity", st.intensity, Unit::kFlopPerByte, fx::kIntensity,
                             {term("F", st.flops_per_gpu), term("bytes", st.bytes_per_gpu)}));
  s.lines.push_back(computed("decode_step.ridge", "Ridge (" + name(d.compute_dtype) + ")", st.ridge,
                             Unit::kFlopPerByte, fx::kRidge, {term("peak", d.peak_flops), term("bw", d.bandwidth)}));
  const double pp = static_cast<double>(d.split.pp);
  s.lines.push_back(computed("decode_step.compute_seconds", "Compute time", st.compute_seconds, Unit::kSeconds,
                             fx::kDepCompute,
                             {term("pp", pp), term("F", st.flops_per_gpu), term("peak", d.peak_flops)}));
  s.lines.push_back(computed("decode_step.memory_seconds", "Memory time", st.memory_seconds, Unit::kSeconds,
                             fx::kDepMemory, {term("pp", pp), term("bytes", st.bytes_per_gpu), term("bw", d.bandwidth)}));
  s.lines.push_back(computed("decode_step.comm_seconds", "Communication (not overlapped)", st.comm_seconds,
                             Unit::kSeconds, fx::kDepComm,
                             {term("t_allreduce", st.allreduce_seconds), term("t_handoff", st.handoff_seconds)}));
  s.lines.push_back(computed("decode_step.seconds", "Step time (TPOT)", st.seconds, Unit::kSeconds, fx::kDepStep,
                             {term("t_compute", st.compute_seconds), term("t_memory", st.memory_seconds),
                              term("t_comm", st.comm_seconds)}));
  s.lines.push_back(computed("decode_step.tokens_per_s_per_sequence", "Tokens/s per sequence",
                             st.tokens_per_s_per_sequence, Unit::kTokensPerS, fx::kDepTpsSeq,
                             {term("t_step", st.seconds)}));
  s.lines.push_back(computed("decode_step.tokens_per_s_aggregate", "Tokens/s aggregate", st.tokens_per_s_aggregate,
                             Unit::kTokensPerS, fx::kDepTpsAgg,
                             {term("B", st.batch), term("dp", d.split.dp), term("t_step", st.seconds)}));
  s.lines.push_back(given("decode_step.fits", "Batch fits in memory", st.fits, Unit::kNone));
  s.lines.push_back(given("decode_step.regime", "Regime", std::string(regime_name(st.regime)), Unit::kNone));
  return s;
}

Section prefill_section(const PreparedDeployment& d, const DeploymentResult& r) {
  const Prefill& p = r.prefill;
  Section s{"Prefill (one prompt, per GPU)", {}, {}};
  s.lines.push_back(given("prefill.prompt_tokens", "Prompt P", p.prompt_tokens, Unit::kTokens));
  s.lines.push_back(given("prefill.flops", "FLOPs (linear + causal attention + last lm_head)", p.flops, Unit::kFlop));
  s.lines.push_back(given("prefill.bytes", "Bytes (weights once + KV written)", p.bytes, Unit::kBytes));
  const double pp = static_cast<double>(d.split.pp);
  s.lines.push_back(computed("prefill.compute_seconds", "Compute time", p.compute_seconds, Unit::kSeconds,
                             fx::kDepCompute, {term("pp", pp), term("F", p.flops), term("peak", d.peak_flops)}));
  s.lines.push_back(computed("prefill.memory_seconds", "Memory time", p.memory_seconds, Unit::kSeconds,
                             fx::kDepMemory, {term("pp", pp), term("bytes", p.bytes), term("bw", d.bandwidth)}));
  s.lines.push_back(given("prefill.comm_seconds", "Communication", p.comm_seconds, Unit::kSeconds));
  s.lines.push_back(computed("prefill.seconds", "Time to first token", p.seconds, Unit::kSeconds, fx::kDepPrefill,
                             {term("t_compute", p.compute_seconds), term("t_memory", p.memory_seconds),
                              term("t_comm", p.comm_seconds)}));
  return s;
}

const char* fraction_flag(Engine e) {
  switch (e) {
    case Engine::kTrtllm: return "kv_cache_free_gpu_mem_fraction";
    case Engine::kVllm: return "gpu_memory_utilization";
    case Engine::kSglang: return "mem_fraction_static";
  }
  return "?";
}

std::string regime_of(const StepTime& t, bool fits) {
  if (!fits) return std::string(regime_name(DeploymentRegime::kCapacityBound));
  if (t.comm_s > t.compute_s && t.comm_s > t.memory_s) return std::string(regime_name(DeploymentRegime::kCommunicationBound));
  return std::string(regime_name(t.compute_s >= t.memory_s ? DeploymentRegime::kComputeBound
                                                          : DeploymentRegime::kBandwidthBound));
}

void add_predicted_memory(const DeploymentPrediction& p, Section* s) {
  const EngineMemory& m = p.memory;
  const std::string tag = " (predicted, " + std::string(p.profile->display) + ")";
  s->lines.push_back(given("memory_per_gpu.predicted.capacity", "Capacity" + tag, m.total_bytes, Unit::kBytes));
  s->lines.push_back(given("memory_per_gpu.predicted.reserve", "Kept back" + tag, p.reserve_bytes, Unit::kBytes,
                           "(" + std::string(fraction_flag(p.settings.engine)) + " " +
                               fmt_sig(p.settings.memory_fraction, 3) + ")"));
  s->lines.push_back(given("memory_per_gpu.predicted.workspace", "Non-torch + activation peak" + tag,
                           m.non_torch_bytes + m.activation_peak_bytes, Unit::kBytes));
  s->lines.push_back(given("memory_per_gpu.predicted.weights", "Weight shard" + tag, m.weights_bytes, Unit::kBytes));
  s->lines.push_back(given("memory_per_gpu.predicted.kv_per_token", "KV per token" + tag, m.kv_bytes_per_token,
                           Unit::kBytes));
  s->lines.push_back(given("memory_per_gpu.predicted.kv_per_sequence", "KV per sequence, whole blocks" + tag,
                           p.kv_bytes_per_sequence, Unit::kBytes,
                           "(blocks of " + std::to_string(p.settings.block_size) + " tokens)"));
  s->lines.push_back(given("memory_per_gpu.predicted.free_for_kv", "KV cache" + tag, m.kv_cache_bytes_per_gpu,
                           Unit::kBytes));
  s->lines.push_back(given("memory_per_gpu.predicted.max_sequences", "Sequences that fit" + tag,
                           p.decode.max_sequences, Unit::kSequences,
                           p.settings.reserve_whole_request ? "(each reserves its whole context when admitted)"
                                                            : "(blocks allocated as sequences grow)"));
}

void add_step_lines(const std::string& prefix, const StepTime& t, Section* s) {
  s->lines.push_back(given(prefix + "bytes_per_gpu", "Bytes read (predicted)", t.bytes_per_gpu, Unit::kBytes,
                           "(with the non-GEMM kernels' activation traffic)"));
  s->lines.push_back(given(prefix + "flops_per_gpu", "FLOPs (predicted)", t.flops_per_gpu, Unit::kFlop));
  s->lines.push_back(given(prefix + "compute_seconds", "Compute time at the achieved rates (predicted)", t.compute_s,
                           Unit::kSeconds));
  s->lines.push_back(given(prefix + "memory_seconds", "Memory time at the achieved rates (predicted)", t.memory_s,
                           Unit::kSeconds));
  s->lines.push_back(given(prefix + "comm_seconds", "Communication (predicted)", t.comm_s, Unit::kSeconds));
  s->lines.push_back(given(prefix + "overhead_seconds", "Engine overhead (predicted)", t.overhead_s, Unit::kSeconds));
}

Section engine_section_impl(const DeploymentPrediction& p) {
  const EngineProfile& pr = *p.profile;
  const EngineSettings& st = p.settings;
  const EngineMemory& m = p.memory;
  Section s{"Engine (predicted): " + std::string(pr.display), {}, {}};
  s.lines.push_back(given("engine.profile", "Profile", std::string(pr.name), Unit::kNone));
  s.lines.push_back(given("engine.name", "Engine", std::string(pr.display), Unit::kNone));
  s.lines.push_back(given("engine.time_parameters", "Step-time parameters",
                          pr.time_inherited ? std::string("TensorRT-LLM's (no published ") + std::string(pr.display) +
                                                  " measurements were fitted)"
                                            : std::string("fitted on published TensorRT-LLM runs (calibrate --fit)"),
                          Unit::kNone));
  s.lines.push_back(given("engine.memory_fraction", fraction_flag(st.engine), st.memory_fraction, Unit::kNone,
                          st.fraction_from_reserve ? "(1 - --reserve)" : ""));
  s.lines.push_back(given("engine.block_size", "block_size", st.block_size, Unit::kTokens));
  s.lines.push_back(given("engine.max_model_len", "max_model_len", st.max_model_len, Unit::kTokens));
  s.lines.push_back(given("engine.max_num_batched_tokens",
                          st.engine == Engine::kTrtllm ? "max_num_tokens" : "max_num_batched_tokens",
                          st.max_num_batched_tokens, Unit::kTokens,
                          st.limits_from_workload ? "(trtllm-bench's heuristic for the request shape)" : ""));
  s.lines.push_back(given("engine.max_num_seqs", st.engine == Engine::kTrtllm ? "max_batch_size" : "max_num_seqs",
                          st.max_num_seqs, Unit::kSequences));
  s.lines.push_back(given("engine.total_bytes", "Total GPU memory the engine sees", m.total_bytes, Unit::kBytes));
  if (st.engine == Engine::kTrtllm) {
    s.lines.push_back(given("engine.usable_bytes", "Usable", m.usable_bytes, Unit::kBytes));
  } else {
    s.lines.push_back(computed("engine.usable_bytes", "Usable", m.usable_bytes, Unit::kBytes, fx::kPredUsable,
                               {term("f", st.memory_fraction), term("total", m.total_bytes, Unit::kBytes)}));
  }
  s.lines.push_back(given("engine.weights_bytes", "Model weights take", m.weights_bytes, Unit::kBytes));
  s.lines.push_back(given("engine.non_torch_bytes", "Non-torch memory (estimate)", m.non_torch_bytes, Unit::kBytes));
  s.lines.push_back(computed("engine.activation_peak_bytes", "Activation peak (estimate)", m.activation_peak_bytes,
                             Unit::kBytes, fx::kPredActivation,
                             {term("C", st.max_num_batched_tokens),
                              term("a_tok", st.activation_bytes_per_token, Unit::kBytes),
                              term("S", st.max_num_seqs),
                              term("logits_seq", st.logits_bytes_per_sequence, Unit::kBytes)}));
  const std::vector<Term> kv_terms = {term("f", st.memory_fraction), term("total", m.total_bytes, Unit::kBytes),
                                      term("W", m.weights_bytes, Unit::kBytes),
                                      term("non_torch", m.non_torch_bytes, Unit::kBytes),
                                      term("activation", m.activation_peak_bytes, Unit::kBytes)};
  const FormulaText& kvf = st.engine == Engine::kTrtllm ? fx::kPredKvTrt
                           : st.engine == Engine::kVllm ? fx::kPredKvVllm
                                                        : fx::kPredKvSgl;
  s.lines.push_back(computed("engine.kv_cache_bytes_per_gpu", "KV cache memory per GPU", m.kv_cache_bytes_per_gpu,
                             Unit::kBytes, kvf, kv_terms));
  s.lines.push_back(given("engine.kv_bytes_per_token", "KV per token per GPU", m.kv_bytes_per_token, Unit::kBytes));
  s.lines.push_back(computed("engine.gpu_blocks", "# GPU blocks", m.gpu_blocks, Unit::kNone, fx::kPredBlocks,
                             {term("KV", std::max(0.0, m.kv_cache_bytes_per_gpu), Unit::kBytes),
                              term("block", st.block_size), term("KV_tok", static_cast<double>(m.kv_bytes_per_token), Unit::kBytes)}));
  s.lines.push_back(computed("engine.kv_cache_tokens", "GPU KV cache size", m.kv_cache_tokens, Unit::kTokens,
                             fx::kPredTokens, {term("blocks", m.gpu_blocks), term("block", st.block_size)}));
  s.lines.push_back(computed("engine.max_concurrency",
                             "Maximum concurrency for " + group_digits(st.max_model_len) + " tokens per request",
                             m.max_concurrency, Unit::kFactor, fx::kPredConcurrency,
                             {term("tokens", m.kv_cache_tokens), term("max_model_len", st.max_model_len)}));
  s.notes.push_back(std::string(pr.memory_rule) + ". Sources: " + std::string(pr.memory_source) + ".");
  if (p.windows_dropped) {
    s.notes.push_back("Sliding windows: TensorRT-LLM keeps every layer's whole context unless its "
                      "max_attention_window_size is set, so the prediction caches and reads the whole context.");
  }
  return s;
}

}  // namespace

Section engine_section(const DeploymentPrediction& p) { return engine_section_impl(p); }

Section serving_section(const ServingPair& pair, int64_t isl, int64_t osl, const EngineProfile& profile) {
  Section s{"Serving at the batch (steady state: input " + group_digits(isl) + ", output " + group_digits(osl) +
                " tokens per request)",
            {}, {}};
  auto add = [&](const std::string& prefix, const ServingFigures& f, const std::string& tag) {
    const double cap = std::floor(f.capacity_sequences);
    s.lines.push_back(given(prefix + "max_sequences", "Sequences a replica runs at once" + tag,
                            f.fits && cap < 9e18 ? static_cast<int64_t>(cap) : int64_t{0}, Unit::kSequences,
                            std::string("(limit: ") + batch_limit_name(f.limit) + ")"));
    s.lines.push_back(given(prefix + "batch", "Decoding batch" + tag, f.batch, Unit::kSequences));
    s.lines.push_back(given(prefix + "prefill_tokens_per_step", "Prompt tokens per step" + tag,
                            f.prefill_tokens_per_step, Unit::kTokens));
    s.lines.push_back(given(prefix + "tpot_s", "TPOT (mean step, chunks included)" + tag, f.tpot_s, Unit::kSeconds));
    s.lines.push_back(given(prefix + "ttft_s", "TTFT" + tag, f.ttft_s, Unit::kSeconds));
    s.lines.push_back(given(prefix + "tokens_per_s_per_user", "Tokens/s per user" + tag, f.tokens_per_s_per_user,
                            Unit::kTokensPerS));
    s.lines.push_back(given(prefix + "output_tokens_per_s", "Output tokens/s, all replicas" + tag,
                            f.output_tokens_per_s, Unit::kTokensPerS));
  };
  add("serving.", pair.ceiling, " (ceiling)");
  add("serving.predicted.", pair.predicted, " (predicted, " + std::string(profile.display) + ")");
  s.notes.push_back("Each step decodes the batch at the mean context isl + osl / 2 and prefills the prompts of the "
                    "requests replacing the finishing ones beside it; the ceiling's TTFT is the prompt's prefill "
                    "alone. `plan` evaluates exactly this for each configuration and batch.");
  return s;
}

Section modeled_cost_section(const ModeledCost& c) {
  Section s{"Cost at the modeled deployment", {}, {}};
  s.lines.push_back(computed("cost.modeled_usd_per_million_tokens", "USD per 1M tokens, modeled",
                             c.usd_per_million_tokens, Unit::kUsd, fx::kCostPerMillion,
                             {term("price", c.usd_per_gpu_hour), term("gpus", c.gpus), term("tps", c.tokens_per_s)},
                             c.fits ? "" : "(the batch does not fit: a floor for a setup HBM cannot hold)"));
  return s;
}

std::vector<Section> deployment_sections(const GpuSpec& gpu, const DeploymentAnalysis& a,
                                         const DeploymentPrediction* p) {
  Section dec = decode_section(a.prepared, a.result);
  dec.lines.push_back(given("decode_step.compute_bound_batch", "Decode turns compute-bound at batch",
                            a.compute_bound_batch, Unit::kSequences,
                            a.compute_bound_batch == 0 ? "(never: every sequence reads its own KV)"
                            : a.compute_bound_batch > a.result.memory.max_sequences
                                ? "(more than fit: capacity-bound first)"
                                : "(fits in memory)"));
  Section mem = memory_section(a.prepared, a.result);
  Section pre = prefill_section(a.prepared, a.result);
  if (p != nullptr) {
    add_predicted_memory(*p, &mem);
    const PredictedDecode& d = p->decode;
    const StepTime& t = d.step;
    dec.lines.push_back(given("decode_step.predicted.batch", "Batch B (predicted)", a.result.decode.batch,
                              Unit::kSequences));
    dec.lines.push_back(given("decode_step.predicted.context", "Context T (predicted)", a.result.decode.context,
                              Unit::kTokens));
    add_step_lines("decode_step.predicted.", t, &dec);
    dec.lines.push_back(computed("decode_step.predicted.seconds", "Step time (TPOT), predicted", t.seconds,
                                 Unit::kSeconds, fx::kPredStep,
                                 {term("t_dense", t.dense_s, Unit::kSeconds), term("t_experts", t.experts_s, Unit::kSeconds),
                                  term("t_lm_head", t.lm_head_s, Unit::kSeconds), term("t_kv", t.kv_read_s, Unit::kSeconds),
                                  term("t_prefill_attn", t.prefill_attention_s, Unit::kSeconds),
                                  term("t_elementwise", t.elementwise_s, Unit::kSeconds),
                                  term("t_comm", t.comm_s, Unit::kSeconds), term("t_overhead", t.overhead_s, Unit::kSeconds)},
                                 "(" + std::string(p->profile->display) + ")"));
    dec.lines.push_back(computed("decode_step.predicted.tokens_per_s_per_sequence", "Tokens/s per sequence, predicted",
                                 d.tokens_per_s_per_sequence, Unit::kTokensPerS, fx::kPredTpsSeq,
                                 {term("t_step", t.seconds, Unit::kSeconds)}));
    dec.lines.push_back(computed("decode_step.predicted.tokens_per_s_aggregate", "Tokens/s aggregate, predicted",
                                 d.tokens_per_s_aggregate, Unit::kTokensPerS, fx::kPredTpsAgg,
                                 {term("B", a.result.decode.batch), term("dp", a.prepared.split.dp),
                                  term("t_step", t.seconds, Unit::kSeconds)}));
    dec.lines.push_back(given("decode_step.predicted.fits", "Batch fits the engine's KV cache", d.fits, Unit::kNone));
    dec.lines.push_back(given("decode_step.predicted.regime", "Regime (predicted)", regime_of(t, d.fits), Unit::kNone));
    const StepTime& f = p->prefill;
    pre.lines.push_back(given("prefill.predicted.prompt_tokens", "Prompt P (predicted)", p->prompt_tokens,
                              Unit::kTokens, "(in chunks of " + group_digits(p->settings.max_num_batched_tokens) +
                                                 " tokens)"));
    pre.lines.push_back(given("prefill.predicted.flops", "FLOPs (predicted)", f.flops_per_gpu, Unit::kFlop));
    pre.lines.push_back(given("prefill.predicted.bytes", "Bytes (predicted)", f.bytes_per_gpu, Unit::kBytes));
    pre.lines.push_back(given("prefill.predicted.compute_seconds", "Compute time (predicted)", f.compute_s,
                              Unit::kSeconds));
    pre.lines.push_back(given("prefill.predicted.memory_seconds", "Memory time (predicted)", f.memory_s,
                              Unit::kSeconds));
    pre.lines.push_back(given("prefill.predicted.comm_seconds", "Communication (predicted)", f.comm_s, Unit::kSeconds));
    pre.lines.push_back(given("prefill.predicted.overhead_seconds", "Engine overhead (predicted)", f.overhead_s,
                              Unit::kSeconds));
    pre.lines.push_back(computed("prefill.predicted.seconds", "Time to first token, predicted", f.seconds,
                                 Unit::kSeconds, fx::kPredStep,
                                 {term("t_dense", f.dense_s, Unit::kSeconds), term("t_experts", f.experts_s, Unit::kSeconds),
                                  term("t_lm_head", f.lm_head_s, Unit::kSeconds), term("t_kv", f.kv_read_s, Unit::kSeconds),
                                  term("t_prefill_attn", f.prefill_attention_s, Unit::kSeconds),
                                  term("t_elementwise", f.elementwise_s, Unit::kSeconds),
                                  term("t_comm", f.comm_s, Unit::kSeconds), term("t_overhead", f.overhead_s, Unit::kSeconds)},
                                 "(alone: no queue, no batch beside it)"));
  }
  // Moved in, not listed: a braced list would copy every section, line and term.
  std::vector<Section> out;
  out.reserve(5);
  out.push_back(deployment_section(gpu, a.prepared));
  out.push_back(std::move(mem));
  out.push_back(std::move(dec));
  out.push_back(std::move(pre));
  if (p != nullptr) out.push_back(engine_section_impl(*p));
  return out;
}

nlohmann::json deployment_json(const GpuSpec& gpu, const DeploymentAnalysis& a, const DeploymentPrediction* p) {
  Report rep;
  rep.sections = deployment_sections(gpu, a, p);
  return render_json(rep);
}

Section textbook_vs_modeled(const SizeResult& t, const DeploymentAnalysis& a, const DeploymentResult& one) {
  Section s{"7. Modeled deployment beside the textbook", {}, {}};
  const DeploymentResult& r = a.result;
  const double dp = static_cast<double>(a.prepared.split.dp);
  s.lines.push_back(given("textbook_vs_modeled.single_stream.textbook", "Single stream, textbook (bw ÷ (W + KV))",
                          t.tps_with_kv, Unit::kTokensPerS));
  s.lines.push_back(given("textbook_vs_modeled.single_stream.modeled", "Single stream, modeled",
                          one.decode.tokens_per_s_per_sequence, Unit::kTokensPerS,
                          "(reads B embedding rows not the table, the touched experts; adds lm_head FLOPs and "
                          "communication)"));
  s.lines.push_back(given("textbook_vs_modeled.max_sequences.textbook", "Sequences that fit, textbook (capacity − W)",
                          t.max_batch_by_capacity, Unit::kSequences));
  s.lines.push_back(given("textbook_vs_modeled.max_sequences.modeled", "Sequences that fit, modeled (all replicas)",
                          static_cast<int64_t>(r.memory.max_sequences * a.prepared.split.dp), Unit::kSequences,
                          "(keeps the reserve and a workspace back; KV heads held per TP rank, replicated past "
                          "the KV head count; 16-bit tables kept in quantized checkpoints)"));
  s.lines.push_back(given("textbook_vs_modeled.aggregate.textbook", "Aggregate at the batch, textbook",
                          t.tps_aggregate, Unit::kTokensPerS));
  s.lines.push_back(given("textbook_vs_modeled.aggregate.modeled", "Aggregate at the batch, modeled",
                          r.decode.tokens_per_s_aggregate, Unit::kTokensPerS,
                          dp > 1 ? "(batch per replica × dp replicas; compute, memory and comm terms)"
                                 : "(the max of compute and memory time plus communication)"));
  s.lines.push_back(given("textbook_vs_modeled.regime.textbook", "Regime, textbook (d×d projection)",
                          std::string(regime_name(t.regime)), Unit::kNone));
  s.lines.push_back(given("textbook_vs_modeled.regime.modeled", "Regime, modeled (whole step)",
                          std::string(regime_name(r.decode.regime)), Unit::kNone,
                          "(the whole decode step, KV reads included, against the compute dtype's roof)"));
  return s;
}

}  // namespace modelcalc
