// The generic interpreter of config.json: the keys Hub configs share, read
// into one Decoder with the defaults, spellings and mechanisms the family's
// row names (hf_config_family.h), then the layer pattern and MoE placement
// (hf_config_layers.cc, hf_config_moe.cc), the recurrent mixer, the vision
// tower of a wrapper (hf_config_towers.cc), and the check that every key was
// placed. Nothing here is specific to one family: a family's differences are
// its row.
#include <algorithm>
#include <string>
#include <tuple>

#include "hf_decoder.h"

namespace modelcalc::hf {
namespace {

constexpr std::string_view kFourHiddenText = "4h";

// intermediate_size with the row's default, where "4h" (GPT-2's n_inner None,
// Falcon's ffn_hidden_size None, BLOOM) is four times the hidden size.
Result<int64_t> read_ff(Cfg& c, const FamilyRow& row, int64_t d) {
  if (!c.has_value("intermediate_size") && row_text(row.defaults, "intermediate_size") == kFourHiddenText) {
    c.mark_used("intermediate_size");
    return 4 * d;  // d <= 2^31 (Cfg caps integers)
  }
  return need_int(c, row, "intermediate_size");
}

// modeling_falcon.py: the fused query_key_value's KV heads and the norms of a
// block (kQuirkFalcon in hf_config_family.h).
Status read_falcon(Cfg& c, const FamilyRow& row, Decoder& a) {
  const bool legacy = c.model_type() == "RefinedWeb" || c.model_type() == "RefinedWebModel";
  MC_ASSIGN_OR_RETURN(const bool new_arch, c.flag("new_decoder_architecture", legacy && c.has("n_head_kv")));
  MC_ASSIGN_OR_RETURN(const bool mq, get_bool(c, row, "multi_query", true));
  MC_ASSIGN_OR_RETURN(const bool parallel, get_bool(c, row, "parallel_attn", true));
  MC_ASSIGN_OR_RETURN(auto n_ln, c.opt("num_ln_in_parallel_attn", std::nullopt));
  MC_ASSIGN_OR_RETURN(auto kv, c.opt("num_key_value_heads", std::nullopt));
  a.kv_heads = new_arch ? kv.value_or(a.heads) : mq ? 1 : a.heads;
  const int64_t lns = n_ln.value_or(new_arch ? 2 : 1);
  a.layer_norms = !parallel ? 2 : (lns == 2 ? 2 : 1);
  return Status::Ok();
}

// modeling_opt.py (kQuirkOpt).
Status read_opt(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(const bool pre_ln, get_bool(c, row, "do_layer_norm_before", true));
  MC_ASSIGN_OR_RETURN(const bool rm_final, c.flag("_remove_final_layer_norm", false));
  MC_ASSIGN_OR_RETURN(const bool affine, c.flag("layer_norm_elementwise_affine", true));
  MC_ASSIGN_OR_RETURN(auto proj, c.opt("word_embed_proj_dim", std::nullopt));
  MC_ASSIGN_OR_RETURN(const int64_t pos, need_int(c, row, "max_position_embeddings"));
  a.norm = affine ? Norm::kLayer : Norm::kNone;
  a.final_norm = pre_ln && !rm_final;
  a.embed_proj = proj && *proj != a.d ? *proj : 0;
  a.position_rows = pos + 2;  // OPTLearnedPositionalEmbedding's offset of 2
  return Status::Ok();
}

// Tying: the config's own key, else a wrapper's (Qwen3-VL states it only at the
// top), else the class default; a text config and its wrapper that disagree are refused.
Result<bool> read_tied(Cfg& c, const FamilyRow& row, const Cfg* wrapper) {
  if (wrapper != nullptr && wrapper->has_value("tie_word_embeddings")) {
    MC_ASSIGN_OR_RETURN(const bool outer, wrapper->flag("tie_word_embeddings", false));
    if (!c.has_value("tie_word_embeddings")) return outer;
    MC_ASSIGN_OR_RETURN(const bool inner, c.flag("tie_word_embeddings", false));
    if (inner != outer) {
      return c.error("tie_word_embeddings", "disagrees with the wrapper's tie_word_embeddings; give one value");
    }
    return inner;
  }
  return get_bool(c, row, "tie_word_embeddings", false);
}

// The keys every decoder has: width, layers, heads, vocabulary, context, tying.
Status read_core(Cfg& c, const FamilyRow& row, const Cfg* wrapper, Decoder& a) {
  MC_ASSIGN_OR_RETURN(a.d, need_int(c, row, "hidden_size"));
  if (!row.has(kQuirkLayersFromPattern)) {
    MC_ASSIGN_OR_RETURN(a.layers, need_int(c, row, "num_hidden_layers"));
  }
  MC_ASSIGN_OR_RETURN(a.heads, need_int(c, row, "num_attention_heads"));
  MC_ASSIGN_OR_RETURN(a.vocab, need_int(c, row, "vocab_size"));
  MC_ASSIGN_OR_RETURN(auto ctx, get_int(c, row, "max_position_embeddings"));
  a.ctx = ctx.value_or(0);
  MC_ASSIGN_OR_RETURN(a.tied, read_tied(c, row, wrapper));
  if (row.has(kQuirkFalcon)) {
    MC_RETURN_IF_ERROR(read_falcon(c, row, a));
  } else {
    MC_ASSIGN_OR_RETURN(auto kv, get_int(c, row, "num_key_value_heads"));
    a.kv_heads = kv.value_or(a.heads);
  }
  MC_ASSIGN_OR_RETURN(auto hd, get_int(c, row, "head_dim"));
  if (!hd && row_value(row.defaults, "head_dim") == kClassNone) {  // the class keeps None: nothing to build
    return c.error("head_dim", "missing; model_type '" + c.model_type() + "' sizes its heads by it alone (its "
                               "configuration class leaves it None, and hidden_size / heads is not its rule)");
  }
  if (!hd && a.d % a.heads != 0) {
    return c.error("num_attention_heads",
                   "must divide hidden_size (" + std::to_string(a.d) + ") when head_dim is not set");
  }
  a.head_dim = hd.value_or(a.d / a.heads);
  if (a.kv_heads > a.heads || a.heads % a.kv_heads != 0) {
    return c.error("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(a.heads) +
                                              "), got " + std::to_string(a.kv_heads));
  }
  if (row.has(kQuirkOpt)) return read_opt(c, row, a);
  if (!row.position_key.empty()) {
    MC_ASSIGN_OR_RETURN(a.position_rows, need_int(c, row, row.position_key));
  }
  return Status::Ok();
}

// The QK norm a row or its keys switch on (qk_norm_type: MiniMax's names).
Result<QkNorm> read_qk_norm(Cfg& c, const FamilyRow& row) {
  QkNorm kind = row.qk_norm;
  if (!row.qk_norm_key.empty()) {
    MC_ASSIGN_OR_RETURN(const bool on, get_bool(c, row, row.qk_norm_key, false));
    if (!on) return QkNorm::kNone;
  }
  MC_ASSIGN_OR_RETURN(auto type, c.str("qk_norm_type"));
  if (type) {
    if (*type == "per_layer") return QkNorm::kWidth;
    if (*type == "per_head") return QkNorm::kHead;
    return c.error("qk_norm_type", "'" + *type + "' is not a norm the reader knows (per_layer, per_head)");
  }
  return kind;
}

// Multi-head latent attention (kv_lora_rank) and DeepSeek Sparse Attention's indexer.
Status read_mla(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(a.lora_kv, need_int(c, row, "kv_lora_rank"));
  MC_ASSIGN_OR_RETURN(a.rope, need_int(c, row, "qk_rope_head_dim"));
  MC_ASSIGN_OR_RETURN(a.nope, need_int(c, row, "qk_nope_head_dim"));
  MC_ASSIGN_OR_RETURN(a.v_dim, need_int(c, row, "v_head_dim"));
  if (!c.has("q_lora_rank") && row.has(kQuirkQLoraAbsentIsNull)) {
    a.assumptions.push_back("q_lora_rank is absent from the config: read as null (a plain q_proj, as "
                            "DeepSeek-V2-Lite is built); transformers' class default, 1536, would build a "
                            "different model");
  } else {
    MC_ASSIGN_OR_RETURN(auto q_lora, get_int(c, row, "q_lora_rank"));
    a.lora_q = q_lora.value_or(0);
  }
  a.head_dim = a.nope + a.rope;
  MC_ASSIGN_OR_RETURN(auto qk, c.opt("qk_head_dim", std::nullopt));
  if (qk && *qk != a.head_dim) {
    return c.error("qk_head_dim", "must be qk_nope_head_dim + qk_rope_head_dim (" + std::to_string(a.head_dim) + ")");
  }
  const bool dsa = row_value(row.defaults, "index_topk").has_value() || c.has_value("index_topk") ||
                   c.has_value("index_n_heads") || c.has_value("index_head_dim");
  if (!dsa) return Status::Ok();
  if (a.lora_q == 0) return c.error("q_lora_rank", "the sparse-attention indexer reads the q LoRA: give q_lora_rank");
  MC_ASSIGN_OR_RETURN(a.index_heads, need_int(c, row, "index_n_heads"));
  MC_ASSIGN_OR_RETURN(a.index_dim, need_int(c, row, "index_head_dim"));
  MC_ASSIGN_OR_RETURN(a.index_topk, need_int(c, row, "index_topk"));
  // GLM-5.2's indexer_types: a "shared" layer reuses the previous layer's top-k (its indexer is still built).
  MC_ASSIGN_OR_RETURN(auto types, c.str_list("indexer_types"));
  const auto shared = std::count(types.begin(), types.end(), std::string("shared"));
  if (shared > 0) {
    a.assumptions.push_back(std::to_string(shared) + " of " + std::to_string(types.size()) +
                            " layers reuse the previous layer's top-k (indexer_types \"shared\"): their indexer "
                            "is counted among the parameters, and the engine still charges its scoring");
  }
  return Status::Ok();
}

// DeepSeek-V4's grouped low-rank output: o_groups blocks of o_lora_rank (o_a_proj), then o_b_proj.
Status read_output_projection(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto groups, get_int(c, row, "o_groups"));
  MC_ASSIGN_OR_RETURN(auto rank, get_int(c, row, "o_lora_rank"));
  if (!groups && !rank) return Status::Ok();
  if (!groups || !rank) return c.error(groups ? "o_lora_rank" : "o_groups", "missing; o_groups and o_lora_rank go together");
  if (a.heads % *groups != 0) return c.error("o_groups", "must divide num_attention_heads");
  a.o_groups = *groups;
  a.o_lora = *rank;
  return Status::Ok();
}

// The attention of the sliding or the full layers where it differs, under its keys' names: MiMo-V2's
// swa_* keys and sink switches, Gemma 4's global_head_dim / num_global_key_value_heads /
// attention_k_eq_v, Step-3.7's num_sliding_attention_heads.
Status read_layer_shapes(Cfg& c, const FamilyRow& row, Decoder& a) {
  AttnShape& swa = a.swa_shape;
  AttnShape& full = a.full_shape;
  MC_ASSIGN_OR_RETURN(auto swa_heads, get_int(c, row, "swa_num_attention_heads"));
  MC_ASSIGN_OR_RETURN(auto sliding_heads, get_int(c, row, "num_sliding_attention_heads"));
  MC_ASSIGN_OR_RETURN(auto swa_kv, get_int(c, row, "swa_num_key_value_heads"));
  MC_ASSIGN_OR_RETURN(auto swa_hd, get_int(c, row, "swa_head_dim"));
  MC_ASSIGN_OR_RETURN(auto swa_dv, get_int(c, row, "swa_v_head_dim"));
  swa.heads = swa_heads.value_or(sliding_heads.value_or(0));
  swa.kv_heads = swa_kv.value_or(0);
  swa.head_dim = swa_hd.value_or(0);
  swa.v_head_dim = swa_dv.value_or(0);
  if (c.has_value("add_swa_attention_sink_bias")) {
    MC_ASSIGN_OR_RETURN(const bool b, c.flag("add_swa_attention_sink_bias", false));
    swa.sinks = b;
  }
  if (c.has_value("add_full_attention_sink_bias")) {
    MC_ASSIGN_OR_RETURN(const bool b, c.flag("add_full_attention_sink_bias", false));
    full.sinks = b;
  }
  MC_ASSIGN_OR_RETURN(auto global_hd, get_int(c, row, "global_head_dim"));
  MC_ASSIGN_OR_RETURN(const bool k_eq_v, get_bool(c, row, "attention_k_eq_v", false));
  MC_ASSIGN_OR_RETURN(auto global_kv, get_int(c, row, "num_global_key_value_heads"));
  full.head_dim = global_hd.value_or(0);
  full.v_from_k = k_eq_v;
  if (k_eq_v) full.kv_heads = global_kv.value_or(0);
  for (const AttnShape* sh : {&swa, &full}) {
    const int64_t heads = sh->heads > 0 ? sh->heads : a.heads, kv = sh->kv_heads > 0 ? sh->kv_heads : a.kv_heads;
    if (kv > heads || heads % kv != 0) {
      return c.error(sh == &swa ? "swa_num_key_value_heads" : "num_global_key_value_heads",
                     "must divide the layers' attention heads (" + std::to_string(heads) + ")");
    }
  }
  return Status::Ok();
}

Status read_attention(Cfg& c, const FamilyRow& row, Decoder& a) {
  bool bias = row.bias_default;
  if (!row.bias_key.empty()) {
    MC_ASSIGN_OR_RETURN(bias, get_bool(c, row, row.bias_key, row.bias_default));
  }
  a.qkv_bias = bias;
  a.o_bias = bias && row.bias_on_o;
  if (!row.o_bias_key.empty()) {
    MC_ASSIGN_OR_RETURN(a.o_bias, get_bool(c, row, row.o_bias_key, false));
  }
  a.sinks = row.sinks;
  if (c.has_value("kv_lora_rank") || row_value(row.defaults, "kv_lora_rank").has_value()) {
    if (!row.bias_on_q_lora) a.qkv_bias = false;
    c.mark_used("head_dim");  // MLA heads are qk_nope_head_dim + qk_rope_head_dim wide
    return read_mla(c, row, a);
  }
  MC_ASSIGN_OR_RETURN(auto dv, get_int(c, row, "v_head_dim"));
  a.v_head_dim = dv.value_or(0);
  MC_ASSIGN_OR_RETURN(auto q_lora, get_int(c, row, "q_lora_rank"));  // a q LoRA on GQA (DeepSeek-V4)
  a.lora_q = q_lora.value_or(0);
  MC_RETURN_IF_ERROR(read_output_projection(c, row, a));
  MC_RETURN_IF_ERROR(read_layer_shapes(c, row, a));
  MC_ASSIGN_OR_RETURN(const QkNorm qk, read_qk_norm(c, row));
  a.qk_norm_kind = row.qk_norm_kind;
  a.head_gate = row.head_gate;
  a.v_from_k = row.v_from_k;
  if (qk == QkNorm::kHead) a.q_norm = a.k_norm = a.head_dim;
  if (qk == QkNorm::kKeyHead) a.k_norm = a.head_dim;
  if (qk == QkNorm::kWidth) {
    a.q_norm = a.heads * a.head_dim;
    a.k_norm = a.kv_heads * a.head_dim;
  }
  bool gate = row.output_gate;
  for (std::string_view k : {"attn_output_gate", "attention_output_gate"}) {
    MC_ASSIGN_OR_RETURN(gate, c.flag(k, gate));
  }
  a.q_out_mult = gate ? 2 : 1;
  return Status::Ok();
}

// intermediate_size as a list, one MLP width a layer: it must list num_hidden_layers widths.
Status read_ff_list(Cfg& c, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto widths, c.int_list("intermediate_size"));
  if (static_cast<int64_t>(widths.size()) != a.layers) {
    return c.error("intermediate_size", "lists " + std::to_string(widths.size()) +
                                            " layers but num_hidden_layers is " + std::to_string(a.layers) +
                                            "; the two keys must agree");
  }
  for (const int64_t w : widths) {
    if (w < 1) return c.error("intermediate_size", "widths must be positive");
  }
  a.ff = *std::max_element(widths.begin(), widths.end());
  const int64_t narrowest = *std::min_element(widths.begin(), widths.end());
  if (narrowest != a.ff) {
    a.ff_widths = std::move(widths);
    a.assumptions.push_back("the MLP widths differ per layer (intermediate_size: " + std::to_string(narrowest) +
                            " to " + std::to_string(a.ff) + "), counted exactly in the parameters; d_ff shows the "
                            "widest, which the activation estimates use");
  }
  return Status::Ok();
}

