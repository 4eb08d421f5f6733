// Which attention each layer runs, from the keys Hub configs share: a
// per-layer list (layer_types, hybrid_override_pattern, layers_block_type),
// else the rules (a window on all or alternating layers, chunks on the RoPE
// layers, a full-attention interval or period among linear/Mamba layers); and
// the recurrent mixer those layers hold (Gated DeltaNet, Mamba-1, Mamba-2).
// Every per-layer list must agree with num_hidden_layers.
#include <algorithm>
#include <string>

#include "hf_decoder.h"

namespace modelcalc::hf {
namespace {

// Layer kinds a name in a per-layer list can stand for (csa, hca: DeepSeek-V4's sliding layers with a
// compressor, with and without the lightning indexer).
enum class Kind : uint8_t { kFull, kSliding, kChunked, kLinear, kCsa, kHca };

constexpr std::string_view kDefaultNames =
    "full_attention=full sliding_attention=sliding chunked_attention=chunked linear_attention=linear";

std::optional<Kind> kind_of(std::string_view text) {
  if (text == "full") return Kind::kFull;
  if (text == "sliding") return Kind::kSliding;
  if (text == "chunked") return Kind::kChunked;
  if (text == "linear") return Kind::kLinear;
  if (text == "csa") return Kind::kCsa;
  if (text == "hca") return Kind::kHca;
  return std::nullopt;
}

void set_kind(Decoder& a, int64_t il, Kind k) {
  LayerKind& l = a.kinds[static_cast<size_t>(il)];
  l.recurrent = false;
  switch (k) {
    case Kind::kFull: l.attn = Attn::kFull; break;
    case Kind::kSliding:
    case Kind::kCsa:
    case Kind::kHca: l.attn = a.swa > 0 ? Attn::kSliding : Attn::kFull; break;
    case Kind::kChunked: l.attn = a.chunk > 0 ? Attn::kChunked : Attn::kFull; break;
    case Kind::kLinear:
      l.attn = Attn::kNone;
      l.recurrent = true;
      break;
  }
}

// A per-layer list of `n` entries against num_hidden_layers (or, where the
// row says so, num_hidden_layers plus the MTP layers it also describes).
Status check_length(Cfg& c, const FamilyRow& row, std::string_view key, int64_t n, const Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto mtp, c.opt("num_nextn_predict_layers", 0, 0));
  if (n == a.layers || (row.pattern_covers_mtp && n == a.layers + mtp.value_or(0))) return Status::Ok();
  return c.error(c.spelled(key), "lists " + std::to_string(n) + " layers but num_hidden_layers is " +
                                     std::to_string(a.layers) + "; the two keys must agree");
}

// DeepSeek-V4's compressors on `csa` and `hca` layers: their rates (compress_rates, or the legacy
// compress_rate_csa / compress_rate_hca; 4 and 128 by default) and, for CSA, the indexer's shape.
Status add_compressors(Cfg& c, const FamilyRow& row, Decoder& a, int64_t csa, int64_t hca) {
  if (csa == 0 && hca == 0) return Status::Ok();
  int64_t rate_csa = 4, rate_hca = 128;
  if (const nlohmann::json* rates = c.raw("compress_rates"); rates != nullptr && rates->is_object()) {
    rate_csa = rates->value("compressed_sparse_attention", rate_csa);
    rate_hca = rates->value("heavily_compressed_attention", rate_hca);
  }
  MC_ASSIGN_OR_RETURN(auto r1, get_int(c, row, "compress_rate_csa"));
  MC_ASSIGN_OR_RETURN(auto r2, get_int(c, row, "compress_rate_hca"));
  rate_csa = r1.value_or(rate_csa);
  rate_hca = r2.value_or(rate_hca);
  if (csa > 0) {
    if (a.lora_q == 0) return c.error("q_lora_rank", "the compressed-sparse-attention indexer reads the q LoRA: give it");
    MC_ASSIGN_OR_RETURN(a.index_heads, need_int(c, row, "index_n_heads"));
    MC_ASSIGN_OR_RETURN(a.index_dim, need_int(c, row, "index_head_dim"));
    MC_ASSIGN_OR_RETURN(a.index_topk, need_int(c, row, "index_topk"));
    a.compressors.push_back({rate_csa, true, csa});
  }
  if (hca > 0) a.compressors.push_back({rate_hca, false, hca});
  a.assumptions.push_back(
      "compressed attention (" + std::to_string(csa) + " CSA layers, 1 entry per " + std::to_string(rate_csa) +
      " tokens with index keys; " + std::to_string(hca) + " HCA layers, 1 per " + std::to_string(rate_hca) +
      "): the parameters are counted; the KV cache, reads and FLOPs model only each layer's " +
      std::to_string(a.swa) + "-token window, with its shared key/value head counted as a key and a value");
  return Status::Ok();
}

// DeepSeek-V4's compress_ratios: per layer 0 (sliding only), the CSA rate or the HCA rate.
Status from_compress_ratios(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto ratios, c.int_list("compress_ratios"));
  MC_RETURN_IF_ERROR(check_length(c, row, "compress_ratios", static_cast<int64_t>(ratios.size()), a));
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  int64_t csa = 0, hca = 0;
  for (int64_t il = 0; il < a.layers; ++il) {
    const int64_t r = ratios[static_cast<size_t>(il)];
    if (r != 0 && r != 4 && r != 128) {
      return c.error("compress_ratios", "entry " + std::to_string(il) + " is " + std::to_string(r) +
                                            "; the layer types are 0 (sliding), 4 (CSA) and 128 (HCA)");
    }
    set_kind(a, il, Kind::kSliding);
    csa += r == 4 ? 1 : 0;
    hca += r == 128 ? 1 : 0;
  }
  return add_compressors(c, row, a, csa, hca);
}

