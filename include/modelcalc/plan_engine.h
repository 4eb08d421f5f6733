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
// The flags a GPU running `e` takes: all of them when --engine named one, else less the other engines' own
// (flags_for).
EngineFlags plan_engine_flags(const PlanRequest& r, Engine e);
// The same for any options (a layout plan does not search, e.g. EPLB slots):
// the ceiling's deployment and the engine's view of it for requests of isl + osl.
Result<PlanPrepared> prepare_serving(const ModelSpec& m, const GpuSpec& gpu, const DeploymentOptions& o, const EngineRelease& engine,
                                     const EngineFlags& flags, int64_t isl, int64_t osl);

// One candidate as plan's searches prepare it: refused (an error naming the field) when the GPU has no peak
// for its compute dtype, the deployment engine refuses it or the largest batch searched, or the request's
// engine would not load it (check_engine_rules, engine_rules.h).
// `refusals`, when given, counts an engine refusal under its rule's name (PlanRejected::by_engine_rule).
// `ceiling_only`: the candidate is prepared only when no engine profile runs on its GPU (engine_for unset),
// its engine half filled by a stand-in nothing reads and no engine rule applied (PlanResult::ceiling_only).
Result<PlanPrepared> prepare_searched_candidate(const ModelSpec& m, const PlanRequest& r, const PlanSpace& s,
                                                const PlanCandidate& c,
                                                std::vector<std::pair<std::string, int64_t>>* refusals = nullptr,
                                                bool ceiling_only = false);

// Both figure sets at `batch` (serve() with ServingLoad::kBatch); or, when `users` > 0, of `users`
// in a closed loop on the replica (ServingLoad::kConcurrency: Little's law, users = rate x (TTFT +
// (osl - 1) x TPOT), the batch decoding below it while some users wait on their prompts). Pure, no
// allocation.
PlanPoints plan_points(const PlanPrepared& p, int64_t batch, int64_t isl, int64_t osl, double users = 0);

// Fills the model's divisibility facts (heads, layers, experts) into `s`.
void set_plan_model(const ModelSpec& m, PlanSpace* s);

// check_plan + search_plan with the engine. A candidate the engine refuses
// (a split that does not divide, a dtype the GPU has no peak for) is counted in
// rejected.unsupported.
Result<PlanResult> plan_deployments(const ModelSpec& m, const PlanRequest& r, PlanSpace s);

// ---------------------------------------------------------------- disaggregated
// plan --disaggregated: a prefill pool of x replicas and a decode pool of y
// replicas, each its own GPU kind, split and dtypes (the KV dtype shared), for
// the request shape, load and targets. Every candidate of the aggregated
// search is evaluated once as a prefill replica (serve() with
// ServingPhase::kPrefillOnly, saturated: requests/s R_p, and its TTFT at its
// share of the load) and per batch as a decode replica (kDecodeOnly at the
// batch: TPOT and requests/s R_d). With a load of L requests/s, x is the
// fewest replicas whose TTFT (queue + prefill + the KV transfer's share) meets
// the target and y = ceil(L / R_d); without one the pools are sized to each
// other: the smallest y <= 64 (and x = ceil(y R_d / R_p)) with the lowest cost
// per request. The pair is the cheapest per 1M output tokens; the best
// aggregated plan (plan_deployments) is returned beside it.
struct PlanPool {
  PlanCandidate c;
  std::string gpu;             // catalog key
  EngineRelease engine;        // the release its prediction uses (engine_for(request.engine, the GPU))
  int64_t replicas = 0, gpus = 0;  // gpus = replicas x c.gpus_per_replica()
  int64_t batch = 0;           // decode pool: sequences per replica; prefill pool: prompts per step
  double requests_per_s_per_replica = 0;
  double ttft_s = 0;           // prefill pool: its TTFT at its share of the load (queue included)
  double tpot_s = 0;           // decode pool: its step / accepted tokens
  double tokens_per_s_per_gpu = 0;  // prefill: input tokens; decode: output tokens
  double usd_per_hour = 0;          // NaN when the GPU has no price
};
struct DisaggPlanConfig {
  PlanPool prefill, decode;
  double kv_bytes_per_request = 0, kv_transfer_s = 0, kv_transfer_ttft_s = 0;
  bool kv_transfer_overlapped = false;
  double ttft_s = 0, tpot_s = 0;            // the ranked figures (prediction, or ceiling with rank_by_ceiling)
  double ceiling_ttft_s = 0, ceiling_tpot_s = 0;  // the ceiling's for the same pools
  double served_requests_per_s = 0, served_output_tokens_per_s = 0;
  int64_t gpus = 0;
  double usd_per_hour = 0, usd_per_million_output = 0, usd_per_million_input = 0, usd_per_million_blended = 0;
  double gpu_hours_per_million_output = 0;  // gpus / (served output tokens per hour) x 1e6
  double rank_cost = 0;  // usd_per_million_output, or the GPU-hours under PlanSpace::rank_by_gpu_hours
};
struct DisaggPlanResult {
  std::vector<DisaggPlanConfig> configs;  // meeting every target, cheapest per 1M output first (at most top)
  PlanResult aggregated;                  // the aggregated search, for the comparison
  int64_t prefill_options = 0, decode_options = 0;  // pool options that meet their own targets
  int64_t searched = 0;                   // evaluations
  std::string binding;                    // when nothing meets the targets: "ttft", "tpot", "memory" or "gpus"
  double seconds = 0;
  // With PlanSpace::disaggregated_frontier: the pairs' Pareto points per GPU kind (the ranked set's figures).
  std::vector<PlanFrontierPoint> frontier;
};
Result<DisaggPlanResult> plan_disaggregated(const ModelSpec& m, const PlanRequest& r, PlanSpace s);

}  // namespace modelcalc

#endif  // MODELCALC_PLAN_ENGINE_H_
