#include "modelcalc/train_plan.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>

namespace modelcalc {

namespace {

constexpr int64_t kMaxGpus = int64_t{1} << 20;
constexpr Recompute kRecomputes[] = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};

double d(int64_t v) { return static_cast<double>(v); }

Status validate_query(const TrainPlanQuery& q) {
  if (q.model == nullptr) return Status::InvalidArgument("model", "is required: the engine needs the shape");
  MC_RETURN_IF_ERROR(validate(*q.model));
  if (!(q.tokens > 0 && q.tokens <= 1e27)) return Status::InvalidArgument("tokens", "must be in (0, 1e27]");
  if (!(q.deadline_days > 0 && q.deadline_days <= 1e6)) {
    return Status::InvalidArgument("deadline_days", "must be in (0, 1e6] days");
  }
  if (q.max_gpus < 1 || q.max_gpus > kMaxGpus) return Status::InvalidArgument("max_gpus", "must be 1 to 2^20");
  if (q.seq < 1 || q.seq > (int64_t{1} << 30)) return Status::InvalidArgument("seq", "must be 1 to 2^30 tokens");
  if (q.micro_batches.empty()) return Status::InvalidArgument("micro_batches", "needs at least one micro-batch size");
  for (int64_t b : q.micro_batches) {
    if (b < 1 || b > 1024) return Status::InvalidArgument("micro_batches", "each must be 1 to 1024 sequences");
  }
  if (q.global_batch < 0 || q.global_batch > (int64_t{1} << 30)) {
    return Status::InvalidArgument("global_batch", "must be 1 to 2^30 sequences");
  }
  if (!(q.max_batch_tokens >= static_cast<double>(q.seq) && q.max_batch_tokens <= 1e12)) {
    return Status::InvalidArgument("max_batch_tokens", "must hold at least one sequence of --seq tokens, up to 1e12");
  }
  if (q.max_tp < 1 || q.max_tp > 1024) return Status::InvalidArgument("max_tp", "must be 1 to 1024");
  if (q.max_pp < 1 || q.max_pp > 1024) return Status::InvalidArgument("max_pp", "must be 1 to 1024");
  if (q.max_ep < 1 || q.max_ep > 1024) return Status::InvalidArgument("max_ep", "must be 1 to 1024");
  if (q.top < 1 || q.top > 1000) return Status::InvalidArgument("top", "must be 1 to 1000");
  if (q.gpus.empty()) return Status::InvalidArgument("gpus", "needs at least one GPU kind");
  for (const TrainPlanGpu& g : q.gpus) {
    if (!(g.gpu.capacity_bytes > 0 && g.gpu.peak_bf16_flops > 0 && g.gpu.bandwidth_bytes_per_s > 0)) {
      return Status::InvalidArgument("gpus", "'" + g.gpu.name + "' needs a capacity, a bandwidth and a bf16 peak");
    }
    if (!(g.usd_per_gpu_hour > 0 && std::isfinite(g.usd_per_gpu_hour))) {
      return Status::InvalidArgument("gpus", "'" + g.gpu.name + "' needs a positive price per GPU-hour");
    }
  }
  return Status::Ok();
}

// The order among layouts: by the ranked quantity, then the other, then
// fewer GPUs and the simpler choice (less recomputation, ZeRO, PP, TP).
auto rank_key(const TrainPlanLayout& l, TrainPlanRank by) {
  const double first = by == TrainPlanRank::kCost ? l.usd : l.days;
  const double second = by == TrainPlanRank::kCost ? l.days : l.usd;
  return std::make_tuple(first, second, l.gpus, static_cast<int>(l.recompute), l.zero, l.pp, l.tp, l.ep,
                         l.micro_batch);
}

// Keeps the best `top` layouts, allocation bounded by `top`.
void keep_top(std::vector<TrainPlanLayout>* v, const TrainPlanLayout& l, size_t top, TrainPlanRank by) {
  if (v->size() == top && !(rank_key(l, by) < rank_key(v->back(), by))) return;
  auto at = std::upper_bound(v->begin(), v->end(), l, [by](const TrainPlanLayout& a, const TrainPlanLayout& b) {
    return rank_key(a, by) < rank_key(b, by);
  });
  v->insert(at, l);
  if (v->size() > top) v->pop_back();
}

// One structural choice, prepared: the node count and global batch search.
struct Search {
  const TrainPlanQuery& q;
  const PreparedTraining& prep;
  size_t gpu_index = 0;
  int64_t node = 1;
  int zero = 0;
  int64_t dp_unit = 1, k_max = 0;
  int64_t* searched = nullptr;

