// modelcalc sweep: `size` over every combination of comma-separated lists,
// one row each, printed as text, csv, md, json or jsonl.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <string_view>

#include "commands.h"
#include "format.h"
#include "inputs.h"
#include "modelcalc/sweep.h"
#include "quantity.h"
#include "sweep_table.h"

namespace modelcalc {

namespace {

// More rows than this is almost certainly a typo; the library has no cap.
constexpr int64_t kMaxSweepRows = 100'000;

struct SweepFlags {
  ModelFlags model;  // --model and --config take comma-separated lists
  GpuFlags gpu;      // --gpu takes a list; --bandwidth/--capacity/--peak apply to every GPU
  std::string seq;   // default: each model's max positions, else 4096
  std::string batch = "1";
  std::string dtype = "fp16";
  std::string kv_dtype;  // default: each row's --dtype
  std::string fields;    // default: the default columns
  std::string format;    // default: text
  bool json = false;     // --json = --format json
};

// The items of a comma-separated list. An empty item ("1,,8", "8,") fails
// naming `flag`.
Result<std::vector<std::string>> split_list(const std::string& text, const char* flag) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (items.back().empty()) {
      return Status::InvalidArgument(flag, "empty item in '" + text + "'; give a comma-separated list, e.g. 1,8,64");
    }
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

// Parses every item of `text` with `parse` (a Result<T>(string_view, flag)).
template <typename T, typename Parse>
Result<std::vector<T>> parse_list(const std::string& text, const char* flag, Parse parse) {
  std::vector<T> out;
  if (text.empty()) return out;
  MC_ASSIGN_OR_RETURN(const auto items, split_list(text, flag));
  for (const std::string& item : items) {
    MC_ASSIGN_OR_RETURN(T v, parse(item, flag));
    out.push_back(v);
  }
  return out;
}

// A lookup error that does not name its flag gets `flag` in front.
Status with_flag(const Status& s, const char* flag) {
  if (s.code() == Status::Code::kInvalidArgument) return s;
  return Status::InvalidArgument(flag, s.message());
}

// The model items: one per --model or --config entry, or the one hand-typed shape.
Result<std::vector<std::string>> model_items(const SweepFlags& f) {
  if (!has_model(f.model)) {
    return Status::InvalidArgument("--model", "give --model a,b (presets), --config p1,p2 or the shape flags "
                                              "(-L, -d, --heads, --ffn, --vocab)");
  }
  if (!f.model.model.empty() && !f.model.config.empty()) {
    return Status::InvalidArgument("--model", "give either --model or --config, not both");
  }
  if (!f.model.model.empty()) return split_list(f.model.model, "--model");
  if (!f.model.config.empty()) return split_list(f.model.config, "--config");
  return std::vector<std::string>{""};
}

Result<std::vector<ModelSpec>> resolve_models(const SweepFlags& f, const std::vector<std::string>& items) {
  std::vector<ModelSpec> models;
  const bool presets = !f.model.model.empty();
  const char* flag = presets ? "--model" : "--config";
  for (const std::string& item : items) {
    ModelFlags one = f.model;
    if (!item.empty()) (presets ? one.model : one.config) = item;
    auto m = resolve_model(one);
    if (!m.ok()) return with_flag(m.status(), flag);
    models.push_back(*std::move(m));
  }
  return models;
}

// The GPU items: the --gpu list, or one "" for the custom GPU of
// --bandwidth/--capacity/--peak.
Result<std::vector<std::string>> gpu_items(const SweepFlags& f) {
  if (!f.gpu.gpu.empty()) return split_list(f.gpu.gpu, "--gpu");
  if (f.gpu.bandwidth.empty() && f.gpu.capacity.empty() && f.gpu.peak.empty()) {
    return Status::InvalidArgument("--gpu", "is required: a comma-separated list, e.g. h100,mi300x "
                                            "(or --bandwidth, --capacity and --peak for a custom GPU)");
  }
  return std::vector<std::string>{""};
}

Result<std::vector<GpuSpec>> resolve_gpus(const SweepFlags& f, const std::vector<std::string>& items) {
  std::vector<GpuSpec> gpus;
  for (const std::string& item : items) {
    GpuFlags one = f.gpu;
    one.gpu = item;
    MC_ASSIGN_OR_RETURN(const auto g, resolve_gpu(one));
    gpus.push_back(g.value());  // never nullopt: gpu_items checked a GPU was given
  }
  return gpus;
}

Result<SweepPrinter> resolve_format(const SweepFlags& f) {
  if (f.json && !f.format.empty() && f.format != "json") {
    return Status::InvalidArgument("--json", "is --format json; it cannot be combined with --format " + f.format);
  }
  return find_sweep_format(f.json ? "json" : f.format.empty() ? "text" : f.format);
}

Status check_row_limit(size_t models, size_t gpus, const SweepSpec& s) {
  const size_t sizes[] = {models, gpus, std::max<size_t>(s.seqs.size(), 1), s.batches.size(), s.dtypes.size(),
                          std::max<size_t>(s.kv_dtypes.size(), 1)};
  int64_t n = 1;
  bool over = false;
  for (size_t k : sizes) over = over || __builtin_mul_overflow(n, static_cast<int64_t>(k), &n) || n > kMaxSweepRows;
  if (!over) return Status::Ok();
  return Status::InvalidArgument(
      "--model × --gpu × --seq × --batch × --dtype × --kv-dtype",
      fmt::format("{} × {} × {} × {} × {} × {} combinations exceed the limit of {}; shorten a list (or call the "
                  "library's sweep(), which has no limit)",
                  sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], sizes[5], group_digits(kMaxSweepRows)));
}

Status run_sweep(const SweepFlags& f, std::ostream& out) {
  if (f.fields == "help") {
    out << fields_help();
    return Status::Ok();
  }
  // Everything is parsed and validated before any row is evaluated.
  MC_ASSIGN_OR_RETURN(const auto columns, parse_fields(f.fields));
  MC_ASSIGN_OR_RETURN(const SweepPrinter print, resolve_format(f));
  SweepSpec spec;
  MC_ASSIGN_OR_RETURN(spec.seqs, parse_list<int64_t>(f.seq, "--seq", parse_count));
  MC_ASSIGN_OR_RETURN(spec.batches, parse_list<int64_t>(f.batch, "--batch", parse_count));
  MC_ASSIGN_OR_RETURN(spec.dtypes, parse_list<Dtype>(f.dtype, "--dtype", parse_dtype));
  MC_ASSIGN_OR_RETURN(spec.kv_dtypes, parse_list<Dtype>(f.kv_dtype, "--kv-dtype", parse_dtype));
  if (spec.batches.empty()) return Status::InvalidArgument("--batch", "give a comma-separated list, e.g. 1,8,64");
  if (spec.dtypes.empty()) return Status::InvalidArgument("--dtype", "give a comma-separated list, e.g. fp16,int8");
  MC_ASSIGN_OR_RETURN(const auto items, model_items(f));
  MC_ASSIGN_OR_RETURN(const auto gpus, gpu_items(f));
  MC_RETURN_IF_ERROR(check_row_limit(items.size(), gpus.size(), spec));
  MC_ASSIGN_OR_RETURN(spec.gpus, resolve_gpus(f, gpus));
  MC_ASSIGN_OR_RETURN(spec.models, resolve_models(f, items));

  SweepTable table;
  table.columns = columns;
  MC_ASSIGN_OR_RETURN(const int64_t rows, sweep_row_count(spec));
  table.cells.reserve(static_cast<size_t>(rows) * columns.size());
  MC_RETURN_IF_ERROR(sweep(spec, [&table](const SweepRow& row) { table.add(row); }));
  print(table, out);
  return Status::Ok();
}

std::string footer() {
  std::string s = "Every combination of the lists is one row, in this order: models outermost, then --gpu, --seq,\n"
                  "--batch, --dtype, --kv-dtype innermost. Each row's numbers are those `size --json` gives.\n"
                  "Formats: text and md show human units; csv (RFC 4180), json (an array) and jsonl (one object\n"
                  "a line) give base units (bytes, tokens/s) at full precision.\n\n";
  return s + fields_help();
}

}  // namespace

CommandRun setup_sweep(CLI::App& app) {
  auto f = std::make_shared<SweepFlags>();
  add_model_flags(app, &f->model);
  add_gpu_flags(app, &f->gpu);
  app.add_option("--seq", f->seq, "Context lengths T, e.g. 2048,8192 (default: each model's max positions, else 4096)");
  app.add_option("--batch", f->batch, "Batch sizes, e.g. 1,8,64")->capture_default_str();
  app.add_option("--dtype", f->dtype, "Weight dtypes, e.g. fp16,int8 (fp32, fp16, bf16, fp8, int8, int4)")
      ->capture_default_str();
  app.add_option("--kv-dtype", f->kv_dtype, "KV-cache dtypes, e.g. fp16,fp8 (default: each row's --dtype)");
  app.add_option("--fields", f->fields, "Columns to print, comma-separated ('help' lists them)");
  app.add_option("--format", f->format, "text (default), csv, md, json or jsonl");
  app.add_flag("--json", f->json, "Same as --format json");
  app.footer(footer());
  return [f](std::ostream& out) { return run_sweep(*f, out); };
}

}  // namespace modelcalc
