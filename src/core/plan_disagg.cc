// plan --disaggregated (plan_engine.h): prefill pool options (each candidate at every searched count of prompts
// per step), decode pool options (each candidate at every searched batch), and the cheapest pairs that meet the
// targets at the load.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "modelcalc/plan_engine.h"
#include "modelcalc/engine_rules.h"

namespace modelcalc {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct PoolOption {
  size_t cand = 0;
  int64_t batch = 0;      // prefill: prompts per step; decode: sequences
  double rate = 0;        // requests/s per replica (the ranked figures; prefill: its NICs' cap included)
  double ttft_s = 0;      // prefill: saturated TTFT (a prompt waits for its step)
  double tpot_s = 0;      // decode
  // What ranking charges a replica-hour: its US$, or its GPUs under PlanSpace::rank_by_gpu_hours.
  double rank_per_replica_hour = 0;
  double replicas = 0;    // prefill with a load and a TTFT target: the fewest meeting it (the transfer aside)
};

// Everything the pool search shares.
struct DisaggSearch {
  const PlanRequest& r;
  const PlanSpace& s;
  const std::vector<PlanCandidate>& cands;
  const std::vector<std::optional<PlanPrepared>>& prepared;
  std::optional<double> load;  // requests/s, when given (--qps, or --rate / osl)
  int64_t searched = 0;        // every evaluation of the serving model
  int64_t ttft_misses = 0, tpot_misses = 0, gpu_misses = 0;
};

// What ranking charges one replica of `c` per hour: its US$, or its GPU count under rank_by_gpu_hours.
double rank_per_replica_hour(const DisaggSearch& x, const PlanCandidate& c) {
  const double gpus = static_cast<double>(c.gpus_per_replica());
  return x.s.rank_by_gpu_hours ? gpus : x.s.gpus[c.gpu].usd_per_hour * gpus;
}

const PreparedDeployment& ranked_d(const DisaggSearch& x, const PlanPrepared& p) {
  return x.r.rank_by_ceiling ? p.d : p.engine_d;
}
const ServingCapacity& ranked_cap(const DisaggSearch& x, const PlanPrepared& p) {
  return x.r.rank_by_ceiling ? p.ceiling_cap : p.engine_cap;
}

// 1, 2, 4, ... below `most`, then `most`: the prompts per prefill step searched.
std::vector<double> prompt_counts(double most) {
  std::vector<double> out;
  for (double n = 1; n < most; n *= 2) out.push_back(n);
  out.push_back(most);
  return out;
}

// The prefill pool's TTFT (queue included) with the load split over `x` replicas of option `o`.
double prefill_ttft(DisaggSearch& x, const PoolOption& o, double replicas) {
  const PlanPrepared& p = *x.prepared[o.cand];
  ServingRequest rq{x.r.isl, x.r.osl, ServingLoad::kRequestsPerS, *x.load / replicas, ServingPhase::kPrefillOnly};
  rq.prompts_per_step = static_cast<double>(o.batch);
  ++x.searched;
  const ServingFigures f = serve(ranked_d(x, p), ranked_cap(x, p), p.params, x.r.rank_by_ceiling, rq);
  // Its NICs carry at most o.rate (x efficiency): beyond, the queue grows.
  if (!(*x.load / replicas < o.rate)) return kInf;
  return f.ttft_s / x.r.efficiency;
}

// The most replicas of `o` the GPU limit allows.
double pool_cap(const DisaggSearch& x, const PoolOption& o) {
  return std::floor(static_cast<double>(x.s.max_gpus) / static_cast<double>(x.cands[o.cand].gpus_per_replica()));
}

// The fewest replicas in [lo, cap] for which `meets` holds, or 0 if none: `meets` turns true and stays true as
// replicas are added (each takes a smaller share of the load). Doubling, then bisection.
template <typename Meets>
double fewest_replicas(double lo, double cap, Meets&& meets) {
  if (!(lo <= cap)) return 0;
  if (meets(lo)) return lo;
  double hi = lo;
  do {
    hi = std::min(cap, 2 * hi);
    if (meets(hi)) break;
    if (hi == cap) return 0;
  } while (true);
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (meets(mid) ? hi : lo) = mid;
  }
  return hi;
}

