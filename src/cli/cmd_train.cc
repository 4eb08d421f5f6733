// modelcalc train: 6·N·D training FLOPs, and on a GPU the GPU-hours and days.
#include <CLI/CLI.hpp>
#include <memory>

#include "commands.h"
#include "lab_flags.h"
#include "lab_report.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct TrainFlags {
  std::string params, tokens;
  GpuFlags gpu;
  std::string gpus = "1";
  std::string mfu = "0.4";
  OutputFlags output;
  const CLI::Option* gpus_opt = nullptr;  // to tell a given --gpus/--mfu from the default
  const CLI::Option* mfu_opt = nullptr;
};

Status run_train(const TrainFlags& f, std::ostream& out) {
  TrainQuery q;
  auto n = parse_positive_count(f.params, "--params");
  if (!n.ok()) return n.status();
  auto d = parse_positive_count(f.tokens, "--tokens");
  if (!d.ok()) return d.status();
  auto gpu = resolve_peak_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();
  auto gpus = parse_count(f.gpus, "--gpus");
  if (!gpus.ok()) return gpus.status();
  auto u = parse_fraction(f.mfu, "--mfu");
  if (!u.ok()) return u.status();
  if (!(*u > 0)) return Status::InvalidArgument("--mfu", "is a fraction of peak in (0, 1], got " + quote_input(f.mfu));
  // Without a GPU only the FLOPs are computed: --gpus and --mfu would be silently ignored.
  if (!gpu->has_value()) {
    for (const CLI::Option* o : {f.gpus_opt, f.mfu_opt}) {
      if (o != nullptr && o->count() > 0) {
        return Status::InvalidArgument(o->get_name(), "has no effect without a GPU; give --gpu NAME or --peak");
      }
    }
  }
  q.params = *n;
  q.tokens = *d;
  q.gpu = *gpu;
  q.gpus = *gpus;
  q.mfu = *u;
  emit(build_train_report(q), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_train(CLI::App& app) {
  auto f = std::make_shared<TrainFlags>();
  app.add_option("--params", f->params, "Parameters N, e.g. 70B")->required();
  app.add_option("--tokens", f->tokens, "Training tokens D, e.g. 2T")->required();
  add_peak_flags(app, &f->gpu);
  f->gpus_opt = app.add_option("--gpus", f->gpus, "GPUs in the run (needs --gpu or --peak)")->capture_default_str();
  f->mfu_opt = app.add_option("--mfu", f->mfu, "Sustained model FLOPs utilization, in (0, 1]: 0.4 or 40% (needs --gpu or --peak)")
                   ->capture_default_str();
  add_output_flags(app, &f->output);
  return [f](std::ostream& out) { return run_train(*f, out); };
}

}  // namespace modelcalc
