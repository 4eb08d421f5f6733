// plan's constraint text: the deciding clause of each configuration and the
// changes a miss would need, worded from the enums and numbers of PlanResult
// (the only place that prose lives).
#ifndef MODELCALC_PLAN_TEXT_H_
#define MODELCALC_PLAN_TEXT_H_

#include <string>

#include "modelcalc/plan.h"

namespace modelcalc {

// Durations and prices in its table and its sentences alike are
// format_brief's (report.h): "60.5 ms", "$0.612", "inf" when unbounded.

// "the next batch, 21 ($0.612/1M output tokens), misses TPOT: 60.5 ms > 60 ms".
// `r` and `s` are the request and space the result was searched under.
std::string plan_deciding_text(const PlanRequest& r, const PlanSpace& s, const PlanConfig& c);
// "a TPOT target of at least 25.2 ms (or a faster interconnect)".
std::string plan_change_text(const PlanChange& ch);

}  // namespace modelcalc

#endif  // MODELCALC_PLAN_TEXT_H_
