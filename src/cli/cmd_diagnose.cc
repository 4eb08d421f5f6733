// modelcalc diagnose: drill 3. Evidence (a JSON file, flags, or both: flags
// override the file) → regime, the numbers that settle it, fixes, reject, ask.
#include <memory>

#include "answer_report.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/answers.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct DiagnoseCli {
  app::DiagnoseRequest request;
  OutputFlags output;
};

Status run_diagnose_command(const DiagnoseCli& f, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(const app::DiagnoseAnswer a, app::answer(f.request));
  emit(diagnose_report(a), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_diagnose(FlagSet& flags) {
  auto f = std::make_shared<DiagnoseCli>();
  add_request_flags(flags, &f->request);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) {
    return cli_error(run_diagnose_command(*f, out), &app::DiagnoseRequest::table());
  };
}

}  // namespace modelcalc
