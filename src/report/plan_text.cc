#include "plan_text.h"

#include <cmath>
#include <fmt/format.h>

#include "format.h"

namespace modelcalc {

namespace {

std::string describe(const PlanSpace& s, const PlanNeighbour& c) {
  std::string split = fmt::format("TP{}", c.c.tp);
  if (c.c.pp > 1) split += fmt::format(" PP{}", c.c.pp);
  if (c.c.ep > 1) split += fmt::format(" EP{}", c.c.ep);
  return fmt::format("{} {} {}/{} KV, batch {}", s.gpus[c.c.gpu].gpu.key, split, dtype_name(c.c.weight_dtype),
                     dtype_name(c.c.kv_dtype), c.batch);
}

// Why `c` (rejected) fails, as a clause.
std::string failure(const PlanRequest& r, const PlanSpace& s, const PlanNeighbour& c) {
  switch (c.reason) {
    case PlanReason::kMemory:
      if (c.max_sequences == 0) return "memory: the weights do not fit";
      return fmt::format("memory: a replica holds {} sequences of {} tokens, not {}", c.max_sequences,
                         r.isl + r.osl, c.batch);
    case PlanReason::kTtft: return fmt::format("TTFT: {} > {}", plan_duration(c.ttft_s), plan_duration(*r.ttft_s));
    case PlanReason::kTpot: return fmt::format("TPOT: {} > {}", plan_duration(c.tpot_s), plan_duration(*r.tpot_s));
    case PlanReason::kCommunication:
      return fmt::format("TPOT: {} > {}, and communication is {} of the step", plan_duration(c.tpot_s),
                         plan_duration(*r.tpot_s), plan_duration(c.comm_s));
    case PlanReason::kGpus:
      return fmt::format("GPUs: the load needs {} GPUs, over the limit of {}", c.gpus, s.max_gpus);
    case PlanReason::kOk: break;
  }
  return "";
}

}  // namespace

std::string plan_duration(double s) {
  if (!std::isfinite(s)) return "inf";
  if (s >= 1) return fmt_sig(s, 3) + " s";
  if (s >= 1e-3) return fmt_sig(s * 1e3, 3) + " ms";
  return fmt_sig(s * 1e6, 3) + " us";
}

std::string plan_usd(double v) {
  if (!std::isfinite(v)) return "inf";
  if (v >= 100) return fmt::format("${}", fmt_fixed(v, 0));
  if (v >= 1) return fmt::format("${}", fmt_fixed(v, 2));
  return fmt::format("${}", fmt_sig(v, 3));
}

std::string plan_deciding_text(const PlanRequest& r, const PlanSpace& s, const PlanConfig& c) {
  const PlanNeighbour& n = c.deciding.neighbour;
  switch (c.deciding.kind) {
    case PlanDecidingKind::kNone: return "";
    case PlanDecidingKind::kNextBatchMisses:
      return fmt::format("the next batch, {} ({}/1M output tokens), misses {}", n.batch,
                         plan_usd(n.usd_per_million_output), failure(r, s, n));
    case PlanDecidingKind::kLargestBatch:
      return fmt::format("the largest batch searched ({}) for its split and dtypes", c.batch);
    case PlanDecidingKind::kCheapestMisses:
      return fmt::format("the cheapest configuration searched, {} at {}/1M output tokens, misses {}",
                         describe(s, n), plan_usd(n.usd_per_million_output), failure(r, s, n));
    case PlanDecidingKind::kNothingCheaper: return "nothing cheaper was searched: no target binds";
    case PlanDecidingKind::kMissed: return failure(r, s, n);
  }
  return "";
}

std::string plan_change_text(const PlanChange& ch) {
  switch (ch.kind) {
    case PlanChangeKind::kWeightsMemory:
      return "memory for the weights: more GPUs per replica (TP/PP) or a smaller weight dtype";
    case PlanChangeKind::kBatchMemory:
      return fmt::format("memory for batch {} (holds {}): a smaller KV dtype or more GPUs per replica", ch.batch,
                         ch.holds);
    case PlanChangeKind::kTtftTarget: return fmt::format("a TTFT target of at least {}", plan_duration(ch.seconds));
    case PlanChangeKind::kTpotTarget:
      return fmt::format("a TPOT target of at least {}{}", plan_duration(ch.seconds),
                         ch.faster_interconnect ? " (or a faster interconnect)" : "");
    case PlanChangeKind::kGpuLimit: return fmt::format("a GPU limit of at least {}", ch.gpus);
    case PlanChangeKind::kFp8Weights: return "fp8 weights (not searched)";
  }
  return "";
}

}  // namespace modelcalc