// The fewest replicas of `o` whose TTFT meets the target at the load (the KV transfer aside), or 0 if none
// within the GPU limit does.
double replicas_for_ttft(DisaggSearch& x, const PoolOption& o) {
  const double lo = std::max(1.0, std::floor(*x.load / o.rate * (1 + 1e-12)) + 1);  // the first stable count
  return fewest_replicas(lo, pool_cap(x, o), [&](double xr) { return prefill_ttft(x, o, xr) <= *x.r.ttft_s; });
}

// Every candidate as a prefill replica at each count of prompts per step that can meet the TTFT target at all
// (its TTFT with no queue), its rate capped by what its NICs carry away.
std::vector<PoolOption> prefill_options(DisaggSearch& x) {
  std::vector<PoolOption> out;
  const double eff = x.r.efficiency;
  for (size_t i = 0; i < x.cands.size(); ++i) {
    if (!x.prepared[i]) continue;
    const PlanPrepared& p = *x.prepared[i];
    const PreparedDeployment& d = ranked_d(x, p);
    const double price = rank_per_replica_hour(x, x.cands[i]);
    ServingRequest rq{x.r.isl, x.r.osl, ServingLoad::kSaturated, 0, ServingPhase::kPrefillOnly};
    ++x.searched;
    const ServingFigures most = serve(d, ranked_cap(x, p), p.params, x.r.rank_by_ceiling, rq);
    if (!most.fits || !(most.requests_per_s > 0)) continue;
    const double nic = prefill_nic_requests_per_s(d, x.r.isl);
    for (double n : prompt_counts(most.batch)) {
      rq.prompts_per_step = n;
      ++x.searched;
      const ServingFigures f = serve(d, ranked_cap(x, p), p.params, x.r.rank_by_ceiling, rq);
      PoolOption o{i, static_cast<int64_t>(n), std::min(f.requests_per_s, nic) * eff, f.ttft_s / eff, 0, price, 0};
      if (!(o.rate > 0)) continue;
      if (x.load && x.r.ttft_s) {
        o.replicas = replicas_for_ttft(x, o);
        if (o.replicas == 0) {
          ++x.ttft_misses;
          continue;
        }
      }
      out.push_back(o);
    }
  }
  return out;
}

// Every candidate as a decode replica at each searched batch, up to the first that does not fit or misses TPOT.
std::vector<PoolOption> decode_options(DisaggSearch& x) {
  std::vector<PoolOption> out;
  const double eff = x.r.efficiency;
  for (size_t i = 0; i < x.cands.size(); ++i) {
    if (!x.prepared[i]) continue;
    const PlanPrepared& p = *x.prepared[i];
    const double price = rank_per_replica_hour(x, x.cands[i]);
    ServingRequest rq{x.r.isl, x.r.osl, ServingLoad::kBatch, 0, ServingPhase::kDecodeOnly};
    for (int64_t b : x.s.batches) {
      // A decode replica never runs more sequences than the load has (sorted: no larger batch either).
      if (x.r.load_kind == PlanLoadKind::kConcurrency && static_cast<double>(b) > x.r.load) break;
      rq.value = static_cast<double>(b);
      ++x.searched;
      const ServingFigures f = serve(ranked_d(x, p), ranked_cap(x, p), p.params, x.r.rank_by_ceiling, rq);
      if (!f.fits || static_cast<double>(b) > f.capacity_sequences) break;  // larger batches do not fit either
      if (x.r.tpot_s && f.tpot_s / eff > *x.r.tpot_s) {
        ++x.tpot_misses;
        break;  // the step grows with the batch
      }
      out.push_back({i, b, f.requests_per_s * eff, 0, f.tpot_s / eff, price, 0});
    }
  }
  return out;
}

// The two pools at x prefill and y decode replicas, in one figure set.
DisaggregatedFigures pools(DisaggSearch& x, const PoolOption& po, const PoolOption& dco, bool ceil_set, double xr,
                           double yr) {
  const PlanPrepared& pp = *x.prepared[po.cand];
  const PlanPrepared& dp = *x.prepared[dco.cand];
  const DisaggregatedPool P{ceil_set ? &pp.d : &pp.engine_d, ceil_set ? pp.ceiling_cap : pp.engine_cap, xr};
  const DisaggregatedPool D{ceil_set ? &dp.d : &dp.engine_d, ceil_set ? dp.ceiling_cap : dp.engine_cap, yr};
  ServingRequest rq{x.r.isl, x.r.osl, ServingLoad::kSaturated, 0};
  rq.prompts_per_step = static_cast<double>(po.batch);
  if (x.load) {
    rq.load = ServingLoad::kRequestsPerS;
    rq.value = *x.load;
  }
  ++x.searched;
  return serve_disaggregated(P, D, pp.params, ceil_set, rq, x.r.kv_transfer_overlap);
}

