// modelcalc mfu: model FLOPs utilization of a measured throughput (the lab's
// k·N view), and with a model and --train the engine's MFU and HFU.
#include <fmt/format.h>
#include <memory>

#include "commands.h"
#include "format.h"
#include "inputs.h"
#include "report.h"
#include "lab_flags.h"
#include "lab_report.h"
#include "modelcalc/training.h"
#include "quantity.h"
#include "train_flags.h"

namespace modelcalc {

namespace {

struct MfuFlags {
  std::optional<double> params;
  double tokens_per_s = 0;
  ModelFlags model;
  GpuFlags gpu;
  int64_t gpus = 1;
  bool train = false;
  std::optional<int64_t> seq;
  Recompute recompute = Recompute::kNone;
  bool causal = false;
  OutputFlags output;
  const FlagSet* flags = nullptr;
};

Status run_mfu(const MfuFlags& f, std::ostream& out) {
  const bool given_model = has_model(f.model);
  if (!f.params && !given_model) {
    return Status::InvalidArgument("--params", "is required (or give a model: --model, --config or shape flags)");
  }
  if (f.params && given_model) return Status::InvalidArgument("--params", "give either a model or --params, not both");
  std::optional<ModelSpec> model;
  if (given_model) {
    MC_ASSIGN_OR_RETURN(model, resolve_model_flags(f.model));
  }
  for (const char* flag : {"--seq", "--recompute", "--causal"}) {
    if (f.flags->given(flag) && !(model && f.train)) {
      return Status::InvalidArgument(flag, "needs a model and --train (the engine's training FLOPs)");
    }
  }
  auto gpu = resolve_peak_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();
  if (!gpu->has_value()) return Status::InvalidArgument("--gpu", "is required (or give --peak)");
  MfuQuery q;
  q.tokens_per_s = f.tokens_per_s;
  q.gpu_name = (*gpu)->name;
  q.peak_per_gpu = (*gpu)->peak_bf16_flops;
  q.gpus = f.gpus;
  q.mode = f.train ? MfuMode::kTraining : MfuMode::kInference;
  MfuEngineView engine;
  if (model) {
    MC_ASSIGN_OR_RETURN(const ParamBreakdown p, param_breakdown(*model));
    q.params = static_cast<double>(p.active());
  } else {
    q.params = *f.params;
  }
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
  const bool with_engine = model && f.train;
  if (with_engine) {
    engine.model = &*model;
    engine.seq = f.seq.value_or(4096);
    engine.recompute = f.recompute;
    engine.count = f.causal ? AttentionCount::kCausal : AttentionCount::kFull;
    MC_ASSIGN_OR_RETURN(engine.per_token, training_flops_per_token(*model, engine.seq, engine.recompute, engine.count));
    engine.mfu = flops_utilization(q.tokens_per_s, engine.per_token.model, r.peak_flops);
    engine.hfu = flops_utilization(q.tokens_per_s, engine.per_token.hardware, r.peak_flops);
  }
  emit(build_mfu_report(q, r, with_engine ? &engine : nullptr), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_mfu(FlagSet& flags) {
  auto f = std::make_shared<MfuFlags>();
  f->flags = &flags;
  flags.add<double>("--params", "Parameters N, e.g. 7B (or give a model)", &f->params, parse_positive_count)
      .add<double>("--tokens-per-s", "Achieved tokens/s, aggregate over all GPUs", &f->tokens_per_s,
                   parse_positive_count)
      .required();
  add_model_flags(flags, &f->model);
  add_peak_flags(flags, &f->gpu);
  flags.add<int64_t>("--gpus", "GPUs producing the throughput (default: 1)", &f->gpus, parse_gpu_count)
      .toggle("--train", "Training throughput: 6·N FLOP per token (default: inference, 2·N)", &f->train)
      .add<int64_t>("--seq", "Training sequence length for the engine's attention FLOPs (default: 4096; needs a model "
                             "and --train)",
                    &f->seq,
                    [](std::string_view t, std::string_view fl) -> Result<int64_t> {
                      MC_ASSIGN_OR_RETURN(const int64_t v, parse_count(t, fl));
                      if (v > kMaxTokens) return Status::InvalidArgument(fl, "must be at most 1,073,741,824 tokens");
                      return v;
                    })
      .add<Recompute>("--recompute", "Recomputation the run used, for HFU: none, selective, full (default: none)",
                      &f->recompute, parse_recompute)
      .toggle("--causal", "Count the causal half of the attention FLOPs (default: all pairs, as PaLM does)",
              &f->causal);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_mfu(*f, out); };
}

}  // namespace modelcalc
