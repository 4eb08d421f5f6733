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

Exact norm_params(Norm kind, Exact n) {
  switch (kind) {
    case Norm::kRms: return n;
    case Norm::kLayer: return layer_norm(n);
    case Norm::kLayerNoBias: return n;
    case Norm::kNone: return Exact(0);
  }
  return n;
}

namespace {

// MLA (modeling_deepseek_v3.py DeepseekV3Attention): q_proj, or q_a_proj +
// q_a_layernorm + q_b_proj; kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj; o_proj.
void mla_params(const Decoder& a, AttentionParams& p) {
  const Exact d = a.d, h = a.heads, qk = Exact(a.nope + a.rope);
  Exact q = d * h * qk;
  if (a.lora_q > 0) {
    q = d * Exact(a.lora_q) + Exact(a.lora_q) * h * qk;
    p.norms += Exact(a.lora_q);
    if (a.qkv_bias) p.biases += Exact(a.lora_q);  // q_a_proj bias
  }
  const Exact kv_a = d * Exact(a.lora_kv + a.rope);
  const Exact kv_b = Exact(a.lora_kv) * h * Exact(a.nope + a.v_dim);
  p.matrices = q + kv_a + kv_b + h * Exact(a.v_dim) * d;
  p.norms += Exact(a.lora_kv);  // kv_a_layernorm
  if (a.qkv_bias) p.biases += Exact(a.lora_kv + a.rope);
}

}  // namespace

namespace {

// GQA (and MHA, MQA): q_proj (or q_a_proj, q_a_norm, q_b_proj with a q LoRA), k_proj, v_proj (none
// when the keys are the values), o_proj (or the grouped o_a_proj and o_b_proj), q/k norms, a
// per-head gate, for one layer of shape `sh`.
void gqa_params(const Decoder& a, const AttnShape& sh, AttentionParams& p) {
  const Exact d = a.d;
  const int64_t heads = sh.heads > 0 ? sh.heads : a.heads, kv = sh.kv_heads > 0 ? sh.kv_heads : a.kv_heads;
  const int64_t hd = sh.head_dim > 0 ? sh.head_dim : a.head_dim;
  const int64_t dv = sh.v_head_dim > 0 ? sh.v_head_dim : sh.head_dim > 0 ? sh.head_dim : a.v_head_dim > 0 ? a.v_head_dim : a.head_dim;
  const bool v_from_k = a.v_from_k || sh.v_from_k;
  const Exact h = heads, q_out = h * Exact(hd), k_out = Exact(kv) * Exact(hd),
              v_out = v_from_k ? Exact(0) : Exact(kv) * Exact(dv), o_in = h * Exact(dv);
  const Exact q_proj = q_out * Exact(a.q_out_mult);
  if (a.lora_q > 0) {  // q_a_proj d x q_lora, q_a_norm, q_b_proj q_lora x h hd
    p.matrices += d * Exact(a.lora_q) + Exact(a.lora_q) * q_proj;
    p.norms += Exact(a.lora_q);
  } else {
    p.matrices += d * q_proj;
  }
  p.matrices += d * k_out + d * v_out;
  if (a.o_groups > 0) {  // o_a_proj: g blocks of (h dv / g) -> o_lora; o_b_proj g o_lora -> d
    p.matrices += o_in * Exact(a.o_lora) + Exact(a.o_groups) * Exact(a.o_lora) * d;
  } else {
    p.matrices += o_in * d;
  }
  if (a.qkv_bias) p.biases += q_proj + k_out + v_out;
  // q_norm / k_norm over head_dim (or the whole widths), at this layer's head_dim.
  const int64_t qn = a.q_norm == a.head_dim ? hd : a.q_norm, kn = a.k_norm == a.head_dim ? hd : a.k_norm;
  p.norms += norm_params(a.qk_norm_kind, Exact(qn)) + norm_params(a.qk_norm_kind, Exact(kn));
  if (a.head_gate) p.matrices += d * h;
  if (sh.sinks ? *sh.sinks : a.sinks) p.matrices += h;  // one sink logit per head
}

}  // namespace