// The replicas of each pool: by the load, else sized to each other (the y <= 64 with the lowest cost per
// request/s).
std::pair<double, double> pool_sizes(const DisaggSearch& x, const PoolOption& po, const PoolOption& dco) {
  double xr = 0, yr = 0;
  if (x.r.load_kind == PlanLoadKind::kConcurrency) {
    yr = std::ceil(x.r.load / static_cast<double>(dco.batch) * (1 - 1e-12));
    xr = std::ceil(yr * dco.rate / po.rate * (1 - 1e-12));
  } else if (x.load) {
    xr = std::max(po.replicas, std::ceil(*x.load / po.rate * (1 - 1e-12)));
    yr = std::ceil(*x.load / dco.rate * (1 - 1e-12));
  } else {
    double best = 0;
    for (double yy = 1; yy <= 64; ++yy) {
      const double xx = std::ceil(yy * dco.rate / po.rate * (1 - 1e-12));
      const double cost = (xx * po.rank_per_replica_hour + yy * dco.rank_per_replica_hour) /
                          std::min(xx * po.rate, yy * dco.rate);
      if (best == 0 || cost < best * (1 - 1e-9)) {
        best = cost;
        xr = xx;
        yr = yy;
      }
    }
  }
  return {std::max(1.0, xr), std::max(1.0, yr)};
}

void fill_pool(const DisaggSearch& x, const PoolOption& o, double replicas, PlanPool* pl) {
  pl->c = x.cands[o.cand];
  pl->gpu = x.s.gpus[pl->c.gpu].gpu.key;
  pl->engine = engine_for(x.r.engine, x.s.gpus[pl->c.gpu].gpu).value_or(kDefaultEngine);
  pl->replicas = static_cast<int64_t>(replicas);
  pl->gpus = pl->replicas * pl->c.gpus_per_replica();
  pl->batch = o.batch;
  pl->requests_per_s_per_replica = o.rate;
  pl->usd_per_hour = static_cast<double>(pl->gpus) * x.s.gpus[pl->c.gpu].usd_per_hour;
}

