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

enum class MeasuredMetric { kUnknown, kOutputTokensPerS, kItl, kTtft, kTokensPerSPerUser, kTotalTokensPerS };
enum class MeasuredLoad { kUnknown, kOffline, kRequestsPerS, kUnboundedRate, kConcurrency };
// How a row's requests were served: both phases on every replica, or a
// prefill pool handing its KV to a decode pool (column `layout`).
enum class MeasuredLayout { kAggregated, kDisaggregated };
// How the requests' lengths were drawn (column `length_dist`): fixed at
// isl/osl; InferenceX's uniform in [0.8 L, L] (mean 0.9 L); a dataset whose
// means isl/osl are.
enum class LengthDist { kFixed, kUniform08, kDataset };

// One pool of a disaggregated row (prefill_* / decode_* columns); 0 = empty.
struct PoolColumns {
  int64_t workers = 0, tp = 0, ep = 0, gpus = 0;
};

// One row of the schema, as written (numbers parsed; text kept).
struct ServingRow {
  std::string id, model, checkpoint, gpu;
  int64_t gpus = 0, tp = 0, pp = 0, ep = 0;  // tp/pp/ep 0: not stated (the row is skipped)
  std::string weight_dtype, kv_dtype;  // kv_dtype empty: the source does not say
  int64_t isl = 0, osl = 0;            // 0: not stated (the row is skipped)
  std::string load_text;
  MeasuredLoad load = MeasuredLoad::kUnknown;
  double load_value = 0;               // requests/s or users
  std::string metric_text;
  MeasuredMetric metric = MeasuredMetric::kUnknown;
  double value = 0;                    // in the metric's base unit
  std::string engine, engine_version, source, notes;
  // The layout columns (optional; empty = not stated).
  MeasuredLayout layout = MeasuredLayout::kAggregated;
  int dp_attention = -1;               // 1 true, 0 false, -1 not stated (a disaggregated row: the decode pool's)
  int prefill_dp_attention = -1;       // a disaggregated row's prefill pool; -1: as dp_attention
  std::string spec;                    // "mtp", "none" or "" (not stated)
  int64_t spec_tokens = 0;             // draft tokens per step (spec_tokens column); 0 = not stated
  LengthDist length_dist = LengthDist::kFixed;
  PoolColumns prefill, decode;         // disaggregated rows
  std::string layout_source;           // where empty layout cells were read from (data/serving-multiengine.tsv)
  // The engine's settings where the row's benchmark script sets them (0: its default).
  int64_t max_num_seqs = 0;            // SGLang --max-running-requests, TensorRT-LLM --max_batch_size, vLLM --max-num-seqs
  int64_t max_num_batched_tokens = 0;  // --chunked-prefill-size, --max_num_tokens, --max-num-batched-tokens
  double memory_fraction = 0;          // --mem-fraction-static, free_gpu_memory_fraction, --gpu-memory-utilization
  int64_t scheduler_poll_steps = 0;    // decode steps between the scheduler's looks at new requests
  int64_t line = 0;                    // in its file
};

// The columns parse_serving_tsv reads, by header name, in any order: the
// schema's 19 base columns are required; the layout columns are read when
// present (layout, dp_attention, prefill_dp_attention, spec, spec_tokens,
// length_dist, prefill_workers, prefill_tp, prefill_ep, prefill_gpus,
// decode_workers, decode_tp, decode_ep, decode_gpus, layout_source) and the
// engine settings a row's script sets (max_num_seqs, max_num_batched_tokens,
// memory_fraction, scheduler_poll_steps). Any other column is not read and is
// named in `ignored_columns`.
struct ServingTable {
  std::vector<ServingRow> rows;
  std::vector<std::string> ignored_columns;
};

// Strict parse: the header names every base column once; every row has as
// many fields as the header, a unique non-empty id, a non-empty source, whole
// numbers for gpus (>= 1), tp/pp/ep (>= 1 or empty: not stated; tp x pp
// dividing gpus when aggregated) and isl/osl (>= 1, or empty), a positive
// value, and layout columns in their vocabularies. Unknown loads and metrics
// parse (the row is then skipped). Lines starting with '#' are comments.
// Errors name `file`, the line and the column.
Result<ServingTable> parse_serving_table(std::string_view text, std::string_view file);
// The rows alone.
Result<std::vector<ServingRow>> parse_serving_tsv(std::string_view text, std::string_view file);
// data/serving-measured.tsv, compiled in (a malformed file aborts).
std::span<const ServingRow> shared_serving_rows();
// data/serving-multiengine.tsv, compiled in: the shared multi-engine runs with
// the layout their InferenceX rows leave unstated read from the benchmark
// scripts they cite (scripts/layouts_from_inferencex.py; column layout_source).
std::span<const ServingRow> shared_multiengine_rows();
// Both files' rows, serving-measured.tsv first: what calibrate reads by default.
std::span<const ServingRow> shared_published_rows();