// MiMo-V2's hybrid_layer_pattern: per layer 0 full attention, 1 sliding window.
Status from_hybrid_layer_pattern(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto pattern, c.int_list("hybrid_layer_pattern"));
  MC_RETURN_IF_ERROR(check_length(c, row, "hybrid_layer_pattern", static_cast<int64_t>(pattern.size()), a));
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  for (int64_t il = 0; il < a.layers; ++il) {
    const int64_t t = pattern[static_cast<size_t>(il)];
    if (t != 0 && t != 1) return c.error("hybrid_layer_pattern", "entry " + std::to_string(il) + " must be 0 or 1");
    set_kind(a, il, t == 1 ? Kind::kSliding : Kind::kFull);
  }
  return Status::Ok();
}

Status from_layer_types(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto types, c.str_list("layer_types"));
  MC_RETURN_IF_ERROR(check_length(c, row, "layer_types", static_cast<int64_t>(types.size()), a));
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  const std::string_view names = row.layer_type_names.empty() ? kDefaultNames : row.layer_type_names;
  int64_t compressed[2] = {0, 0};  // CSA, HCA layers
  for (int64_t il = 0; il < a.layers; ++il) {
    const std::string& t = types[static_cast<size_t>(il)];
    const std::optional<Kind> k = kind_of(row_text(names, t));
    if (!k) {
      std::string allowed;
      for (size_t pos = 0; pos < names.size();) {
        const size_t end = std::min(names.find(' ', pos), names.size());
        const std::string_view item = names.substr(pos, end - pos);
        allowed += (allowed.empty() ? "" : ", ") + std::string(item.substr(0, item.find('=')));
        pos = end + 1;
      }
      return c.error("layer_types", "entry " + std::to_string(il) + " is '" + t + "'; allowed: " + allowed);
    }
    set_kind(a, il, *k);
    if (*k == Kind::kCsa || *k == Kind::kHca) compressed[*k == Kind::kCsa ? 0 : 1] += 1;
  }
  return add_compressors(c, row, a, compressed[0], compressed[1]);
}

// LFM2's full_attn_idxs: the attention layers' indices; every other layer is linear (a short conv).
Status from_full_attn_idxs(Cfg& c, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto idxs, c.int_list("full_attn_idxs"));
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  for (int64_t il = 0; il < a.layers; ++il) set_kind(a, il, Kind::kLinear);
  for (const int64_t il : idxs) {
    if (il < 0 || il >= a.layers) {
      return c.error("full_attn_idxs", "names layer " + std::to_string(il) + " but num_hidden_layers is " +
                                           std::to_string(a.layers) + "; the two keys must agree");
    }
    if (a.kinds[static_cast<size_t>(il)].attn == Attn::kFull) {
      return c.error("full_attn_idxs", "names layer " + std::to_string(il) + " twice");
    }
    set_kind(a, il, Kind::kFull);
  }
  return Status::Ok();
}

