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

Result<PlanPrepared> prepare_serving(const ModelSpec& m, const GpuSpec& gpu, const DeploymentOptions& o, Engine engine,
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
  return prepare_serving(m, gpu, plan_deployment_options(r, c), r.engine, r.engine_flags, r.isl, r.osl);
}

namespace {

// What would have to change for each closest miss, where it is a change of the setup: the engine on
// the miss's scenario varied (no arithmetic of plan's own), as `size` reports it for the same flags.
void evaluate_miss_changes(const ModelSpec& m, const PlanRequest& r, const PlanSpace& s, PlanResult* res) {
  for (PlanMiss& miss : res->misses) {
    const PlanConfig& c = miss.config;
    DeploymentOptions o = plan_deployment_options(r, c.c);
    o.batch = c.batch;
    const Scenario base{m, s.gpus[c.c.gpu].gpu, o,
                        ScenarioEngine{r.engine, r.engine_flags, EngineWorkload{r.isl, r.osl}}};
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
                check_engine_rules(r.engine, m, base.gpu, e->after.prepared).ok()) {
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

PlanPoint point_of(const ServingFigures& f, const ServingCapacity& c, double groups) {
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
  p.tokens_per_s = f.fits ? f.batch / f.tpot_s : 0;
  // The prompt tokens' share of each step's tokens: what $/1M input tokens is charged.
  p.prefill_share = f.prefill_tokens_per_step / (f.prefill_tokens_per_step + f.batch);
  return p;
}

}  // namespace

PlanPoints plan_points(const PlanPrepared& p, int64_t batch, int64_t isl, int64_t osl) {
  const ServingRequest req{isl, osl, ServingLoad::kBatch, static_cast<double>(batch)};
  PlanPoints out;
  out.ceiling = point_of(serve(p.d, p.ceiling_cap, p.params, true, req), p.ceiling_cap, p.d.attn_dp);
  out.predicted = point_of(serve(p.engine_d, p.engine_cap, p.params, false, req), p.engine_cap, p.engine_d.attn_dp);
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
                                                std::vector<std::pair<std::string, int64_t>>* refusals) {
  const GpuSpec& gpu = s.gpus[c.gpu].gpu;
  const Dtype compute = default_compute_dtype(c.weight_dtype, gpu);
  if (!(gpu.peak_flops(compute) > 0)) {
    return Status::InvalidArgument("compute_dtype", gpu.key + " has no " + std::string(dtype_name(compute)) +
                                                        " peak in the catalog");
  }
  MC_ASSIGN_OR_RETURN(PlanPrepared p, prepare_plan_candidate(m, r, gpu, c));
  const int64_t max_batch = *std::max_element(s.batches.begin(), s.batches.end());
  MC_RETURN_IF_ERROR(check_workload(p.d, max_batch, r.isl + r.osl, r.isl));
  // A layout the engine refuses to load is never proposed (engine_rules.h).
  if (const auto x = engine_refusal(r.engine, m, gpu, p.d)) {
    if (refusals != nullptr) tally_refusal(*x, refusals);
    return Status::InvalidArgument(x->rule->field, engine_refusal_message(r.engine, *x));
  }
  return p;
}

Result<PlanResult> plan_deployments(const ModelSpec& m, const PlanRequest& r, PlanSpace s) {
  set_plan_model(m, &s);
  MC_RETURN_IF_ERROR(check_plan(r, s));
  MC_RETURN_IF_ERROR(check_engine_flags(r.engine, r.engine_flags, m));
  MC_RETURN_IF_ERROR(check_layout_options(m, plan_deployment_options(r, PlanCandidate{})));
  std::vector<std::pair<std::string, int64_t>> refusals;
  auto prepare = [&](const PlanCandidate& c) { return prepare_searched_candidate(m, r, s, c, &refusals); };
  auto evaluate = [&](const PlanPrepared& p, int64_t batch, int64_t, int64_t) {
    return plan_points(p, batch, r.isl, r.osl);
  };
  PlanResult res = search_plan(r, s, prepare, evaluate);
  res.rejected.by_engine_rule = std::move(refusals);
  evaluate_miss_changes(m, r, s, &res);
  return res;
}

namespace {

struct PoolOption {
  size_t cand = 0;
  int64_t batch = 0;
  double rate = 0;        // requests/s per replica (the ranked figures)
  double ttft_s = 0;      // prefill: saturated TTFT (a prompt waits for its step)
  double tpot_s = 0;      // decode
  double usd_per_replica_hour = 0;
};

}  // namespace

Result<DisaggPlanResult> plan_disaggregated(const ModelSpec& m, const PlanRequest& r, PlanSpace s) {
  const auto start = std::chrono::steady_clock::now();
  DisaggPlanResult out;
  MC_ASSIGN_OR_RETURN(out.aggregated, plan_deployments(m, r, s));
  set_plan_model(m, &s);
  const std::vector<PlanCandidate> cands = enumerate_plan_candidates(s);
  const bool ceiling = r.rank_by_ceiling;
  const double eff = r.efficiency;
  std::vector<std::optional<PlanPrepared>> prepared(cands.size());
  std::vector<PoolOption> prefill, decode;
  int64_t tpot_misses = 0;
  for (size_t i = 0; i < cands.size(); ++i) {
    auto p = prepare_searched_candidate(m, r, s, cands[i]);
    if (!p.ok()) continue;
    prepared[i].emplace(std::move(p).value());
    const PlanPrepared& pp = *prepared[i];
    const PreparedDeployment& d = ceiling ? pp.d : pp.engine_d;
    const ServingCapacity& cap = ceiling ? pp.ceiling_cap : pp.engine_cap;
    const double price = s.gpus[cands[i].gpu].usd_per_hour * static_cast<double>(cands[i].gpus_per_replica());
    ServingRequest rq{r.isl, r.osl, ServingLoad::kSaturated, 0, ServingPhase::kPrefillOnly};
    const ServingFigures pf = serve(d, cap, pp.params, ceiling, rq);
    ++out.searched;
    if (pf.fits && pf.requests_per_s > 0) {
      prefill.push_back({i, static_cast<int64_t>(pf.batch), pf.requests_per_s * eff, pf.ttft_s / eff, 0, price});
    }
    rq.phase = ServingPhase::kDecodeOnly;
    rq.load = ServingLoad::kBatch;
    for (int64_t b : s.batches) {
      // A decode replica never runs more sequences than the load has (sorted: no larger batch either).
      if (r.load_kind == PlanLoadKind::kConcurrency && static_cast<double>(b) > r.load) break;
      rq.value = static_cast<double>(b);
      const ServingFigures df = serve(d, cap, pp.params, ceiling, rq);
      ++out.searched;
      if (!df.fits || static_cast<double>(b) > df.capacity_sequences) {
        break;  // larger batches do not fit either
      }
      if (r.tpot_s && df.tpot_s / eff > *r.tpot_s) {
        ++tpot_misses;
        break;  // the step grows with the batch
      }
      decode.push_back({i, b, df.requests_per_s * eff, 0, df.tpot_s / eff, price});
    }
  }
  out.prefill_options = static_cast<int64_t>(prefill.size());
  out.decode_options = static_cast<int64_t>(decode.size());
  // The cheapest options first: by cost per request/s.
  const auto per_rate = [](const PoolOption& o) { return o.usd_per_replica_hour / o.rate; };
  std::sort(prefill.begin(), prefill.end(), [&](const PoolOption& a, const PoolOption& b) { return per_rate(a) < per_rate(b); });
  std::sort(decode.begin(), decode.end(), [&](const PoolOption& a, const PoolOption& b) { return per_rate(a) < per_rate(b); });
  // The load in requests/s, when one is given.
  std::optional<double> load;
  if (r.load_kind == PlanLoadKind::kRequestsPerS) load = r.load;
  if (r.load_kind == PlanLoadKind::kOutputTokensPerS) load = r.load / static_cast<double>(r.osl);
  const size_t kTop = 24;  // pool options paired, each side (sorted: the cheap ones decide)
  std::vector<DisaggPlanConfig> found;
  int64_t ttft_misses = 0, gpu_misses = 0;
  for (size_t a = 0; a < prefill.size() && a < kTop; ++a) {
    const PoolOption& po = prefill[a];
    const PlanPrepared& pp = *prepared[po.cand];
    for (size_t b = 0, paired = 0; b < decode.size() && paired < kTop; ++b) {
      const PoolOption& dco = decode[b];
      if (cands[dco.cand].kv_dtype != cands[po.cand].kv_dtype) continue;
      ++paired;
      const PlanPrepared& dp = *prepared[dco.cand];
      // Replicas: by the load, else sized to each other.
      double x = 0, y = 0;
      if (r.load_kind == PlanLoadKind::kConcurrency) {
        y = std::ceil(r.load / static_cast<double>(dco.batch) * (1 - 1e-12));
        x = std::ceil(y * dco.rate / po.rate * (1 - 1e-12));
      } else if (load) {
        x = std::ceil(*load / po.rate * (1 - 1e-12));
        y = std::ceil(*load / dco.rate * (1 - 1e-12));
      } else {
        double best = 0;
        for (double yy = 1; yy <= 64; ++yy) {
          const double xx = std::ceil(yy * dco.rate / po.rate * (1 - 1e-12));
          const double cost = (xx * po.usd_per_replica_hour + yy * dco.usd_per_replica_hour) /
                              std::min(xx * po.rate, yy * dco.rate);
          if (best == 0 || cost < best * (1 - 1e-9)) {
            best = cost;
            x = xx;
            y = yy;
          }
        }
      }
      x = std::max(1.0, x);
      y = std::max(1.0, y);
      // The pools at x prefill and y decode replicas: TTFT (queue, prefill, the KV's share) from the prefill pool.
      const auto pools = [&](bool ceil_set, double xr) {
        const DisaggregatedPool P{ceil_set ? &pp.d : &pp.engine_d, ceil_set ? pp.ceiling_cap : pp.engine_cap, xr};
        const DisaggregatedPool D{ceil_set ? &dp.d : &dp.engine_d, ceil_set ? dp.ceiling_cap : dp.engine_cap, y};
        ServingRequest rq{r.isl, r.osl, ServingLoad::kSaturated, 0};
        if (load) {
          rq.load = ServingLoad::kRequestsPerS;
          rq.value = *load;
        }
        return serve_disaggregated(P, D, pp.params, ceil_set, rq, r.kv_transfer_overlap);
      };
      // The fewest prefill replicas whose TTFT meets the target.
      DisaggregatedFigures f = pools(ceiling, x);
      while (load && r.ttft_s && f.ttft_s / eff > *r.ttft_s && x < 4 * std::ceil(*load / po.rate) + 4) {
        x += 1;
        f = pools(ceiling, x);
      }
      ++out.searched;
      if (r.ttft_s && !(f.ttft_s / eff <= *r.ttft_s)) {
        ++ttft_misses;
        continue;
      }
      DisaggPlanConfig c;
      auto pool = [&](const PoolOption& o, double replicas, PlanPool* pl) {
        pl->c = cands[o.cand];
        pl->gpu = s.gpus[cands[o.cand].gpu].gpu.key;
        pl->replicas = static_cast<int64_t>(replicas);
        pl->gpus = pl->replicas * pl->c.gpus_per_replica();
        pl->batch = o.batch;
        pl->requests_per_s_per_replica = o.rate;
        pl->usd_per_hour = replicas * o.usd_per_replica_hour;
      };
      pool(po, x, &c.prefill);
      pool(dco, y, &c.decode);
      c.prefill.ttft_s = f.prefill.ttft_s / eff;
      c.decode.tpot_s = dco.tpot_s;
      c.kv_bytes_per_request = f.transfer.bytes;
      c.kv_transfer_s = f.transfer.seconds;
      c.kv_transfer_ttft_s = f.transfer.ttft_seconds;
      c.kv_transfer_overlapped = f.transfer.overlapped;
      c.ttft_s = f.ttft_s / eff;
      c.tpot_s = dco.tpot_s;
      if (ceiling) {
        c.ceiling_ttft_s = c.ttft_s;
        c.ceiling_tpot_s = c.tpot_s;
      } else {
        // The ceiling's for the same pools: the decode pool at the batch searched, whatever the load.
        c.ceiling_ttft_s = pools(true, x).ttft_s;
        const ServingRequest rd{r.isl, r.osl, ServingLoad::kBatch, static_cast<double>(dco.batch),
                                ServingPhase::kDecodeOnly};
        c.ceiling_tpot_s = serve(dp.d, dp.ceiling_cap, dp.params, true, rd).tpot_s;
      }
      c.served_requests_per_s = load ? *load : std::min(x * po.rate, y * dco.rate);
      c.served_output_tokens_per_s = c.served_requests_per_s * static_cast<double>(r.osl);
      c.prefill.tokens_per_s_per_gpu = c.served_requests_per_s * static_cast<double>(r.isl) /
                                       static_cast<double>(c.prefill.gpus);
      c.decode.tokens_per_s_per_gpu = c.served_output_tokens_per_s / static_cast<double>(c.decode.gpus);
      c.gpus = c.prefill.gpus + c.decode.gpus;
      if (c.gpus > s.max_gpus) {
        ++gpu_misses;
        continue;
      }
      c.usd_per_hour = c.prefill.usd_per_hour + c.decode.usd_per_hour;
      const double out_h = c.served_output_tokens_per_s * 3600, in_h = c.served_requests_per_s * static_cast<double>(r.isl) * 3600;
      c.usd_per_million_output = c.usd_per_hour / out_h * 1e6;
      c.usd_per_million_input = c.prefill.usd_per_hour / in_h * 1e6;
      c.usd_per_million_blended = c.usd_per_hour / (out_h + in_h) * 1e6;
      found.push_back(std::move(c));
    }
  }
  std::sort(found.begin(), found.end(), [](const DisaggPlanConfig& a, const DisaggPlanConfig& b) {
    // Costs within a part in 10^9 are equal (the same GPUs at the same rate, summed in another order).
    const double ca = a.usd_per_million_output, cb = b.usd_per_million_output;
    if (std::fabs(ca - cb) > 1e-9 * std::max(ca, cb)) return ca < cb;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    // Equal cost and size: the faster first (TPOT, then TTFT).
    if (a.tpot_s != b.tpot_s) return a.tpot_s < b.tpot_s;
    return a.ttft_s < b.ttft_s;
  });
  if (found.size() > s.top) found.resize(s.top);
  out.configs = std::move(found);
  if (out.configs.empty()) {
    out.binding = decode.empty() ? (tpot_misses > 0 ? "tpot" : "memory")
                  : prefill.empty() ? "memory"
                  : ttft_misses > 0 ? "ttft"
                  : gpu_misses > 0  ? "gpus"
                                    : "memory";
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace modelcalc
