// Calibration: published serving measurements against the prediction and the
// ceiling of the same setup, and the fit of the step model's parameters.
//
// Rows are in the shared schema (shared/reference/README.md; docs/prediction.md
// repeats it): one measurement of one (model, GPU, split, dtypes, request
// shape, load, metric). The compiled-in default is data/serving-measured.tsv
// (NVIDIA's TensorRT-LLM performance overview); users bring their own files.
// A row the engine cannot express (an architecture without a preset, a dtype
// or GPU the catalog lacks, a load or metric without a model) is skipped with
// the reason, never guessed.
#ifndef MODELCALC_CALIBRATE_H_
#define MODELCALC_CALIBRATE_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/cancel.h"
#include "modelcalc/deployment.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/serving.h"
#include "modelcalc/status.h"

namespace modelcalc {

enum class MeasuredMetric { kUnknown, kOutputTokensPerS, kItl, kTtft, kTokensPerSPerUser };
enum class MeasuredLoad { kUnknown, kOffline, kRequestsPerS, kUnboundedRate, kConcurrency };

// One row of the schema, as written (numbers parsed; text kept).
struct ServingRow {
  std::string id, model, checkpoint, gpu;
  int64_t gpus = 0, tp = 0, pp = 0, ep = 0;
  std::string weight_dtype, kv_dtype;  // kv_dtype empty: the source does not say
  int64_t isl = 0, osl = 0;            // 0: not a fixed length (the row is skipped)
  std::string load_text;
  MeasuredLoad load = MeasuredLoad::kUnknown;
  double load_value = 0;               // requests/s or users
  std::string metric_text;
  MeasuredMetric metric = MeasuredMetric::kUnknown;
  double value = 0;                    // in the metric's base unit
  std::string engine, engine_version, source, notes;
  int64_t line = 0;                    // in its file
};

// Strict parse: the header names the schema's 19 columns in order; every row
// has all of them, a unique non-empty id, a non-empty source, whole numbers
// for gpus/tp/pp/ep (>= 1, tp x pp dividing gpus) and isl/osl (>= 1, or empty
// for "not fixed"), a positive value. Unknown loads and metrics parse (the
// row is then skipped). Lines starting with '#' are comments. Errors name
// `file`, the line and the column.
Result<std::vector<ServingRow>> parse_serving_tsv(std::string_view text, std::string_view file);
// data/serving-measured.tsv, compiled in (a malformed file aborts).
std::span<const ServingRow> shared_serving_rows();

// Regimes a row belongs to (a row may be in several; decode-heavy = none of
// the others): latency (itl_s, ttft_s, tokens_per_s_per_user rows),
// prefill-heavy (osl <= 128 or isl / osl >= 4), long context (isl + osl >=
// 5,000), MoE (routed experts).
enum class DataRegime { kLatency, kPrefillHeavy, kLongContext, kMoe, kDecodeHeavy };
inline constexpr std::array<DataRegime, 5> kAllDataRegimes = {DataRegime::kLatency, DataRegime::kPrefillHeavy, DataRegime::kLongContext,
                                                     DataRegime::kMoe, DataRegime::kDecodeHeavy};
// "latency", "prefill-heavy", "long-context", "moe", "decode-heavy".
std::string_view data_regime_name(DataRegime r);

// A row made ready to evaluate: everything but the time parameters hoisted.
struct PreparedRow {
  const ServingRow* row = nullptr;
  std::string skipped;             // non-empty: why the row is not evaluated
  std::string note;                // how the row was read (kv dtype not stated, engine without a profile)
  EngineRelease engine = kDefaultEngine;  // the release whose profile it is evaluated with
  std::string model;               // the preset it resolved to
  bool moe = false;
  std::array<bool, 5> regimes{};   // by DataRegime
  PreparedDeployment d;            // the ceiling's
  PreparedDeployment engine_d;     // as the engine runs it (engine_view)
  DeploymentMemory ceiling_memory;
  EngineSettings settings;
  EngineMemory engine_memory;
  ServingRequest request;
  ServingCapacity ceiling_cap, engine_cap;
};
std::vector<PreparedRow> prepare_rows(std::span<const ServingRow> rows);

// The measured figure's counterparts in the model, for one row.
struct RowFigures {
  double predicted = 0, ceiling = 0;
  ServingFigures prediction, bound;  // the steady states behind them
};
// REQUIRES: r.skipped.empty(). `p` applies to rows of r.engine.
RowFigures evaluate_row(const PreparedRow& r, const StepTimeParams& p);

struct CalibratedRow {
  const PreparedRow* prepared = nullptr;
  bool evaluated = false;
  double measured = 0, predicted = 0, ceiling = 0;
  double error = 0;           // predicted / measured - 1
  bool over_ceiling = false;  // the measurement beats the ceiling (a rate above it, a time below it)
  RowFigures figures;
};

struct ErrorSummary {
  int64_t rows = 0;            // rows considered
  int64_t predicted_rows = 0;  // of which evaluated
  double median_abs_error = 0, mean_abs_error = 0, p90_abs_error = 0, max_abs_error = 0;
  int64_t over_ceiling = 0;
};
// Summary of |error| over `errors` (p90: the value below which 90 % lie, by
// the nearest-rank rule on the sorted list). `rows` and `over` as given.
ErrorSummary summarize_errors(std::vector<double> abs_errors, int64_t rows, int64_t over);

struct Calibration {
  std::vector<CalibratedRow> rows;
  ErrorSummary summary;
  std::array<ErrorSummary, 5> by_regime;  // by DataRegime
};
// Every row evaluated with its engine's parameters (`params[engine]`).
Calibration calibrate_rows(std::span<const PreparedRow> rows, const std::array<StepTimeParams, kEngineFamilyCount>& params);
// The compiled-in profiles' parameters, by EngineFamily.
std::array<StepTimeParams, kEngineFamilyCount> profile_params();

// ---------------------------------------------------------------- fitting
// The fit: the mean squared log error, mean over rows of ln(predicted /
// measured)^2, of the trtllm profile's rows in `use` (true = in), minimized
// by Nelder-Mead (fixed start, fixed steps, restarted from its best point
// until it stops improving: deterministic) with every fraction kept in
// [0.02, 1] and the overheads in [0, 0.1] s.
struct FitResult {
  StepTimeParams params;
  double loss = 0;   // at params
  int64_t rows = 0;  // rows fitted
  int64_t evaluations = 0;
};
// `control` (modelcalc/cancel.h) is polled per restart; when it says stop the fit
// returns its best point so far and the caller returns control->status().
FitResult fit_step_params(std::span<const PreparedRow> rows, const std::vector<bool>& use,
                          const SearchControl* control = nullptr);

// Cross-validation: for each seed, the (model, GPU) groups of the evaluated
// trtllm rows are shuffled (std::mt19937_64 seeded with the seed) and split in
// half; the parameters fitted on one half predict the other.
struct CvFold {
  uint64_t seed = 0;
  int64_t train_groups = 0, test_groups = 0;
  StepTimeParams params;
  ErrorSummary test;
  std::array<ErrorSummary, 5> test_by_regime;
};
struct CrossValidation {
  std::vector<CvFold> folds;
  ErrorSummary pooled;                        // every fold's test errors together
  std::array<ErrorSummary, 5> pooled_by_regime;
};
// `control` is polled per fold (and inside each fold's fit); see fit_step_params.
CrossValidation cross_validate(std::span<const PreparedRow> rows, std::span<const uint64_t> seeds,
                               const SearchControl* control = nullptr);

}  // namespace modelcalc

#endif  // MODELCALC_CALIBRATE_H_
