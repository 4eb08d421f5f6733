// The Hugging Face config.json reader: JSON parsing, typed key access, the
// model_type dispatch table, files and folders (the presets: presets.cc).
#include "modelcalc/hf_config.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "hf_reader.h"
#include "input_file.h"

namespace modelcalc {
namespace hf {

using nlohmann::json;

// Integers in a config are sizes and counts; anything above this is not a
// real model and would make two-factor products overflow.
constexpr int64_t kMaxConfigInt = std::numeric_limits<int32_t>::max();

std::pair<std::string, const json*> Cfg::find(std::string_view key) const {
  if (auto it = j_.find(key); it != j_.end()) return {std::string(key), &*it};
  for (const auto& [canonical, legacy] : aliases_) {
    if (canonical != key) continue;
    if (auto it = j_.find(legacy); it != j_.end()) return {legacy, &*it};
  }
  return {std::string(key), nullptr};
}

Status Cfg::error(std::string_view key, std::string_view what) const {
  return Status::InvalidArgument(source_ + ": " + prefix_ + std::string(key), what);
}

bool Cfg::has_object(std::string_view key) const {
  auto [name, v] = find(key);
  return v != nullptr && v->is_object();
}

Cfg Cfg::child(std::string_view key, std::string_view model_type) const {
  auto [name, v] = find(key);
  Cfg c(*v, source_, model_type);
  c.prefix_ = prefix_ + name + ".";
  return c;
}

Result<std::optional<std::string>> Cfg::str(std::string_view key) const {
  auto [name, v] = find(key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) return error(name, std::string("expected a string, got ") + v->type_name());
  return std::optional<std::string>(v->get<std::string>());
}

Result<double> Cfg::number(std::string_view key, double absent) const {
  auto [name, v] = find(key);
  if (v == nullptr || v->is_null()) return absent;
  if (!v->is_number()) return error(name, std::string("expected a number, got ") + v->type_name());
  return v->get<double>();
}

Result<int64_t> Cfg::as_int(const std::string& name, const json& v, int64_t min_value) const {
  if (!v.is_number_integer()) {
    std::string shown = v.is_string() ? "\"" + v.get<std::string>() + "\"" : v.dump();
    if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
    return error(name, std::string("expected an integer, got ") + v.type_name() + " " + shown);
  }
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kMaxConfigInt)) {
    return error(name, "value too large (at most " + std::to_string(kMaxConfigInt) + ")");
  }
  const int64_t x = v.get<int64_t>();
  if (x > kMaxConfigInt) {
    return error(name, "value too large (at most " + std::to_string(kMaxConfigInt) + ")");
  }
  if (x < min_value) {
    return error(name, "must be at least " + std::to_string(min_value) + ", got " +
                           std::to_string(x));
  }
  return x;
}

Result<int64_t> Cfg::req(std::string_view key, int64_t min_value) const {
  auto [name, v] = find(key);
  if (v == nullptr) {
    return error(key, "missing; model_type '" + model_type_ + "' needs it");
  }
  if (v->is_null()) return error(name, "is null; model_type '" + model_type_ + "' needs an integer");
  return as_int(name, *v, min_value);
}

Result<std::optional<int64_t>> Cfg::opt(std::string_view key, std::optional<int64_t> absent,
                                        int64_t min_value) const {
  auto [name, v] = find(key);
  if (v == nullptr) return absent;
  if (v->is_null()) return std::optional<int64_t>();
  MC_ASSIGN_OR_RETURN(int64_t x, as_int(name, *v, min_value));
  return std::optional<int64_t>(x);
}

Result<bool> Cfg::flag(std::string_view key, bool absent) const {
  auto [name, v] = find(key);
  if (v == nullptr) return absent;
  if (!v->is_boolean()) {
    return error(name, std::string("expected true or false, got ") + v->type_name());
  }
  return v->get<bool>();
}

Result<std::vector<int64_t>> Cfg::int_list(std::string_view key) const {
  auto [name, v] = find(key);
  std::vector<int64_t> out;
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) return error(name, std::string("expected a list of integers, got ") + v->type_name());
  for (const auto& e : *v) {
    MC_ASSIGN_OR_RETURN(int64_t x, as_int(name, e, 0));
    out.push_back(x);
  }
  return out;
}

Result<std::vector<std::string>> Cfg::str_list(std::string_view key) const {
  auto [name, v] = find(key);
  std::vector<std::string> out;
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) return error(name, std::string("expected a list of strings, got ") + v->type_name());
  for (const auto& e : *v) {
    if (!e.is_string()) return error(name, std::string("expected strings, got ") + e.type_name());
    out.push_back(e.get<std::string>());
  }
  return out;
}

Result<ParamBreakdown> Counts::finish(std::string_view source) const {
  const Exact total = embeddings + position + lm_head + attention + recurrent + mlp_dense + mlp_routed +
                      mlp_shared + router + norms + biases;
  if (total.overflow() || mlp_routed_active.overflow()) return Status::Overflow(source);
  ParamBreakdown p;
  p.embeddings = embeddings.value();
  p.position = position.value();
  p.lm_head = lm_head.value();
  p.attention = attention.value();
  p.recurrent = recurrent.value();
  p.mlp_dense = mlp_dense.value();
  p.mlp_routed = mlp_routed.value();
  p.mlp_shared = mlp_shared.value();
  p.router = router.value();
  p.norms = norms.value();
  p.biases = biases.value();
  p.mlp_routed_active = mlp_routed_active.value();
  return p;
}

