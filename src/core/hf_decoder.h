// Internals of the config reader: one description of a decoder as the
// modeling code builds it (Decoder), its exact parameter count, the ModelSpec
// it becomes, and the typed key readers the interpreter's parts share
// (hf_config_interpret.cc, hf_config_moe.cc, hf_config_layers.cc,
// hf_config_towers.cc). Every parameter is counted once; buffers (rotary
// inv_freq, routing-score correction biases, DeepSeek-V4's tid2eid) are not.
#ifndef MODELCALC_HF_DECODER_H_
#define MODELCALC_HF_DECODER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hf_config_family.h"
#include "hf_reader.h"
#include "modelcalc/model.h"

namespace modelcalc::hf {

// A recurrent mixer as the interpreter counted it: the spec fields it sets and
// the parameters of ONE recurrent layer (norms inside the mixer apart).
struct RecurrentMixer {
  Recurrent kind = Recurrent::kNone;
  int64_t state = 0, inner = 0, heads = 0, conv = 0, conv_dim = 0;  // ModelSpec n_ssm_*
  Exact params;  // projections, conv weight and bias, A, D, dt of one layer
  Exact norms;   // norm weights inside the mixer of one layer
};

// The attention of one kind of layer where it differs from the decoder's own
// (0 / false: the decoder's): Gemma 4's global layers (global_head_dim,
// num_global_key_value_heads, attention_k_eq_v), MiMo-V2's sliding layers
// (twice the KV heads, sinks), Step-3.7's sliding heads.
struct AttnShape {
  int64_t heads = 0, kv_heads = 0, head_dim = 0, v_head_dim = 0;
  std::optional<bool> sinks;  // sink logits on this kind of layer
  bool v_from_k = false;      // no v_proj: the values are the keys (attention_k_eq_v)
  bool any() const { return heads || kv_heads || head_dim || v_head_dim || sinks || v_from_k; }
};

// DeepSeek-V4's compressor of one compressed layer (modeling_deepseek_v4.py):
// kv_proj and gate_proj d -> w x head_dim (w = 2 with the overlapping windows
// of CSA, 1 for HCA), position_bias (ratio x w head_dim), kv_norm(head_dim),
// and for CSA the lightning indexer (the same at index_head_dim, plus q_b_proj
// q_lora -> index heads x index_head_dim and weights_proj d -> index heads).
struct Compressor {
  int64_t ratio = 0;
  bool indexer = false;
  int64_t layers = 0;  // layers holding this compressor
};

// One decoder as its modeling code builds it.
struct Decoder {
  int64_t d = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0, ff = 0;
  std::vector<int64_t> ff_widths;  // each layer's dense MLP width where they differ (empty: ff; ff is the widest)
  int64_t v_head_dim = 0;  // value head width when it differs from head_dim (0: head_dim)
  int64_t ctx = 0;         // max_position_embeddings, 0 = not stated
  bool tied = false;
  Norm norm = Norm::kRms;   // the per-layer, final and embedding norms
  int64_t layer_norms = 2;  // d-wide norms per layer
  int64_t layer_norms_total = -1;  // d-wide per-layer norms in all where layers differ (-1: layer_norms x layers)
  bool final_norm = true;
  bool embed_norm = false;
  int64_t position_rows = 0;  // learned absolute positions (GPT-2 wpe, OPT's offset table)
  int64_t embed_proj = 0;     // OPT word_embed_proj_dim != d: embeddings this wide plus project_in/out
  bool lm_head_bias = false;
  bool qkv_bias = false;  // bias on q, k, v projections (MLA: q_a_proj, kv_a_proj_with_mqa)
  bool o_bias = false;    // bias on the output projection
  bool mlp_bias = false;  // bias on gate, up, down of dense MLPs
  bool gated = true;      // dense MLP and experts gate/up/down; false: up/down
  int64_t q_norm = 0, k_norm = 0;  // norm widths on q and k per attention layer (0: none)
  Norm qk_norm_kind = Norm::kRms;
  int64_t q_out_mult = 1;  // q_proj emits this many heads' widths (an output gate: 2)
  bool head_gate = false;  // g_proj d -> heads: one sigmoid gate per head (Step-3.7)
  bool sinks = false;      // one learned sink logit per head and attention layer
  bool v_from_k = false;   // one kv_proj whose output is both keys and values (DeepSeek-V4)
  int64_t o_groups = 0, o_lora = 0;  // grouped low-rank output (o_a_proj per group, o_b_proj); 0: o_proj
  AttnShape swa_shape, full_shape;   // the sliding / full layers' attention where it differs
  int64_t hc_mult = 0;               // manifold-constrained hyper-connections of this many streams (0: none)
  std::vector<Compressor> compressors;
  // MoE: layers are MoE as `kinds` says (or from dense_lead on, when kinds is empty).
  int64_t n_expert = 0, top_k = 0, ff_exp = 0, dense_lead = 0;
  int64_t n_shared = 0, ff_shexp = 0;  // shared experts and the width of ONE
  int64_t moe_latent = 0;              // experts run in this width between fc1/fc2_latent_proj (0: d)
  bool shared_gate = false;            // Linear(d, 1) gating the shared expert
  bool expert_bias = false;            // biases on every expert's projections
  bool router_bias = false;            // the router Linear has a bias
  bool router_score_bias = false;      // a routing-score correction bias (a buffer)
  bool router_scales = false;          // Gemma 4's router: a scale (d) and a per-expert scale (E)
  int64_t moe_norms = 0;               // d-wide norms an MoE layer adds (Gemma 4: 3)
  // MLA: lora_kv > 0 selects it.
  int64_t lora_q = 0, lora_kv = 0, rope = 0, nope = 0, v_dim = 0;
  // DSA: the lightning indexer on every attention layer.
  int64_t index_heads = 0, index_dim = 0, index_topk = 0;
  // Window and chunk lengths of the sliding and chunked layers.
  int64_t swa = 0, chunk = 0;
  RecurrentMixer mixer;
  // One entry per layer where layers differ; empty = uniform (full attention, MoE from dense_lead on).
  std::vector<LayerKind> kinds;
  bool ffn_placed = false;  // a per-layer pattern set every layer's FFN (Nemotron-H's)
  // Gemma 3n (kQuirkGemma3n): per-layer input width and vocabulary, AltUp streams, Laurel rank, and the
  // last kv_shared layers that read an earlier layer's KV (0: none of these).
  int64_t ple_dim = 0, ple_vocab = 0, altup = 0, laurel = 0, kv_shared = 0;
  // Reported beside the total, never in it.
  std::optional<int64_t> vision, mtp;
  std::vector<std::string> assumptions;
};

// Layers of each kind the decoder builds.
LayerCounts layer_counts(const Decoder& a);

// Parameters of ONE attention layer: matrices (with sinks and a DSA indexer's
// projections), and the biases and norms inside it.
struct AttentionParams {
  Exact matrices, biases, norms;
};
AttentionParams attention_params(const Decoder& a, Attn kind = Attn::kFull);

// Parameters of a norm of width n.
Exact norm_params(Norm kind, Exact n);
// Parameters of one FFN of inner width `ff` over `width` (0: d), gated or not (biases apart).
Exact ffn_matrices(const Decoder& a, int64_t ff, int64_t width = 0);
// Bias parameters of one routed expert: gate/up's up_width x d_ff and down's d (the latent width where
// the experts run in one); 0 without expert biases.
Exact expert_bias_params(const Decoder& a);

// Counts every parameter of the decoder.
Counts count(const Decoder& a);

// Multi-token-prediction layers of the DeepSeek-V3 shape (num_nextn_predict_layers):
// per layer the decoder layer (attention + the MoE block), enorm and hnorm
// (d each), eh_proj (2d x d) and the shared head's norm (d); the embedding and
// output head are the main model's (DeepSeek-V3 report sec. 2.2).
Exact mtp_params(const Decoder& a, int64_t n_mtp);

// The spec: shape fields, per-layer kinds, `exact`, vision/MTP and assumptions.
Result<ModelSpec> finish(Cfg& cfg, const Decoder& in);

// Makes `kinds` one entry per layer (uniform: MoE from dense_lead on) so that
// a rule can set layers one by one; fails naming num_hidden_layers past
// kMaxPerLayerLayers.
Status materialize_kinds(Cfg& c, Decoder& a);

// --- typed key readers with the row's defaults -----------------------------

// The value of `key`: the config's (null: nullopt), else the row's default
// (none: nullopt), else nullopt. Integers below min_value are refused.
Result<std::optional<int64_t>> get_int(const Cfg& c, const FamilyRow& row, std::string_view key,
                                       int64_t min_value = 1);
// As get_int, but a missing or null value is refused naming the key.
Result<int64_t> need_int(const Cfg& c, const FamilyRow& row, std::string_view key, int64_t min_value = 1);
// A boolean: the config's (null: the default), else the row's default, else `fallback`.
Result<bool> get_bool(const Cfg& c, const FamilyRow& row, std::string_view key, bool fallback);
// The first of `keys` the config states (all that it states must agree), else
// the first row default among them, else nullopt. Fails naming a disagreement.
Result<std::optional<int64_t>> first_int(const Cfg& c, const FamilyRow& row, std::span<const std::string_view> keys,
                                         int64_t min_value = 0);
// An integer, or the string "auto" (nullopt), or absent/null (nullopt).
Result<std::optional<int64_t>> int_or_auto(const Cfg& c, std::string_view key);

// The interpreter's parts (hf_config_moe.cc, hf_config_layers.cc).
Status read_moe(Cfg& c, const FamilyRow& row, Decoder& a);
Status place_moe_layers(Cfg& c, const FamilyRow& row, Decoder& a);
Status place_attention_layers(Cfg& c, const FamilyRow& row, Decoder& a);
Status read_mixer(Cfg& c, const FamilyRow& row, Decoder& a);
// hf_config_blocks.cc: the per-layer block_configs (row.block_configs).
Status read_block_configs(Cfg& c, const FamilyRow& row, Decoder& a);
// hf_config_towers.cc: the vision tower and projector of a wrapper, from
// `v` (its vision_config) and `c` (the wrapper's own keys), beside `text`.
Result<Exact> count_tower(Tower t, Cfg& c, Cfg& v, const ModelSpec& text);
// The audio tower and its embedder under audio_config `a`. REQUIRES: t != kNone.
Result<Exact> count_audio_tower(AudioTower t, Cfg& a, const ModelSpec& text);
// The vision_config model_type each tower is read with by default.
std::string_view tower_type(Tower t);

// The keys no family builds anything from (token ids, dropout, rope, init,
// generation settings, routing hyperparameters): hf_config_keys.cc.
bool is_harmless_key(std::string_view key);
// Refuses the first key of `c` nothing read and neither the harmless list nor
// `row.ignored` names.
Status check_placed(const Cfg& c, const FamilyRow& row);

}  // namespace modelcalc::hf

#endif  // MODELCALC_HF_DECODER_H_
