#include "hf_decoder.h"

#include <algorithm>
#include <string>

namespace modelcalc::hf {

Status materialize_kinds(Cfg& c, Decoder& a) {
  if (!a.kinds.empty()) return Status::Ok();
  if (a.layers > kMaxPerLayerLayers) {
    return c.error("num_hidden_layers", "at most " + std::to_string(kMaxPerLayerLayers) +
                                            " layers where layers differ (one entry per layer), got " +
                                            std::to_string(a.layers));
  }
  a.kinds.resize(static_cast<size_t>(a.layers));
  for (int64_t il = 0; il < a.layers; ++il) {
    a.kinds[static_cast<size_t>(il)].ffn = a.n_expert > 0 && il >= a.dense_lead ? Ffn::kMoe : Ffn::kDense;
  }
  return Status::Ok();
}

LayerCounts layer_counts(const Decoder& a) {
  ModelSpec m;  // count_layers' closed form for a uniform decoder, its loop otherwise
  m.n_layer = a.layers;
  m.n_expert = a.n_expert;
  m.n_layer_dense_lead = a.dense_lead;
  m.layer_kinds = a.kinds;
  return m.count_layers();
}

AttentionParams attention_params(const Decoder& a) {
  AttentionParams p;
  const Exact d = a.d, h = a.heads;
  if (a.lora_kv > 0) {
    const Exact qk = Exact(a.nope + a.rope);
    Exact q = d * h * qk;  // q_proj
    if (a.lora_q > 0) {    // q_a_proj, q_a_layernorm, q_b_proj
      q = d * Exact(a.lora_q) + Exact(a.lora_q) * h * qk;
      p.norms += Exact(a.lora_q);
      if (a.qkv_bias) p.biases += Exact(a.lora_q);  // q_a_proj bias
    }
    const Exact kv_a = d * Exact(a.lora_kv + a.rope);                   // kv_a_proj_with_mqa
    const Exact kv_b = Exact(a.lora_kv) * h * Exact(a.nope + a.v_dim);  // kv_b_proj
    const Exact o = h * Exact(a.v_dim) * d;
    p.matrices = q + kv_a + kv_b + o;
    p.norms += Exact(a.lora_kv);  // kv_a_layernorm
    if (a.qkv_bias) p.biases += Exact(a.lora_kv + a.rope);
  } else {
    const Exact q_out = h * Exact(a.head_dim), kv_out = Exact(a.kv_heads) * Exact(a.head_dim);
    const Exact q_proj = q_out * Exact(a.q_out_mult);
    p.matrices = d * q_proj + d * kv_out * Exact(2) + q_out * d;
    if (a.qkv_bias) p.biases += q_proj + kv_out * Exact(2);
    p.norms += Exact(a.q_norm + a.k_norm);
  }
  if (a.o_bias) p.biases += d;
  if (a.sinks) p.matrices += h;  // GptOssAttention.sinks: one logit per head
  if (a.index_topk > 0) {
    // DeepseekV32Indexer: wq_b (q_lora_rank -> heads x dim), wk (d -> dim),
    // weights_proj (d -> heads), k_norm = LayerNorm(dim): weight and bias.
    const Exact ih = a.index_heads, id = a.index_dim;
    p.matrices += Exact(a.lora_q) * ih * id + d * id + d * ih;
    p.norms += layer_norm(id);
  }
  return p;
}

Exact ffn_matrices(const Decoder& a, int64_t ff) {
  return Exact(a.gated ? 3 : 2) * Exact(a.d) * Exact(ff);
}

Counts count(const Decoder& a) {
  Counts c;
  const LayerCounts lc = layer_counts(a);
  const Exact d = a.d, L = a.layers, V = a.vocab;
  c.embeddings = V * d;
  c.lm_head = a.tied ? Exact(0) : V * d;
  const AttentionParams at = attention_params(a);
  const Exact n_attn = lc.attention();
  c.attention = at.matrices * n_attn;
  c.biases += at.biases * n_attn;
  c.norms += at.norms * n_attn;
  c.norms += Exact(a.layer_norms) * d * L + d;  // per-layer norms + final norm
  c.recurrent = a.mixer.params * Exact(lc.recurrent);
  c.norms += a.mixer.norms * Exact(lc.recurrent);

  const Exact n_moe = lc.moe, n_dense = lc.dense;
  const Exact up_width = Exact(a.gated ? 2 : 1);  // gate and up, or up alone
  c.mlp_dense = ffn_matrices(a, a.ff) * n_dense;
  if (a.mlp_bias) c.biases += (up_width * Exact(a.ff) + d) * n_dense;
  Exact expert = ffn_matrices(a, a.ff_exp);
  if (a.expert_bias) expert += up_width * Exact(a.ff_exp) + d;
  c.mlp_routed = expert * Exact(a.n_expert) * n_moe;
  c.mlp_routed_active = expert * Exact(a.top_k) * n_moe;
  c.router = (d * Exact(a.n_expert) + (a.router_bias ? Exact(a.n_expert) : Exact(0))) * n_moe;
  Exact shared = ffn_matrices(a, a.ff_shexp) * Exact(a.n_shared);
  if (a.shared_gate) shared += d;
  c.mlp_shared = shared * n_moe;
  return c;
}

Exact mtp_params(const Decoder& a, int64_t n_mtp) {
  const Exact d = a.d;
  const AttentionParams at = attention_params(a);
  Exact moe = ffn_matrices(a, a.ff_exp) * Exact(a.n_expert) + d * Exact(a.n_expert) +
              ffn_matrices(a, a.ff_shexp) * Exact(a.n_shared);
  if (a.n_expert == 0) moe = ffn_matrices(a, a.ff);
  const Exact per_layer = at.matrices + at.biases + at.norms + moe + Exact(a.layer_norms) * d  // the decoder layer
                          + d + d + Exact(2) * d * d + d;  // enorm, hnorm, eh_proj, shared_head.norm
  return per_layer * Exact(n_mtp);
}

Result<ModelSpec> finish(Cfg& cfg, const Decoder& a) {
  MC_RETURN_IF_ERROR(check_per_layer(cfg, a));
  ModelSpec m;
  m.model_type = cfg.model_type();
  m.n_layer = a.layers;
  m.n_embd = a.d;
  m.n_head = a.heads;
  m.n_head_kv = a.kv_heads;
  m.n_embd_head = a.head_dim;
  m.n_ff = a.ff;
  m.ffn_gated = a.gated;
  m.n_vocab = a.vocab;
  m.tied_embeddings = a.tied;
  m.n_ctx_train = a.ctx;
  m.n_expert = a.n_expert;
  m.n_expert_used = a.top_k;
  m.n_ff_exp = a.ff_exp;
  m.n_expert_shared = a.n_shared;
  m.n_ff_shexp = a.ff_shexp;
  m.expert_gated = a.gated;
  m.expert_bias = a.expert_bias;
  m.router_score_bias = a.router_score_bias;
  m.attn_sinks = a.sinks;
  if (a.lora_kv > 0) {
    m.n_lora_q = a.lora_q;
    m.n_lora_kv = a.lora_kv;
    m.n_rot = a.rope;
    m.n_embd_head_k = a.nope + a.rope;
    m.n_embd_head_v = a.v_dim;
  }
  if (a.index_topk > 0) {
    m.n_index_head = a.index_heads;
    m.n_embd_head_index = a.index_dim;
    m.n_index_topk = a.index_topk;
  }
  m.layer_kinds = a.kinds;
  if (a.kinds.empty()) {
    m.n_layer_dense_lead = a.n_expert > 0 ? a.dense_lead : 0;
    if (a.swa > 0) m.set_swa_pattern(a.swa_pattern);
  } else if (a.n_expert > 0) {
    int64_t lead = 0;  // the leading dense layers, for reports
    while (lead < a.layers && a.kinds[static_cast<size_t>(lead)].ffn != Ffn::kMoe) ++lead;
    m.n_layer_dense_lead = lead;
  }
  m.n_swa = m.n_swa_layers() > 0 ? a.swa : 0;
  m.n_chunk = m.count_layers().chunked > 0 ? a.chunk : 0;
  if (a.mixer.kind != Recurrent::kNone && m.count_layers().recurrent > 0) {
    m.recurrent = a.mixer.kind;
    m.n_ssm_state = a.mixer.state;
    m.n_ssm_inner = a.mixer.inner;
    m.n_ssm_head = a.mixer.heads;
    m.n_ssm_conv = a.mixer.conv;
    m.n_ssm_conv_dim = a.mixer.conv_dim;
  }
  m.params_vision = a.vision;
  m.params_mtp = a.mtp;
  m.assumptions = a.assumptions;
  MC_ASSIGN_OR_RETURN(auto exact, count(a).finish(cfg.model_type()));
  m.exact = exact;
  return m;
}

Status read_core(Cfg& c, Decoder& a, std::optional<int64_t> kv_default, std::optional<int64_t> head_dim_default,
                 bool tie_default) {
  MC_ASSIGN_OR_RETURN(a.d, c.req("hidden_size"));
  MC_ASSIGN_OR_RETURN(a.layers, c.req("num_hidden_layers"));
  MC_ASSIGN_OR_RETURN(a.heads, c.req("num_attention_heads"));
  MC_ASSIGN_OR_RETURN(a.vocab, c.req("vocab_size"));
  MC_ASSIGN_OR_RETURN(a.ff, c.req("intermediate_size"));
  MC_RETURN_IF_ERROR(read_heads(c, a, kv_default, head_dim_default));
  MC_ASSIGN_OR_RETURN(auto ctx, c.opt("max_position_embeddings", std::nullopt));
  a.ctx = ctx.value_or(0);
  MC_ASSIGN_OR_RETURN(a.tied, c.flag("tie_word_embeddings", tie_default));
  return Status::Ok();
}

Status read_core_defaults(Cfg& c, Decoder& a, const CoreDefaults& d) {
  MC_ASSIGN_OR_RETURN(a.vocab, req_or_default(c, "vocab_size", d.vocab));
  MC_ASSIGN_OR_RETURN(a.d, req_or_default(c, "hidden_size", d.hidden));
  MC_ASSIGN_OR_RETURN(a.ff, req_or_default(c, "intermediate_size", d.intermediate));
  if (d.layers > 0) {
    MC_ASSIGN_OR_RETURN(a.layers, req_or_default(c, "num_hidden_layers", d.layers));
  }
  MC_ASSIGN_OR_RETURN(a.heads, req_or_default(c, "num_attention_heads", d.heads));
  MC_ASSIGN_OR_RETURN(a.ctx, req_or_default(c, "max_position_embeddings", d.ctx));
  MC_ASSIGN_OR_RETURN(a.tied, c.flag("tie_word_embeddings", d.tied));
  return Status::Ok();
}

Status read_heads(Cfg& c, Decoder& a, std::optional<int64_t> kv_default, std::optional<int64_t> head_dim_default) {
  MC_ASSIGN_OR_RETURN(auto kv, c.opt("num_key_value_heads", kv_default));
  a.kv_heads = kv.value_or(a.heads);
  MC_ASSIGN_OR_RETURN(auto hd, c.opt("head_dim", head_dim_default));
  if (!hd && a.d % a.heads != 0) {
    return c.error("num_attention_heads",
                   "must divide hidden_size (" + std::to_string(a.d) + ") when head_dim is not set");
  }
  a.head_dim = hd.value_or(a.d / a.heads);
  return check_kv_heads(c, a);
}

Status check_kv_heads(Cfg& c, const Decoder& a) {
  if (a.kv_heads > a.heads || a.heads % a.kv_heads != 0) {
    return c.error("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(a.heads) +
                                              "), got " + std::to_string(a.kv_heads));
  }
  return Status::Ok();
}

Result<int64_t> req_or_default(Cfg& c, std::string_view key, int64_t dflt, int64_t min_value) {
  MC_ASSIGN_OR_RETURN(auto v, c.opt(key, dflt, min_value));
  if (!v) return c.error(key, "must be an integer, got null");
  return *v;
}

Result<std::optional<int64_t>> int_or_auto(Cfg& c, std::string_view key) {
  const auto& j = c.object();
  const auto it = j.find(key);
  if (it != j.end() && it->is_string()) {
    if (it->get<std::string>() == "auto") return std::optional<int64_t>();
    return c.error(key, "must be an integer or \"auto\", got \"" + it->get<std::string>() + "\"");
  }
  return c.opt(key, std::nullopt);
}

// transformers builds an MoE block on every layer il >= first_k_dense_replace
// (moe_layer_freq is not read by modeling_deepseek_v2/v3.py, so a value other
// than 1 is refused: DeepSeek's own code would build a different model).
Status read_deepseek(Cfg& c, Decoder& a, int64_t shared_default, int64_t dense_default) {
  MC_RETURN_IF_ERROR(read_core(c, a, std::nullopt, std::nullopt, false));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  // q_lora_rank: configuration_deepseek_v2/v3.py default to 1536, but
  // DeepSeek-V2-Lite's checkpoint has a plain q_proj and copies of its
  // config.json omit the key (the official file says null). Absent is read
  // as null, matching the checkpoint; see docs/models-and-hardware.md.
  MC_ASSIGN_OR_RETURN(auto q_lora, c.opt("q_lora_rank", std::nullopt));
  a.lora_q = q_lora.value_or(0);
  MC_ASSIGN_OR_RETURN(a.lora_kv, c.req("kv_lora_rank"));
  MC_ASSIGN_OR_RETURN(a.rope, c.req("qk_rope_head_dim"));
  MC_ASSIGN_OR_RETURN(a.nope, c.req("qk_nope_head_dim"));
  MC_ASSIGN_OR_RETURN(a.v_dim, c.req("v_head_dim"));
  a.head_dim = a.nope + a.rope;
  MC_ASSIGN_OR_RETURN(a.n_expert, c.req("n_routed_experts"));
  MC_ASSIGN_OR_RETURN(a.top_k, c.req("num_experts_per_tok"));
  MC_ASSIGN_OR_RETURN(a.ff_exp, c.req("moe_intermediate_size"));
  MC_ASSIGN_OR_RETURN(auto shared, c.opt("n_shared_experts", shared_default));
  a.n_shared = shared.value_or(0);
  a.ff_shexp = a.n_shared > 0 ? a.ff_exp : 0;
  MC_ASSIGN_OR_RETURN(a.dense_lead, req_or_default(c, "first_k_dense_replace", dense_default));
  if (a.dense_lead > a.layers) {
    return c.error("first_k_dense_replace", "exceeds num_hidden_layers");
  }
  MC_ASSIGN_OR_RETURN(auto freq, c.opt("moe_layer_freq", 1));
  if (freq && *freq != 1) {
    return c.error("moe_layer_freq", "only 1 is supported, got " + std::to_string(*freq));
  }
  if (a.top_k > a.n_expert) return c.error("num_experts_per_tok", "exceeds n_routed_experts");
  return Status::Ok();
}

Status check_per_layer(Cfg& c, const Decoder& a) {
  const bool per_layer = !a.kinds.empty() || a.swa > 0;
  if (per_layer && a.layers > kMaxPerLayerLayers) {
    return c.error("num_hidden_layers", "at most " + std::to_string(kMaxPerLayerLayers) +
                                            " layers where layers differ (one entry per layer), got " +
                                            std::to_string(a.layers));
  }
  return Status::Ok();
}

Status read_layer_types(Cfg& c, std::string_view key, const std::vector<std::string_view>& names,
                        const std::vector<Attn>& attn, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto types, c.str_list(key));
  if (static_cast<int64_t>(types.size()) != a.layers) {
    return c.error(key, "lists " + std::to_string(types.size()) + " layers; num_hidden_layers is " +
                            std::to_string(a.layers));
  }
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  for (size_t i = 0; i < types.size(); ++i) {
    const auto it = std::find(names.begin(), names.end(), types[i]);
    if (it == names.end()) {
      std::string allowed;
      for (std::string_view n : names) allowed += (allowed.empty() ? "" : ", ") + std::string(n);
      return c.error(key, "entry " + std::to_string(i) + " is '" + types[i] + "'; allowed: " + allowed);
    }
    a.kinds[i].attn = attn[static_cast<size_t>(it - names.begin())];
  }
  return Status::Ok();
}

}  // namespace modelcalc::hf