// kQuirkGemma3n: the keys of Gemma 3n's per-layer inputs, AltUp, Laurel and KV sharing.
Status read_gemma3n(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(a.ple_dim, need_int(c, row, "hidden_size_per_layer_input"));
  MC_ASSIGN_OR_RETURN(a.ple_vocab, need_int(c, row, "vocab_size_per_layer_input"));
  MC_ASSIGN_OR_RETURN(a.altup, need_int(c, row, "altup_num_inputs"));
  MC_ASSIGN_OR_RETURN(a.laurel, need_int(c, row, "laurel_rank"));
  MC_ASSIGN_OR_RETURN(auto shared, get_int(c, row, "num_kv_shared_layers", 0));
  a.kv_shared = shared.value_or(0);
  if (a.kv_shared >= a.layers) {
    return c.error("num_kv_shared_layers", "must be below num_hidden_layers (" + std::to_string(a.layers) +
                                               "): the shared layers read an earlier layer's KV");
  }
  // activation_sparsity_pattern builds nothing (it sets each layer's top-k of the MLP's activations).
  if (const nlohmann::json* sp = c.raw("activation_sparsity_pattern");
      sp != nullptr && !sp->is_null() && (!sp->is_array() || sp->size() != static_cast<size_t>(a.layers))) {
    return c.error("activation_sparsity_pattern", "must list num_hidden_layers entries");
  }
  if (a.kv_shared > 0) {
    MC_RETURN_IF_ERROR(materialize_kinds(c, a));  // the shared layers are marked per layer (finish)
    const Exact unused = Exact(a.kv_shared) * (Exact(2) * Exact(a.d) * Exact(a.kv_heads) * Exact(a.head_dim) +
                                               Exact(a.head_dim));
    if (unused.overflow()) return Status::Overflow(c.source());
    a.assumptions.push_back(
        "the last " + std::to_string(a.kv_shared) + " layers (num_kv_shared_layers) read the KV of an earlier "
        "layer of their kind: they keep no KV (their attention reads that layer's); the checkpoint also ships "
        "their unused k_proj, v_proj and k_norm (" +
        std::to_string(unused.value()) + " parameters), which transformers no longer builds (PR #45489) and "
        "engines do not load");
  }
  return Status::Ok();
}

