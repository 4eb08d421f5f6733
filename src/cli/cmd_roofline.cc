// modelcalc roofline: the lab's one-intensity answer (attainable FLOP/s,
// ridge, memory- or compute-bound), or a model's operating points (decode at
// each batch, prefill, a big GEMM) on one or more GPUs, optionally drawn.
#include <memory>

#include "answer_output.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/requests.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct RooflineCli {
  app::RooflineRequest request;
  AnswerOutput output;
};

}  // namespace

CommandRun setup_roofline(FlagSet& flags) {
  auto f = std::make_shared<RooflineCli>();
  add_request_flags(flags, &f->request);
  flags.footer("--gpu takes one name or a comma list (--gpu h100,mi300x) to compare GPUs on one roofline.");
  flags.text("--plot", "Write the roofline as an SVG file, e.g. roofline.svg; - prints it to stdout instead of the report",
             &f->output.plot)
      .writes();
  add_output_flags(flags, &f->output.output);
  return [f](std::ostream& out) { return cli_error(render_answer(f->request, f->output, out), &app::RooflineRequest::table()); };
}

}  // namespace modelcalc
