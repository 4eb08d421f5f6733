// modelcalc train-memory: bytes per GPU to train a model (weights, gradients,
// optimizer states under ZeRO/TP/PP, activations), the verdict, and the
// smallest ZeRO stage and data-parallel degree that fit.
#include <CLI/CLI.hpp>
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
  std::string params;  // a bare parameter count, e.g. 7B
  std::string optimizer = "adamw";
  std::string zero = "0";
  std::string dp = "1", tp = "1", pp = "1";
  std::string micro_batch = "1";
  std::string seq = "2048";
  std::string recompute = "none";
  bool sequence_parallel = false;
  bool flash = false;
};

Result<Optimizer> parse_optimizer(const std::string& s) {
  if (s == "adamw" || s == "adam") return Optimizer::kAdamW;
  if (s == "adamw-fp32") return Optimizer::kAdamWFp32;
  if (s == "sgd") return Optimizer::kSgd;
  if (s == "adam8bit") return Optimizer::kAdam8bit;
  return Status::InvalidArgument("--optimizer", "expected adamw, adamw-fp32, sgd or adam8bit, got '" + s + "'");
}

Result<Recompute> parse_recompute(const std::string& s) {
  if (s == "none") return Recompute::kNone;
  if (s == "selective") return Recompute::kSelective;
  if (s == "full") return Recompute::kFull;
  return Status::InvalidArgument("--recompute", "expected none, selective or full, got '" + s + "'");
}

Status run_train_memory(const TrainMemoryFlags& f, std::ostream& out) {
  TrainMemoryOptions o;
  std::optional<ModelSpec> model;
  if (!f.params.empty()) {
    if (has_model(f.model)) return Status::InvalidArgument("--params", "give either a model or --params, not both");
    auto n = parse_count(f.params, "--params");
    if (!n.ok()) return n.status();
    o.params = *n;
  } else {
    auto m = resolve_model(f.model);
    if (!m.ok()) return m.status();
    model = *m;
  }
  auto gpu = resolve_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();
  if (!gpu->has_value()) return Status::InvalidArgument("--gpu", "is required (or --bandwidth, --capacity, --peak)");

  auto opt = parse_optimizer(f.optimizer);
  if (!opt.ok()) return opt.status();
  o.optimizer = *opt;
  if (f.zero.size() != 1 || f.zero[0] < '0' || f.zero[0] > '3') {
    return Status::InvalidArgument("--zero", "must be a ZeRO stage 0, 1, 2 or 3, got '" + f.zero + "'");
  }
  o.zero = f.zero[0] - '0';
  for (auto [text, flag, dst] : {std::tuple{&f.dp, "--dp", &o.dp}, {&f.tp, "--tp", &o.tp}, {&f.pp, "--pp", &o.pp},
                                 {&f.micro_batch, "--micro-batch", &o.micro_batch}, {&f.seq, "--seq", &o.seq}}) {
    auto v = parse_count(*text, flag);
    if (!v.ok()) return v.status();
    *dst = *v;
  }
  auto rc = parse_recompute(f.recompute);
  if (!rc.ok()) return rc.status();
  o.recompute = *rc;
  o.sequence_parallel = f.sequence_parallel;
  o.flash = f.flash;

  const ModelSpec* m = model ? &*model : nullptr;
  auto r = analyze_train_memory(m, **gpu, o);
  if (!r.ok()) return r.status();
  emit(build_train_memory_report(m, **gpu, o, *r), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_train_memory(CLI::App& app) {
  auto f = std::make_shared<TrainMemoryFlags>();
  add_model_flags(app, &f->model);
  app.add_option("--params", f->params, "A bare parameter count, e.g. 7B, instead of a model (no activations)");
  add_gpu_flags(app, &f->gpu);
  app.add_option("--optimizer", f->optimizer, "adamw (mixed precision), adamw-fp32, sgd (momentum), adam8bit")
      ->capture_default_str();
  app.add_option("--zero", f->zero, "ZeRO stage 0-3: shard optimizer (1), + gradients (2), + weights (3) over --dp")
      ->capture_default_str();
  app.add_option("--dp", f->dp, "Data-parallel degree")->capture_default_str();
  app.add_option("--tp", f->tp, "Tensor-parallel degree (must divide the heads)")->capture_default_str();
  app.add_option("--pp", f->pp, "Pipeline-parallel degree")->capture_default_str();
  app.add_option("--micro-batch", f->micro_batch, "Micro-batch size b")->capture_default_str();
  app.add_option("--seq", f->seq, "Sequence length s")->capture_default_str();
  app.add_option("--recompute", f->recompute, "Activation recomputation: none, selective, full")->capture_default_str();
  app.add_flag("--sequence-parallel", f->sequence_parallel, "Sequence parallelism (splits the non-TP activations by t)");
  app.add_flag("--flash", f->flash, "FlashAttention (no s x s attention scores stored)");
  add_output_flags(app, &f->output);
  return [f](std::ostream& out) { return run_train_memory(*f, out); };
}

}  // namespace modelcalc