// LFM2's older spellings (block_ff_dim, tie_embedding) win over the newer in Lfm2Config, which keeps both
// when it saves: both present is read when they agree and refused naming both when they do not.
Status check_lfm2_spellings(Cfg& c) {
  for (const auto& [older, newer] : {std::pair{"block_ff_dim", "intermediate_size"},
                                     std::pair{"tie_embedding", "tie_word_embeddings"}}) {
    const nlohmann::json* o = c.raw(older);
    const nlohmann::json* n = c.raw(newer);
    if (o == nullptr || n == nullptr) continue;
    if (*o != *n) {
      return c.error(older, std::string("and ") + newer + " disagree; Lfm2Config reads " + older +
                                ", and modelcalc does not guess which the checkpoint was built with");
    }
  }
  return Status::Ok();
}

// kQuirkLfm2FfDim (Lfm2MLP.__init__).
Status adjust_lfm2_ff(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_RETURN_IF_ERROR(check_lfm2_spellings(c));
  MC_ASSIGN_OR_RETURN(const bool adjust, get_bool(c, row, "block_auto_adjust_ff_dim", true));
  const nlohmann::json* mult_raw = c.raw("block_ffn_dim_multiplier");
  MC_ASSIGN_OR_RETURN(const double mult, c.number("block_ffn_dim_multiplier", 1.0));
  MC_ASSIGN_OR_RETURN(auto multiple, get_int(c, row, "block_multiple_of", 256));
  if (!adjust) return Status::Ok();
  int64_t ff = 2 * a.ff / 3;  // int(2 * I / 3): truncation of a positive quotient
  const bool has_mult = mult_raw == nullptr || !mult_raw->is_null();
  if (has_mult) {
    if (!(mult > 0) || !(mult < 1e6)) return c.error("block_ffn_dim_multiplier", "must be a positive factor");
    ff = static_cast<int64_t>(mult * static_cast<double>(ff));
    const int64_t m = multiple.value_or(256);
    if (m < 1) return c.error("block_multiple_of", "must be a positive number of channels");
    ff = (ff + m - 1) / m * m;
  }
  if (ff < 1) return c.error("intermediate_size", "leaves an FFN of no width after LFM2's adjustment");
  a.ff = ff;
  return Status::Ok();
}

