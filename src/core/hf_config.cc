// The Hugging Face config.json reader: JSON parsing, typed key access, the
// model_type dispatch table, files and folders (the presets: presets.cc).
#include "modelcalc/hf_config.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "hf_config_family.h"
#include "hf_reader.h"
#include "input_file.h"

namespace modelcalc {
namespace hf {

using nlohmann::json;

// Integers in a config are sizes and counts; anything above this is not a
// real model and would make two-factor products overflow.
constexpr int64_t kMaxConfigInt = std::numeric_limits<int32_t>::max();

std::pair<std::string, const json*> Cfg::find(std::string_view key) const {
  if (auto it = j_->find(key); it != j_->end()) {
    used_->insert(std::string(key));
    return {std::string(key), &*it};
  }
  for (const auto& [canonical, legacy] : aliases_) {
    if (canonical != key) continue;
    if (auto it = j_->find(legacy); it != j_->end()) {
      used_->insert(legacy);
      return {legacy, &*it};
    }
  }
  return {std::string(key), nullptr};
}

std::vector<std::string> Cfg::unused_keys() const {
  std::vector<std::string> out;
  for (auto it = j_->begin(); it != j_->end(); ++it) {
    if (used_->count(it.key()) == 0) out.push_back(it.key());
  }
  return out;
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
  Cfg c(*v, source_, model_type);  // a child tracks its own keys
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
    for (const auto& r : hf::family_table()) v.emplace_back(r.model_type);
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
  hf::Cfg cfg(j, source, type);
  cfg.mark_used("quantization_config");  // read below, once the model is known
  Result<ModelSpec> read = hf::interpret(cfg);
  if (!read.ok()) {
    if (hf::find_family(type) != nullptr) return read.status();
    return Status::InvalidArgument(read.status().message(), "model_type '" + type +
                                                                "' is not in the family table and was read by the "
                                                                "generic rules; known: " + hf::supported_list());
  }
  ModelSpec m = std::move(read).value();
  m.model_type = std::string(hf::canonical_type(type));
  // A wrapper's checkpoint may state its quantization inside the language model's config (Kimi-K2.5).
  const hf::FamilyRow* row = hf::find_family(type);
  const std::string_view text_key = row != nullptr ? row->text_key : std::string_view();
  if (cfg.has_object("quantization_config")) {
    MC_ASSIGN_OR_RETURN(m.quant,
                        hf::read_quantization_config(cfg.child("quantization_config", type), m, &m.assumptions));
  } else if (!text_key.empty() && cfg.has_object(text_key) &&
             cfg.child(text_key, type).has_object("quantization_config")) {
    const hf::Cfg text = cfg.child(text_key, type);
    MC_ASSIGN_OR_RETURN(m.quant,
                        hf::read_quantization_config(text.child("quantization_config", type), m, &m.assumptions));
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
