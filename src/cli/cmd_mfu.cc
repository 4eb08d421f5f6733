// modelcalc mfu: model FLOPs utilization of a measured throughput.
#include <CLI/CLI.hpp>
#include <memory>

#include "commands.h"
#include "lab_flags.h"
#include "lab_report.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct MfuFlags {
  std::string params, tokens_per_s;
  GpuFlags gpu;
  std::string gpus = "1";
  bool train = false;
  OutputFlags output;
};

Status run_mfu(const MfuFlags& f, std::ostream& out) {
  auto n = parse_positive_count(f.params, "--params");
  if (!n.ok()) return n.status();
  auto tps = parse_positive_count(f.tokens_per_s, "--tokens-per-s");
  if (!tps.ok()) return tps.status();
  auto gpu = resolve_peak_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();
  if (!gpu->has_value()) return Status::InvalidArgument("--gpu", "is required (or give --peak)");
  auto gpus = parse_count(f.gpus, "--gpus");
  if (!gpus.ok()) return gpus.status();
  MfuQuery q;
  q.params = *n;
  q.tokens_per_s = *tps;
  q.gpu_name = (*gpu)->name;
  q.peak_per_gpu = (*gpu)->peak_bf16_flops;
  q.gpus = *gpus;
  q.mode = f.train ? MfuMode::kTraining : MfuMode::kInference;
  emit(build_mfu_report(q), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_mfu(CLI::App& app) {
  auto f = std::make_shared<MfuFlags>();
  app.add_option("--params", f->params, "Parameters N, e.g. 7B")->required();
  app.add_option("--tokens-per-s", f->tokens_per_s, "Achieved tokens/s, aggregate over all GPUs")->required();
  add_peak_flags(app, &f->gpu);
  app.add_option("--gpus", f->gpus, "GPUs producing the throughput")->capture_default_str();
  app.add_flag("--train", f->train, "Training throughput: 6·N FLOP per token (default: inference, 2·N)");
  add_output_flags(app, &f->output);
  return [f](std::ostream& out) { return run_mfu(*f, out); };
}

}  // namespace modelcalc
