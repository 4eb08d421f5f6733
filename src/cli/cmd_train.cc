// modelcalc train: the lab's 6·N·D training FLOPs and, on a GPU, GPU-hours and
// days at an assumed MFU; with a model, the training engine's FLOPs per token
// (attention, lm_head, recomputation) beside it; with a layout, the engine's
// predicted step time, MFU and days.
#include <memory>

#include "commands.h"
#include "inputs.h"
#include "lab_flags.h"
#include "lab_report.h"
#include "quantity.h"
#include "train_flags.h"

namespace modelcalc {

namespace {

struct TrainFlags {
  std::optional<double> params;
  double tokens = 0;
  ModelFlags model;
  GpuFlags gpu;
  double mfu = 0.4;
  TrainRunFlags run;
  OutputFlags output;
  const FlagSet* flags = nullptr;  // to tell a given flag from its default
};

Status run_train(const TrainFlags& f, std::ostream& out) {
  const bool given_model = has_model(f.model);
  if (!f.params && !given_model) {
    return Status::InvalidArgument("--params", "is required (or give a model: --model, --config or shape flags)");
  }
  if (f.params && given_model) return Status::InvalidArgument("--params", "give either a model or --params, not both");
  std::optional<ModelSpec> model;
  if (given_model) {
    MC_ASSIGN_OR_RETURN(model, resolve_model_flags(f.model));
  }
  MC_ASSIGN_OR_RETURN(const std::optional<GpuSpec> gpu, resolve_peak_gpu(f.gpu));
  const bool layout = train_layout_given(*f.flags);
  // Without a GPU only the FLOPs are computed: --gpus and --mfu would be silently ignored.
  if (!gpu) {
    for (const char* flag : {"--gpus", "--mfu"}) {
      if (f.flags->given(flag)) {
        return Status::InvalidArgument(flag, "has no effect without a GPU; give --gpu NAME or --peak");
      }
    }
  }
  if (!model) {
    for (const char* flag : {"--seq", "--recompute", "--causal"}) {
      if (f.flags->given(flag)) return Status::InvalidArgument(flag, "needs a model (--model, --config or shape flags)");
    }
    if (layout) return Status::InvalidArgument("--tp", "a layout needs a model (--model, --config or shape flags)");
  }
  const int64_t seq = f.run.dep.seq.value_or(4096);
  const TrainOptions o = train_options(f.run, seq);
  if (layout) MC_RETURN_IF_ERROR(check_gpu_count(f.run, o));

  TrainQuery q;
  q.tokens = f.tokens;
  q.gpu = gpu;
  q.gpus = f.run.dep.gpus.value_or(layout ? o.layout.gpus() : 1);
  q.mfu = f.mfu;
  TrainEngineView engine;
  std::optional<TrainStepResult> step;
  if (model) {
    MC_ASSIGN_OR_RETURN(const ParamBreakdown p, param_breakdown(*model));
    q.params = static_cast<double>(p.active());
    engine.model = &*model;
    engine.seq = seq;
    engine.recompute = o.recompute;
    engine.count = o.attention_count;
    MC_ASSIGN_OR_RETURN(engine.per_token, training_flops_per_token(*model, seq, o.recompute, o.attention_count));
    if (layout) {
      if (!gpu) return Status::InvalidArgument("--gpu", "a layout's step time needs a GPU from the catalog");
      if (!(gpu->bandwidth_bytes_per_s > 0 && gpu->capacity_bytes > 0)) {
        return Status::InvalidArgument("--gpu", "a layout's step time needs a catalog GPU (bandwidth, capacity, links), "
                                                "not --peak alone");
      }
      MC_ASSIGN_OR_RETURN(step, analyze_train_step(*model, *gpu, o));
      engine.step = &*step;
      engine.options = &o;
      engine.gpu = &*gpu;
    }
  } else {
    q.params = *f.params;
  }
  emit(build_train_report(q, analyze_train(q), model ? &engine : nullptr), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_train(FlagSet& flags) {
  auto f = std::make_shared<TrainFlags>();
  f->flags = &flags;
  flags.add<double>("--params", "Parameters N, e.g. 70B (or give a model)", &f->params, parse_positive_count)
      .add<double>("--tokens", "Training tokens D, e.g. 2T", &f->tokens, parse_positive_count)
      .required();
  add_model_flags(flags, &f->model);
  add_peak_flags(flags, &f->gpu);
  flags.add<double>("--mfu", "Sustained model FLOPs utilization, in (0, 1]: 0.4 or 40% (default: 0.4; needs --gpu or --peak)", &f->mfu,
                    [](std::string_view text, std::string_view flag) -> Result<double> {
                      MC_ASSIGN_OR_RETURN(const double u, parse_fraction(text, flag));  // 0.4 or 40%
                      if (!(u > 0)) {
                        return Status::InvalidArgument(flag, "is a fraction of peak in (0, 1], got " + quote_input(text));
                      }
                      return u;
                    });
  add_train_run_flags(flags, &f->run, TrainFlagGroups::kStep, "4096; needs a model",
                      "1 for the lab's view; with a layout tp x cp x pp x dp, and when given it must equal that");
  add_output_flags(flags, &f->output);
  flags.footer("With a model: the engine's FLOPs per token beside 6·N. With a model, a catalog GPU and a layout "
               "(--tp, --pp, --dp, --global-batch, ...): the engine's predicted step, MFU and days.");
  return [f](std::ostream& out) { return run_train(*f, out); };
}

}  // namespace modelcalc
