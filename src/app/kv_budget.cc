// kv-budget: an HBM budget turned into concurrent sequences, MHA vs the
// model's attention, and the changes that double it (drill 2).
#include "check.h"
#include "modelcalc/app/answers.h"
#include "modelcalc/app/fields.h"

namespace modelcalc::app {

namespace {

// The modeled deployment: per-GPU shards and replication, the same engine as size; the
// proposals are that engine on each changed setup.
Status answer_deployment(const KvBudgetRequest& r, const ModelSpec& m, const GpuSpec& g, KvBudgetAnswer* out) {
  const KvBudgetOptions& o = out->options;
  auto draft = std::make_shared<ModelSpec>();
  MC_ASSIGN_OR_RETURN(DeploymentOptions d,
                      deployment_options(r.dep, r.layout, m, o.weight_dtype, o.kv_dtype, o.context,
                                         r.dep.batch.value_or(1), draft.get(), &out->resolved));
  out->draft = draft;
  if (o.workspace) d.workspace_bytes = *o.workspace / static_cast<double>(o.gpus);
  MC_ASSIGN_OR_RETURN(out->deployment, analyze(m, g, d, &r.dep));
  EngineInput e = r.engine;
  // --block-size is the paged-allocation proposal's block and, where an engine runs, the engine's.
  MC_ASSIGN_OR_RETURN(const std::optional<EngineRelease> runs, resolve_engine(e, g));
  if (runs) e.flags.block_size = r.block_size;
  MC_ASSIGN_OR_RETURN(out->prediction, predict(m, g, out->deployment, e, r.dep));
  MC_ASSIGN_OR_RETURN(const std::optional<ScenarioEngine> engine, scenario_engine(e, r.dep, g));
  MC_ASSIGN_OR_RETURN(out->proposals, propose_kv_changes(Scenario{m, g, d, engine}, o));
  out->has_deployment = true;
  return Status::Ok();
}

Result<KvBudgetAnswer> answer_kv_budget(const KvBudgetRequest& r) {
  MC_RETURN_IF_ERROR(check_request(r));
  KvBudgetAnswer out;
  out.request = r;
  MC_ASSIGN_OR_RETURN(out.model, resolve_model(r.model));
  MC_ASSIGN_OR_RETURN(out.gpu, resolve_gpu(r.gpu));
  const ModelSpec& m = *out.model;
  KvBudgetOptions& o = out.options;
  o.gpus = r.dep.gpus.value_or(1);
  o.context = resolve_context(r.dep.context, m, &out.resolved);
  o.reserve = r.dep.reserve.value_or(kDefaultReserveFraction);
  const Dtypes dtypes = resolve_dtypes(r.dep, &m, &out.resolved);
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  if (r.budget) o.budget = *r.budget;
  if (r.workspace) {
    if (r.budget) return Status::InvalidArgument("workspace", "has no effect with --budget; give one");
    o.workspace = *r.workspace;
  }
  if (r.mean_len) o.mean_len = *r.mean_len;
  o.block_size = r.block_size.value_or(16);
  MC_ASSIGN_OR_RETURN(out.result, analyze_kv_budget(m, out.gpu.get(), o));
  if (out.gpu != nullptr && !o.budget) MC_RETURN_IF_ERROR(answer_deployment(r, m, *out.gpu, &out));
  if (o.budget) {
    MC_ASSIGN_OR_RETURN(out.budget_proposals, propose_budget_changes(m, o));
  }
  // kv-budget's own figures keep back 10 % unless told (the drill's nominal view).
  out.resolved.add(fields::kReserve, Value{o.reserve}, r.dep.reserve ? Source::kGiven : Source::kDefault);
  return out;
}

}  // namespace

Result<KvBudgetAnswer> answer(const KvBudgetRequest& r, const Context&) {
  auto a = answer_kv_budget(r);
  if (!a.ok()) return as_field_error(a.status());
  return a;
}

}  // namespace modelcalc::app