// One pair, sized and costed; nullopt when it misses TTFT or the GPU limit.
std::optional<DisaggPlanConfig> pair_config(DisaggSearch& x, const PoolOption& po, const PoolOption& dco) {
  const PlanRequest& r = x.r;
  const double eff = r.efficiency;
  auto [xr, yr] = pool_sizes(x, po, dco);
  // The fewest prefill replicas whose TTFT (queue, prefill, the KV's share) meets the target.
  DisaggregatedFigures f = pools(x, po, dco, r.rank_by_ceiling, xr, yr);
  if (x.load && r.ttft_s && !(f.ttft_s / eff <= *r.ttft_s)) {
    // yr by init-capture: clang (C++20 as it implements it) refuses a lambda naming a structured binding.
    xr = fewest_replicas(xr + 1, pool_cap(x, po), [&, decode_replicas = yr](double xx) {
      return pools(x, po, dco, r.rank_by_ceiling, xx, decode_replicas).ttft_s / eff <= *r.ttft_s;
    });
    if (xr > 0) f = pools(x, po, dco, r.rank_by_ceiling, xr, yr);
  }
  if (xr == 0 || (r.ttft_s && !(f.ttft_s / eff <= *r.ttft_s))) {
    ++x.ttft_misses;
    return std::nullopt;
  }
  DisaggPlanConfig c;
  fill_pool(x, po, xr, &c.prefill);
  fill_pool(x, dco, yr, &c.decode);
  c.gpus = c.prefill.gpus + c.decode.gpus;
  if (c.gpus > x.s.max_gpus) {
    ++x.gpu_misses;
    return std::nullopt;
  }
  c.prefill.ttft_s = f.prefill.ttft_s / eff;
  c.decode.tpot_s = dco.tpot_s;
  c.kv_bytes_per_request = f.transfer.bytes;
  c.kv_transfer_s = f.transfer.seconds;
  c.kv_transfer_ttft_s = f.transfer.ttft_seconds;
  c.kv_transfer_overlapped = f.transfer.overlapped;
  c.ttft_s = f.ttft_s / eff;
  c.tpot_s = dco.tpot_s;
  if (r.rank_by_ceiling) {
    c.ceiling_ttft_s = c.ttft_s;
    c.ceiling_tpot_s = c.tpot_s;
  } else {
    // The ceiling's for the same pools: the decode pool at the batch searched, whatever the load.
    c.ceiling_ttft_s = pools(x, po, dco, true, xr, yr).ttft_s;
    const PlanPrepared& dp = *x.prepared[dco.cand];
    const ServingRequest rd{r.isl, r.osl, ServingLoad::kBatch, static_cast<double>(dco.batch),
                            ServingPhase::kDecodeOnly};
    ++x.searched;
    c.ceiling_tpot_s = serve(dp.d, dp.ceiling_cap, dp.params, true, rd).tpot_s;
  }
  // What the pools serve: the load, never more than either pool carries (the prefill pool's NICs included).
  const double capacity = std::min(xr * po.rate, yr * dco.rate);
  c.served_requests_per_s = x.load ? std::min(*x.load, capacity) : capacity;
  c.served_output_tokens_per_s = c.served_requests_per_s * static_cast<double>(r.osl);
  const double in_per_s = c.served_requests_per_s * static_cast<double>(r.isl);
  c.prefill.tokens_per_s_per_gpu = in_per_s / static_cast<double>(c.prefill.gpus);
  c.decode.tokens_per_s_per_gpu = c.served_output_tokens_per_s / static_cast<double>(c.decode.gpus);
  c.usd_per_hour = c.prefill.usd_per_hour + c.decode.usd_per_hour;
  const double out_h = c.served_output_tokens_per_s * 3600, in_h = in_per_s * 3600;
  c.usd_per_million_output = c.usd_per_hour / out_h * 1e6;
  c.usd_per_million_input = c.prefill.usd_per_hour / in_h * 1e6;
  c.usd_per_million_blended = c.usd_per_hour / (out_h + in_h) * 1e6;
  c.gpu_hours_per_million_output = static_cast<double>(c.gpus) / out_h * 1e6;
  c.rank_cost = x.s.rank_by_gpu_hours ? c.gpu_hours_per_million_output : c.usd_per_million_output;
  return c;
}

// The prefill options in the order they are paired: by the cost of the pool the load needs (TTFT met), else by
// cost per request/s.
void sort_options(const DisaggSearch& x, std::vector<PoolOption>* prefill, std::vector<PoolOption>* decode) {
  const auto per_rate = [](const PoolOption& o) { return o.rank_per_replica_hour / o.rate; };
  const auto pool_cost = [&](const PoolOption& o) {
    return o.replicas > 0 ? o.replicas * o.rank_per_replica_hour / *x.load : per_rate(o);
  };
  std::stable_sort(prefill->begin(), prefill->end(),
                   [&](const PoolOption& a, const PoolOption& b) { return pool_cost(a) < pool_cost(b); });
  std::stable_sort(decode->begin(), decode->end(),
                   [&](const PoolOption& a, const PoolOption& b) { return per_rate(a) < per_rate(b); });
}

// The frontier of the pairs: every decode option with the cheapest prefill option (in sort_options' order) of
// its GPU kind, KV dtype and engine, sized as the search sizes a pair; the points no other of the GPU beats on
// both tokens/s per user and per GPU.
std::vector<PlanFrontierPoint> pair_frontier(DisaggSearch& x, const std::vector<PoolOption>& prefill,
                                             const std::vector<PoolOption>& decode) {
  std::vector<PlanFrontierPoint> points;
  for (const PoolOption& d : decode) {
    const PlanCandidate& dc = x.cands[d.cand];
    for (const PoolOption& p : prefill) {
      const PlanCandidate& pc = x.cands[p.cand];
      if (pc.gpu != dc.gpu || pc.kv_dtype != dc.kv_dtype ||
          !(x.prepared[d.cand]->settings.release == x.prepared[p.cand]->settings.release)) {
        continue;
      }
      auto c = pair_config(x, p, d);
      if (!c) break;  // the cheapest prefill option misses: the pair is not searched further
      PlanFrontierPoint f;
      f.gpu = x.s.gpus[dc.gpu].gpu.key;
      f.c = dc;
      f.batch = d.batch;
      f.tokens_per_s_per_user = 1 / c->tpot_s;
      f.tokens_per_s_per_gpu = c->served_output_tokens_per_s / static_cast<double>(c->gpus);
      f.ttft_s = c->ttft_s;
      f.tpot_s = c->tpot_s;
      f.usd_per_million_output = c->usd_per_million_output;
      f.gpu_hours_per_million_output = c->gpu_hours_per_million_output;
      f.tokens_per_s_per_mw = tokens_per_s_per_mw(x.s.gpus[dc.gpu].gpu, f.tokens_per_s_per_gpu);
      f.ceiling = x.r.rank_by_ceiling;
      f.disaggregated = true;
      f.prefill = pc;
      f.prefill_replicas = c->prefill.replicas;
      f.decode_replicas = c->decode.replicas;
      points.push_back(std::move(f));
      break;
    }
  }
  return merge_frontiers(std::move(points), {}, x.r.rank_by_ceiling);
}

}  // namespace

