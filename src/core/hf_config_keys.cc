// The keys no family builds a parameter or a layer kind from, the row-string
// helpers of the family table, and the check that every key of a config was
// placed.
#include <charconv>
#include <string>

#include "hf_decoder.h"

namespace modelcalc::hf {
namespace {

// Keys that configure things other than the shape: token ids, dtypes,
// dropout, initialisation, norm epsilons, activations (the FFN's form is the
// family's, not the activation's), rotary settings, softcaps and scales,
// routing hyperparameters, generation defaults, the PretrainedConfig
// bookkeeping, and multimodal token plumbing. None adds or removes a weight in
// any family of the table (a key that does in one family is read there, not
// listed here).
constexpr std::string_view kHarmless =
    // bookkeeping
    " _name_or_path _commit_hash _attn_implementation attn_implementation architectures auto_map model_type"
    " transformers_version torch_dtype dtype use_cache use_bfloat16 torchscript tf_legacy_loss return_dict"
    " output_attentions output_hidden_states pruned_heads problem_type finetuning_task id2label label2id"
    " prefix task_specific_params tokenizer_class cache_implementation is_decoder is_encoder_decoder"
    " chunk_size_feed_forward cross_attention_hidden_size num_logits_to_keep _modelcalc num_labels unk_token_id"
    " pretraining_tp"
    // token ids and multimodal plumbing
    " bos_token_id eos_token_id pad_token_id sep_token_id decoder_start_token_id image_token_id"
    " image_token_index video_token_id video_token_index audio_token_id boi_token_id boi_token_index"
    " eoi_token_id eoi_token_index boa_token_id eoa_token_id eoa_token_index vision_start_token_id"
    " vision_end_token_id media_placeholder_token_id image_placeholder video_placeholder ignore_index"
    " image_seq_length mm_tokens_per_image vision_soft_tokens_per_image image_grid_pinpoints process_image_mode"
    " vision_feature_select_strategy projector_hidden_act img_token_compression_config use_unified_vision_chunk"
    " use_bidirectional_attention"
    // initialisation, epsilons, dropout, activations
    " initializer_range init_std initializer_factor rms_norm_eps layer_norm_eps layer_norm_epsilon"
    " layernorm_epsilon norm_eps hidden_act hidden_activation activation_function mlp_hidden_act"
    " mamba_hidden_act attention_dropout hidden_dropout dropout activation_dropout attn_pdrop resid_pdrop"
    " embd_pdrop layerdrop classifier_dropout summary_activation summary_first_dropout summary_proj_to_labels"
    " summary_type summary_use_proj swiglu_alpha swiglu_limit"
    // positions by rotation, scales and softcaps
    " rope_theta rope_scaling rope_parameters rope_interleave partial_rotary_factor rotary_dim rotary_pct"
    " swa_rope_theta compress_rope_theta hc_eps hc_sinkhorn_iters attention_value_scale"
    " rotary_emb_base rope_local_base_freq original_max_position_embeddings use_mrope mrope_section"
    " attn_logit_softcapping final_logit_softcapping query_pre_attn_scalar initial_context_length"
    " scale_attn_weights scale_attn_by_inverse_layer_idx reorder_and_upcast_attn n_ctx"
    " attention_softmax_in_fp32 masked_softmax_fusion slow_but_exact offset_alibi alibi"
    " apply_residual_connection_post_layernorm use_parallel_residual flash_attn flash_rotary fused_dense"
    " bias_dropout_fusion skip_bias_add skip_bias_add_qkv"
    // which layers rotate positions (RoPE or NoPE holds the same weights; Llama 4 reads them for its chunks)
    " no_rope_layers no_rope_layer_interval"
    // routing hyperparameters (the router's weight is placed by the expert count)
    " router_aux_loss_coef router_z_loss_coef output_router_logits router_jitter_noise aux_loss_alpha seq_aux"
    " norm_topk_prob routed_scaling_factor scoring_func topk_method n_group topk_group num_expert_group"
    " use_grouped_topk moe_renormalize moe_router_activation_func moe_router_scaling_factor moe_router_dtype"
    " ep_size"
    // recurrent-state numerics (the state's dtype is the deployment's)
    " mamba_ssm_cache_dtype mamba_ssm_dtype time_step_min time_step_max time_step_floor time_step_limit"
    " mamba_chunk_size residual_in_fp32 rescale_prenorm_residual use_mamba_kernels"
    // generation defaults
    " max_length min_length do_sample early_stopping num_beams num_beam_groups diversity_penalty temperature"
    " top_k top_p typical_p repetition_penalty length_penalty no_repeat_ngram_size encoder_no_repeat_ngram_size"
    " bad_words_ids num_return_sequences output_scores return_dict_in_generate forced_bos_token_id"
    " forced_eos_token_id remove_invalid_values exponential_decay_length_penalty suppress_tokens"
    " begin_suppress_tokens ";

bool parse_int(std::string_view s, int64_t& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace

bool row_lists(std::string_view list, std::string_view word) {
  size_t pos = 0;
  while (pos < list.size()) {
    const size_t end = std::min(list.find(' ', pos), list.size());
    if (list.substr(pos, end - pos) == word) return true;
    pos = end + 1;
  }
  return false;
}

std::string_view row_text(std::string_view list, std::string_view key) {
  size_t pos = 0;
  while (pos < list.size()) {
    const size_t end = std::min(list.find(' ', pos), list.size());
    const std::string_view item = list.substr(pos, end - pos);
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos && item.substr(0, eq) == key) return item.substr(eq + 1);
    pos = end + 1;
  }
  return {};
}

std::optional<int64_t> row_value(std::string_view list, std::string_view key) {
  const std::string_view t = row_text(list, key);
  if (t.empty()) return std::nullopt;
  if (t == "none") return kClassNone;
  if (t == "true") return 1;
  if (t == "false") return 0;
  int64_t v = 0;
  if (!parse_int(t, v)) return std::nullopt;  // a malformed row is a bug; family_table_test catches it
  return v;
}

bool is_harmless_key(std::string_view key) {
  return row_lists(kHarmless, key);
}

// Keys that build nothing at this value (and something at another).
bool harmless_at_value(const Cfg& c, std::string_view key) {
  if (key != "add_cross_attention" && key != "tie_encoder_decoder") return false;
  const nlohmann::json* v = c.raw(key);
  return v != nullptr && (v->is_null() || (v->is_boolean() && !v->get<bool>()));
}

Status check_placed(const Cfg& c, const FamilyRow& row) {
  for (const std::string& k : c.unused_keys()) {
    if (is_harmless_key(k) || row_lists(row.ignored, k) || harmless_at_value(c, k)) continue;
    return c.error(k, "not placed: modelcalc does not know what model_type '" + c.model_type() +
                          "' builds from this key, so it does not guess a count (the models command lists the "
                          "families it reads)");
  }
  return Status::Ok();
}

}  // namespace modelcalc::hf
