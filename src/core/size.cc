#include "modelcalc/size.h"

#include <cmath>

#include "modelcalc/formulas.h"
#include "sweep_kernels.h"

namespace modelcalc {

namespace {

// Width at which attention scores and the weighted sum are computed:
// h x (d_k + d_v) / 2, i.e. h x d_head when K and V heads are equal.
inline double attention_width(const ModelSpec& m) {
  const double dk = static_cast<double>(m.n_embd_head_k > 0 ? m.n_embd_head_k : m.n_embd_head);
  const double dv = static_cast<double>(m.n_embd_head_v > 0 ? m.n_embd_head_v : m.n_embd_head);
  return static_cast<double>(m.n_head) * (dk + dv) / 2.0;
}

// Attention FLOPs of q_tokens new tokens against a context of ctx tokens,
// summed over the layers counted in `c`; a sliding-window layer attends at most
// n_swa keys, a chunked layer at most n_chunk, a layer without attention none.
[[gnu::always_inline]] inline double attention_flops_all_layers(const ModelSpec& m, const LayerCounts& c,
                                                                double q_tokens, int64_t ctx, double d_attn) {
  // Layers reading another layer's KV (Gemma 3n's) attend like their kind.
  const double full =
      static_cast<double>(c.full + c.shared_full) * attention_flops(q_tokens, static_cast<double>(ctx), d_attn);
  double windowed = 0;
  if (c.sliding + c.shared_sliding > 0) {
    const double window = static_cast<double>(ctx > m.n_swa ? m.n_swa : ctx);
    windowed += static_cast<double>(c.sliding + c.shared_sliding) * attention_flops(q_tokens, window, d_attn);
  }
  if (c.chunked > 0) {
    const double chunk = static_cast<double>(ctx > m.n_chunk ? m.n_chunk : ctx);
    windowed += static_cast<double>(c.chunked) * attention_flops(q_tokens, chunk, d_attn);
  }
  if (c.sliding + c.shared_sliding == 0 && c.chunked == 0) return full;
  return full + windowed;
}

// The two parts' bodies, forced inline so that compute_size is one function
// (no calls, common subexpressions shared) while a sweep calls each part on
// its own through the public wrappers below.
// *out is restrict (the REQUIRES of compute_size's out-parameter form): its
// stores cannot change m, p, gpu or o, so what is read from them is loaded and
// computed once, not again after every store (issue #14).
[[gnu::always_inline]] inline void model_part(const ModelSpec& m, const ParamBreakdown& p,
                                              SizeResult* __restrict out) {
  SizeResult& r = *out;
  const double d = static_cast<double>(m.n_embd);
  const double L = static_cast<double>(m.n_layer);

  // 1. Parameters.
  r.d_head = m.n_embd_head;
  r.d_kv = m.is_mla() ? m.n_lora_kv + m.n_rot + m.n_embd_head_index : m.n_embd_kv();
  r.layers = m.count_layers();
  // One layer's matrices stand for every layer only when every layer holds attention and a dense FFN.
  r.has_layer_matrices = !m.is_mla() && m.n_expert == 0 && r.layers.recurrent == 0 && r.layers.no_attn == 0 &&
                         r.layers.no_ffn == 0;
  if (r.has_layer_matrices) {
    bool overflow = false;  // checked by the caller (analyze_size, validate_sweep)
    r.layer = seed_layer_matrices_unchecked(m, &overflow);
    r.layer_over_d2 = static_cast<double>(r.layer.total()) / (d * d);
    r.shortcut_layer = shortcut_layer_params(d);
    r.shortcut_error = r.shortcut_layer / static_cast<double>(r.layer.total());
  } else {  // every field is set, whatever *out held
    r.layer = LayerMatrices{};
    r.layer_over_d2 = 0;
    r.shortcut_layer = 0;
    r.shortcut_error = 0;
  }
  r.params = p;
  r.exact = m.exact.has_value();
  r.total = p.total();
  r.active = p.active();
  r.blocks = p.blocks();
  r.blocks_active = p.blocks_active();
  r.embeddings = p.embeddings + p.lm_head + p.position;

  // 2. Weight memory, every dtype.
  for (size_t i = 0; i < kAllDtypes.size(); ++i) {
    r.weight_bytes_by_dtype[i] = weight_memory_bytes(r.total, kAllDtypes[i]).value();
  }

  // 3. FLOPs that do not depend on the context.
  const double n_blocks = static_cast<double>(r.blocks_active);
  const double d_attn = attention_width(m);
  r.d_attn = static_cast<int64_t>(d_attn);
  r.forward_per_token = forward_flops_per_token(n_blocks);
  r.crossover_tokens = attention_crossover_tokens(n_blocks / L, d_attn);
  const double ffn_active =
      static_cast<double>(p.mlp_dense + p.mlp_routed_active + p.mlp_shared) / L;
  r.crossover_mlp_tokens = attention_crossover_tokens(ffn_active, d_attn);
}

[[gnu::always_inline]] inline void row_part(const ModelSpec& m, const ParamBreakdown& p, const GpuSpec& gpu,
                                            const SizeOptions& o, SizeResult* __restrict out) {
  SizeResult& r = *out;
  const double d = static_cast<double>(m.n_embd);
  const double T = static_cast<double>(o.context);
  const double B = static_cast<double>(o.batch);

  // 2. Weight memory in the serving dtype (kAllDtypes lists every Dtype in enum order).
  static_assert(kAllDtypes[static_cast<size_t>(Dtype::kInt4)] == Dtype::kInt4 &&
                kAllDtypes[static_cast<size_t>(Dtype::kFp16)] == Dtype::kFp16);
  r.weight_bytes = r.weight_bytes_by_dtype[static_cast<size_t>(o.weight_dtype)];
  const double W = static_cast<double>(r.weight_bytes);
  r.fits = W <= gpu.capacity_bytes;
  r.kv_room_bytes = gpu.capacity_bytes - W;

  // 3. FLOPs at this context.
  const double n_blocks = static_cast<double>(r.blocks_active);
  const double d_attn = attention_width(m);
  r.train_flops = o.train_tokens > 0 ? training_flops(static_cast<double>(r.active), o.train_tokens) : 0;
  r.prefill_linear = prefill_linear_flops(n_blocks, T);
  r.prefill_attention = attention_flops_all_layers(m, r.layers, T, o.context, d_attn);
  r.prefill_total = r.prefill_linear + r.prefill_attention;
  r.attention_fraction = r.prefill_attention / r.prefill_total;
  r.prefill_per_token = r.prefill_total / T;
  r.decode_per_token = r.forward_per_token + attention_flops_all_layers(m, r.layers, 1, o.context, d_attn);

  // 4. KV cache (validated by the caller: the Exact values do not overflow).
  // kv_bytes_per_{token,sequence}_exact for both layouts, their shared factors computed once.
  const Exact elems = Exact(kv_elems(m, KvLayout::kAsConfigured)), elems_mha = Exact(kv_elems(m, KvLayout::kMha));
  const Exact layers = Exact(r.layers.attention()), token_layers = kv_token_layers(r.layers, m.n_swa, m.n_chunk, o.context);
  r.kv_per_token = kv_bytes(elems, layers, o.kv_dtype).value();
  r.kv_per_seq = kv_bytes(elems, token_layers, o.kv_dtype).value();
  r.kv_mha_per_token = kv_bytes(elems_mha, layers, o.kv_dtype).value();
  r.kv_mha_per_seq = kv_bytes(elems_mha, token_layers, o.kv_dtype).value();
  r.kv_mha_ratio = static_cast<double>(r.kv_mha_per_seq) / static_cast<double>(r.kv_per_seq);
  r.state_per_seq = r.layers.recurrent == 0
                        ? 0
                        : state_bytes_per_sequence_exact(m, r.layers.recurrent, default_state_dtype(o.weight_dtype),
                                                         default_ssm_state_dtype(m, o.weight_dtype))
                              .value();
  if (!o.has_gpu) {  // sections 5 and 6 as a fresh SizeResult has them, whatever *out held
    r.decode_weight_bytes = 0;
    r.tokens_per_s_weights_only = r.tokens_per_s_with_kv = r.tokens_per_s_aggregate = 0;
    r.step_bytes_aggregate = 0;
    r.ridge = 0;
    r.intensity_one_token = r.intensity_full_prompt = 0;
    r.compute_bound_batch = r.compute_bound_batch_approx = 0;
    r.max_batch_by_capacity = 0;
    return;
  }

  // 5. Decode ceiling.
  const double bw = gpu.bandwidth_bytes_per_s;
  const double kv = static_cast<double>(r.kv_per_seq);
  // Weight bytes one step reads at batch 1; the expected experts are counted
  // only for a model with routed experts.
  const DecodeWeightTerms w = decode_weight_terms(m, p, r.total, o.weight_dtype);
  const auto touched = [&](double batch) {
    return w.routed ? expected_experts_touched(static_cast<double>(m.n_expert), static_cast<double>(m.n_expert_used),
                                               batch)
                    : 0.0;
  };
  r.decode_weight_bytes = decode_weight_bytes_touched(w, touched(1));
  r.tokens_per_s_weights_only = decode_tokens_per_sec(bw, r.decode_weight_bytes, 0, 1);
  r.tokens_per_s_with_kv = decode_tokens_per_sec(bw, r.decode_weight_bytes, kv, 1);
  // What depends on the batch: the one function a sweep's batch loop calls.
  compute_size_batch_part(gpu, o, w, o.batch != 1 ? touched(B) : 0.0, out);

  // 6. Regime.
  const double b = dtype_bytes(o.weight_dtype);
  r.ridge = roofline_ridge_intensity(gpu.peak_bf16_flops, bw);
  r.intensity_one_token = projection_intensity(d, 1, b);
  r.intensity_full_prompt = projection_intensity(d, T, b);
  r.compute_bound_batch = projection_compute_bound_tokens(d, r.ridge, b);
  r.compute_bound_batch_approx = projection_compute_bound_tokens_approx(r.ridge, b);
  r.max_batch_by_capacity = max_batch_by_capacity(gpu.capacity_bytes, W, kv).value();  // checked by analyze_size
}

}  // namespace

void compute_size_model_part(const ModelSpec& m, const ParamBreakdown& p, SizeResult* r) { model_part(m, p, r); }

void compute_size_row_part(const ModelSpec& m, const ParamBreakdown& p, const GpuSpec& gpu, const SizeOptions& o,
                           SizeResult* r) {
  row_part(m, p, gpu, o, r);
}

void compute_size(const ModelSpec& m, const ParamBreakdown& p, const GpuSpec& gpu, const SizeOptions& o,
                  SizeResult* out) {
  model_part(m, p, out);
  row_part(m, p, gpu, o, out);
}

SizeResult compute_size(const ModelSpec& m, const ParamBreakdown& p, const GpuSpec& gpu,
                        const SizeOptions& o) {
  SizeResult r;
  compute_size(m, p, gpu, o, &r);
  return r;
}

Result<SizeResult> analyze_size(const ModelSpec& m, const GpuSpec& gpu, const SizeOptions& o) {
  MC_RETURN_IF_ERROR(validate(m));
  if (o.context <= 0) return Status::InvalidArgument("context", "must be a positive number of tokens");
  if (o.batch <= 0) return Status::InvalidArgument("batch", "must be a positive number of sequences");
  if (o.train_tokens < 0) return Status::InvalidArgument("train-tokens", "must not be negative");
  MC_RETURN_IF_ERROR(check_kv_dtype(o.kv_dtype, "kv_dtype"));
  if (o.has_gpu && (gpu.capacity_bytes <= 0 || gpu.bandwidth_bytes_per_s <= 0 || gpu.peak_bf16_flops <= 0)) {
    return Status::InvalidArgument(
        "gpu", "'" + gpu.name + "' needs a capacity, a bandwidth and a bf16 peak");
  }
  auto p = param_breakdown(m);
  if (!p.ok()) return p.status();
  // Every exact count compute_size takes .value() of must fit.
  if (!m.is_mla() && m.n_expert == 0) {
    if (auto l = seed_layer_matrices(m); !l.ok()) return l.status();
  }
  if (weight_memory_bytes(p->total(), Dtype::kFp32).overflow()) return Status::Overflow("model shape");
  for (KvLayout layout : {KvLayout::kAsConfigured, KvLayout::kMha}) {
    if (auto k = kv_bytes_per_token(m, o.kv_dtype, layout); !k.ok()) return k.status();
    if (auto k = kv_bytes_per_sequence(m, o.context, o.kv_dtype, layout); !k.ok()) return Status::Overflow("context");
  }
  if (auto st = state_bytes_per_sequence(m, default_state_dtype(o.weight_dtype),
                                         default_ssm_state_dtype(m, o.weight_dtype));
      !st.ok()) {
    return st.status();
  }
  SizeResult r = compute_size(m, *p, gpu, o);
  if (o.has_gpu && max_batch_by_capacity(gpu.capacity_bytes, static_cast<double>(r.weight_bytes),
                                         static_cast<double>(r.kv_per_seq))
                       .overflow()) {
    return Status::InvalidArgument("capacity", "the sequences that fit in it would not fit in a 64-bit count; "
                                               "give a capacity of at most 1 PB per GPU");
  }
  return r;
}

}  // namespace modelcalc
