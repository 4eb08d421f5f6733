// modelcalc kv-budget: an HBM budget turned into concurrent sequences, MHA vs
// the model's attention, and the changes that double it (drill 2).
#include <memory>
#include <optional>
#include <utility>

#include "capacity_report.h"
#include "commands.h"
#include "deployment_options.h"
#include "deployment_report.h"
#include "inputs.h"
#include "modelcalc/capacity.h"
#include "quantity.h"
#include "runs.h"

namespace modelcalc {

namespace {

struct KvBudgetFlags : KvBudgetInputs {
  ModelFlags model;
  GpuFlags gpu;
  OutputFlags output;
};

Status run_kv_budget_command(const KvBudgetFlags& f, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(ModelSpec model, resolve_model(f.model));
  MC_ASSIGN_OR_RETURN(const std::optional<GpuSpec> gpu, resolve_gpu(f.gpu));
  KvBudgetRun run;
  MC_RETURN_IF_ERROR(run_kv_budget(std::make_shared<const ModelSpec>(std::move(model)),
                                   gpu ? std::make_shared<const GpuSpec>(*gpu) : nullptr, f, &run));
  emit(kv_budget_report(run), f.output, out);
  return Status::Ok();
}

}  // namespace

Status run_kv_budget(SharedModel m, SharedGpu gpu, const KvBudgetInputs& in, KvBudgetRun* out) {
  KvBudgetOptions& o = out->options;
  o = KvBudgetOptions{};
  o.gpus = in.dep.gpus.value_or(1);
  o.context = resolve_seq(in.dep.seq, *m);
  out->context_flag = in.dep.seq;
  o.reserve = in.dep.reserve.value_or(kDefaultReserveFraction);
  const Dtypes dtypes = resolve_dtypes(in.dep, *m);
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  if (in.budget) o.budget = *in.budget;
  if (in.workspace) {
    if (in.budget) return Status::InvalidArgument("--workspace", "has no effect with --budget; give one");
    o.workspace = *in.workspace;
  }
  if (in.mean_len) o.mean_len = *in.mean_len;
  o.block_size = in.block_size.value_or(16);

  const GpuSpec* g = gpu.get();
  auto r = analyze_kv_budget(*m, g, o);
  if (!r.ok()) return as_flag_error(r.status(), "--context");
  out->result = *std::move(r);
  out->has_deployment = false;
  out->proposals.reset();
  if (g != nullptr && !o.budget) {
    // The modeled deployment: per-GPU shards and replication, the same engine as size; the
    // proposals are that engine on each changed setup.
    auto draft = std::make_shared<ModelSpec>();
    MC_ASSIGN_OR_RETURN(DeploymentOptions d, deployment_options(in.dep, *m, o.weight_dtype, o.kv_dtype, o.context,
                                                                in.dep.batch.value_or(1), draft.get()));
    out->draft = draft;
    if (o.workspace) d.workspace_bytes = *o.workspace / static_cast<double>(o.gpus);
    MC_ASSIGN_OR_RETURN(out->deployment, analyze_flags_deployment(*m, *g, d, "--context"));
    EngineCliFlags e = in.engine;
    e.flags.block_size = in.block_size;
    MC_ASSIGN_OR_RETURN(out->prediction, predict_flags_deployment(*m, *g, out->deployment, e, in.dep));
    MC_ASSIGN_OR_RETURN(ScenarioEngine engine, scenario_engine(e, in.dep));
    auto p = propose_kv_changes(Scenario{*m, *g, d, engine}, o);
    if (!p.ok()) return as_flag_error(p.status(), "--context");
    out->proposals = *std::move(p);
    out->has_deployment = true;
  }
  out->model = std::move(m);
  out->gpu = std::move(gpu);
  return Status::Ok();
}

Report kv_budget_report(const KvBudgetRun& r) {
  Report rep = build_kv_budget_report(*r.model, r.gpu.get(), r.options, r.result,
                                     r.proposals ? &*r.proposals : nullptr);
  state_context(r.context_flag, *r.model, &rep);
  if (r.has_deployment) {
    for (Section& s : deployment_sections(*r.gpu, r.deployment, &r.prediction)) rep.sections.push_back(std::move(s));
  }
  return rep;
}

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
  return [f](std::ostream& out) { return run_kv_budget_command(*f, out); };
}

}  // namespace modelcalc
