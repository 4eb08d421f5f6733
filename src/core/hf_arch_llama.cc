// RMSNorm decoders after Llama: llama, mistral, mixtral, qwen2, qwen2_moe,
// qwen3, qwen3_moe, gemma, gemma2, phi3, olmo2, deepseek_v2, deepseek_v3.
// One table-like description (Decoder) covers them all; each builder reads
// its config keys with the defaults of transformers' configuration_<type>.py
// and fills the description. Counts follow modeling_<type>.py: every
// nn.Parameter once, buffers (rotary inv_freq, DeepSeek-V3's
// e_score_correction_bias) excluded.
#include <string>

#include "hf_reader.h"

namespace modelcalc::hf {
namespace {

// The shape of one RMSNorm decoder, as the modeling code builds it.
struct Decoder {
  int64_t d = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0, ff = 0;
  int64_t ctx = 0;  // max_position_embeddings, 0 = not stated
  bool tied = false;
  bool qkv_bias = false;  // bias on q, k, v projections
  bool o_bias = false;    // bias on the output projection
  bool mlp_bias = false;  // bias on gate, up, down of dense MLPs
  int64_t q_norm = 0, k_norm = 0;  // RMSNorm widths on q and k per layer (0: none)
  int64_t layer_norms = 2;         // d-wide RMSNorms per layer (gemma2: 4)
  // MoE: layers >= dense_lead are MoE when n_expert > 0.
  int64_t n_expert = 0, top_k = 0, ff_exp = 0, dense_lead = 0;
  int64_t n_shared = 0, ff_shexp = 0;  // shared experts and the width of ONE
  bool shared_gate = false;            // qwen2_moe: Linear(d, 1) gating the shared expert
  // MLA (DeepSeek): n_lora_kv > 0 selects it.
  int64_t lora_q = 0, lora_kv = 0, rope = 0, nope = 0, v_dim = 0;
  // Sliding window: every layer (pattern 1) or alternating (pattern 2).
  int64_t swa = 0, swa_pattern = 0;
};

// Attention matrices and biases of one layer; norms go to c.norms.
void count_attention(const Decoder& a, Exact per_layer_scale, Counts& c) {
  const Exact d = a.d, h = a.heads, L = per_layer_scale;
  if (a.lora_kv > 0) {
    const Exact qk = Exact(a.nope + a.rope);
    Exact q = d * h * qk;  // q_proj
    if (a.lora_q > 0) {    // q_a_proj, q_a_layernorm, q_b_proj
      q = d * Exact(a.lora_q) + Exact(a.lora_q) * h * qk;
      c.norms += Exact(a.lora_q) * L;
      if (a.qkv_bias) c.biases += Exact(a.lora_q) * L;  // q_a_proj bias
    }
    const Exact kv_a = d * Exact(a.lora_kv + a.rope);             // kv_a_proj_with_mqa
    const Exact kv_b = Exact(a.lora_kv) * h * Exact(a.nope + a.v_dim);  // kv_b_proj
    const Exact o = h * Exact(a.v_dim) * d;
    c.attention += (q + kv_a + kv_b + o) * L;
    c.norms += Exact(a.lora_kv) * L;  // kv_a_layernorm
    if (a.qkv_bias) c.biases += Exact(a.lora_kv + a.rope) * L;
    if (a.o_bias) c.biases += d * L;
    return;
  }
  const Exact q_out = h * Exact(a.head_dim), kv_out = Exact(a.kv_heads) * Exact(a.head_dim);
  c.attention += (d * q_out + d * kv_out * Exact(2) + q_out * d) * L;
  if (a.qkv_bias) c.biases += (q_out + kv_out * Exact(2)) * L;
  if (a.o_bias) c.biases += d * L;
  c.norms += Exact(a.q_norm + a.k_norm) * L;
}

// Counts every parameter of the decoder.
Counts count(const Decoder& a) {
  Counts c;
  const Exact d = a.d, L = a.layers, V = a.vocab;
  c.embeddings = V * d;
  c.lm_head = a.tied ? Exact(0) : V * d;
  count_attention(a, L, c);
  c.norms += Exact(a.layer_norms) * d * L + d;  // per-layer norms + final norm

  const Exact n_moe = a.n_expert > 0 ? L - Exact(a.dense_lead) : Exact(0);
  const Exact n_dense = L - n_moe;
  c.mlp_dense = Exact(3) * d * Exact(a.ff) * n_dense;
  if (a.mlp_bias) c.biases += (Exact(2) * Exact(a.ff) + d) * n_dense;
  const Exact expert = Exact(3) * d * Exact(a.ff_exp);
  c.mlp_routed = expert * Exact(a.n_expert) * n_moe;
  c.mlp_routed_active = expert * Exact(a.top_k) * n_moe;
  c.router = d * Exact(a.n_expert) * n_moe;
  Exact shared = Exact(3) * d * Exact(a.ff_shexp) * Exact(a.n_shared);
  if (a.shared_gate) shared += d;
  c.mlp_shared = shared * n_moe;
  return c;
}

Result<ModelSpec> finish(Cfg& cfg, const Decoder& a) {
  ModelSpec m;
  m.model_type = cfg.model_type();
  m.n_layer = a.layers;
  m.n_embd = a.d;
  m.n_head = a.heads;
  m.n_head_kv = a.kv_heads;
  m.n_embd_head = a.head_dim;
  m.n_ff = a.ff;
  m.ffn_gated = true;
  m.n_vocab = a.vocab;
  m.tied_embeddings = a.tied;
  m.n_ctx_train = a.ctx;
  m.n_expert = a.n_expert;
  m.n_expert_used = a.top_k;
  m.n_ff_exp = a.ff_exp;
  m.n_expert_shared = a.n_shared;
  m.n_ff_shexp = a.ff_shexp;
  m.n_layer_dense_lead = a.n_expert > 0 ? a.dense_lead : 0;
  if (a.lora_kv > 0) {
    m.n_lora_q = a.lora_q;
    m.n_lora_kv = a.lora_kv;
    m.n_rot = a.rope;
    m.n_embd_head_k = a.nope + a.rope;
    m.n_embd_head_v = a.v_dim;
  }
  m.n_swa = a.swa;
  m.n_swa_pattern = a.swa > 0 ? a.swa_pattern : 0;
  MC_ASSIGN_OR_RETURN(auto exact, count(a).finish(cfg.model_type()));
  m.exact = exact;
  return m;
}

// The keys every decoder has. `kv_default`/`head_dim_default` are the
// configuration class's defaults for an absent key (nullopt = None, which
// means num_attention_heads and hidden_size / num_attention_heads).
Status read_core(Cfg& c, Decoder& a, std::optional<int64_t> kv_default,
                 std::optional<int64_t> head_dim_default, bool tie_default) {
  MC_ASSIGN_OR_RETURN(a.d, c.req("hidden_size"));
  MC_ASSIGN_OR_RETURN(a.layers, c.req("num_hidden_layers"));
  MC_ASSIGN_OR_RETURN(a.heads, c.req("num_attention_heads"));
  MC_ASSIGN_OR_RETURN(a.vocab, c.req("vocab_size"));
  MC_ASSIGN_OR_RETURN(a.ff, c.req("intermediate_size"));
  MC_ASSIGN_OR_RETURN(auto kv, c.opt("num_key_value_heads", kv_default));
  a.kv_heads = kv.value_or(a.heads);
  MC_ASSIGN_OR_RETURN(auto hd, c.opt("head_dim", head_dim_default));
  if (!hd && a.d % a.heads != 0) {
    return c.error("num_attention_heads",
                   "must divide hidden_size (" + std::to_string(a.d) + ") when head_dim is not set");
  }
  a.head_dim = hd.value_or(a.d / a.heads);
  MC_ASSIGN_OR_RETURN(auto ctx, c.opt("max_position_embeddings", std::nullopt));
  a.ctx = ctx.value_or(0);
  MC_ASSIGN_OR_RETURN(a.tied, c.flag("tie_word_embeddings", tie_default));
  if (a.kv_heads > a.heads || a.heads % a.kv_heads != 0) {
    return c.error("num_key_value_heads", "must divide num_attention_heads (" +
                                              std::to_string(a.heads) + "), got " +
                                              std::to_string(a.kv_heads));
  }
  return Status::Ok();
}

// Mistral-style window on every layer: `sliding_window` (null = none).
Status read_uniform_window(Cfg& c, Decoder& a, std::optional<int64_t> absent) {
  MC_ASSIGN_OR_RETURN(auto w, c.opt("sliding_window", absent));
  if (w) {
    a.swa = *w;
    a.swa_pattern = 1;
  }
  return Status::Ok();
}

// Qwen2/Qwen3: with use_sliding_window, layers il >= max_window_layers slide
// (configuration_qwen2.py layer_types). ModelSpec represents "all" or "none".
Status read_qwen_window(Cfg& c, Decoder& a) {
  MC_ASSIGN_OR_RETURN(bool use, c.flag("use_sliding_window", false));
  if (!use) return Status::Ok();
  MC_ASSIGN_OR_RETURN(auto w, c.opt("sliding_window", 4096));
  if (!w) return Status::Ok();
  MC_ASSIGN_OR_RETURN(int64_t first, c.req("max_window_layers", 0));
  if (first >= a.layers) return Status::Ok();
  if (first > 0) {
    return c.error("max_window_layers",
                   "use_sliding_window with sliding layers " + std::to_string(first) + ".." +
                       std::to_string(a.layers - 1) +
                       " only is not supported (modelcalc represents a window on all layers or "
                       "alternating layers)");
  }
  a.swa = *w;
  a.swa_pattern = 1;
  return Status::Ok();
}

// Qwen2-MoE/Qwen3-MoE: which layers slide under use_sliding_window differs
// from Qwen2's rule and between transformers releases (configuration_qwen2_moe.py
// now slides even layers below max_window_layers; Qwen3MoeConfig slides every
// layer), so a window is refused rather than guessed. Released checkpoints
// set use_sliding_window false. Parameter counts do not depend on it.
Status refuse_qwen_moe_window(Cfg& c) {
  MC_ASSIGN_OR_RETURN(bool use, c.flag("use_sliding_window", false));
  if (use) {
    return c.error("use_sliding_window",
                   "true is not supported for " + c.model_type() +
                       " (which layers slide depends on the transformers release)");
  }
  return Status::Ok();
}

// Qwen MoE layout: layer il is sparse iff il not in mlp_only_layers and
// (il + 1) % decoder_sparse_step == 0. Supported when that means "the first
// k layers dense, the rest MoE".
Status read_qwen_moe_layout(Cfg& c, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto step, c.opt("decoder_sparse_step", 1));
  if (!step || *step != 1) {
    return c.error("decoder_sparse_step", "only 1 (every layer after mlp_only_layers is MoE) "
                                          "is supported");
  }
  MC_ASSIGN_OR_RETURN(auto dense, c.int_list("mlp_only_layers"));
  for (size_t i = 0; i < dense.size(); ++i) {
    if (dense[i] != static_cast<int64_t>(i)) {
      return c.error("mlp_only_layers",
                     "only a leading run 0, 1, ..., k-1 of dense layers is supported");
    }
  }
  a.dense_lead = static_cast<int64_t>(dense.size());
  if (a.dense_lead > a.layers) return c.error("mlp_only_layers", "lists more layers than exist");
  return Status::Ok();
}

Result<int64_t> req_or_default(Cfg& c, std::string_view key, int64_t dflt) {
  MC_ASSIGN_OR_RETURN(auto v, c.opt(key, dflt));
  if (!v) return c.error(key, "must be an integer, got null");
  return *v;
}

}  // namespace

