// The formula core: pure functions over plain numbers. No strings, no
// allocation, no I/O; each is cheap enough to call millions of times a second
// in a sweep. Every formula modelcalc uses lives here, once; the explained
// report names these functions (see src/formula_text.cc) rather than
// re-deriving them.
//
// Units: counts are parameters or tokens; bytes are decimal bytes; FLOP are
// floating-point operations (a multiply-add is 2 FLOP); rates are per second.
// Functions named as in the lab (training_flops, kv_cache_bytes, ...) keep the
// lab's names so that anyone who did the lab finds their way.
#ifndef MODELCALC_FORMULAS_H_
#define MODELCALC_FORMULAS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "modelcalc/dtype.h"
#include "modelcalc/exact.h"

namespace modelcalc {

// ---------------------------------------------------------------- parameters
// Seed formulas for one layer; d = hidden, h = heads, dh = head dim, d_kv = kv_heads x dh.
constexpr Exact attn_q_params(Exact d, Exact h, Exact dh) { return d * h * dh; }
constexpr Exact attn_kv_params(Exact d, Exact d_kv) { return Exact(2) * d * d_kv; }
constexpr Exact attn_o_params(Exact d, Exact h, Exact dh) { return h * dh * d; }
// (3 if gated else 2) . d . d_ff: gate, up, down (or up, down).
constexpr Exact ffn_params(Exact d, Exact d_ff, bool gated) {
  return Exact(gated ? 3 : 2) * d * d_ff;
}
// V . d, twice when the lm_head is a separate matrix.
constexpr Exact embedding_params(Exact vocab, Exact d, bool tied) {
  return Exact(tied ? 1 : 2) * vocab * d;
}
// The textbook shortcut: (4 + 2m) d^2 with m = 4, i.e. 12 d^2 per layer.
constexpr double shortcut_layer_params(double d) { return 12.0 * d * d; }

// ---------------------------------------------------------------- memory
// N x bytes_per_param, exact: ceil(N . bits / 8) (int4 packs two per byte),
// plus the format's own group scales for NVFP4/MXFP4 (ceil(N / g) scales of
// 8 bits; dtype.h group_scale_bytes). The textbook view: checkpoint group
// scales (int4/int8), fp8 block scales and per-tensor scales are not in it
// (the deployment engine counts the first two).
constexpr Exact weight_memory_bytes(Exact n_params, Dtype t) {
  const Exact values = element_bytes(n_params, t);
  if (dtype_info(t).scales != ScaleKind::kFormat) return values;
  return values + group_scale_bytes(n_params, t, 1);
}
// KV bytes one token adds to one sequence: 2 . L . d_kv . bytes (K and V).
constexpr Exact kv_bytes_per_token(Exact layers, Exact d_kv, Dtype t) {
  return ceil_div(Exact(2) * layers * d_kv * Exact(dtype_bits(t)), 8);
}
// The lab's kv_cache_bytes: 2 . L . T . d_kv . bytes . batch, with
// d_kv = d_model . n_kv_heads / n_heads (MHA when n_kv_heads == n_heads).
// REQUIRES: n_heads > 0 and n_heads divides d_model . n_kv_heads.
constexpr Exact kv_cache_bytes(Exact layers, Exact seq, Exact d_model, Dtype t, Exact batch,
                               int64_t n_heads, int64_t n_kv_heads) {
  const Exact d_kv_num = d_model * Exact(n_kv_heads);
  const Exact d_kv = d_kv_num.overflow() ? d_kv_num : Exact(d_kv_num.value() / n_heads);
  return ceil_div(Exact(2) * layers * seq * d_kv * Exact(dtype_bits(t)) * batch, 8);
}

// ---------------------------------------------------------------- FLOPs
// Forward pass: one multiply-add per parameter per token.
constexpr double forward_flops_per_token(double n_params) { return 2.0 * n_params; }
// Training: forward 2 + backward 4 = 6 FLOP per parameter per token.
constexpr double training_flops(double n_params, double n_tokens) {
  return 6.0 * n_params * n_tokens;
}
constexpr double inference_flops(double n_params, double n_tokens) {
  return 2.0 * n_params * n_tokens;
}
// Prefill linear term for a prompt of T tokens: 2 . N_blocks . T.
constexpr double prefill_linear_flops(double n_block_params, double tokens) {
  return 2.0 * n_block_params * tokens;
}
// Attention score and weighted-sum FLOPs for a T-token prompt over L layers:
// 4 . T^2 . d_attn . L (QK^T and AV, 2 T^2 d each; causal masking not subtracted).
constexpr double prefill_attention_flops(double layers, double tokens, double d_attn) {
  return 4.0 * tokens * tokens * d_attn * layers;
}
// Attention FLOPs of one layer for q_tokens queries against kv_tokens keys:
// 4 . q . k . d_attn (2 q k d for QK^T, 2 q k d for AV).
constexpr double attention_flops(double q_tokens, double kv_tokens, double d_attn) {
  return 4.0 * q_tokens * kv_tokens * d_attn;
}
// Attention FLOPs for one new token against a context of `ctx` tokens: 4 . ctx . d_attn . L.
constexpr double decode_attention_flops(double layers, double ctx, double d_attn) {
  return 4.0 * ctx * d_attn * layers;
}
// Context length where a layer's attention FLOPs equal its linear FLOPs:
// 4 N^2 d_attn = 2 P_layer N  =>  N = P_layer / (2 d_attn)   ((2 + m) d for the textbook layer).
constexpr double attention_crossover_tokens(double layer_params, double d_attn) {
  return layer_params / (2.0 * d_attn);
}

// ---------------------------------------------------------------- roofline
constexpr double arithmetic_intensity(double flops, double bytes) { return flops / bytes; }
// Ridge point: peak FLOP/s / bandwidth bytes/s = FLOP/byte.
constexpr double roofline_ridge_intensity(double peak_flops, double bw_bytes_per_s) {
  return peak_flops / bw_bytes_per_s;
}
constexpr double roofline_attainable_flops(double intensity, double peak_flops,
                                           double bw_bytes_per_s) {
  return std::min(peak_flops, bw_bytes_per_s * intensity);
}
constexpr bool is_memory_bound(double intensity, double peak_flops, double bw_bytes_per_s) {
  return intensity < roofline_ridge_intensity(peak_flops, bw_bytes_per_s);
}
// Intensity of a d x d projection over T tokens with b bytes per element:
// 2 T d^2 FLOP / (b (d^2 + 2 T d)) bytes = 2 T d / (b (d + 2T)); T d / (d + 2T) in fp16.
constexpr double projection_intensity(double d, double tokens, double bytes_per_elem) {
  return 2.0 * tokens * d / (bytes_per_elem * (d + 2.0 * tokens));
}
// Tokens T at which projection_intensity reaches `ridge`: T = R b d / (2 (d - R b)).
// +infinity when d <= R b (the projection never turns compute-bound).
constexpr double projection_compute_bound_tokens(double d, double ridge, double bytes_per_elem) {
  const double rb = ridge * bytes_per_elem;
  return d <= rb ? std::numeric_limits<double>::infinity() : rb * d / (2.0 * (d - rb));
}
// The small-T approximation: intensity ~= 2T/b (= T in fp16), so T ~= R b / 2.
constexpr double projection_compute_bound_tokens_approx(double ridge, double bytes_per_elem) {
  return ridge * bytes_per_elem / 2.0;
}

// ---------------------------------------------------------------- decode
// Bytes read by one decode step: weights once, plus every sequence's KV cache.
constexpr double decode_step_bytes(double weight_bytes, double kv_bytes_per_seq, double batch) {
  return weight_bytes + batch * kv_bytes_per_seq;
}
// Bandwidth ceiling on aggregate decode tokens/s at `batch` sequences:
// B . bw / (W + B . KV). One weight read serves the whole batch; the KV read grows with it.
// REQUIRES: weight_bytes + batch . kv_bytes_per_seq > 0.
constexpr double decode_tokens_per_sec(double bw_bytes_per_s, double weight_bytes,
                                       double kv_bytes_per_seq, double batch) {
  return batch * bw_bytes_per_s / decode_step_bytes(weight_bytes, kv_bytes_per_seq, batch);
}
// Expected distinct routed experts a MoE layer reads in one decode step when
// `batch` tokens each pick k of E experts uniformly: E (1 - (1 - k/E)^B).
// k at batch 1; approaches E as the batch grows.
inline double expected_experts_touched(double n_expert, double k, double batch) {
  if (n_expert <= 0) return 0;
  return n_expert * (1.0 - std::pow(1.0 - k / n_expert, batch));
}
// Sequences of KV that fit beside the weights: floor((capacity - W) / KV). 0 if none.
// overflow() when the count does not fit in int64_t (or an input is NaN).
constexpr Exact max_batch_by_capacity(double capacity_bytes, double weight_bytes,
                                      double kv_bytes_per_seq) {
  const double left = capacity_bytes - weight_bytes;
  if (left <= 0 || kv_bytes_per_seq <= 0) return Exact(0);
  // left / kv > 0 here (or NaN/inf, which from_double reports), and the floor
  // of a positive number is its truncation toward zero, which from_double
  // does: the same count as from_double(std::floor(...)) without floor's
  // rounding sequence (x86-64 without SSE4.1 has no roundsd; issue #14).
  return Exact::from_double(left / kv_bytes_per_seq);
}

// ---------------------------------------------------------------- cost, efficiency
// USD per 1e6 tokens: price_per_gpu_hour . gpus / (tokens_per_s . 3600) . 1e6.
// tokens_per_s is the aggregate over all `gpus`. REQUIRES: tokens_per_s > 0.
constexpr double cost_per_million_tokens(double usd_per_gpu_hour, double tokens_per_s,
                                         double gpus) {
  return usd_per_gpu_hour * gpus / (tokens_per_s * 3600.0) * 1e6;
}
enum class MfuMode { kInference, kTraining };
// Model FLOPs utilization: achieved tokens/s . (2N or 6N) / peak FLOP/s, a
// fraction (1 = the whole peak). REQUIRES: peak_flops > 0 (the peak of all the
// GPUs producing tokens_per_s).
constexpr double mfu(double tokens_per_s, double n_params, double peak_flops, MfuMode mode) {
  return tokens_per_s * (mode == MfuMode::kTraining ? 6.0 : 2.0) * n_params / peak_flops;
}

// ---------------------------------------------------------------- Chinchilla
inline constexpr double kChinchillaTokensPerParam = 20.0;
// Compute-optimal data for N parameters: D ~= 20 N (Hoffmann et al. 2022).
constexpr double chinchilla_optimal_tokens(double n_params) {
  return kChinchillaTokensPerParam * n_params;
}
struct ChinchillaPoint {
  double params = 0;  // N
  double tokens = 0;  // D = 20 N
};
// For a compute budget C = 6 N D with D = 20 N: N = sqrt(C / 120), D = 20 N.
// The inverse of training_flops(N, chinchilla_optimal_tokens(N)). REQUIRES: C >= 0.
inline ChinchillaPoint chinchilla_optimal_params(double compute_flops) {
  const double n = std::sqrt(compute_flops / (6.0 * kChinchillaTokensPerParam));
  return {n, kChinchillaTokensPerParam * n};
}

}  // namespace modelcalc

#endif  // MODELCALC_FORMULAS_H_
