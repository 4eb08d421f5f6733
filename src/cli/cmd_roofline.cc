// modelcalc roofline: the lab's one-intensity answer (attainable FLOP/s,
// ridge, memory- or compute-bound), or a model's operating points (decode at
// each batch, prefill, a big GEMM) on one or more GPUs, optionally drawn.
#include <memory>

#include "answer_report.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/answers.h"
#include "output_file.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct RooflineCli {
  app::RooflineRequest request;
  OutputFlags output;
  std::string plot;
};

Status run_roofline(const RooflineCli& f, std::ostream& out) {
  // With --plot, the roofs alone are an answer (no model, no intensity).
  MC_ASSIGN_OR_RETURN(const app::RooflineAnswer a,
                      f.plot.empty() ? app::answer(f.request) : app::answer_roofs(f.request));
  std::string text;
  if (f.output.json) {
    Report rep = roofline_report(a);
    if (!f.plot.empty()) rep.extra_json["plot"] = f.plot;
    text = render_json(rep).dump(2) + "\n";
  } else if (f.output.explain) {
    text = render_explain(roofline_report(a));
  } else {
    text = roofline_text(a);
  }
  if (!f.plot.empty()) {
    if (f.plot == "-") {  // the picture is the whole output (the web API's /api/svg/roofline)
      out << roofline_svg(a);
      return Status::Ok();
    }
    MC_RETURN_IF_ERROR(write_output_file(f.plot, roofline_svg(a), "--plot"));
    if (!f.output.json) text += "\nPlot written to " + f.plot + " (open it in a browser).\n";
  }
  out << text;
  return Status::Ok();
}

}  // namespace

CommandRun setup_roofline(FlagSet& flags) {
  auto f = std::make_shared<RooflineCli>();
  add_request_flags(flags, &f->request);
  flags.footer("--gpu takes one name or a comma list (--gpu h100,mi300x) to compare GPUs on one roofline.");
  flags.text("--plot", "Write the roofline as an SVG file, e.g. roofline.svg; - prints it to stdout instead of the report",
             &f->plot);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return cli_error(run_roofline(*f, out), &app::RooflineRequest::table()); };
}

}  // namespace modelcalc
