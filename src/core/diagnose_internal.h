// What diagnose's two halves share (internal to the core): the numbers
// (diagnose_numbers.cc) and the rules that read them (diagnose_rules.cc).
#ifndef MODELCALC_DIAGNOSE_INTERNAL_H_
#define MODELCALC_DIAGNOSE_INTERNAL_H_

#include "modelcalc/diagnose.h"

namespace modelcalc::diagnose_internal {

// The phase the evidence states, else the one its measurements imply
// (a TTFT alone: prefill; else decode); *inferred says which.
Phase infer_phase(const Evidence& e, bool* inferred);

// Fills d->n (every number the evidence allows) and the ignored
// simplifications; d->phase must be set, and d->scenario / d->modeled when the
// engine's view applies. The rules read d->n (and the engine's figures) only.
void compute_numbers(const Evidence& e, const GpuSpec& gpu, Diagnosis* d);

}  // namespace modelcalc::diagnose_internal

#endif  // MODELCALC_DIAGNOSE_INTERNAL_H_
