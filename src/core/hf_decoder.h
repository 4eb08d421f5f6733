// Internals of the config reader shared by the RMSNorm decoder families
// (hf_arch_llama.cc, hf_arch_moe.cc, hf_arch_multimodal.cc, hf_arch_hybrid.cc):
// one table-like description of a decoder as transformers builds it (Decoder),
// the exact count of its parameters, and the ModelSpec it becomes. Every
// builder reads its config keys with the defaults of configuration_<type>.py
// and fills a Decoder; count() follows modeling_<type>.py: every nn.Parameter
// once, buffers (rotary inv_freq, e_score_correction_bias) excluded.
#ifndef MODELCALC_HF_DECODER_H_
#define MODELCALC_HF_DECODER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hf_reader.h"
#include "modelcalc/model.h"

namespace modelcalc::hf {

// A recurrent mixer as a builder counted it: the spec fields it sets and the
// parameters of ONE recurrent layer (norms inside the mixer apart).
struct RecurrentMixer {
  Recurrent kind = Recurrent::kNone;
  int64_t state = 0, inner = 0, heads = 0, conv = 0, conv_dim = 0;  // ModelSpec n_ssm_*
  Exact params;  // projections, conv weight and bias, A, D, dt of one layer
  Exact norms;   // norm weights inside the mixer of one layer
};

// The shape of one RMSNorm decoder, as the modeling code builds it.
struct Decoder {
  int64_t d = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0, ff = 0;
  int64_t ctx = 0;  // max_position_embeddings, 0 = not stated
  bool tied = false;
  bool qkv_bias = false;  // bias on q, k, v projections
  bool o_bias = false;    // bias on the output projection
  bool mlp_bias = false;  // bias on gate, up, down of dense MLPs
  bool gated = true;      // dense MLP and experts gate/up/down; false: up/down (relu2)
  int64_t q_norm = 0, k_norm = 0;  // RMSNorm widths on q and k per attention layer (0: none)
  int64_t layer_norms = 2;         // d-wide RMSNorms per layer (gemma2/3: 4; Nemotron-H: 1)
  int64_t q_out_mult = 1;          // q_proj emits this many heads' widths (Qwen3-Next's gate: 2)
  bool sinks = false;              // one learned sink logit per head and attention layer (gpt-oss)
  // MoE: layers >= dense_lead are MoE when n_expert > 0 (or as `kinds` says).
  int64_t n_expert = 0, top_k = 0, ff_exp = 0, dense_lead = 0;
  int64_t n_shared = 0, ff_shexp = 0;  // shared experts and the width of ONE
  bool shared_gate = false;            // qwen2_moe/qwen3_next: Linear(d, 1) gating the shared expert
  bool expert_bias = false;            // gpt-oss: biases on every expert's projections
  bool router_bias = false;            // gpt-oss: the router Linear has a bias
  bool router_score_bias = false;      // DeepSeek-V3/GLM-4.5: e_score_correction_bias (a buffer)
  // MLA (DeepSeek): n_lora_kv > 0 selects it.
  int64_t lora_q = 0, lora_kv = 0, rope = 0, nope = 0, v_dim = 0;
  // DSA (DeepSeek-V3.2): the lightning indexer on every attention layer.
  int64_t index_heads = 0, index_dim = 0, index_topk = 0;
  // Sliding window on every layer (pattern 1) or all but every p-th (pattern p),
  // for builders without `kinds`; chunked attention's chunk length.
  int64_t swa = 0, swa_pattern = 0, chunk = 0;
  RecurrentMixer mixer;
  // One entry per layer where layers differ; empty = uniform (dense_lead, swa_pattern).
  std::vector<LayerKind> kinds;
  // Reported beside the total, never in it.
  std::optional<int64_t> vision, mtp;
  std::vector<std::string> assumptions;
};

// Layers of each kind the decoder builds.
LayerCounts layer_counts(const Decoder& a);

// Attention parameters of ONE attention layer (matrices, sinks and a DSA
// indexer's projections) and the biases and norms inside it.
struct AttentionParams {
  Exact matrices, biases, norms;
};
AttentionParams attention_params(const Decoder& a);

// Parameters of one FFN of inner width `ff`, gated or not, with its biases.
Exact ffn_matrices(const Decoder& a, int64_t ff);

// Counts every parameter of the decoder.
Counts count(const Decoder& a);

// The spec: shape fields, per-layer kinds, `exact`, vision/MTP and assumptions.
Result<ModelSpec> finish(Cfg& cfg, const Decoder& a);

// The keys every decoder has. `kv_default`/`head_dim_default` are the
// configuration class's defaults for an absent key (nullopt = None, which
// means num_attention_heads and hidden_size / num_attention_heads).
Status read_core(Cfg& c, Decoder& a, std::optional<int64_t> kv_default, std::optional<int64_t> head_dim_default,
                 bool tie_default);

// The configuration class's defaults of the keys every decoder has, for the
// builders whose class states one for each (today's families).
struct CoreDefaults {
  int64_t vocab = 0, hidden = 0, intermediate = 0;
  int64_t layers = 0;  // 0: num_hidden_layers is not read (the builder counts the layers another way)
  int64_t heads = 0, ctx = 0;
  bool tied = false;
};
// Reads vocab_size, hidden_size, intermediate_size (into `ff`),
// num_hidden_layers, num_attention_heads, max_position_embeddings and
// tie_word_embeddings: an absent key takes its default, a null one is refused.
// The KV heads and head_dim are the builder's (their None differs by class);
// check_kv_heads after them.
Status read_core_defaults(Cfg& c, Decoder& a, const CoreDefaults& d);

// num_key_value_heads and head_dim where the class accepts None: absent is
// `kv_default` / `head_dim_default`, None (or a nullopt default) means
// num_attention_heads and hidden_size / num_attention_heads; then
// check_kv_heads.
Status read_heads(Cfg& c, Decoder& a, std::optional<int64_t> kv_default, std::optional<int64_t> head_dim_default);

// num_key_value_heads divides num_attention_heads; fails naming it.
Status check_kv_heads(Cfg& c, const Decoder& a);

// An integer >= min_value whose absence means `dflt` and which may not be null.
Result<int64_t> req_or_default(Cfg& c, std::string_view key, int64_t dflt, int64_t min_value = 1);

// An integer, or the string "auto" (configuration_jamba.py's mamba_dt_rank,
// configuration_falcon_h1.py's mamba_d_head): nullopt for "auto", absence or
// null; any other string fails naming `key`.
Result<std::optional<int64_t>> int_or_auto(Cfg& c, std::string_view key);

// DeepSeek MLA + MoE keys shared by deepseek_v2/v3/v32 and kimi_k2.
Status read_deepseek(Cfg& c, Decoder& a, int64_t shared_default, int64_t dense_default);

// deepseek_v3 and its aliases (kimi_k2): read_deepseek, the router's score
// bias, the MTP layers beside the total (hf_arch_moe.cc).
Result<ModelSpec> build_deepseek_v3_family(Cfg& c);

// Multi-token-prediction layers a DeepSeek-V3-style checkpoint stores but
// transformers does not build (num_nextn_predict_layers): per layer the
// decoder layer (attention + the MoE block), enorm and hnorm (d each), eh_proj
// (2d x d) and the shared head's norm (d). The embedding and output head are
// the main model's (shared, DeepSeek-V3 report sec. 2.2), so not counted again.
Exact mtp_params(const Decoder& a, int64_t n_mtp);

// Reads `layer_types`-style names into kinds: each entry must be one of
// `names` (mapped to the Attn of the same index). Fails naming `key`.
Status read_layer_types(Cfg& c, std::string_view key, const std::vector<std::string_view>& names,
                        const std::vector<Attn>& attn, Decoder& a);

// Makes `kinds` one entry per layer (uniform: MoE from dense_lead on) so that a
// builder can set layers one by one; fails naming num_hidden_layers past
// kMaxPerLayerLayers.
Status materialize_kinds(Cfg& c, Decoder& a);

// Fails when a per-layer array would exceed kMaxPerLayerLayers.
Status check_per_layer(Cfg& c, const Decoder& a);

}  // namespace modelcalc::hf

#endif  // MODELCALC_HF_DECODER_H_
