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
  const FlagSet* flags = nullptr;  // to tell a given --gpus/--mfu from the default
};

Status run_train(const TrainFlags& f, std::ostream& out) {
  TrainQuery q;
  auto gpu = resolve_peak_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();
  // Without a GPU only the FLOPs are computed: --gpus and --mfu would be silently ignored.
  if (!gpu->has_value()) {
    for (const char* flag : {"--gpus", "--mfu"}) {
      if (f.flags != nullptr && f.flags->given(flag)) {
        return Status::InvalidArgument(flag, "has no effect without a GPU; give --gpu NAME or --peak");
      }
    }
  }
  q.params = f.params;
  q.tokens = f.tokens;
  q.gpu = *gpu;
  q.gpus = f.gpus;
  q.mfu = f.mfu;
  emit(build_train_report(q, analyze_train(q)), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_train(FlagSet& flags) {
  auto f = std::make_shared<TrainFlags>();
  f->flags = &flags;
  flags.add<double>("--params", "Parameters N, e.g. 70B", &f->params, parse_positive_count)
      .required()
      .add<double>("--tokens", "Training tokens D, e.g. 2T", &f->tokens, parse_positive_count)
      .required();
  add_peak_flags(flags, &f->gpu);
  flags.add<int64_t>("--gpus", "GPUs in the run (default: 1; needs --gpu or --peak)", &f->gpus, parse_gpu_count)
      .add<double>("--mfu", "Sustained model FLOPs utilization, in (0, 1]: 0.4 or 40% (default: 0.4; needs --gpu or --peak)", &f->mfu,
                   [](std::string_view text, std::string_view flag) -> Result<double> {
                     MC_ASSIGN_OR_RETURN(const double u, parse_fraction(text, flag));  // 0.4 or 40%
                     if (!(u > 0)) {
                       return Status::InvalidArgument(flag, "is a fraction of peak in (0, 1], got " + quote_input(text));
                     }
                     return u;
                   });
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_train(*f, out); };
}

}  // namespace modelcalc
