#include "plan_text.h"

#include <cmath>
#include <fmt/format.h>

#include "deployment_report.h"
#include "format.h"
#include "report.h"

namespace modelcalc {

namespace {

std::string describe(const PlanSpace& s, const PlanNeighbour& c) {
  std::string split = c.c.attn_dp > 1 ? fmt::format("DP-attention {}", c.c.attn_dp) : fmt::format("TP{}", c.c.tp);
  if (c.c.attn_dp > 1 && c.c.tp > 1) split += fmt::format(" TP{}", c.c.tp);
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
    case PlanReason::kTtft: {
      const auto [got, target] = format_brief_apart(c.ttft_s, *r.ttft_s, Unit::kSeconds);
      return fmt::format("TTFT: {} > {}", got, target);
    }
    case PlanReason::kTpot: {
      const auto [got, target] = format_brief_apart(c.tpot_s, *r.tpot_s, Unit::kSeconds);
      return fmt::format("TPOT: {} > {}", got, target);
    }
    case PlanReason::kCommunication: {
      const auto [got, target] = format_brief_apart(c.tpot_s, *r.tpot_s, Unit::kSeconds);
      return fmt::format("TPOT: {} > {}, and communication is {} of the step", got, target,
                         format_brief(c.comm_s, Unit::kSeconds));
    }
    case PlanReason::kGpus:
      return fmt::format("GPUs: the load needs {} GPUs, over the limit of {}", c.gpus, s.max_gpus);
    case PlanReason::kOk: break;
  }
  return "";
}

}  // namespace

std::string plan_deciding_text(const PlanRequest& r, const PlanSpace& s, const PlanConfig& c) {
  const PlanNeighbour& n = c.deciding.neighbour;
  switch (c.deciding.kind) {
    case PlanDecidingKind::kNone: return "";
    case PlanDecidingKind::kNextBatchMisses:
      return fmt::format("the next batch, {} ({}/1M output tokens), misses {}", n.batch,
                         format_brief(n.usd_per_million_output, Unit::kUsd), failure(r, s, n));
    case PlanDecidingKind::kLargestBatch:
      return fmt::format("the largest batch searched ({}) for its split and dtypes", c.batch);
    case PlanDecidingKind::kCheapestMisses:
      return fmt::format("the cheapest configuration searched, {} at {}/1M output tokens, misses {}", describe(s, n),
                         format_brief(n.usd_per_million_output, Unit::kUsd), failure(r, s, n));
    case PlanDecidingKind::kNothingCheaper: return "nothing cheaper was searched: no target binds";
    case PlanDecidingKind::kMissed: return failure(r, s, n);
  }
  return "";
}

namespace {

std::string plan_change_words(const PlanChange& ch) {
  switch (ch.kind) {
    case PlanChangeKind::kWeightsMemory:
      return "memory for the weights: more GPUs per replica (TP/PP) or a smaller weight dtype";
    case PlanChangeKind::kBatchMemory:
      return fmt::format("memory for batch {} (holds {}): a smaller KV dtype or more GPUs per replica", ch.batch,
                         ch.holds);
    case PlanChangeKind::kTtftTarget:
      return fmt::format("a TTFT target of at least {}", format_brief(ch.seconds, Unit::kSeconds));
    case PlanChangeKind::kTpotTarget:
      return fmt::format("a TPOT target of at least {}{}", format_brief(ch.seconds, Unit::kSeconds),
                         ch.faster_interconnect ? " (or a faster interconnect)" : "");
    case PlanChangeKind::kGpuLimit: return fmt::format("a GPU limit of at least {}", ch.gpus);
    case PlanChangeKind::kFp8Weights: return "fp8 weights (not searched)";
  }
  return "";
}

}  // namespace

std::string plan_change_text(const PlanChange& ch) {
  std::string t = plan_change_words(ch);
  if (ch.variation) {
    const DeploymentResult& a = ch.variation->after.result;
    t += fmt::format(" (the engine at {}: {} sequences fit, {} per sequence at batch {})",
                     change_flags(ch.variation->change), group_digits(a.memory.max_sequences),
                     format_brief(a.decode.tokens_per_s_per_sequence, Unit::kTokensPerS), group_digits(a.decode.batch));
  }
  return t;
}

}  // namespace modelcalc