// Regimes a row belongs to (a row may be in several): by what it measures,
// throughput (output or total tokens/s), TTFT, TPOT (itl_s and
// tokens_per_s_per_user); by what serves it, dense or MoE (routed experts),
// FP4 (nvfp4/mxfp4 weights), disaggregated (prefill and decode pools); by its
// shape, prefill-heavy (osl <= 128 or isl / osl >= 4) and long context (isl +
// osl >= 5,000).
enum class DataRegime { kThroughput, kTtft, kTpot, kDense, kMoe, kFp4, kDisaggregated, kPrefillHeavy, kLongContext };
inline constexpr size_t kDataRegimeCount = 9;
inline constexpr std::array<DataRegime, kDataRegimeCount> kAllDataRegimes = {
    DataRegime::kThroughput, DataRegime::kTtft,          DataRegime::kTpot,
    DataRegime::kDense,      DataRegime::kMoe,           DataRegime::kFp4,
    DataRegime::kDisaggregated, DataRegime::kPrefillHeavy, DataRegime::kLongContext};
// "throughput", "ttft", "tpot", "dense", "moe", "fp4", "disaggregated", "prefill-heavy", "long-context".
std::string_view data_regime_name(DataRegime r);

// The acceptance of each MTP draft token the prediction assumes for rows that
// ran DeepSeek's MTP drafter (none publishes its acceptance).
inline constexpr double kCalibrationMtpAcceptance = 0.7;

// One pool of a row made ready to evaluate: the ceiling's deployment and the
// engine's view of it, their memory and capacities, and how many replicas of
// it the row ran (a disaggregated row's workers; dp of an aggregated one is in
// the deployment's split).
struct PreparedPool {
  PreparedDeployment d;         // the ceiling's
  PreparedDeployment engine_d;  // as the engine runs it (engine_view)
  DeploymentMemory ceiling_memory;
  EngineSettings settings;
  EngineMemory engine_memory;
  ServingCapacity ceiling_cap, engine_cap;
  double replicas = 1;
};

// A row made ready to evaluate: everything but the time parameters hoisted.
struct PreparedRow {
  const ServingRow* row = nullptr;
  std::string skipped;             // non-empty: why the row is not evaluated
  std::string note;                // how the row was read (kv dtype not stated, engine without a profile, ...)
  EngineRelease engine = kDefaultEngine;  // the release whose family's profile it is evaluated with
  std::string model;               // the preset it resolved to
  bool moe = false;
  std::array<bool, kDataRegimeCount> regimes{};   // by DataRegime
  bool disaggregated = false;
  PreparedPool pool;               // the row's deployment; a disaggregated row's decode pool
  PreparedPool prefill_pool;       // a disaggregated row's prefill pool
  ServingRequest request;          // lengths as served (InferenceX's uniform lengths at their mean)
};
// Polls `control` (may be null) before each row: stopped, the rows prepared so far (control->status() says why).
std::vector<PreparedRow> prepare_rows(std::span<const ServingRow> rows, const SearchControl* control = nullptr);

// What the prediction of a row depends on beyond the row: every engine
// profile's time parameters (by EngineFamily) and the acceptance of an MTP draft
// token on the rows' prompts (no source publishes it: fitted on the rows that
// ran DeepSeek's MTP drafter; InferenceX sends random token ids).
inline constexpr size_t kProfileCount = kEngineFamilyCount;
struct CalibrationParams {
  std::array<StepTimeParams, kProfileCount> time;
  double mtp_acceptance = kCalibrationMtpAcceptance;
};
// The compiled-in profiles' parameters, and the acceptance above.
CalibrationParams compiled_calibration_params();

// The measured figure's counterparts in the model, for one row.
struct RowFigures {
  double predicted = 0, ceiling = 0;
  ServingFigures prediction, bound;  // the steady states behind them (a disaggregated row: its decode pool's)
};
// REQUIRES: r.skipped.empty(). The row's profile's parameters apply.
RowFigures evaluate_row(const PreparedRow& r, const CalibrationParams& p);
// evaluate_row(r, p).predicted, without the ceiling's evaluation (the fit's residuals).
double predict_row(const PreparedRow& r, const CalibrationParams& p);

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
  // Rows predicted with no finite figure (a TTFT at a rate the engine cannot sustain): their |error| is
  // infinite, inside the median, p90 and max; the mean is over the others.
  int64_t unbounded = 0;
};
// Summary of |error| over `errors` (p90: the value below which 90 % lie, by
// the nearest-rank rule on the sorted list). `rows` and `over` as given.
ErrorSummary summarize_errors(std::vector<double> abs_errors, int64_t rows, int64_t over);

