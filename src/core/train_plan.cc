#include "modelcalc/train_plan.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "modelcalc/formulas.h"
#include "modelcalc/lab.h"

namespace modelcalc {

namespace {

constexpr int64_t kMaxGpus = int64_t{1} << 20;
constexpr Recompute kRecomputes[] = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};

Status validate_query(const TrainPlanQuery& q) {
  if (q.model == nullptr) return Status::InvalidArgument("model", "is required: activations need the shape");
  MC_RETURN_IF_ERROR(validate(*q.model));
  if (!(q.tokens > 0 && q.tokens <= 1e27)) return Status::InvalidArgument("tokens", "must be in (0, 1e27]");
  if (!(q.deadline_days > 0 && q.deadline_days <= 1e6)) {
    return Status::InvalidArgument("deadline_days", "must be in (0, 1e6] days");
  }
  if (!(q.mfu > 0 && q.mfu <= 1)) return Status::InvalidArgument("mfu", "must be in (0, 1]");
  if (q.max_gpus < 1 || q.max_gpus > kMaxGpus) return Status::InvalidArgument("max_gpus", "must be 1 to 2^20");
  if (q.seq < 1 || q.seq > (int64_t{1} << 30)) return Status::InvalidArgument("seq", "must be 1 to 2^30 tokens");
  if (q.micro_batch < 1 || q.micro_batch > (int64_t{1} << 20)) {
    return Status::InvalidArgument("micro_batch", "must be 1 to 2^20 sequences");
  }
  if (q.max_tp < 1 || q.max_tp > 1024) return Status::InvalidArgument("max_tp", "must be 1 to 1024");
  if (q.max_pp < 1 || q.max_pp > 1024) return Status::InvalidArgument("max_pp", "must be 1 to 1024");
  if (q.gpus.empty()) return Status::InvalidArgument("gpus", "needs at least one GPU kind");
  for (const TrainPlanGpu& g : q.gpus) {
    if (!(g.gpu.capacity_bytes > 0 && g.gpu.peak_bf16_flops > 0)) {
      return Status::InvalidArgument("gpus", "'" + g.gpu.name + "' needs a capacity and a bf16 peak");
    }
    if (!(g.usd_per_gpu_hour > 0 && std::isfinite(g.usd_per_gpu_hour))) {
      return Status::InvalidArgument("gpus", "'" + g.gpu.name + "' needs a positive price per GPU-hour");
    }
  }
  return Status::Ok();
}

// Full recomputation runs every forward pass twice: 8 N D instead of 6 N D.
double recompute_factor(Recompute r) { return r == Recompute::kFull ? 4.0 / 3.0 : 1.0; }

// ceil(x) as a count of at least 1; 10^15 + 1 for anything above 10^15 (or not finite).
int64_t ceil_count(double x) {
  constexpr int64_t kCap = 1'000'000'000'000'000;
  if (!(x <= static_cast<double>(kCap))) return kCap + 1;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(x)));
}

// The order among configurations that cost the same: fewer GPUs, then less
// recomputation, a lower ZeRO stage, less PP (its bubble is not modelled),
// less TP.
// The training-memory question for one split: the query's optimizer, batch,
// context and FlashAttention, sequence parallelism with TP.
TrainMemoryOptions memory_options(const TrainPlanQuery& q, int64_t tp, int64_t pp, int64_t dp, int zero,
                                  Recompute rec) {
  TrainMemoryOptions o;
  o.optimizer = q.optimizer;
  o.zero = zero;
  o.dp = dp;
  o.tp = tp;
  o.pp = pp;
  o.micro_batch = q.micro_batch;
  o.seq = q.seq;
  o.recompute = rec;
  o.sequence_parallel = tp > 1;
  o.flash = q.flash;
  return o;
}

auto rank_key(const TrainPlanConfig& c) {
  return std::make_tuple(c.usd, c.gpus, static_cast<int>(c.recompute), c.zero, c.pp, c.tp);
}

}  // namespace

