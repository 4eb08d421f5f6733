#include "plan_text.h"

#include <cmath>
#include <fmt/format.h>

#include "deployment_report.h"
#include "format.h"
#include "modelcalc/engine_profile.h"
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

// " per attention group (× 8)", or "" for one group.
std::string per_group(const PlanCandidate& c) {
  return c.attn_dp > 1 ? fmt::format(" per attention group (× {})", c.attn_dp) : std::string();
}

// Why `c` (rejected) fails, as a clause.
std::string failure(const PlanRequest& r, const PlanSpace& s, const PlanNeighbour& c) {
  switch (c.reason) {
    case PlanReason::kMemory:
      if (c.max_sequences == 0) return "memory: the weights do not fit";
      return fmt::format("memory: a replica holds {} sequences of {} tokens, not {}", c.max_sequences,
                         r.isl + r.osl, c.batch);
    case PlanReason::kStepTokens:
      return fmt::format("the engine's step-token budget: {} tokens a step{} carry {} sequences of {} tokens each (a "
                         "decode token and its share of a replacing prompt), not {}",
                         group_digits(c.limit.step_tokens), per_group(c.c), c.max_sequences,
                         fmt_sig(c.limit.tokens_per_sequence, 4), c.batch);
    case PlanReason::kMaxNumSeqs:
      return fmt::format("the engine's sequence cap: at most {} sequences a step{}, not {}",
                         group_digits(c.limit.max_num_seqs), per_group(c.c), c.batch);
    case PlanReason::kTtft: {
      if (!std::isfinite(c.ttft_s)) return fmt::format("TTFT: {} > {}", plan_time_text(c.ttft_s, true),
                                                      format_brief(*r.ttft_s, Unit::kSeconds));
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
                         plan_cost_text(s, n.usd_per_million_output, n.gpu_hours_per_million_output),
                         failure(r, s, n));
    case PlanDecidingKind::kLargestBatch:
      return fmt::format("the largest batch searched ({}) for its split and dtypes", c.batch);
    case PlanDecidingKind::kCheapestMisses:
      return fmt::format("the cheapest configuration searched, {} at {}/1M output tokens, misses {}", describe(s, n),
                         plan_cost_text(s, n.usd_per_million_output, n.gpu_hours_per_million_output),
                         failure(r, s, n));
    case PlanDecidingKind::kNothingCheaper: return "nothing cheaper was searched: no target binds";
    case PlanDecidingKind::kMissed: return failure(r, s, n);
  }
  return "";
}

namespace {

// " (modelcalc: --max-num-seqs 512)" when the engine's flag has another name than modelcalc's, else "".
std::string modelcalc_flag_aside(std::string_view engine_flag, std::string_view ours, int64_t value) {
  return engine_flag == ours ? std::string() : fmt::format(" (modelcalc: {} {})", ours, value);
}

std::string plan_change_words(Engine e, const PlanChange& ch) {
  const EngineLimitFlags f = engine_limit_flags(e);
  switch (ch.kind) {
    case PlanChangeKind::kWeightsMemory:
      return "memory for the weights: more GPUs per replica (TP/PP) or a smaller weight dtype";
    case PlanChangeKind::kBatchMemory:
      return fmt::format("memory for batch {} (holds {}): a smaller KV dtype or more GPUs per replica", ch.batch,
                         ch.holds);
    case PlanChangeKind::kStepTokens:
      return fmt::format("a step-token budget of at least {} tokens for batch {} (holds {}): {}'s {} {}{}",
                         group_digits(ch.engine_value), ch.batch, ch.holds, engine_display(e),
                         f.step_tokens, ch.engine_value,
                         modelcalc_flag_aside(f.step_tokens, "--max-num-batched-tokens", ch.engine_value));
    case PlanChangeKind::kMaxNumSeqs:
      return fmt::format("a sequence cap of at least {} for batch {} (holds {}): {}'s {} {}{}",
                         group_digits(ch.engine_value), ch.batch, ch.holds, engine_display(e), f.max_num_seqs,
                         ch.engine_value, modelcalc_flag_aside(f.max_num_seqs, "--max-num-seqs", ch.engine_value));
    case PlanChangeKind::kTtftTarget:
      if (!std::isfinite(ch.seconds)) {
        return "a lower load per replica: the prompts arrive faster than the steps prefill them (no TTFT target "
               "is met)";
      }
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

EngineLimitFlags engine_limit_flags(Engine e) {
  switch (e) {
    case Engine::kTrtllm: return {"--max_num_tokens", "--max_batch_size"};  // trtllm-serve, trtllm-bench
    case Engine::kVllm: return {"--max-num-batched-tokens", "--max-num-seqs"};
    case Engine::kSglang: return {"--chunked-prefill-size", "--max-running-requests"};
  }
  return {"", ""};
}

std::string plan_time_text(double seconds, bool queue) {
  if (std::isfinite(seconds)) return format_brief(seconds, Unit::kSeconds);
  return queue ? kUnboundedQueue : "unbounded";
}

std::string plan_usd_text(double usd) {
  if (std::isnan(usd)) return "no price";
  return std::isfinite(usd) ? format_brief(usd, Unit::kUsd) : std::string("n/a (nothing served)");
}

std::string plan_cost_text(const PlanSpace& s, double usd_per_million, double gpu_hours_per_million) {
  if (!s.rank_by_gpu_hours) return plan_usd_text(usd_per_million);
  return std::isfinite(gpu_hours_per_million) ? fmt_sig(gpu_hours_per_million, 3) + " GPU-h"
                                              : std::string("n/a (nothing served)");
}

std::string plan_order_text(const PlanSpace& s) {
  if (!s.rank_by_gpu_hours) return "cheapest per 1M output tokens first";
  std::string unpriced;
  size_t n = 0;
  for (const PlanGpu& g : s.gpus) {
    if (std::isnan(g.usd_per_hour)) unpriced += (n++ == 0 ? "" : ", ") + g.gpu.key;
  }
  return "fewest GPU-hours per 1M output tokens first, since " + unpriced + (n == 1 ? " has" : " have") +
         " no catalog price";
}

std::string plan_change_text(Engine e, const PlanChange& ch) {
  std::string t = plan_change_words(e, ch);
  if (ch.variation) {
    const DeploymentResult& a = ch.variation->after.result;
    t += fmt::format(" (the engine at {}: {} sequences fit, {} per sequence at batch {})",
                     change_flags(ch.variation->change), group_digits(a.memory.max_sequences),
                     format_brief(a.decode.tokens_per_s_per_sequence, Unit::kTokensPerS), group_digits(a.decode.batch));
  }
  return t;
}

}  // namespace modelcalc