// configuration_llama.py: num_key_value_heads None -> heads, head_dim None ->
// hidden/heads, attention_bias/mlp_bias False, tie_word_embeddings False.
Result<ModelSpec> build_llama(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, std::nullopt, std::nullopt, false));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  MC_ASSIGN_OR_RETURN(a.mlp_bias, c.flag("mlp_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  return finish(c, a);
}

// configuration_mistral.py: num_key_value_heads 8, sliding_window 4096.
Result<ModelSpec> build_mistral(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, 8, std::nullopt, false));
  MC_RETURN_IF_ERROR(read_uniform_window(c, a, 4096));
  return finish(c, a);
}

// configuration_mixtral.py: kv 8, 8 experts, top-2, no window; router and
// experts without bias (modeling_mixtral.py).
Result<ModelSpec> build_mixtral(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, 8, std::nullopt, false));
  MC_RETURN_IF_ERROR(read_uniform_window(c, a, std::nullopt));
  MC_ASSIGN_OR_RETURN(a.n_expert, req_or_default(c, "num_local_experts", 8));
  MC_ASSIGN_OR_RETURN(a.top_k, req_or_default(c, "num_experts_per_tok", 2));
  a.ff_exp = a.ff;
  a.ff = 0;  // no dense layers
  return finish(c, a);
}

