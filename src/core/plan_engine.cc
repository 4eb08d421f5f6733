#include "modelcalc/plan_engine.h"
#include "plan_search.h"

#include "modelcalc/engine_rules.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

namespace modelcalc {

DeploymentOptions plan_deployment_options(const PlanRequest& r, const PlanCandidate& c) {
  DeploymentOptions o;
  o.split.tp = c.tp;
  o.split.pp = c.pp;
  o.split.ep = c.ep;
  o.split.dp = 1;
  o.split.attn_dp = c.attn_dp;
  o.split.dp_attention = c.attn_dp > 1;
  o.two_batch_overlap = r.two_batch_overlap && c.attn_dp > 1;
  o.expert_imbalance = c.ep > 1 ? r.expert_imbalance : 1.0;
  o.spec = r.spec;
  o.prefix = r.prefix;
  o.weight_dtype = c.weight_dtype;
  o.kv_dtype = c.kv_dtype;
  o.context = r.isl + r.osl;
  o.batch = 1;
  o.prompt_tokens = r.isl;
  return o;
}

Result<PlanPrepared> prepare_serving(const ModelSpec& m, const GpuSpec& gpu, const DeploymentOptions& o, const EngineRelease& engine,
                                     const EngineFlags& flags, int64_t isl, int64_t osl) {
  PlanPrepared p;
  MC_ASSIGN_OR_RETURN(p.d, prepare_deployment(m, gpu, o));
  p.ceiling_memory = evaluate_deployment(p.d, 1, isl + osl, isl).memory;
  MC_ASSIGN_OR_RETURN(p.settings, resolve_engine_settings(engine, flags, m, gpu, p.d, EngineWorkload{isl, osl}));
  p.engine_d = engine_view(p.d, p.settings);
  p.engine_memory = engine_memory(p.engine_d, p.settings);
  p.ceiling_cap = ceiling_capacity(p.d, p.ceiling_memory, isl, osl);
  p.engine_cap = engine_capacity(p.engine_memory, p.settings, isl, osl, o.prefix.shared_tokens);
  p.params = engine_profile(engine).time;
  return p;
}

Result<PlanPrepared> prepare_plan_candidate(const ModelSpec& m, const PlanRequest& r, const GpuSpec& gpu,
                                            const PlanCandidate& c) {
  const std::optional<EngineRelease> engine = engine_for(r.engine, gpu);
  if (!engine) return Status::NotFound("engine: " + std::string(default_engine_for(gpu).why));
  return prepare_serving(m, gpu, plan_deployment_options(r, c), *engine, plan_engine_flags(r, engine->engine()), r.isl,
                         r.osl);
}

EngineFlags plan_engine_flags(const PlanRequest& r, Engine e) { return engine_flags_for(r.engine, r.engine_flags, e); }

namespace {

// What would have to change for each closest miss, where it is a change of the setup: the engine on
// the miss's scenario varied (no arithmetic of plan's own), as `size` reports it for the same flags.
// REQUIRES: every miss's engine set (misses come from the predicted search).
void evaluate_miss_changes(const ModelSpec& m, const PlanRequest& r, const PlanSpace& s, PlanResult* res) {
  for (PlanMiss& miss : res->misses) {
    const PlanConfig& c = miss.config;
    const EngineRelease engine = *c.engine;
    DeploymentOptions o = plan_deployment_options(r, c.c);
    o.batch = c.batch;
    const Scenario base{m, s.gpus[c.c.gpu].gpu, o,
                        ScenarioEngine{engine, plan_engine_flags(r, engine.engine()), EngineWorkload{r.isl, r.osl}}};
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
            if (e.ok() && e->after.result.memory.max_sequences >= c.batch &&
                check_engine_rules(engine.engine(), m, base.gpu, e->after.prepared).ok()) {
              v = t;
            }
          }
          if (!v.split) continue;
          break;
        case PlanChangeKind::kTtftTarget:
        case PlanChangeKind::kTpotTarget:
        case PlanChangeKind::kGpuLimit: continue;  // a change of the targets, not of the setup
        case PlanChangeKind::kStepTokens:
        case PlanChangeKind::kMaxNumSeqs: continue;  // an engine flag: its value is the change (no scenario field)
      }
      if (auto e = evaluate_variation(base, v); e.ok()) ch.variation = *std::move(e);
    }
  }
}