AttentionParams attention_params(const Decoder& a, Attn kind) {
  AttentionParams p;
  const Exact d = a.d, h = a.heads;
  if (a.lora_kv > 0) {
    mla_params(a, p);
    if (a.sinks) p.matrices += h;
  } else {
    gqa_params(a, kind == Attn::kSliding ? a.swa_shape : kind == Attn::kFull ? a.full_shape : AttnShape{}, p);
  }
  if (a.o_bias) p.biases += d;
  if (a.index_topk > 0 && a.lora_kv > 0) {
    // DeepseekV32Indexer: wq_b (q_lora_rank -> heads x dim), wk (d -> dim),
    // weights_proj (d -> heads), k_norm = LayerNorm(dim): weight and bias.
    const Exact ih = a.index_heads, id = a.index_dim;
    p.matrices += Exact(a.lora_q) * ih * id + d * id + d * ih;
    p.norms += layer_norm(id);
  }
  return p;
}

Exact ffn_matrices(const Decoder& a, int64_t ff, int64_t width) {
  return Exact(a.gated ? 3 : 2) * Exact(width > 0 ? width : a.d) * Exact(ff);
}

Exact expert_bias_params(const Decoder& a) {
  if (!a.expert_bias) return Exact(0);
  return Exact(a.gated ? 2 : 1) * Exact(a.ff_exp) + (a.moe_latent > 0 ? Exact(a.moe_latent) : Exact(a.d));
}

namespace {

// Embeddings, positions, lm_head and the model-level norms.
void count_ends(const Decoder& a, Counts& c) {
  const Exact d = a.d, V = a.vocab;
  const Exact width = a.embed_proj > 0 ? Exact(a.embed_proj) : d;
  c.embeddings = V * width;
  if (a.embed_proj > 0) c.embeddings += Exact(2) * width * d;  // project_in, project_out
  c.position = Exact(a.position_rows) * d;
  c.lm_head = a.tied ? Exact(0) : V * width;
  if (a.lm_head_bias) c.lm_head += V;
  if (a.final_norm) c.norms += norm_params(a.norm, d);
  if (a.embed_norm) c.norms += norm_params(a.norm, d);
}

}  // namespace

namespace {

// DeepSeek-V4's compressors (see Compressor) and manifold-constrained hyper-connections: per layer an
// attn_hc and an ffn_hc (fn (2 + n) n x n d, base (2 + n) n, scale 3), and the model's hc_head
// (hc_fn n x n d, hc_base n, hc_scale 1).
void count_v4_parts(const Decoder& a, Counts& c) {
  const Exact d = a.d, hd = a.head_dim, ih = a.index_heads, id = a.index_dim;
  for (const Compressor& k : a.compressors) {
    const Exact w = k.indexer ? 2 : 1;
    Exact one = Exact(2) * d * w * hd + Exact(k.ratio) * w * hd;  // kv_proj, gate_proj, position_bias
    c.norms += hd * Exact(k.layers);                                // kv_norm
    if (k.indexer) {
      one += Exact(2) * d * Exact(2) * id + Exact(k.ratio) * Exact(2) * id + Exact(a.lora_q) * ih * id + d * ih;
      c.norms += id * Exact(k.layers);
    }
    c.attention += one * Exact(k.layers);
  }
  if (a.hc_mult > 0) {
    const Exact n = a.hc_mult, mix = (Exact(2) + n) * n;
    c.norms += Exact(2) * (mix * n * d + mix + Exact(3)) * Exact(a.layers) + n * n * d + n + Exact(1);
  }
}

}  // namespace

namespace {

// Gemma 3n (kQuirkGemma3n). The model: embed_tokens_per_layer (ple_vocab x L x p) with the embeddings;
// per_layer_model_projection (d x L p), altup_projections and altup_unembed_projections ((A - 1) d x d
// each) with the dense MLP weights (read every step); per_layer_projection_norm (p). A layer: AltUp
// (correction_coefs A x A, prediction_coefs A x A^2, modality_router d x A; correct_output_scale and
// router_norm, d each), Laurel (linear_left d x r, linear_right r x d; post_laurel_norm d), the per-layer
// input (per_layer_input_gate d x p, per_layer_projection p x d; post_per_layer_input_norm d). A shared
// layer has no k_proj, v_proj or k_norm (v_norm has no weight anywhere).
void count_gemma3n_parts(const Decoder& a, Counts& c) {
  if (a.altup == 0 && a.ple_dim == 0 && a.laurel == 0 && a.kv_shared == 0) return;
  const Exact d = a.d, L = a.layers, p = a.ple_dim, A = a.altup, r = a.laurel;
  c.embeddings += Exact(a.ple_vocab) * L * p;
  c.mlp_dense += d * L * p + Exact(2) * (A - Exact(1)) * d * d;
  c.norms += p;
  c.mlp_dense += L * (A * A + A * A * A + d * A + Exact(2) * d * r + Exact(2) * d * p);
  c.norms += L * (Exact(2) * d + d + d);
  const Exact S = a.kv_shared, kv_out = Exact(a.kv_heads) * Exact(a.head_dim);
  c.attention = c.attention - S * Exact(2) * d * kv_out;
  if (a.qkv_bias) c.biases = c.biases - S * Exact(2) * kv_out;
  if (a.k_norm > 0) c.norms = c.norms - S * norm_params(a.qk_norm_kind, Exact(a.k_norm));
}

}  // namespace

