// Internals of the Hugging Face config reader: typed access to one
// config.json object (which also records every key it was asked for, so that
// a key nothing placed can be refused by name), and exact parameter
// accumulators. The reader itself is one generic interpreter
// (hf_config_interpret.cc) driven by the family table (hf_config_family.h).
#ifndef MODELCALC_HF_READER_H_
#define MODELCALC_HF_READER_H_

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "modelcalc/exact.h"
#include "modelcalc/model.h"
#include "modelcalc/status.h"

namespace modelcalc::hf {

// Read-only typed view of a config.json object. Every error is
// InvalidArgument with the field "<source>: <key>", so the user sees which
// file and which key. Integers must be JSON integers (4096, not 4096.0 or
// "4096"); booleans must be true/false. Every key looked up (under its own
// name or an alias) is marked used; unused_keys() lists the others.
class Cfg {
 public:
  // REQUIRES: j.is_object(); j outlives the Cfg. `source` names the input in errors.
  Cfg(const nlohmann::json& j, std::string_view source, std::string_view model_type)
      : j_(&j), source_(source), model_type_(model_type), used_(std::make_shared<std::set<std::string>>()) {}

  // Accepts `legacy` as a second name for `key` (e.g. remote-code configs
  // that say n_layer instead of num_hidden_layers). The canonical key wins
  // when both are present.
  void alias(std::string_view key, std::string_view legacy) {
    aliases_.emplace_back(std::string(key), std::string(legacy));
  }

  // True when the key (or its alias) is present, even as null.
  bool has(std::string_view key) const { return find(key).second != nullptr; }
  // True when the key (or its alias) is present and not null.
  bool has_value(std::string_view key) const {
    const auto* v = find(key).second;
    return v != nullptr && !v->is_null();
  }
  // The name the key is spelled with in the file (its alias when only that is present).
  std::string spelled(std::string_view key) const { return find(key).first; }

  // A required integer >= min_value. Missing or null fails naming the key.
  Result<int64_t> req(std::string_view key, int64_t min_value = 1) const;
  // An integer whose absence means `absent` (the configuration class's
  // default; nullopt = the class's None). An explicit null yields nullopt.
  Result<std::optional<int64_t>> opt(std::string_view key, std::optional<int64_t> absent,
                                     int64_t min_value = 1) const;
  // A boolean; absence (or null) means `absent` (the configuration class's default).
  Result<bool> flag(std::string_view key, bool absent) const;
  // A list of integers; absence (or null) means empty.
  Result<std::vector<int64_t>> int_list(std::string_view key) const;
  // A list of strings; absence (or null) means empty.
  Result<std::vector<std::string>> str_list(std::string_view key) const;

  // A string; absence (or null) means nullopt.
  Result<std::optional<std::string>> str(std::string_view key) const;
  // A real number (integers accepted); absence (or null) means `absent`.
  Result<double> number(std::string_view key, double absent) const;
  // True when the key holds a JSON object.
  bool has_object(std::string_view key) const;
  // The nested object under `key` (text_config, vision_config,
  // quantization_config), read with `model_type`; its errors name
  // "<source>: <key>.<sub-key>". REQUIRES: has_object(key).
  Cfg child(std::string_view key, std::string_view model_type) const;
  // The object itself, for a reader that walks it (quantization configs).
  const nlohmann::json& object() const { return *j_; }
  // The raw value under `key` (marked used), or nullptr when absent.
  const nlohmann::json* raw(std::string_view key) const { return find(key).second; }
  // Marks `key` used without reading it (a key the family's code builds nothing from).
  void mark_used(std::string_view key) const { (void)find(key); }
  // The keys of the object nothing looked up, in file order.
  std::vector<std::string> unused_keys() const;

  // InvalidArgument naming "<source>: <key>".
  Status error(std::string_view key, std::string_view what) const;
  const std::string& model_type() const { return model_type_; }
  const std::string& source() const { return source_; }
  // "text_config." for a child; "" at the top.
  const std::string& prefix() const { return prefix_; }

 private:
  // (name as spelled in the file, value) or (key, nullptr) when absent; marks the name used.
  std::pair<std::string, const nlohmann::json*> find(std::string_view key) const;
  Result<int64_t> as_int(const std::string& name, const nlohmann::json& v, int64_t min_value) const;

  const nlohmann::json* j_;
  std::string source_;
  std::string model_type_;
  std::string prefix_;
  std::vector<std::pair<std::string, std::string>> aliases_;
  std::shared_ptr<std::set<std::string>> used_;  // shared by copies of this view, not by children
};

// Exact parameter accumulators, one per ParamBreakdown field. Products and
// sums are Exact, so a count that does not fit in int64_t is reported.
struct Counts {
  Exact embeddings, position, lm_head, attention, recurrent, mlp_dense, mlp_routed, mlp_shared, router,
      norms, biases, mlp_routed_active;
  // Overflow names `source` when any accumulator overflowed.
  Result<ParamBreakdown> finish(std::string_view source) const;
};

// Parameters of nn.LayerNorm(n): weight and bias.
inline Exact layer_norm(Exact n) { return n * Exact(2); }

// Reads one config object (a whole config.json, or a wrapper's text_config)
// with the row of its model_type; `source` is for messages. Fails naming the
// key it cannot place. `wrapper` is the multimodal config around a
// text_config (its tie_word_embeddings applies when the text config states
// none). The caller sets `m.name`. Defined in hf_config_interpret.cc.
Result<ModelSpec> interpret(Cfg& c, const Cfg* wrapper = nullptr);

// hf_quant.cc: a quantized checkpoint's scheme for model `m` (its layer counts
// decide which parts layer-numbered exclusions cover); what is not modelled
// exactly is appended to *notes.
Result<CheckpointQuant> read_quantization_config(Cfg q, const ModelSpec& m, std::vector<std::string>* notes);
Result<CheckpointQuant> read_modelopt_quant_config(std::string_view text, std::string_view source, const ModelSpec& m,
                                                   std::vector<std::string>* notes);

}  // namespace modelcalc::hf

#endif  // MODELCALC_HF_READER_H_