// MiniMax's attn_type_list: 1 softmax attention, 0 linear (lightning) attention, one entry a layer.
Status from_attn_type_list(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto types, c.int_list("attn_type_list"));
  MC_RETURN_IF_ERROR(check_length(c, row, "attn_type_list", static_cast<int64_t>(types.size()), a));
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  for (int64_t il = 0; il < a.layers; ++il) {
    const int64_t t = types[static_cast<size_t>(il)];
    if (t != 0 && t != 1) return c.error("attn_type_list", "entry " + std::to_string(il) + " must be 0 or 1");
    set_kind(a, il, t == 1 ? Kind::kFull : Kind::kLinear);
  }
  return Status::Ok();
}

// Nemotron-H's pattern: M Mamba-2, * attention, - MLP, E MoE; one mixer or FFN a block.
Status from_block_pattern(Cfg& c, const FamilyRow& row, Decoder& a) {
  std::string key = "hybrid_override_pattern";
  MC_ASSIGN_OR_RETURN(auto pattern, c.str(key));
  if (!pattern) {
    key = "layers_block_type";
    MC_ASSIGN_OR_RETURN(auto types, c.str_list(key));
    std::string p;
    for (const std::string& t : types) {
      if (t == "mamba" || t == "linear_attention") p += 'M';
      else if (t == "attention" || t == "full_attention") p += '*';
      else if (t == "mlp") p += '-';
      else if (t == "moe") p += 'E';
      else return c.error(key, "unknown layer type '" + t + "' (mamba, attention, mlp, moe)");
    }
    pattern = p;
  }
  const int64_t n = static_cast<int64_t>(pattern->size());
  if (n == 0) return c.error(key, "is empty");
  if (row.has(kQuirkLayersFromPattern)) {
    MC_ASSIGN_OR_RETURN(auto stated, c.opt("num_hidden_layers", std::nullopt));
    if (stated && *stated != n) {
      return c.error(key, "lists " + std::to_string(n) + " layers but num_hidden_layers is " +
                              std::to_string(*stated) + "; the two keys must agree");
    }
    a.layers = n;
  } else {
    MC_RETURN_IF_ERROR(check_length(c, row, key, n, a));
  }
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  for (int64_t il = 0; il < a.layers; ++il) {
    LayerKind& k = a.kinds[static_cast<size_t>(il)];
    k = LayerKind{Attn::kNone, false, Ffn::kNone};
    const char ch = (*pattern)[static_cast<size_t>(il)];
    switch (ch) {
      case 'M': k.recurrent = true; break;
      case '*': k.attn = Attn::kFull; break;
      case '-': k.ffn = Ffn::kDense; break;
      case 'E':
        if (a.n_expert == 0) return c.error(key, "has an E (MoE) layer but the config gives no experts");
        k.ffn = Ffn::kMoe;
        break;
      default:
        return c.error(key, "character " + std::to_string(il) + " is '" + std::string(1, ch) + "'; allowed: M, *, -, E");
    }
  }
  a.ffn_placed = true;
  return Status::Ok();
}

// EXAONE 4's sliding_window_pattern as letters (configuration_exaone4.py's docstring): "L" a local
// (sliding) layer, "G" a global one, repeated from layer 0; the final layer is global whatever the
// letter. Any other letter, or an empty pattern, is refused naming the key.
Status letter_pattern(Cfg& c, Decoder& a) {
  MC_ASSIGN_OR_RETURN(const std::optional<std::string> text, c.str("sliding_window_pattern"));
  const std::string p = text.value_or("");
  if (p.empty() || p.find_first_not_of("LG") != std::string::npos) {
    return c.error("sliding_window_pattern", "is '" + p + "'; allowed: an integer, or letters L (local) and G (global)");
  }
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  for (int64_t il = 0; il < a.layers; ++il) {
    const bool local = p[static_cast<size_t>(il) % p.size()] == 'L' && il != a.layers - 1;
    set_kind(a, il, local ? Kind::kSliding : Kind::kFull);
  }
  return Status::Ok();
}

