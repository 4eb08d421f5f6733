// DeciLM's per-layer block_configs (Nemotron-NAS: Llama-3.3-Nemotron-Super-49B,
// Llama-3.1-Nemotron-Ultra-253B, Llama-3.1-Nemotron-51B), read as the engines'
// model files build them (sglang and vLLM nemotron_nas.py, after the
// checkpoints' own modeling_decilm.py). Every entry says whether its layer has
// attention and an MLP:
//   - attention: a LlamaAttention with num_attention_heads / n_heads_in_group
//     KV heads, and its input_layernorm; no_op: neither.
//   - ffn: a LlamaMLP of _ffn_mult_to_intermediate_size(ffn_mult, d), the
//     multiple of 256 at or above int(2 * ffn_mult * d / 3), and its
//     post_attention_layernorm; no_op: neither.
// The config's intermediate_size and num_key_value_heads (null in these
// configs) are not what the blocks build, so they are not read. Anything else
// a block says (a linear replacement, sparsity, sinks, windows, parallel or
// mixture-of-experts blocks) is refused naming it.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "hf_decoder.h"

namespace modelcalc::hf {
namespace {

using nlohmann::json;

Status block_error(const Cfg& c, size_t il, std::string_view part, std::string_view key, std::string_view what) {
  std::string where = "[" + std::to_string(il) + "]";
  if (!part.empty()) where += "." + std::string(part);
  if (!key.empty()) where += "." + std::string(key);
  return c.error("block_configs", where + ": " + std::string(what));
}

// Block keys the engines build nothing from while false or null.
bool is_inert_key(std::string_view k) {
  for (std::string_view s : {"replace_with_linear", "sparsify", "num_sink_tokens", "window_length", "unshifted_sink",
                             "use_prefill_window_in_sink_attention", "parallel_blocks"}) {
    if (k == s) return true;
  }
  return false;
}

// Every key of `o` is `size_key` (not read when the sublayer is a no-op), no_op, or inert and false/null.
Status check_block_keys(const Cfg& c, size_t il, std::string_view part, const json& o, std::string_view size_key) {
  for (const auto& [k, v] : o.items()) {
    if (k == "no_op" || k == size_key) continue;
    if (!is_inert_key(k)) return block_error(c, il, part, k, "not placed: modelcalc does not know what it builds");
    if (!v.is_null() && !(v.is_boolean() && !v.get<bool>())) {
      return block_error(c, il, part, k, "only false or null is read (the engines build nothing else from it)");
    }
  }
  return Status::Ok();
}

// The sublayer object `part` of block `il`: present, an object, with a boolean no_op (absent: false).
Result<bool> read_no_op(const Cfg& c, size_t il, std::string_view part, const json& block, const json** out) {
  const auto it = block.find(std::string(part));
  if (it == block.end() || !it->is_object()) return block_error(c, il, part, "", "must be an object");
  *out = &*it;
  const auto op = it->find("no_op");
  if (op == it->end() || op->is_null()) return false;
  if (!op->is_boolean()) return block_error(c, il, part, "no_op", "must be true or false");
  return op->get<bool>();
}

// n_heads_in_group of an attention block: an integer dividing the heads.
Result<int64_t> read_group(const Cfg& c, size_t il, const json& att, int64_t heads) {
  const auto it = att.find("n_heads_in_group");
  if (it == att.end() || !it->is_number_integer()) {
    return block_error(c, il, "attention", "n_heads_in_group", "must be an integer (the query heads per KV head)");
  }
  const int64_t g = it->get<int64_t>();
  if (g < 1 || g > heads || heads % g != 0) {
    return block_error(c, il, "attention", "n_heads_in_group",
                       "must divide num_attention_heads (" + std::to_string(heads) + "), got " + std::to_string(g));
  }
  return g;
}

// The MLP width of ffn_mult: the multiple of 256 at or above int(2 * ffn_mult * d / 3).
Result<int64_t> read_width(const Cfg& c, size_t il, const json& ffn, int64_t d) {
  const auto it = ffn.find("ffn_mult");
  if (it == ffn.end() || !it->is_number()) return block_error(c, il, "ffn", "ffn_mult", "must be a number");
  const double mult = it->get<double>();
  const double raw = 2.0 * mult * static_cast<double>(d) / 3.0;  // Python's left-to-right float product
  if (!std::isfinite(raw) || raw < 1.0 || raw > 1e12) {
    return block_error(c, il, "ffn", "ffn_mult", "must give an MLP width from 1 to 1e12, got " + std::to_string(mult));
  }
  const auto width = static_cast<int64_t>(raw);  // int() truncates
  return (width + 255) / 256 * 256;
}

}  // namespace

Status read_block_configs(Cfg& c, const FamilyRow& row, Decoder& a) {
  if (!row.block_configs) return Status::Ok();  // not read: check_placed refuses the key if present
  const json* list = c.raw("block_configs");
  if (list == nullptr || !list->is_array()) {
    return c.error("block_configs", "must be a list of per-layer blocks (model_type '" + c.model_type() +
                                        "' describes every layer there)");
  }
  if (static_cast<int64_t>(list->size()) != a.layers) {
    return c.error("block_configs", "has " + std::to_string(list->size()) + " entries but num_hidden_layers is " +
                                        std::to_string(a.layers) + "; give one block per layer");
  }
  MC_RETURN_IF_ERROR(materialize_kinds(c, a));
  c.mark_used("intermediate_size");
  c.mark_used("num_key_value_heads");
  int64_t group = 0, norms = 0;
  size_t group_layer = 0;
  a.ff_widths.assign(list->size(), 0);
  for (size_t il = 0; il < list->size(); ++il) {
    const json& b = (*list)[il];
    if (!b.is_object()) return block_error(c, il, "", "", "must be an object with attention and ffn");
    for (const auto& [k, v] : b.items()) {
      if (k != "attention" && k != "ffn" && !(is_inert_key(k) && v.is_null())) {
        return block_error(c, il, k, "", "not placed: modelcalc does not know what it builds");
      }
    }
    const json *att = nullptr, *ffn = nullptr;
    MC_ASSIGN_OR_RETURN(const bool no_att, read_no_op(c, il, "attention", b, &att));
    MC_ASSIGN_OR_RETURN(const bool no_ffn, read_no_op(c, il, "ffn", b, &ffn));
    MC_RETURN_IF_ERROR(check_block_keys(c, il, "attention", *att, "n_heads_in_group"));
    MC_RETURN_IF_ERROR(check_block_keys(c, il, "ffn", *ffn, "ffn_mult"));
    LayerKind& kind = a.kinds[il];
    if (no_att) {
      kind.attn = Attn::kNone;
    } else {
      MC_ASSIGN_OR_RETURN(const int64_t g, read_group(c, il, *att, a.heads));
      if (group != 0 && g != group) {
        return block_error(c, il, "attention", "n_heads_in_group",
                           "is " + std::to_string(g) + " but layer " + std::to_string(group_layer) + "'s is " +
                               std::to_string(group) + "; modelcalc models one KV-head count for every attention layer");
      }
      group = g;
      group_layer = il;
      ++norms;  // input_layernorm
    }
    if (no_ffn) {
      kind.ffn = Ffn::kNone;
    } else {
      MC_ASSIGN_OR_RETURN(a.ff_widths[il], read_width(c, il, *ffn, a.d));
      ++norms;  // post_attention_layernorm
    }
  }
  if (group > 0) a.kv_heads = a.heads / group;
  a.layer_norms_total = norms;
  a.ff = *std::max_element(a.ff_widths.begin(), a.ff_widths.end());
  int64_t narrowest = a.ff;
  for (int64_t w : a.ff_widths) {
    if (w > 0) narrowest = std::min(narrowest, w);
  }
  if (narrowest != a.ff) {
    a.assumptions.push_back("the MLP widths differ per layer (block_configs: " + std::to_string(narrowest) + " to " +
                            std::to_string(a.ff) + "), counted exactly in the parameters; d_ff shows the widest, "
                            "which the activation estimates use");
  }
  return Status::Ok();
}

}  // namespace modelcalc::hf
