// modelcalc cost: $ per 1M tokens, from a measured throughput, or from a
// model's decode ceiling on a GPU (then a floor on the real cost).
#include <memory>

#include "answer_output.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/requests.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct CostCli {
  app::CostRequest request;
  AnswerOutput output;
};

}  // namespace

CommandRun setup_cost(FlagSet& flags) {
  auto f = std::make_shared<CostCli>();
  add_request_flags(flags, &f->request);
  add_output_flags(flags, &f->output.output);
  return [f](std::ostream& out) { return cli_error(render_answer(f->request, f->output, out), &app::CostRequest::table()); };
}

}  // namespace modelcalc
