// modelcalc diagnose: drill 3. Evidence (a JSON file, flags, or both: flags
// override the file) → regime, the numbers that settle it, fixes, reject, ask.
#include <memory>

#include "answer_output.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/requests.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct DiagnoseCli {
  app::DiagnoseRequest request;
  AnswerOutput output;
};

}  // namespace

CommandRun setup_diagnose(FlagSet& flags) {
  auto f = std::make_shared<DiagnoseCli>();
  add_request_flags(flags, &f->request);
  add_output_flags(flags, &f->output.output);
  f->output.command.assign(flags.args().begin(), flags.args().end());  // proposals paste (pasteable.h)
  return [f](std::ostream& out) { return cli_error(render_answer(f->request, f->output, out), &app::DiagnoseRequest::table()); };
}

}  // namespace modelcalc
