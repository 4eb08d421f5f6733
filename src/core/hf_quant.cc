// Quantized checkpoints: config.json's quantization_config (fp8 with block
// scales, mxfp4, modelopt, awq, gptq, compressed-tensors) and NVIDIA
// ModelOpt's hf_quant_config.json, read into the CheckpointQuant of the spec:
// the dtype the checkpoint stores its quantized parts in, which parts it keeps
// in 16 bits, its group size and the KV-cache dtype it states.
//
// Which parts a checkpoint keeps: the module patterns it lists
// (modules_to_not_convert, ignored_layers, ignore, exclude_modules) are read
// by the part of the block they name (self_attn/attention, experts,
// shared_expert, mlp/feed_forward, mamba/mixer/linear_attn; routers,
// embeddings and lm_head are 16-bit anyway). A pattern with a wildcard or no
// layer number names every layer; one naming layers by number counts only
// when it covers every layer of that part (else the part counts as quantized,
// and the spec says so).
#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "hf_reader.h"
#include "input_file.h"

namespace modelcalc::hf {

namespace {

enum class Part { kAttention, kMlp, kExperts, kRecurrent, kSixteenBit, kUnknown };

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool has(const std::string& s, std::string_view w) { return s.find(w) != std::string::npos; }

// The part of a block a module pattern names.
Part part_of(const std::string& pattern) {
  const std::string p = lower(pattern);
  if (has(p, "lm_head") || has(p, "embed") || has(p, "router") || has(p, "norm") || p.ends_with("mlp.gate") ||
      p.ends_with("mlp.gate$") || p.ends_with(".gate") || p.ends_with("score_correction_bias") || has(p, "vision") ||
      has(p, "multi_modal") || has(p, "visual") || has(p, "mtp") || has(p, "shared_head")) {
    return Part::kSixteenBit;
  }
  if (has(p, "linear_attn") || has(p, "mamba") || has(p, "mixer") || has(p, "ssm")) return Part::kRecurrent;
  if (has(p, "attn") || has(p, "attention")) return Part::kAttention;
  if (has(p, "shared_expert")) return Part::kMlp;
  if (has(p, "expert")) return Part::kExperts;
  if (has(p, "mlp") || has(p, "feed_forward") || has(p, "ffn")) return Part::kMlp;
  return Part::kUnknown;
}

// The layer a pattern names by number ("model.layers.3.self_attn*"), or -1
// when it names every layer (a wildcard or no layer number).
int64_t layer_of(const std::string& pattern) {
  const size_t at = pattern.find("layers.");
  if (at == std::string::npos) return -1;
  size_t i = at + 7;
  if (i >= pattern.size() || !std::isdigit(static_cast<unsigned char>(pattern[i]))) return -1;
  int64_t n = 0;
  for (; i < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[i])) && n < (int64_t{1} << 40); ++i) {
    n = n * 10 + (pattern[i] - '0');
  }
  return n;
}

// Layers that hold each part, for layer-numbered patterns.
int64_t layers_with(const ModelSpec& m, Part part) {
  const LayerCounts c = m.count_layers();
  switch (part) {
    case Part::kAttention: return c.attention();
    case Part::kMlp: return c.dense + (m.n_expert_shared > 0 ? c.moe : 0);
    case Part::kExperts: return c.moe;
    case Part::kRecurrent: return c.recurrent;
    default: return 0;
  }
}

// Applies the excluded-module patterns to q.
void apply_exclusions(const std::vector<std::string>& patterns, const ModelSpec& m, CheckpointQuant& q,
                      std::vector<std::string>* notes) {
  std::set<int64_t> numbered[4];
  bool all[4] = {false, false, false, false};
  for (const std::string& pat : patterns) {
    const Part part = part_of(pat);
    if (part == Part::kSixteenBit || part == Part::kUnknown) continue;
    const int64_t layer = layer_of(pat);
    const auto k = static_cast<size_t>(part);
    if (layer < 0) {
      all[k] = true;
    } else {
      numbered[k].insert(layer);
    }
  }
  bool* flags[4] = {&q.attention, &q.mlp, &q.experts, &q.recurrent};
  const char* names[4] = {"attention", "MLP", "expert", "recurrent-mixer"};
  for (size_t k = 0; k < 4; ++k) {
    const int64_t holders = layers_with(m, static_cast<Part>(k));
    if (all[k] || (holders > 0 && static_cast<int64_t>(numbered[k].size()) >= holders)) {
      *flags[k] = false;
    } else if (!numbered[k].empty()) {
      notes->push_back("the checkpoint keeps the " + std::string(names[k]) + " weights of " +
                       std::to_string(numbered[k].size()) + " of " + std::to_string(holders) +
                       " layers in 16 bits; counted as quantized in every layer");
    }
  }
}

