#include "deployment_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "format.h"
#include "formula_text.h"
#include "modelcalc/engine_rules.h"
#include "modelcalc/sweep.h"

namespace modelcalc {

namespace {

std::string name(Dtype t) { return std::string(dtype_name(t)); }

Section deployment_section(const GpuSpec& gpu, const PreparedDeployment& d) {
  Section s{"Deployment (modeled)", {}, {}};
  const Parallelism& p = d.split;
  const std::string shape =
      p.dp_attention ? "tp × attn_dp × dp = " + std::to_string(p.tp) + " × " + std::to_string(p.attn_dp) + " × " +
                           std::to_string(p.dp)
                     : "tp × pp × dp = " + std::to_string(p.tp) + " × " + std::to_string(p.pp) + " × " +
                           std::to_string(p.dp);
  s.lines.push_back(given("deployment.gpus", "GPUs", p.gpus(), Unit::kNone, "(" + gpu.name + "; " + shape + ")"));
  s.lines.push_back(given("deployment.layout", "Layout",
                          std::string(p.dp_attention ? "dp-attention" : "tensor-parallel"), Unit::kNone,
                          p.dp_attention ? "(attention, KV, dense FFN and lm_head data-parallel over " +
                                               std::to_string(p.attn_dp) + " groups of " + std::to_string(p.tp) +
                                               " GPUs; routed experts over all " + std::to_string(p.moe_group()) + ")"
                                         : ""));
  s.lines.push_back(given("deployment.dp_attention", "Attention data-parallel", p.dp_attention, Unit::kNone));
  s.lines.push_back(given("deployment.replica_gpus", "GPUs per replica", p.replica_gpus(), Unit::kNone));
  s.lines.push_back(given("deployment.tp", p.dp_attention ? "Tensor parallel (inside each attention group)"
                                                          : "Tensor parallel",
                          p.tp, Unit::kNone));
  if (p.dp_attention) {
    s.lines.push_back(given("deployment.attn_dp", "Attention groups per replica", p.attn_dp, Unit::kNone));
  }
  s.lines.push_back(given("deployment.pp", "Pipeline stages", p.pp, Unit::kNone));
  s.lines.push_back(given("deployment.ep", p.dp_attention ? "Expert parallel (over the replica)"
                                                          : "Expert parallel (inside TP)",
                          p.ep, Unit::kNone,
                          d.n_moe_layers > 0 ? "(" + fmt_sig(d.expert_slots_per_rank, 6) +
                                                   " experts per EP rank, each split over " +
                                                   fmt_sig(d.expert_tp, 6) + " GPUs)"
                                             : ""));
  if (d.n_moe_layers > 0 && p.ep > 1) {
    s.lines.push_back(given("deployment.redundant_experts", "Redundant expert slots (EPLB)", d.redundant_experts,
                            Unit::kNone));
    s.lines.push_back(given("deployment.expert_imbalance", "Expert load imbalance (stated)", d.expert_imbalance,
                            Unit::kFactor, "(busiest EP rank's routed tokens / the mean, beyond uniform routing)"));
  }
  if (d.a2a) {
    s.lines.push_back(given("deployment.two_batch_overlap", "Two-batch overlap (a2a hidden behind compute)",
                            d.two_batch_overlap, Unit::kNone));
  }
  s.lines.push_back(given("deployment.dp", "Data-parallel replicas", p.dp, Unit::kNone));
  if (d.spec_tokens > 0) {
    s.lines.push_back(given("deployment.spec_method", "Speculative decoding", std::string(spec_method_name(d.spec_method)),
                            Unit::kNone, d.spec_method == SpecMethod::kMtp
                                             ? "(the model's MTP module, run K times; shares the lm_head)"
                                             : "(a draft model on the same GPUs)"));
    s.lines.push_back(given("deployment.spec_tokens", "Draft tokens per step K", d.spec_tokens, Unit::kTokens));
    s.lines.push_back(given("deployment.spec_acceptance", "Acceptance rate A (i.i.d. per token)", d.spec_acceptance,
                            Unit::kFraction));
  }
  if (d.prefix_hit > 0 || d.prefix_shared_tokens > 0) {
    s.lines.push_back(given("deployment.prefix_hit", "Prefix-cache hit (share of each prompt)", d.prefix_hit,
                            Unit::kFraction));
    s.lines.push_back(given("deployment.prefix_tokens", "Shared prefix (held once)", d.prefix_shared_tokens,
                            Unit::kTokens));
  }
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
    s.lines.push_back(given("deployment.state_dtype", "Recurrent state (conv window)", name(d.state_dtype), Unit::kNone));
    s.lines.push_back(
        given("deployment.ssm_state_dtype", "Recurrent state (SSM matrix)", name(d.ssm_state_dtype), Unit::kNone));
  }
  s.lines.push_back(given("deployment.reserve_fraction", "HBM reserve", d.reserve_fraction, Unit::kFraction));
  s.lines.push_back(given("deployment.workspace_bytes", "Workspace per GPU", d.workspace_bytes, Unit::kBytes));
  if (p.tp > 1 || p.pp > 1) {
    s.notes.push_back("Links: TP over " + std::string(d.tp_crosses_domain ? "the scale-out NIC" : "the fast domain") +
                      ", PP over " + std::string(d.pp_crosses_domain ? "the scale-out NIC" : "the fast domain") +
                      " (" + std::to_string(gpu.domain_gpus) + " GPUs per fast domain).");
  }
  if (d.a2a) {
    s.notes.push_back("All-to-all per MoE layer: each token to " + fmt_sig(d.a2a_link_copies, 4) +
                      " destination GPUs over the fast links" +
                      (d.a2a_nic_copies > 0 ? ", " + fmt_sig(d.a2a_nic_copies, 4) + " remote domains over the NIC"
                                            : std::string()) +
                      "; dispatch " + fmt_sig(d.a2a_dispatch_bytes, 6) + " B, combine " +
                      fmt_sig(d.a2a_combine_bytes, 6) + " B per copy.");
  } else if (d.n_moe_layers > 0 && p.ep > 1) {
    s.notes.push_back("EP inside the tensor-parallel group: every rank holds the step's tokens after the "
                      "attention all-reduce, computes its own experts' share and the TP all-reduce sums the "
                      "MoE output: no all-to-all. The busiest EP rank sets the experts' time.");
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
  const bool towers = w.vision > 0 || w.audio > 0;
  if (w.recurrent > 0 || w.draft > 0 || towers) wt.push_back(term("rec", w.recurrent));
  if (w.draft > 0 || towers) wt.push_back(term("draft", w.draft));
  if (towers) wt.push_back(term("vision", w.vision));
  if (w.audio > 0) wt.push_back(term("audio", w.audio));
  const FormulaText& f = w.audio > 0 ? fx::kDepWeightsAudio
                         : w.vision > 0 ? fx::kDepWeightsVision
                         : w.draft > 0 ? fx::kDepWeightsDraft
                         : w.recurrent > 0 ? fx::kDepWeightsRec
                                           : fx::kDepWeights;
  std::string aside = w.draft > 0 ? "(draft: the speculative drafter, not in params.total)" : "";
  if (w.vision > 0) aside += std::string(aside.empty() ? "" : " ") + "(vision: the tower the engine loads, not in params.total)";
  if (w.audio > 0) aside += " (audio: likewise, params.audio)";
  s.lines.push_back(computed("memory_per_gpu.weights", "Weight shard", w.total(), Unit::kBytes, f, std::move(wt), aside));
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
  const int64_t S = std::min(d.prefix_shared_tokens, T);
  if (S > 0 && (d.stage_chunked_layers > 0 || d.index_elems_per_layer > 0)) {
    s.lines.push_back(given("memory_per_gpu.kv_per_sequence", "KV per sequence", m.kv_per_sequence, Unit::kBytes,
                            "(the shared prefix's full-layer KV held once)"));
  } else if (S > 0) {
    s.lines.push_back(computed("memory_per_gpu.kv_per_sequence", "KV per sequence", m.kv_per_sequence, Unit::kBytes,
                               fx::kDepKvSeqShared,
                               {term("e_rank", d.kv_elems_per_layer), term("b_kv", b_kv),
                                term("L_full", d.stage_full_layers), term("T", T), term("S", S),
                                term("L_swa", d.stage_swa_layers), term("T_win", win)},
                               "(the shared prefix's full-layer KV held once)"));
  } else if (d.stage_chunked_layers > 0 || d.index_elems_per_layer > 0) {
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
                               {term("L_rec", d.stage_recurrent_layers), term("e_ssm", d.ssm_state_elems_per_layer),
                                term("b_ssm", static_cast<double>(d.ssm_state_bits) / 8.0),
                                term("e_state", d.state_elems_per_layer),
                                term("b_state", static_cast<double>(d.state_bits) / 8.0)},
                               "(fixed, whatever the context)"));
  } else {
    s.lines.push_back(given("memory_per_gpu.state_per_sequence", "Recurrent state per sequence",
                            m.state_per_sequence, Unit::kBytes, "(no recurrent layers)"));
  }
  s.lines.push_back(short_if_negative(computed(
      "memory_per_gpu.free_for_kv", "Free for KV", m.free_for_kv, Unit::kBytes, fx::kDepFree,
      {term("capacity", m.capacity), term("reserve", m.reserve), term("workspace", m.workspace),
       term("W", static_cast<double>(w.total()))})));
  s.lines.push_back(given("memory_per_gpu.draft_kv_per_sequence", "Draft KV per sequence", m.draft_kv_per_sequence,
                          Unit::kBytes, d.spec_tokens > 0 ? "(the drafter's own cache)" : "(no drafter)"));
  s.lines.push_back(given("memory_per_gpu.shared_prefix", "Shared prefix KV (held once per attention group)",
                          m.shared_prefix, Unit::kBytes));
  const bool general = d.attn_dp > 1 || m.draft_kv_per_sequence > 0 || m.shared_prefix > 0;
  if (general) {
    s.lines.push_back(computed("memory_per_gpu.max_sequences", "Sequences that fit (per replica)", m.max_sequences,
                               Unit::kSequences, fx::kDepMaxSeqGroups,
                               {term("attn_dp", d.attn_dp), term("free", std::max(0.0, m.free_for_kv)),
                                term("prefix", m.shared_prefix), term("KV_seq", m.kv_per_sequence),
                                term("S_seq", m.state_per_sequence), term("D_seq", m.draft_kv_per_sequence)},
                               d.attn_dp > 1 ? "(each attention group holds only its own sequences' KV)" : ""));
  } else if (m.state_per_sequence > 0) {
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
  const bool spec = d.spec_tokens > 0;
  s.lines.push_back(given("decode_step.batch", "Batch B (per replica)", st.batch, Unit::kSequences,
                          d.attn_dp > 1 ? "(spread over " + fmt_sig(d.attn_dp, 6) + " attention groups)" : ""));
  s.lines.push_back(given("decode_step.context", "Context T", st.context, Unit::kTokens));
  if (d.n_moe_layers > 0) {
    const double tokens = static_cast<double>(st.batch) * (spec ? static_cast<double>(d.spec_tokens + 1) : 1.0);
    s.lines.push_back(computed("decode_step.experts_touched", "Experts read per MoE layer", st.experts_touched,
                               Unit::kNone, fx::kDepExperts,
                               {term("E", d.n_expert), term("k", d.n_expert_used), term("B", tokens)},
                               spec ? "(B: the verified tokens, K + 1 per sequence)" : ""));
    if (d.split.ep > 1) {
      const double n = d.expert_slots_per_rank, p = st.experts_touched / d.n_expert;
      s.lines.push_back(computed("decode_step.experts_read", "  by the busiest EP rank", st.experts_read, Unit::kNone,
                                 fx::kDepExpertsRead,
                                 {term("n_rank", n), term("p", p), term("z", d.ep_spread)},
                                 "(uniform routing: the expected largest of the ep ranks' counts)"));
      s.lines.push_back(computed("decode_step.routed_per_rank", "  tokens routed to it", st.routed_per_rank,
                                 Unit::kNone, fx::kDepRouted,
                                 {term("F", d.expert_imbalance), term("N", tokens), term("k", d.n_expert_used),
                                  term("ep", d.split.ep), term("z", d.ep_spread)}));
    }
  }
  const DecodeBytes& b = st.bytes;
  std::vector<Term> bt = {term("W_blocks", b.weights), term("W_experts", b.experts), term("W_lm_head", b.lm_head),
                          term("W_rows", b.embedding_rows), term("KV", b.kv)};
  if (b.state > 0) bt.push_back(term("S", b.state));
  if (spec) bt.push_back(term("W_draft", b.draft));
  s.lines.push_back(computed("decode_step.bytes_per_gpu", "Bytes read", st.bytes_per_gpu, Unit::kBytes,
                             fx::kDepStepBytesVariants[(b.state > 0 ? 1 : 0) + (spec ? 2 : 0)], std::move(bt),
                             b.state > 0 ? "(S: recurrent state read and written back)"
                             : spec      ? "(W_draft: the K draft passes)"
                                         : ""));
  const DecodeFlops& f = st.flops;
  const bool moe = d.n_moe_layers > 0;
  std::vector<Term> ft = {term("F_linear", f.linear)};
  if (moe) ft.push_back(term("F_experts", f.experts));
  ft.push_back(term("F_attn", f.attention));
  ft.push_back(term("F_lm_head", f.lm_head));
  if (f.recurrent > 0) ft.push_back(term("F_rec", f.recurrent));
  if (spec) ft.push_back(term("F_draft", f.draft));
  s.lines.push_back(computed("decode_step.flops_per_gpu", "FLOPs", st.flops_per_gpu, Unit::kFlop,
                             fx::kDepStepFlopsVariants[(f.recurrent > 0 ? 1 : 0) + (moe ? 2 : 0) + (spec ? 4 : 0)],
                             std::move(ft)));
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
  s.lines.push_back(given("decode_step.a2a_seconds", "All-to-all (dispatch + combine, every MoE layer)",
                          st.a2a_seconds, Unit::kSeconds,
                          d.a2a ? (d.two_batch_overlap ? "(hidden behind the kernels up to their time)" : "")
                                : "(no all-to-all: tokens are replicated on the TP group)"));
  if (d.a2a) {
    s.lines.push_back(computed("decode_step.comm_seconds", "Communication", st.comm_seconds, Unit::kSeconds,
                               fx::kDepCommA2a,
                               {term("t_allreduce", st.allreduce_seconds), term("t_handoff", st.handoff_seconds),
                                term("t_a2a", st.a2a_seconds)},
                               d.two_batch_overlap ? "" : "(not overlapped)"));
  } else {
    s.lines.push_back(computed("decode_step.comm_seconds", "Communication (not overlapped)", st.comm_seconds,
                               Unit::kSeconds, fx::kDepComm,
                               {term("t_allreduce", st.allreduce_seconds), term("t_handoff", st.handoff_seconds)}));
  }
  const std::string step_label = spec ? "Step time (one target step, drafts included)" : "Step time (TPOT)";
  if (d.a2a && d.two_batch_overlap) {
    s.lines.push_back(computed("decode_step.seconds", step_label, st.seconds, Unit::kSeconds, fx::kDepStepOverlap,
                               {term("t_compute", st.compute_seconds), term("t_memory", st.memory_seconds),
                                term("t_a2a", st.a2a_seconds), term("t_allreduce", st.allreduce_seconds),
                                term("t_handoff", st.handoff_seconds)}));
  } else {
    s.lines.push_back(computed("decode_step.seconds", step_label, st.seconds, Unit::kSeconds, fx::kDepStep,
                               {term("t_compute", st.compute_seconds), term("t_memory", st.memory_seconds),
                                term("t_comm", st.comm_seconds)}));
  }
  if (spec) {
    s.lines.push_back(computed("decode_step.accepted_tokens_per_step", "Accepted tokens per step",
                               st.accepted_tokens_per_step, Unit::kTokens, fx::kDepAccepted,
                               {term("A", d.spec_acceptance), term("K", d.spec_tokens)},
                               "(i.i.d. acceptance: each draft token accepted with probability A)"));
    s.lines.push_back(computed("decode_step.tpot_seconds", "TPOT", st.tpot_seconds, Unit::kSeconds, fx::kDepTpot,
                               {term("t_step", st.seconds), term("tau", st.accepted_tokens_per_step)}));
    s.lines.push_back(computed("decode_step.tokens_per_s_per_sequence", "Tokens/s per sequence",
                               st.tokens_per_s_per_sequence, Unit::kTokensPerS, fx::kDepTpsSeqSpec,
                               {term("tau", st.accepted_tokens_per_step), term("t_step", st.seconds)}));
    s.lines.push_back(computed("decode_step.tokens_per_s_aggregate", "Tokens/s aggregate", st.tokens_per_s_aggregate,
                               Unit::kTokensPerS, fx::kDepTpsAggSpec,
                               {term("B", st.batch), term("dp", d.split.dp), term("tau", st.accepted_tokens_per_step),
                                term("t_step", st.seconds)}));
    s.lines.push_back(given("decode_step.tokens_per_s_per_sequence_without_spec",
                            "Tokens/s per sequence without speculative decoding",
                            st.tokens_per_s_per_sequence_without_spec, Unit::kTokensPerS, "(same batch)"));
    s.lines.push_back(given("decode_step.tokens_per_s_aggregate_without_spec",
                            "Tokens/s aggregate without speculative decoding", st.tokens_per_s_aggregate_without_spec,
                            Unit::kTokensPerS));
    s.lines.push_back(computed("decode_step.spec_speedup", "Speed-up per sequence", st.tokens_per_s_per_sequence /
                                                                                       st.tokens_per_s_per_sequence_without_spec,
                               Unit::kFactor, fx::kDepSpeedup,
                               {term("tps_spec", st.tokens_per_s_per_sequence),
                                term("tps_without", st.tokens_per_s_per_sequence_without_spec)}));
  } else {
    s.lines.push_back(given("decode_step.accepted_tokens_per_step", "Accepted tokens per step",
                            st.accepted_tokens_per_step, Unit::kTokens, "(no speculative decoding)"));
    s.lines.push_back(computed("decode_step.tokens_per_s_per_sequence", "Tokens/s per sequence",
                               st.tokens_per_s_per_sequence, Unit::kTokensPerS, fx::kDepTpsSeq,
                               {term("t_step", st.seconds)}));
    s.lines.push_back(computed("decode_step.tokens_per_s_aggregate", "Tokens/s aggregate", st.tokens_per_s_aggregate,
                               Unit::kTokensPerS, fx::kDepTpsAgg,
                               {term("B", st.batch), term("dp", d.split.dp), term("t_step", st.seconds)}));
  }
  s.lines.push_back(given("decode_step.fits", "Batch fits in memory", st.fits, Unit::kNone));
  s.lines.push_back(given("decode_step.regime", "Regime", std::string(regime_name(st.regime)), Unit::kNone));
  return s;
}

Section prefill_section(const PreparedDeployment& d, const DeploymentResult& r) {
  const Prefill& p = r.prefill;
  Section s{"Prefill (one prompt, per GPU)", {}, {}};
  s.lines.push_back(given("prefill.prompt_tokens", "Prompt P", p.prompt_tokens, Unit::kTokens));
  if (d.prefix_hit > 0 || d.prefix_shared_tokens > 0) {
    s.lines.push_back(computed("prefill.cached_tokens", "Found in the prefix cache (not computed)", p.cached_tokens,
                               Unit::kTokens, fx::kDepCached,
                               {term("h", d.prefix_hit), term("P", p.prompt_tokens),
                                term("S", std::min(d.prefix_shared_tokens, p.prompt_tokens))},
                               "(at most P − 1: the last token's logits give the first output token)"));
  } else {
    s.lines.push_back(given("prefill.cached_tokens", "Found in the prefix cache", p.cached_tokens, Unit::kTokens));
  }
  s.lines.push_back(given("prefill.flops", "FLOPs (linear + causal attention + last lm_head)", p.flops, Unit::kFlop));
  s.lines.push_back(given("prefill.bytes", "Bytes (weights once + KV written)", p.bytes, Unit::kBytes));
  const double pp = static_cast<double>(d.split.pp);
  s.lines.push_back(computed("prefill.compute_seconds", "Compute time", p.compute_seconds, Unit::kSeconds,
                             fx::kDepCompute, {term("pp", pp), term("F", p.flops), term("peak", d.peak_flops)}));
  s.lines.push_back(computed("prefill.memory_seconds", "Memory time", p.memory_seconds, Unit::kSeconds,
                             fx::kDepMemory, {term("pp", pp), term("bytes", p.bytes), term("bw", d.bandwidth)}));
  s.lines.push_back(given("prefill.comm_seconds", "Communication", p.comm_seconds, Unit::kSeconds));
  s.lines.push_back(given("prefill.a2a_seconds", "of which all-to-all", p.a2a_seconds, Unit::kSeconds));
  if (d.a2a && d.two_batch_overlap) {
    s.lines.push_back(computed("prefill.seconds", "Time to first token", p.seconds, Unit::kSeconds,
                               fx::kDepStepOverlap,
                               {term("t_compute", p.compute_seconds), term("t_memory", p.memory_seconds),
                                term("t_a2a", p.a2a_seconds), term("t_allreduce", p.comm_seconds - p.a2a_seconds),
                                term("t_handoff", 0.0)}));
  } else {
    s.lines.push_back(computed("prefill.seconds", "Time to first token", p.seconds, Unit::kSeconds, fx::kDepPrefill,
                               {term("t_compute", p.compute_seconds), term("t_memory", p.memory_seconds),
                                term("t_comm", p.comm_seconds)}));
  }
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
  const bool user = p.profile->name != engine_family_info(p.profile->family).key;
  const std::string tag = " (predicted, " + std::string(p.profile->display) +
                          (user ? ", profile " + std::string(p.profile->name) : std::string()) + ")";
  s->lines.push_back(given("memory_per_gpu.predicted.capacity", "Capacity" + tag, m.total_bytes, Unit::kBytes));
  // Negative when the weights and the engine's own memory exceed the GPU: nothing is kept back, and the
  // line says by how much the rest does not fit.
  s->lines.push_back(short_if_negative(given("memory_per_gpu.predicted.reserve", "Kept back" + tag, p.reserve_bytes,
                                             Unit::kBytes,
                                             "(" + std::string(fraction_flag(p.settings.engine)) + " " +
                                                 fmt_sig(p.settings.memory_fraction, 3) + ")")));
  s->lines.push_back(given("memory_per_gpu.predicted.workspace", "Non-torch + activation peak" + tag,
                           m.non_torch_bytes + m.activation_peak_bytes, Unit::kBytes));
  s->lines.push_back(given("memory_per_gpu.predicted.weights", "Weight shard" + tag, m.weights_bytes, Unit::kBytes));
  s->lines.push_back(given("memory_per_gpu.predicted.kv_per_token", "KV per token" + tag, m.kv_bytes_per_token,
                           Unit::kBytes));
  s->lines.push_back(given("memory_per_gpu.predicted.kv_per_sequence", "KV per sequence, whole blocks" + tag,
                           p.kv_bytes_per_sequence, Unit::kBytes,
                           "(blocks of " + std::to_string(p.settings.block_size) + " tokens)"));
  s->lines.push_back(short_if_negative(
      given("memory_per_gpu.predicted.free_for_kv", "KV cache" + tag, m.kv_cache_bytes_per_gpu, Unit::kBytes)));
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
  Section s{"Engine (predicted): " + engine_release_display(st.release), {}, {}};
  s.lines.push_back(given("engine.profile", "Profile", std::string(pr.name), Unit::kNone));
  s.lines.push_back(given("engine.name", "Engine", std::string(pr.display), Unit::kNone));
  s.lines.push_back(given("engine.release", "Release (--engine)", engine_release_key(st.release), Unit::kNone,
                          "(" + engine_release_display(st.release) +
                              (st.release.version ? ")" : "; --engine NAME@VERSION names another)")));
  if (!p.default_because.empty()) {
    s.lines.push_back(given("engine.chosen_by", "Chosen by", std::string(p.default_because), Unit::kNone));
  }
  s.lines.push_back(given("engine.time_parameters", "Step-time parameters",
                          pr.time_inherited ? std::string("the pooled set (no published ") + std::string(pr.display) +
                                                  " measurements were fitted)"
                                            : "fitted on published " + std::string(pr.display) + " runs (calibrate --fit)",
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
  s.lines.push_back(short_if_negative(computed("engine.kv_cache_bytes_per_gpu", "KV cache memory per GPU",
                                               m.kv_cache_bytes_per_gpu, Unit::kBytes, kvf, kv_terms)));
  s.lines.push_back(given("engine.kv_bytes_per_token", "KV per token per GPU", m.kv_bytes_per_token, Unit::kBytes));
  if (st.swa_pool_ratio > 0) {
    s.lines.push_back(computed("engine.gpu_blocks", "# GPU blocks", m.gpu_blocks, Unit::kNone, fx::kPredBlocksSwaPool,
                               {term("KV", std::max(0.0, m.kv_cache_bytes_per_gpu), Unit::kBytes),
                                term("block", st.block_size),
                                term("KV_full", m.full_token_bytes + m.chunk_token_bytes, Unit::kBytes),
                                term("r", st.swa_pool_ratio), term("KV_swa", m.swa_token_bytes, Unit::kBytes)}));
  } else {
    s.lines.push_back(computed("engine.gpu_blocks", "# GPU blocks", m.gpu_blocks, Unit::kNone, fx::kPredBlocks,
                               {term("KV", std::max(0.0, m.kv_cache_bytes_per_gpu), Unit::kBytes),
                                term("block", st.block_size),
                                term("KV_tok", static_cast<double>(m.kv_bytes_per_token), Unit::kBytes)}));
  }
  s.lines.push_back(computed("engine.kv_cache_tokens", "GPU KV cache size", m.kv_cache_tokens, Unit::kTokens,
                             fx::kPredTokens, {term("blocks", m.gpu_blocks), term("block", st.block_size)}));
  if (st.window_keep > 0) {
    s.lines.push_back(given("engine.window_tokens_kept", "Sliding layers keep, per sequence", st.window_keep,
                            Unit::kTokens,
                            st.window_extra_blocks > 0
                                ? "(+ " + std::to_string(st.window_extra_blocks) + " block, in whole blocks)"
                                : std::string("(in whole blocks)")));
  }
  if (st.chunk_keep > 0) {
    s.lines.push_back(given("engine.chunk_tokens_kept", "Chunked layers keep, per sequence", st.chunk_keep,
                            Unit::kTokens, "(in whole blocks)"));
  }
  if (st.swa_pool_ratio > 0) {
    s.lines.push_back(given("engine.swa_pool_tokens", "Sliding-window pool", m.swa_pool_tokens, Unit::kTokens,
                            "(swa_full_tokens_ratio " + fmt_sig(st.swa_pool_ratio, 3) + " x the full pool)"));
  }
  const std::string concurrency_label =
      "Maximum concurrency for " + group_digits(st.max_model_len) + " tokens per request";
  if (st.release.family == EngineFamily::kVllmV1) {
    s.lines.push_back(computed(
        "engine.max_concurrency", concurrency_label, m.max_concurrency, Unit::kFactor, fx::kPredConcurrencyV1,
        {term("blocks", m.gpu_blocks),
         term("KV_request", m.kv_bytes_per_request, Unit::kBytes),
         term("block", st.block_size), term("KV_tok", static_cast<double>(m.kv_bytes_per_token), Unit::kBytes)}));
  } else {
    s.lines.push_back(computed("engine.max_concurrency", concurrency_label, m.max_concurrency, Unit::kFactor,
                               fx::kPredConcurrency,
                               {term("tokens", m.kv_cache_tokens), term("max_model_len", st.max_model_len)}));
  }
  s.notes.push_back(std::string(pr.memory_rule) + ". Sources: " + std::string(pr.memory_source) + ".");
  if (!st.kv_rule.empty()) s.notes.push_back("Sliding and chunked layers: " + std::string(st.kv_rule) + ".");
  if (p.windows_dropped) {
    s.notes.push_back("Sliding windows: TensorRT-LLM keeps every layer's whole context unless its "
                      "max_attention_window_size is set, so the prediction caches and reads the whole context.");
  }
  return s;
}

}  // namespace

Section engine_section(const DeploymentPrediction& p) { return engine_section_impl(p); }

Section no_engine_section(const GpuSpec& gpu) {
  Section s{"Engine: none (no prediction)", {}, {}};
  Line l = given("engine.profile", "Profile", int64_t{0}, Unit::kNone);
  l.absent = std::string(default_engine_for(gpu).why);
  s.lines.push_back(std::move(l));
  return s;
}

std::vector<Section> deployment_sections_for(const GpuSpec& gpu, const DeploymentAnalysis& a,
                                             const std::optional<DeploymentPrediction>& p) {
  std::vector<Section> out = deployment_sections(gpu, a, p ? &*p : nullptr);
  if (!p) out.push_back(no_engine_section(gpu));
  return out;
}

Section serving_section(const ServingPair& pair, int64_t isl, int64_t osl, const EngineProfile* profile) {
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
  if (profile != nullptr) add("serving.predicted.", pair.predicted, " (predicted, " + std::string(profile->display) + ")");
  s.notes.push_back("Each step decodes the batch at the mean context isl + osl / 2 and prefills the prompts of the "
                    "requests replacing the finishing ones beside it; the ceiling's TTFT is the prompt's prefill "
                    "alone. `plan` evaluates exactly this for each configuration and batch.");
  return s;
}

Section modeled_cost_section(const ModeledCost& c, const ModeledCost* predicted, std::string_view no_prediction) {
  Section s{"Answer: cost at the deployment engine's decode rate", {}, {}};
  if (predicted != nullptr) {
    s.lines.push_back(computed("cost.predicted.usd_per_million_tokens", "USD per 1M tokens, predicted",
                               predicted->usd_per_million_tokens, Unit::kUsd, fx::kCostPerMillion,
                               {term("price", predicted->usd_per_gpu_hour), term("gpus", predicted->gpus),
                                term("tps", predicted->tokens_per_s)},
                               predicted->fits ? "(at the serving engine's predicted decode rate)"
                                               : "(the batch does not fit the engine's KV cache)"));
  } else {
    Line none = given("", "Prediction", int64_t{0}, Unit::kNone);
    none.absent = "none: " + std::string(no_prediction);
    s.lines.push_back(std::move(none));
  }
  s.lines.push_back(computed("cost.modeled_usd_per_million_tokens",
                             predicted != nullptr ? "USD per 1M tokens, ceiling" : "USD per 1M tokens, modeled",
                             c.usd_per_million_tokens, Unit::kUsd, fx::kCostPerMillion,
                             {term("price", c.usd_per_gpu_hour), term("gpus", c.gpus), term("tps", c.tokens_per_s)},
                             c.fits ? "" : "(the batch does not fit: a floor for a setup HBM cannot hold)"));
  return s;
}

std::vector<Section> deployment_sections(const GpuSpec& gpu, const DeploymentAnalysis& a,
                                         const DeploymentPrediction* p) {
  Section dec = decode_section(a.prepared, a.result);
  // 0 from the engine is "never up to 2^30": infinite, so null in JSON and "never" in text.
  Value cb = a.compute_bound_batch;
  if (a.compute_bound_batch == 0) cb = std::numeric_limits<double>::infinity();
  dec.lines.push_back(given("decode_step.compute_bound_batch", "Decode turns compute-bound at batch", std::move(cb),
                            Unit::kSequences,
                            a.compute_bound_batch == 0 ? "(every sequence reads its own KV: the KV bytes grow as fast as the FLOPs)"
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
    const bool exposed_sum = !(a.prepared.a2a && a.prepared.two_batch_overlap);
    if (exposed_sum) {
      dec.lines.push_back(computed("decode_step.predicted.seconds", "Step time, predicted", t.seconds,
                                   Unit::kSeconds, fx::kPredStepFull,
                                   {term("t_dense", t.dense_s, Unit::kSeconds), term("t_experts", t.experts_s, Unit::kSeconds),
                                    term("t_lm_head", t.lm_head_s, Unit::kSeconds), term("t_kv", t.kv_read_s, Unit::kSeconds),
                                    term("t_prefill_attn", t.prefill_attention_s, Unit::kSeconds),
                                    term("t_draft", t.draft_s, Unit::kSeconds),
                                    term("t_elementwise", t.elementwise_s, Unit::kSeconds),
                                    term("t_comm", t.comm_s, Unit::kSeconds), term("t_overhead", t.overhead_s, Unit::kSeconds)},
                                   "(" + std::string(p->profile->display) + ")"));
    } else {
      dec.lines.push_back(given("decode_step.predicted.seconds", "Step time, predicted", t.seconds, Unit::kSeconds,
                                "(" + std::string(p->profile->display) + "; the a2a hidden behind the kernels up to "
                                "their time)"));
    }
    dec.lines.push_back(given("decode_step.predicted.a2a_seconds", "All-to-all (predicted)", t.a2a_s, Unit::kSeconds));
    dec.lines.push_back(given("decode_step.predicted.accepted_tokens_per_step", "Accepted tokens per step (predicted)",
                              d.accepted_tokens_per_step, Unit::kTokens));
    const bool sp = a.prepared.spec_tokens > 0;
    dec.lines.push_back(computed("decode_step.predicted.tokens_per_s_per_sequence", "Tokens/s per sequence, predicted",
                                 d.tokens_per_s_per_sequence, Unit::kTokensPerS,
                                 sp ? fx::kPredTpsSeqSpec : fx::kPredTpsSeq,
                                 sp ? std::vector<Term>{term("tau", d.accepted_tokens_per_step),
                                                        term("t_step", t.seconds, Unit::kSeconds)}
                                    : std::vector<Term>{term("t_step", t.seconds, Unit::kSeconds)}));
    dec.lines.push_back(computed("decode_step.predicted.tokens_per_s_aggregate", "Tokens/s aggregate, predicted",
                                 d.tokens_per_s_aggregate, Unit::kTokensPerS, sp ? fx::kPredTpsAggSpec : fx::kPredTpsAgg,
                                 sp ? std::vector<Term>{term("B", a.result.decode.batch), term("dp", a.prepared.split.dp),
                                                        term("tau", d.accepted_tokens_per_step),
                                                        term("t_step", t.seconds, Unit::kSeconds)}
                                    : std::vector<Term>{term("B", a.result.decode.batch), term("dp", a.prepared.split.dp),
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
                                 Unit::kSeconds, fx::kPredStepFull,
                                 {term("t_dense", f.dense_s, Unit::kSeconds), term("t_experts", f.experts_s, Unit::kSeconds),
                                  term("t_lm_head", f.lm_head_s, Unit::kSeconds), term("t_kv", f.kv_read_s, Unit::kSeconds),
                                  term("t_prefill_attn", f.prefill_attention_s, Unit::kSeconds),
                                  term("t_draft", f.draft_s, Unit::kSeconds),
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
  nlohmann::json j = render_json(rep);
  j.erase("ignored");
  j.erase("warnings");
  return j;
}

nlohmann::json engine_figures_json(const GpuSpec& gpu, const DeploymentAnalysis& a, const DeploymentPrediction* p) {
  const nlohmann::json all = deployment_json(gpu, a, p);
  nlohmann::json j = nlohmann::json::object();
  for (const char* key : {"memory_per_gpu", "decode_step"}) {
    if (all.contains(key)) j[key] = all[key];
  }
  return j;
}

namespace {

// The change's fields as (flag name without dashes, JSON value), in flag order.
std::vector<std::pair<std::string, nlohmann::json>> change_fields(const ScenarioChange& c) {
  std::vector<std::pair<std::string, nlohmann::json>> f;
  if (c.gpu) f.emplace_back("gpu", c.gpu->key);
  if (c.split) {
    f.emplace_back("gpus", c.split->gpus());
    f.emplace_back("tp", c.split->tp);
    f.emplace_back("pp", c.split->pp);
    f.emplace_back("ep", c.split->ep);
    f.emplace_back("dp", c.split->dp);
  }
  if (c.weight_dtype) f.emplace_back("dtype", std::string(dtype_name(*c.weight_dtype)));
  if (c.compute_dtype) f.emplace_back("compute_dtype", std::string(dtype_name(*c.compute_dtype)));
  if (c.kv_dtype) f.emplace_back("kv_dtype", std::string(dtype_name(*c.kv_dtype)));
  if (c.kv_heads) f.emplace_back("kv_heads", *c.kv_heads);
  if (c.context) f.emplace_back("context", *c.context);
  if (c.batch) f.emplace_back("batch", *c.batch);
  if (c.prompt_tokens) f.emplace_back("prompt", *c.prompt_tokens);
  if (c.reserve_fraction) f.emplace_back("reserve", *c.reserve_fraction);
  if (c.engine) f.emplace_back("engine", engine_release_key(*c.engine));
  if (c.spec) {
    f.emplace_back("spec_method", std::string(spec_method_name(c.spec->method)));
    f.emplace_back("spec_tokens", c.spec->tokens);
    f.emplace_back("spec_acceptance", c.spec->acceptance);
  }
  return f;
}

}  // namespace

nlohmann::json change_json(const ScenarioChange& c) {
  nlohmann::json j = nlohmann::json::object();
  for (auto& [k, v] : change_fields(c)) j[k] = v;
  return j;
}

std::string change_flags(const ScenarioChange& c) {
  std::string s;
  for (auto& [k, v] : change_fields(c)) {
    std::string flag = "--" + k;
    for (char& ch : flag) ch = ch == '_' ? '-' : ch;
    s += (s.empty() ? "" : " ") + flag + " " + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return s;
}

nlohmann::json variation_json(const Variation& v) {
  return {{"change", change_json(v.change)},
          {"after", engine_figures_json(v.scenario.gpu, v.after, v.predicted ? &*v.predicted : nullptr)}};
}

std::string deciding_term(const DeploymentResult& r) {
  const DecodeStep& st = r.decode;
  const std::string step = format_brief(st.seconds, Unit::kSeconds);
  switch (st.regime) {
    case DeploymentRegime::kBandwidthBound:
      return "memory time " + format_brief(st.memory_seconds, Unit::kSeconds) + " of the " + step + " step";
    case DeploymentRegime::kComputeBound:
      return "compute time " + format_brief(st.compute_seconds, Unit::kSeconds) + " of the " + step + " step";
    case DeploymentRegime::kCommunicationBound:
      return "communication " + format_brief(st.comm_seconds, Unit::kSeconds) + " of the " + step + " step";
    case DeploymentRegime::kCapacityBound:
      return r.memory.max_sequences == 0
                 ? "the weights: not one sequence fits beside them"
                 : fmt::format("batch {} > the {} sequences HBM holds", group_digits(st.batch),
                               group_digits(r.memory.max_sequences));
  }
  return "";
}

std::string before_after(const DeploymentResult& before, const DeploymentResult& after) {
  const DecodeStep& b = before.decode;
  const DecodeStep& a = after.decode;
  std::string s = fmt::format("{} → {} per sequence ({})", format_brief(b.tokens_per_s_per_sequence, Unit::kTokensPerS),
                              format_brief(a.tokens_per_s_per_sequence, Unit::kTokensPerS),
                              format_brief(a.tokens_per_s_per_sequence / b.tokens_per_s_per_sequence, Unit::kFactor));
  if (a.batch != b.batch || a.tokens_per_s_aggregate != a.tokens_per_s_per_sequence) {
    s += fmt::format(", {} → {} aggregate ({})", format_brief(b.tokens_per_s_aggregate, Unit::kTokensPerS),
                     format_brief(a.tokens_per_s_aggregate, Unit::kTokensPerS),
                     format_brief(a.tokens_per_s_aggregate / b.tokens_per_s_aggregate, Unit::kFactor));
  }
  s += "; decided by " + deciding_term(before) + " → " + deciding_term(after);
  if (before.memory.max_sequences != after.memory.max_sequences) {
    s += fmt::format("; sequences that fit {} → {}", group_digits(before.memory.max_sequences),
                     group_digits(after.memory.max_sequences));
  }
  if (!a.fits) s += " (the batch does not fit: capacity-bound)";
  return s;
}

Section answer_section(const DeploymentAnalysis& a, const ServingRegimeAnswer& regime, const DeploymentPrediction* p) {
  const DeploymentResult& r = a.result;
  const DecodeStep& st = r.decode;
  const Parallelism& split = a.prepared.split;
  const std::string layout =
      split.dp_attention
          ? fmt::format("DP attention {} × tp {}, ep {}, dp {}: {} GPUs", split.attn_dp, split.tp, split.ep, split.dp,
                        split.gpus())
          : fmt::format("tp {} × pp {} × dp {}{}", split.tp, split.pp, split.dp,
                        split.ep > 1 ? fmt::format(", ep {}", split.ep) : std::string());
  Section s{"Answer (the deployment engine: " + layout + ")", {}, {}};
  const std::string at_batch = " at batch " + group_digits(st.batch) + (split.dp > 1 ? " × dp" : "");
  // The prediction first (what the engine will do), then the ceiling (what the hardware allows) beside it.
  if (p != nullptr) {
    s.lines.push_back(given("", "Decode per sequence, predicted", p->decode.tokens_per_s_per_sequence,
                            Unit::kTokensPerS,
                            "(" + std::string(p->profile->display) + ", profile " + std::string(p->profile->name) +
                                ")"));
    s.lines.push_back(given("", "Decode aggregate" + at_batch + ", predicted", p->decode.tokens_per_s_aggregate,
                            Unit::kTokensPerS, p->decode.fits ? "" : "(the batch does not fit the engine's KV cache)"));
    s.lines.push_back(given("", "Sequences the engine admits", p->decode.max_sequences, Unit::kSequences));
    s.lines.push_back(given("", "Time to first token (one prompt), predicted", p->prefill.seconds, Unit::kSeconds));
  }
  const std::string ceiling = p != nullptr ? ", ceiling" : "";
  s.lines.push_back(given("", "Decode per sequence" + ceiling, st.tokens_per_s_per_sequence, Unit::kTokensPerS,
                          fmt::format("({}, {}: {} decides)", regime_name(st.regime),
                                      st.fits ? "the batch fits" : "the batch does not fit", deciding_term(r))));
  s.lines.push_back(given("", "Decode aggregate" + at_batch + ceiling, st.tokens_per_s_aggregate, Unit::kTokensPerS));
  s.lines.push_back(given("", "Sequences that fit at T (per replica)", r.memory.max_sequences, Unit::kSequences,
                          "(the ceiling: driver-exposed memory less the weights, the KV per GPU as it is sharded)"));
  s.lines.push_back(given("", "Time to first token (one prompt)" + ceiling, r.prefill.seconds, Unit::kSeconds));
  std::string why;
  if (regime.max_sequences == 0) {
    why = "(the weights leave no room for one sequence's KV: shard them or quantize)";
  } else if (regime.regime == DeploymentRegime::kCapacityBound) {
    why = fmt::format("(at the {} sequences HBM holds, decode is still bandwidth-bound{}: capacity, not FLOPs, "
                      "limits how far batching amortizes the weight read)",
                      group_digits(regime.max_sequences),
                      regime.compute_bound_batch > 0
                          ? "; it turns compute-bound at batch " + group_digits(regime.compute_bound_batch)
                          : "; it never turns compute-bound");
  } else {
    why = fmt::format("(at the {} sequences HBM holds, {} decides)", group_digits(regime.max_sequences),
                      deciding_term(regime.full->result));
  }
  s.lines.push_back(given("roofline.regime", "Serving regime (at the largest batch that fits)",
                          std::string(regime_name(regime.regime)), Unit::kNone, why));
  return s;
}

}  // namespace modelcalc
