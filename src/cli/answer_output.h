// A request's answer rendered as a front end asks: the CLI's subcommands
// (cmd_*.cc) and the web server (web_api.cc) both call render_answer() with a
// typed request (modelcalc/app/requests.h), so the two give the same bytes for
// the same request. Nothing here parses text: the CLI's flags and the web's
// query keys are decoded into the request by the request tables.
#ifndef MODELCALC_ANSWER_OUTPUT_H_
#define MODELCALC_ANSWER_OUTPUT_H_

#include <ostream>
#include <string>
#include <vector>

#include "inputs.h"
#include "modelcalc/app/requests.h"
#include "modelcalc/status.h"

namespace modelcalc {

// What to render. Members state their defaults (the text report).
struct AnswerOutput {
  OutputFlags output;  // json, explain, strings: all off
  std::string plot;    // roofline, plan: also an SVG file; "-": the picture is the whole output
  std::string report;  // size: also an HTML page; "-": the page is the whole output
  std::string format;  // sweep: text, csv, md, json or jsonl; "" = text (json when output.json)
  // The user's command line (the command first, as typed): every proposal's change then carries the
  // whole changed command (pasteable.h) in JSON ("command") and text. Empty (the web): none.
  std::vector<std::string> command;
};

// Answers `r` (app::answer) and writes it to `out` as `o` asks (files last,
// so a failure leaves none behind). Errors name fields by their canonical
// names or their CLI flags; each front end spells them its own way
// (cli_error, app::spell_error). Plan with nothing meeting its targets writes
// its closest misses and returns NotMet.
Status render_answer(const app::AnyRequest& r, const AnswerOutput& o, std::ostream& out);
Status render_answer(const app::SizeRequest& r, const AnswerOutput& o, std::ostream& out);
Status render_answer(const app::KvBudgetRequest& r, const AnswerOutput& o, std::ostream& out);
Status render_answer(const app::CostRequest& r, const AnswerOutput& o, std::ostream& out);
Status render_answer(const app::DiagnoseRequest& r, const AnswerOutput& o, std::ostream& out);
Status render_answer(const app::RooflineRequest& r, const AnswerOutput& o, std::ostream& out);
Status render_answer(const app::PlanRequest& r, const AnswerOutput& o, std::ostream& out);
Status render_answer(const app::SweepRequest& r, const AnswerOutput& o, std::ostream& out);

}  // namespace modelcalc

#endif  // MODELCALC_ANSWER_OUTPUT_H_
