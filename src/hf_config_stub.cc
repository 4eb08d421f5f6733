// TEMPORARY: replaced by src/hf_config.cc (the config reader) when it lands.
#include "modelcalc/hf_config.h"

namespace modelcalc {
Result<ModelSpec> model_from_hf_json(std::string_view, std::string_view) {
  return Status::InvalidArgument("--config", "config reader not built yet");
}
Result<ModelSpec> load_hf_config(const std::string&) {
  return Status::InvalidArgument("--config", "config reader not built yet");
}
std::span<const std::string> supported_model_types() { return {}; }
std::span<const PresetInfo> presets() { return {}; }
Result<ModelSpec> find_preset(std::string_view) {
  return Status::InvalidArgument("--model", "presets not built yet");
}
}  // namespace modelcalc
