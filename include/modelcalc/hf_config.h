// Real models: Hugging Face config.json files and the presets compiled into
// the binary. The reader knows each supported architecture exactly, so the
// ModelSpec it returns carries `exact`: the parameter count transformers
// builds (unique trainable parameters, tied embeddings once, buffers excluded).
#ifndef MODELCALC_HF_CONFIG_H_
#define MODELCALC_HF_CONFIG_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/model.h"
#include "modelcalc/status.h"

namespace modelcalc {

// Parses config.json text. `source` names the input in error messages (a
// path or preset name). Unknown model_type, missing or mistyped fields, and
// malformed JSON fail with InvalidArgument naming the field. Keys absent
// from the file take the defaults of transformers' configuration_<type>.py
// (e.g. num_key_value_heads, head_dim, tie_word_embeddings); the keys that
// set the shape (hidden size, layers, heads, FFN width, vocabulary) are
// required. Legacy remote-code spellings "RefinedWeb"/"RefinedWebModel"
// (falcon) and "phi-msft" (phi) are read as the architecture they match;
// "kimi_k2" as deepseek_v3 when its architectures name DeepseekV3ForCausalLM.
// Multimodal wrappers (gemma3, llama4, mistral3) are read from text_config,
// their vision tower counted into params_vision. JSON is read as Python writes
// it (NaN, Infinity: parse_python_json). A quantization_config sets `quant`
// (docs/models.md); an unknown quant_method is refused.
Result<ModelSpec> model_from_hf_json(std::string_view json_text, std::string_view source);

// Reads `path`: a config.json file, or a folder holding one. A ModelOpt
// hf_quant_config.json beside it sets `quant` (over the config's own).
Result<ModelSpec> load_hf_config(const std::string& path);

// The model_type values the reader knows, sorted.
std::span<const std::string> supported_model_types();

struct PresetInfo {
  std::string name;     // e.g. "llama-3.1-8b"
  std::string hf_repo;  // e.g. "meta-llama/Llama-3.1-8B"
};
// Every compiled-in preset, sorted by name.
std::span<const PresetInfo> presets();
// The config.json text of a preset (looked up as find_preset does), e.g. to
// show or save it. Preset files carry one extra top-level key,
// "_modelcalc": {"name", "hf_repo"}, which the reader ignores.
Result<std::string_view> preset_config_text(std::string_view name);
// Looks a preset up forgivingly (case, '-', '_', '.' ignored); unknown names
// fail with NotFound and the closest preset names.
Result<ModelSpec> find_preset(std::string_view name);

}  // namespace modelcalc

#endif  // MODELCALC_HF_CONFIG_H_
