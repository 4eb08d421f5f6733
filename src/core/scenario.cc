#include "modelcalc/scenario.h"

#include <algorithm>

namespace modelcalc {

bool ScenarioChange::empty() const {
  return !weight_dtype && !compute_dtype && !kv_dtype && !batch && !context && !prompt_tokens && !split && !gpu &&
         !reserve_fraction && !kv_heads && !engine && !spec;
}

Scenario vary(const Scenario& s, const ScenarioChange& c) {
  Scenario v = s;
  DeploymentOptions& o = v.options;
  if (c.weight_dtype) o.weight_dtype = *c.weight_dtype;
  if (c.compute_dtype) o.compute_dtype = *c.compute_dtype;
  if (c.kv_dtype) o.kv_dtype = *c.kv_dtype;
  if (c.batch) o.batch = *c.batch;
  if (c.context) o.context = *c.context;
  if (c.prompt_tokens) o.prompt_tokens = *c.prompt_tokens;
  if (c.split) o.split = *c.split;
  if (c.gpu) v.gpu = *c.gpu;
  if (c.reserve_fraction) o.reserve_fraction = *c.reserve_fraction;
  if (c.kv_heads) v.model.n_head_kv = *c.kv_heads;
  if (c.spec) o.spec = *c.spec;
  if (c.engine) {
    if (!v.engine) v.engine = ScenarioEngine{};
    v.engine->engine = *c.engine;
  }
  return v;
}

Result<DeploymentAnalysis> evaluate_scenario(const Scenario& s) {
  return analyze_deployment_full(s.model, s.gpu, s.options);
}

Result<Variation> evaluate_variation(const Scenario& base, const ScenarioChange& change) {
  Variation v{change, vary(base, change), {}, std::nullopt};
  MC_ASSIGN_OR_RETURN(v.after, evaluate_scenario(v.scenario));
  if (const auto& e = v.scenario.engine) {
    auto p = predict_deployment(v.scenario.model, v.scenario.gpu, v.after, e->engine, e->flags, e->workload);
    if (p.ok()) v.predicted = *std::move(p);
  }
  return v;
}

int64_t smallest_valid_tp(const Scenario& s, int64_t at_least, int64_t at_most) {
  Scenario t = s;
  for (int64_t tp = std::max<int64_t>(1, at_least); tp <= at_most; ++tp) {
    t.options.split.tp = tp;
    if (prepare_deployment(t.model, t.gpu, t.options).ok()) return tp;
  }
  return 0;
}

int64_t max_batch(const Scenario& s) {
  auto a = evaluate_scenario(s);
  return a.ok() ? a->result.memory.max_sequences : 0;
}

Result<ServingRegimeAnswer> serving_regime(const Scenario& s) {
  MC_ASSIGN_OR_RETURN(const DeploymentAnalysis base, evaluate_scenario(s));
  ServingRegimeAnswer a;
  a.max_sequences = base.result.memory.max_sequences;
  a.compute_bound_batch = base.compute_bound_batch;
  if (a.max_sequences <= 0) return a;  // the weights do not fit: capacity-bound
  ScenarioChange at_full;
  at_full.batch = a.max_sequences;
  MC_ASSIGN_OR_RETURN(a.full, evaluate_scenario(vary(s, at_full)));
  const DeploymentRegime at = a.full->result.decode.regime;
  a.regime = at == DeploymentRegime::kBandwidthBound ? DeploymentRegime::kCapacityBound : at;
  return a;
}

}  // namespace modelcalc
