// modelcalc plan: the cheapest deployment that meets TTFT/TPOT targets at a
// load, searched over GPU kinds, splits, dtypes and batch sizes.
#include <memory>

#include "answer_report.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/answers.h"
#include "output_file.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct PlanCli {
  app::PlanRequest request;
  std::string plot;
  OutputFlags output;
};

Status run_plan_command(const PlanCli& f, std::ostream& out, int* exit_code) {
  if (f.request.layout.disaggregated && (!f.plot.empty() || f.request.frontier || f.output.explain)) {
    return Status::InvalidArgument("disaggregated", "has no frontier, plot or --explain; give --json or the table");
  }
  MC_ASSIGN_OR_RETURN(const app::PlanAnswer a, app::answer(f.request));
  if (a.disaggregated) {
    out << (f.output.json ? plan_document(a).dump(2) + "\n" : plan_text(a));
    *exit_code = a.feasible() ? 0 : 1;
    return Status::Ok();
  }
  std::string text;
  if (f.output.json) {
    nlohmann::json j = plan_document(a);
    if (!f.plot.empty()) j["plot"] = f.plot;
    text = j.dump(2) + "\n";
  } else if (f.output.explain && !a.result.configs.empty()) {
    text = render_explain(plan_explain(a));
  } else {
    text = plan_text(a);
  }
  if (f.plot == "-") {  // the picture is the whole output (the web API's /api/svg/plan)
    text = plan_frontier_svg(plan_view(a));
  } else if (!f.plot.empty()) {
    MC_RETURN_IF_ERROR(write_output_file(f.plot, plan_frontier_svg(plan_view(a)), "--plot"));
    if (!f.output.json) text += "\nFrontier written to " + f.plot + " (open it in a browser).\n";
  }
  out << text;
  *exit_code = a.result.configs.empty() ? 1 : 0;
  return Status::Ok();
}

}  // namespace

CommandRun setup_plan(FlagSet& flags) {
  auto f = std::make_shared<PlanCli>();
  add_request_flags(flags, &f->request);
  flags.text("--plot", "Write the frontier as an SVG file, e.g. frontier.svg; - prints it to stdout instead of the table",
             &f->plot);
  add_output_flags(flags, &f->output);
  flags.footer("Exit status 1 (with the closest misses) when nothing meets the targets; 2 for bad input.");
  return [f](std::ostream& out) {
    int code = 0;
    Status s = cli_error(run_plan_command(*f, out, &code), &app::PlanRequest::table());
    if (s.ok() && code == 1) return Status::NotMet("plan: nothing meets the targets (closest misses above)");
    return s;
  };
}

}  // namespace modelcalc