Counts count(const Decoder& a) {
  Counts c;
  const LayerCounts lc = layer_counts(a);
  const Exact d = a.d, L = a.layers;
  count_ends(a, c);
  for (const auto& [kind, n] : {std::pair{Attn::kFull, lc.full}, std::pair{Attn::kSliding, lc.sliding},
                                std::pair{Attn::kChunked, lc.chunked}}) {
    if (n == 0) continue;
    const AttentionParams at = attention_params(a, kind);
    c.attention += at.matrices * Exact(n);
    c.biases += at.biases * Exact(n);
    c.norms += at.norms * Exact(n);
  }
  const Exact layer_norms = a.layer_norms_total >= 0 ? Exact(a.layer_norms_total) : Exact(a.layer_norms) * L;
  c.norms += layer_norms * norm_params(a.norm, d);
  c.recurrent = a.mixer.params * Exact(lc.recurrent);
  c.norms += a.mixer.norms * Exact(lc.recurrent);
  count_v4_parts(a, c);

  const Exact n_moe = lc.moe, n_dense = lc.dense;
  const Exact up_width = Exact(a.gated ? 2 : 1);  // gate and up, or up alone
  Exact dense_widths = Exact(a.ff) * n_dense;  // the dense MLPs' widths summed over their layers
  if (!a.ff_widths.empty()) {
    dense_widths = Exact(0);
    for (size_t il = 0; il < a.kinds.size(); ++il) {
      if (a.kinds[il].ffn == Ffn::kDense) dense_widths += Exact(a.ff_widths[il]);
    }
  }
  c.mlp_dense = Exact(a.gated ? 3 : 2) * d * dense_widths;
  if (a.mlp_bias) c.biases += up_width * dense_widths + d * n_dense;
  Exact expert = ffn_matrices(a, a.ff_exp, a.moe_latent);
  expert += expert_bias_params(a);
  c.mlp_routed = expert * Exact(a.n_expert) * n_moe;
  c.mlp_routed_active = expert * Exact(a.top_k) * n_moe;
  Exact router = d * Exact(a.n_expert) + (a.router_bias ? Exact(a.n_expert) : Exact(0));
  if (a.router_scales) router += d + Exact(a.n_expert);
  c.router = router * n_moe;
  c.norms += Exact(a.moe_norms) * d * n_moe;
  Exact shared = ffn_matrices(a, a.ff_shexp) * Exact(a.n_shared);
  if (a.shared_gate) shared += d;
  if (a.moe_latent > 0) {  // fc1_latent_proj (d -> latent) and fc2_latent_proj (latent -> d), biased by mlp_bias
    const Exact lat = a.moe_latent;
    shared += Exact(2) * d * lat;
    if (a.mlp_bias) c.biases += (lat + d) * n_moe;
  }
  c.mlp_shared = shared * n_moe;
  count_gemma3n_parts(a, c);
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

namespace {

void set_shape(const Decoder& a, ModelSpec& m) {
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
  m.n_expert_bias = expert_bias_params(a).value();
  m.router_score_bias = a.router_score_bias;
  m.attn_sinks = a.sinks;
  if (a.lora_kv > 0) {
    m.n_lora_q = a.lora_q;
    m.n_lora_kv = a.lora_kv;
    m.n_rot = a.rope;
    m.n_embd_head_k = a.nope + a.rope;
    m.n_embd_head_v = a.v_dim;
  } else if (a.v_head_dim > 0 && a.v_head_dim != a.head_dim) {
    m.n_embd_head_k = a.head_dim;
    m.n_embd_head_v = a.v_head_dim;
  }
  if (a.index_topk > 0) {
    m.n_index_head = a.index_heads;
    m.n_embd_head_index = a.index_dim;
    m.n_index_topk = a.index_topk;
  }
}

void set_layers(const Decoder& a, ModelSpec& m) {
  m.layer_kinds = a.kinds;
  if (a.kinds.empty()) {
    m.n_layer_dense_lead = a.n_expert > 0 ? a.dense_lead : 0;
  } else if (a.n_expert > 0) {
    int64_t lead = 0;  // the leading dense layers, for reports
    while (lead < a.layers && a.kinds[static_cast<size_t>(lead)].ffn != Ffn::kMoe) ++lead;
    m.n_layer_dense_lead = lead;
  }
  const LayerCounts lc = m.count_layers();
  m.n_swa = lc.sliding > 0 ? a.swa : 0;
  m.n_chunk = lc.chunked > 0 ? a.chunk : 0;
  if (a.mixer.kind != Recurrent::kNone && lc.recurrent > 0) {
    m.recurrent = a.mixer.kind;
    m.n_ssm_state = a.mixer.state;
    m.n_ssm_inner = a.mixer.inner;
    m.n_ssm_head = a.mixer.heads;
    m.n_ssm_conv = a.mixer.conv;
    m.n_ssm_conv_dim = a.mixer.conv_dim;
  }
}

}  // namespace

Result<ModelSpec> finish(Cfg& cfg, const Decoder& in) {
  Decoder a = in;
  if (a.n_expert > 0 && layer_counts(a).moe == 0) {  // experts configured, no layer builds them
    a.n_expert = a.top_k = a.ff_exp = a.n_shared = a.ff_shexp = 0;
    a.shared_gate = a.expert_bias = a.router_bias = a.router_score_bias = false;
  }
  ModelSpec m;
  m.model_type = cfg.model_type();
  set_shape(a, m);
  set_layers(a, m);
  if (a.kv_shared > 0 && static_cast<int64_t>(m.layer_kinds.size()) == a.layers) {
    // Gemma 3n: the last layers read an earlier layer's KV and keep none (read_gemma3n made the kinds).
    for (int64_t il = a.layers - a.kv_shared; il < a.layers; ++il) m.layer_kinds[static_cast<size_t>(il)].kv_shared = true;
  }
  m.params_vision = a.vision;
  m.params_mtp = a.mtp;
  m.assumptions = a.assumptions;
  MC_ASSIGN_OR_RETURN(auto exact, count(a).finish(cfg.model_type()));
  m.exact = exact;
  return m;
}

// --- typed key readers ---------------------------------------------------------

Result<std::optional<int64_t>> get_int(const Cfg& c, const FamilyRow& row, std::string_view key, int64_t min_value) {
  if (c.has(key)) return c.opt(key, std::nullopt, min_value);
  const std::optional<int64_t> d = row_value(row.defaults, key);
  if (!d || *d == kClassNone) return std::optional<int64_t>();
  return d;
}

Result<int64_t> need_int(const Cfg& c, const FamilyRow& row, std::string_view key, int64_t min_value) {
  MC_ASSIGN_OR_RETURN(auto v, get_int(c, row, key, min_value));
  if (v) return *v;
  if (c.has(key)) return c.error(c.spelled(key), "is null; model_type '" + c.model_type() + "' needs an integer");
  return c.error(key, "missing; model_type '" + c.model_type() + "' needs it");
}

Result<bool> get_bool(const Cfg& c, const FamilyRow& row, std::string_view key, bool fallback) {
  const std::optional<int64_t> d = row_value(row.defaults, key);
  const bool dflt = d ? *d != 0 : fallback;
  return c.flag(key, dflt);
}

Result<std::optional<int64_t>> first_int(const Cfg& c, const FamilyRow& row, std::span<const std::string_view> keys,
                                         int64_t min_value) {
  std::optional<int64_t> found;
  std::string found_key;
  bool stated = false;
  for (std::string_view k : keys) {
    if (!c.has(k)) continue;
    MC_ASSIGN_OR_RETURN(auto v, c.opt(k, std::nullopt, min_value));
    if (stated && v != found) {
      return c.error(c.spelled(k), "disagrees with " + found_key + "; give one value");
    }
    stated = true;
    found = v;
    found_key = c.prefix() + c.spelled(k);
  }
  if (stated) return found;
  for (std::string_view k : keys) {
    const std::optional<int64_t> d = row_value(row.defaults, k);
    if (d) return *d == kClassNone ? std::optional<int64_t>() : d;
  }
  return std::optional<int64_t>();
}

Result<std::optional<int64_t>> int_or_auto(const Cfg& c, std::string_view key) {
  const nlohmann::json* v = c.raw(key);
  if (v != nullptr && v->is_string()) {
    if (v->get<std::string>() == "auto") return std::optional<int64_t>();
    return c.error(c.spelled(key), "must be an integer or \"auto\", got \"" + v->get<std::string>() + "\"");
  }
  return c.opt(key, std::nullopt);
}

}  // namespace modelcalc::hf
