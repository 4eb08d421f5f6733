// The family table: what distinguishes one model_type from another, as data.
// The config reader is one generic interpreter (hf_config_interpret.cc) of the
// keys Hub configs share; a FamilyRow says, for one model_type, what its
// configuration class defaults absent keys to, which other spellings its
// keys have, which of the interpreter's generic mechanisms its modeling code
// builds (a bias, a norm, a gate, a layer pattern), and which keys it reads
// that build nothing. Adding a family whose layers are known kinds is one
// row (hf_config_families.cc) plus a fixture and a hand-derived count.
#ifndef MODELCALC_HF_CONFIG_FAMILY_H_
#define MODELCALC_HF_CONFIG_FAMILY_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace modelcalc::hf {

// A norm's parameters: RMSNorm(n) holds n, LayerNorm(n) 2n (weight, bias),
// kLayerNoBias a LayerNorm with a weight and no bias, n (Cohere's CohereLayerNorm),
// kNone nothing (OPT's layer_norm_elementwise_affine false, a weightless norm).
enum class Norm : uint8_t { kRms, kLayer, kLayerNoBias, kNone };

// Norms on the query and key: kHead one norm of head_dim shared by the heads
// (Qwen3, Gemma 3); kWidth one over the whole projection, h x d_head and
// kv x d_head (OLMo 2, MiniMax-M2's qk_norm_type "per_layer"); kWeightless an
// L2 norm without parameters (Llama 4); kKeyHead a norm of head_dim on the key
// (DeepSeek-V4's kv_norm; its q_b_norm has no weight).
enum class QkNorm : uint8_t { kNone, kHead, kWidth, kWeightless, kKeyHead };

// How `sliding_window` places windows when the config has no per-layer list:
// kNone it places none (the key must be absent or null unless the row reads it
// elsewhere), kAll every layer (Mistral, Phi-3), kQwen every layer when
// use_sliding_window and from max_window_layers on (Qwen2: only all or none is
// represented), kAlternate all but every p-th layer, p = sliding_window_pattern
// (Gemma 2: 2, Gemma 3: 6, gpt-oss: 2), kRefuse use_sliding_window true is
// refused (Qwen MoE: which layers slide changed between releases).
enum class Window : uint8_t { kNone, kAll, kQwen, kAlternate, kRefuse };

// The recurrent mixer a family's linear-attention / Mamba layers hold.
enum class Mixer : uint8_t { kNone, kGatedDeltaNet, kMamba1, kMamba2, kShortConv };

// Multi-token-prediction layers (num_nextn_predict_layers), beside the total:
// kDecoderLayer DeepSeek-V3's (a decoder layer, enorm, hnorm, eh_proj, the
// shared head's norm); kUncounted the family's MTP shape is not one the
// reader derives (said in the report).
enum class Mtp : uint8_t { kNone, kDecoderLayer, kUncounted };

// Vision towers with their projectors (hf_config_towers.cc), counted beside the total.
enum class Tower : uint8_t { kNone, kSiglipGemma3, kLlama4, kPixtral, kQwen3Vl, kGemma4, kMoonVit, kMobileNetV5 };
// Audio towers with their embedders, counted into params_audio beside the total.
enum class AudioTower : uint8_t { kNone, kGemma3n };

