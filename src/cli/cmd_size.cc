// modelcalc size: drill 1 end to end for any model. The flags are
// SizeRequest's table (modelcalc/app/requests.h); the answer is app::answer's.
#include <memory>
#include <utility>

#include "answer_report.h"
#include "commands.h"
#include "html_report.h"
#include "inputs.h"
#include "modelcalc/app/answers.h"
#include "output_file.h"
#include "request_flags.h"

namespace modelcalc {

namespace {

struct SizeCli {
  app::SizeRequest request;
  OutputFlags output;
  std::string report;  // --report: HTML page path
};

Status run_size_command(const SizeCli& f, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(const app::SizeAnswer a, app::answer(f.request));
  const Report rep = size_report(a);
  if (f.report != "-") emit(rep, f.output, out);
  // Last, so a failure anywhere above leaves no file behind.
  if (!f.report.empty()) {
    std::string page;
    if (a.gpu) {  // the page's roofline: the analysis runs in the request layer, the page only renders it
      const RooflineOptions ro = app::page_roofline_options(a.pooled, a.options);
      MC_ASSIGN_OR_RETURN(const RooflineResult roofline, app::page_roofline(a));
      page = render_html_report(rep, *a.model, &ro, &roofline);
    } else {
      page = render_html_report(rep, *a.model, nullptr, nullptr);
    }
    if (f.report == "-") {  // the page is the whole output (the web API's /api/html/size)
      out << page;
      return Status::Ok();
    }
    MC_RETURN_IF_ERROR(write_output_file(f.report, page, "--report"));
  }
  return Status::Ok();
}

}  // namespace

CommandRun setup_size(FlagSet& flags) {
  auto f = std::make_shared<SizeCli>();
  add_request_flags(flags, &f->request);
  flags.text("--report", "Also write a one-page HTML report (sections, formulas, roofline) to this file; - prints the "
             "page to stdout instead of the report", &f->report);
  add_output_flags(flags, &f->output);
  add_strings_flag(flags, &f->output);
  return [f](std::ostream& out) { return cli_error(run_size_command(*f, out), &app::SizeRequest::table()); };
}

}  // namespace modelcalc
