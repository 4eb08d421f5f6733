// The `sweep` analysis: `size` over every combination of lists of models,
// GPUs, context lengths, batches and dtypes, one row per combination, handed
// to a callback so a caller can sweep millions of points without collecting
// them. Each row's numbers are exactly those analyze_size gives for it.
#ifndef MODELCALC_SWEEP_H_
#define MODELCALC_SWEEP_H_

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "modelcalc/deployment.h"
#include "modelcalc/dtype.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/serving.h"
#include "modelcalc/size.h"
#include "modelcalc/status.h"

namespace modelcalc {

// The lists to combine. Every list but `seqs` and `kv_dtypes` must be
// non-empty.
struct SweepSpec {
  std::vector<ModelSpec> models;         // each must pass validate()
  std::vector<GpuSpec> gpus;             // each needs capacity, bandwidth and bf16 peak > 0
  std::vector<int64_t> seqs;             // tokens, > 0; empty = each model's default_context()
  std::vector<int64_t> batches = {1};    // sequences, > 0
  std::vector<Dtype> dtypes = {Dtype::kFp16};  // weight dtypes
  std::vector<Dtype> kv_dtypes;          // empty = default_kv_dtype(weights): 16-bit, not following int4/fp8
  Engine engine = kDefaultEngine;        // the profile each row's prediction uses
  EngineFlags engine_flags;              // its flags (checked once, as check_engine_flags)
  // false: no row's prediction is computed (has_prediction stays false), for
  // callers that read none of it; the rest of every row is unchanged.
  bool predict = true;
};

// One combination and its result. Valid only during the callback.
struct SweepRow {
  int64_t index = 0;         // 0-based position in sweep order
  size_t model = 0;          // index into SweepSpec::models
  size_t gpu = 0;            // index into SweepSpec::gpus
  const ModelSpec* model_spec = nullptr;
  const GpuSpec* gpu_spec = nullptr;
  SizeOptions options;       // seq, batch, weight and KV dtype of this row; has_gpu = true
  SizeResult result;         // == *analyze_size(*model_spec, *gpu_spec, options)
  // The deployment engine on one GPU for the same row (batch B at context T,
  // default compute and KV dtypes): == *analyze_deployment(...). Unset
  // (has_deployment false) when the engine refuses the setup.
  bool has_deployment = false;
  DeploymentResult deployment;
  // The prediction beside it: the engine profile's decode step at the same batch
  // and context (== predict_deployment(...).decode for the row). Unset
  // (has_prediction false) when there is no deployment or the engine refuses it.
  bool has_prediction = false;
  PredictedDecode prediction;
};


// Rows the sweep yields: the product of the list sizes (an empty `seqs` or
// `kv_dtypes` counts as one). Overflow when the product exceeds int64_t.
Result<int64_t> sweep_row_count(const SweepSpec& spec);

// Checks every input analyze_size would check, for every row, without
// evaluating any: non-empty lists, positive seqs and batches, complete GPUs,
// valid models and 64-bit-safe counts for each (model, seq, KV dtype).
// Errors name the list: "models", "gpus", "seq", "batch", "dtype", or the
// model field / count that is wrong.
Status validate_sweep(const SweepSpec& spec);

// Validates `spec` (as validate_sweep), then calls `on_row` once per
// combination in this deterministic order: models outermost, then gpus,
// seqs, batches, dtypes, kv_dtypes innermost (the last list varies fastest).
// On a validation error `on_row` is never called; nothing is validated per
// row. What a row shares with its neighbours is hoisted: the model part once
// per model, the deployment engine's constants once per (model, GPU, dtype
// pair), the whole row once per run of batches (the first batch, in full);
// each further batch recomputes only what the batch changes, with the same
// functions the full evaluation calls, so every row equals analyze_size's (and
// analyze_deployment's) result for it, bit for bit. The loop allocates nothing
// per row.
Status sweep(const SweepSpec& spec, const std::function<void(const SweepRow&)>& on_row);

// A stable identifier for a regime, for tables and scripts:
// "weights_do_not_fit", "capacity_bound" or "compute_reachable".
std::string_view regime_name(ServingRegime r);

}  // namespace modelcalc

#endif  // MODELCALC_SWEEP_H_
