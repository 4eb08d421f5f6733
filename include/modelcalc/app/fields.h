// The shared field list: every request field, declared once (field.h says
// what a declaration holds). A field several requests take (context, gpus,
// dtype, prefix_hit, ...) is one declaration here, referenced by each
// request's table (requests.h), which may state its own default and help.
// Adding a field: one declaration here, one row in each table that takes it,
// and its use in that request's answer().
#ifndef MODELCALC_APP_FIELDS_H_
#define MODELCALC_APP_FIELDS_H_

#include <span>
#include <string_view>

#include "modelcalc/app/field.h"

namespace modelcalc::app::fields {

// The model: a preset, a config.json, a checkpoint folder, or a hand-typed shape.
extern const Field kModel, kConfig, kCheckpoint, kLayers, kHidden, kHeads, kKvHeads, kHeadDim, kFfn, kGlu, kVocab,
    kTied;
// The GPU: a catalog name, or a custom one (bandwidth, capacity, peak; also overriding the catalog's).
extern const Field kGpu, kBandwidth, kCapacity, kPeak;
// The deployment: the split, the workload, the dtypes.
extern const Field kGpus, kTp, kPp, kEp, kDp, kContext, kBatch, kPrompt, kDtype, kComputeDtype, kKvDtype, kReserve;
// The serving layouts (docs/serving-layouts.md).
extern const Field kDpAttention, kExpertImbalance, kRedundantExperts, kTwoBatchOverlap, kSpecTokens, kSpecAcceptance,
    kSpecMethod, kDraftModel, kPrefixHit, kPrefixTokens, kDisaggregated, kKvTransferOverlap;
// The serving engine of the prediction, and its own settings under its own names.
extern const Field kEngine, kProfile, kGpuMemoryUtilization, kKvCacheFreeGpuMemFraction, kMemFractionStatic, kSwaFullTokensRatio, kMaxModelLen,
    kMaxNumBatchedTokens, kMaxNumSeqs, kBlockSize, kAllowLongMaxModelLen;
// size
extern const Field kTrainTokens;
// kv-budget
extern const Field kBudget, kWorkspace, kMeanLen;
// cost
extern const Field kPricePerHour, kTokensPerS;
// diagnose: the evidence and the measurements
extern const Field kEvidence, kPhase, kParams, kAggregateTokensPerS, kTtft, kItl, kFlopUtil, kBwUtil, kKernelsPerStep,
    kKernelUs, kGapUs, kPeakTransient;
// roofline
extern const Field kIntensity, kGemm;
// plan
extern const Field kIsl, kOsl, kQps, kRate, kConcurrency, kTpot, kTokensPerSPerUser, kMaxGpus, kMaxPp, kPrice,
    kEfficiency, kTop, kRankBy, kFrontier, kCompare, kLengthDist;
// sweep
extern const Field kColumns;

}  // namespace modelcalc::app::fields

namespace modelcalc::app {

// Every field, in declaration order (docs, the web page's /api/fields, tests).
std::span<const Field* const> all_fields();
// The field of a canonical name, or null.
const Field* find_field(std::string_view name);

}  // namespace modelcalc::app

#endif  // MODELCALC_APP_FIELDS_H_
