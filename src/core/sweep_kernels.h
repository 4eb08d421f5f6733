// The hot kernels of a sweep row, shared by the one-shot evaluations and the
// sweep's batch loop so that both compute every number by the same code:
// compute_size's batch-dependent part, the deployment engine's decode step,
// and the seed layer counts without a Result. Inline (a sweep row calls them
// ~10^7 times a second), pure, allocation-free, no I/O. Internal to the core:
// the public entry points are compute_size, evaluate_deployment and sweep.
#ifndef MODELCALC_SWEEP_KERNELS_H_
#define MODELCALC_SWEEP_KERNELS_H_

#include <algorithm>
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
// and tps_aggregate. compute_size_row_part ends with it; a sweep's batch loop
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
  r->tps_aggregate = decode_tokens_per_sec(gpu.bandwidth_bytes_per_s, w_batch, kv, B);
}

// The decode step at `batch`: fills r->decode as evaluate_deployment does
// (evaluate_deployment calls it) but for context and ridge, which the batch
// does not change (evaluate_deployment sets them before the call). A sweep
// over batches evaluates the first batch in full and then only this per
// batch. REQUIRES: r->memory, r->decode.context and r->decode.ridge filled by
// evaluate_deployment(d, any batch, context, ...), batch >= 1, experts_touched
// == expected_experts_touched(d.n_expert, d.n_expert_used, batch). Inline,
// pure, allocation-free.
inline void evaluate_decode_step(const PreparedDeployment& d, int64_t batch, double experts_touched,
                                 DeploymentResult* r) {
  // One column of ranks (all stages), then per GPU = / pp. With one stage the
  // divisions by pp and products with it are skipped: x / 1 and 1 * x are x exactly.
  DecodeStep& st = r->decode;
  const int64_t context = st.context;
  const bool one_stage = d.split.pp == 1;
  const double pp = static_cast<double>(d.split.pp);
  const auto per_gpu = [&](double x) { return one_stage ? x : x / pp; };
  const double B = static_cast<double>(batch);
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
  const double state_bytes = static_cast<double>(d.n_recurrent_layers) * static_cast<double>(d.state_elems_per_layer) *
                             static_cast<double>(d.state_bits) / 8.0;
  st.batch = batch;
  st.experts_touched = experts_touched;
  const double moe = static_cast<double>(d.n_moe_layers);
  st.bytes.weights = per_gpu(d.dense_bytes);
  st.bytes.experts = per_gpu(moe * st.experts_touched * d.expert_bytes);
  st.bytes.lm_head = per_gpu(d.lm_head_bytes);
  st.bytes.embedding_rows = per_gpu(B * d.embedding_row_bytes);
  st.bytes.kv = per_gpu(B * key_layers * kv_bytes_per_key_layer + B * index_bytes);
  st.bytes.state = per_gpu(B * 2.0 * state_bytes);  // read, then written back
  st.flops.linear = per_gpu(B * d.linear_flops_per_token);
  st.flops.attention = per_gpu(B * key_layers * d.attn_flops_per_key_decode + B * index_keys * d.index_flops_per_key);
  st.flops.lm_head = per_gpu(B * d.lm_head_flops_per_token);
  st.flops.recurrent = per_gpu(B * static_cast<double>(d.n_recurrent_layers) * d.state_flops_per_token);
  st.bytes_per_gpu = st.bytes.total();
  st.flops_per_gpu = st.flops.total();
  st.intensity = st.flops_per_gpu / st.bytes_per_gpu;
  st.compute_seconds = (one_stage ? st.flops_per_gpu : pp * st.flops_per_gpu) / d.peak_flops;
  st.memory_seconds = (one_stage ? st.bytes_per_gpu : pp * st.bytes_per_gpu) / d.bandwidth;
  const double msg = B * static_cast<double>(d.n_embd) * d.act_bytes;
  const double n_ar = static_cast<double>(d.n_layer) * d.allreduces_per_layer;
  st.allreduce_seconds =
      d.split.tp == 1 ? 0 : n_ar * (d.ring_factor * msg / d.tp_link_bytes_per_s + d.tp_latency_s);
  st.handoff_seconds = one_stage ? 0 : (pp - 1) * (msg / d.pp_link_bytes_per_s + d.pp_latency_s);
  st.comm_seconds = st.allreduce_seconds + st.handoff_seconds;
  const double busy = std::max(st.compute_seconds, st.memory_seconds);
  st.seconds = busy + st.comm_seconds;
  st.tokens_per_s_per_sequence = 1.0 / st.seconds;
  st.tokens_per_s_aggregate = B * static_cast<double>(d.split.dp) / st.seconds;
  st.fits = batch <= r->memory.max_sequences;
  if (!st.fits) {
    st.regime = DeploymentRegime::kCapacityBound;
  } else if (st.comm_seconds > busy) {
    st.regime = DeploymentRegime::kCommunicationBound;
  } else if (st.compute_seconds >= st.memory_seconds) {
    st.regime = DeploymentRegime::kComputeBound;
  } else {
    st.regime = DeploymentRegime::kBandwidthBound;
  }
}

}  // namespace modelcalc

#endif  // MODELCALC_SWEEP_KERNELS_H_