Status read_ffn_form(Cfg& c, const FamilyRow& row, Decoder& a) {
  a.gated = row.gated;
  a.mlp_bias = row.mlp_bias_default;
  if (!row.mlp_bias_key.empty()) {
    MC_ASSIGN_OR_RETURN(a.mlp_bias, get_bool(c, row, row.mlp_bias_key, row.mlp_bias_default));
  }
  return Status::Ok();
}

// The dense FFN width, read when some layer has a dense FFN (MoE-only models
// may omit it; a stated one is still placed).
Status read_dense_width(Cfg& c, const FamilyRow& row, Decoder& a) {
  if (!a.ff_widths.empty()) return Status::Ok();  // block_configs gave every layer's
  const bool dense = layer_counts(a).dense > 0;
  if (row.ff_is_expert) {
    c.mark_used("intermediate_size");
    if (row.dense_ff_key.empty() || !dense) {
      if (!row.dense_ff_key.empty()) c.mark_used(row.dense_ff_key);
      a.ff = 0;
      return Status::Ok();
    }
    MC_ASSIGN_OR_RETURN(a.ff, need_int(c, row, row.dense_ff_key));
    return Status::Ok();
  }
  if (!dense && !c.has_value("intermediate_size")) {
    c.mark_used("intermediate_size");
    return Status::Ok();
  }
  if (const nlohmann::json* list = c.raw("intermediate_size");
      row.has(kQuirkGemma3n) && list != nullptr && list->is_array()) {
    return read_ff_list(c, a);  // one width a layer (Gemma 3n)
  }
  MC_ASSIGN_OR_RETURN(a.ff, read_ff(c, row, a.d));
  if (row.has(kQuirkLfm2FfDim)) MC_RETURN_IF_ERROR(adjust_lfm2_ff(c, row, a));
  return Status::Ok();
}