Result<std::vector<std::string>> string_list(Cfg& q, std::string_view key) { return q.str_list(key); }

// compressed-tensors: the first config group's weights scheme.
Status read_compressed_tensors(Cfg& q, CheckpointQuant& out) {
  const auto& j = q.object();
  const auto groups = j.find("config_groups");
  if (groups == j.end() || !groups->is_object() || groups->empty()) {
    return q.error("config_groups", "missing; compressed-tensors needs a weights scheme");
  }
  const auto& g = groups->begin().value();
  const auto w = g.find("weights");
  if (!g.is_object() || w == g.end() || !w->is_object()) {
    return q.error("config_groups", "the first group has no weights scheme");
  }
  const int64_t bits = w->value("num_bits", 0);
  const std::string type = w->value("type", std::string("int"));
  const std::string strategy = w->value("strategy", std::string(""));
  const int64_t group = w->contains("group_size") && (*w)["group_size"].is_number_integer()
                            ? (*w)["group_size"].get<int64_t>()
                            : 0;
  const std::string format = j.value("format", std::string(""));
  if (bits == 8 && type == "float") {
    out.dtype = Dtype::kFp8;
    out.block_scales = strategy == "block";
  } else if (bits == 8 && type == "int") {
    out.dtype = Dtype::kInt8;
    out.group_size = strategy == "group" ? group : 0;
  } else if (bits == 4 && type == "float") {
    out.dtype = format.find("mxfp4") != std::string::npos || group == 32 ? Dtype::kMxfp4 : Dtype::kNvfp4;
  } else if (bits == 4 && type == "int") {
    out.dtype = Dtype::kInt4;
    out.group_size = strategy == "group" ? group : 0;
  } else {
    return q.error("config_groups", "weights of " + std::to_string(bits) + "-bit " + type +
                                        " are not supported (8-bit float or int, 4-bit float or int)");
  }
  const auto kv = j.find("kv_cache_scheme");
  if (kv != j.end() && kv->is_object()) {
    const int64_t kv_bits = kv->value("num_bits", 0);
    const std::string kv_type = kv->value("type", std::string("float"));
    if (kv_bits == 8) out.kv = kv_type == "float" ? Dtype::kFp8 : Dtype::kInt8;
  }
  return Status::Ok();
}

