// modelcalc train: 6·N·D training FLOPs, and on a GPU the GPU-hours and days.
#include <memory>

#include "commands.h"
#include "lab_flags.h"
#include "lab_report.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct TrainFlags {
  double params = 0, tokens = 0;
  GpuFlags gpu;
  int64_t gpus = 1;
  double mfu = 0.4;
  OutputFlags output;
};

Status run_train(const TrainFlags& f, std::ostream& out) {
  TrainQuery q;
  auto gpu = resolve_peak_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();
  q.params = f.params;
  q.tokens = f.tokens;
  q.gpu = *gpu;
  q.gpus = f.gpus;
  q.mfu = f.mfu;
  emit(build_train_report(q), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_train(FlagSet& flags) {
  auto f = std::make_shared<TrainFlags>();
  flags.add<double>("--params", "Parameters N, e.g. 70B", &f->params, parse_positive_count)
      .required()
      .add<double>("--tokens", "Training tokens D, e.g. 2T", &f->tokens, parse_positive_count)
      .required();
  add_peak_flags(flags, &f->gpu);
  flags.add<int64_t>("--gpus", "GPUs in the run (default: 1)", &f->gpus, parse_count)
      .add<double>("--mfu", "Sustained model FLOPs utilization, in (0, 1] (default: 0.4)", &f->mfu,
                   [](std::string_view text, std::string_view flag) -> Result<double> {
                     MC_ASSIGN_OR_RETURN(const double u, parse_positive_real(text, flag));
                     if (u > 1) {
                       return Status::InvalidArgument(flag, "is a fraction of peak in (0, 1], got " + std::string(text));
                     }
                     return u;
                   });
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_train(*f, out); };
}

}  // namespace modelcalc
