// modelcalc chinchilla: compute-optimal tokens for N, or N and D for a budget C.
#include <memory>

#include "commands.h"
#include "lab_flags.h"
#include "lab_report.h"

namespace modelcalc {

namespace {

struct ChinchillaFlags {
  std::optional<double> params, compute;
  OutputFlags output;
};

Status run_chinchilla(const ChinchillaFlags& f, std::ostream& out) {
  if (f.params.has_value() == f.compute.has_value()) {
    return Status::InvalidArgument("--params", "give exactly one of --params (e.g. 70B) or --compute (e.g. 5.76e23)");
  }
  ChinchillaQuery q;
  if (f.params) {
    q.params = *f.params;
  } else {
    q.compute = *f.compute;
  }
  emit(build_chinchilla_report(q, analyze_chinchilla(q)), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_chinchilla(FlagSet& flags) {
  auto f = std::make_shared<ChinchillaFlags>();
  flags
      .add<double>("--params", "Parameters N, e.g. 70B: gives the optimal tokens D = 20·N", &f->params,
                   parse_positive_count)
      .add<double>("--compute", "Compute budget C in FLOP, e.g. 5.76e23: gives N = sqrt(C/120) and D", &f->compute,
                   parse_positive_count);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_chinchilla(*f, out); };
}

}  // namespace modelcalc