  // The layout at dp = k x dp_unit with the largest global batch that fits
  // (or the given one); nullopt when no global batch is possible.
  std::optional<TrainPlanLayout> at(int64_t k, bool* fits) const {
    const TrainOptions& o = prep.options;
    const int64_t dp = k * dp_unit, b = o.micro_batch, per = dp * b;
    *fits = false;
    int64_t m = 0;
    if (q.global_batch > 0) {
      if (q.global_batch % per != 0) return std::nullopt;
      m = q.global_batch / per;
    } else {
      m = static_cast<int64_t>(q.max_batch_tokens / d(q.seq)) / per;
      if (m < 1) return std::nullopt;
    }
    TrainEval e = evaluate_training(prep, dp, per * m, zero);
    ++*searched;
    // Fewer micro-batches in flight when memory needs it (1F1B holds min(m, pp - r)).
    for (int64_t fewer = std::min(m - 1, o.layout.pp - 1); !e.fits && q.global_batch == 0 && fewer >= 1; fewer /= 2) {
      m = fewer;
      e = evaluate_training(prep, dp, per * m, zero);
      ++*searched;
    }
    TrainPlanLayout l;
    l.gpu_index = gpu_index;
    l.tp = o.layout.tp;
    l.pp = o.layout.pp;
    l.ep = o.layout.ep;
    l.dp = dp;
    l.gpus = l.tp * l.pp * dp;
    l.nodes = l.gpus / node;
    l.zero = zero;
    l.recompute = o.recompute;
    l.micro_batch = b;
    l.global_batch = per * m;
    l.eval = e;
    l.steps = std::ceil(q.tokens / (d(l.global_batch) * d(q.seq)));
    l.days = l.steps * e.seconds / 86400.0;
    l.gpu_hours = l.days * 24.0 * d(l.gpus);
    l.usd = l.gpu_hours * q.gpus[gpu_index].usd_per_gpu_hour;
    *fits = e.fits;
    return l;
  }
};

struct KindTrack {
  TrainPlanKind kind;
  // Over every layout evaluated: the cheapest (fastest) that fits but misses
  // the deadline, and that does not fit at all (the deciding constraint).
  double miss_usd = INFINITY, nofit_usd = INFINITY, nofit_days = INFINITY;
};

// Records an evaluated layout; true when it fits and meets the deadline.
bool note(KindTrack* t, const TrainPlanLayout& l, bool fits, double deadline) {
  if (!fits) {
    t->nofit_usd = std::min(t->nofit_usd, l.usd);
    t->nofit_days = std::min(t->nofit_days, l.days);
    return false;
  }
  if (!t->kind.any_fits || l.days < t->kind.fastest.days) t->kind.fastest = l;
  t->kind.any_fits = true;
  if (l.days > deadline) {
    t->miss_usd = std::min(t->miss_usd, l.usd);
    return false;
  }
  return true;
}

}  // namespace

