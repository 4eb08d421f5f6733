// The defaults of every analysis, stated once. Option structs (SizeOptions,
// DeploymentOptions, KvBudgetOptions, RooflineOptions, ...) initialise their
// members from these, and the CLI's --help quotes them, so a value a user does
// not give means the same in every command. The drills keep their own figures
// (fp16, the context they spell out); their commands pass them explicitly.
#ifndef MODELCALC_DEFAULTS_H_
#define MODELCALC_DEFAULTS_H_

#include <cstdint>

#include "modelcalc/dtype.h"

namespace modelcalc {

// Context (tokens of KV each sequence holds, the prompt of a prefill): 8,192,
// or the model's max_position_embeddings when that is smaller
// (default_context(m), model.h).
inline constexpr int64_t kDefaultContext = 8192;
// Weights are bf16; the KV cache is 16-bit as the weights are (fp16 weights
// keep an fp16 cache, fp32 an fp32 one, quantized weights a bf16 one:
// default_kv_dtype, deployment.h); matmuls run in default_compute_dtype.
inline constexpr Dtype kDefaultWeightDtype = Dtype::kBf16;
// Sequences decoding together.
inline constexpr int64_t kDefaultBatch = 1;
// Fraction of HBM the drills' nominal view (kv-budget's textbook figures) keeps
// back, as vLLM's gpu_memory_utilization = 0.9 does. The deployment engine's
// ceiling keeps nothing back unless asked (deployment.h kCeilingReserveFraction);
// what a serving engine keeps back is the prediction's (engine_profile.h).
inline constexpr double kDefaultReserveFraction = 0.10;
// int8/int4 weights: one 16-bit scale per this many weights (GPTQ/AWQ's group).
inline constexpr int64_t kDefaultQuantGroupSize = 128;

}  // namespace modelcalc

#endif  // MODELCALC_DEFAULTS_H_
