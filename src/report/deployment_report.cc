#include "deployment_report.h"

#include <algorithm>
#include <string>

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

}  // namespace

Section modeled_cost_section(const ModeledCost& c) {
  Section s{"Cost at the modeled deployment", {}, {}};
  s.lines.push_back(computed("cost.modeled_usd_per_million_tokens", "USD per 1M tokens, modeled",
                             c.usd_per_million_tokens, Unit::kUsd, fx::kCostPerMillion,
                             {term("price", c.usd_per_gpu_hour), term("gpus", c.gpus), term("tps", c.tokens_per_s)},
                             c.fits ? "" : "(the batch does not fit: a floor for a setup HBM cannot hold)"));
  return s;
}

std::vector<Section> deployment_sections(const GpuSpec& gpu, const DeploymentAnalysis& a) {
  Section dec = decode_section(a.prepared, a.result);
  dec.lines.push_back(given("decode_step.compute_bound_batch", "Decode turns compute-bound at batch",
                            a.compute_bound_batch, Unit::kSequences,
                            a.compute_bound_batch == 0 ? "(never: every sequence reads its own KV)"
                            : a.compute_bound_batch > a.result.memory.max_sequences
                                ? "(more than fit: capacity-bound first)"
                                : "(fits in memory)"));
  // Moved in, not listed: a braced list would copy every section, line and term.
  std::vector<Section> out;
  out.reserve(4);
  out.push_back(deployment_section(gpu, a.prepared));
  out.push_back(memory_section(a.prepared, a.result));
  out.push_back(std::move(dec));
  out.push_back(prefill_section(a.prepared, a.result));
  return out;
}

nlohmann::json deployment_json(const GpuSpec& gpu, const DeploymentAnalysis& a) {
  Report rep;
  rep.sections = deployment_sections(gpu, a);
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
