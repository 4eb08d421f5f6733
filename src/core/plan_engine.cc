#include "modelcalc/plan_engine.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace modelcalc {

DeploymentOptions plan_deployment_options(const PlanRequest& r, const PlanCandidate& c) {
  DeploymentOptions o;
  o.split.tp = c.tp;
  o.split.pp = c.pp;
  o.split.ep = c.ep;
  o.split.dp = 1;
  o.weight_dtype = c.weight_dtype;
  o.kv_dtype = c.kv_dtype;
  o.context = r.isl + r.osl;
  o.batch = 1;
  o.prompt_tokens = r.isl;
  return o;
}

Result<PlanPrepared> prepare_plan_candidate(const ModelSpec& m, const PlanRequest& r, const GpuSpec& gpu,
                                            const PlanCandidate& c) {
  PlanPrepared p;
  MC_ASSIGN_OR_RETURN(p.d, prepare_deployment(m, gpu, plan_deployment_options(r, c)));
  p.ceiling_memory = evaluate_deployment(p.d, 1, r.isl + r.osl, r.isl).memory;
  MC_ASSIGN_OR_RETURN(p.settings,
                      resolve_engine_settings(r.engine, r.engine_flags, m, gpu, p.d, EngineWorkload{r.isl, r.osl}));
  p.engine_d = engine_view(p.d, p.settings);
  p.engine_memory = engine_memory(p.engine_d, p.settings);
  p.ceiling_cap = ceiling_capacity(p.d, p.ceiling_memory, r.isl, r.osl);
  p.engine_cap = engine_capacity(p.engine_memory, p.settings, r.isl, r.osl);
  p.params = engine_profile(r.engine).time;
  return p;
}

namespace {

PlanPoint point_of(const ServingFigures& f) {
  PlanPoint p;
  const double cap = std::floor(f.capacity_sequences);
  p.max_sequences = f.fits && cap < 9e18 ? static_cast<int64_t>(cap) : 0;
  p.ttft_s = f.ttft_s;
  p.tpot_s = f.tpot_s;
  p.comm_s = f.step.comm_s;
  p.tokens_per_s = f.fits ? f.batch / f.tpot_s : 0;
  // The prompt tokens' share of each step's tokens: what $/1M input tokens is charged.
  p.prefill_share = f.prefill_tokens_per_step / (f.prefill_tokens_per_step + f.batch);
  return p;
}

}  // namespace

PlanPoints plan_points(const PlanPrepared& p, int64_t batch, int64_t isl, int64_t osl) {
  const ServingRequest req{isl, osl, ServingLoad::kBatch, static_cast<double>(batch)};
  PlanPoints out;
  out.ceiling = point_of(serve(p.d, p.ceiling_cap, p.params, true, req));
  out.predicted = point_of(serve(p.engine_d, p.engine_cap, p.params, false, req));
  return out;
}

void set_plan_model(const ModelSpec& m, PlanSpace* s) {
  s->n_head = m.n_head;
  s->n_layer = m.n_layer;
  s->n_expert = m.n_expert;
}

Result<PlanResult> plan_deployments(const ModelSpec& m, const PlanRequest& r, PlanSpace s) {
  set_plan_model(m, &s);
  MC_RETURN_IF_ERROR(check_plan(r, s));
  MC_RETURN_IF_ERROR(check_engine_flags(r.engine, r.engine_flags, m));
  const int64_t max_batch = *std::max_element(s.batches.begin(), s.batches.end());
  auto prepare = [&](const PlanCandidate& c) -> Result<PlanPrepared> {
    const GpuSpec& gpu = s.gpus[c.gpu].gpu;
    const Dtype compute = default_compute_dtype(c.weight_dtype, gpu);
    if (!(gpu.peak_flops(compute) > 0)) {
      return Status::InvalidArgument("compute_dtype", gpu.key + " has no " + std::string(dtype_name(compute)) +
                                                          " peak in the catalog");
    }
    MC_ASSIGN_OR_RETURN(PlanPrepared p, prepare_plan_candidate(m, r, gpu, c));
    MC_RETURN_IF_ERROR(check_workload(p.d, max_batch, r.isl + r.osl, r.isl));
    return p;
  };
  auto evaluate = [&](const PlanPrepared& p, int64_t batch, int64_t, int64_t) {
    return plan_points(p, batch, r.isl, r.osl);
  };
  return search_plan(r, s, prepare, evaluate);
}

}  // namespace modelcalc