// Named rules of one modeling file that no key states (each applied by the
// interpreter where the comment says; a row lists the ones its family has).
enum Quirk : uint32_t {
  kQuirkNone = 0,
  // modeling_falcon.py: kv heads from new_decoder_architecture / multi_query,
  // the norms of parallel blocks from num_ln_in_parallel_attn (legacy
  // RefinedWeb: the new architecture exactly when n_head_kv is present).
  kQuirkFalcon = 1u << 0,
  // modeling_opt.py: positions hold max_position_embeddings + 2 rows; no final
  // norm unless do_layer_norm_before and not _remove_final_layer_norm;
  // word_embed_proj_dim adds project_in/project_out.
  kQuirkOpt = 1u << 1,
  // modeling_jamba.py: num_experts 1 builds a plain MLP on every layer.
  kQuirkOneExpertIsDense = 1u << 2,
  // modeling_deepseek.py's q_lora_rank: absent is read as null (DeepSeek-V2-Lite's
  // checkpoint has a plain q_proj; the class default 1536 would build another model), and said.
  kQuirkQLoraAbsentIsNull = 1u << 3,
  // The layers are the pattern's (Nemotron-H: hybrid_override_pattern).
  kQuirkLayersFromPattern = 1u << 4,
  // configuration_lfm2.py / Lfm2MLP: with block_auto_adjust_ff_dim (default true) the built width is
  // int(2 I / 3), then, when block_ffn_dim_multiplier (default 1.0) is not None, int(multiplier x that)
  // rounded up to a multiple of block_multiple_of (default 256).
  kQuirkLfm2FfDim = 1u << 5,
  // modeling_gemma3n.py Gemma3nTextModel: per-layer inputs (embed_tokens_per_layer of
  // vocab_size_per_layer_input x L x hidden_size_per_layer_input, per_layer_model_projection and its norm;
  // a layer's per_layer_input_gate, per_layer_projection, post_per_layer_input_norm), AltUp over
  // altup_num_inputs streams (altup_projections and altup_unembed_projections, a layer's AltUp block), the
  // Laurel block of laurel_rank, and the last num_kv_shared_layers layers reading an earlier layer's KV
  // (no k_proj, v_proj or k_norm of their own since transformers PR #45489).
  kQuirkGemma3n = 1u << 6,
};

struct FamilyRow {
  std::string_view model_type = {};
  std::string_view modeling = {};  // the code the row follows, e.g. "transformers modeling_llama.py"
  // A hand-derived test holds a real config of the family to the parameter.
  // Unconfirmed rows (and model_types not in the table) are read by the same
  // rules and labelled so in every output.
  bool confirmed = false;
  // The configuration class's values for absent keys, "key=value" separated
  // by spaces; value an integer, true, false or none (the class's None). A key
  // the interpreter needs that is neither here nor in the config is refused.
  std::string_view defaults = {};
  // Other spellings, "key=spelled ...": the canonical key wins when both are present.
  std::string_view aliases = {};
  // Keys of this family's config that build no parameter and no layer kind (read and ignored).
  std::string_view ignored = {};
  // Keys whose value the modeling code fixes, "key=value ...": a config stating another value is refused.
  std::string_view fixed = {};
  // The architectures entry the config must name (kimi_k2 is read as DeepSeek-V3 only then).
  std::string_view requires_architecture = {};

  // A wrapper keeps its language model under text_key, of model_type
  // text_type unless the object says, and its vision tower under vision_config.
  std::string_view text_key = {};
  std::string_view text_type = {};
  Tower vision = Tower::kNone;
  AudioTower audio = AudioTower::kNone;
  bool towers_whole = false;  // the engine holds the towers whole on every GPU (ModelSpec::towers_whole)