std::span<const ArchEntry> arch_table() {
  static constexpr ArchEntry kTable[] = {
      {"bloom", build_bloom},
      {"deepseek_v2", build_deepseek_v2},
      {"deepseek_v3", build_deepseek_v3},
      {"deepseek_v32", build_deepseek_v32},
      {"falcon", build_falcon},
      {"falcon_h1", build_falcon_h1},
      {"gemma", build_gemma},
      {"gemma2", build_gemma2},
      {"gemma3", build_gemma3},
      {"gemma3_text", build_gemma3_text},
      {"glm4_moe", build_glm4_moe},
      {"gpt2", build_gpt2},
      {"gpt_neox", build_gpt_neox},
      {"gpt_oss", build_gpt_oss},
      {"jamba", build_jamba},
      {"kimi_k2", build_kimi_k2},
      {"llama", build_llama},
      {"llama4", build_llama4},
      {"llama4_text", build_llama4_text},
      {"mistral", build_mistral},
      {"mistral3", build_mistral3},
      {"mixtral", build_mixtral},
      {"nemotron_h", build_nemotron_h},
      {"olmo2", build_olmo2},
      {"opt", build_opt},
      {"phi", build_phi},
      {"phi3", build_phi3},
      {"qwen2", build_qwen2},
      {"qwen2_moe", build_qwen2_moe},
      {"qwen3", build_qwen3},
      {"qwen3_moe", build_qwen3_moe},
      {"qwen3_next", build_qwen3_next},
  };
  return kTable;
}

ArchBuilder find_builder(std::string_view model_type) {
  for (const ArchEntry& e : arch_table()) {
    if (e.model_type == model_type) return e.build;
  }
  return nullptr;
}

namespace {

// Legacy model_type spellings of remote-code checkpoints whose tensors are
// the same as the transformers architecture they map to.
std::string_view canonical_type(std::string_view t) {
  if (t == "RefinedWeb" || t == "RefinedWebModel") return "falcon";
  if (t == "phi-msft") return "phi";
  return t;
}

std::string supported_list() {
  std::string out;
  for (const auto& t : supported_model_types()) out += (out.empty() ? "" : ", ") + t;
  return out;
}

}  // namespace
}  // namespace hf

std::span<const std::string> supported_model_types() {
  static const std::vector<std::string> kTypes = [] {
    std::vector<std::string> v;
    for (const auto& e : hf::arch_table()) v.emplace_back(e.model_type);
    return v;
  }();
  return kTypes;
}

Result<ModelSpec> model_from_hf_json(std::string_view json_text, std::string_view source) {
  MC_ASSIGN_OR_RETURN(auto j, parse_python_json(json_text, source));
  if (!j.is_object()) {
    return Status::InvalidArgument(source, std::string("expected a JSON object, got ") +
                                               j.type_name());
  }
  const auto it = j.find("model_type");
  if (it == j.end()) {
    return Status::InvalidArgument(std::string(source) + ": model_type",
                                   "missing; supported: " + hf::supported_list());
  }
  if (!it->is_string()) {
    return Status::InvalidArgument(std::string(source) + ": model_type",
                                   std::string("expected a string, got ") + it->type_name());
  }
  const std::string type = it->get<std::string>();
  const std::string_view canonical = hf::canonical_type(type);
  const auto table = hf::arch_table();
  const auto e = std::find_if(table.begin(), table.end(),
                              [&](const hf::ArchEntry& a) { return a.model_type == canonical; });
  if (e == table.end()) {
    return Status::InvalidArgument(std::string(source) + ": model_type",
                                   "'" + type + "' is not supported; supported: " +
                                       hf::supported_list());
  }
  hf::Cfg cfg(j, source, type);
  MC_ASSIGN_OR_RETURN(ModelSpec m, e->build(cfg));
  m.model_type = std::string(canonical);
  if (cfg.has_object("quantization_config")) {
    MC_ASSIGN_OR_RETURN(m.quant,
                        hf::read_quantization_config(cfg.child("quantization_config", type), m, &m.assumptions));
  } else if (cfg.has("quantization_config") && !j["quantization_config"].is_null()) {
    return cfg.error("quantization_config", std::string("expected an object, got ") +
                                                j["quantization_config"].type_name());
  }
  m.name = std::string(source);
  MC_RETURN_IF_ERROR(validate(m));
  return m;
}

Result<ModelSpec> load_hf_config(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(file, ec)) {
    file /= "config.json";
    if (!fs::is_regular_file(file, ec)) {
      return Status::NotFound(path + ": folder has no config.json");
    }
  } else if (!fs::exists(file, ec)) {
    return Status::NotFound(path + ": no such file or folder");
  }
  MC_ASSIGN_OR_RETURN(const std::string text, read_input_file(file.string()));
  MC_ASSIGN_OR_RETURN(ModelSpec m, model_from_hf_json(text, file.string()));
  // NVIDIA ModelOpt keeps its scheme beside config.json; when present it is the checkpoint's.
  const fs::path modelopt = file.parent_path() / "hf_quant_config.json";
  if (fs::is_regular_file(modelopt, ec)) {
    MC_ASSIGN_OR_RETURN(const std::string q, read_input_file(modelopt.string()));
    MC_ASSIGN_OR_RETURN(m.quant, hf::read_modelopt_quant_config(q, modelopt.string(), m, &m.assumptions));
  }
  // Presentation name: the folder holding config.json, else the file name.
  const fs::path abs = fs::absolute(file, ec);
  const std::string folder = abs.parent_path().filename().string();
  m.name = file.filename() == "config.json" && !folder.empty() ? folder
                                                               : file.stem().string();
  return m;
}

}  // namespace modelcalc