PlanPoint point_of(const ServingFigures& f, const ServingCapacity& c, double groups, bool closed_loop) {
  PlanPoint p;
  const double cap = std::floor(f.capacity_sequences);
  p.max_sequences = f.fits && cap < 9e18 ? static_cast<int64_t>(cap) : 0;
  p.limit.kind = f.limit;
  p.limit.capacity = f.capacity_sequences;
  p.limit.step_tokens = static_cast<int64_t>(c.step_tokens);
  p.limit.max_num_seqs = static_cast<int64_t>(c.max_num_seqs);
  // serve() caps the batch at step_tokens x groups / (tokens a sequence brings): invert it.
  if (f.limit == BatchLimit::kStepTokens && f.capacity_sequences > 0) {
    p.limit.tokens_per_sequence = c.step_tokens * groups / f.capacity_sequences;
  }
  p.ttft_s = f.ttft_s;
  p.tpot_s = f.tpot_s;
  p.comm_s = f.step.comm_s;
  // A closed loop's rate is Little's law's (some users wait on their prompts, not decoding).
  p.tokens_per_s = !f.fits ? 0 : closed_loop ? f.output_tokens_per_s : f.batch / f.tpot_s;
  // The prompt tokens' share of each step's tokens: what $/1M input tokens is charged.
  p.prefill_share = f.prefill_tokens_per_step / (f.prefill_tokens_per_step + f.batch);
  return p;
}

}  // namespace

PlanPoints plan_points(const PlanPrepared& p, int64_t batch, int64_t isl, int64_t osl, double users) {
  const bool loop = users > 0;
  const ServingRequest req{isl, osl, loop ? ServingLoad::kConcurrency : ServingLoad::kBatch,
                           loop ? users : static_cast<double>(batch)};
  PlanPoints out;
  out.ceiling = point_of(serve(p.d, p.ceiling_cap, p.params, true, req), p.ceiling_cap, p.d.attn_dp, loop);
  out.predicted =
      point_of(serve(p.engine_d, p.engine_cap, p.params, false, req), p.engine_cap, p.engine_d.attn_dp, loop);
  return out;
}

void set_plan_model(const ModelSpec& m, PlanSpace* s) {
  s->n_head = m.n_head;
  s->n_layer = m.n_layer;
  s->n_expert = m.n_expert;
}

