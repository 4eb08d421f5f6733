// modelcalc kv-budget: an HBM budget turned into concurrent sequences, MHA vs
// the model's attention, and the changes that double it (drill 2).
#include <memory>

#include "answer_report.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/answers.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct KvBudgetCli {
  app::KvBudgetRequest request;
  OutputFlags output;
};

Status run_kv_budget_command(const KvBudgetCli& f, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(const app::KvBudgetAnswer a, app::answer(f.request));
  emit(kv_budget_report(a), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_kv_budget(FlagSet& flags) {
  auto f = std::make_shared<KvBudgetCli>();
  add_request_flags(flags, &f->request);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) {
    return cli_error(run_kv_budget_command(*f, out), &app::KvBudgetRequest::table());
  };
}

}  // namespace modelcalc
