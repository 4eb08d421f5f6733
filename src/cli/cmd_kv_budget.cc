// modelcalc kv-budget: an HBM budget turned into concurrent sequences, MHA vs
// the model's attention, and the changes that double it (drill 2).
#include <CLI/CLI.hpp>
#include <memory>

#include "capacity_report.h"
#include "commands.h"
#include "inputs.h"
#include "modelcalc/capacity.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct KvBudgetFlags {
  ModelFlags model;
  GpuFlags gpu;
  OutputFlags output;
  std::string gpus = "1";
  std::string context = "8192";
  std::string reserve = "0.10";
  std::string dtype = "fp16";
  std::string kv_dtype;  // default: --dtype
  std::string budget;
  std::string workspace;
  std::string mean_len;  // default: context / 2
  std::string block_size = "16";
};

Status run_kv_budget(const KvBudgetFlags& f, std::ostream& out) {
  auto model = resolve_model(f.model);
  if (!model.ok()) return model.status();
  auto gpu = resolve_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();

  KvBudgetOptions o;
  auto gpus = parse_count(f.gpus, "--gpus");
  if (!gpus.ok()) return gpus.status();
  o.gpus = *gpus;
  auto context = parse_count(f.context, "--context");
  if (!context.ok()) return context.status();
  o.context = *context;
  auto reserve = parse_fraction(f.reserve, "--reserve");
  if (!reserve.ok()) return reserve.status();
  o.reserve = *reserve;
  MC_ASSIGN_OR_RETURN(const Dtypes dtypes, resolve_dtypes(f.dtype, f.kv_dtype));
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  if (!f.budget.empty()) {
    auto b = parse_bytes(f.budget, "--budget");
    if (!b.ok()) return b.status();
    o.budget = *b;
  }
  if (!f.workspace.empty()) {
    if (!f.budget.empty()) return Status::InvalidArgument("--workspace", "has no effect with --budget; give one");
    auto w = parse_bytes(f.workspace, "--workspace");
    if (!w.ok()) return w.status();
    o.workspace = *w;
  }
  if (!f.mean_len.empty()) {
    auto m = parse_count(f.mean_len, "--mean-len");
    if (!m.ok()) return m.status();
    o.mean_len = *m;
  }
  auto block = parse_count(f.block_size, "--block-size");
  if (!block.ok()) return block.status();
  o.block_size = *block;

  const GpuSpec* g = gpu->has_value() ? &**gpu : nullptr;
  auto r = analyze_kv_budget(*model, g, o);
  if (!r.ok()) return r.status();
  emit(build_kv_budget_report(*model, g, o, *r), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_kv_budget(CLI::App& app) {
  auto f = std::make_shared<KvBudgetFlags>();
  add_model_flags(app, &f->model);
  add_gpu_flags(app, &f->gpu);
  app.add_option("--gpus", f->gpus, "GPUs in the tensor-parallel group (weights and KV split across them)")
      ->capture_default_str();
  app.add_option("--context", f->context, "Tokens reserved per sequence")->capture_default_str();
  app.add_option("--reserve", f->reserve, "Fraction of capacity kept back, in [0, 1): 0.1 or 10%")->capture_default_str();
  app.add_option("--dtype", f->dtype, "Weight dtype: fp32, fp16, bf16, fp8, int8, int4")->capture_default_str();
  app.add_option("--kv-dtype", f->kv_dtype, "KV-cache dtype (default: --dtype)");
  app.add_option("--budget", f->budget, "The KV budget directly, e.g. 40GB (skips capacity, weights, allowance)");
  app.add_option("--workspace", f->workspace,
                 "Activation/workspace allowance, e.g. 2GB (default: 2048 x (FFN width + vocab) x 2 B)");
  app.add_option("--mean-len", f->mean_len, "Mean sequence length for the paged-allocation proposal (default: context / 2)");
  app.add_option("--block-size", f->block_size, "Paged-allocation block, tokens")->capture_default_str();
  add_output_flags(app, &f->output);
  return [f](std::ostream& out) { return run_kv_budget(*f, out); };
}

}  // namespace modelcalc
