// modelcalc kv-budget: an HBM budget turned into concurrent sequences, MHA vs
// the model's attention, and the changes that double it (drill 2).
#include <memory>

#include "capacity_report.h"
#include "commands.h"
#include "deployment_options.h"
#include "deployment_report.h"
#include "inputs.h"
#include "modelcalc/capacity.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct KvBudgetFlags {
  ModelFlags model;
  GpuFlags gpu;
  OutputFlags output;
  DeploymentFlags dep;  // --gpus --seq/--context --reserve --dtype --kv-dtype
  std::optional<double> budget;
  std::optional<double> workspace;
  std::optional<int64_t> mean_len;  // default: context / 2
  std::optional<int64_t> block_size;  // the paged proposal's and the engine's; default 16 here
  EngineCliFlags engine;
};

Status run_kv_budget(const KvBudgetFlags& f, std::ostream& out) {
  auto model = resolve_model(f.model);
  if (!model.ok()) return model.status();
  auto gpu = resolve_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();

  KvBudgetOptions o;
  o.gpus = f.dep.gpus.value_or(1);
  o.context = resolve_seq(f.dep.seq, *model);
  o.reserve = f.dep.reserve.value_or(kDefaultReserveFraction);
  const Dtypes dtypes = resolve_dtypes(f.dep, *model);
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  if (f.budget) o.budget = *f.budget;
  if (f.workspace) {
    if (f.budget) return Status::InvalidArgument("--workspace", "has no effect with --budget; give one");
    o.workspace = *f.workspace;
  }
  if (f.mean_len) o.mean_len = *f.mean_len;
  o.block_size = f.block_size.value_or(16);

  const GpuSpec* g = gpu->has_value() ? &**gpu : nullptr;
  auto r = analyze_kv_budget(*model, g, o);
  if (!r.ok()) return as_flag_error(r.status(), "--context");
  std::optional<DeploymentAnalysis> a;
  std::optional<DeploymentPrediction> pred;
  std::optional<KvProposals> proposals;
  if (g != nullptr && !o.budget) {
    // The modeled deployment: per-GPU shards and replication, the same engine as size; the
    // proposals are that engine on each changed setup.
    MC_ASSIGN_OR_RETURN(DeploymentOptions d, deployment_options(f.dep, o.weight_dtype, o.kv_dtype, o.context,
                                                                f.dep.batch.value_or(1)));
    if (o.workspace) d.workspace_bytes = *o.workspace / static_cast<double>(o.gpus);
    MC_ASSIGN_OR_RETURN(a, analyze_flags_deployment(*model, *g, d, "--context"));
    EngineCliFlags e = f.engine;
    e.flags.block_size = f.block_size;
    MC_ASSIGN_OR_RETURN(pred, predict_flags_deployment(*model, *g, *a, e, f.dep));
    MC_ASSIGN_OR_RETURN(ScenarioEngine engine, scenario_engine(e, f.dep));
    auto p = propose_kv_changes(Scenario{*model, *g, d, engine}, o);
    if (!p.ok()) return as_flag_error(p.status(), "--context");
    proposals = *std::move(p);
  }
  Report rep = build_kv_budget_report(*model, g, o, *r, proposals ? &*proposals : nullptr);
  state_context(f.dep.seq, *model, &rep);
  if (a) {
    for (Section& s : deployment_sections(*g, *a, pred ? &*pred : nullptr)) rep.sections.push_back(std::move(s));
  }
  emit(rep, f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_kv_budget(FlagSet& flags) {
  auto f = std::make_shared<KvBudgetFlags>();
  add_model_flags(flags, &f->model);
  add_gpu_flags(flags, &f->gpu);
  add_deployment_flags(flags, &f->dep,
                       {{Dep::kGpus, "1; the tensor-parallel group, weights and KV split across it"},
                        {Dep::kSeq, "8,192 tokens reserved per sequence, or the model's max positions if smaller"},
                        {Dep::kReserve, kReserveDefault},
                        {Dep::kBatch, "1; sequences decoding together in the modeled step"},
                        {Dep::kPrompt, kPromptDefault},
                        {Dep::kDtype, kDtypeDefault}});
  add_engine_flags(flags, &f->dep);
  flags
      .add<double>("--budget", "The KV budget directly, e.g. 40GB (skips capacity, weights, allowance)", &f->budget,
                   parse_bytes)
      .add<double>("--workspace", "Activation/workspace allowance, e.g. 2GB (default: 2048 x (FFN width + vocab) x 2 B)",
                   &f->workspace, parse_bytes)
      .add<int64_t>("--mean-len", "Mean sequence length for the paged-allocation proposal (default: context / 2)",
                    &f->mean_len, parse_count)
      .add<int64_t>("--block-size", "Paged-allocation block, tokens, for the paged proposal and the engine (default: 16; "
                                    "the engine's own when not given: vllm 16, trtllm 64, sglang 1)",
                    &f->block_size, parse_count);
  add_engine_profile_flags(flags, &f->engine, false);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_kv_budget(*f, out); };
}

}  // namespace modelcalc
