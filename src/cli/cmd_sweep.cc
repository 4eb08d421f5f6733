// modelcalc sweep: `size` over every combination of comma-separated lists,
// one row each, printed as text, csv, md, json or jsonl.
#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <string_view>

#include "commands.h"
#include "format.h"
#include "inputs.h"
#include "modelcalc/app/answers.h"
#include "request_flags.h"
#include "sweep_table.h"

namespace modelcalc {

namespace {

// The text format aligns columns over every row, so it holds the table in
// memory; more rows than this is refused (the other formats stream, no cap).
constexpr int64_t kMaxTextRows = 100'000;

struct SweepCli {
  app::SweepRequest request;
  std::string format;  // default: text
  bool json = false;   // --json = --format json
};

Result<std::string> resolve_format(const SweepCli& f) {
  if (f.json && !f.format.empty() && f.format != "json") {
    return Status::InvalidArgument("--json", "is --format json; it cannot be combined with --format " + f.format);
  }
  std::string name = f.json ? "json" : f.format.empty() ? "text" : f.format;
  if (auto p = find_sweep_format(name); !p.ok()) return p.status();
  return name;
}

Status check_text_rows(const app::SweepAnswer& a) {
  const SweepSpec& s = a.spec;
  const size_t sizes[] = {s.models.size(), s.gpus.size() * s.splits.size(), std::max<size_t>(s.contexts.size(), 1),
                          s.batches.size(), s.dtypes.size(), std::max<size_t>(s.kv_dtypes.size(), 1)};
  int64_t n = 1;
  bool over = false;
  for (size_t k : sizes) over = over || __builtin_mul_overflow(n, static_cast<int64_t>(k), &n) || n > kMaxTextRows;
  if (!over) return Status::Ok();
  return Status::InvalidArgument(
      "--format",
      fmt::format("text aligns its columns over every row, so it holds at most {} rows, and {} × {} × {} × {} × {} × "
                  "{} combinations exceed that; use --format csv, md, json or jsonl, which stream any number of rows",
                  group_digits(kMaxTextRows), sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], sizes[5]));
}

Status run_sweep(const SweepCli& f, std::ostream& out) {
  if (f.request.fields == "help") {
    out << fields_help();
    return Status::Ok();
  }
  // Everything is parsed and validated before any row is evaluated.
  MC_ASSIGN_OR_RETURN(const auto columns, parse_fields(f.request.fields));
  MC_ASSIGN_OR_RETURN(const std::string format, resolve_format(f));
  auto answered = app::answer(f.request);
  if (!answered.ok()) return cli_error(answered.status(), &app::SweepRequest::table());
  app::SweepAnswer a = std::move(answered).value();
  if (format == "text") MC_RETURN_IF_ERROR(check_text_rows(a));
  a.spec.predict = std::any_of(columns.begin(), columns.end(), [](const SweepColumn* c) {
    return column_reads_prediction(*c);
  });
  // Everything that can fail is checked before the first row is written:
  // the output streams (run_cli does not hold it back).
  MC_ASSIGN_OR_RETURN(auto writer, make_sweep_writer(format, columns, out));
  MC_RETURN_IF_ERROR(app::rows(a, [&writer](const SweepRow& row) { writer->row(row); }));
  writer->end();
  if (!out) return Status::IoError("cannot write to standard output");
  return Status::Ok();
}

std::string footer() {
  std::string s = "Every combination of the lists is one row, in this order: models outermost, then --gpu, the\n"
                  "split (--gpus or --tp, then --pp, --ep, --dp), --seq, --batch, --dtype, --kv-dtype innermost.\n"
                  "Each row's numbers are those `size --json` gives for the same flags.\n"
                  "Formats: text and md show human units; csv (RFC 4180), json (an array) and jsonl (one object\n"
                  "a line) give base units (bytes, tokens/s) at full precision.\n\n";
  return s + fields_help();
}

}  // namespace

CommandRun setup_sweep(FlagSet& flags) {
  auto f = std::make_shared<SweepCli>();
  add_request_flags(flags, &f->request);
  flags.text("--format", "text, csv, md, json or jsonl (default: text)", &f->format)
      .toggle("--json", "Same as --format json", &f->json);
  flags.footer(footer());
  flags.stream_output();
  return [f](std::ostream& out) { return run_sweep(*f, out); };
}

}  // namespace modelcalc
