// plan over the deployment engine: the search of plan.h with every candidate
// prepared by prepare_deployment and evaluated by evaluate_deployment, so each
// configuration's TTFT and TPOT are exactly what `size` reports for it.
#ifndef MODELCALC_PLAN_ENGINE_H_
#define MODELCALC_PLAN_ENGINE_H_

#include "modelcalc/deployment.h"
#include "modelcalc/model.h"
#include "modelcalc/plan.h"

namespace modelcalc {

// The engine's options for one candidate at the request's workload (context =
// isl + osl, prompt = isl, dp = 1: replicas are the search's).
DeploymentOptions plan_deployment_options(const PlanRequest& r, const PlanCandidate& c);

// The numbers the search needs from one engine evaluation. Pure, no allocation.
PlanPoint plan_point(const PreparedDeployment& d, int64_t batch, int64_t context, int64_t prompt);

// Fills the model's divisibility facts (heads, layers, experts) into `s`.
void set_plan_model(const ModelSpec& m, PlanSpace* s);

// check_plan + search_plan with the engine. A candidate the engine refuses
// (a split that does not divide, a dtype the GPU has no peak for) is counted in
// rejected.unsupported.
Result<PlanResult> plan_deployments(const ModelSpec& m, const PlanRequest& r, PlanSpace s);

}  // namespace modelcalc

#endif  // MODELCALC_PLAN_ENGINE_H_