// Multi-token-prediction layers beside the total.
Status read_mtp(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto n, c.opt("num_nextn_predict_layers", 0, 0));
  const int64_t layers = n.value_or(0);
  if (layers == 0) return Status::Ok();
  if (row.mtp == Mtp::kDecoderLayer) {
    const Exact mtp = mtp_params(a, layers);
    if (mtp.overflow()) return Status::Overflow(c.source());
    a.mtp = mtp.value();
    return Status::Ok();
  }
  a.assumptions.push_back(std::to_string(layers) + " multi-token-prediction layer(s) (num_nextn_predict_layers) "
                          "are not counted: their shape is not described by the config");
  return Status::Ok();
}

// Where the sliding or full layers' attention differs from the decoder's, the engine models every
// attention layer with the decoder's shape: said, with the other shape.
void note_attention_shapes(Decoder& a) {
  const LayerCounts lc = layer_counts(a);
  for (const auto& [sh, n, what] : {std::tuple{&a.swa_shape, lc.sliding, "sliding"}, std::tuple{&a.full_shape, lc.full, "full"}}) {
    const bool kv_differs = sh->kv_heads > 0 || sh->head_dim > 0 || sh->v_head_dim > 0 || sh->v_from_k || sh->heads > 0;
    if (n == 0 || !kv_differs) continue;
    a.assumptions.push_back(
        "the " + std::to_string(n) + " " + what + "-attention layers have their own attention shape (" +
        std::to_string(sh->heads > 0 ? sh->heads : a.heads) + " heads, " +
        std::to_string(sh->kv_heads > 0 ? sh->kv_heads : a.kv_heads) + " KV heads of " +
        std::to_string(sh->head_dim > 0 ? sh->head_dim : a.head_dim) + (sh->v_from_k ? ", values = keys" : "") +
        "), counted exactly in the parameters; the KV cache, reads and attention FLOPs model every attention layer "
        "with " + std::to_string(a.kv_heads) + " KV heads of " + std::to_string(a.head_dim));
  }
}

