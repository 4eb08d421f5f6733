// modelcalc train-memory: bytes per GPU to train a model (weights, gradients,
// optimizer states under ZeRO/TP/PP, activations), the verdict, and the
// smallest ZeRO stage and data-parallel degree that fit.
#include <memory>

#include "capacity_report.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/capacity.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct TrainMemoryFlags {
  ModelFlags model;
  GpuFlags gpu;
  OutputFlags output;
  std::optional<int64_t> params;  // a bare parameter count, e.g. 7B
  Optimizer optimizer = Optimizer::kAdamW;
  int zero = 0;
  DeploymentFlags dep;  // --dp --tp --pp --seq
  int64_t micro_batch = 1;
  Recompute recompute = Recompute::kNone;
  bool sequence_parallel = false;
  bool flash = false;
};

Result<Recompute> parse_recompute(std::string_view s, std::string_view) {
  if (s == "none") return Recompute::kNone;
  if (s == "selective") return Recompute::kSelective;
  if (s == "full") return Recompute::kFull;
  return Status::InvalidArgument("--recompute", "expected none, selective or full, got '" + std::string(s) + "'");
}

Status run_train_memory(const TrainMemoryFlags& f, std::ostream& out) {
  TrainMemoryOptions o;
  std::optional<ModelSpec> model;
  if (f.params) {
    if (has_model(f.model)) return Status::InvalidArgument("--params", "give either a model or --params, not both");
    o.params = *f.params;
  } else {
    auto m = resolve_model(f.model);
    if (!m.ok()) return m.status();
    model = *m;
  }
  auto gpu = resolve_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();
  if (!gpu->has_value()) return Status::InvalidArgument("--gpu", "is required (or --bandwidth, --capacity, --peak)");

  o.optimizer = f.optimizer;
  o.zero = f.zero;
  o.dp = f.dep.dp.value_or(1);
  o.tp = f.dep.tp.value_or(1);
  o.pp = f.dep.pp.value_or(1);
  o.micro_batch = f.micro_batch;
  o.seq = f.dep.seq.value_or(2048);
  o.recompute = f.recompute;
  o.sequence_parallel = f.sequence_parallel;
  o.flash = f.flash;

  const ModelSpec* m = model ? &*model : nullptr;
  auto r = analyze_train_memory(m, **gpu, o);
  if (!r.ok()) return r.status();
  emit(build_train_memory_report(m, **gpu, o, *r), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_train_memory(FlagSet& flags) {
  auto f = std::make_shared<TrainMemoryFlags>();
  add_model_flags(flags, &f->model);
  flags.add<int64_t>("--params", "A bare parameter count, e.g. 7B, instead of a model (no activations)", &f->params,
                     parse_count);
  add_gpu_flags(flags, &f->gpu);
  flags
      .add<Optimizer>("--optimizer", "adamw (mixed precision), adamw-fp32, sgd (momentum), adam8bit (default: adamw)",
                      &f->optimizer, parse_optimizer)
      .add<int>("--zero", "ZeRO stage 0-3: shard optimizer (1), + gradients (2), + weights (3) over --dp (default: 0)",
                &f->zero, [](std::string_view s, std::string_view flag) -> Result<int> {
                  if (s.size() != 1 || s[0] < '0' || s[0] > '3') {
                    return Status::InvalidArgument(flag, "must be a ZeRO stage 0, 1, 2 or 3, got '" + std::string(s) +
                                                             "'");
                  }
                  return s[0] - '0';
                });
  add_deployment_flags(flags, &f->dep,
                       {{Dep::kDp, "1"}, {Dep::kTp, "1; must divide the heads"}, {Dep::kPp, "1"}, {Dep::kSeq, "2048"}});
  flags.add<int64_t>("--micro-batch", "Micro-batch size b (default: 1)", &f->micro_batch, parse_count)
      .add<Recompute>("--recompute", "Activation recomputation: none, selective, full (default: none)", &f->recompute,
                      parse_recompute)
      .toggle("--sequence-parallel", "Sequence parallelism (splits the non-TP activations by t)",
              &f->sequence_parallel)
      .toggle("--flash", "FlashAttention (no s x s attention scores stored)", &f->flash);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_train_memory(*f, out); };
}

}  // namespace modelcalc
