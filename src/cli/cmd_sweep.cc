// modelcalc sweep: `size` over every combination of comma-separated lists,
// one row each, printed as text, csv, md, json or jsonl.
#include <memory>

#include "answer_output.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/app/requests.h"
#include "request_flags.h"
#include "sweep_table.h"

namespace modelcalc {

namespace {

struct SweepCli {
  app::SweepRequest request;
  AnswerOutput output;  // format; output.json: --format json
};

std::string footer() {
  std::string s = "Every combination of the lists is one row, in this order: models outermost, then --gpu, the\n"
                  "split (--gpus or --tp, then --pp, --ep, --dp), --seq, --batch, --dtype, --kv-dtype innermost.\n"
                  "Each row's numbers are those `size --json` gives for the same flags.\n"
                  "Formats: text and md show human units; csv (RFC 4180), json (an array) and jsonl (one object\n"
                  "a line) give base units (bytes, tokens/s) at full precision.\n\n";
  return s + fields_help();
}

}  // namespace

CommandRun setup_sweep(FlagSet& flags) {
  auto f = std::make_shared<SweepCli>();
  add_request_flags(flags, &f->request);
  flags.text("--format", "text, csv, md, json or jsonl (default: text)", &f->output.format)
      .toggle("--json", "Same as --format json", &f->output.output.json);
  flags.footer(footer());
  flags.stream_output();
  return [f](std::ostream& out) {
    return cli_error(render_answer(f->request, f->output, out), &app::SweepRequest::table());
  };
}

}  // namespace modelcalc
