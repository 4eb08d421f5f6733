// modelcalc models: the compiled-in presets, the Hub repositories each stands
// for, and the architectures the config reader knows.
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

// One line per listed repository: its id, and what its checkpoint stores
// when the entry states it (dtype of the quantized parts, KV dtype).
Status add_repos(const PresetInfo& p, nlohmann::json* list, std::string* text) {
  for (const std::string& id : p.repos) {
    auto r = resolve_model_id(id);
    if (!r.ok()) return r.status();
    const auto& q = r->spec.quant;
    nlohmann::json j = {{"id", id},
                        {"weight_dtype", q ? nlohmann::json(dtype_name(q->dtype)) : nlohmann::json(nullptr)},
                        {"kv_dtype", q && q->kv ? nlohmann::json(dtype_name(*q->kv)) : nlohmann::json(nullptr)}};
    std::string dtypes = q ? std::string(dtype_name(q->dtype)) + (q->kv ? ", KV " + std::string(dtype_name(*q->kv)) : "")
                           : "";
    for (const RepoInfo& info : listed_repos()) {
      if (info.id == id && !info.source.empty()) j["source"] = info.source;
    }
    list->push_back(std::move(j));
    *text += fmt::format("  {:<24} {:<46} {}\n", text->empty() ? p.name : "", id, dtypes);
  }
  return Status::Ok();
}

Status run_models(const ModelsFlags& f, std::ostream& out) {
  nlohmann::json list = nlohmann::json::array();
  std::string table = fmt::format("{:<24} {:<14} {:>22} {:>22}  {}\n", "preset", "model_type", "params (exact)",
                                  "active per token", "hf_repo");
  std::string repos;
  for (const PresetInfo& p : presets()) {
    auto m = find_preset(p.name);
    if (!m.ok()) return m.status();
    auto b = param_breakdown(*m);
    if (!b.ok()) return b.status();
    nlohmann::json repo_list = nlohmann::json::array();
    std::string lines;
    MC_RETURN_IF_ERROR(add_repos(p, &repo_list, &lines));
    repos += lines;
    list.push_back({{"name", p.name}, {"hf_repo", p.hf_repo}, {"repos", repo_list}, {"model_type", m->model_type},
                    {"params", b->total()}, {"active_params", b->active()}});
    table += fmt::format("{:<24} {:<14} {:>22} {:>22}  {}\n", p.name, m->model_type, group_digits(b->total()),
                         group_digits(b->active()), p.hf_repo);
  }
  const auto types = supported_model_types();
  if (f.json) {
    out << nlohmann::json{{"presets", list}, {"supported_model_types", types}}.dump(2) << "\n";
    return Status::Ok();
  }
  out << table << "\nHugging Face repositories each preset stands for (--model takes any of them, owner/name as "
      << "written; the checkpoint's dtypes where it is quantized):\n"
      << repos << "\nUse one with --model NAME, or read any config.json with --config PATH.\n"
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
