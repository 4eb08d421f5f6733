// Internals of the Hugging Face config reader: typed access to one
// config.json object, exact parameter accumulators, and the table of
// architecture builders (one per supported model_type).
#ifndef MODELCALC_HF_READER_H_
#define MODELCALC_HF_READER_H_

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
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
// "4096"); booleans must be true/false.
class Cfg {
 public:
  // REQUIRES: j.is_object(). `source` names the input in errors.
  Cfg(const nlohmann::json& j, std::string_view source, std::string_view model_type)
      : j_(j), source_(source), model_type_(model_type) {}

  // Accepts `legacy` as a second name for `key` (e.g. remote-code configs
  // that say n_layer instead of num_hidden_layers). The canonical key wins
  // when both are present.
  void alias(std::string_view key, std::string_view legacy) {
    aliases_.emplace_back(std::string(key), std::string(legacy));
  }

  // True when the key (or its alias) is present, even as null.
  bool has(std::string_view key) const { return find(key).second != nullptr; }

  // A required integer >= min_value. Missing or null fails naming the key.
  Result<int64_t> req(std::string_view key, int64_t min_value = 1) const;
  // An integer whose absence means `absent` (the configuration class's
  // default; nullopt = the class's None). An explicit null yields nullopt.
  Result<std::optional<int64_t>> opt(std::string_view key, std::optional<int64_t> absent,
                                     int64_t min_value = 1) const;
  // A boolean; absence means `absent` (the configuration class's default).
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
  const nlohmann::json& object() const { return j_; }

  // InvalidArgument naming "<source>: <key>".
  Status error(std::string_view key, std::string_view what) const;
  const std::string& model_type() const { return model_type_; }
  const std::string& source() const { return source_; }

 private:
  // (name as spelled in the file, value) or (key, nullptr) when absent.
  std::pair<std::string, const nlohmann::json*> find(std::string_view key) const;
  Result<int64_t> as_int(const std::string& name, const nlohmann::json& v, int64_t min_value) const;

  const nlohmann::json& j_;
  std::string source_;
  std::string model_type_;
  std::string prefix_;  // "text_config." for a child
  std::vector<std::pair<std::string, std::string>> aliases_;
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

// Builds the spec of one architecture: shape fields plus `exact`.
// `source` is for messages; `m.name` is set by the caller.
using ArchBuilder = Result<ModelSpec> (*)(Cfg& c);
struct ArchEntry {
  std::string_view model_type;
  ArchBuilder build;
};

// Families (hf_arch_llama.cc: RMSNorm decoders incl. MoE and MLA;
// hf_arch_classic.cc: LayerNorm models with biases).
Result<ModelSpec> build_llama(Cfg& c);
Result<ModelSpec> build_mistral(Cfg& c);
Result<ModelSpec> build_mixtral(Cfg& c);
Result<ModelSpec> build_qwen2(Cfg& c);
Result<ModelSpec> build_qwen2_moe(Cfg& c);
Result<ModelSpec> build_qwen3(Cfg& c);
Result<ModelSpec> build_qwen3_moe(Cfg& c);
Result<ModelSpec> build_gemma(Cfg& c);
Result<ModelSpec> build_gemma2(Cfg& c);
Result<ModelSpec> build_phi3(Cfg& c);
Result<ModelSpec> build_olmo2(Cfg& c);
Result<ModelSpec> build_deepseek_v2(Cfg& c);
Result<ModelSpec> build_deepseek_v3(Cfg& c);
Result<ModelSpec> build_gpt2(Cfg& c);
Result<ModelSpec> build_phi(Cfg& c);
Result<ModelSpec> build_falcon(Cfg& c);
Result<ModelSpec> build_opt(Cfg& c);
Result<ModelSpec> build_gpt_neox(Cfg& c);
Result<ModelSpec> build_bloom(Cfg& c);
// hf_arch_moe.cc, hf_arch_multimodal.cc, hf_arch_hybrid.cc: the families of 2025-26.
Result<ModelSpec> build_gpt_oss(Cfg& c);
Result<ModelSpec> build_glm4_moe(Cfg& c);
Result<ModelSpec> build_kimi_k2(Cfg& c);
Result<ModelSpec> build_deepseek_v32(Cfg& c);
Result<ModelSpec> build_gemma3(Cfg& c);
Result<ModelSpec> build_gemma3_text(Cfg& c);
Result<ModelSpec> build_llama4(Cfg& c);
Result<ModelSpec> build_llama4_text(Cfg& c);
Result<ModelSpec> build_mistral3(Cfg& c);
Result<ModelSpec> build_qwen3_next(Cfg& c);
Result<ModelSpec> build_nemotron_h(Cfg& c);
Result<ModelSpec> build_falcon_h1(Cfg& c);
Result<ModelSpec> build_jamba(Cfg& c);

// hf_quant.cc: a quantized checkpoint's scheme for model `m` (its layer counts
// decide which parts layer-numbered exclusions cover); what is not modelled
// exactly is appended to *notes.
Result<CheckpointQuant> read_quantization_config(Cfg q, const ModelSpec& m, std::vector<std::string>* notes);
Result<CheckpointQuant> read_modelopt_quant_config(std::string_view text, std::string_view source, const ModelSpec& m,
                                                   std::vector<std::string>* notes);

// Sorted by model_type.
std::span<const ArchEntry> arch_table();
// The builder of `model_type` (no legacy spellings), or nullptr.
ArchBuilder find_builder(std::string_view model_type);

}  // namespace modelcalc::hf

#endif  // MODELCALC_HF_READER_H_
