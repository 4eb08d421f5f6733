// modelcalc mfu: model FLOPs utilization of a measured throughput.
#include <fmt/format.h>
#include <memory>

#include "commands.h"
#include "format.h"
#include "report.h"
#include "lab_flags.h"
#include "lab_report.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct MfuFlags {
  double params = 0, tokens_per_s = 0;
  GpuFlags gpu;
  int64_t gpus = 1;
  bool train = false;
  OutputFlags output;
};

Status run_mfu(const MfuFlags& f, std::ostream& out) {
  auto gpu = resolve_peak_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();
  if (!gpu->has_value()) return Status::InvalidArgument("--gpu", "is required (or give --peak)");
  MfuQuery q;
  q.params = f.params;
  q.tokens_per_s = f.tokens_per_s;
  q.gpu_name = (*gpu)->name;
  q.peak_per_gpu = (*gpu)->peak_bf16_flops;
  q.gpus = f.gpus;
  q.mode = f.train ? MfuMode::kTraining : MfuMode::kInference;
  const MfuResult r = analyze_mfu(q);
  if (!(r.mfu <= 1)) {
    // More FLOP/s than the GPUs have: the rate, the model or the GPU count is wrong.
    return Status::InvalidArgument(
        "--tokens-per-s", fmt::format("{} tokens/s of a {} model need {}, more than the {} of {} GPU(s): an MFU "
                                      "of {} %; at most {} tokens/s (check --params, --gpus and --peak)",
                                      fmt_sig(q.tokens_per_s), format_brief(q.params, Unit::kParams),
                                      fmt_si(r.flops_per_token * q.tokens_per_s, "FLOP/s"),
                                      format_quantity(r.peak_flops, Unit::kFlopPerS), q.gpus, fmt_sig(r.mfu * 100, 3),
                                      group_digits(static_cast<int64_t>(r.peak_flops / r.flops_per_token))));
  }
  emit(build_mfu_report(q, r), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_mfu(FlagSet& flags) {
  auto f = std::make_shared<MfuFlags>();
  flags.add<double>("--params", "Parameters N, e.g. 7B", &f->params, parse_positive_count)
      .required()
      .add<double>("--tokens-per-s", "Achieved tokens/s, aggregate over all GPUs", &f->tokens_per_s,
                   parse_positive_count)
      .required();
  add_peak_flags(flags, &f->gpu);
  flags.add<int64_t>("--gpus", "GPUs producing the throughput (default: 1)", &f->gpus, parse_gpu_count)
      .toggle("--train", "Training throughput: 6·N FLOP per token (default: inference, 2·N)", &f->train);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_mfu(*f, out); };
}

}  // namespace modelcalc
