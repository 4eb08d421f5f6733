// Internal to the core: plan's search over any evaluator, a template so that
// the deployment engine (plan_engine.cc) and the tests' stand-ins share one
// search. Not installed; the public entry point is plan_deployments()
// (modelcalc/plan_engine.h).
#ifndef MODELCALC_PLAN_SEARCH_H_
#define MODELCALC_PLAN_SEARCH_H_

#include <array>
#include <chrono>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "modelcalc/plan.h"

namespace modelcalc {

// The search, over any evaluator: `prepare(const PlanCandidate&) -> Result<P>`
// and `evaluate(const P&, batch, context, prompt) -> PlanPoint`; a candidate prepare answers NotFound for is
// not this search's (a GPU searched apart) and is not counted as unsupported. REQUIRES
// check_plan(r, s).ok(); s.batches ascending. Returns early (a partial result)
// when s.control says stop; the caller then returns s.control->status(). plan_deployments() (plan_engine.h) runs it with the
// deployment engine; tests run it with stand-ins.
template <typename Prepare, typename Evaluate>
PlanResult search_plan(const PlanRequest& r, const PlanSpace& s, Prepare&& prepare, Evaluate&& evaluate);

// ---------------------------------------------------------------------------
// Implementation of the template (the rest lives in src/core/plan.cc).
namespace plan_detail {
struct FrontierRaw {
  size_t gpu, cand;
  int64_t batch;
  double user, per_gpu;
  double ttft_s, tpot_s, usd_per_million_output, gpu_hours_per_million_output;
  bool ceiling;  // the ceiling's set (else the ranked one of a stand-in, or the prediction)
};
// Of `sorted` (grouped by curve, each curve by tokens/s per user descending, ties by tokens/s per GPU
// descending), the indices of each curve's Pareto points: those with more tokens/s per GPU than every point
// before them on their curve. `same_curve(a, b)`: a and b on one curve; `per_gpu(a)`: a's tokens/s per GPU.
template <typename T, typename SameCurve, typename PerGpu>
std::vector<size_t> pareto_kept(const std::vector<T>& sorted, SameCurve same_curve, PerGpu per_gpu) {
  std::vector<size_t> kept;
  double best = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i == 0 || !same_curve(sorted[i - 1], sorted[i])) best = 0;
    if (!(per_gpu(sorted[i]) > best)) continue;
    best = per_gpu(sorted[i]);
    kept.push_back(i);
  }
  return kept;
}
// Finishes a search: ranks, frontier, deciding constraints, misses.
void finish(const PlanRequest& r, const PlanSpace& s, const std::vector<PlanCandidate>& cands,
            std::vector<PlanConfig>& best, const std::vector<PlanConfig>& next, const PlanConfig& cheapest,
            std::vector<FrontierRaw>& frontier, std::array<PlanConfig, 3>& misses, size_t n_misses,
            PlanResult* out);
// How far a rejected configuration is from meeting every target (1 = just).
double miss_distance(const PlanRequest& r, const PlanSpace& s, const PlanConfig& c);
}  // namespace plan_detail

