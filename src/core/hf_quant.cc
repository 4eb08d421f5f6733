// Quantized checkpoints: config.json's quantization_config (fp8 with block
// scales, mxfp4, modelopt, awq, gptq, compressed-tensors) and NVIDIA
// ModelOpt's hf_quant_config.json, read into the CheckpointQuant of the spec:
// the dtype the checkpoint stores its quantized parts in, which parts it keeps
// in 16 bits, its group size and the KV-cache dtype it states.
//
// Which parts a checkpoint keeps: the module patterns it lists
// (modules_to_not_convert, ignored_layers, ignore, exclude_modules) are
// matched, as vLLM's ModelOpt loader matches them, against every linear module
// of every block named as the family's checkpoints name it (hf_modules.h); a
// part is kept in 16 bits when all its modules are excluded in every layer that
// has it, else it counts as quantized and the spec says how much is not
// (routers, embeddings and lm_head are 16-bit anyway). MIXED_PRECISION gives
// each module its own format. The ModelOpt sidecar is resolved through links
// and must be a regular file; an unknown weight or KV scheme is refused
// naming its key.
#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "hf_modules.h"
#include "hf_reader.h"
#include "input_file.h"
#include "modelcalc/hf_config.h"

namespace modelcalc::hf {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// What the exclusion patterns leave of one part of the blocks.
struct PartCoverage {
  int64_t holders = 0;  // layers that have the part
  int64_t kept = 0;     // of which every module of the part is excluded: kept in 16 bits
  int64_t partly = 0;   // of which some modules are excluded, others not
  std::set<std::string> kept_leaves;  // the excluded modules of the partly kept layers, by leaf name
};

std::string leaf_of(const std::string& name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// Matches the checkpoint's exclusion patterns against the modules of every
// layer (layer_modules: the names its checkpoints use), as vLLM's ModelOpt
// loader does: a part is kept in 16 bits in a layer when each of its modules is
// excluded there.
std::array<PartCoverage, kQuantParts> coverage(const std::vector<std::string>& patterns, const ModelSpec& m) {
  std::array<PartCoverage, kQuantParts> cov;
  const std::vector<LayerModule> modules = layer_modules(m);
  for (size_t i = 0; i < modules.size();) {
    // One layer's modules of one part: [i, j).
    size_t j = i;
    while (j < modules.size() && modules[j].layer == modules[i].layer && modules[j].part == modules[i].part) ++j;
    int64_t excluded = 0;
    std::vector<std::string> leaves;
    for (size_t k = i; k < j; ++k) {
      const bool out = std::any_of(patterns.begin(), patterns.end(),
                                   [&](const std::string& p) { return module_excluded(modules[k].name, p); });
      if (out) {
        ++excluded;
        leaves.push_back(leaf_of(modules[k].name));
      }
    }
    PartCoverage& c = cov[static_cast<size_t>(modules[i].part)];
    ++c.holders;
    if (excluded == static_cast<int64_t>(j - i)) {
      ++c.kept;
    } else if (excluded > 0) {
      ++c.partly;
      c.kept_leaves.insert(leaves.begin(), leaves.end());
    }
    i = j;
  }
  return cov;
}

// Applies the excluded-module patterns to q: a part kept in every layer that
// has it is 16-bit; a part kept in some layers, or some of whose modules are
// kept, counts as quantized, and the spec says how much is not.
void apply_exclusions(const std::vector<std::string>& patterns, const ModelSpec& m, CheckpointQuant& q,
                      std::vector<std::string>* notes) {
  if (patterns.empty()) return;
  const auto cov = coverage(patterns, m);
  bool* flags[kQuantParts] = {&q.attention, &q.mlp, &q.experts, &q.recurrent};
  const char* names[kQuantParts] = {"attention", "MLP", "expert", "recurrent-mixer"};
  for (size_t k = 0; k < kQuantParts; ++k) {
    const PartCoverage& c = cov[k];
    if (c.holders == 0) continue;
    if (c.kept == c.holders) {
      *flags[k] = false;
      continue;
    }
    if (c.kept > 0) {
      notes->push_back("the checkpoint keeps the " + std::string(names[k]) + " weights of " + std::to_string(c.kept) +
                       " of " + std::to_string(c.holders) + " layers in 16 bits; counted as quantized in every layer");
    }
    if (c.partly > 0) {
      std::string leaves;
      for (const std::string& l : c.kept_leaves) leaves += (leaves.empty() ? "" : ", ") + l;
      notes->push_back("the checkpoint keeps " + leaves + " of the " + names[k] + " weights in 16 bits in " +
                       std::to_string(c.partly) + " of " + std::to_string(c.holders) +
                       " layers and quantizes the rest; counted as quantized");
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
  if (kv != j.end() && !kv->is_null()) {
    const int64_t kv_bits = kv->is_object() ? kv->value("num_bits", 0) : 0;
    const std::string kv_type = kv->is_object() ? kv->value("type", std::string("float")) : std::string();
    if (kv_bits != 8 || (kv_type != "float" && kv_type != "int")) {
      return q.error("kv_cache_scheme", "only an 8-bit float or int KV cache is modelled");
    }
    out.kv = kv_type == "float" ? Dtype::kFp8 : Dtype::kInt8;
  }
  return Status::Ok();
}

// A ModelOpt quant_algo's dtype, as vLLM (modelopt.py's QUANT_ALGOS) and
// TensorRT-LLM (QuantAlgo) read it; false for an algo it does not name.
bool modelopt_dtype(const std::string& algo, CheckpointQuant* out) {
  const std::string a = upper(algo);
  if (a == "FP8" || a == "FP8_PER_CHANNEL_PER_TOKEN") {
    out->dtype = Dtype::kFp8;
  } else if (a == "FP8_BLOCK_SCALES" || a == "FP8_PB_WO") {
    out->dtype = Dtype::kFp8;
    out->block_scales = true;
  } else if (a == "NVFP4" || a == "W4A16_NVFP4") {
    out->dtype = Dtype::kNvfp4;
  } else if (a == "MXFP4") {
    out->dtype = Dtype::kMxfp4;
  } else if (a == "W4A16_AWQ" || a == "W4A8_AWQ") {
    out->dtype = Dtype::kInt4;
  } else {
    return false;
  }
  return true;
}

constexpr const char* kModeloptAlgos =
    "FP8, FP8_PER_CHANNEL_PER_TOKEN, FP8_BLOCK_SCALES, FP8_PB_WO, NVFP4, W4A16_NVFP4, MXFP4, W4A16_AWQ, W4A8_AWQ, "
    "MIXED_PRECISION";

// The KV-cache scheme of a ModelOpt config: kv_cache_quant_algo (hf_quant_config.json; FP8, or null for none),
// or, in config.json's form, kv_cache_scheme {"type": "float", "num_bits": 8}. Anything else is refused.
Status read_modelopt_kv(Cfg& q, CheckpointQuant& out) {
  const auto& j = q.object();
  if (auto kv = j.find("kv_cache_quant_algo"); kv != j.end() && !kv->is_null()) {
    if (!kv->is_string()) return q.error("kv_cache_quant_algo", std::string("expected a string, got ") + kv->type_name());
    const std::string a = upper(kv->get<std::string>());
    if (a != "FP8") {
      return q.error("kv_cache_quant_algo", "'" + kv->get<std::string>() +
                                                "' is not a KV-cache scheme modelcalc models (FP8, or null for none)");
    }
    out.kv = Dtype::kFp8;
  }
  // config.json's form: kv_cache_scheme {"type": "float", "num_bits": 8} (vLLM), or the algo's name as
  // ModelOpt 0.31 writes it there ("FP8": Qwen3-32B-FP8-Static-PerTensor).
  if (auto kv = j.find("kv_cache_scheme"); kv != j.end() && !kv->is_null()) {
    const bool fp8 = kv->is_string() ? upper(kv->get<std::string>()) == "FP8"
                                     : kv->is_object() && kv->value("type", std::string()) == "float" &&
                                           kv->value("num_bits", 0) == 8;
    if (!fp8) {
      return q.error("kv_cache_scheme",
                     "only an 8-bit float KV cache (\"FP8\", or {\"type\": \"float\", \"num_bits\": 8}) is modelled");
    }
    out.kv = Dtype::kFp8;
  }
  return Status::Ok();
}

// MIXED_PRECISION: each quantized module's own quant_algo in quantized_layers (module name -> {quant_algo,
// group_size}), as vLLM's ModelOptMixedPrecisionConfig reads it; a module it does not list is 16-bit. Each part
// takes the algo of most of its quantized modules (the others are said in a note); the checkpoint's dtype is
// that of its experts, else its MLP, attention, recurrent mixers.
Status read_mixed_precision(Cfg& q, const ModelSpec& m, const std::vector<std::string>& excluded, CheckpointQuant& out,
                            std::vector<std::string>* notes) {
  const auto& j = q.object();
  const auto layers = j.find("quantized_layers");
  if (layers == j.end() || !layers->is_object() || layers->empty()) {
    return q.error("quantized_layers", "missing or empty; MIXED_PRECISION names each quantized module's format there");
  }
  std::array<std::map<Dtype, int64_t>, kQuantParts> algos;
  std::array<int64_t, kQuantParts> modules{}, quantized{};
  for (const LayerModule& mod : layer_modules(m)) {
    const auto p = static_cast<size_t>(mod.part);
    ++modules[p];
    const auto it = layers->find(mod.name);
    if (it == layers->end() || std::any_of(excluded.begin(), excluded.end(),
                                           [&](const std::string& e) { return module_excluded(mod.name, e); })) {
      continue;
    }
    CheckpointQuant one;
    const std::string algo = it->is_object() ? it->value("quant_algo", std::string()) : std::string();
    if (!modelopt_dtype(algo, &one)) {
      return q.error("quantized_layers", "'" + mod.name + "' has quant_algo '" + algo + "'; supported: " + kModeloptAlgos);
    }
    ++algos[p][one.dtype];
    ++quantized[p];
    if (one.block_scales) out.block_scales = true;
  }
  bool* flags[kQuantParts] = {&out.attention, &out.mlp, &out.experts, &out.recurrent};
  std::optional<Dtype>* own[kQuantParts] = {&out.attention_dtype, &out.mlp_dtype, &out.experts_dtype,
                                            &out.recurrent_dtype};
  const char* names[kQuantParts] = {"attention", "MLP", "expert", "recurrent-mixer"};
  for (size_t p = 0; p < kQuantParts; ++p) {
    *flags[p] = quantized[p] > 0;
    if (quantized[p] == 0) continue;
    const auto most = std::max_element(algos[p].begin(), algos[p].end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    *own[p] = most->first;
    if (quantized[p] < modules[p] || algos[p].size() > 1) {
      notes->push_back("MIXED_PRECISION: " + std::to_string(most->second) + " of " + std::to_string(modules[p]) + " " +
                       names[p] + " modules are " + std::string(dtype_name(most->first)) +
                       "; counted so in every layer");
    }
  }
  for (size_t p : {2u, 1u, 0u, 3u}) {
    if (*own[p]) {
      out.dtype = **own[p];
      return Status::Ok();
    }
  }
  return q.error("quantized_layers", "names none of the model's block modules (e.g. " +
                                         (layer_modules(m).empty() ? std::string("-") : layer_modules(m)[0].name) + ")");
}

// A ModelOpt scheme (config.json's quantization_config or hf_quant_config.json's "quantization"): its
// quant_algo, group_size, KV scheme, and the modules it excludes (`exclude_key`).
Status read_modelopt(Cfg& q, const ModelSpec& m, const std::vector<std::string>& excluded, CheckpointQuant& out,
                     std::vector<std::string>* notes) {
  MC_ASSIGN_OR_RETURN(auto algo, q.str("quant_algo"));
  if (!algo) return q.error("quant_algo", std::string("missing; supported: ") + kModeloptAlgos);
  if (upper(*algo) == "MIXED_PRECISION") {
    MC_RETURN_IF_ERROR(read_mixed_precision(q, m, excluded, out, notes));
  } else if (!modelopt_dtype(*algo, &out)) {
    return q.error("quant_algo", "'" + *algo + "' is not supported; supported: " + kModeloptAlgos);
  } else {
    apply_exclusions(excluded, m, out, notes);
  }
  MC_ASSIGN_OR_RETURN(auto group, q.opt("group_size", std::nullopt));
  if (group && out.dtype == Dtype::kInt4) out.group_size = *group;
  return read_modelopt_kv(q, out);
}

// quantization_config is ModelOpt's when it says so: quant_method "modelopt..." or, without a quant_method,
// a producer named modelopt or a quant_algo (vLLM reads both forms).
bool is_modelopt(Cfg& q, const std::optional<std::string>& method) {
  if (method) return lower(*method).starts_with("modelopt");
  const auto& j = q.object();
  const auto producer = j.find("producer");
  return j.contains("quant_algo") ||
         (producer != j.end() && producer->is_object() && producer->value("name", std::string()) == "modelopt");
}

// quant_method fp8 (DeepSeek-V3 / Kimi-K2 / Qwen FP8, AMD Quark's FP8-KV): e4m3 weights, one fp32 scale per
// weight_block_size block when it is given.
Status read_fp8(Cfg& q, CheckpointQuant& out) {
  out.dtype = Dtype::kFp8;
  MC_ASSIGN_OR_RETURN(auto block, q.int_list("weight_block_size"));
  if (!block.empty() && (block.size() != 2 || block[0] != 128 || block[1] != 128)) {
    return q.error("weight_block_size", "only 128 x 128 blocks are modelled");
  }
  out.block_scales = !block.empty();
  // AMD's -FP8-KV releases: "kv_cache_scheme": "static" ships calibrated scales for an fp8 KV cache
  // (vLLM docs, features/quantization/quantized_kvcache: "Indicates pre-calibrated scales are embedded").
  MC_ASSIGN_OR_RETURN(auto kv_scheme, q.str("kv_cache_scheme"));
  if (kv_scheme) {
    if (*kv_scheme != "static" && *kv_scheme != "dynamic") {
      return q.error("kv_cache_scheme",
                     "'" + *kv_scheme + "' is not a KV-cache scheme modelcalc reads (static, dynamic: an fp8 KV cache)");
    }
    out.kv = Dtype::kFp8;
  }
  return Status::Ok();
}

}  // namespace

Result<CheckpointQuant> read_quantization_config(Cfg q, const ModelSpec& m, std::vector<std::string>* notes) {
  CheckpointQuant out;
  out.source = "quantization_config";
  MC_ASSIGN_OR_RETURN(auto method, q.str("quant_method"));
  std::vector<std::string> kept;
  for (const char* key : {"modules_to_not_convert", "ignored_layers", "ignore", "exclude_modules"}) {
    MC_ASSIGN_OR_RETURN(auto list, string_list(q, key));
    kept.insert(kept.end(), list.begin(), list.end());
  }
  if (is_modelopt(q, method)) {
    out.method = "modelopt";
    MC_RETURN_IF_ERROR(read_modelopt(q, m, kept, out, notes));
    return out;
  }
  if (!method) return q.error("quant_method", "missing; say how the checkpoint is quantized");
  out.method = *method;
  const std::string& mt = out.method;
  if (mt == "fp8") {
    MC_RETURN_IF_ERROR(read_fp8(q, out));
  } else if (mt == "mxfp4") {
    // transformers' Mxfp4 integration swaps the MoE experts (gpt-oss): only they are MXFP4.
    out.dtype = Dtype::kMxfp4;
    out.attention = out.mlp = out.recurrent = false;
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

Result<std::optional<std::string>> read_modelopt_sidecar(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  if (ec || link.type() == fs::file_type::not_found) return std::optional<std::string>();
  if (fs::is_symlink(link) && !fs::exists(fs::status(path, ec))) {
    return Status::InvalidArgument(path, "is a link to nothing; ModelOpt's hf_quant_config.json must be a regular file");
  }
  MC_ASSIGN_OR_RETURN(std::string text, read_input_file(path));  // refuses a FIFO, a folder, a device
  return std::optional<std::string>(std::move(text));
}

Result<ModelSpec> model_with_sidecar(std::string_view config_text, std::string_view source,
                                     std::string_view sidecar_text, std::string_view sidecar_source) {
  MC_ASSIGN_OR_RETURN(nlohmann::json config, parse_python_json(config_text, source));
  if (config.is_object()) config.erase("quantization_config");
  MC_ASSIGN_OR_RETURN(ModelSpec m, model_from_hf_json(config.dump(), source));
  MC_ASSIGN_OR_RETURN(m.quant, read_modelopt_quant_config(sidecar_text, sidecar_source, m, &m.assumptions));
  return m;
}

Result<std::optional<Dtype>> read_ssm_state_dtype(const Cfg& c) {
  for (const Cfg& where : {c, c.has_object("text_config") ? c.child("text_config", c.model_type()) : c}) {
    for (const char* key : {"mamba_ssm_cache_dtype", "mamba_ssm_dtype"}) {
      MC_ASSIGN_OR_RETURN(const std::optional<std::string> value, where.str(key));
      const std::string v = value.value_or("auto");
      if (v == "auto") continue;
      const std::pair<const char*, Dtype> names[] = {
          {"float32", Dtype::kFp32}, {"bfloat16", Dtype::kBf16}, {"float16", Dtype::kFp16}};
      for (const auto& [name, dtype] : names) {
        if (v == name) return std::optional<Dtype>(dtype);
      }
      return where.error(key, "'" + v + "' is not a state dtype modelcalc reads (float32, bfloat16, float16, auto)");
    }
  }
  return std::optional<Dtype>();
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
  MC_ASSIGN_OR_RETURN(auto kept, q.str_list("exclude_modules"));
  MC_RETURN_IF_ERROR(read_modelopt(q, m, kept, out, notes));
  return out;
}

}  // namespace modelcalc::hf
