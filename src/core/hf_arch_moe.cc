// Mixture-of-experts decoders of 2025-26 that transformers builds as RMSNorm
// decoders: gpt_oss, glm4_moe, deepseek_v32, and kimi_k2 (DeepSeek-V3's
// architecture under another model_type). Counts follow modeling_<type>.py;
// see hf_decoder.h for what is counted and how.
#include <algorithm>
#include <string>

#include "hf_decoder.h"

namespace modelcalc::hf {

namespace {

// MTP layers a config states (num_nextn_predict_layers), counted beside the
// total: transformers ignores them on load (_keys_to_ignore_on_load_unexpected).
Status read_mtp(Cfg& c, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto n, c.opt("num_nextn_predict_layers", 0, 0));
  if (n && *n > 0) {
    const Exact mtp = mtp_params(a, *n);
    if (mtp.overflow()) return Status::Overflow(c.source());
    a.mtp = mtp.value();
  }
  return Status::Ok();
}

}  // namespace

// configuration_gpt_oss.py: 36 layers, 128 experts, top-4, hidden and expert
// width 2880, head_dim 64, 64 heads, 8 KV heads, sliding_window 128, untied,
// attention_bias True; layer_types default: even layers sliding. modeling_gpt_oss.py:
// q/k/v/o all biased (attention_bias), `sinks` (one per head) on every layer,
// experts gate_up_proj (d x 2f) and down_proj (f x d) each with a bias, the
// router Linear(d, E) with a bias, two RMSNorms per layer, final norm.
Result<ModelSpec> build_gpt_oss(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, 8, 64, false));
  MC_ASSIGN_OR_RETURN(bool bias, c.flag("attention_bias", true));
  a.qkv_bias = a.o_bias = bias;
  a.sinks = true;
  MC_ASSIGN_OR_RETURN(a.n_expert, req_or_default(c, "num_local_experts", 128));
  MC_ASSIGN_OR_RETURN(a.top_k, req_or_default(c, "num_experts_per_tok", 4));
  if (a.top_k > a.n_expert) return c.error("num_experts_per_tok", "exceeds num_local_experts");
  a.ff_exp = a.ff;  // GptOssExperts: expert_dim = intermediate_size
  a.ff = 0;         // no dense layers
  a.expert_bias = a.router_bias = true;
  MC_ASSIGN_OR_RETURN(auto w, c.opt("sliding_window", 128));
  a.swa = w.value_or(0);
  if (c.has("layer_types")) {
    MC_RETURN_IF_ERROR(read_layer_types(c, "layer_types", {"full_attention", "sliding_attention"},
                                        {Attn::kFull, a.swa > 0 ? Attn::kSliding : Attn::kFull}, a));
  } else if (a.swa > 0) {
    a.swa_pattern = 2;  // even layers slide
  }
  return finish(c, a);
}

// configuration_glm4_moe.py (transformers 4.54+): 128 routed + 1 shared expert
// of moe_intermediate_size 1408, top-8, first_k_dense_replace 1, kv 8,
// head_dim from the config (else hidden / heads), attention_bias False,
// use_qk_norm False, untied. modeling_glm4_moe.py: q/k/v biased by
// attention_bias, o_proj never; q_norm/k_norm RMSNorm(head_dim) when
// use_qk_norm; the router weight (E x d) with e_score_correction_bias as a
// buffer; dense layers (< first_k_dense_replace) Glm4MoeMLP(intermediate_size).
// MTP layers (num_nextn_predict_layers) are reported beside the total.
Result<ModelSpec> build_glm4_moe(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_core(c, a, 8, std::nullopt, false));
  MC_ASSIGN_OR_RETURN(a.qkv_bias, c.flag("attention_bias", false));
  MC_ASSIGN_OR_RETURN(bool qk_norm, c.flag("use_qk_norm", false));
  if (qk_norm) a.q_norm = a.k_norm = a.head_dim;
  MC_ASSIGN_OR_RETURN(a.n_expert, req_or_default(c, "n_routed_experts", 128));
  MC_ASSIGN_OR_RETURN(a.top_k, req_or_default(c, "num_experts_per_tok", 8));
  MC_ASSIGN_OR_RETURN(a.ff_exp, req_or_default(c, "moe_intermediate_size", 1408));
  MC_ASSIGN_OR_RETURN(a.n_shared, req_or_default(c, "n_shared_experts", 1));
  // One Glm4MoeMLP of moe_intermediate_size x n_shared_experts: the same parameters
  // as n_shared experts of moe_intermediate_size each.
  a.ff_shexp = a.n_shared > 0 ? a.ff_exp : 0;
  MC_ASSIGN_OR_RETURN(a.dense_lead, req_or_default(c, "first_k_dense_replace", 1));
  if (a.dense_lead > a.layers) return c.error("first_k_dense_replace", "exceeds num_hidden_layers");
  if (a.top_k > a.n_expert) return c.error("num_experts_per_tok", "exceeds n_routed_experts");
  a.router_score_bias = true;
  MC_RETURN_IF_ERROR(read_mtp(c, a));
  return finish(c, a);
}

// configuration_deepseek_v3.py read as for deepseek_v3 (hf_arch_llama.cc),
// plus the multi-token-prediction layers beside the total.
Result<ModelSpec> build_deepseek_v3_family(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_deepseek(c, a, 1, 3));
  a.router_score_bias = true;
  MC_RETURN_IF_ERROR(read_mtp(c, a));
  return finish(c, a);
}

// Kimi-K2's config says model_type "kimi_k2" but architectures
// ["DeepseekV3ForCausalLM"] and auto_map configuration_deepseek.DeepseekV3Config:
// its tensors are DeepSeek-V3's (384 experts, 64 heads, 1 dense layer). Read as
// deepseek_v3 only when the config itself names that architecture.
Result<ModelSpec> build_kimi_k2(Cfg& c) {
  MC_ASSIGN_OR_RETURN(auto archs, c.str_list("architectures"));
  if (std::find(archs.begin(), archs.end(), "DeepseekV3ForCausalLM") == archs.end()) {
    return c.error("architectures", "kimi_k2 is read as DeepSeek-V3 (DeepseekV3ForCausalLM); this config names " +
                                        (archs.empty() ? std::string("none") : archs.front()));
  }
  return build_deepseek_v3_family(c);
}

// configuration_deepseek_v32.py: DeepSeek-V3 plus the DSA lightning indexer
// (index_n_heads 64, index_head_dim 128, index_topk 2048) on every layer.
// modeling_deepseek_v32.py's DeepseekV32Indexer: wq_b (q_lora_rank x
// heads.dim), wk (d x dim), k_norm = LayerNorm(dim), weights_proj (d x heads),
// no biases. The MLA, MoE and norms are DeepSeek-V3's.
Result<ModelSpec> build_deepseek_v32(Cfg& c) {
  Decoder a;
  MC_RETURN_IF_ERROR(read_deepseek(c, a, 1, 3));
  if (a.lora_q == 0) return c.error("q_lora_rank", "deepseek_v32's indexer reads the q LoRA: give q_lora_rank");
  MC_ASSIGN_OR_RETURN(a.index_heads, req_or_default(c, "index_n_heads", 64));
  MC_ASSIGN_OR_RETURN(a.index_dim, req_or_default(c, "index_head_dim", 128));
  MC_ASSIGN_OR_RETURN(a.index_topk, req_or_default(c, "index_topk", 2048));
  a.router_score_bias = true;
  MC_RETURN_IF_ERROR(read_mtp(c, a));
  return finish(c, a);
}

}  // namespace modelcalc::hf
