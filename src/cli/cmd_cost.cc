// modelcalc cost: $ per 1M tokens, from a measured throughput, or from a
// model's decode ceiling on a GPU (then a floor on the real cost).
#include <memory>

#include "answer_report.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/answers.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct CostCli {
  app::CostRequest request;
  OutputFlags output;
};

Status run_cost_command(const CostCli& f, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(const app::CostAnswer a, app::answer(f.request));
  emit(cost_report(a), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_cost(FlagSet& flags) {
  auto f = std::make_shared<CostCli>();
  add_request_flags(flags, &f->request);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return cli_error(run_cost_command(*f, out), &app::CostRequest::table()); };
}

}  // namespace modelcalc