// The window rules of a row, for a config without a per-layer list.
Status window_rule(Cfg& c, const FamilyRow& row, Decoder& a) {
  switch (row.window) {
    case Window::kNone:
      if (c.has_value("sliding_window")) {
        return c.error("sliding_window", "model_type '" + c.model_type() + "' places no sliding window (" +
                                             std::string(row.modeling) + ")");
      }
      c.mark_used("sliding_window");
      return Status::Ok();
    case Window::kRefuse: {
      MC_ASSIGN_OR_RETURN(const bool use, c.flag("use_sliding_window", false));
      if (use) {
        return c.error("use_sliding_window", "true is not supported for " + c.model_type() +
                                                 " (which layers slide depends on the transformers release)");
      }
      c.mark_used("sliding_window");
      c.mark_used("max_window_layers");
      return Status::Ok();
    }
    case Window::kAll:
      if (a.swa > 0) {
        MC_RETURN_IF_ERROR(materialize_kinds(c, a));
        for (int64_t il = 0; il < a.layers; ++il) set_kind(a, il, Kind::kSliding);
      }
      return Status::Ok();
    case Window::kQwen: {
      MC_ASSIGN_OR_RETURN(const bool use, c.flag("use_sliding_window", false));
      c.mark_used("max_window_layers");
      if (!use || a.swa == 0) return Status::Ok();
      MC_ASSIGN_OR_RETURN(int64_t first, c.req("max_window_layers", 0));
      if (first >= a.layers) return Status::Ok();
      if (first > 0) {
        return c.error("max_window_layers", "use_sliding_window with sliding layers " + std::to_string(first) +
                                                ".." + std::to_string(a.layers - 1) +
                                                " only is not supported (modelcalc represents a window on all "
                                                "layers or alternating layers)");
      }
      MC_RETURN_IF_ERROR(materialize_kinds(c, a));
      for (int64_t il = 0; il < a.layers; ++il) set_kind(a, il, Kind::kSliding);
      return Status::Ok();
    }
    case Window::kAlternate: {
      if (a.swa == 0) {
        c.mark_used("sliding_window_pattern");  // no window: the pattern places nothing
        return Status::Ok();
      }
      if (const nlohmann::json* v = c.raw("sliding_window_pattern"); v != nullptr && v->is_string()) {
        return letter_pattern(c, a);
      }
      MC_ASSIGN_OR_RETURN(const int64_t p, need_int(c, row, "sliding_window_pattern"));
      MC_RETURN_IF_ERROR(materialize_kinds(c, a));
      for (int64_t il = 0; il < a.layers; ++il) set_kind(a, il, p == 1 || il % p < p - 1 ? Kind::kSliding : Kind::kFull);
      return Status::Ok();
    }
  }
  return Status::Ok();
}

// Llama 4: chunked attention on the RoPE layers, full on the NoPE layers.
Status chunk_rule(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(auto rope, c.int_list("no_rope_layers"));
  MC_ASSIGN_OR_RETURN(const int64_t interval, need_int(c, row, "no_rope_layer_interval"));
  if (!rope.empty()) {
    MC_RETURN_IF_ERROR(check_length(c, row, "no_rope_layers", static_cast<int64_t>(rope.size()), a));
  }
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  for (int64_t il = 0; il < a.layers; ++il) {
    const bool uses_rope = rope.empty() ? (il + 1) % interval != 0 : rope[static_cast<size_t>(il)] != 0;
    set_kind(a, il, uses_rope ? Kind::kChunked : Kind::kFull);
  }
  return Status::Ok();
}

// Full attention every n-th layer (full_attention_interval) or at an offset
// within a period (attn_layer_period / attn_layer_offset); linear elsewhere.
Status interval_rule(Cfg& c, const FamilyRow& row, Decoder& a, bool& applied) {
  MC_ASSIGN_OR_RETURN(auto interval, get_int(c, row, "full_attention_interval"));
  MC_ASSIGN_OR_RETURN(auto period, get_int(c, row, "attn_layer_period"));
  MC_ASSIGN_OR_RETURN(auto offset, get_int(c, row, "attn_layer_offset", 0));
  if (!interval && !period) return Status::Ok();
  if (interval && period) return c.error("attn_layer_period", "and full_attention_interval both place attention");
  if (period && offset.value_or(0) >= *period) return c.error("attn_layer_offset", "must be below attn_layer_period");
  applied = true;
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  for (int64_t il = 0; il < a.layers; ++il) {
    const bool full = interval ? (il + 1) % *interval == 0 : il % *period == offset.value_or(0);
    set_kind(a, il, full ? Kind::kFull : Kind::kLinear);
  }
  return Status::Ok();
}

}  // namespace

