// modelcalc train-memory: bytes per GPU to train a model, for every pipeline
// stage as Megatron builds it (weights, gradients, optimizer states under
// ZeRO, activations of the micro-batches in flight, logits), the verdict, and
// the smallest ZeRO stage and data-parallel degree that fit.
#include <memory>

#include "commands.h"
#include "inputs.h"
#include "modelcalc/training.h"
#include "quantity.h"
#include "train_flags.h"
#include "train_memory_report.h"

namespace modelcalc {

namespace {

struct TrainMemoryFlags {
  ModelFlags model;
  GpuFlags gpu;
  OutputFlags output;
  std::optional<int64_t> params;  // a bare parameter count, e.g. 7B
  TrainRunFlags run;
};

Status run_train_memory(const TrainMemoryFlags& f, std::ostream& out) {
  std::optional<ModelSpec> model;
  if (f.params) {
    if (has_model(f.model)) return Status::InvalidArgument("--params", "give either a model or --params, not both");
  } else {
    MC_ASSIGN_OR_RETURN(model, resolve_model_flags(f.model));
  }
  MC_ASSIGN_OR_RETURN(const std::optional<GpuSpec> gpu, resolve_gpu_flags(f.gpu));
  if (!gpu) return Status::InvalidArgument("--gpu", "is required (or --bandwidth, --capacity, --peak)");
  TrainOptions o = train_options(f.run, f.run.dep.seq.value_or(2048));
  if (f.params) o.params = *f.params;
  MC_RETURN_IF_ERROR(check_gpu_count(f.run, o));
  const ModelSpec* m = model ? &*model : nullptr;
  MC_ASSIGN_OR_RETURN(const TrainMemoryResult r, analyze_train_memory(m, *gpu, o));
  emit(build_train_memory_report(m, *gpu, o, r), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_train_memory(FlagSet& flags) {
  auto f = std::make_shared<TrainMemoryFlags>();
  add_model_flags(flags, &f->model);
  flags.add<int64_t>("--params", "A bare parameter count, e.g. 7B, instead of a model (no activations)", &f->params,
                     parse_count);
  add_gpu_flags(flags, &f->gpu);
  add_train_run_flags(flags, &f->run, TrainFlagGroups::kMemory, "2048");
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_train_memory(*f, out); };
}

}  // namespace modelcalc
