// The `sweep` analysis: `size` over every combination of lists of models,
// GPUs, splits, context lengths, batches and dtypes, one row per combination,
// handed to a callback so a caller can sweep millions of points without
// collecting them. Each row's numbers are exactly those analyze_size (the
// teaching view, GPUs pooled) and the deployment engine give for it.
#ifndef MODELCALC_SWEEP_H_
#define MODELCALC_SWEEP_H_

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "modelcalc/cancel.h"
#include "modelcalc/deployment.h"
#include "modelcalc/dtype.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/serving.h"
#include "modelcalc/size.h"
#include "modelcalc/status.h"

namespace modelcalc {

// The lists to combine. Every list but `contexts` and `kv_dtypes` must be
// non-empty.
struct SweepSpec {
  std::vector<ModelSpec> models;         // each must pass validate()
  std::vector<GpuSpec> gpus;             // each needs capacity, bandwidth and bf16 peak > 0
  std::vector<Parallelism> splits = {Parallelism{}};  // tp x pp x ep x dp of each GPU kind; each >= 1
  std::vector<int64_t> contexts;         // tokens, > 0; empty = each model's default_context()
  std::vector<int64_t> batches = {1};    // sequences, > 0
  std::vector<Dtype> dtypes = {kDefaultWeightDtype};  // weight dtypes
  std::vector<Dtype> kv_dtypes;          // empty = default_kv_dtype(weights): 16-bit, not following int4/fp8
  // The release whose profile each row's prediction uses; unset: each GPU's vendor default (engine_for in
  // engine_rules.h); a GPU no profile runs on gets no prediction (has_prediction false).
  std::optional<EngineRelease> engine;
  EngineFlags engine_flags;              // its flags (checked once, as check_engine_flags)
  // false: no row's prediction is computed (has_prediction stays false), for
  // callers that read none of it; the rest of every row is unchanged.
  bool predict = true;
  // The layout options every row carries (deployment.h; defaults: off). A
  // split with dp_attention spreads the experts over its ep ranks; a model
  // without routed experts runs such a split at ep 1.
  double expert_imbalance = 1.0;
  int64_t redundant_experts = 0;
  bool two_batch_overlap = false;
  SpeculativeDecoding spec;  // spec.draft not owned: it must outlive the sweep
  PrefixCache prefix;
  // Polled between batches (modelcalc/cancel.h): sweep() returns its status when
  // it says stop, after the rows already delivered. Null: never stops. Not owned.
  const SearchControl* control = nullptr;
};

// One combination and its result. Valid only during the callback.
struct SweepRow {
  int64_t index = 0;         // 0-based position in sweep order
  size_t model = 0;          // index into SweepSpec::models
  size_t gpu = 0;            // index into SweepSpec::gpus
  size_t split = 0;          // index into SweepSpec::splits
  const ModelSpec* model_spec = nullptr;
  const GpuSpec* gpu_spec = nullptr;
  const Parallelism* split_spec = nullptr;
  SizeOptions options;       // context, batch, weight and KV dtype of this row; has_gpu = true
  // == *analyze_size(*model_spec, tensor_parallel(*gpu_spec, split.gpus()), options):
  // the teaching view pools the split's GPUs, as `size --gpus N` does.
  SizeResult result;
  // The model's weights as served at the row's weight dtype, mixed dtypes and scales included (the
  // checkpoint's bytes): == model_weights(*model_spec, {weight_dtype}).total(), size's weights.bytes.
  int64_t weight_bytes = 0;
  // The deployment engine on the row's split (batch B per replica at context
  // T, default compute dtype): == *analyze_deployment(...). Unset
  // (has_deployment false) when the engine refuses the setup.
  bool has_deployment = false;
  DeploymentResult deployment;
  // The engine's serving regime for the row's scenario, whatever the batch:
  // == serving_regime(...)->regime (scenario.h). Set with has_deployment.
  DeploymentRegime serving_regime = DeploymentRegime::kCapacityBound;
  // The prediction beside it: the engine profile's decode step at the same batch
  // and context (== predict_deployment(...).decode for the row). Unset
  // (has_prediction false) when there is no deployment or the engine refuses it (a named engine whose
  // rules refuse the row's GPU or layout, check_engine_rules, as size refuses it).
  bool has_prediction = false;
  PredictedDecode prediction;
};


// Rows the sweep yields: the product of the list sizes (an empty `contexts` or
// `kv_dtypes` counts as one). Overflow when the product exceeds int64_t.
Result<int64_t> sweep_row_count(const SweepSpec& spec);

// Checks every input analyze_size would check, for every row, without
// evaluating any: non-empty lists, positive contexts, batches and split
// degrees, complete GPUs, valid models and 64-bit-safe counts for each
// (model, context, KV dtype). Errors name the list: "models", "gpus",
// "splits", "context", "batch", "dtype", or the model field / count that is
// wrong. A split the engine refuses for a model (tp not dividing its heads)
// is not an error: that row has no deployment.
Status validate_sweep(const SweepSpec& spec);

// Validates `spec` (as validate_sweep), then calls `on_row` once per
// combination in this deterministic order: models outermost, then gpus,
// splits, contexts, batches, dtypes, kv_dtypes innermost (the last list
// varies fastest).
// On a validation error `on_row` is never called; nothing is validated per
// row. What a row shares with its neighbours is hoisted: the model part once
// per model, the deployment engine's constants once per (model, GPU, split,
// dtype pair), the whole row once per run of batches (the first batch, in
// full, and the serving regime);
// each further batch recomputes only what the batch changes, with the same
// functions the full evaluation calls, so every row equals analyze_size's (and
// analyze_deployment's) result for it, bit for bit. The loop allocates nothing
// per row.
Status sweep(const SweepSpec& spec, const std::function<void(const SweepRow&)>& on_row);

}  // namespace modelcalc

#endif  // MODELCALC_SWEEP_H_