struct Calibration {
  std::vector<CalibratedRow> rows;
  ErrorSummary summary;
  std::array<ErrorSummary, kDataRegimeCount> by_regime;  // by DataRegime
};
// Every row evaluated with its family's parameters.
Calibration calibrate_rows(std::span<const PreparedRow> rows, const CalibrationParams& params);

// ---------------------------------------------------------------- fitting
// The fit minimizes, over the rows in `use` (true = in), the robust (Cauchy)
// loss of the log errors r = ln(predicted / measured): mean of c^2 ln(1 +
// (r / c)^2) with c = kFitLossScale, so a row the model cannot express (a
// warm-up outlier in a mean, a misread setup) does not pull every parameter.
// Parameters: a pooled set of step parameters; each profile with rows adds its
// own deviation from it, held towards it by a weak prior (a parameter the
// profile's rows do not inform stays the pooled value); one factor per
// architecture family that has rows (Hopper the reference, 1); the MTP
// acceptance when MTP rows are in. Levenberg-Marquardt (src/core/least_squares.h)
// on transformed parameters (fractions, factors and the acceptance as logits,
// seconds as logs, so every value stays in its range) from a fixed start, each
// row's residual the signed square root of its Cauchy loss, the priors as
// residuals of their own, the Jacobian by forward differences over the rows
// each parameter moves: deterministic.
inline constexpr double kFitLossScale = 0.3;
struct FitResult {
  CalibrationParams params;                     // every profile's; a profile without rows gets `pooled`
  StepTimeParams pooled;                        // the shared base, the architecture factors in it
  std::array<int64_t, kProfileCount> rows_by_profile{};  // fitted rows by profile; 0: inherits `pooled`
  std::array<int64_t, kGpuArchCount> rows_by_arch{};     // fitted rows by architecture family; 0: factor 1
  int64_t mtp_rows = 0;                         // rows that fit the MTP acceptance
  double loss = 0;                              // the robust loss at params
  int64_t rows = 0, evaluations = 0, iterations = 0;
  // Why the solver stopped: "cost", "gradient", "step" (converged), "iterations", "rejections", "stopped".
  std::string stop;
};
// The fit's start, every variable's (the architecture factors at 1, the MTP
// acceptance at kCalibrationMtpAcceptance, the deviations at 0).
StepTimeParams fit_start_params();
// `control` (modelcalc/cancel.h) is polled per iteration; when it says stop the
// fit returns its best point so far and the caller returns control->status().
FitResult fit_calibration(std::span<const PreparedRow> rows, const std::vector<bool>& use,
                          const SearchControl* control = nullptr);

// Cross-validation by whole groups: every GPU, every model and every engine
// release (the row's family and its release's major.minor, as prepare_rows
// read it; "unrecorded" where the row names none) of the evaluated rows is
// left out in turn; the parameters fitted on the rest predict it.
enum class CvKind { kGpu, kModel, kRelease };
inline constexpr std::array<CvKind, 3> kAllCvKinds = {CvKind::kGpu, CvKind::kModel, CvKind::kRelease};
// "gpu", "model", "release".
std::string_view cv_kind_name(CvKind k);
// The group a row falls in for `k` ("h100-sxm", "llama-3.1-8b", "sglang 0.5", "trtllm unrecorded").
std::string cv_group(const PreparedRow& r, CvKind k);
struct CvFold {
  CvKind kind = CvKind::kGpu;
  std::string held_out;  // the group left out
  CalibrationParams params;
  StepTimeParams pooled;
  ErrorSummary test;
  std::array<ErrorSummary, kDataRegimeCount> test_by_regime;
};
// One parameter's values across the folds of one kind.
struct ParamSpread {
  std::string name;  // a step parameter ("pooled" set), "arch_factor_...", "mtp_acceptance"
  double fitted = 0, min = 0, median = 0, max = 0;
};
struct CvSummary {
  CvKind kind = CvKind::kGpu;
  int64_t folds = 0;
  ErrorSummary pooled;  // every fold's test rows together
  std::array<ErrorSummary, kDataRegimeCount> by_regime;
  std::vector<ParamSpread> spread;
};
struct CrossValidation {
  std::vector<CvFold> folds;
  std::vector<CvSummary> kinds;  // one per kind asked for
};
// REQUIRES: `full` is fit_calibration over every row (the spreads' `fitted`).
// `control` is polled per fold (and inside each fold's fit); see fit_calibration.
CrossValidation cross_validate(std::span<const PreparedRow> rows, std::span<const CvKind> kinds,
                               const FitResult& full, const SearchControl* control = nullptr);

}  // namespace modelcalc

#endif  // MODELCALC_CALIBRATE_H_