template <typename Prepare, typename Evaluate>
PlanResult search_plan(const PlanRequest& r, const PlanSpace& s, Prepare&& prepare, Evaluate&& evaluate) {
  const auto start = std::chrono::steady_clock::now();
  PlanResult out;
  const std::vector<PlanCandidate> cands = enumerate_plan_candidates(s);
  using Prepared = std::decay_t<decltype(prepare(cands.front()).value())>;
  std::vector<std::optional<Prepared>> prepared(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) {
    if (should_stop(s.control, {"candidates", static_cast<int64_t>(i), static_cast<int64_t>(2 * cands.size())})) {
      return out;  // the caller returns s.control->status()
    }
    auto p = prepare(cands[i]);
    if (p.ok()) {
      prepared[i].emplace(std::move(p).value());
    } else if (p.status().code() != Status::Code::kNotFound) {  // NotFound: not this search's, not counted
      ++out.rejected.unsupported;
      if (out.first_unsupported.empty()) out.first_unsupported = p.status().message();
    }
  }
  // Everything the loop writes is allocated here.
  std::vector<PlanConfig> best(cands.size()), next(cands.size());
  PlanConfig cheapest;  // the cheapest rejected point whose weights fit
  std::vector<plan_detail::FrontierRaw> frontier;
  // + the largest batch that fits, + up to 31 bisection steps (batches are at most 2^30); both sets.
  frontier.reserve(2 * cands.size() * (s.batches.size() + 32));
  std::array<PlanConfig, 3> misses;
  std::array<double, 3> miss_d{};
  size_t n_misses = 0;
  const int64_t context = r.isl + r.osl;
  PlanConfig cfg, other;
  for (size_t i = 0; i < cands.size(); ++i) {
    if (should_stop(s.control, {"candidates", static_cast<int64_t>(cands.size() + i),
                                static_cast<int64_t>(2 * cands.size())})) {
      return out;
    }
    if (!prepared[i]) continue;
    const PlanCandidate& c = cands[i];
    const int64_t group = c.gpus_per_replica();
    // Evaluates one batch and records it everywhere; returns the engine's max_sequences.
    auto visit = [&](int64_t batch) -> int64_t {
      const auto points = evaluate(*prepared[i], batch, context, r.isl);
      PlanPoint p;
      if constexpr (std::is_same_v<std::decay_t<decltype(points)>, PlanPoints>) {
        p = r.rank_by_ceiling ? points.ceiling : points.predicted;
        // The other set, as modelled (efficiency 1), beside the ranked one.
        PlanRequest plain = r;
        plain.efficiency = 1;
        cost_plan_point(plain, s, c, batch, r.rank_by_ceiling ? points.predicted : points.ceiling, &other);
        cost_plan_point(r, s, c, batch, p, &cfg);
        cfg.has_figures = true;
        (r.rank_by_ceiling ? cfg.ceiling : cfg.predicted) = plan_figures(cfg);
        (r.rank_by_ceiling ? cfg.predicted : cfg.ceiling) = plan_figures(other);
      } else {
        p = points;
        cost_plan_point(r, s, c, batch, p, &cfg);
      }
      ++out.searched;
      const auto raw = [&](const PlanConfig& f, bool ceiling) {
        return plan_detail::FrontierRaw{c.gpu, i, batch, f.tokens_per_s_per_user,
                                        f.tokens_per_s_per_replica / static_cast<double>(group), f.ttft_s, f.tpot_s,
                                        f.usd_per_million_output, f.gpu_hours_per_million_output, ceiling};
      };
      if (batch <= p.max_sequences) frontier.push_back(raw(cfg, r.rank_by_ceiling));
      if constexpr (std::is_same_v<std::decay_t<decltype(points)>, PlanPoints>) {
        // The other set's point too: the frontier of both kinds (its own capacity decides whether it fits).
        if (batch <= other.max_sequences) frontier.push_back(raw(other, !r.rank_by_ceiling));
      }
      switch (cfg.reason) {
        case PlanReason::kOk: break;
        case PlanReason::kMemory: ++out.rejected.memory; break;
        case PlanReason::kStepTokens: ++out.rejected.step_tokens; break;
        case PlanReason::kMaxNumSeqs: ++out.rejected.max_num_seqs; break;
        case PlanReason::kTtft: ++out.rejected.ttft; break;
        case PlanReason::kTpot: ++out.rejected.tpot; break;
        case PlanReason::kCommunication: ++out.rejected.communication; break;
        case PlanReason::kGpus: ++out.rejected.gpus; break;
      }
      if (cfg.reason == PlanReason::kOk) {
        // PlanConfig's strings are empty here (finish() names things), so copies do not allocate.
        if (best[i].batch == 0 || cfg.rank_cost < best[i].rank_cost) {
          best[i] = cfg;
          next[i].batch = 0;  // its neighbour is the next batch, if that one is rejected
        }
        return p.max_sequences;
      }
      if (best[i].batch != 0 && (next[i].batch == 0 || batch < next[i].batch)) next[i] = cfg;
      if (p.max_sequences > 0 &&
          (cheapest.batch == 0 || cfg.rank_cost < cheapest.rank_cost)) {
        cheapest = cfg;
      }
      // The three closest misses, nearest first (reported when nothing is feasible). Under a concurrency,
      // slot counts that give the same replicas are one configuration: listed once.
      for (size_t k = 0; k < n_misses; ++k) {
        if (misses[k].batch == cfg.batch && misses[k].c == cfg.c) return p.max_sequences;
      }
      const double d = plan_detail::miss_distance(r, s, cfg);
      size_t slot = n_misses;
      if (slot == misses.size()) {
        if (!(d < miss_d[slot - 1])) return p.max_sequences;
        --slot;
      } else {
        ++n_misses;
      }
      misses[slot] = cfg;
      miss_d[slot] = d;
      for (; slot > 0 && miss_d[slot] < miss_d[slot - 1]; --slot) {
        std::swap(misses[slot], misses[slot - 1]);
        std::swap(miss_d[slot], miss_d[slot - 1]);
      }
      return p.max_sequences;
    };
    // The listed batches, plus the largest batch HBM holds when it falls between two of
    // them (max_sequences depends only on the context, so the first evaluation gives it).
    const size_t n_listed = s.batches.size();
    int64_t fill = 0;  // the extra batch, once known; -1 when none
    size_t k = 0;
    while (k < n_listed || fill > 0) {
      int64_t batch = 0;
      if (fill > 0 && (k == n_listed || fill < s.batches[k])) {
        batch = fill;
        fill = -1;
      } else {
        batch = s.batches[k++];
      }
      const int64_t m = visit(batch);
      if (fill == 0) {
        const bool listed = std::find(s.batches.begin(), s.batches.end(), m) != s.batches.end();
        fill = (m > batch && m < s.batches.back() && !listed) ? m : -1;
      }
    }
    // When TPOT stops the next batch, the largest batch that still meets it lies in between:
    // bisect (the step time grows with the batch).
    if (best[i].batch != 0 && next[i].batch > best[i].batch + 1 &&
        (next[i].reason == PlanReason::kTpot || next[i].reason == PlanReason::kCommunication)) {
      int64_t lo = best[i].batch, hi = next[i].batch;
      PlanConfig above = next[i];  // the smallest batch known to miss
      while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        visit(mid);
        if (cfg.reason == PlanReason::kOk) {
          lo = mid;
        } else {
          hi = mid;
          above = cfg;
        }
      }
      next[i] = above;
    }
  }
  plan_detail::finish(r, s, cands, best, next, cheapest, frontier, misses, n_misses, &out);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace modelcalc

#endif  // MODELCALC_PLAN_SEARCH_H_
