// The decision-record sentence of a tradeoff, worded from the numbers
// resolve_tradeoff returns (the only place that sentence lives).
#ifndef MODELCALC_TRADEOFF_TEXT_H_
#define MODELCALC_TRADEOFF_TEXT_H_

#include <string>

#include "modelcalc/tradeoff.h"

namespace modelcalc {

// "Choose small over big (0.867 vs 0.625): cost decided it — 4× lower cost (1
// vs 4) at weight 0.30 adds 0.225 to a final margin of 0.242, outweighing big's
// lead on quality." REQUIRES: r == resolve_tradeoff(a, b, weights).
std::string tradeoff_sentence(const Candidate& a, const Candidate& b, const TradeoffResult& r);

}  // namespace modelcalc

#endif  // MODELCALC_TRADEOFF_TEXT_H_
