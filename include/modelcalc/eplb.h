// EPLB: what redundant expert slots do to the busiest EP rank's load.
//
// DeepSeek's expert-parallelism load balancer (github.com/deepseek-ai/EPLB,
// eplb.py; SGLang's --ep-num-redundant-experts and --enable-eplb run it)
// gives each extra slot to the expert with the most load per replica
// (replicate_experts: argmax weight / count), then packs the replicas onto the
// ranks, heaviest first, each into the lightest rank that still has a free
// slot (balanced_packing). The deployment engine has no per-expert load, only
// the stated imbalance I (the busiest rank's routed tokens / the mean, with
// the experts in their checkpoint order, E / ep to a rank). Assumed load: one
// rank's worth of experts is hot, each carrying I x the mean expert's load,
// the other experts the rest evenly -- the most concentrated skew that gives
// I. EPLB is run on those loads; the busiest rank's load over the mean is the
// imbalance it leaves.
#ifndef MODELCALC_EPLB_H_
#define MODELCALC_EPLB_H_

#include <cstdint>

namespace modelcalc {

// The busiest rank's routed load / the mean after EPLB places `experts` +
// `redundant` slots on `ep` ranks, from a stated imbalance `imbalance` >= 1
// (capped at ep: one rank cannot carry more than every token). `redundant` 0
// (no EPLB) or ep 1 returns the imbalance as stated. REQUIRES: experts >= 1,
// ep >= 1, (experts + redundant) % ep == 0, experts % ep == 0 or redundant 0.
double eplb_imbalance(int64_t experts, int64_t redundant, int64_t ep, double imbalance);

}  // namespace modelcalc

#endif  // MODELCALC_EPLB_H_