// configuration_qwen2.py: kv 32 when absent; q/k/v carry a bias, o does not.
Result<ModelSpec> build_qwen2(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, 32, std::nullopt, false));
  a.qkv_bias = true;
  MC_RETURN_IF_ERROR(read_qwen_window(c, a));
  return finish(c, a);
}

// configuration_qwen2_moe.py: kv 16, 60 experts, top-4, moe width 1408,
// shared expert 5632, qkv_bias True, untied. modular_qwen2_moe.py: q/k/v
// biased by qkv_bias, o_proj never; router weight (experts x d) without bias;
// shared_expert_gate Linear(d, 1, bias=False).
Result<ModelSpec> build_qwen2_moe(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, 16, std::nullopt, false));
  MC_ASSIGN_OR_RETURN(a.qkv_bias, c.flag("qkv_bias", true));
  MC_RETURN_IF_ERROR(refuse_qwen_moe_window(c));
  MC_ASSIGN_OR_RETURN(a.n_expert, req_or_default(c, "num_experts", 60));
  MC_ASSIGN_OR_RETURN(a.top_k, req_or_default(c, "num_experts_per_tok", 4));
  MC_ASSIGN_OR_RETURN(a.ff_exp, req_or_default(c, "moe_intermediate_size", 1408));
  MC_ASSIGN_OR_RETURN(a.ff_shexp, req_or_default(c, "shared_expert_intermediate_size", 5632));
  a.n_shared = 1;
  a.shared_gate = true;
  MC_RETURN_IF_ERROR(read_qwen_moe_layout(c, a));
  return finish(c, a);
}