Result<ModelSpec> read_decoder(Cfg& c, const FamilyRow& row, const Cfg* wrapper) {
  Decoder a;
  a.norm = row.norm;
  a.layer_norms = row.layer_norms;
  a.embed_norm = row.embed_norm;
  a.lm_head_bias = row.lm_head_bias;
  MC_RETURN_IF_ERROR(read_core(c, row, wrapper, a));
  MC_RETURN_IF_ERROR(read_attention(c, row, a));
  MC_RETURN_IF_ERROR(read_ffn_form(c, row, a));
  MC_RETURN_IF_ERROR(read_moe(c, row, a));
  MC_RETURN_IF_ERROR(place_attention_layers(c, row, a));
  MC_RETURN_IF_ERROR(place_moe_layers(c, row, a));
  MC_RETURN_IF_ERROR(read_block_configs(c, row, a));
  MC_RETURN_IF_ERROR(read_dense_width(c, row, a));
  if (row.has(kQuirkGemma3n)) MC_RETURN_IF_ERROR(read_gemma3n(c, row, a));
  MC_RETURN_IF_ERROR(read_mixer(c, row, a));
  MC_RETURN_IF_ERROR(read_mtp(c, row, a));
  MC_ASSIGN_OR_RETURN(auto hc, get_int(c, row, "hc_mult"));  // DeepSeek-V4's hyper-connection streams
  a.hc_mult = hc.value_or(0);
  note_attention_shapes(a);
  return finish(c, a);
}

