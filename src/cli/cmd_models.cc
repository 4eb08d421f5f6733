// modelcalc models: the compiled-in presets and the architectures the
// config reader knows.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "format.h"
#include "modelcalc/hf_config.h"

namespace modelcalc {

namespace {

struct ModelsFlags {
  bool json = false;
};

Status run_models(const ModelsFlags& f, std::ostream& out) {
  nlohmann::json list = nlohmann::json::array();
  std::string table = fmt::format("{:<24} {:<14} {:>22} {:>22}  {}\n", "preset", "model_type", "params (exact)",
                                  "active per token", "hf_repo");
  for (const PresetInfo& p : presets()) {
    auto m = find_preset(p.name);
    if (!m.ok()) return m.status();
    auto b = param_breakdown(*m);
    if (!b.ok()) return b.status();
    list.push_back({{"name", p.name}, {"hf_repo", p.hf_repo}, {"model_type", m->model_type},
                    {"params", b->total()}, {"active_params", b->active()}});
    table += fmt::format("{:<24} {:<14} {:>22} {:>22}  {}\n", p.name, m->model_type, group_digits(b->total()),
                         group_digits(b->active()), p.hf_repo);
  }
  const auto types = supported_model_types();
  if (f.json) {
    out << nlohmann::json{{"presets", list}, {"supported_model_types", types}}.dump(2) << "\n";
    return Status::Ok();
  }
  out << table << "\nUse one with --model NAME, or read any config.json with --config PATH.\n"
      << "Architectures (model_type) the config reader knows:";
  for (const std::string& t : types) out << " " << t;
  out << "\n";
  return Status::Ok();
}

}  // namespace

CommandRun setup_models(FlagSet& flags) {
  auto f = std::make_shared<ModelsFlags>();
  flags.toggle("--json", "Print JSON (for scripts)", &f->json);
  return [f](std::ostream& out) { return run_models(*f, out); };
}

}  // namespace modelcalc