// configuration_qwen3.py: kv 32, head_dim 128, attention_bias False; q_norm
// and k_norm are RMSNorm(head_dim), shared by all heads.
Result<ModelSpec> build_qwen3(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, 32, 128, false));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  a.q_norm = a.k_norm = a.head_dim;
  MC_RETURN_IF_ERROR(read_qwen_window(c, a));
  return finish(c, a);
}

// configuration_qwen3_moe.py: kv 4, 128 experts, top-8, moe width 768,
// attention_bias False, untied; experts and router without bias, no shared
// expert. Unlike Qwen3Config the class declares no head_dim: Qwen3MoeAttention
// takes getattr(config, "head_dim", hidden_size // num_attention_heads), so an
// absent key means hidden / heads. q_norm and k_norm are RMSNorm(head_dim).
Result<ModelSpec> build_qwen3_moe(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, 4, std::nullopt, false));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  a.q_norm = a.k_norm = a.head_dim;
  MC_RETURN_IF_ERROR(refuse_qwen_moe_window(c));
  MC_ASSIGN_OR_RETURN(a.n_expert, req_or_default(c, "num_experts", 128));
  MC_ASSIGN_OR_RETURN(a.top_k, req_or_default(c, "num_experts_per_tok", 8));
  MC_ASSIGN_OR_RETURN(a.ff_exp, req_or_default(c, "moe_intermediate_size", 768));
  MC_RETURN_IF_ERROR(read_qwen_moe_layout(c, a));
  return finish(c, a);
}