// A key whose value the family's modeling code fixes ("key=value" in row.fixed).
Status check_fixed(Cfg& c, const FamilyRow& row) {
  size_t pos = 0;
  const std::string_view list = row.fixed;
  while (pos < list.size()) {
    const size_t end = std::min(list.find(' ', pos), list.size());
    const std::string_view item = list.substr(pos, end - pos);
    pos = end + 1;
    const size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq), want = item.substr(eq + 1);
    const nlohmann::json* v = c.raw(key);
    if (v == nullptr) {  // absent: the class default must be the value this reader counts
      const std::string_view dflt = row_text(row.defaults, key);
      if (!dflt.empty() && dflt != want) {
        return c.error(key, "absent: the class default (" + std::string(dflt) + ") builds what this reader does not "
                            "count; only " + std::string(want) + " is read");
      }
      continue;
    }
    if (v->is_null()) continue;
    const std::string got = v->is_string() ? v->get<std::string>() : v->dump();
    if (got != want) {
      return c.error(c.spelled(key), "only " + std::string(want) + " is built by " + std::string(row.modeling) +
                                         ", got " + got);
    }
  }
  return Status::Ok();
}

Status check_architecture(Cfg& c, const FamilyRow& row) {
  if (row.requires_architecture.empty()) return Status::Ok();
  MC_ASSIGN_OR_RETURN(auto archs, c.str_list("architectures"));
  if (std::find(archs.begin(), archs.end(), row.requires_architecture) != archs.end()) return Status::Ok();
  return c.error("architectures", c.model_type() + " is read as " + std::string(row.requires_architecture) +
                                      " only when the config names it; this config names " +
                                      (archs.empty() ? std::string("none") : archs.front()));
}

void apply_aliases(Cfg& c, std::string_view list) {
  size_t pos = 0;
  while (pos < list.size()) {
    const size_t end = std::min(list.find(' ', pos), list.size());
    const std::string_view item = list.substr(pos, end - pos);
    pos = end + 1;
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos) c.alias(item.substr(0, eq), item.substr(eq + 1));
  }
}

// A wrapper's audio tower into m.params_audio: refused unless the row names one.
Status read_audio_tower(Cfg& c, const FamilyRow& row, ModelSpec& m) {
  if (!c.has_value("audio_config")) {
    c.mark_used("audio_config");
    return Status::Ok();
  }
  if (row.audio == AudioTower::kNone || !c.has_object("audio_config")) {
    return c.error("audio_config", "an audio tower is not counted by this reader");
  }
  Cfg au = c.child("audio_config", "gemma3n_audio");
  MC_ASSIGN_OR_RETURN(const Exact audio, count_audio_tower(row.audio, au, m));
  if (audio.overflow()) return Status::Overflow(c.source());
  m.params_audio = audio.value();
  return Status::Ok();
}

