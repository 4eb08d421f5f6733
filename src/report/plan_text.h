// plan's constraint text: the deciding clause of each configuration and the
// changes a miss would need, worded from the enums and numbers of PlanResult
// (the only place that prose lives).
#ifndef MODELCALC_PLAN_TEXT_H_
#define MODELCALC_PLAN_TEXT_H_

#include <string>

#include "modelcalc/plan.h"

namespace modelcalc {

// Durations and prices in its table and its sentences alike are
// format_brief's (report.h): "60.5 ms", "$0.612"; an unbounded time is
// plan_time_text's "unbounded" (never "inf").

// "the next batch, 21 ($0.612/1M output tokens), misses TPOT: 60.5 ms > 60 ms".
// `r` and `s` are the request and space the result was searched under.
std::string plan_deciding_text(const PlanRequest& r, const PlanSpace& s, const PlanConfig& c);
// "a TPOT target of at least 25.2 ms (or a faster interconnect)"; a change of the engine's caps names `e`'s flag.
std::string plan_change_text(Engine e, const PlanChange& ch);

// The engine's own flags for its step-token budget and its sequence cap ("--max-num-batched-tokens",
// "--max-num-seqs" for vLLM; SGLang's --chunked-prefill-size, --max-running-requests; TensorRT-LLM's
// --max_num_tokens, --max_batch_size).
struct EngineLimitFlags {
  const char* step_tokens;
  const char* max_num_seqs;
};
EngineLimitFlags engine_limit_flags(Engine e);

// A time for plan's cells and clauses: format_brief's, or for an unbounded one (a queue that grows: `queue`)
// "unbounded: the queue grows" / "unbounded". Never "inf".
std::string plan_time_text(double seconds, bool queue);
// A price for plan's cells and clauses: format_brief's, "n/a (nothing served)" when it is unbounded, or
// "no price" when it is NaN (the GPU has none).
std::string plan_usd_text(double usd);
// The cost a clause cites: "$0.612" (US$ per 1M output tokens), or under s.rank_by_gpu_hours "0.0194 GPU-h".
std::string plan_cost_text(const PlanSpace& s, double usd_per_million, double gpu_hours_per_million);
// How the configurations are ordered: "cheapest per 1M output tokens first", or, when a GPU has no price,
// "fewest GPU-hours per 1M output tokens first, since b300 has no catalog price".
std::string plan_order_text(const PlanSpace& s);

}  // namespace modelcalc

#endif  // MODELCALC_PLAN_TEXT_H_
