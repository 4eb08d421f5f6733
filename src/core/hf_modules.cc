#include "hf_modules.h"

#include <algorithm>
#include <array>

namespace modelcalc::hf {

namespace {

// How one family's checkpoints name the linear modules of a block, as its
// transformers modeling file (or its remote code) registers them: the layers'
// prefix, each part's container and its leaf modules. Leaves are listed for
// the gated MLP; `mlp_plain` for a family whose MLP has no gate (Nemotron-H's
// relu2, the classic GPTs). An empty `experts_leaves` means the family fuses
// its experts into one module (gpt-oss, Llama 4): the container is the module.
struct FamilyModules {
  std::string_view model_type;
  std::string_view layers = "model.layers";
  std::string_view attention = "self_attn";
  std::array<std::string_view, 4> attention_leaves = {"q_proj", "k_proj", "v_proj", "o_proj"};
  std::string_view recurrent = "";
  std::array<std::string_view, 4> recurrent_leaves = {};
  std::string_view mlp = "mlp";
  std::array<std::string_view, 3> mlp_leaves = {"gate_proj", "up_proj", "down_proj"};
  std::array<std::string_view, 3> mlp_plain = {"up_proj", "down_proj", ""};
  std::string_view experts = "mlp.experts";
  std::array<std::string_view, 3> experts_leaves = {"gate_proj", "up_proj", "down_proj"};
  std::string_view shared = "mlp.shared_experts";
};

// One row per family whose names differ from the llama row (the first).
const FamilyModules kFamilies[] = {
    {.model_type = ""},
    {.model_type = "qwen2_moe", .shared = "mlp.shared_expert"},
    {.model_type = "qwen3_moe", .shared = "mlp.shared_expert"},
    {.model_type = "qwen3_next",
     .recurrent = "linear_attn",
     .recurrent_leaves = {"in_proj_qkvz", "in_proj_ba", "out_proj", ""},
     .shared = "mlp.shared_expert"},
    {.model_type = "mixtral", .experts = "block_sparse_moe.experts", .experts_leaves = {"w1", "w3", "w2"}},
    {.model_type = "gpt_oss", .experts_leaves = {"", "", ""}},
    {.model_type = "llama4",
     .layers = "language_model.model.layers",
     .mlp = "feed_forward",
     .experts = "feed_forward.experts",
     .experts_leaves = {"", "", ""},
     .shared = "feed_forward.shared_expert"},
    {.model_type = "llama4_text",
     .mlp = "feed_forward",
     .experts = "feed_forward.experts",
     .experts_leaves = {"", "", ""},
     .shared = "feed_forward.shared_expert"},
    {.model_type = "gemma3", .layers = "language_model.model.layers"},
    {.model_type = "mistral3", .layers = "language_model.model.layers"},
    // Nemotron-H: every block's module is its "mixer" (Mamba-2, attention, MLP or MoE).
    {.model_type = "nemotron_h",
     .layers = "backbone.layers",
     .attention = "mixer",
     .recurrent = "mixer",
     .recurrent_leaves = {"in_proj", "out_proj", "", ""},
     .mlp = "mixer",
     .experts = "mixer.experts",
     .experts_leaves = {"up_proj", "down_proj", ""},
     .shared = "mixer.shared_experts"},
    {.model_type = "falcon_h1",
     .recurrent = "mamba",
     .recurrent_leaves = {"in_proj", "out_proj", "", ""},
     .mlp = "feed_forward"},
    {.model_type = "jamba",
     .recurrent = "mamba",
     .recurrent_leaves = {"in_proj", "x_proj", "dt_proj", "out_proj"},
     .mlp = "feed_forward",
     .experts = "feed_forward.experts"},
    {.model_type = "phi3", .attention_leaves = {"qkv_proj", "o_proj", "", ""}, .mlp_leaves = {"gate_up_proj", "down_proj", ""}},
    {.model_type = "phi", .attention_leaves = {"q_proj", "k_proj", "v_proj", "dense"}, .mlp_plain = {"fc1", "fc2", ""}},
    {.model_type = "gpt2",
     .layers = "transformer.h",
     .attention = "attn",
     .attention_leaves = {"c_attn", "c_proj", "", ""},
     .mlp_plain = {"c_fc", "c_proj", ""}},
    {.model_type = "opt",
     .layers = "model.decoder.layers",
     .attention_leaves = {"q_proj", "k_proj", "v_proj", "out_proj"},
     .mlp = "",
     .mlp_plain = {"fc1", "fc2", ""}},
    {.model_type = "falcon",
     .layers = "transformer.h",
     .attention = "self_attention",
     .attention_leaves = {"query_key_value", "dense", "", ""},
     .mlp_plain = {"dense_h_to_4h", "dense_4h_to_h", ""}},
    {.model_type = "bloom",
     .layers = "transformer.h",
     .attention = "self_attention",
     .attention_leaves = {"query_key_value", "dense", "", ""},
     .mlp_plain = {"dense_h_to_4h", "dense_4h_to_h", ""}},
    {.model_type = "gpt_neox",
     .layers = "gpt_neox.layers",
     .attention = "attention",
     .attention_leaves = {"query_key_value", "dense", "", ""},
     .mlp_plain = {"dense_h_to_4h", "dense_4h_to_h", ""}},
};

const FamilyModules& family_of(std::string_view model_type) {
  for (const FamilyModules& f : kFamilies) {
    if (f.model_type == model_type) return f;
  }
  return kFamilies[0];
}

std::string join(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  return std::string(a) + "." + std::string(b);
}

template <size_t N>
void add_leaves(std::vector<LayerModule>* out, int64_t il, QuantPart part, const std::string& container,
                const std::array<std::string_view, N>& leaves) {
  for (std::string_view leaf : leaves) {
    if (!leaf.empty()) out->push_back({il, part, join(container, leaf)});
  }
}

void add_attention(const ModelSpec& m, const FamilyModules& f, int64_t il, const std::string& block,
                   std::vector<LayerModule>* out) {
  const std::string attn = join(block, f.attention);
  if (!m.is_mla()) {
    add_leaves(out, il, QuantPart::kAttention, attn, f.attention_leaves);
    return;
  }
  const std::array<std::string_view, 5> mla = {m.n_lora_q > 0 ? "q_a_proj" : "q_proj", m.n_lora_q > 0 ? "q_b_proj" : "",
                                               "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"};
  add_leaves(out, il, QuantPart::kAttention, attn, mla);
}

void add_ffn(const ModelSpec& m, const FamilyModules& f, int64_t il, const std::string& block,
             std::vector<LayerModule>* out) {
  const LayerKind k = m.layer(il);
  if (k.ffn == Ffn::kDense) {
    if (m.ffn_gated) {
      add_leaves(out, il, QuantPart::kMlp, join(block, f.mlp), f.mlp_leaves);
    } else {
      add_leaves(out, il, QuantPart::kMlp, join(block, f.mlp), f.mlp_plain);
    }
    return;
  }
  if (k.ffn != Ffn::kMoe) return;
  const std::string experts = join(block, f.experts);
  if (f.experts_leaves[0].empty()) {
    out->push_back({il, QuantPart::kExperts, experts});
  } else {
    for (int64_t e : {int64_t{0}, m.n_expert - 1}) {
      add_leaves(out, il, QuantPart::kExperts, experts + "." + std::to_string(e), f.experts_leaves);
      if (m.n_expert <= 1) break;
    }
  }
  if (m.n_expert_shared > 0) {
    add_leaves(out, il, QuantPart::kMlp, join(block, f.shared), m.expert_gated ? f.mlp_leaves : f.mlp_plain);
  }
}

// A compressed-tensors "re:" regex as a wildcard (see module_excluded).
std::string regex_as_wildcard(std::string_view re) {
  std::string out;
  for (size_t i = 0; i < re.size(); ++i) {
    const char c = re[i];
    if (c == '^' || c == '$') continue;
    if (c == '.' && i + 1 < re.size() && (re[i + 1] == '*' || re[i + 1] == '+')) {
      out.push_back('*');  // ".*", ".+"
      ++i;
    } else if (c == ']' && i + 1 < re.size() && re[i + 1] == '+') {
      out += "]*";  // "[0-9]+": one of the set, then anything
      ++i;
    } else if (c == '\\' && i + 2 < re.size() && re[i + 1] == 'd' && re[i + 2] == '+') {
      out.push_back('*');  // "\d+"
      i += 2;
    } else if (c == '\\' && i + 1 < re.size() && re[i + 1] == 'd') {
      out.push_back('?');  // "\d"
      ++i;
    } else if (c == '\\' && i + 1 < re.size()) {
      out.push_back(re[++i]);
    } else if (c == '.') {
      out.push_back('?');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// [abc] or [!abc] at pattern[p] (p at '['): whether c is in it, and where the
// set ends; an unclosed '[' is a literal, as in Python.
bool set_matches(std::string_view pattern, size_t p, char c, size_t* end) {
  size_t q = p + 1;
  const bool negate = q < pattern.size() && pattern[q] == '!';
  if (negate) ++q;
  size_t close = q < pattern.size() && pattern[q] == ']' ? q + 1 : q;  // a leading ']' is literal
  while (close < pattern.size() && pattern[close] != ']') ++close;
  if (close >= pattern.size()) {
    *end = p + 1;
    return c == '[';
  }
  bool in = false;
  for (size_t i = q; i < close; ++i) {
    if (i + 2 < close && pattern[i + 1] == '-') {
      in = in || (pattern[i] <= c && c <= pattern[i + 2]);
      i += 2;
    } else {
      in = in || pattern[i] == c;
    }
  }
  *end = close + 1;
  return in != negate;
}

}  // namespace

std::vector<LayerModule> layer_modules(const ModelSpec& m) {
  const FamilyModules& f = family_of(m.model_type);
  std::vector<LayerModule> out;
  for (int64_t il = 0; il < m.n_layer; ++il) {
    const std::string block = std::string(f.layers) + "." + std::to_string(il);
    if (m.has_attention(il)) add_attention(m, f, il, block, &out);
    if (m.is_recurrent_layer(il)) add_leaves(&out, il, QuantPart::kRecurrent, join(block, f.recurrent), f.recurrent_leaves);
    add_ffn(m, f, il, block, &out);
  }
  return out;
}

bool fnmatch_case(std::string_view name, std::string_view pattern) {
  size_t n = 0, p = 0;
  size_t star_p = std::string_view::npos, star_n = 0;
  while (n < name.size()) {
    size_t next = p + 1;
    if (p < pattern.size() && pattern[p] == '*') {
      star_p = p++;
      star_n = n;
      continue;
    }
    if (p < pattern.size() &&
        (pattern[p] == '?' || (pattern[p] == '[' ? set_matches(pattern, p, name[n], &next) : pattern[p] == name[n]))) {
      p = next;
      ++n;
      continue;
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p + 1;
    n = ++star_n;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool module_excluded(std::string_view name, std::string_view pattern) {
  if (pattern.starts_with("re:")) return fnmatch_case(name, regex_as_wildcard(pattern.substr(3)));
  if (pattern.empty()) return false;
  if (name.find(pattern) != std::string_view::npos) return true;  // equal, or contained
  return pattern.find_first_of("*?[") != std::string_view::npos && fnmatch_case(name, pattern);
}

}  // namespace modelcalc::hf