// A wrapper's language model (text_key, of its own model_type) and its vision tower.
Result<ModelSpec> read_wrapper(Cfg& c, const FamilyRow& row) {
  if (!c.has_object(row.text_key)) {
    return c.error(row.text_key, "missing; model_type '" + c.model_type() + "' keeps its language model there");
  }
  std::string type(row.text_type);
  {
    Cfg peek = c.child(row.text_key, row.text_type);
    MC_ASSIGN_OR_RETURN(auto t, peek.str("model_type"));
    if (t) type = *t;
  }
  Cfg text = c.child(row.text_key, type);
  text.mark_used("quantization_config");  // the checkpoint's, read with the model (hf_config.cc)
  MC_ASSIGN_OR_RETURN(ModelSpec m, interpret(text, &c));
  m.towers_whole = row.towers_whole;
  MC_ASSIGN_OR_RETURN(const bool text_only, c.flag("language_model_only", false));
  if (text_only) {
    c.mark_used("vision_config");
    c.mark_used("audio_config");
    m.assumptions.push_back("language_model_only: the checkpoint holds no vision or audio tower");
    return m;
  }
  MC_RETURN_IF_ERROR(read_audio_tower(c, row, m));
  if (row.vision == Tower::kNone || !c.has_object("vision_config")) {
    if (c.has_value("vision_config")) return c.error("vision_config", "no vision tower is known for " + c.model_type());
    if (row.vision != Tower::kNone) {
      m.assumptions.push_back(c.model_type() + " config without vision_config: the vision tower is not counted "
                              "(transformers would build its vision class's defaults, which are not the released "
                              "checkpoint's)");
    }
    return m;
  }
  Cfg v = c.child("vision_config", tower_type(row.vision));
  MC_ASSIGN_OR_RETURN(const Exact tower, count_tower(row.vision, c, v, m));
  if (tower.overflow()) return Status::Overflow(c.source());
  m.params_vision = tower.value();
  return m;
}

// A wrapper the table does not hold (no hidden_size of its own, a text_config-like object): its language
// model is read with its own model_type's rules; a vision or audio tower beside it is not known, so the
// config is refused naming it rather than counted without it.
Result<ModelSpec> read_generic_wrapper(Cfg& c, std::string_view key) {
  for (std::string_view tower : {"vision_config", "audio_config", "vision_tower_config"}) {
    if (c.has_value(tower)) {
      return c.error(tower, "a tower no row describes is not counted, and modelcalc does not guess it");
    }
  }
  MC_ASSIGN_OR_RETURN(auto type, c.child(key, "").str("model_type"));
  if (!type) {
    return c.error(std::string(key) + ".model_type", "missing; the language model's family is not known");
  }
  Cfg text = c.child(key, *type);
  text.mark_used("quantization_config");  // the checkpoint's, read with the model (hf_config.cc)
  return interpret(text, &c);
}

// The wrapper key of a config the table does not hold, or "".
std::string_view generic_wrapper_key(const Cfg& c) {
  if (c.has("hidden_size")) return {};
  for (std::string_view key : {"text_config", "language_config", "llm_config"}) {
    if (c.has_object(key)) return key;
  }
  return {};
}

}  // namespace

Result<ModelSpec> interpret(Cfg& c, const Cfg* wrapper) {
  const FamilyRow* found = find_family(c.model_type());
  const FamilyRow& row = found != nullptr ? *found : generic_family();
  apply_aliases(c, row.aliases);
  MC_RETURN_IF_ERROR(check_architecture(c, row));
  MC_RETURN_IF_ERROR(check_fixed(c, row));
  const std::string_view generic_text = found == nullptr ? generic_wrapper_key(c) : std::string_view{};
  MC_ASSIGN_OR_RETURN(ModelSpec m, !generic_text.empty() ? read_generic_wrapper(c, generic_text)
                                   : row.text_key.empty() ? read_decoder(c, row, wrapper)
                                                          : read_wrapper(c, row));
  MC_RETURN_IF_ERROR(check_placed(c, row));
  if (found == nullptr) {
    m.assumptions.push_back("model_type '" + c.model_type() +
                            "' is not in the family table: read by the generic rules (Llama's defaults for absent "
                            "keys), not confirmed by a hand-derived count");
  } else if (!row.confirmed) {
    m.assumptions.push_back("model_type '" + c.model_type() + "' is read by the generic rules from " +
                            std::string(row.modeling) + ", not yet confirmed by a hand-derived count");
  }
  return m;
}

}  // namespace modelcalc::hf
