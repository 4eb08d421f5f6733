// modelcalc plan: the cheapest deployment that meets TTFT/TPOT targets at a
// load, searched over GPU kinds, splits, dtypes and batch sizes.
#include <memory>

#include "answer_output.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/requests.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct PlanCli {
  app::PlanRequest request;
  AnswerOutput output;
};

}  // namespace

CommandRun setup_plan(FlagSet& flags) {
  auto f = std::make_shared<PlanCli>();
  add_request_flags(flags, &f->request);
  flags.text("--plot", "Write the frontier as an SVG file, e.g. frontier.svg; - prints it to stdout instead of the table",
             &f->output.plot)
      .writes();
  add_output_flags(flags, &f->output.output);
  f->output.command.assign(flags.args().begin(), flags.args().end());  // proposals paste (pasteable.h)
  flags.footer("Exit status 1 (with the closest misses) when nothing meets the targets; 2 for bad input.");
  return [f](std::ostream& out) { return cli_error(render_answer(f->request, f->output, out), &app::PlanRequest::table()); };
}

}  // namespace modelcalc