Result<TrainPlanResult> plan_training(const TrainPlanQuery& q) {
  MC_RETURN_IF_ERROR(validate_query(q));
  const ModelSpec& m = *q.model;
  MC_ASSIGN_OR_RETURN(const ParamBreakdown p, param_breakdown(m));
  TrainPlanResult r;
  r.params = p.total();
  r.active_params = p.active();
  r.model_flops = training_flops(static_cast<double>(r.active_params), q.tokens);

  for (size_t gi = 0; gi < q.gpus.size(); ++gi) {
    const TrainPlanGpu& g = q.gpus[gi];
    TrainPlanMiss miss;
    miss.gpu_index = gi;
    bool any = false;
    TrainPlanConfig kind_best;  // over every recomputation choice, split and ZeRO stage
    for (Recompute rec : kRecomputes) {
      const double hw_flops = r.model_flops * recompute_factor(rec);
      const double gpu_hours = training_gpu_hours(hw_flops, g.gpu.peak_bf16_flops, q.mfu);
      const int64_t deadline_gpus = ceil_count(gpu_hours / (24.0 * q.deadline_days));
      if (rec == Recompute::kNone) miss.deadline_gpus = deadline_gpus;
      for (int64_t tp = 1; tp <= q.max_tp; tp *= 2) {
        if (m.n_head % tp != 0) continue;  // analyze_train_memory's rule: TP splits whole heads
        for (int64_t pp = 1; pp <= q.max_pp && pp <= m.n_layer; pp *= 2) {
          // At DP 1 the result holds the smallest DP that fits at each ZeRO stage.
          MC_ASSIGN_OR_RETURN(const TrainMemoryResult at_dp1,
                              analyze_train_memory(&m, g.gpu, memory_options(q, tp, pp, 1, 0, rec)));
          const int64_t mp = tp * pp;
          for (int zero = 0; zero <= 3; ++zero) {
            const int64_t mem_dp = at_dp1.min_dp_by_zero[static_cast<size_t>(zero)];
            if (mem_dp == 0 || mem_dp > q.max_gpus / mp) continue;  // nothing fits within max_gpus
            if (miss.memory_gpus == 0 || mem_dp * mp < miss.memory_gpus) miss.memory_gpus = mem_dp * mp;
            if (deadline_gpus > q.max_gpus) continue;  // the deadline needs more GPUs than allowed
            const int64_t time_dp = (deadline_gpus + mp - 1) / mp;
            TrainPlanConfig c;
            c.gpu_index = gi;
            c.recompute = rec;
            c.tp = tp;
            c.pp = pp;
            c.zero = zero;
            c.dp = std::max(time_dp, mem_dp);
            c.bound = mem_dp * mp > deadline_gpus ? TrainPlanBound::kMemory : TrainPlanBound::kDeadline;
            if (c.dp > q.max_gpus / mp) continue;  // rounded up to whole DP ranks, past max_gpus
            c.gpus = c.dp * mp;
            c.deadline_gpus = deadline_gpus;
            c.hardware_flops = hw_flops;
            c.gpu_hours = gpu_hours;
            c.days = training_days(gpu_hours, static_cast<double>(c.gpus));
            c.usd = training_cost_usd(gpu_hours, g.usd_per_gpu_hour);
            if (!any || rank_key(c) < rank_key(kind_best)) kind_best = c;
            any = true;
          }
        }
      }
    }
    if (any) {
      TrainPlanConfig& best = kind_best;
      // The winner's memory at its own DP and ZeRO stage.
      MC_ASSIGN_OR_RETURN(best.memory, analyze_train_memory(&m, g.gpu, memory_options(q, best.tp, best.pp, best.dp,
                                                                                      best.zero, best.recompute)));
      r.ranked.push_back(std::move(best));
    } else {
      r.misses.push_back(miss);
    }
  }
  std::stable_sort(r.ranked.begin(), r.ranked.end(),
                   [](const TrainPlanConfig& a, const TrainPlanConfig& b) { return rank_key(a) < rank_key(b); });
  return r;
}

}  // namespace modelcalc
