// plan over the deployment engine and the serving model: the search of plan.h
// with every candidate prepared once (prepare_deployment, the engine profile's
// settings and memory, both capacities) and every batch evaluated by serve()
// for both figure sets, so each configuration's numbers are the serving
// model's for that deployment and batch.
#ifndef MODELCALC_PLAN_ENGINE_H_
#define MODELCALC_PLAN_ENGINE_H_

#include "modelcalc/deployment.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/model.h"
#include "modelcalc/plan.h"
#include "modelcalc/serving.h"

namespace modelcalc {

// The engine's options for one candidate at the request's workload (context =
// isl + osl, prompt = isl, dp = 1: replicas are the search's).
DeploymentOptions plan_deployment_options(const PlanRequest& r, const PlanCandidate& c);

// One candidate, prepared: everything but the batch.
struct PlanPrepared {
  PreparedDeployment d;          // the ceiling's
  PreparedDeployment engine_d;   // as the engine runs it
  DeploymentMemory ceiling_memory;
  EngineSettings settings;
  EngineMemory engine_memory;
  ServingCapacity ceiling_cap, engine_cap;
  StepTimeParams params;         // the profile's
};
Result<PlanPrepared> prepare_plan_candidate(const ModelSpec& m, const PlanRequest& r, const GpuSpec& gpu,
                                            const PlanCandidate& c);

// Both figure sets at `batch` (serve() with ServingLoad::kBatch). Pure, no allocation.
PlanPoints plan_points(const PlanPrepared& p, int64_t batch, int64_t isl, int64_t osl);

// Fills the model's divisibility facts (heads, layers, experts) into `s`.
void set_plan_model(const ModelSpec& m, PlanSpace* s);

// check_plan + search_plan with the engine. A candidate the engine refuses
// (a split that does not divide, a dtype the GPU has no peak for) is counted in
// rejected.unsupported.
Result<PlanResult> plan_deployments(const ModelSpec& m, const PlanRequest& r, PlanSpace s);

}  // namespace modelcalc

#endif  // MODELCALC_PLAN_ENGINE_H_
