// modelcalc models: the compiled-in presets, the Hub repositories each stands
// for, and the architectures the config reader knows.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>

#include "commands.h"
#include "modelcalc/checkpoint.h"
#include "format.h"
#include "modelcalc/hf_config.h"

namespace modelcalc {

namespace {

struct ModelsFlags {
  bool json = false;
  std::string count;  // a checkpoint folder to count from its safetensors headers
};

// models --count DIR: the checkpoint's headers by component beside its config's count.
Status run_count(const ModelsFlags& f, std::ostream& out) {
  std::error_code ec;
  const bool config = std::filesystem::exists(std::filesystem::path(f.count) / "config.json", ec);
  std::optional<ModelSpec> m;
  if (config) {
    auto loaded = load_hf_config(f.count);
    if (!loaded.ok()) return Status::InvalidArgument("--count", loaded.status().message());
    m = *loaded;
  }
  const int64_t int_bits = m && m->quant && m->quant->dtype == Dtype::kInt8 ? 8 : 4;
  auto c = count_safetensors(f.count, m ? m->n_layer : -1, int_bits);
  if (!c.ok()) return Status::InvalidArgument("--count", c.status().message());
  const ParamBreakdown cfg = m && m->exact ? *m->exact : ParamBreakdown{};
  nlohmann::json comps = nlohmann::json::object();
  std::string table = fmt::format("{:<12} {:>22} {:>22} {:>18}\n", "component", "checkpoint", m ? "config" : "", m ? "difference" : "");
  for (const auto& [name, field] : param_components()) {
    const int64_t ck = c->params.*field, cf = cfg.*field;
    comps[name] = m ? nlohmann::json{{"checkpoint", ck}, {"config", cf}} : nlohmann::json{{"checkpoint", ck}};
    if (ck == 0 && cf == 0) continue;
    table += fmt::format("{:<12} {:>22} {:>22} {:>18}\n", name, group_digits(ck), m ? group_digits(cf) : "",
                         m && ck != cf ? (ck > cf ? "+" : "") + group_digits(ck - cf) : "");
  }
  table += fmt::format("{:<12} {:>22} {:>22} {:>18}\n", "total", group_digits(c->params.total()),
                       m ? group_digits(cfg.total()) : "",
                       m && c->params.total() != cfg.total() ? (c->params.total() > cfg.total() ? "+" : "") +
                                                                  group_digits(c->params.total() - cfg.total())
                                                            : "");
  nlohmann::json by_dtype = nlohmann::json::object();
  std::string dtypes;
  for (const auto& [dtype, bytes] : c->bytes_by_dtype) {
    by_dtype[dtype] = bytes;
    dtypes += fmt::format("  {:<8} {:>22} B\n", dtype, group_digits(bytes));
  }
  if (f.json) {
    out << nlohmann::json{{"checkpoint",
                           {{"dir", f.count}, {"shards", c->shards}, {"tensors", c->tensors}, {"bytes", c->bytes},
                            {"index_total_size", c->index_total_size < 0 ? nlohmann::json(nullptr) : nlohmann::json(c->index_total_size)},
                            {"params", comps}, {"params_total", c->params.total()}, {"mtp", c->mtp}, {"vision", c->vision},
                            {"buffers", c->buffers}, {"scales", c->scales}, {"other", c->other},
                            {"bytes_by_dtype", by_dtype}, {"config_total", m ? nlohmann::json(cfg.total()) : nlohmann::json(nullptr)}}}}
               .dump(2)
        << "\n";
    return Status::Ok();
  }
  out << "Checkpoint " << f.count << ": " << c->shards << " shard" << (c->shards == 1 ? "" : "s") << ", " << c->tensors
      << " tensors, " << group_digits(c->bytes) << " bytes"
      << (c->index_total_size >= 0 ? " (the index's total_size: " + group_digits(c->index_total_size) + ")" : "")
      << "; only the safetensors headers were read\n\nParameters by component" << (m ? " (the config's count beside)" : "")
      << ":\n" << table << "\nBeside the language model: MTP layers " << group_digits(c->mtp) << ", vision "
      << group_digits(c->vision) << "; saved buffers (not parameters) " << group_digits(c->buffers)
      << "; quantization scales " << group_digits(c->scales) << " values"
      << (c->other > 0 ? "; unplaced " + group_digits(c->other) + " values (e.g. " + c->unplaced.front() + ")" : "")
      << "\n\nBytes by dtype:\n" << dtypes;
  return Status::Ok();
}

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
  if (!f.count.empty()) return run_count(f, out);
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
  flags.toggle("--json", "Print JSON (for scripts)", &f->json)
      .text("--count", "Count a checkpoint folder from its safetensors headers (model.safetensors.index.json and "
                       "shards, or *.safetensors; only the headers are read), beside its config.json's count",
            &f->count);
  return [f](std::ostream& out) { return run_models(*f, out); };
}

}  // namespace modelcalc
