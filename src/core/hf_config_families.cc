// The family table (hf_config_family.h): one row per model_type, sorted.
// Each row is the configuration class's defaults and spellings and the
// mechanisms its modeling file builds, with that file named. A row is
// `confirmed` when a test holds a real config of the family to a count
// derived by hand from the modeling code (hf_config_test.cc,
// hf_config_2026_test.cc, hf_config_aic_test.cc).
#include <algorithm>
#include <array>

#include "hf_config_family.h"

namespace modelcalc::hf {
namespace {

// DeepSeek-V3 (modeling_deepseek_v3.py), the base of several rows below:
// MLA, n_shared_experts x moe_intermediate_size shared, dense before
// first_k_dense_replace, e_score_correction_bias a buffer; transformers does
// not read moe_layer_freq (so only 1 is taken); MTP layers beside the total.
constexpr FamilyRow kDeepseekV3{
    .model_type = "deepseek_v3",
    .modeling = "transformers modeling_deepseek_v3.py",
    .confirmed = true,
    .defaults = "n_shared_experts=1 first_k_dense_replace=3",
    .fixed = "moe_layer_freq=1",
    .score_bias = true,
    .mtp = Mtp::kDecoderLayer,
    .quirks = kQuirkQLoraAbsentIsNull,
};

// DeepSeek-V4 (configuration_deepseek_v4.py / modeling_deepseek_v4.py): a q LoRA
// (q_a_proj, q_a_norm, q_b_proj; q_b_norm has no weight), one kv_proj whose
// output is keys and values, kv_norm, the grouped low-rank output (o_a_proj,
// o_b_proj), a sink per head; every layer slides over sliding_window and
// compress_ratios adds a CSA (4, with the lightning indexer) or HCA (128)
// compressor; hyper-connections (hc_mult streams) around both sublayers and
// hc_head; MoE on every layer with one shared MLP, the router's correction
// bias and the hash layers' tid2eid buffers not counted; compress_ratios also
// lists the MTP layer, which transformers does not build.
constexpr FamilyRow kDeepseekV4{
    .model_type = "deepseek_v4",
    .modeling = "transformers modeling_deepseek_v4.py",
    .confirmed = true,
    .defaults = "vocab_size=129280 hidden_size=4096 moe_intermediate_size=2048 num_hidden_layers=43 "
                "num_attention_heads=64 num_key_value_heads=1 head_dim=512 q_lora_rank=1024 num_experts_per_tok=6 "
                "n_routed_experts=256 n_shared_experts=1 max_position_embeddings=1048576 sliding_window=128 "
                "o_groups=8 o_lora_rank=1024 index_n_heads=64 index_head_dim=128 index_topk=512 hc_mult=4",
    .ignored = "num_hash_layers qk_rope_head_dim expert_dtype swiglu_limit attention_bias",
    .fixed = "num_key_value_heads=1 mlp_bias=false",
    .bias_key = "",
    .qk_norm = QkNorm::kKeyHead,
    .v_from_k = true,
    .sinks = true,
    .score_bias = true,
    .pattern_covers_mtp = true,
    .mtp = Mtp::kUncounted,
};

constexpr FamilyRow kFalcon{.model_type = "falcon",
     .modeling = "transformers modeling_falcon.py",
     .confirmed = true,
     .defaults = "tie_word_embeddings=true intermediate_size=4h max_position_embeddings=2048",
     .aliases = "num_key_value_heads=num_kv_heads intermediate_size=ffn_hidden_size",
     .norm = Norm::kLayer,
     .bias_key = "bias",
     .gated = false,
     .mlp_bias_key = "bias",
     .quirks = kQuirkFalcon};

constexpr FamilyRow kPhi{.model_type = "phi",
     .modeling = "transformers modeling_phi.py",
     .confirmed = true,
     .defaults = "max_position_embeddings=2048",
     .norm = Norm::kLayer,
     .layer_norms = 1,
     .bias_key = "",
     .bias_default = true,
     .qk_norm = QkNorm::kHead,
     .qk_norm_key = "qk_layernorm",
     .qk_norm_kind = Norm::kLayer,
     .lm_head_bias = true,
     .gated = false,
     .mlp_bias_key = "",
     .mlp_bias_default = true};

constexpr FamilyRow kRows[] = {
    // modeling_bloom.py: n_layer/n_head, FFN 4 x hidden, word_embeddings_layernorm,
    // two LayerNorms a block and ln_f, every Linear biased, ALiBi (no positions).
    {.model_type = "bloom",
     .modeling = "transformers modeling_bloom.py",
     .confirmed = true,
     .defaults = "tie_word_embeddings=true intermediate_size=4h",
     .aliases = "hidden_size=n_embed num_hidden_layers=n_layer num_attention_heads=n_head",
     .ignored = "seq_length pretraining_tp",
     .norm = Norm::kLayer,
     .embed_norm = true,
     .bias_key = "",
     .bias_default = true,
     .gated = false,
     .mlp_bias_key = "",
     .mlp_bias_default = true},
    // Command-R7B / Command-A (modeling_cohere2.py): q, k, v, o biased by attention_bias; an MLP without biases;
    // one input_layernorm a layer feeding attention and MLP in parallel; Cohere2LayerNorm holds a weight and no
    // bias (the final norm too); no q/k norm; tied unless tie_word_embeddings is false. Sliding layers: the
    // layer_types, else all but every sliding_window_pattern-th layer (configuration_cohere2.py's BC rule,
    // default 4). The original Cohere release's keys (use_parallel_block, position_embedding_type, ...) are not
    // read by the configuration class; logit_scale scales the logits.
    {.model_type = "cohere2",
     .modeling = "transformers modeling_cohere2.py",
     .confirmed = true,
     .defaults = "vocab_size=256000 hidden_size=8192 intermediate_size=22528 num_hidden_layers=40 "
                 "num_attention_heads=64 max_position_embeddings=8192 tie_word_embeddings=true "
                 "sliding_window=4096 sliding_window_pattern=4",
     .ignored = "logit_scale order_of_interleaved_layers position_embedding_type use_embedding_sharing "
                "use_gated_activation use_parallel_block use_parallel_embedding use_qk_norm",
     .norm = Norm::kLayerNoBias,
     .layer_norms = 1,
     .mlp_bias_key = "",
     .window = Window::kAlternate},
    // sglang's re-export of DeepSeek-V4 (model_type deepseek_ref) names DeepseekV4ForCausalLM: its tensors.
    [] {
      FamilyRow r = kDeepseekV4;
      r.model_type = "deepseek_ref";
      r.requires_architecture = "DeepseekV4ForCausalLM";
      return r;
    }(),
    // configuration_deepseek_v2.py: n_shared_experts 2, first_k_dense_replace 0; mlp_bias fixed false.
    {.model_type = "deepseek_v2",
     .modeling = "transformers modeling_deepseek_v2.py",
     .confirmed = true,
     .defaults = "n_shared_experts=2 first_k_dense_replace=0",
     .fixed = "moe_layer_freq=1 mlp_bias=false",
     .quirks = kQuirkQLoraAbsentIsNull},
    kDeepseekV3,
    // DeepSeek-V3 plus the DSA lightning indexer (configuration_deepseek_v32.py defaults).
    {.model_type = "deepseek_v32",
     .modeling = "transformers modeling_deepseek_v32.py",
     .confirmed = true,
     .defaults = "n_shared_experts=1 first_k_dense_replace=3 index_n_heads=64 index_head_dim=128 index_topk=2048",
     .fixed = "moe_layer_freq=1",
     .score_bias = true,
     .mtp = Mtp::kDecoderLayer},
    kDeepseekV4,
    // configuration_ernie4_5.py / modular_ernie4_5.py: Llama's layers, one key (use_bias) biasing q, k, v, o
    // and the MLP's three projections; tied by default. Baidu's remote-code checkpoints (architectures
    // Ernie4_5_ForCausalLM) hold the same modules.
    {.model_type = "ernie4_5",
     .modeling = "transformers modeling_ernie4_5.py",
     .confirmed = true,
     .defaults = "vocab_size=103424 hidden_size=1024 intermediate_size=3072 num_hidden_layers=18 "
                 "num_attention_heads=16 num_key_value_heads=2 head_dim=128 max_position_embeddings=131072 "
                 "tie_word_embeddings=true",
     .bias_key = "use_bias",
     .mlp_bias_key = "use_bias"},
    // configuration_ernie4_5_moe.py / modeling_ernie4_5_moe.py: ERNIE 4.5's attention; an MoE block where
    // (i + 1) % moe_layer_interval == 0 and moe_layer_start_index <= i <= moe_layer_end_index (-1: the last
    // layer), else a dense MLP of intermediate_size. The block: a bias-free gate d -> E, moe_k of E experts
    // of moe_intermediate_size, one shared MLP moe_num_shared_experts x as wide (parameter for parameter the
    // same as that many experts), and moe_statics.e_score_correction_bias, an nn.Parameter of E (counted).
    // use_bias would also bias lm_head, which no row field models: fixed false (refused, not miscounted).
    // The MTP weights are ignored on load (_keys_to_ignore_on_load_unexpected), so num_nextn_predict_layers
    // builds nothing.
    {.model_type = "ernie4_5_moe",
     .modeling = "transformers modeling_ernie4_5_moe.py",
     .confirmed = true,
     .defaults = "vocab_size=103424 hidden_size=2560 intermediate_size=12288 num_hidden_layers=28 "
                 "num_attention_heads=20 num_key_value_heads=4 max_position_embeddings=131072 "
                 "tie_word_embeddings=true moe_intermediate_size=1536 num_experts_per_tok=6 moe_num_experts=64 "
                 "n_shared_experts=2 first_k_dense_replace=1 moe_layer_end_index=-1 decoder_sparse_step=1",
     .aliases = "num_experts_per_tok=moe_k n_shared_experts=moe_num_shared_experts "
                "first_k_dense_replace=moe_layer_start_index decoder_sparse_step=moe_layer_interval",
     .ignored = "moe_norm_min moe_gate_act moe_capacity moe_gate moe_use_aux_free num_nextn_predict_layers "
                "multi_token_pred_lambda",
     .fixed = "use_bias=false",
     .bias_key = "",
     .mlp_bias_key = "",
     .score_bias_parameter = true},
    // configuration_exaone4.py / modular_exaone4.py: OLMo 2's decoder layer (post-attention and post-feedforward
    // norms, no input norm), q_norm / k_norm of head_dim, no bias anywhere (fixed); layer_types, else all but
    // every sliding_window_pattern-th layer slide (an integer), or its letters (L local, G global, the last
    // layer global); sliding_window null: none slide.
    {.model_type = "exaone4",
     .modeling = "transformers modeling_exaone4.py",
     .confirmed = true,
     .defaults = "vocab_size=102400 hidden_size=4096 intermediate_size=16384 num_hidden_layers=32 "
                 "num_attention_heads=32 num_key_value_heads=32 max_position_embeddings=2048 sliding_window=4096 "
                 "sliding_window_pattern=4",
     .bias_key = "",
     .qk_norm = QkNorm::kHead,
     .mlp_bias_key = "",
     .window = Window::kAlternate},
    // configuration_falcon.py / modeling_falcon.py: LayerNorm, bias on every Linear when `bias`.
    kFalcon,
    // configuration_falcon_h1.py / modeling_falcon_h1.py: Mamba-2 beside attention in every layer,
    // then a gated MLP; the mixer's in_proj biased by mamba_proj_bias, out_proj by projectors_bias.
    {.model_type = "falcon_h1",
     .modeling = "transformers modeling_falcon_h1.py",
     .confirmed = true,
     .defaults = "vocab_size=128000 hidden_size=4096 intermediate_size=14336 num_hidden_layers=32 "
                 "num_attention_heads=32 max_position_embeddings=8192 num_key_value_heads=8 "
                 "mamba_d_ssm=1024 mamba_expand=2 mamba_num_heads=128 n_groups=1 ssm_state_size=256 conv_kernel=4 "
                 "use_conv_bias=true use_bias=false projectors_bias=false mamba_rms_norm=false",
     .aliases = "mamba_num_heads=mamba_n_heads mamba_head_dim=mamba_d_head n_groups=mamba_n_groups "
                "ssm_state_size=mamba_d_state conv_kernel=mamba_d_conv use_conv_bias=mamba_conv_bias "
                "use_bias=mamba_proj_bias",
     .ignored = "mamba_norm_before_gate mamba_use_mlp lm_head_multiplier embedding_multiplier "
                "attention_in_multiplier attention_out_multiplier key_multiplier ssm_multipliers ssm_in_multiplier "
                "ssm_out_multiplier mlp_multipliers mlp_expansion_factor",
     .mixer = Mixer::kMamba2,
     .mixer_parallel = true},
    // configuration_gemma.py: kv 16, head_dim 256, tied; GemmaRMSNorm's (1 + w) is one weight.
    {.model_type = "gemma",
     .modeling = "transformers modeling_gemma.py",
     .confirmed = true,
     .defaults = "num_key_value_heads=16 head_dim=256 tie_word_embeddings=true"},
    // configuration_gemma2.py: kv 4, head_dim 256, tied, window 4096 on even layers, four norms a layer.
    {.model_type = "gemma2",
     .modeling = "transformers modeling_gemma2.py",
     .confirmed = true,
     .defaults = "num_key_value_heads=4 head_dim=256 tie_word_embeddings=true sliding_window=4096 "
                 "sliding_window_pattern=2",
     .ignored = "sliding_window_size",
     .layer_norms = 4,
     .window = Window::kAlternate},
    // Gemma3ForConditionalGeneration: gemma3_text in text_config, SigLIP tower + projector.
    {.model_type = "gemma3",
     .modeling = "transformers modeling_gemma3.py",
     .confirmed = true,
     .text_key = "text_config",
     .text_type = "gemma3_text",
     .vision = Tower::kSiglipGemma3},
    // configuration_gemma3.py Gemma3TextConfig: q/k norms, four norms, 5 local : 1 global.
    {.model_type = "gemma3_text",
     .modeling = "transformers modeling_gemma3.py",
     .confirmed = true,
     .defaults = "vocab_size=262208 hidden_size=2304 intermediate_size=9216 num_hidden_layers=26 "
                 "num_attention_heads=8 max_position_embeddings=131072 tie_word_embeddings=true "
                 "num_key_value_heads=4 head_dim=256 sliding_window=4096 sliding_window_pattern=6",
     .layer_norms = 4,
     .qk_norm = QkNorm::kHead,
     .window = Window::kAlternate},
    // Gemma3nForConditionalGeneration (modeling_gemma3n.py): gemma3n_text, timm's MobileNetV5 vision
    // encoder with embed_vision, the USM conformer audio encoder with embed_audio.
    {.model_type = "gemma3n",
     .modeling = "transformers modeling_gemma3n.py",
     .confirmed = true,
     .ignored = "audio_soft_tokens_per_image vision_soft_tokens_per_image unsloth_fixed",
     .text_key = "text_config",
     .text_type = "gemma3n_text",
     .vision = Tower::kMobileNetV5,
     .audio = AudioTower::kGemma3n,
     .towers_whole = true},
    // Gemma3nTextConfig (configuration_gemma3n.py): Gemma 3's layers (q/k norms of head_dim, v_norm without
    // a weight, four norms) with intermediate_size a list, layer_types else every 5th layer global, and
    // the per-layer inputs, AltUp, Laurel and KV sharing of kQuirkGemma3n.
    {.model_type = "gemma3n_text",
     .modeling = "transformers modeling_gemma3n.py (after PR #45489: shared layers build no k/v)",
     .confirmed = true,
     .defaults = "vocab_size=262400 hidden_size=2048 intermediate_size=16384 num_hidden_layers=35 "
                 "num_attention_heads=8 num_key_value_heads=2 head_dim=256 max_position_embeddings=32768 "
                 "tie_word_embeddings=true sliding_window=512 sliding_window_pattern=5 "
                 "vocab_size_per_layer_input=262144 hidden_size_per_layer_input=256 altup_num_inputs=4 "
                 "num_kv_shared_layers=15 laurel_rank=64",
     .ignored = "altup_active_idx altup_coef_clip altup_lr_multiplier",
     .fixed = "altup_correct_scale=true",
     .layer_norms = 4,
     .qk_norm = QkNorm::kHead,
     .window = Window::kAlternate,
     .quirks = kQuirkGemma3n},
    // Gemma4ForConditionalGeneration (modeling_gemma4.py): gemma4_text + the Gemma 4 vision tower.
    {.model_type = "gemma4",
     .modeling = "transformers modeling_gemma4.py",
     .confirmed = true,
     .text_key = "text_config",
     .text_type = "gemma4_text",
     .vision = Tower::kGemma4},
    // configuration_gemma4.py Gemma4TextConfig: q/k norms of the layer's head_dim (v_norm has no weight), four
    // norms a layer, 5 sliding : 1 global, the global layers of global_head_dim (keys = values and
    // num_global_key_value_heads when attention_k_eq_v); with enable_moe_block the experts run beside the
    // dense MLP, with the router's scale and per-expert scale and three more norms. Per-layer embeddings
    // (hidden_size_per_layer_input) and KV-shared layers are not read.
    {.model_type = "gemma4_text",
     .modeling = "transformers modeling_gemma4.py",
     .confirmed = true,
     .defaults = "vocab_size=262144 hidden_size=2304 intermediate_size=9216 num_hidden_layers=30 "
                 "num_attention_heads=8 num_key_value_heads=4 head_dim=256 max_position_embeddings=131072 "
                 "tie_word_embeddings=true sliding_window=512 sliding_window_pattern=6 global_head_dim=512 "
                 "hidden_size_per_layer_input=256",
     .ignored = "vocab_size_per_layer_input use_double_wide_mlp",
     .fixed = "hidden_size_per_layer_input=0 num_kv_shared_layers=0",
     .layer_norms = 4,
     .qk_norm = QkNorm::kHead,
     .router_scales = true,
     .moe_norms = 3,
     .dense_beside_moe = true,
     .window = Window::kAlternate},
    // configuration_glm4_moe.py: q/k/v biased by attention_bias (o never), use_qk_norm, 128 + 1 shared
    // experts, first_k_dense_replace 1, the score bias a buffer; MTP beside the total.
    {.model_type = "glm4_moe",
     .modeling = "transformers modeling_glm4_moe.py",
     .confirmed = true,
     .defaults = "num_key_value_heads=8 n_routed_experts=128 num_experts_per_tok=8 moe_intermediate_size=1408 "
                 "n_shared_experts=1 first_k_dense_replace=1",
     .bias_on_o = false,
     .qk_norm = QkNorm::kHead,
     .qk_norm_key = "use_qk_norm",
     .score_bias = true,
     .mtp = Mtp::kDecoderLayer},
    // configuration_glm_moe_dsa.py / modeling_glm_moe_dsa.py (GLM-5): DeepSeek-V3.2's MLA with the DSA indexer
    // on every layer (indexer_types "shared" layers still build it), MoE after the dense first layers,
    // the score bias a buffer, MLPs without biases; MTP layers (model.layers.78.*) beside the total.
    {.model_type = "glm_moe_dsa",
     .modeling = "transformers modeling_glm_moe_dsa.py",
     .confirmed = true,
     .defaults = "vocab_size=154880 hidden_size=6144 intermediate_size=12288 moe_intermediate_size=2048 "
                 "num_hidden_layers=78 num_attention_heads=64 num_key_value_heads=64 n_shared_experts=1 "
                 "n_routed_experts=256 kv_lora_rank=512 q_lora_rank=2048 qk_rope_head_dim=64 v_head_dim=256 "
                 "qk_nope_head_dim=192 num_experts_per_tok=8 max_position_embeddings=202752 index_topk=2048 "
                 "index_head_dim=128 index_n_heads=32 first_k_dense_replace=3",
     .ignored = "indexer_rope_interleave indexer_types index_topk_freq index_skip_topk_offset index_topk_pattern "
                "index_share_for_mtp_iteration mlp_bias",
     .fixed = "moe_layer_freq=1",
     .mlp_bias_key = "",
     .score_bias = true,
     .layer_type_names = "deepseek_sparse_attention=full",
     .mtp = Mtp::kDecoderLayer},
    // configuration_gpt2.py: n_inner None -> 4 x n_embd, tied, Conv1D everywhere biased, wpe.
    {.model_type = "gpt2",
     .modeling = "transformers modeling_gpt2.py",
     .confirmed = true,
     .defaults = "tie_word_embeddings=true intermediate_size=4h",
     .aliases = "hidden_size=n_embd num_hidden_layers=n_layer num_attention_heads=n_head intermediate_size=n_inner "
                "max_position_embeddings=n_positions",
     .fixed = "add_cross_attention=false",
     .norm = Norm::kLayer,
     .bias_key = "",
     .bias_default = true,
     .position_key = "max_position_embeddings",
     .gated = false,
     .mlp_bias_key = "",
     .mlp_bias_default = true},
    // configuration_gpt_neox.py: attention_bias True (qkv and dense), MLP always biased, untied.
    {.model_type = "gpt_neox",
     .modeling = "transformers modeling_gpt_neox.py",
     .confirmed = true,
     .defaults = "max_position_embeddings=2048 attention_bias=true",
     .norm = Norm::kLayer,
     .gated = false,
     .mlp_bias_key = "",
     .mlp_bias_default = true},
    // configuration_gpt_oss.py: sinks, expert and router biases, even layers slide over 128.
    {.model_type = "gpt_oss",
     .modeling = "transformers modeling_gpt_oss.py",
     .confirmed = true,
     .defaults = "num_key_value_heads=8 head_dim=64 attention_bias=true num_local_experts=128 "
                 "num_experts_per_tok=4 sliding_window=128 sliding_window_pattern=2",
     .sinks = true,
     .ff_is_expert = true,
     .expert_bias = true,
     .router_bias = true,
     .window = Window::kAlternate},
    // Granite 3.x (modular_granite.py): Llama's modules (GraniteModel / GraniteDecoderLayer subclass Llama's and
    // add no parameter); embedding_multiplier, residual_multiplier, attention_multiplier (the attention's
    // scaling) and logits_scaling are scalars of the forward pass. configuration_granite.py: Llama's defaults,
    // untied unless tie_word_embeddings.
    {.model_type = "granite",
     .modeling = "transformers modeling_granite.py",
     .confirmed = true,
     .ignored = "embedding_multiplier residual_multiplier attention_multiplier logits_scaling"},
    // GraniteMoeHybrid (modeling_granitemoehybrid.py, Granite 4.0 H): layer_types "mamba" (Bamba's Mamba-2
    // mixer, width mamba_expand x hidden = mamba_n_heads x mamba_d_head, in/out projections biased by
    // mamba_proj_bias, the gated RMSNorm) or "attention" (Llama's, no q/k norm, biased by attention_bias);
    // every layer's shared_mlp (input_linear d -> 2 shared_intermediate_size, output_linear) is the dense
    // MLP without experts and the shared expert beside them (experts of intermediate_size, router unbiased);
    // the multipliers and position_embedding_type (rope holds buffers only) build nothing.
    {.model_type = "granitemoehybrid",
     .modeling = "transformers modeling_granitemoehybrid.py",
     .confirmed = true,
     .defaults = "vocab_size=32000 hidden_size=4096 intermediate_size=11008 num_hidden_layers=32 "
                 "num_attention_heads=32 max_position_embeddings=2048 tie_word_embeddings=false "
                 "num_local_experts=8 num_experts_per_tok=2 shared_intermediate_size=1024 mamba_num_heads=128 "
                 "n_groups=1 ssm_state_size=256 conv_kernel=4 mamba_expand=2 use_conv_bias=true use_bias=false",
     .aliases = "mamba_num_heads=mamba_n_heads mamba_head_dim=mamba_d_head n_groups=mamba_n_groups "
                "ssm_state_size=mamba_d_state conv_kernel=mamba_d_conv use_conv_bias=mamba_conv_bias "
                "use_bias=mamba_proj_bias",
     .ignored = "embedding_multiplier residual_multiplier attention_multiplier logits_scaling "
                "position_embedding_type normalization_function init_method",
     .ff_is_expert = true,
     .dense_ff_key = "shared_intermediate_size",
     .layer_type_names = "attention=full mamba=linear",
     .layer_types_required = true,
     .mixer = Mixer::kMamba2},
    // HunYuanDenseV1 (modular_hunyuan_v1_dense.py, Llama's layers): q, k, v and o biased by attention_bias;
    // query_layernorm and key_layernorm, RMSNorm(head_dim), always built (use_qk_norm is not read); the MLP
    // never biased (mlp_bias is not read); the class unties by default and leaves head_dim None (so it is
    // required: attention_head_dim is vLLM's fallback, not transformers'). Cross-layer attention (use_cla,
    // cla_share_factor) is vLLM's hunyuan_v1.py, not transformers': use_cla true is refused. Tencent's
    // classification-head and special-token keys build nothing.
    {.model_type = "hunyuan_v1_dense",
     .modeling = "transformers modeling_hunyuan_v1_dense.py",
     .confirmed = true,
     .defaults = "vocab_size=290943 hidden_size=4096 intermediate_size=11008 num_hidden_layers=32 "
                 "num_attention_heads=32 max_position_embeddings=2048 tie_word_embeddings=false head_dim=none",
     .ignored = "use_qk_norm mlp_bias attention_head_dim norm_type use_rotary_pos_emb org_vocab_size "
                "cla_share_factor dense_list add_classification_head class_num pool_type im_start_id im_end_id "
                "im_newline_id mask_init_id text_start_id text_end_id pad_id eod_token_id",
     .fixed = "use_cla=false",
     .qk_norm = QkNorm::kHead,
     .mlp_bias_key = ""},
    // configuration_jamba.py: Mamba-1 but attn_layer_offset mod attn_layer_period, MoE at
    // expert_layer_offset mod expert_layer_period; head_dim hidden / heads.
    {.model_type = "jamba",
     .modeling = "transformers modeling_jamba.py",
     .confirmed = true,
     .defaults = "vocab_size=65536 hidden_size=4096 intermediate_size=14336 num_hidden_layers=32 "
                 "num_attention_heads=32 max_position_embeddings=262144 num_key_value_heads=8 num_experts=16 "
                 "num_experts_per_tok=2 expert_layer_period=2 expert_layer_offset=1 attn_layer_period=8 "
                 "attn_layer_offset=4 mamba_d_state=16 mamba_d_conv=4 mamba_expand=2 mamba_conv_bias=true "
                 "mamba_proj_bias=false",
     .ignored = "use_mamba_kernels calc_logits_for_entire_prompt num_logits_to_keep",
     .ff_is_expert = true,
     .dense_ff_key = "intermediate_size",
     .mixer = Mixer::kMamba1,
     .quirks = kQuirkOneExpertIsDense},
    // Kimi-K2 names DeepseekV3ForCausalLM: its tensors are DeepSeek-V3's.
    [] {
      FamilyRow r = kDeepseekV3;
      r.model_type = "kimi_k2";
      r.requires_architecture = "DeepseekV3ForCausalLM";
      r.quirks = kQuirkNone;
      return r;
    }(),
    // Kimi-K2.5 / K2.6 (KimiK25ForConditionalGeneration, remote code; vLLM kimi_k25.py builds the
    // same tensors): the text_config is Kimi-K2 (DeepSeek-V3's), the vision tower MoonViT + projector.
    {.model_type = "kimi_k25",
     .modeling = "vLLM kimi_k25.py",
     .confirmed = true,
     .text_key = "text_config",
     .text_type = "kimi_k2",
     .vision = Tower::kMoonVit},
    // configuration_llama.py.
    // LFM2 (modeling_lfm2.py): layer_types "full_attention" (GQA with q_layernorm / k_layernorm of head_dim,
    // no biases) or "conv" (Lfm2ShortConv), else full_attn_idxs lists the attention layers, else every layer
    // attends; the gated MLP (w1, w3, w2) at LFM2's adjusted width; operator_norm and ffn_norm a layer and
    // embedding_norm, which is the final norm; tied unless tie_embedding / tie_word_embeddings says no.
    // block_ff_dim and tie_embedding are the older spellings (Lfm2Config prefers them and saves both: both
    // present must agree, kQuirkLfm2FfDim checks).
    // block_dim, conv_dim, conv_dim_out and num_heads repeat hidden_size and the heads; vLLM reads them.
    {.model_type = "lfm2",
     .modeling = "transformers modeling_lfm2.py",
     .confirmed = true,
     .defaults = "vocab_size=65536 hidden_size=2560 intermediate_size=12288 num_hidden_layers=32 "
                 "num_attention_heads=32 num_key_value_heads=8 max_position_embeddings=128000 "
                 "tie_word_embeddings=true conv_L_cache=3 conv_bias=false block_auto_adjust_ff_dim=true "
                 "block_multiple_of=256",
     .aliases = "intermediate_size=block_ff_dim tie_word_embeddings=tie_embedding",
     .ignored = "block_dim conv_dim conv_dim_out num_heads block_norm_eps block_mlp_init_scale "
                "block_out_init_scale block_use_swiglu block_use_xavier_init conv_use_xavier_init use_pos_enc",
     .bias_key = "",
     .qk_norm = QkNorm::kHead,
     .mlp_bias_key = "",
     .layer_type_names = "full_attention=full conv=linear",
     .mixer = Mixer::kShortConv,
     .quirks = kQuirkLfm2FfDim},
    {.model_type = "llama",
     .modeling = "transformers modeling_llama.py",
     .confirmed = true},
    // Llama4ForConditionalGeneration: llama4_text + the Llama 4 vision model.
    {.model_type = "llama4",
     .modeling = "transformers modeling_llama4.py",
     .confirmed = true,
     .text_key = "text_config",
     .text_type = "llama4_text",
     .vision = Tower::kLlama4},
    // configuration_llama4.py Llama4TextConfig: experts of intermediate_size, dense layers of
    // intermediate_size_mlp, one shared expert, chunked attention on RoPE layers, weightless qk norm.
    {.model_type = "llama4_text",
     .modeling = "transformers modeling_llama4.py",
     .confirmed = true,
     .defaults = "vocab_size=202048 hidden_size=5120 intermediate_size=8192 intermediate_size_mlp=16384 "
                 "num_hidden_layers=48 num_attention_heads=40 max_position_embeddings=131072 "
                 "num_key_value_heads=8 head_dim=128 num_local_experts=16 num_experts_per_tok=1 n_shared_experts=1 "
                 "attention_chunk_size=8192 no_rope_layer_interval=4 interleave_moe_layer_step=1",
     .ignored = "use_qk_norm attn_temperature_tuning floor_scale attn_scale router_aux_loss_coef",
     .ff_is_expert = true,
     .dense_ff_key = "intermediate_size_mlp",
     .layer_type_names = "full_attention=full chunked_attention=chunked"},
    // MiMo-7B (remote code MiMoForCausalLM; vLLM mimo.py is Qwen2Model): q, k, v biased, o never, whatever
    // attention_bias says; the MTP layers (model.mtp_layers.*) are loaded by the drafter, not counted here.
    {.model_type = "mimo",
     .modeling = "vLLM mimo.py (Qwen2Model)",
     .confirmed = true,
     .defaults = "num_key_value_heads=32 sliding_window=4096",
     .ignored = "attention_bias",
     .bias_key = "",
     .bias_default = true,
     .bias_on_o = false,
     .window = Window::kQwen,
     .mtp = Mtp::kUncounted},
    // configuration_mimo_v2_flash.py / modeling_mimo_v2_flash.py: q, k, v biased by attention_bias (o never),
    // head_dim 192 with v_head_dim 128; the sliding layers (hybrid_layer_pattern 1) hold their own KV heads
    // (swa_*, twice the full layers') and a sink per head; MoE without a shared expert after the dense first
    // layer (moe_layer_freq), the correction bias a buffer. transformers' config class derives the layer
    // pattern, the MLP pattern and the sliding KV heads (2 x num_key_value_heads) by rule; Hub configs state
    // them (hybrid_layer_pattern, moe_layer_freq, swa_num_key_value_heads), which are read as written.
    {.model_type = "mimo_v2_flash",
     .modeling = "transformers modeling_mimo_v2_flash.py",
     .confirmed = true,
     .defaults = "vocab_size=152576 hidden_size=4096 intermediate_size=16384 num_hidden_layers=48 "
                 "num_attention_heads=64 num_key_value_heads=4 max_position_embeddings=131072 "
                 "moe_intermediate_size=2048 num_experts_per_tok=8 n_routed_experts=256 head_dim=192 v_head_dim=128 "
                 "sliding_window=128 first_k_dense_replace=1",
     .ignored = "attention_chunk_size sliding_window_size",
     .fixed = "add_swa_attention_sink_bias=true add_full_attention_sink_bias=false",
     .bias_on_o = false,
     .score_bias = true},
    // configuration_minimax_m2.py / modeling_minimax_m2.py: Mixtral's experts (intermediate_size is their
    // width) and router, e_score_correction_bias a buffer, FlexOlmo attention without biases and with
    // q_norm / k_norm over the whole q and k widths; the MTP modules are not built.
    {.model_type = "minimax_m2",
     .modeling = "transformers modeling_minimax_m2.py",
     .confirmed = true,
     .defaults = "vocab_size=200064 hidden_size=3072 intermediate_size=1536 num_hidden_layers=62 "
                 "num_attention_heads=48 num_key_value_heads=8 head_dim=128 max_position_embeddings=196608 "
                 "num_experts_per_tok=8 num_local_experts=256",
     .aliases = "num_nextn_predict_layers=num_mtp_modules",
     .ignored = "use_mtp mtp_transformer_layers",
     .fixed = "use_qk_norm=true",
     .bias_key = "",
     .qk_norm = QkNorm::kWidth,
     .ff_is_expert = true,
     .score_bias = true,
     .mtp = Mtp::kUncounted},
    // configuration_mistral.py: kv 8, a window of 4096 on every layer unless null.
    {.model_type = "mistral",
     .modeling = "transformers modeling_mistral.py",
     .confirmed = true,
     .defaults = "num_key_value_heads=8 sliding_window=4096",
     .ignored = "sliding_window_size",
     .window = Window::kAll},
    // Mistral3ForConditionalGeneration: the text_config's model (Mistral) + Pixtral + projector.
    {.model_type = "mistral3",
     .modeling = "transformers modeling_mistral3.py",
     .confirmed = true,
     .text_key = "text_config",
     .text_type = "mistral",
     .vision = Tower::kPixtral},
    // configuration_mixtral.py: kv 8, 8 experts top-2 of intermediate_size, no window by default.
    {.model_type = "mixtral",
     .modeling = "transformers modeling_mixtral.py",
     .confirmed = true,
     .defaults = "num_key_value_heads=8 num_local_experts=8 num_experts_per_tok=2",
     .ff_is_expert = true,
     .window = Window::kAll},
    // Nemotron-NAS (DeciLMForCausalLM, the checkpoints' own modeling_decilm.py; sglang and vLLM
    // nemotron_nas.py build the same tensors): Llama's layers, each described by block_configs
    // (hf_config_blocks.cc), attention and MLP biased by attention_bias and mlp_bias.
    {.model_type = "nemotron-nas",
     .modeling = "sglang nemotron_nas.py (modeling_decilm.py)",
     .confirmed = true,
     .requires_architecture = "DeciLMForCausalLM",
     .block_configs = true},
    // configuration_nemotron_h.py: the layers are hybrid_override_pattern's; one RMSNorm a block; relu2
    // MLP (up/down); Mamba-2 with its gated norm; the MoE block's score bias a buffer.
    {.model_type = "nemotron_h",
     .modeling = "transformers modeling_nemotron_h.py",
     .confirmed = true,
     .defaults = "vocab_size=131072 hidden_size=4096 intermediate_size=21504 num_attention_heads=32 "
                 "max_position_embeddings=4096 num_key_value_heads=8 head_dim=128 n_routed_experts=8 "
                 "num_experts_per_tok=2 moe_intermediate_size=7688 n_shared_experts=1 "
                 "moe_shared_expert_intermediate_size=7688 mamba_num_heads=128 mamba_head_dim=64 n_groups=8 "
                 "ssm_state_size=128 conv_kernel=4 use_conv_bias=true use_bias=false mamba_rms_norm=true",
     .aliases = "head_dim=attention_head_dim",
     .ignored = "expand mamba_proj_bias chunk_size time_step_rank moe_shared_expert_overlap "
                "mtp_hybrid_override_pattern mtp_layers_block_type",
     .fixed = "n_shared_experts=1",
     .layer_norms = 1,
     .gated = false,
     .score_bias = true,
     .mixer = Mixer::kMamba2,
     .mtp = Mtp::kUncounted,
     .quirks = kQuirkLayersFromPattern},
    // configuration_olmo2.py: q_norm / k_norm over the whole q and k widths; no input norm
    // (post-attention and post-feedforward norms instead: still two a layer).
    {.model_type = "olmo2",
     .modeling = "transformers modeling_olmo2.py",
     .confirmed = true,
     .qk_norm = QkNorm::kWidth},
    // OLMo 3 (modular_olmo3.py): OLMo 2's modules (q_norm / k_norm over the whole q and k widths, post-attention
    // and post-feedforward norms, no biases); the layer_types slide over sliding_window, else all but every
    // 4th layer (configuration_olmo3.py's default list).
    {.model_type = "olmo3",
     .modeling = "transformers modeling_olmo3.py",
     .confirmed = true,
     .defaults = "sliding_window=4096 sliding_window_pattern=4",
     .fixed = "sliding_window_pattern=4",
     .qk_norm = QkNorm::kWidth,
     .window = Window::kAlternate},
    // configuration_opt.py / modeling_opt.py: LayerNorm, enable_bias on every Linear (kQuirkOpt).
    {.model_type = "opt",
     .modeling = "transformers modeling_opt.py",
     .confirmed = true,
     .defaults = "tie_word_embeddings=true",
     .aliases = "intermediate_size=ffn_dim",
     .norm = Norm::kLayer,
     .bias_key = "enable_bias",
     .bias_default = true,
     .gated = false,
     .mlp_bias_key = "enable_bias",
     .mlp_bias_default = true,
     .quirks = kQuirkOpt},
    // modeling_phi.py: one LayerNorm feeding attention and MLP in parallel, every Linear biased,
    // q/k LayerNorm(head_dim) when qk_layernorm, lm_head with a bias.
    kPhi,
    // configuration_phi3.py: fused qkv_proj / gate_up_proj (the same counts), a window on every layer when set.
    {.model_type = "phi3",
     .modeling = "transformers modeling_phi3.py",
     .confirmed = true,
     .window = Window::kAll},
    // configuration_qwen2.py: kv 32; q, k, v always biased, o never.
    {.model_type = "qwen2",
     .modeling = "transformers modeling_qwen2.py",
     .confirmed = true,
     .defaults = "num_key_value_heads=32 sliding_window=4096",
     .bias_key = "",
     .bias_default = true,
     .bias_on_o = false,
     .window = Window::kQwen},
    // configuration_qwen2_moe.py: qkv_bias (o never), 60 experts top-4, one gated shared expert.
    {.model_type = "qwen2_moe",
     .modeling = "transformers modeling_qwen2_moe.py",
     .confirmed = true,
     .defaults = "num_key_value_heads=16 num_experts=60 num_experts_per_tok=4 moe_intermediate_size=1408 "
                 "shared_expert_intermediate_size=5632",
     .bias_key = "qkv_bias",
     .bias_default = true,
     .bias_on_o = false,
     .shared_gate = true,
     .window = Window::kRefuse},
    // configuration_qwen3.py: kv 32, head_dim 128, q/k norms of head_dim.
    {.model_type = "qwen3",
     .modeling = "transformers modeling_qwen3.py",
     .confirmed = true,
     .defaults = "num_key_value_heads=32 head_dim=128 sliding_window=4096",
     .qk_norm = QkNorm::kHead,
     .window = Window::kQwen},
    // Qwen3.5 (modeling_qwen3_5.py): qwen3_5_text in text_config, the Qwen3-VL tower without deepstack.
    {.model_type = "qwen3_5",
     .modeling = "transformers modeling_qwen3_5.py",
     .confirmed = true,
     .text_key = "text_config",
     .text_type = "qwen3_5_text",
     .vision = Tower::kQwen3Vl},
    // Qwen3.5-MoE (modeling_qwen3_5_moe.py).
    {.model_type = "qwen3_5_moe",
     .modeling = "transformers modeling_qwen3_5_moe.py",
     .confirmed = true,
     .text_key = "text_config",
     .text_type = "qwen3_5_moe_text",
     .vision = Tower::kQwen3Vl},
    // Qwen3_5MoeTextConfig (a Qwen3NextConfig): Qwen3-Next's gated attention and Gated DeltaNet, the
    // Qwen3-Next MoE block (gated shared expert) on every layer (mlp_only_layers is not a field).
    {.model_type = "qwen3_5_moe_text",
     .modeling = "transformers modeling_qwen3_5_moe.py",
     .confirmed = true,
     .defaults = "vocab_size=248320 hidden_size=2048 num_hidden_layers=40 num_attention_heads=16 "
                 "max_position_embeddings=32768 num_key_value_heads=2 head_dim=256 num_experts=256 "
                 "num_experts_per_tok=8 moe_intermediate_size=512 shared_expert_intermediate_size=512 "
                 "full_attention_interval=4 linear_num_key_heads=16 linear_num_value_heads=32 "
                 "linear_key_head_dim=128 linear_value_head_dim=128 linear_conv_kernel_dim=4",
     .aliases = "num_nextn_predict_layers=mtp_num_hidden_layers",
     .ignored = "mtp_use_dedicated_embeddings output_gate_type",
     .fixed = "attn_output_gate=true mlp_only_layers=[] use_sliding_window=false",
     .qk_norm = QkNorm::kHead,
     .output_gate = true,
     .shared_gate = true,
     .layer_type_names = "full_attention=full linear_attention=linear",
     .mixer = Mixer::kGatedDeltaNet,
     .mtp = Mtp::kUncounted},
    // Qwen3_5TextConfig (a Qwen3NextConfig): the same layers with a dense MLP of intermediate_size.
    {.model_type = "qwen3_5_text",
     .modeling = "transformers modeling_qwen3_5.py",
     .confirmed = true,
     .defaults = "vocab_size=248320 hidden_size=4096 intermediate_size=12288 num_hidden_layers=32 "
                 "num_attention_heads=16 max_position_embeddings=32768 num_key_value_heads=4 head_dim=256 "
                 "full_attention_interval=4 linear_num_key_heads=16 linear_num_value_heads=32 "
                 "linear_key_head_dim=128 linear_value_head_dim=128 linear_conv_kernel_dim=4",
     .aliases = "num_nextn_predict_layers=mtp_num_hidden_layers",
     .ignored = "mtp_use_dedicated_embeddings output_gate_type",
     .fixed = "attn_output_gate=true use_sliding_window=false",
     .qk_norm = QkNorm::kHead,
     .output_gate = true,
     .layer_type_names = "full_attention=full linear_attention=linear",
     .mixer = Mixer::kGatedDeltaNet,
     .mtp = Mtp::kUncounted},
    // configuration_qwen3_moe.py: kv 4, no head_dim (hidden / heads), 128 experts top-8 of 768.
    {.model_type = "qwen3_moe",
     .modeling = "transformers modeling_qwen3_moe.py",
     .confirmed = true,
     .defaults = "num_key_value_heads=4 num_experts=128 num_experts_per_tok=8 moe_intermediate_size=768",
     .ignored = "qkv_bias use_qk_norm",
     .qk_norm = QkNorm::kHead,
     .window = Window::kRefuse},
    // configuration_qwen3_next.py: gated attention (q_proj emits the output gate), Gated DeltaNet on 3 of
    // 4 layers, the Qwen2-MoE block with a gated shared expert everywhere.
    {.model_type = "qwen3_next",
     .modeling = "transformers modeling_qwen3_next.py",
     .confirmed = true,
     .defaults = "vocab_size=151936 hidden_size=2048 intermediate_size=5632 num_hidden_layers=48 "
                 "num_attention_heads=16 max_position_embeddings=32768 num_key_value_heads=2 head_dim=256 "
                 "num_experts=512 num_experts_per_tok=10 moe_intermediate_size=512 "
                 "shared_expert_intermediate_size=512 full_attention_interval=4 linear_num_key_heads=16 "
                 "linear_num_value_heads=32 linear_key_head_dim=128 linear_value_head_dim=128 "
                 "linear_conv_kernel_dim=4",
     .fixed = "use_sliding_window=false",
     .qk_norm = QkNorm::kHead,
     .output_gate = true,
     .shared_gate = true,
     .layer_type_names = "full_attention=full linear_attention=linear",
     .mixer = Mixer::kGatedDeltaNet},
    // Qwen3-VL (modeling_qwen3_vl.py): qwen3_vl_text in text_config, the Qwen3-VL vision tower.
    {.model_type = "qwen3_vl",
     .modeling = "transformers modeling_qwen3_vl.py",
     .confirmed = true,
     .text_key = "text_config",
     .text_type = "qwen3_vl_text",
     .vision = Tower::kQwen3Vl},
    // Qwen3-VL-MoE (modeling_qwen3_vl_moe.py): qwen3_vl_moe_text, the same tower.
    {.model_type = "qwen3_vl_moe",
     .modeling = "transformers modeling_qwen3_vl_moe.py",
     .confirmed = true,
     .text_key = "text_config",
     .text_type = "qwen3_vl_moe_text",
     .vision = Tower::kQwen3Vl},
    // Qwen3VLMoeTextConfig (a Qwen3MoeConfig with these defaults): Qwen3-MoE layers, q/k norms of head_dim.
    {.model_type = "qwen3_vl_moe_text",
     .modeling = "transformers modeling_qwen3_vl_moe.py",
     .confirmed = true,
     .defaults = "vocab_size=151936 hidden_size=2048 intermediate_size=5632 num_hidden_layers=24 "
                 "num_attention_heads=16 num_key_value_heads=16 max_position_embeddings=128000 "
                 "moe_intermediate_size=1408 num_experts_per_tok=4 num_experts=60 head_dim=none "
                 "tie_word_embeddings=true",
     .qk_norm = QkNorm::kHead},
    // Qwen3VLTextConfig: Qwen3's layers (q/k norms of head_dim).
    {.model_type = "qwen3_vl_text",
     .modeling = "transformers modeling_qwen3_vl.py",
     .confirmed = true,
     .defaults = "vocab_size=151936 hidden_size=4096 intermediate_size=22016 num_hidden_layers=32 "
                 "num_attention_heads=32 num_key_value_heads=32 head_dim=128 max_position_embeddings=128000",
     .qk_norm = QkNorm::kHead},
    // configuration_seed_oss.py / modular_seed_oss.py: Llama's layers; q, k, v biased by attention_bias
    // (default true), o by a key of its own, attention_out_bias (default false); mlp_bias; residual_dropout
    // builds nothing.
    {.model_type = "seed_oss",
     .modeling = "transformers modeling_seed_oss.py",
     .confirmed = true,
     .defaults = "vocab_size=155136 hidden_size=4096 intermediate_size=27648 num_hidden_layers=64 "
                 "num_attention_heads=80 num_key_value_heads=8 head_dim=128 max_position_embeddings=524288",
     .ignored = "residual_dropout",
     .bias_default = true,
     .o_bias_key = "attention_out_bias"},
    // SmolLM3 (modeling_smollm3.py): Llama's layers (q, k, v, o and the MLP biased only by attention_bias /
    // mlp_bias, RMSNorm, tied by tie_word_embeddings); no_rope_layers only says which layers rotate positions
    // (NoPE holds the same weights), the layer_types which slide.
    {.model_type = "smollm3",
     .modeling = "transformers modeling_smollm3.py",
     .confirmed = true,
     .defaults = "vocab_size=128256 hidden_size=2048 intermediate_size=11008 num_hidden_layers=36 "
                 "num_attention_heads=16 num_key_value_heads=4 sliding_window=none",
     .window = Window::kQwen},
    // configuration_step3p7.py / modeling_step3p7.py: Step3p7TextModel and an lm_head. A flat config
    // (architectures Step3p7FlashForCausalLM, as the text checkpoints ship) holds Step3p7TextConfig's keys;
    // the vision-language wrapper (text_config + vision_config, Step3p7ForConditionalGeneration) is not read
    // (text_config is refused by name). q/k norms of head_dim, g_proj gating each head, the layer_types'
    // sliding window; MoE from layer 3 on (its default) with one always-active shared expert of
    // share_expert_dim, the router's correction bias a buffer; per-layer lists may list the MTP layers too.
    {.model_type = "step3p7",
     .modeling = "transformers modeling_step3p7.py",
     .confirmed = true,
     .defaults = "vocab_size=128815 hidden_size=4096 intermediate_size=11264 num_hidden_layers=45 "
                 "num_attention_heads=64 num_key_value_heads=8 head_dim=128 max_position_embeddings=128000 "
                 "num_experts_per_tok=8 n_routed_experts=288 moe_intermediate_size=1280 share_expert_dim=1280 "
                 "first_k_dense_replace=3 n_shared_experts=1",
     .aliases = "num_experts_per_tok=moe_top_k num_key_value_heads=num_attention_groups "
                "share_expert_dim=share_expert_dims num_nextn_predict_layers=num_mtp_layers",
     .ignored = "swiglu_limits swiglu_limits_shared",
     .fixed = "first_k_dense_replace=3 n_shared_experts=1",
     .qk_norm = QkNorm::kHead,
     .head_gate = true,
     .score_bias = true,
     .pattern_covers_mtp = true,
     .mtp = Mtp::kUncounted},
};

// Legacy spellings of remote-code checkpoints whose tensors are a row's.
constexpr FamilyRow kLegacy[] = {
    [] {
      FamilyRow r = kFalcon;
      r.model_type = "RefinedWeb";
      r.aliases = "hidden_size=n_embed num_hidden_layers=n_layer num_attention_heads=n_head "
                  "num_key_value_heads=n_head_kv num_key_value_heads=num_kv_heads intermediate_size=ffn_hidden_size";
      return r;
    }(),
    [] {
      FamilyRow r = kFalcon;
      r.model_type = "RefinedWebModel";
      r.aliases = "hidden_size=n_embed num_hidden_layers=n_layer num_attention_heads=n_head "
                  "num_key_value_heads=n_head_kv num_key_value_heads=num_kv_heads intermediate_size=ffn_hidden_size";
      return r;
    }(),
    // phi-msft (MixFormer): the same tensors under n_embd, n_layer, n_head, n_head_kv, n_inner (None: 4 x d).
    [] {
      FamilyRow r = kPhi;
      r.model_type = "phi-msft";
      r.defaults = "max_position_embeddings=2048 intermediate_size=4h";
      r.aliases = "hidden_size=n_embd num_hidden_layers=n_layer num_attention_heads=n_head "
                  "num_key_value_heads=n_head_kv intermediate_size=n_inner max_position_embeddings=n_positions";
      r.ignored = "n_ctx img_processor";
      return r;
    }(),
};

constexpr FamilyRow kGeneric{
    .model_type = "",
    .modeling = "the generic rules (Llama's defaults)",
};

}  // namespace

std::span<const FamilyRow> family_table() { return kRows; }

const FamilyRow* find_family(std::string_view model_type) {
  for (const FamilyRow& r : kRows) {
    if (r.model_type == model_type) return &r;
  }
  for (const FamilyRow& r : kLegacy) {
    if (r.model_type == model_type) return &r;
  }
  return nullptr;
}

const FamilyRow& generic_family() { return kGeneric; }

}  // namespace modelcalc::hf
