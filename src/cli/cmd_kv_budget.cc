// modelcalc kv-budget: an HBM budget turned into concurrent sequences, MHA vs
// the model's attention, and the changes that double it (drill 2).
#include <memory>

#include "answer_output.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/requests.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct KvBudgetCli {
  app::KvBudgetRequest request;
  AnswerOutput output;
};

}  // namespace

CommandRun setup_kv_budget(FlagSet& flags) {
  auto f = std::make_shared<KvBudgetCli>();
  add_request_flags(flags, &f->request);
  add_output_flags(flags, &f->output.output);
  f->output.command.assign(flags.args().begin(), flags.args().end());  // proposals paste (pasteable.h)
  return [f](std::ostream& out) { return cli_error(render_answer(f->request, f->output, out), &app::KvBudgetRequest::table()); };
}

}  // namespace modelcalc
