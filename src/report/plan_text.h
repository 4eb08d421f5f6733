// plan's constraint text: the deciding clause of each configuration and the
// changes a miss would need, worded from the enums and numbers of PlanResult
// (the only place that prose lives).
#ifndef MODELCALC_PLAN_TEXT_H_
#define MODELCALC_PLAN_TEXT_H_

#include <string>

#include "modelcalc/plan.h"

namespace modelcalc {

// plan's durations and prices, in its table and its sentences alike: 3
// significant digits in s, ms or us ("60.5 ms"); dollars with 0 decimals from
// $100, 2 from $1, else 3 significant digits ("$0.612"); "inf" when unbounded.
std::string plan_duration(double seconds);
std::string plan_usd(double usd);

// "the next batch, 21 ($0.612/1M output tokens), misses TPOT: 60.5 ms > 60 ms".
// `r` and `s` are the request and space the result was searched under.
std::string plan_deciding_text(const PlanRequest& r, const PlanSpace& s, const PlanConfig& c);
// "a TPOT target of at least 25.2 ms (or a faster interconnect)".
std::string plan_change_text(const PlanChange& ch);

}  // namespace modelcalc

#endif  // MODELCALC_PLAN_TEXT_H_
