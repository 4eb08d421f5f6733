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
  std::string hf_repo;  // e.g. "meta-llama/Llama-3.1-8B": the repository its config.json is
  // Every Hugging Face Hub repository id it stands for, written out: hf_repo
  // first, then its "_modelcalc".repos list (instruction and chat variants,
  // quantized re-releases, later releases that keep the architecture).
  std::vector<std::string> repos;
};
// Every compiled-in preset, sorted by name.
std::span<const PresetInfo> presets();

// One Hub repository a preset lists.
struct RepoInfo {
  std::string id;          // as the Hub spells it, e.g. "nvidia/Llama-3.3-70B-Instruct-FP8"
  std::string preset;      // the preset whose architecture it is
  std::string checkpoint;  // what the entry states of the checkpoint: "hf_quant_config.json" or
                           // "quantization_config"; "" = the preset's own config
  std::string source;      // where the entry's facts were read ("" for a preset's hf_repo)
};
// Every listed repository, presets in name order, each preset's hf_repo first.
std::span<const RepoInfo> listed_repos();

// The config.json text of a preset (looked up as resolve_model_id does), e.g.
// to show or save it. Preset files carry one extra top-level key,
// "_modelcalc": {"name", "hf_repo", "repos", "source"}, which the reader ignores.
Result<std::string_view> preset_config_text(std::string_view name);

// A model named as users and published runs name it.
struct ResolvedModel {
  ModelSpec spec;      // the preset's architecture, with the repository's checkpoint quantization
  std::string preset;  // the preset it resolved to
  std::string repo;    // the listed id it matched, as listed; "" when `name` named a preset
};
// `name` is a preset name (case, '-', '_' and '.' ignored: "Llama-3.1-8B" is
// llama-3.1-8b) or a listed repository id, owner/name, exactly (ASCII case
// ignored, as the Hub resolves ids). A listed repository's spec is its preset's
// config with the checkpoint quantization its entry states (a quantization_config
// in place of the preset's, a ModelOpt hf_quant_config over it); spec.name is
// the id. Nothing else matches (no prefix, no id without its owner, no closest
// name): an unknown name fails with InvalidArgument naming "model", the closest
// preset names and listed ids, and the hint to pass its config.json (--config).
Result<ResolvedModel> resolve_model_id(std::string_view name);
// resolve_model_id(name)'s spec.
Result<ModelSpec> find_preset(std::string_view name);

// A published run's `model` and `checkpoint` columns (the shared serving schema,
// docs/prediction.md). The checkpoint, when the cell names a listed repository
// (the cell is an id, or an id then a parenthesised remark: "nvidia/DeepSeek-R1-
// 0528-FP4-v2 (NVFP4)"); else, for an empty cell, the model; else, for free text
// ("MLPerf llama2-70b-99 reference weights, quantized by submitter (fp8)"), the
// model with *note saying so (the row's dtype columns then describe the
// checkpoint). Fails with InvalidArgument naming the column ("model",
// "checkpoint") for an id no preset lists, and for a checkpoint whose preset is not
// the model's. REQUIRES: note != nullptr (set to "" when there is nothing to say).
Result<ResolvedModel> resolve_run_model(std::string_view model, std::string_view checkpoint, std::string* note);

}  // namespace modelcalc

#endif  // MODELCALC_HF_CONFIG_H_
