// A scenario -- this model on this deployment serving this workload -- and its
// variations. Every "what if" a command proposes (diagnose's fixes, kv-budget's
// proposals, plan's "what would have to change") is the deployment engine
// (modelcalc/deployment.h) evaluated on a varied scenario: there is no what-if
// arithmetic anywhere else, so a proposal's "after" is the figure `size` gives
// for the same flags.
//
//   Scenario base{model, gpu, options};
//   auto v = evaluate_variation(base, ScenarioChange{.weight_dtype = Dtype::kInt8});
//   v->after.result.decode.tokens_per_s_per_sequence  // == size ... --dtype int8
//
// A change names its fields as the flags that make it (`change` in JSON:
// {"dtype": "int8"}); a field left unset keeps the scenario's value. Adding a
// varied quantity (the engine profile is one) is one optional field here, one line
// in vary() and one in the JSON writer (src/report/deployment_report.cc
// change_fields).
#ifndef MODELCALC_SCENARIO_H_
#define MODELCALC_SCENARIO_H_

#include <cstdint>
#include <optional>

#include "modelcalc/deployment.h"
#include "modelcalc/dtype.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/serving.h"
#include "modelcalc/status.h"

namespace modelcalc {

// The serving engine whose prediction stands beside the ceiling (serving.h),
// with its flags and the request shape that sizes its limits.
struct ScenarioEngine {
  EngineRelease engine = kDefaultEngine;
  EngineFlags flags;
  EngineWorkload workload;
};

struct Scenario {
  ModelSpec model;             // validated (validate(model).ok())
  GpuSpec gpu;                 // one GPU of the kind the deployment uses
  DeploymentOptions options;   // split, dtypes, memory policy and workload (the ceiling)
  // The engine predicted beside it; unset: the ceiling alone.
  std::optional<ScenarioEngine> engine = std::nullopt;
};

// One change. Each set field replaces the scenario's; the rest stay as they
// are. The dtypes the scenario leaves to their defaults (options.compute_dtype
// and options.kv_dtype unset) follow a new weight dtype exactly as the flags
// do: `--dtype int8` alone keeps a 16-bit cache and bf16 matmuls.
struct ScenarioChange {
  std::optional<Dtype> weight_dtype;      // --dtype
  std::optional<Dtype> compute_dtype;     // --compute-dtype
  std::optional<Dtype> kv_dtype;          // --kv-dtype
  std::optional<int64_t> batch;           // --batch, sequences per replica
  std::optional<int64_t> context;         // --context (= --seq), tokens
  std::optional<int64_t> prompt_tokens;   // --prompt
  std::optional<Parallelism> split;       // --gpus --tp --pp --ep --dp, the whole split
  std::optional<GpuSpec> gpu;             // --gpu (its catalog key)
  std::optional<double> reserve_fraction; // --reserve
  std::optional<int64_t> kv_heads;        // --kv-heads: the same model retrained with this many KV heads
                                          // (GQA); K and V projections shrink with it
  std::optional<EngineRelease> engine;    // --engine: another serving engine's prediction (its flags kept)
  std::optional<SpeculativeDecoding> spec;  // --spec-method --spec-tokens --spec-acceptance (a draft not owned)
  // True when no field is set (the scenario itself).
  bool empty() const;
};

// The scenario with `change` applied. Pure; never fails (the engine judges the
// result when it is evaluated).
Scenario vary(const Scenario& s, const ScenarioChange& change);

// The engine on a scenario: analyze_deployment_full(model, gpu, options).
// Errors name the options field (tp, batch, context, ...) as the engine does.
Result<DeploymentAnalysis> evaluate_scenario(const Scenario& s);

// A proposal: the change, the varied scenario and the engine's answer for it.
struct Variation {
  ScenarioChange change;
  Scenario scenario;         // vary(base, change)
  DeploymentAnalysis after;  // evaluate_scenario(scenario): the ceiling
  // The serving engine's prediction for the varied scenario, when it has an
  // engine (predict_deployment on `after`); unset when the engine refuses it.
  std::optional<DeploymentPrediction> predicted;
};
Result<Variation> evaluate_variation(const Scenario& base, const ScenarioChange& change);

// The smallest tensor-parallel degree >= `at_least` (and <= `at_most`) the
// engine accepts for this scenario with pp, ep and dp as they are, or 0 if
// none: splits must divide the heads, KV heads and experts, so "3 GPUs" is
// often not a split. For "shard the weights" proposals.
int64_t smallest_valid_tp(const Scenario& s, int64_t at_least, int64_t at_most);

// The most sequences per replica the engine holds for this scenario
// (memory.max_sequences at options.context); 0 when the weights do not fit or
// the engine refuses the scenario.
int64_t max_batch(const Scenario& s);

// The serving regime of a scenario: the engine's regime at the largest batch
// HBM holds. capacity-bound when the weights do not fit, or when that batch is
// still below the compute-bound point (HBM, not FLOPs, stops batching from
// amortizing the weight read); compute-bound or communication-bound when that
// batch reaches them. `full` is the scenario evaluated at that batch (unset
// when nothing fits). REQUIRES: evaluate_scenario(s).ok().
struct ServingRegimeAnswer {
  DeploymentRegime regime = DeploymentRegime::kCapacityBound;
  int64_t max_sequences = 0;        // per replica, at the scenario's context
  int64_t compute_bound_batch = 0;  // 0: never, up to 2^30
  std::optional<DeploymentAnalysis> full;
};
Result<ServingRegimeAnswer> serving_regime(const Scenario& s);

}  // namespace modelcalc

#endif  // MODELCALC_SCENARIO_H_
