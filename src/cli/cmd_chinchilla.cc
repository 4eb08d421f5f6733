// modelcalc chinchilla: compute-optimal tokens for N, or N and D for a budget C.
#include <CLI/CLI.hpp>
#include <memory>

#include "commands.h"
#include "lab_flags.h"
#include "lab_report.h"

namespace modelcalc {

namespace {

struct ChinchillaFlags {
  std::string params, compute;
  OutputFlags output;
};

Status run_chinchilla(const ChinchillaFlags& f, std::ostream& out) {
  if (f.params.empty() == f.compute.empty()) {
    return Status::InvalidArgument("--params", "give exactly one of --params (e.g. 70B) or --compute (e.g. 5.76e23)");
  }
  ChinchillaQuery q;
  if (!f.params.empty()) {
    auto n = parse_positive_count(f.params, "--params");
    if (!n.ok()) return n.status();
    q.params = *n;
  } else {
    auto c = parse_positive_count(f.compute, "--compute");
    if (!c.ok()) return c.status();
    q.compute = *c;
  }
  emit(build_chinchilla_report(q), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_chinchilla(CLI::App& app) {
  auto f = std::make_shared<ChinchillaFlags>();
  app.add_option("--params", f->params, "Parameters N, e.g. 70B: gives the optimal tokens D = 20·N");
  app.add_option("--compute", f->compute, "Compute budget C in FLOP, e.g. 5.76e23: gives N = sqrt(C/120) and D");
  add_output_flags(app, &f->output);
  return [f](std::ostream& out) { return run_chinchilla(*f, out); };
}

}  // namespace modelcalc
