// The compiled-in presets and the Hugging Face Hub repositories each stands
// for. Every repository is written out in its preset's "_modelcalc".repos list
// (data/presets/*.json; cmake/embed.cmake indexes it at build time); a name is
// a preset name (case, '-', '_' and '.' ignored) or one of those ids exactly
// (ASCII case ignored, as the Hub resolves ids). Nothing else matches: no
// prefix, no owner-less id, no closest name; an unknown name gets the closest
// listed names and the hint to pass the repository's config.json.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "embedded_data.h"
#include "hf_reader.h"
#include "input_file.h"
#include "modelcalc/hf_config.h"
#include "suggest.h"

namespace modelcalc {

namespace {

struct Preset {
  PresetInfo info;
  std::string_view text;  // the config.json text, from data/presets/
};

struct Repo {
  RepoInfo info;
  const Preset* preset = nullptr;
  std::string_view entry;  // the "_modelcalc".repos entry as JSON text; "" for a preset's hf_repo
};

// Every preset's "_modelcalc": {"name", "hf_repo", "repos"}, as cmake/embed.cmake
// read it at build time (embedded_presets, embedded_repos): a cold start parses no
// JSON to find a preset, only the one config it loads. A test checks that the
// build-time index reads what a parse of the whole file reads, for every preset.
std::vector<Preset> load_presets() {
  std::vector<Preset> out;
  for (const EmbeddedPreset& e : embedded_presets()) {
    Preset p;
    p.info.name = std::string(e.name);
    p.info.hf_repo = std::string(e.hf_repo);
    if (!e.hf_repo.empty()) p.info.repos.push_back(p.info.hf_repo);
    for (const EmbeddedRepo& r : embedded_repos()) {
      if (r.preset == e.name) p.info.repos.emplace_back(r.id);
    }
    p.text = e.content;
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(),
            [](const Preset& a, const Preset& b) { return a.info.name < b.info.name; });
  return out;
}

const std::vector<Preset>& all_presets() {
  static const std::vector<Preset> kPresets = load_presets();
  return kPresets;
}

std::string_view entry_of(std::string_view preset, std::string_view id) {
  for (const EmbeddedRepo& r : embedded_repos()) {
    if (r.preset == preset && r.id == id) return r.entry;
  }
  return {};
}

// What an entry states about its checkpoint, for listings: "hf_quant_config.json",
// "quantization_config" or "" (the preset's own config), and the entry's source.
void describe_entry(std::string_view entry, RepoInfo* info) {
  if (entry.empty()) return;
  const auto j = nlohmann::json::parse(entry, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return;  // a build defect the preset test reports
  if (j.contains("hf_quant_config")) info->checkpoint = "hf_quant_config.json";
  if (j.contains("quantization_config")) info->checkpoint = "quantization_config";
  if (auto s = j.find("source"); s != j.end() && s->is_string()) info->source = s->get<std::string>();
}

std::vector<Repo> load_repos() {
  std::vector<Repo> out;
  for (const Preset& p : all_presets()) {
    for (const std::string& id : p.info.repos) {
      Repo r;
      r.info.id = id;
      r.info.preset = p.info.name;
      r.preset = &p;
      r.entry = entry_of(p.info.name, id);
      describe_entry(r.entry, &r.info);
      out.push_back(std::move(r));
    }
  }
  return out;
}

const std::vector<Repo>& all_repos() {
  static const std::vector<Repo> kRepos = load_repos();
  return kRepos;
}

bool equal_ignoring_ascii_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

const Preset* preset_named(std::string_view name) {
  const std::string want = normalize_name(name);
  if (want.empty()) return nullptr;
  for (const auto& p : all_presets()) {
    if (normalizes_to(p.info.name, want)) return &p;
  }
  return nullptr;
}

const Repo* repo_with_id(std::string_view id) {
  for (const auto& r : all_repos()) {
    if (equal_ignoring_ascii_case(r.info.id, id)) return &r;
  }
  return nullptr;
}

std::string_view base_of(std::string_view id) {
  const size_t slash = id.find('/');
  return slash == std::string_view::npos ? id : id.substr(slash + 1);
}

// "; did you mean 'a' or 'b'?" (at most 3, "" when nothing is close): the
// listed ids whose name after the owner is the typed one's (another owner's
// release, or the id typed without its owner), then the closest preset names
// and ids, then, for a name typed without an owner, the ids whose names are
// closest to it.
std::string suggestion(std::string_view typed) {
  std::vector<std::string> out;
  auto add = [&](const std::string& s) {
    if (out.size() < 3 && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  const std::string_view typed_base = base_of(typed);
  for (const auto& r : all_repos()) {
    if (equal_ignoring_ascii_case(base_of(r.info.id), typed_base)) add(r.info.id);
  }
  std::vector<std::string> names, bases;
  for (const auto& p : all_presets()) names.push_back(p.info.name);
  for (const auto& r : all_repos()) {
    names.push_back(r.info.id);
    bases.emplace_back(base_of(r.info.id));
  }
  for (const std::string& n : closest_names(typed, names)) add(n);
  if (typed.find('/') == std::string_view::npos) {
    for (const std::string& b : closest_names(typed, bases)) {
      for (const auto& r : all_repos()) {
        if (base_of(r.info.id) == b) add(r.info.id);
      }
    }
  }
  if (out.empty()) return "";
  std::string s = "; did you mean ";
  for (size_t i = 0; i < out.size(); ++i) s += (i == 0 ? "" : i + 1 == out.size() ? " or " : ", ") + ("'" + out[i] + "'");
  return s + "?";
}

Status unknown_model(std::string_view name) {
  return Status::InvalidArgument(
      "model", "unknown model '" + std::string(name) + "'" + suggestion(name) +
                   " (modelcalc models lists the presets and the Hub repositories each stands for, written out "
                   "as owner/name; for any other model, pass its config.json with --config)");
}

// The spec of a listed repository: the preset's config with the entry's own
// quantization_config in place of the preset's, then the entry's ModelOpt
// hf_quant_config over it (the sidecar wins, as beside a config.json).
Result<ModelSpec> repo_spec(const Repo& r) {
  const std::string source = "preset " + r.preset->info.name + ", repository " + r.info.id;
  if (r.entry.empty()) return model_from_hf_json(r.preset->text, "preset " + r.preset->info.name);
  MC_ASSIGN_OR_RETURN(const nlohmann::json entry, parse_python_json(r.entry, source));
  ModelSpec m;
  if (auto qc = entry.find("quantization_config"); qc != entry.end()) {
    MC_ASSIGN_OR_RETURN(nlohmann::json config, parse_python_json(r.preset->text, source));
    config["quantization_config"] = *qc;
    MC_ASSIGN_OR_RETURN(m, model_from_hf_json(config.dump(), source));
  } else {
    MC_ASSIGN_OR_RETURN(m, model_from_hf_json(r.preset->text, source));
  }
  if (auto hq = entry.find("hf_quant_config"); hq != entry.end()) {
    MC_ASSIGN_OR_RETURN(m.quant, hf::read_modelopt_quant_config(hq->dump(), source, m, &m.assumptions));
  }
  if (m.quant) m.quant->source = r.info.id + "'s " + (entry.contains("hf_quant_config") ? "hf_quant_config.json" : "config.json") + ", as preset " + r.preset->info.name + " lists it";
  return m;
}

// The repository id a checkpoint cell names: the whole cell, or the cell's
// first word when the rest is one parenthesised remark; "" when the cell is
// free text (or empty). An id is owner/name: one '/', no white space.
std::string_view checkpoint_id(std::string_view cell) {
  auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!cell.empty() && is_space(cell.back())) cell.remove_suffix(1);
  while (!cell.empty() && is_space(cell.front())) cell.remove_prefix(1);
  const size_t end = std::find_if(cell.begin(), cell.end(), is_space) - cell.begin();
  const std::string_view id = cell.substr(0, end);
  std::string_view rest = cell.substr(end);
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
  const bool remark = rest.empty() || (rest.front() == '(' && rest.back() == ')' &&
                                       rest.find_first_of("()", 1) == rest.size() - 1);
  const size_t slash = id.find('/');
  const bool shaped = slash != std::string_view::npos && slash > 0 && slash + 1 < id.size() &&
                      id.find('/', slash + 1) == std::string_view::npos;
  return shaped && remark ? id : std::string_view();
}

Status in_column(std::string_view column, const Status& s) {
  std::string m = s.message();
  if (m.starts_with("model: ")) m = m.substr(7);
  return Status::InvalidArgument(column, m);
}

}  // namespace

std::span<const PresetInfo> presets() {
  static const std::vector<PresetInfo> kInfos = [] {
    std::vector<PresetInfo> v;
    for (const auto& p : all_presets()) v.push_back(p.info);
    return v;
  }();
  return kInfos;
}

std::span<const RepoInfo> listed_repos() {
  static const std::vector<RepoInfo> kInfos = [] {
    std::vector<RepoInfo> v;
    for (const auto& r : all_repos()) v.push_back(r.info);
    return v;
  }();
  return kInfos;
}

Result<std::string_view> preset_config_text(std::string_view name) {
  if (const Preset* p = preset_named(name)) return p->text;
  if (const Repo* r = repo_with_id(name)) return r->preset->text;
  return Status::NotFound("unknown model preset '" + std::string(name) + "'");
}

Result<ResolvedModel> resolve_model_id(std::string_view name) {
  ResolvedModel out;
  if (const Preset* p = preset_named(name)) {
    MC_ASSIGN_OR_RETURN(out.spec, model_from_hf_json(p->text, "preset " + p->info.name));
    out.preset = p->info.name;
    out.spec.name = p->info.name;
    return out;
  }
  const Repo* r = repo_with_id(name);
  if (r == nullptr) return unknown_model(name);
  MC_ASSIGN_OR_RETURN(out.spec, repo_spec(*r));
  out.preset = r->preset->info.name;
  out.repo = r->info.id;
  out.spec.name = r->info.id;
  return out;
}

Result<ModelSpec> find_preset(std::string_view name) {
  MC_ASSIGN_OR_RETURN(ResolvedModel r, resolve_model_id(name));
  return std::move(r.spec);
}

Result<ResolvedModel> resolve_run_model(std::string_view model, std::string_view checkpoint, std::string* note) {
  note->clear();
  auto m = resolve_model_id(model);
  if (!m.ok()) return in_column("model", m.status());
  const std::string_view id = checkpoint_id(checkpoint);
  if (id.empty()) {
    if (checkpoint.find_first_not_of(" \t") != std::string_view::npos) {
      *note = "checkpoint '" + std::string(checkpoint) + "' names no repository: read as " + m->repo +
              (m->repo.empty() ? m->preset : "") + " with the row's weight and KV dtypes";
    }
    return m;
  }
  auto c = resolve_model_id(id);
  if (!c.ok()) return in_column("checkpoint", c.status());
  if (c->preset != m->preset) {
    return Status::InvalidArgument("checkpoint", "'" + std::string(id) + "' is listed under preset " + c->preset +
                                                     ", but the model '" + std::string(model) + "' is " + m->preset);
  }
  return c;
}

}  // namespace modelcalc