// A ModelOpt quant_algo (config.json's quantization_config or hf_quant_config.json).
Status read_modelopt_algo(Cfg& q, std::string_view algo_key, CheckpointQuant& out) {
  MC_ASSIGN_OR_RETURN(auto algo, q.str(algo_key));
  const std::string a = algo ? *algo : "";
  if (a == "FP8") {
    out.dtype = Dtype::kFp8;
  } else if (a == "FP8_BLOCK_SCALES") {
    out.dtype = Dtype::kFp8;
    out.block_scales = true;
  } else if (a == "NVFP4") {
    out.dtype = Dtype::kNvfp4;
  } else if (a == "MXFP4") {
    out.dtype = Dtype::kMxfp4;
  } else if (a == "W4A16_AWQ" || a == "W4A8_AWQ") {
    out.dtype = Dtype::kInt4;
  } else {
    return q.error(algo_key, "'" + a + "' is not supported (FP8, FP8_BLOCK_SCALES, NVFP4, MXFP4, W4A16_AWQ, "
                             "W4A8_AWQ; a MIXED_PRECISION checkpoint's per-layer formats are not modelled)");
  }
  MC_ASSIGN_OR_RETURN(auto group, q.opt("group_size", std::nullopt));
  if (group && out.dtype == Dtype::kInt4) out.group_size = *group;
  MC_ASSIGN_OR_RETURN(auto kv, q.str("kv_cache_quant_algo"));
  if (kv) {
    if (*kv == "FP8") {
      out.kv = Dtype::kFp8;
    } else if (*kv == "NVFP4" || *kv == "INT8") {
      return q.error("kv_cache_quant_algo", "'" + *kv + "' is not a KV-cache dtype modelcalc models (FP8)");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<CheckpointQuant> read_quantization_config(Cfg q, const ModelSpec& m, std::vector<std::string>* notes) {
  CheckpointQuant out;
  out.source = "quantization_config";
  MC_ASSIGN_OR_RETURN(auto method, q.str("quant_method"));
  if (!method) return q.error("quant_method", "missing; say how the checkpoint is quantized");
  out.method = *method;
  std::vector<std::string> kept;
  for (const char* key : {"modules_to_not_convert", "ignored_layers", "ignore", "exclude_modules"}) {
    MC_ASSIGN_OR_RETURN(auto list, string_list(q, key));
    kept.insert(kept.end(), list.begin(), list.end());
  }
  const std::string& mt = out.method;
  if (mt == "fp8") {
    // DeepSeek-V3 / Kimi-K2 / Qwen FP8: e4m3 weights, one fp32 scale per weight_block_size block.
    out.dtype = Dtype::kFp8;
    MC_ASSIGN_OR_RETURN(auto block, q.int_list("weight_block_size"));
    if (!block.empty() && (block.size() != 2 || block[0] != 128 || block[1] != 128)) {
      return q.error("weight_block_size", "only 128 x 128 blocks are modelled");
    }
    out.block_scales = !block.empty();
    // AMD's -FP8-KV releases (Quark): "kv_cache_scheme": "static" ships calibrated scales for an
    // fp8 KV cache (vLLM docs, quantized_kvcache: "Indicates pre-calibrated scales are embedded").
    MC_ASSIGN_OR_RETURN(auto kv_scheme, q.str("kv_cache_scheme"));
    if (kv_scheme) {
      if (*kv_scheme != "static" && *kv_scheme != "dynamic") {
        return q.error("kv_cache_scheme", "'" + *kv_scheme + "' is not a KV-cache scheme modelcalc reads (static, dynamic: "
                                          "an fp8 KV cache)");
      }
      out.kv = Dtype::kFp8;
    }
  } else if (mt == "mxfp4") {
    // transformers' Mxfp4 integration swaps the MoE experts (gpt-oss): only they are MXFP4.
    out.dtype = Dtype::kMxfp4;
    out.attention = out.mlp = out.recurrent = false;
  } else if (mt == "modelopt") {
    MC_RETURN_IF_ERROR(read_modelopt_algo(q, "quant_algo", out));
  } else if (mt == "awq" || mt == "gptq") {
    MC_ASSIGN_OR_RETURN(auto bits, q.opt("bits", 4));
    if (!bits || (*bits != 4 && *bits != 8)) return q.error("bits", "only 4 or 8 bits are modelled");
    out.dtype = *bits == 4 ? Dtype::kInt4 : Dtype::kInt8;
    // group_size 128 by default; -1 (GPTQ) is one scale per output channel: per d inputs.
    MC_ASSIGN_OR_RETURN(auto group, q.opt("group_size", 128, -1));
    if (group && *group == 0) return q.error("group_size", "must be positive, or -1 for one scale per channel");
    out.group_size = !group ? 128 : *group < 0 ? m.n_embd : *group;
  } else if (mt == "compressed-tensors") {
    MC_RETURN_IF_ERROR(read_compressed_tensors(q, out));
  } else {
    return q.error("quant_method", "'" + mt + "' is not supported; supported: fp8, mxfp4, modelopt, awq, gptq, "
                                              "compressed-tensors");
  }
  apply_exclusions(kept, m, out, notes);
  return out;
}

Result<CheckpointQuant> read_modelopt_quant_config(std::string_view text, std::string_view source, const ModelSpec& m,
                                                   std::vector<std::string>* notes) {
  MC_ASSIGN_OR_RETURN(const nlohmann::json j, parse_python_json(text, source));
  if (!j.is_object()) return Status::InvalidArgument(source, "expected a JSON object");
  Cfg top(j, source, "modelopt");
  if (!top.has_object("quantization")) {
    return top.error("quantization", "missing; ModelOpt's hf_quant_config.json keeps its scheme there");
  }
  Cfg q = top.child("quantization", "modelopt");
  CheckpointQuant out;
  out.method = "modelopt";
  out.source = "hf_quant_config.json";
  MC_RETURN_IF_ERROR(read_modelopt_algo(q, "quant_algo", out));
  MC_ASSIGN_OR_RETURN(auto kept, q.str_list("exclude_modules"));
  apply_exclusions(kept, m, out, notes);
  return out;
}

}  // namespace modelcalc::hf