Status place_attention_layers(Cfg& c, const FamilyRow& row, Decoder& a) {
  if (row.layer_types_required && !c.has_value("layer_types")) {
    return c.error("layer_types", "missing; model_type '" + c.model_type() + "' needs each layer's kind (its "
                                  "configuration class's default is no released checkpoint's layout)");
  }
  MC_ASSIGN_OR_RETURN(auto w, get_int(c, row, "sliding_window"));
  a.swa = w.value_or(0);
  const bool chunks = row_value(row.defaults, "attention_chunk_size").has_value();
  if (chunks) {
    MC_ASSIGN_OR_RETURN(auto ch, get_int(c, row, "attention_chunk_size"));
    a.chunk = ch.value_or(0);
  }
  if (c.has_value("hybrid_override_pattern") || c.has_value("layers_block_type")) {
    c.mark_used("sliding_window");
    return from_block_pattern(c, row, a);
  }
  if (c.has_value("layer_types")) {
    c.mark_used("hybrid_layer_pattern");
    if (row.mixer == Mixer::kShortConv) c.mark_used("full_attn_idxs");  // LFM2: null beside the list
    for (std::string_view k : {"use_sliding_window", "max_window_layers", "sliding_window_pattern",
                               "full_attention_interval", "no_rope_layers", "no_rope_layer_interval"}) {
      c.mark_used(k);  // the list states every layer
    }
    if (row.window == Window::kRefuse) {
      MC_RETURN_IF_ERROR(window_rule(c, row, a));
    }
    return from_layer_types(c, row, a);
  }
  if (c.has_value("compress_ratios")) {
    c.mark_used("layer_types");
    return from_compress_ratios(c, row, a);
  }
  if (c.has_value("hybrid_layer_pattern") && !c.has_value("layer_types")) return from_hybrid_layer_pattern(c, row, a);
  if (row.mixer == Mixer::kShortConv && c.has_value("full_attn_idxs")) {  // LFM2's own key
    c.mark_used("sliding_window");
    return from_full_attn_idxs(c, a);
  }
  if (c.has_value("attn_type_list")) {
    MC_RETURN_IF_ERROR(from_attn_type_list(c, row, a));
    return window_rule(c, row, a);
  }
  bool applied = false;
  MC_RETURN_IF_ERROR(interval_rule(c, row, a, applied));
  if (applied) {
    c.mark_used("sliding_window");
    return Status::Ok();
  }
  if (chunks && a.chunk > 0) return chunk_rule(c, row, a);
  return window_rule(c, row, a);
}

// --- recurrent mixers ------------------------------------------------------------