namespace {

// Counts a refusal under its rule's name, the rules in table order.
void tally_refusal(const EngineRefusal& x, std::vector<std::pair<std::string, int64_t>>* out) {
  for (auto& [name, n] : *out) {
    if (name == x.rule->name) {
      ++n;
      return;
    }
  }
  out->emplace_back(std::string(x.rule->name), 1);
  const auto rank = [](const std::string& name) {
    const auto rules = engine_rules();
    for (size_t i = 0; i < rules.size(); ++i) {
      if (rules[i].name == name) return i;
    }
    return rules.size();
  };
  std::stable_sort(out->begin(), out->end(), [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
}

}  // namespace

Result<PlanPrepared> prepare_searched_candidate(const ModelSpec& m, const PlanRequest& r, const PlanSpace& s,
                                                const PlanCandidate& c,
                                                std::vector<std::pair<std::string, int64_t>>* refusals,
                                                bool ceiling_only) {
  const GpuSpec& gpu = s.gpus[c.gpu].gpu;
  // Each GPU is one search's: the predicted one where a profile runs on it, else the ceiling's (NotFound:
  // not counted by the other).
  const bool has_engine = engine_for(r.engine, gpu).has_value();
  if (ceiling_only && has_engine) return Status::NotFound("engine: " + gpu.key + " is ranked by its prediction");
  if (!ceiling_only && !has_engine) return Status::NotFound("engine: " + std::string(default_engine_for(gpu).why));
  const Dtype compute = default_compute_dtype(c.weight_dtype, gpu);
  if (!(gpu.peak_flops(compute) > 0)) {
    return Status::InvalidArgument("compute_dtype", gpu.key + " has no " + std::string(dtype_name(compute)) +
                                                        " peak in the catalog");
  }
  // The ceiling alone: a stand-in release (its defaults, no flags) fills the engine half nothing reads.
  MC_ASSIGN_OR_RETURN(PlanPrepared p, ceiling_only ? prepare_serving(m, gpu, plan_deployment_options(r, c),
                                                                     kDefaultEngine, EngineFlags{}, r.isl, r.osl)
                                                   : prepare_plan_candidate(m, r, gpu, c));
  const int64_t max_batch = *std::max_element(s.batches.begin(), s.batches.end());
  MC_RETURN_IF_ERROR(check_workload(p.d, max_batch, r.isl + r.osl, r.isl));
  if (ceiling_only) return p;
  // A layout the engine refuses to load is never proposed (engine_rules.h).
  const Engine engine = p.settings.engine;
  if (const auto x = engine_refusal(engine, m, gpu, p.d)) {
    if (refusals != nullptr) tally_refusal(*x, refusals);
    return Status::InvalidArgument(x->rule->field, engine_refusal_message(engine, *x));
  }
  return p;
}

Result<PlanResult> plan_deployments(const ModelSpec& m, const PlanRequest& r, PlanSpace s) {
  set_plan_model(m, &s);
  MC_RETURN_IF_ERROR(check_plan(r, s));
  // The flags configure the engine each GPU runs (the one named, else its vendor's).
  std::vector<const GpuSpec*> gpus;
  std::vector<std::string> no_engine;
  for (const PlanGpu& g : s.gpus) {
    gpus.push_back(&g.gpu);
    if (!engine_for(r.engine, g.gpu)) no_engine.push_back(g.gpu.key);
  }
  MC_RETURN_IF_ERROR(check_engine_flags_over(r.engine, r.engine_flags, m, gpus));
  MC_RETURN_IF_ERROR(check_layout_options(m, plan_deployment_options(r, PlanCandidate{})));
  std::vector<std::pair<std::string, int64_t>> refusals;
  auto prepare = [&](const PlanCandidate& c) { return prepare_searched_candidate(m, r, s, c, &refusals); };
  // Under a concurrency C, `batch` is the slots a replica offers: ceil(C / batch) replicas share the
  // users, each running its share in a closed loop.
  auto evaluate = [&](const PlanPrepared& p, int64_t batch, int64_t, int64_t) {
    const double users = r.load_kind == PlanLoadKind::kConcurrency ? plan_users_per_replica(r, batch) : 0.0;
    return plan_points(p, batch, r.isl, r.osl, users);
  };
  PlanResult res = search_plan(r, s, prepare, evaluate);
  if (s.control != nullptr) MC_RETURN_IF_ERROR(s.control->status());
  res.rejected.by_engine_rule = std::move(refusals);
  evaluate_miss_changes(m, r, s, &res);
  if (!no_engine.empty()) {
    // The GPUs no profile runs on, apart: the same search ranked by the ceiling, its prediction dropped.
    PlanRequest rc = r;
    rc.rank_by_ceiling = true;
    auto prepare_ceiling = [&](const PlanCandidate& c) {
      return prepare_searched_candidate(m, rc, s, c, nullptr, true);
    };
    PlanResult apart = search_plan(rc, s, prepare_ceiling, evaluate);
    if (s.control != nullptr) MC_RETURN_IF_ERROR(s.control->status());
    for (PlanConfig& c : apart.configs) c.has_figures = false;
    res.ceiling_only = std::move(apart.configs);
    // Their frontier is the ceiling's alone.
    for (PlanFrontierPoint& f : apart.frontier) {
      if (f.ceiling) res.frontier.push_back(std::move(f));
    }
  }
  res.rejected.no_engine = std::move(no_engine);
  return res;
}

}  // namespace modelcalc
