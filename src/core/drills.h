// The drills' worked models, shared by `exercises`, the tests and the benchmark.
#ifndef MODELCALC_DRILLS_H_
#define MODELCALC_DRILLS_H_

#include "modelcalc/model.h"

namespace modelcalc {

// Drill 1 (seed 001): a synthetic GQA + SwiGLU model. 48 layers, d 6144, 48
// heads, 8 KV heads (d_head 128), gated FFN 16384, vocabulary 64,000, untied.
ModelSpec drill1_model();

}  // namespace modelcalc

#endif  // MODELCALC_DRILLS_H_
