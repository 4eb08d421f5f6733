#include "modelcalc/model.h"

#include <string>

#include "modelcalc/formulas.h"
#include "sweep_kernels.h"

namespace modelcalc {

int64_t ModelSpec::kv_elems_per_token(int64_t il) const {
  (void)il;  // every layer caches the same width; windows cap tokens, not width
  if (is_mla()) return n_lora_kv + n_rot;
  const int64_t dk = n_embd_head_k > 0 ? n_embd_head_k : n_embd_head;
  const int64_t dv = n_embd_head_v > 0 ? n_embd_head_v : n_embd_head;
  return n_head_kv * (dk + dv);
}

int64_t ModelSpec::n_moe_layers() const {
  if (n_expert <= 0) return 0;
  return n_layer > n_layer_dense_lead ? n_layer - n_layer_dense_lead : 0;
}

namespace {

Status positive(int64_t v, const char* field) {
  if (v <= 0) return Status::InvalidArgument(field, "must be a positive integer, got " + std::to_string(v));
  return Status::Ok();
}

}  // namespace

Status validate(const ModelSpec& m) {
  MC_RETURN_IF_ERROR(positive(m.n_layer, "n_layer"));
  MC_RETURN_IF_ERROR(positive(m.n_embd, "n_embd"));
  MC_RETURN_IF_ERROR(positive(m.n_head, "n_head"));
  MC_RETURN_IF_ERROR(positive(m.n_head_kv, "n_head_kv"));
  MC_RETURN_IF_ERROR(positive(m.n_embd_head, "n_embd_head"));
  MC_RETURN_IF_ERROR(positive(m.n_vocab, "n_vocab"));
  if (m.n_head_kv > m.n_head || m.n_head % m.n_head_kv != 0) {
    return Status::InvalidArgument("n_head_kv", "must divide n_head (" + std::to_string(m.n_head) +
                                                    "), got " + std::to_string(m.n_head_kv));
  }
  const bool any_dense = m.n_expert == 0 || m.n_layer_dense_lead > 0;
  if (any_dense) MC_RETURN_IF_ERROR(positive(m.n_ff, "n_ff"));
  if (m.n_ctx_train < 0) return Status::InvalidArgument("n_ctx_train", "must be >= 0");
  if (m.n_expert < 0) return Status::InvalidArgument("n_expert", "must be >= 0");
  if (m.n_expert > 0) {
    MC_RETURN_IF_ERROR(positive(m.n_expert_used, "n_expert_used"));
    MC_RETURN_IF_ERROR(positive(m.n_ff_exp, "n_ff_exp"));
    if (m.n_expert_used > m.n_expert) {
      return Status::InvalidArgument("n_expert_used", "must be <= n_expert (" +
                                                          std::to_string(m.n_expert) + ")");
    }
    if (m.n_expert_shared < 0) return Status::InvalidArgument("n_expert_shared", "must be >= 0");
    if (m.n_expert_shared > 0) MC_RETURN_IF_ERROR(positive(m.n_ff_shexp, "n_ff_shexp"));
    if (m.n_layer_dense_lead < 0 || m.n_layer_dense_lead > m.n_layer) {
      return Status::InvalidArgument("n_layer_dense_lead", "must be between 0 and n_layer");
    }
  }
  if (m.is_mla()) {
    MC_RETURN_IF_ERROR(positive(m.n_rot, "n_rot"));
    MC_RETURN_IF_ERROR(positive(m.n_embd_head_k, "n_embd_head_k"));
    MC_RETURN_IF_ERROR(positive(m.n_embd_head_v, "n_embd_head_v"));
    if (m.n_lora_q < 0) return Status::InvalidArgument("n_lora_q", "must be >= 0");
  }
  if (m.n_swa < 0) return Status::InvalidArgument("n_swa", "must be >= 0");
  if (m.n_swa > 0 && m.n_swa_pattern <= 0) {
    return Status::InvalidArgument("n_swa_pattern", "must be >= 1 when a sliding window is set");
  }
  return Status::Ok();
}

Result<LayerMatrices> seed_layer_matrices(const ModelSpec& m) {
  bool overflow = false;
  const LayerMatrices l = seed_layer_matrices_unchecked(m, &overflow);
  if (overflow) return Status::Overflow("model shape");
  return l;
}

namespace {

// MLA projections of one layer (DeepSeek-V2): q (plain or through a LoRA),
// the joint KV down-projection with the RoPE key, the KV up-projection, o.
Exact mla_attention_matrices(const ModelSpec& m) {
  const Exact d = m.n_embd, h = m.n_head;
  const Exact q_out = h * Exact(m.n_embd_head_k);
  const Exact q = m.n_lora_q > 0 ? d * Exact(m.n_lora_q) + Exact(m.n_lora_q) * q_out : d * q_out;
  const Exact kv_a = d * Exact(m.n_lora_kv + m.n_rot);
  const Exact kv_b =
      Exact(m.n_lora_kv) * h * Exact(m.n_embd_head_k - m.n_rot + m.n_embd_head_v);
  const Exact o = h * Exact(m.n_embd_head_v) * d;
  return q + kv_a + kv_b + o;
}

}  // namespace

Result<ParamBreakdown> seed_param_breakdown(const ModelSpec& m) {
  const Exact d = m.n_embd;
  const Exact L = m.n_layer;
  Exact attn_layer;
  if (m.is_mla()) {
    attn_layer = mla_attention_matrices(m);
  } else {
    const Exact dh = m.n_embd_head;
    attn_layer = attn_q_params(d, m.n_head, dh) + attn_kv_params(d, Exact(m.n_head_kv) * dh) +
                 attn_o_params(d, m.n_head, dh);
  }
  const Exact n_moe = m.n_moe_layers();
  const Exact n_dense = L - n_moe;
  const Exact expert = ffn_params(d, m.n_ff_exp, m.ffn_gated);
  const Exact shared = ffn_params(d, m.n_ff_shexp, m.ffn_gated) * Exact(m.n_expert_shared);
  const Exact emb = Exact(m.n_vocab) * d;

  const Exact attention = attn_layer * L;
  const Exact mlp_dense = ffn_params(d, m.n_ff, m.ffn_gated) * n_dense;
  const Exact mlp_routed = expert * Exact(m.n_expert) * n_moe;
  const Exact mlp_routed_active = expert * Exact(m.n_expert_used) * n_moe;
  const Exact mlp_shared = shared * n_moe;
  const Exact router = d * Exact(m.n_expert) * n_moe;
  const Exact lm_head = m.tied_embeddings ? Exact(0) : emb;
  const Exact total = emb + lm_head + attention + mlp_dense + mlp_routed + mlp_shared + router;
  if (total.overflow() || mlp_routed_active.overflow()) return Status::Overflow("model shape");

  ParamBreakdown p;
  p.embeddings = emb.value();
  p.lm_head = lm_head.value();
  p.attention = attention.value();
  p.mlp_dense = mlp_dense.value();
  p.mlp_routed = mlp_routed.value();
  p.mlp_routed_active = mlp_routed_active.value();
  p.mlp_shared = mlp_shared.value();
  p.router = router.value();
  return p;
}

Result<ParamBreakdown> param_breakdown(const ModelSpec& m) {
  if (m.exact) return *m.exact;
  return seed_param_breakdown(m);
}

Result<int64_t> kv_bytes_per_sequence(const ModelSpec& m, int64_t ctx, Dtype kv_dtype, KvLayout layout) {
  const Exact bytes = kv_bytes_per_sequence_exact(m, ctx, kv_dtype, layout);
  if (bytes.overflow()) return Status::Overflow("context");
  return bytes.value();
}

Result<int64_t> kv_bytes_per_token(const ModelSpec& m, Dtype kv_dtype, KvLayout layout) {
  const Exact bytes = kv_bytes_per_token_exact(m, kv_dtype, layout);
  if (bytes.overflow()) return Status::Overflow("model shape");
  return bytes.value();
}

int64_t default_context(const ModelSpec& m) {
  return m.n_ctx_train > 0 && m.n_ctx_train < kDefaultContext ? m.n_ctx_train : kDefaultContext;
}

ModelSpec as_mha(const ModelSpec& m) {
  ModelSpec r = m;
  r.n_head_kv = m.n_head;
  if (m.is_mla()) {
    r.n_lora_kv = 0;  // cache full per-head K (nope + rope) and V
  }
  return r;
}

}  // namespace modelcalc