  // Norms.
  Norm norm = Norm::kRms;
  int layer_norms = 2;         // d-wide norms per layer (Gemma 2/3: 4; Nemotron-H, Falcon parallel: 1)
  bool embed_norm = false;     // a norm after the embedding (BLOOM)
  // Attention.
  std::string_view bias_key = "attention_bias";  // "" = none: attention bias is bias_default, fixed
  bool bias_default = false;
  bool bias_on_o = true;       // the output projection takes the bias too (Llama); false: q, k, v only (Qwen2, GLM-4.5)
  // A key of its own for the output projection's bias (Seed-OSS: attention_out_bias), default false;
  // "" = the output projection follows bias_on_o.
  std::string_view o_bias_key = {};
  bool bias_on_q_lora = true;  // MLA: q_a_proj and kv_a_proj take attention_bias
  QkNorm qk_norm = QkNorm::kNone;
  std::string_view qk_norm_key = {};  // a boolean key that switches qk_norm on (use_qk_norm, qk_layernorm); "" = always
  Norm qk_norm_kind = Norm::kRms;
  bool output_gate = false;    // q_proj also emits a per-head output gate (Qwen3-Next): 2 h d_head outputs
  bool head_gate = false;      // g_proj d -> heads, one sigmoid gate per head (Step-3.7's gating)
  bool v_from_k = false;       // one kv projection whose output is both keys and values (DeepSeek-V4)
  bool sinks = false;          // one learned sink logit per head and attention layer (gpt-oss)
  // Learned positions: the key holding the row count (GPT-2 n_positions) and rows added to it.
  std::string_view position_key = {};
  bool lm_head_bias = false;   // lm_head carries a bias even when tied (phi)
  // FFN.
  bool gated = true;           // gate/up/down; false: up/down (GPT-2 fc1/fc2, Nemotron-H relu2)
  std::string_view mlp_bias_key = "mlp_bias";  // "" = mlp bias is mlp_bias_default, fixed
  bool mlp_bias_default = false;
  bool ff_is_expert = false;   // intermediate_size is the routed experts' width (Mixtral, gpt-oss, Llama 4)
  std::string_view dense_ff_key = {};  // then the dense layers' width key (Llama 4: intermediate_size_mlp)
  // MoE.
  bool shared_gate = false;    // a Linear(d, 1) gates the shared expert (Qwen2-MoE, Qwen3-Next)
  bool expert_bias = false;    // biases on every expert projection (gpt-oss)
  bool router_bias = false;    // the router Linear has a bias (gpt-oss)
  bool score_bias = false;     // a routing-score correction bias steers routing: a buffer, not counted
  // The routing-score correction bias is an nn.Parameter of the family's modeling code (Ernie 4.5's
  // moe_statics.e_score_correction_bias): counted, E a MoE layer, with the router.
  bool score_bias_parameter = false;
  bool router_scales = false;  // the router also holds a scale (d) and a per-expert scale (E) (Gemma 4)
  int moe_norms = 0;           // d-wide norms an MoE layer adds (Gemma 4's three)
  bool dense_beside_moe = false;  // a dense MLP of intermediate_size runs beside the experts (Gemma 4)
  // Layers.
  Window window = Window::kNone;
  std::string_view layer_type_names = {};  // "name=kind ..." accepted in layer_types (kinds: full sliding chunked linear)
  // layer_types must be stated: the class's default for its absence is no released checkpoint's layout
  // (GraniteMoeHybrid: every layer Mamba), so it is refused rather than read.
  bool layer_types_required = false;
  bool pattern_covers_mtp = false;     // per-layer lists may hold num_nextn_predict_layers more entries
  // block_configs describes every layer (DeciLM / Nemotron-NAS): its attention (absent, or its KV heads)
  // and its MLP (absent, or its width), each with its own pre-norm.
  bool block_configs = false;
  Mixer mixer = Mixer::kNone;
  bool mixer_parallel = false;  // every layer runs the mixer beside its attention (Falcon-H1)
  Mtp mtp = Mtp::kNone;
  uint32_t quirks = kQuirkNone;

  bool has(Quirk q) const { return (quirks & q) != 0; }
};

// Sorted by model_type.
std::span<const FamilyRow> family_table();
// The row of `model_type`, or nullptr.
const FamilyRow* find_family(std::string_view model_type);
// The row a model_type the table does not hold is read with: Llama's rules,
// unconfirmed.
const FamilyRow& generic_family();

// "key=value" lists of a row: the value of `key`, or nullopt when the list
// does not name it. `none` is returned as kClassNone.
inline constexpr int64_t kClassNone = INT64_MIN;
std::optional<int64_t> row_value(std::string_view list, std::string_view key);
// The text after '=' of `key` in a "key=text ..." list, or "" when absent.
std::string_view row_text(std::string_view list, std::string_view key);
// True when `word` is one of the space-separated words of `list`.
bool row_lists(std::string_view list, std::string_view word);

}  // namespace modelcalc::hf

#endif  // MODELCALC_HF_CONFIG_FAMILY_H_