Result<DisaggPlanResult> plan_disaggregated(const ModelSpec& m, const PlanRequest& r, PlanSpace s) {
  const auto start = std::chrono::steady_clock::now();
  DisaggPlanResult out;
  MC_ASSIGN_OR_RETURN(out.aggregated, plan_deployments(m, r, s));
  set_plan_model(m, &s);
  const std::vector<PlanCandidate> cands = enumerate_plan_candidates(s);
  std::vector<std::optional<PlanPrepared>> prepared(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) {
    if (should_stop(s.control, {"pool candidates", static_cast<int64_t>(i), static_cast<int64_t>(cands.size())})) {
      return s.control->status();
    }
    if (auto p = prepare_searched_candidate(m, r, s, cands[i]); p.ok()) prepared[i].emplace(std::move(p).value());
  }
  DisaggSearch x{r, s, cands, prepared, std::nullopt};
  if (r.load_kind == PlanLoadKind::kRequestsPerS) x.load = r.load;
  if (r.load_kind == PlanLoadKind::kOutputTokensPerS) x.load = r.load / static_cast<double>(r.osl);
  std::vector<PoolOption> prefill = prefill_options(x);
  std::vector<PoolOption> decode = decode_options(x);
  out.prefill_options = static_cast<int64_t>(prefill.size());
  out.decode_options = static_cast<int64_t>(decode.size());
  sort_options(x, &prefill, &decode);
  const size_t kTop = 24;  // pool options paired, each side (sorted: the cheap ones decide)
  std::vector<DisaggPlanConfig> found;
  for (size_t a = 0; a < prefill.size() && a < kTop; ++a) {
    for (size_t b = 0, paired = 0; b < decode.size() && paired < kTop; ++b) {
      if (cands[decode[b].cand].kv_dtype != cands[prefill[a].cand].kv_dtype) continue;
      // One engine serves both pools (its step parameters time both: serve_disaggregated).
      if (!(x.prepared[decode[b].cand]->settings.release == x.prepared[prefill[a].cand]->settings.release)) continue;
      ++paired;
      if (auto c = pair_config(x, prefill[a], decode[b])) found.push_back(std::move(*c));
    }
  }
  if (s.disaggregated_frontier) out.frontier = pair_frontier(x, prefill, decode);
  std::sort(found.begin(), found.end(), [](const DisaggPlanConfig& a, const DisaggPlanConfig& b) {
    // Costs within a part in 10^9 are equal (the same GPUs at the same rate, summed in another order).
    const double ca = a.rank_cost, cb = b.rank_cost;
    if (std::fabs(ca - cb) > 1e-9 * std::max(ca, cb)) return ca < cb;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    // Equal cost and size: the faster first (TPOT, then TTFT).
    if (a.tpot_s != b.tpot_s) return a.tpot_s < b.tpot_s;
    return a.ttft_s < b.ttft_s;
  });
  if (found.size() > s.top) found.resize(s.top);
  out.configs = std::move(found);
  if (out.configs.empty()) {
    out.binding = decode.empty() ? (x.tpot_misses > 0 ? "tpot" : "memory")
                  : prefill.empty() ? (x.ttft_misses > 0 ? "ttft" : "memory")
                  : x.ttft_misses > 0 ? "ttft"
                  : x.gpu_misses > 0  ? "gpus"
                                      : "memory";
  }
  // Every evaluation: the aggregated search it is compared with, and the pools'.
  out.searched = out.aggregated.searched + x.searched;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace modelcalc