Result<TrainPlanResult> plan_training(const TrainPlanQuery& q) {
  const auto start = std::chrono::steady_clock::now();
  MC_RETURN_IF_ERROR(validate_query(q));
  const ModelSpec& m = *q.model;
  MC_ASSIGN_OR_RETURN(const ParamBreakdown p, param_breakdown(m));
  TrainPlanResult r;
  r.params = p.total();
  r.active_params = p.active();
  MC_ASSIGN_OR_RETURN(r.flops_per_token, training_flops_per_token(m, q.seq, Recompute::kNone));
  r.model_flops = r.flops_per_token.model * q.tokens;

  std::vector<int64_t> pps;
  for (int64_t pp = 1; pp <= std::min(q.max_pp, m.n_layer); ++pp) {
    if (m.n_layer % pp == 0) pps.push_back(pp);
  }
  std::vector<int64_t> eps = {1};
  for (int64_t ep = 2; m.n_expert > 0 && ep <= q.max_ep && ep <= m.n_expert; ep *= 2) {
    if (m.n_expert % ep == 0) eps.push_back(ep);
  }
  const size_t top = static_cast<size_t>(q.top);
  for (size_t gi = 0; gi < q.gpus.size(); ++gi) {
    const GpuSpec& g = q.gpus[gi].gpu;
    const int64_t node = std::max<int64_t>(1, g.domain_gpus);
    const int64_t max_nodes = q.max_gpus / node;
    KindTrack track;
    track.kind.gpu_index = gi;
    for (Recompute rc : kRecomputes) {
      for (int64_t tp = 1; tp <= q.max_tp && tp <= node; tp *= 2) {
        if (m.n_head % tp != 0 || (!m.is_mla() && m.n_head_kv % tp != 0)) continue;
        for (int64_t pp : pps) {
          for (int64_t ep : eps) {
            for (int64_t b : q.micro_batches) {
              TrainOptions o;
              o.layout.tp = tp;
              o.layout.pp = pp;
              o.layout.ep = ep;
              o.seq = q.seq;
              o.micro_batch = b;
              o.optimizer = q.optimizer;
              o.fp32_grads = q.fp32_grads;
              o.recompute = rc;
              o.sequence_parallel = q.sequence_parallel && tp > 1;
              o.flash = q.flash;
              if (should_stop(q.control, {"layouts", r.prepared, 0})) return q.control->status();
              auto prep = prepare_training(m, g, o, q.profile);
              if (!prep.ok()) continue;
              ++r.prepared;
              const int64_t tpp = tp * pp;
              const int64_t unit = node / std::gcd(node, tpp);
              const int64_t dp_unit = std::lcm(unit, ep);
              if (max_nodes < 1 || tpp * dp_unit > max_nodes * node) continue;
              for (int zero = 0; zero <= 3; ++zero) {
                Search s{q, *prep, gi, node, zero, dp_unit, (max_nodes * node) / (tpp * dp_unit), &r.searched};
                bool fits = false;
                // The most GPUs first: if even they miss the deadline (or memory), nothing smaller helps.
                int64_t hi = s.k_max;
                std::optional<TrainPlanLayout> l_hi = s.at(hi, &fits);
                while (!l_hi && hi > 1) l_hi = s.at(--hi, &fits);  // a fixed global batch dp may not divide
                if (!l_hi) continue;
                const bool meets = note(&track, *l_hi, fits, q.deadline_days);
                if (!fits && hi > 1) {
                  // What this choice would cost at its fewest nodes, were memory no object (the deciding constraint).
                  bool f1 = false;
                  if (std::optional<TrainPlanLayout> l1 = s.at(1, &f1)) note(&track, *l1, f1, q.deadline_days);
                }
                if (!meets) continue;
                TrainPlanLayout chosen = *l_hi;
                if (q.rank_by == TrainPlanRank::kCost) {
                  // The fewest nodes that still fit and meet the deadline: bisect k in [1, hi]; keep the
                  // cheapest layout met on the way (more nodes of one kind seldom cost less, but may).
                  int64_t lo = 0;  // k = lo fails (0: not tried)
                  while (hi - lo > 1) {
                    const int64_t mid = lo + (hi - lo) / 2;
                    bool f = false;
                    std::optional<TrainPlanLayout> l = s.at(mid, &f);
                    if (l && note(&track, *l, f, q.deadline_days)) {
                      hi = mid;
                      if (rank_key(*l, q.rank_by) < rank_key(chosen, q.rank_by)) chosen = *l;
                    } else {
                      lo = mid;
                    }
                  }
                  // Days need not fall monotonically with the nodes (the global batch is capped, so the
                  // micro-batches per replica step down): walk below the bisection's answer while it holds.
                  for (int64_t k = hi - 1; k >= 1 && k >= hi - 64; --k) {
                    bool f = false;
                    std::optional<TrainPlanLayout> l = s.at(k, &f);
                    if (!l || !note(&track, *l, f, q.deadline_days)) break;
                    if (rank_key(*l, q.rank_by) < rank_key(chosen, q.rank_by)) chosen = *l;
                  }
                }
                keep_top(&r.layouts, chosen, top, q.rank_by);
                TrainPlanKind& k = track.kind;
                if (!k.found || rank_key(chosen, q.rank_by) < rank_key(k.best, q.rank_by)) k.best = chosen;
                k.found = true;
              }
            }
          }
        }
      }
    }
    TrainPlanKind& k = track.kind;
    if (k.found) {
      TrainPlanBound bound = TrainPlanBound::kNone;
      if (q.rank_by == TrainPlanRank::kCost) {
        const double below = k.best.usd * (1 - 1e-9);
        if (track.miss_usd < below) bound = TrainPlanBound::kDeadline;
        else if (track.nofit_usd < below) bound = TrainPlanBound::kMemory;
      } else {
        if (track.nofit_days < k.best.days * (1 - 1e-9)) bound = TrainPlanBound::kMemory;
        else if (k.best.gpus + node > q.max_gpus) bound = TrainPlanBound::kGpuLimit;
      }
      k.best.bound = bound;
      for (TrainPlanLayout& l : r.layouts) {
        if (l.gpu_index == gi && rank_key(l, q.rank_by) == rank_key(k.best, q.rank_by)) l.bound = bound;
      }
    }
    r.kinds.push_back(k);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace modelcalc
