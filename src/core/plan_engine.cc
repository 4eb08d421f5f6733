#include "modelcalc/plan_engine.h"

#include <algorithm>
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

PlanPoint plan_point(const PreparedDeployment& d, int64_t batch, int64_t context, int64_t prompt) {
  const DeploymentResult e = evaluate_deployment(d, batch, context, prompt);
  PlanPoint p;
  p.max_sequences = e.overflow ? 0 : e.memory.max_sequences;
  p.ttft_s = e.prefill.seconds;
  p.tpot_s = e.decode.seconds;
  p.comm_s = e.decode.comm_seconds;
  return p;
}

namespace {

// What would have to change for each closest miss, where it is a change of the setup: the engine on
// the miss's scenario varied (no arithmetic of plan's own), as `size` reports it for the same flags.
void evaluate_miss_changes(const ModelSpec& m, const PlanRequest& r, const PlanSpace& s, PlanResult* res) {
  for (PlanMiss& miss : res->misses) {
    const PlanConfig& c = miss.config;
    DeploymentOptions o = plan_deployment_options(r, c.c);
    o.batch = c.batch;
    const Scenario base{m, s.gpus[c.c.gpu].gpu, o};
    for (PlanChange& ch : miss.changes) {
      ScenarioChange v;
      switch (ch.kind) {
        case PlanChangeKind::kBatchMemory: v.batch = ch.holds; break;
        case PlanChangeKind::kFp8Weights: v.weight_dtype = Dtype::kFp8; break;
        case PlanChangeKind::kWeightsMemory:
          // The fewest more tensor ranks (the heads allow) whose shard leaves room for the batch.
          for (int64_t tp = c.c.tp + 1; tp <= 1024 && !v.split; ++tp) {
            ScenarioChange t;
            t.split = o.split;
            t.split->tp = tp;
            auto e = evaluate_variation(base, t);
            if (e.ok() && e->after.result.memory.max_sequences >= c.batch) v = t;
          }
          if (!v.split) continue;
          break;
        case PlanChangeKind::kTtftTarget:
        case PlanChangeKind::kTpotTarget:
        case PlanChangeKind::kGpuLimit: continue;  // a change of the targets, not of the setup
      }
      if (auto e = evaluate_variation(base, v); e.ok()) ch.variation = *std::move(e);
    }
  }
}

}  // namespace

void set_plan_model(const ModelSpec& m, PlanSpace* s) {
  s->n_head = m.n_head;
  s->n_layer = m.n_layer;
  s->n_expert = m.n_expert;
}

Result<PlanResult> plan_deployments(const ModelSpec& m, const PlanRequest& r, PlanSpace s) {
  set_plan_model(m, &s);
  MC_RETURN_IF_ERROR(check_plan(r, s));
  const int64_t max_batch = *std::max_element(s.batches.begin(), s.batches.end());
  auto prepare = [&](const PlanCandidate& c) -> Result<PreparedDeployment> {
    const GpuSpec& gpu = s.gpus[c.gpu].gpu;
    const Dtype compute = default_compute_dtype(c.weight_dtype, gpu);
    if (!(gpu.peak_flops(compute) > 0)) {
      return Status::InvalidArgument("compute_dtype", gpu.key + " has no " + std::string(dtype_name(compute)) +
                                                          " peak in the catalog");
    }
    auto d = prepare_deployment(m, gpu, plan_deployment_options(r, c));
    if (!d.ok()) return d.status();
    MC_RETURN_IF_ERROR(check_workload(*d, max_batch, r.isl + r.osl, r.isl));
    return d;
  };
  PlanResult res = search_plan(r, s, prepare, plan_point);
  evaluate_miss_changes(m, r, s, &res);
  return res;
}

}  // namespace modelcalc
