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
  auto u = parse_positive_real(f.mfu, "--mfu");
  if (!u.ok()) return u.status();
  if (*u > 1) return Status::InvalidArgument("--mfu", "is a fraction of peak in (0, 1], got " + f.mfu);
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
  app.add_option("--gpus", f->gpus, "GPUs in the run")->capture_default_str();
  app.add_option("--mfu", f->mfu, "Sustained model FLOPs utilization, in (0, 1]")->capture_default_str();
  add_output_flags(app, &f->output);
  return [f](std::ostream& out) { return run_train(*f, out); };
}

}  // namespace modelcalc
