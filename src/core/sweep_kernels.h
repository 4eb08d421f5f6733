// The hot kernels of a sweep row, shared by the one-shot evaluations and the
// sweep's batch loop so that both compute every number by the same code:
// compute_size's batch-dependent part, the deployment engine's decode step,
// and the seed layer counts without a Result. Inline (a sweep row calls them
// ~10^7 times a second), pure, allocation-free, no I/O. Internal to the core:
// the public entry points are compute_size, evaluate_deployment and sweep.
#ifndef MODELCALC_SWEEP_KERNELS_H_
#define MODELCALC_SWEEP_KERNELS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "modelcalc/deployment.h"
#include "modelcalc/dtype.h"
#include "modelcalc/formulas.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/size.h"

namespace modelcalc {

// seed_layer_matrices without the Result, for compute_size, whose caller
// already checked seed_layer_matrices(m).ok() (analyze_size, validate_sweep);
// *overflow is set when a count did not fit. seed_layer_matrices is this plus
// the check.
inline LayerMatrices seed_layer_matrices_unchecked(const ModelSpec& m, bool* overflow) {
  const Exact d = m.n_embd, h = m.n_head, dh = m.n_embd_head;
  const Exact q = attn_q_params(d, h, dh);
  const Exact kv = attn_kv_params(d, Exact(m.n_head_kv) * dh);
  const Exact o = attn_o_params(d, h, dh);
  const Exact ffn = ffn_params(d, m.n_ff, m.ffn_gated);
  *overflow = (q + kv + o + ffn).overflow();
  return LayerMatrices{q.value(), kv.value(), o.value(), ffn.value()};
}

// What the weight bytes one decode step reads depend on, per (model, weight
// dtype): the non-routed weights, one routed expert's share, bytes per weight.
// `total` is p.total() (SizeResult::total).
struct DecodeWeightTerms {
  bool routed = false;      // the model has routed experts
  double non_routed = 0;    // weights every step reads
  double per_expert = 0;    // routed weights / n_expert
  double bytes = 0;         // dtype_bytes(weight dtype)
};
inline DecodeWeightTerms decode_weight_terms(const ModelSpec& m, const ParamBreakdown& p, int64_t total, Dtype t) {
  DecodeWeightTerms w;
  w.bytes = dtype_bytes(t);
  w.non_routed = static_cast<double>(total - p.mlp_routed);
  w.routed = m.n_expert > 0 && p.mlp_routed != 0;
  if (w.routed) w.per_expert = static_cast<double>(p.mlp_routed) / static_cast<double>(m.n_expert);
  return w;
}

// Weight bytes one decode step reads when the batch is expected to touch
// `experts_touched` routed experts per MoE layer (expected_experts_touched):
// every non-routed weight, plus that many experts' share of the routed ones.
// A model without routed experts ignores experts_touched.
inline double decode_weight_bytes_touched(const DecodeWeightTerms& w, double experts_touched) {
  if (!w.routed) return w.non_routed * w.bytes;
  return (w.non_routed + w.per_expert * experts_touched) * w.bytes;
}

// The part of compute_size that depends on the batch alone: step_bytes_aggregate
// and tokens_per_s_aggregate. compute_size_row_part ends with it; a sweep's batch loop
// calls it alone. REQUIRES: *r holds compute_size_row_part's result for the
// same model, GPU, seq and dtypes (at any batch), o.has_gpu, w ==
// decode_weight_terms(m, p, p.total(), o.weight_dtype), and experts_touched
// == expected_experts_touched(m.n_expert, m.n_expert_used, o.batch) when the
// model has routed experts and o.batch != 1 (else it is not read).
// Inline, allocation-free, no I/O.
inline void compute_size_batch_part(const GpuSpec& gpu, const SizeOptions& o, const DecodeWeightTerms& w,
                                    double experts_touched, SizeResult* r) {
  const double B = static_cast<double>(o.batch);
  const double kv = static_cast<double>(r->kv_per_seq);
  const double w_batch = o.batch == 1 ? r->decode_weight_bytes : decode_weight_bytes_touched(w, experts_touched);
  r->step_bytes_aggregate = decode_step_bytes(w_batch, kv, B);
  r->tokens_per_s_aggregate = decode_tokens_per_sec(gpu.bandwidth_bytes_per_s, w_batch, kv, B);
}

// What the routed experts of one MoE layer cost the busiest GPU of the MoE
// group when `tokens` tokens go through it in a step (uniform routing): the
// distinct experts touched in total; the experts that GPU's EP rank reads,
// mean (slots/ep) x P(touched) plus the expected largest spread of the ep
// ranks' counts (ep_spread standard deviations of a binomial; at most its
// slots); and the (token, expert) pairs routed to it, the mean tokens x k / ep
// plus the same spread, times the stated imbalance. With ep = 1 every GPU
// holds a slice of every expert: the mean, nothing added. Inline, pure.
struct MoeLoad {
  double touched = 0;       // distinct experts touched (of n_expert)
  double experts_read = 0;  // experts the busiest EP rank reads (each expert_bytes on one of its GPUs)
  double routed = 0;        // (token, expert) pairs on the busiest EP rank
  double ratio = 1;         // routed / its mean: the busiest rank's share of the all-to-all
};
inline MoeLoad moe_rank_load(const PreparedDeployment& d, double tokens, double touched) {
  MoeLoad l;
  if (d.n_moe_layers == 0 || !(tokens > 0)) return l;
  l.touched = touched;
  const double n = d.expert_slots_per_rank;
  const double p = touched / d.n_expert;
  const double routed_mean = tokens * d.n_expert_used * n / d.expert_slots;
  if (d.ep_spread == 0) {
    l.experts_read = n * p;
    l.routed = routed_mean;
    return l;
  }
  l.experts_read = std::min(n, n * p + d.ep_spread * std::sqrt(n * p * (1 - p)));
  const double q = n / d.expert_slots;  // one rank's share of the slots: 1 / ep
  const double spread = d.ep_spread * std::sqrt(tokens * d.n_expert_used * q * (1 - q));
  l.routed = std::min(tokens * std::min(d.n_expert_used, n), d.expert_imbalance * (routed_mean + spread));
  l.ratio = l.routed / routed_mean;
  return l;
}
inline MoeLoad moe_rank_load(const PreparedDeployment& d, double tokens) {
  if (d.n_moe_layers == 0 || !(tokens > 0)) return {};
  return moe_rank_load(d, tokens, expected_experts_touched(d.n_expert, d.n_expert_used, tokens));
}

// The all-to-all of `layers` MoE layers (dispatch and combine each) when the
// MoE group's GPUs send `tokens_per_gpu` tokens each; the busiest receiver
// takes `ratio` times the mean. The fast links and the NIC carry their copies
// at once: max(link bytes / link bw, NIC bytes / NIC bw) + the latency, per
// collective. `efficiency` scales both bandwidths, `extra_latency_s` adds to
// each collective (the prediction's; 1 and 0 for the ceiling). 0 without an
// all-to-all. Inline, pure.
inline double a2a_seconds(const PreparedDeployment& d, double layers, double tokens_per_gpu, double ratio,
                          double efficiency = 1, double extra_latency_s = 0) {
  if (!d.a2a || !(tokens_per_gpu > 0) || !(layers > 0)) return 0;
  const auto one = [&](double bytes) {
    const double link = tokens_per_gpu * d.a2a_link_copies * bytes / (d.a2a_link_bytes_per_s * efficiency);
    const double nic =
        d.a2a_nic_copies > 0 ? tokens_per_gpu * d.a2a_nic_copies * bytes / (d.a2a_nic_bytes_per_s * efficiency) : 0.0;
    return ratio * std::max(link, nic) + d.a2a_latency_s + extra_latency_s;
  };
  return layers * (one(d.a2a_dispatch_bytes) + one(d.a2a_combine_bytes));
}

// The decode step at `batch`: fills r->decode as evaluate_deployment does
// (evaluate_deployment calls it) but for context and ridge, which the batch
// does not change (evaluate_deployment sets them before the call). A sweep
// over batches evaluates the first batch in full and then only this per
// batch. REQUIRES: r->memory, r->decode.context and r->decode.ridge filled by
// evaluate_deployment(d, any batch, context, ...), batch >= 1, experts_touched
// == expected_experts_touched(d.n_expert, d.n_expert_used, batch). Inline,
// pure, allocation-free.
//
// The batch is per replica: each attention group holds batch / attn_dp
// sequences (their KV, dense matmuls, lm_head), the routed experts see all of
// them. With speculative decoding the target verifies K + 1 tokens per
// sequence in one pass (the KV read once, the matmuls and attention scores
// for every token) and the drafter runs K passes of one token per sequence;
// the step yields accepted_tokens_per_step tokens per sequence.
// Sequences on the busiest of `groups` attention groups when `batch` sequences are dealt out whole:
// ceil(batch / groups), at most the batch itself (a mean batch below one sequence stays that fraction). A batch
// below the groups puts one whole sequence on each of `batch` groups: the busiest reads a whole sequence's KV.
inline double busiest_group_sequences(double batch, double groups) {
  if (groups <= 1) return batch;
  return std::min(batch, std::ceil(batch / groups - 1e-9));
}

namespace kernel_detail {
inline void decode_step(const PreparedDeployment& d, int64_t batch, double experts_touched, bool spec,
                        int64_t context, DecodeStep* out) {
  DecodeStep& st = *out;
  const bool one_stage = d.split.pp == 1;
  const double pp = static_cast<double>(d.split.pp);
  const auto per_gpu = [&](double x) { return one_stage ? x : x / pp; };
  const double B = static_cast<double>(batch);
  const double Bg = busiest_group_sequences(B, d.attn_dp);  // sequences on the busiest attention group
  const double v = spec ? static_cast<double>(d.spec_tokens + 1) : 1.0;  // tokens per sequence verified
  const double window_ctx = static_cast<double>(d.n_swa > 0 && context > d.n_swa ? d.n_swa : context);
  const double chunk_ctx = static_cast<double>(d.n_chunk > 0 && context > d.n_chunk ? d.n_chunk : context);
  const double T = static_cast<double>(context);
  // A full layer reads every key, or a DSA layer its top-k.
  const double full_ctx = static_cast<double>(d.index_topk > 0 && context > d.index_topk ? d.index_topk : context);
  const double key_layers = static_cast<double>(d.n_full_layers) * full_ctx +
                            static_cast<double>(d.n_swa_layers) * window_ctx +
                            static_cast<double>(d.n_chunked_layers) * chunk_ctx;
  const double kv_bytes_per_key_layer = static_cast<double>(d.kv_elems_per_layer) * static_cast<double>(d.kv_bits) / 8.0;
  // DSA: the indexer reads every cached indexer key of every full layer.
  const double index_keys = d.index_elems_per_layer > 0 ? static_cast<double>(d.n_full_layers) * T : 0.0;
  const double index_bytes =
      index_keys * static_cast<double>(d.index_elems_per_layer) * static_cast<double>(d.kv_bits) / 8.0;
  const double state_bytes =
      static_cast<double>(d.n_recurrent_layers) * static_cast<double>(state_bits_per_layer(d).value()) / 8.0;
  st.batch = batch;
  const double moe = static_cast<double>(d.n_moe_layers);
  const MoeLoad load = v == 1 ? moe_rank_load(d, B, experts_touched) : moe_rank_load(d, B * v);
  st.experts_touched = load.touched;
  st.experts_read = load.experts_read;
  st.routed_per_rank = load.routed;
  st.bytes.weights = per_gpu(d.dense_bytes);
  st.bytes.experts = per_gpu(moe * load.experts_read * d.expert_bytes);
  st.bytes.lm_head = per_gpu(d.lm_head_bytes);
  st.bytes.embedding_rows = per_gpu(Bg * v * d.embedding_row_bytes);
  st.bytes.kv = per_gpu(Bg * key_layers * kv_bytes_per_key_layer + Bg * index_bytes);
  st.bytes.state = per_gpu(Bg * 2.0 * state_bytes);  // read, then written back
  st.flops.linear = per_gpu(Bg * v * d.linear_flops_per_token);
  st.flops.experts = per_gpu(moe * load.routed * d.expert_flops_per_routed_token);
  st.flops.attention =
      per_gpu(Bg * v * (key_layers * d.attn_flops_per_key_decode + index_keys * d.index_flops_per_key));
  st.flops.lm_head = per_gpu(Bg * v * d.lm_head_flops_per_token);
  st.flops.recurrent = per_gpu(Bg * v * static_cast<double>(d.n_recurrent_layers) * d.state_flops_per_token);
  const double msg = Bg * v * static_cast<double>(d.n_embd) * d.act_bytes;
  const double n_ar = static_cast<double>(d.n_layer) * d.allreduces_per_layer;
  st.allreduce_seconds =
      d.split.tp == 1 ? 0 : n_ar * (d.ring_factor * msg / d.tp_link_bytes_per_s + d.tp_latency_s);
  // Each GPU of the busiest group sends its share of that group's tokens.
  st.a2a_seconds = a2a_seconds(d, moe, Bg * v / static_cast<double>(d.split.tp), load.ratio);
  st.bytes.draft = 0;
  st.flops.draft = 0;
  if (spec) {
    // K draft passes of one token per sequence (the drafter's routed layer on the model's expert terms).
    const DraftTerms& dr = d.draft;
    const double K = static_cast<double>(d.spec_tokens);
    const MoeLoad dl = dr.moe_layers > 0 ? moe_rank_load(d, B) : MoeLoad{};
    st.bytes.draft = per_gpu(K * (dr.weight_bytes + Bg * dr.row_bytes + Bg * T * dr.kv_layers * dr.kv_bytes_per_key +
                                  dr.moe_layers * dl.experts_read * d.expert_bytes));
    st.flops.draft = per_gpu(K * (Bg * (dr.flops_per_token + T * dr.kv_layers * dr.attn_flops_per_key) +
                                  dr.moe_layers * dl.routed * d.expert_flops_per_routed_token));
    const double dmsg = Bg * static_cast<double>(d.n_embd) * d.act_bytes;
    if (d.split.tp > 1) {
      st.allreduce_seconds += K * dr.allreduces * (d.ring_factor * dmsg / d.tp_link_bytes_per_s + d.tp_latency_s);
    }
    st.a2a_seconds += K * a2a_seconds(d, dr.moe_layers, B / static_cast<double>(d.split.moe_group()), dl.ratio);
  }
  st.bytes_per_gpu = st.bytes.total();
  st.flops_per_gpu = st.flops.total();
  st.intensity = st.flops_per_gpu / st.bytes_per_gpu;
  st.compute_seconds = (one_stage ? st.flops_per_gpu : pp * st.flops_per_gpu) / d.peak_flops;
  st.memory_seconds = (one_stage ? st.bytes_per_gpu : pp * st.bytes_per_gpu) / d.bandwidth;
  st.handoff_seconds = one_stage ? 0 : (pp - 1) * (msg / d.pp_link_bytes_per_s + d.pp_latency_s);
  st.comm_seconds = st.allreduce_seconds + st.handoff_seconds + st.a2a_seconds;
  const double busy = std::max(st.compute_seconds, st.memory_seconds);
  st.seconds = d.two_batch_overlap ? std::max(busy, st.a2a_seconds) + st.allreduce_seconds + st.handoff_seconds
                                   : busy + st.comm_seconds;
  st.accepted_tokens_per_step = spec ? d.spec_accepted : 1.0;
  st.tpot_seconds = st.seconds / st.accepted_tokens_per_step;
  st.tokens_per_s_per_sequence = st.accepted_tokens_per_step / st.seconds;
  st.tokens_per_s_aggregate = B * static_cast<double>(d.split.dp) * st.accepted_tokens_per_step / st.seconds;
}
}  // namespace kernel_detail

inline void evaluate_decode_step(const PreparedDeployment& d, int64_t batch, double experts_touched,
                                 DeploymentResult* r) {
  DecodeStep& st = r->decode;
  const bool spec = d.spec_tokens > 0;
  if (spec) {  // the same batch without speculative decoding, first: its step is the baseline
    kernel_detail::decode_step(d, batch, experts_touched, false, st.context, &st);
    const double per_seq = st.tokens_per_s_per_sequence, agg = st.tokens_per_s_aggregate;
    kernel_detail::decode_step(d, batch, experts_touched, true, st.context, &st);
    st.tokens_per_s_per_sequence_without_spec = per_seq;
    st.tokens_per_s_aggregate_without_spec = agg;
  } else {
    kernel_detail::decode_step(d, batch, experts_touched, false, st.context, &st);
    st.tokens_per_s_per_sequence_without_spec = st.tokens_per_s_per_sequence;
    st.tokens_per_s_aggregate_without_spec = st.tokens_per_s_aggregate;
  }
  st.fits = batch <= r->memory.max_sequences;
  const double busy = std::max(st.compute_seconds, st.memory_seconds);
  if (!st.fits) {
    st.regime = DeploymentRegime::kCapacityBound;
  } else if (st.seconds - busy > busy) {  // the communication left exposed outlasts the kernels
    st.regime = DeploymentRegime::kCommunicationBound;
  } else if (st.compute_seconds >= st.memory_seconds) {
    st.regime = DeploymentRegime::kComputeBound;
  } else {
    st.regime = DeploymentRegime::kBandwidthBound;
  }
}

}  // namespace modelcalc

#endif  // MODELCALC_SWEEP_KERNELS_H_
