#include "answer_output.h"

#include <algorithm>
#include <fmt/format.h>
#include <type_traits>
#include <variant>

#include "answer_report.h"
#include "format.h"
#include "html_report.h"
#include "modelcalc/app/answers.h"
#include "modelcalc/engine_profile.h"
#include "output_file.h"
#include "pasteable.h"
#include "request_context.h"
#include "sweep_table.h"

namespace modelcalc {

namespace {

Status render(const app::SizeRequest& r, const AnswerOutput& o, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(const app::SizeAnswer a, app::answer(r));
  const Report rep = size_report(a);
  if (o.report != "-") emit(rep, o.output, out);
  if (o.report.empty()) return Status::Ok();
  // Last, so a failure anywhere above leaves no file behind.
  std::string page;
  if (a.gpu) {  // the page's roofline: the analysis runs in the request layer, the page only renders it
    const RooflineOptions ro = app::page_roofline_options(a.pooled, a.options);
    MC_ASSIGN_OR_RETURN(const RooflineResult roofline, app::page_roofline(a));
    page = render_html_report(rep, *a.model, &ro, &roofline);
  } else {
    page = render_html_report(rep, *a.model, nullptr, nullptr);
  }
  if (o.report == "-") {  // the page is the whole output (the web API's /api/html/size)
    out << page;
    return Status::Ok();
  }
  return write_output_file(o.report, page, "--report");
}

// Every proposal of `j` with its pasteable command (AnswerOutput::command); the commands, labelled, for text.
std::vector<std::string> command_notes(nlohmann::json& j, const AnswerOutput& o, const app::Table& table) {
  if (o.command.empty()) return {};
  std::vector<std::string> notes;
  for (const PasteableCommand& c : add_pasteable_commands(j, o.command, table)) {
    notes.push_back(c.label + ": " + c.command);
  }
  return notes;
}

void add_command_section(Report& rep, const AnswerOutput& o, const app::Table& table) {
  std::vector<std::string> notes = command_notes(rep.extra_json, o, table);
  if (notes.empty()) return;
  rep.sections.push_back(Section{"Each change as a command (your command line, changed)", {}, std::move(notes)});
}

Status render(const app::KvBudgetRequest& r, const AnswerOutput& o, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(const app::KvBudgetAnswer a, app::answer(r));
  Report rep = kv_budget_report(a);
  add_command_section(rep, o, app::KvBudgetRequest::table());
  emit(rep, o.output, out);
  return Status::Ok();
}

Status render(const app::CostRequest& r, const AnswerOutput& o, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(const app::CostAnswer a, app::answer(r));
  emit(cost_report(a), o.output, out);
  return Status::Ok();
}

Status render(const app::DiagnoseRequest& r, const AnswerOutput& o, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(const app::DiagnoseAnswer a, app::answer(r));
  Report rep = diagnose_report(a);
  add_command_section(rep, o, app::DiagnoseRequest::table());
  emit(rep, o.output, out);
  return Status::Ok();
}

Status render(const app::RooflineRequest& r, const AnswerOutput& o, std::ostream& out) {
  // With a plot, the roofs alone are an answer (no model, no intensity).
  MC_ASSIGN_OR_RETURN(const app::RooflineAnswer a, o.plot.empty() ? app::answer(r) : app::answer_roofs(r));
  if (o.plot == "-") {  // the picture is the whole output (the web API's /api/svg/roofline)
    out << roofline_svg(a);
    return Status::Ok();
  }
  std::string text;
  if (o.output.json) {
    Report rep = roofline_report(a);
    if (!o.plot.empty()) rep.extra_json["plot"] = o.plot;
    text = render_json(rep).dump(2) + "\n";
  } else if (o.output.explain) {
    text = render_explain(roofline_report(a));
  } else {
    text = roofline_text(a);
  }
  if (!o.plot.empty()) {
    MC_RETURN_IF_ERROR(write_output_file(o.plot, roofline_svg(a), "--plot"));
    if (!o.output.json) text += "\nPlot written to " + o.plot + " (open it in a browser).\n";
  }
  out << text;
  return Status::Ok();
}

Status not_met_unless(bool feasible) {
  return feasible ? Status::Ok() : Status::NotMet("plan: nothing meets the targets (closest misses above)");
}

Status render(const app::PlanRequest& r, const AnswerOutput& o, std::ostream& out) {
  if (r.layout.disaggregated && (!o.plot.empty() || r.frontier || o.output.explain)) {
    return Status::InvalidArgument("disaggregated", "has no frontier, plot or --explain; give --json or the table");
  }
  MC_ASSIGN_OR_RETURN(const app::PlanAnswer a, app::answer(r, current_request_context()));
  if (a.disaggregated) {
    out << (o.output.json ? plan_document(a).dump(2) + "\n" : plan_text(a));
    return not_met_unless(a.feasible());
  }
  std::string text;
  if (o.plot == "-") {  // the picture is the whole output (the web API's /api/svg/plan)
    text = plan_frontier_svg(plan_view(a));
  } else if (o.output.json) {
    nlohmann::json j = plan_document(a);
    command_notes(j, o, app::PlanRequest::table());
    if (!o.plot.empty()) j["plot"] = o.plot;
    text = j.dump(2) + "\n";
  } else if (o.output.explain && !a.result.configs.empty()) {
    text = render_explain(plan_explain(a));
  } else {
    text = plan_text(a);
    nlohmann::json j = plan_document(a);
    const std::vector<std::string> notes = command_notes(j, o, app::PlanRequest::table());
    if (!notes.empty()) {
      text += "\nEach change as a command (your command line, changed):\n";
      for (const std::string& n : notes) text += "  • " + n + "\n";
    }
  }
  if (!o.plot.empty() && o.plot != "-") {
    MC_RETURN_IF_ERROR(write_output_file(o.plot, plan_frontier_svg(plan_view(a)), "--plot"));
    if (!o.output.json) text += "\nFrontier written to " + o.plot + " (open it in a browser).\n";
  }
  out << text;
  return not_met_unless(!a.result.configs.empty() || !a.result.ceiling_only.empty());
}

// ---------------------------------------------------------------- sweep

// The text format aligns columns over every row, so it holds the table in
// memory; more rows than this is refused (the other formats stream, no cap).
constexpr int64_t kMaxTextRows = 100'000;

Result<std::string> sweep_format(const AnswerOutput& o) {
  if (o.output.json && !o.format.empty() && o.format != "json") {
    return Status::InvalidArgument("--json", "is --format json; it cannot be combined with --format " + o.format);
  }
  std::string name = o.output.json ? "json" : o.format.empty() ? "text" : o.format;
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

Status render(const app::SweepRequest& r, const AnswerOutput& o, std::ostream& out) {
  if (r.fields == "help") {
    out << fields_help();
    return Status::Ok();
  }
  // Everything is parsed and validated before any row is evaluated.
  MC_ASSIGN_OR_RETURN(const auto columns, parse_fields(r.fields));
  MC_ASSIGN_OR_RETURN(const std::string format, sweep_format(o));
  MC_ASSIGN_OR_RETURN(app::SweepAnswer a, app::answer(r, current_request_context()));
  if (format == "text") MC_RETURN_IF_ERROR(check_text_rows(a));
  MC_RETURN_IF_ERROR(check_profile_is_read(columns, !r.engine.profile.empty()));
  a.spec.predict = columns_read_prediction(columns);
  // Everything that can fail is checked before the first row is written: the output streams.
  MC_ASSIGN_OR_RETURN(auto writer, make_sweep_writer(format, columns, out));
  MC_RETURN_IF_ERROR(app::rows(a, [&writer](const SweepRow& row) { writer->row(row); }));
  writer->end();
  if (!out) return Status::IoError("cannot write to standard output");
  return Status::Ok();
}

// A request naming a profile file (--profile) runs under it: read and checked before anything is
// written, so a bad file writes nothing; every prediction and engine.profile then come from it.
template <typename R>
Status render_profiled(const R& r, const AnswerOutput& o, std::ostream& out) {
  if constexpr (requires { r.engine.profile; }) {
    if (!r.engine.profile.empty()) {
      MC_ASSIGN_OR_RETURN(EngineTimeTable t, read_engine_profile_file(r.engine.profile));
      ScopedEngineProfile scope(std::move(t), r.engine.profile);
      return render(r, o, out);
    }
  }
  return render(r, o, out);
}

}  // namespace

Status render_answer(const app::AnyRequest& r, const AnswerOutput& o, std::ostream& out) {
  return std::visit([&](const auto& req) { return render_profiled(req, o, out); }, r);
}
Status render_answer(const app::SizeRequest& r, const AnswerOutput& o, std::ostream& out) { return render_profiled(r, o, out); }
Status render_answer(const app::KvBudgetRequest& r, const AnswerOutput& o, std::ostream& out) {
  return render_profiled(r, o, out);
}
Status render_answer(const app::CostRequest& r, const AnswerOutput& o, std::ostream& out) { return render_profiled(r, o, out); }
Status render_answer(const app::DiagnoseRequest& r, const AnswerOutput& o, std::ostream& out) {
  return render_profiled(r, o, out);
}
Status render_answer(const app::RooflineRequest& r, const AnswerOutput& o, std::ostream& out) {
  return render_profiled(r, o, out);
}
Status render_answer(const app::PlanRequest& r, const AnswerOutput& o, std::ostream& out) { return render_profiled(r, o, out); }
Status render_answer(const app::SweepRequest& r, const AnswerOutput& o, std::ostream& out) { return render_profiled(r, o, out); }

}  // namespace modelcalc