namespace {

// A Mamba-2 mixer (modeling_mamba2.py Mamba2Mixer, as NemotronHMamba2Mixer and
// FalconH1Mixer build it): in_proj d -> inner + conv_dim + heads, conv1d over
// conv_dim = inner + 2 groups state channels (kernel `conv`, optional bias),
// dt_bias, A_log and D (one per head), the gated RMSNorm over inner (`norm`),
// out_proj inner -> d.
RecurrentMixer mamba2(int64_t d, int64_t heads, int64_t head_dim, int64_t groups, int64_t state, int64_t conv,
                      bool in_bias, bool conv_bias, bool out_bias, bool norm) {
  RecurrentMixer r;
  r.kind = Recurrent::kMamba2;
  r.inner = heads * head_dim;
  r.state = state;
  r.heads = heads;
  r.conv = conv;
  r.conv_dim = r.inner + 2 * groups * state;
  const Exact D = d, I = r.inner, C = r.conv_dim, H = heads;
  const Exact proj = I + C + H;
  r.params = D * proj + (in_bias ? proj : Exact(0)) + C * Exact(conv) + (conv_bias ? C : Exact(0)) + H * Exact(3) +
             I * D + (out_bias ? D : Exact(0));
  r.norms = norm ? I : Exact(0);
  return r;
}

// Mamba-2 keys (Nemotron-H's names; Falcon-H1's are aliases in its row). The
// width is mamba_num_heads x mamba_head_dim, or mamba_d_ssm (else
// mamba_expand x hidden) split over the heads when mamba_head_dim is "auto".
Status read_mamba2(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(const int64_t heads, need_int(c, row, "mamba_num_heads"));
  MC_ASSIGN_OR_RETURN(auto head_dim, int_or_auto(c, "mamba_head_dim"));
  if (!head_dim && !c.has("mamba_head_dim")) {
    MC_ASSIGN_OR_RETURN(head_dim, get_int(c, row, "mamba_head_dim"));
  }
  int64_t hd = 0;
  if (head_dim) {
    hd = *head_dim;
    c.mark_used("mamba_d_ssm");
    c.mark_used("mamba_expand");
  } else {
    MC_ASSIGN_OR_RETURN(auto d_ssm, get_int(c, row, "mamba_d_ssm"));
    MC_ASSIGN_OR_RETURN(const int64_t expand, need_int(c, row, "mamba_expand"));
    const int64_t inner = d_ssm.value_or(expand * a.d);
    if (inner % heads != 0) return c.error("mamba_num_heads", "must divide the Mamba width (" + std::to_string(inner) + ")");
    hd = inner / heads;
  }
  MC_ASSIGN_OR_RETURN(auto d_ssm, get_int(c, row, "mamba_d_ssm"));
  if (d_ssm && c.has_value("mamba_d_ssm") && *d_ssm != heads * hd) {
    return c.error("mamba_d_head", "x mamba_n_heads must equal the Mamba width (mamba_d_ssm)");
  }
  MC_ASSIGN_OR_RETURN(const int64_t groups, need_int(c, row, "n_groups"));
  MC_ASSIGN_OR_RETURN(const int64_t state, need_int(c, row, "ssm_state_size"));
  MC_ASSIGN_OR_RETURN(const int64_t kernel, need_int(c, row, "conv_kernel"));
  MC_ASSIGN_OR_RETURN(const bool conv_bias, get_bool(c, row, "use_conv_bias", true));
  MC_ASSIGN_OR_RETURN(const bool in_bias, get_bool(c, row, "use_bias", false));
  MC_ASSIGN_OR_RETURN(const bool out_bias, get_bool(c, row, "projectors_bias", in_bias));
  MC_ASSIGN_OR_RETURN(const bool norm, get_bool(c, row, "mamba_rms_norm", true));
  a.mixer = mamba2(a.d, heads, hd, groups, state, kernel, in_bias, conv_bias, out_bias, norm);
  return Status::Ok();
}

// Gated DeltaNet (modeling_qwen3_next.py Qwen3NextGatedDeltaNet): in_proj_qkvz
// (d -> 2 key_dim + 2 value_dim), in_proj_ba (d -> 2 v_heads), conv1d over
// 2 key_dim + value_dim channels (no bias), dt_bias and A_log (v_heads), a
// gated RMSNorm(d_v), out_proj (value_dim -> d). Qwen3.5's in_proj_qkv,
// in_proj_z, in_proj_b, in_proj_a hold the same widths.
Status read_gated_deltanet(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(const int64_t kh, need_int(c, row, "linear_num_key_heads"));
  MC_ASSIGN_OR_RETURN(const int64_t vh, need_int(c, row, "linear_num_value_heads"));
  MC_ASSIGN_OR_RETURN(const int64_t dk, need_int(c, row, "linear_key_head_dim"));
  MC_ASSIGN_OR_RETURN(const int64_t dv, need_int(c, row, "linear_value_head_dim"));
  MC_ASSIGN_OR_RETURN(const int64_t kernel, need_int(c, row, "linear_conv_kernel_dim"));
  if (vh % kh != 0) return c.error("linear_num_value_heads", "must be a multiple of linear_num_key_heads");
  RecurrentMixer& r = a.mixer;
  r.kind = Recurrent::kGatedDeltaNet;
  r.state = dk;
  r.inner = vh * dv;
  r.heads = kh;
  r.conv = kernel;
  r.conv_dim = 2 * kh * dk + vh * dv;
  const Exact D = a.d, key_dim = Exact(kh) * Exact(dk), value_dim = Exact(vh) * Exact(dv);
  r.params = D * (key_dim * Exact(2) + value_dim * Exact(2)) + D * Exact(2 * vh) + Exact(r.conv_dim) * Exact(kernel) +
             Exact(2 * vh) + value_dim * D;
  r.norms = Exact(dv);
  return Status::Ok();
}

// Mamba-1 (modeling_jamba.py JambaMambaMixer): in_proj (d -> 2 inner), conv1d
// (inner channels), x_proj (inner -> dt_rank + 2 state, no bias), dt_proj
// (dt_rank -> inner, biased), A_log (inner x state), D (inner), out_proj, and
// RMSNorms over dt_rank, state and state; mamba_dt_rank "auto" = ceil(d / 16).
Status read_mamba1(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(const int64_t state, need_int(c, row, "mamba_d_state"));
  MC_ASSIGN_OR_RETURN(const int64_t kernel, need_int(c, row, "mamba_d_conv"));
  MC_ASSIGN_OR_RETURN(const int64_t expand, need_int(c, row, "mamba_expand"));
  MC_ASSIGN_OR_RETURN(auto dt, int_or_auto(c, "mamba_dt_rank"));
  const int64_t dt_rank = dt.value_or((a.d + 15) / 16);
  MC_ASSIGN_OR_RETURN(const bool conv_bias, get_bool(c, row, "mamba_conv_bias", true));
  MC_ASSIGN_OR_RETURN(const bool proj_bias, get_bool(c, row, "mamba_proj_bias", false));
  RecurrentMixer& r = a.mixer;
  r.kind = Recurrent::kMamba1;
  r.inner = expand * a.d;
  r.state = state;
  r.heads = r.inner;  // tensor parallelism splits the channels
  r.conv = kernel;
  r.conv_dim = r.inner;
  const Exact D = a.d, I = r.inner, N = state, R = dt_rank;
  r.params = D * I * Exact(2) + (proj_bias ? I * Exact(2) : Exact(0)) + I * Exact(kernel) +
             (conv_bias ? I : Exact(0)) + I * (R + N * Exact(2)) + R * I + I + I * N + I + I * D +
             (proj_bias ? D : Exact(0));
  r.norms = R + N * Exact(2);
  return Status::Ok();
}

// LFM2's short convolution (modeling_lfm2.py Lfm2ShortConv): in_proj d -> 3 d (B, C, x), a depthwise
// Conv1d over d channels of kernel conv_L_cache, out_proj d -> d, all biased by conv_bias. It keeps only
// the conv window, (kernel - 1) x d a sequence (vLLM's short_conv_state_shape, llama.cpp's n_embd_r).
Status read_short_conv(Cfg& c, const FamilyRow& row, Decoder& a) {
  MC_ASSIGN_OR_RETURN(const int64_t kernel, need_int(c, row, "conv_L_cache"));
  MC_ASSIGN_OR_RETURN(const bool bias, get_bool(c, row, "conv_bias", false));
  RecurrentMixer& r = a.mixer;
  r.kind = Recurrent::kShortConv;
  r.inner = a.d;
  r.state = 0;
  r.heads = a.d;  // tensor parallelism splits the channels
  r.conv = kernel;
  r.conv_dim = a.d;
  const Exact D = a.d;
  r.params = D * D * Exact(4) + D * Exact(kernel) + (bias ? D * Exact(5) : Exact(0));
  r.norms = Exact(0);
  return Status::Ok();
}

}  // namespace

Status read_mixer(Cfg& c, const FamilyRow& row, Decoder& a) {
  if (row.mixer_parallel) {
    MC_RETURN_IF_ERROR(materialize_kinds(c, a));
    for (LayerKind& k : a.kinds) k.recurrent = true;  // attention and the mixer side by side
  }
  if (layer_counts(a).recurrent == 0) return Status::Ok();
  switch (row.mixer) {
    case Mixer::kNone:
      return c.error("layer_types", "has linear-attention layers, but model_type '" + c.model_type() +
                                        "' names no recurrent mixer in the family table");
    case Mixer::kGatedDeltaNet: return read_gated_deltanet(c, row, a);
    case Mixer::kMamba1: return read_mamba1(c, row, a);
    case Mixer::kMamba2: return read_mamba2(c, row, a);
    case Mixer::kShortConv: return read_short_conv(c, row, a);
  }
  return Status::Ok();
}

}  // namespace modelcalc::hf
