#include "modelcalc/model.h"

#include <algorithm>
#include <string>

#include "modelcalc/formulas.h"
#include "sweep_kernels.h"

namespace modelcalc {

std::string_view recurrent_name(Recurrent r) {
  switch (r) {
    case Recurrent::kNone: return "";
    case Recurrent::kMamba1: return "mamba";
    case Recurrent::kMamba2: return "mamba2";
    case Recurrent::kGatedDeltaNet: return "gated_deltanet";
    case Recurrent::kShortConv: return "short_conv";
  }
  return "";
}

std::string checkpoint_summary(const ModelSpec& m) {
  const CheckpointQuant& q = *m.quant;
  const LayerCounts c = m.count_layers();
  std::string quantized, kept;
  auto part = [&](bool present, bool quantized_part, const char* name, const std::optional<Dtype>& own) {
    if (!present) return;
    std::string& to = quantized_part ? quantized : kept;
    to += (to.empty() ? "" : ", ") + std::string(name);
    if (quantized_part && own && *own != q.dtype) to += " (" + std::string(dtype_name(*own)) + ")";
  };
  part(c.attention() > 0, q.attention, "attention", q.attention_dtype);
  part(c.dense > 0 || (c.moe > 0 && m.n_expert_shared > 0), q.mlp, "MLP", q.mlp_dtype);
  part(c.moe > 0, q.experts, "experts", q.experts_dtype);
  part(c.recurrent > 0, q.recurrent, "recurrent mixers", q.recurrent_dtype);
  std::string s = std::string(dtype_name(q.dtype)) + (q.block_scales ? " with 128x128 block scales" : "") +
                  (q.group_size > 0 ? " in groups of " + std::to_string(q.group_size) : "") + ": " +
                  (quantized.empty() ? "nothing" : quantized) + "; 16-bit: " + (kept.empty() ? "" : kept + ", ") +
                  "embeddings, lm_head, norms, routers";
  if (q.kv) s += "; KV cache " + std::string(dtype_name(*q.kv));
  return s + " (" + q.method + ", " + q.source + ")";
}

int64_t ModelSpec::kv_elems_per_token(int64_t il) const {
  if (layer(il).attn == Attn::kNone || layer(il).kv_shared) return 0;  // windows cap tokens, not width
  return kv_elems(*this, KvLayout::kAsConfigured);
}

LayerCounts ModelSpec::count_layers(int64_t begin, int64_t end) const {
  if (end < 0 || end > n_layer) end = n_layer;
  if (begin < 0) begin = 0;
  LayerCounts c;
  if (begin >= end) return c;
  if (layer_kinds.empty()) {
    c.full = end - begin;
    if (n_expert > 0) {
      const int64_t first_moe = std::max(begin, n_layer_dense_lead);
      c.moe = end > first_moe ? end - first_moe : 0;
    }
    c.dense = end - begin - c.moe;
    return c;
  }
  for (int64_t il = begin; il < end; ++il) {
    const LayerKind& k = layer_kinds[static_cast<size_t>(il)];
    if (k.kv_shared && (k.attn == Attn::kFull || k.attn == Attn::kSliding)) {
      ++(k.attn == Attn::kFull ? c.shared_full : c.shared_sliding);
    } else switch (k.attn) {
      case Attn::kFull: ++c.full; break;
      case Attn::kSliding: ++c.sliding; break;
      case Attn::kChunked: ++c.chunked; break;
      case Attn::kNone: ++c.no_attn; break;
    }
    c.recurrent += k.recurrent ? 1 : 0;
    c.no_mixer += k.attn == Attn::kNone && !k.recurrent ? 1 : 0;
    switch (k.ffn) {
      case Ffn::kDense: ++c.dense; break;
      case Ffn::kMoe: ++c.moe; break;
      case Ffn::kNone: ++c.no_ffn; break;
    }
  }
  return c;
}

bool ModelSpec::is_hybrid() const {
  if (is_dsa()) return true;
  const LayerCounts c = count_layers();
  return c.recurrent > 0 || c.no_attn > 0 || c.chunked > 0 || c.no_ffn > 0 || c.shared_full + c.shared_sliding > 0;
}

void ModelSpec::set_swa_pattern(int64_t p) {
  if (layer_kinds.empty()) {
    layer_kinds.resize(static_cast<size_t>(n_layer));
    for (int64_t il = 0; il < n_layer; ++il) layer_kinds[static_cast<size_t>(il)] = layer(il);
  }
  for (int64_t il = 0; il < n_layer; ++il) {
    Attn& a = layer_kinds[static_cast<size_t>(il)].attn;
    if (a != Attn::kFull && a != Attn::kSliding) continue;
    a = p > 0 && (p == 1 || il % p < p - 1) ? Attn::kSliding : Attn::kFull;
  }
}

int64_t ModelSpec::n_embd_s() const { return recurrent == Recurrent::kNone ? 0 : n_ssm_inner * n_ssm_state; }

int64_t ModelSpec::n_embd_r() const {
  return recurrent == Recurrent::kNone || n_ssm_conv < 1 ? 0 : (n_ssm_conv - 1) * n_ssm_conv_dim;
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
  if (!m.layer_kinds.empty() && static_cast<int64_t>(m.layer_kinds.size()) != m.n_layer) {
    return Status::InvalidArgument("layer_kinds", "must list one entry per layer (" + std::to_string(m.n_layer) +
                                                      "), got " + std::to_string(m.layer_kinds.size()));
  }
  const LayerCounts c = m.count_layers();
  if (c.dense > 0) MC_RETURN_IF_ERROR(positive(m.n_ff, "n_ff"));
  if (c.moe > 0 && m.n_expert <= 0) return Status::InvalidArgument("n_expert", "MoE layers need routed experts");
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
  if (m.n_chunk < 0) return Status::InvalidArgument("n_chunk", "must be >= 0");
  if (c.sliding > 0) MC_RETURN_IF_ERROR(positive(m.n_swa, "n_swa"));
  if (c.chunked > 0) MC_RETURN_IF_ERROR(positive(m.n_chunk, "n_chunk"));
  if (m.n_index_topk < 0 || m.n_embd_head_index < 0 || m.n_index_head < 0) {
    return Status::InvalidArgument("n_index_topk", "the sparse indexer's sizes must be >= 0");
  }
  if (m.n_index_topk > 0) {
    MC_RETURN_IF_ERROR(positive(m.n_embd_head_index, "n_embd_head_index"));
    MC_RETURN_IF_ERROR(positive(m.n_index_head, "n_index_head"));
  }
  if (c.recurrent > 0) {
    if (m.recurrent == Recurrent::kNone) {
      return Status::InvalidArgument("recurrent", "recurrent layers need a recurrent mixer family");
    }
    if (m.recurrent != Recurrent::kShortConv) {  // a short conv keeps no state matrix
      MC_RETURN_IF_ERROR(positive(m.n_ssm_state, "n_ssm_state"));
      MC_RETURN_IF_ERROR(positive(m.n_ssm_inner, "n_ssm_inner"));
    }
    MC_RETURN_IF_ERROR(positive(m.n_ssm_head, "n_ssm_head"));
    MC_RETURN_IF_ERROR(positive(m.n_ssm_conv, "n_ssm_conv"));
    MC_RETURN_IF_ERROR(positive(m.n_ssm_conv_dim, "n_ssm_conv_dim"));
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
  Exact attn_layer;
  if (m.is_mla()) {
    attn_layer = mla_attention_matrices(m);
  } else {
    const Exact dh = m.n_embd_head;
    attn_layer = attn_q_params(d, m.n_head, dh) + attn_kv_params(d, Exact(m.n_head_kv) * dh) +
                 attn_o_params(d, m.n_head, dh);
  }
  const LayerCounts c = m.count_layers();
  const Exact n_moe = c.moe;
  const Exact n_dense = c.dense;
  const Exact n_attn = c.attention();
  const Exact expert = ffn_params(d, m.n_ff_exp, m.ffn_gated && m.expert_gated);
  const Exact shared = ffn_params(d, m.n_ff_shexp, m.ffn_gated) * Exact(m.n_expert_shared);
  const Exact emb = Exact(m.n_vocab) * d;

  const Exact attention = attn_layer * n_attn;
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

Result<int64_t> state_bytes_per_sequence(const ModelSpec& m, Dtype state_dtype, Dtype ssm_dtype) {
  const Exact bytes = state_bytes_per_sequence_exact(m, m.count_layers().recurrent, state_dtype, ssm_dtype);
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
