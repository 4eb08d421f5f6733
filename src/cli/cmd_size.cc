// modelcalc size: drill 1 end to end for any model. The flags are
// SizeRequest's table (modelcalc/app/requests.h); the answer is app::answer's.
#include <memory>

#include "answer_output.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/requests.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct SizeCli {
  app::SizeRequest request;
  AnswerOutput output;
};

}  // namespace

CommandRun setup_size(FlagSet& flags) {
  auto f = std::make_shared<SizeCli>();
  add_request_flags(flags, &f->request);
  flags.text("--report", "Also write a one-page HTML report (sections, formulas, roofline) to this file; - prints the "
             "page to stdout instead of the report", &f->output.report)
      .writes();
  add_output_flags(flags, &f->output.output);
  add_strings_flag(flags, &f->output.output);
  return [f](std::ostream& out) { return cli_error(render_answer(f->request, f->output, out), &app::SizeRequest::table()); };
}

}  // namespace modelcalc
