// RMSNorm decoders after Llama: llama, mistral, mixtral, qwen2, qwen2_moe,
// qwen3, qwen3_moe, gemma, gemma2, phi3, olmo2, deepseek_v2, deepseek_v3.
// One table-like description (Decoder, hf_decoder.h) covers them all; each
// builder reads its config keys with the defaults of transformers'
// configuration_<type>.py and fills the description. Counts follow
// modeling_<type>.py: every nn.Parameter once, buffers (rotary inv_freq,
// DeepSeek-V3's e_score_correction_bias) excluded.
#include <string>

#include "hf_decoder.h"

namespace modelcalc::hf {
namespace {

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
// not in the total; reported as params_mtp (hf_decoder.h mtp_params).
Result<ModelSpec> build_deepseek_v3(Cfg& c) { return note_q_lora_default(c, build_deepseek_v3_family(c)); }

}  // namespace modelcalc::hf