// configuration_gemma.py: kv 16, head_dim 256, tie_word_embeddings True.
// GemmaRMSNorm scales by (1 + weight): still one weight vector.
Result<ModelSpec> build_gemma(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, 16, 256, true));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  return finish(c, a);
}

// configuration_gemma2.py: kv 4, head_dim 256, tied, sliding_window 4096 on
// layers with (il + 1) % 2 == 1, i.e. even layers (layer_types). Four norms
// per layer: input, post_attention, pre_feedforward, post_feedforward.
Result<ModelSpec> build_gemma2(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, 4, 256, true));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  a.layer_norms = 4;
  MC_ASSIGN_OR_RETURN(auto w, c.opt("sliding_window", 4096));
  MC_ASSIGN_OR_RETURN(auto types, c.str_list("layer_types"));
  for (size_t i = 0; i < types.size(); ++i) {
    const char* want = i % 2 == 0 ? "sliding_attention" : "full_attention";
    if (types[i] != want) {
      return c.error("layer_types", "only the alternating pattern (even layers sliding) is "
                                    "supported; entry " + std::to_string(i) + " is '" +
                                    types[i] + "'");
    }
  }
  if (w) {
    a.swa = *w;
    a.swa_pattern = 2;
  }
  return finish(c, a);
}

// configuration_phi3.py: fused qkv_proj and gate_up_proj (same counts as the
// separate matrices), no biases, window on every layer when set.
Result<ModelSpec> build_phi3(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, std::nullopt, std::nullopt, false));
  MC_RETURN_IF_ERROR(read_uniform_window(c, a, std::nullopt));
  return finish(c, a);
}

// configuration_olmo2.py: no input norm; q_norm over the full q width and
// k_norm over the full k width; post_attention and post_feedforward norms.
Result<ModelSpec> build_olmo2(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, std::nullopt, std::nullopt, false));
  MC_ASSIGN_OR_RETURN(bool attn_bias, c.flag("attention_bias", false));
  a.qkv_bias = a.o_bias = attn_bias;
  a.q_norm = a.heads * a.head_dim;
  a.k_norm = a.kv_heads * a.head_dim;
  return finish(c, a);
}

namespace {

// DeepSeek MLA + MoE keys shared by v2 and v3. transformers builds an MoE
// block on every layer il >= first_k_dense_replace (moe_layer_freq is not
// read by modeling_deepseek_v2/v3.py, so a value other than 1 is refused:
// DeepSeek's own code would build a different model).
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

}  // namespace

// configuration_deepseek_v2.py: n_shared_experts 2 (null: none),
// first_k_dense_replace 0; dense MLP is LlamaMLP (mlp_bias).
// The one place a missing key is not given transformers' default: say so in
// every report built from this model.
Result<ModelSpec> note_q_lora_default(Cfg& c, Result<ModelSpec> m) {
  if (m.ok() && !c.has("q_lora_rank")) {
    m.value().assumptions.push_back(
        "q_lora_rank is absent from the config: read as null (a plain q_proj, as DeepSeek-V2-Lite is built); "
        "transformers' class default, 1536, would build a different model");
  }
  return m;
}

Result<ModelSpec> build_deepseek_v2(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_deepseek(c, a, 2, 0));
  MC_ASSIGN_OR_RETURN(bool mlp_bias, c.flag("mlp_bias", false));
  if (mlp_bias) return c.error("mlp_bias", "true is not supported for deepseek_v2");
  return note_q_lora_default(c, finish(c, a));
}

// configuration_deepseek_v3.py: n_shared_experts 1, first_k_dense_replace 3.
// The router's e_score_correction_bias is a registered buffer in
// modeling_deepseek_v3.py, not a parameter: not counted. The multi-token
// prediction layers (num_nextn_predict_layers) are in the checkpoint but
// transformers does not build them (model.layers.61.* is ignored on load):
// not counted either.
Result<ModelSpec> build_deepseek_v3(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_deepseek(c, a, 1, 3));
  return note_q_lora_default(c, finish(c, a));
}

}  // namespace modelcalc::hf
