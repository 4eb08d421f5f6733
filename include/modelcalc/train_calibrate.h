// The training reality check: published runs (data/training-measured.tsv,
// compiled in, each with its setup and source) against the training engine's
// ceiling and prediction for the same setup, and the fit of the training
// profile's three global parameters with leave-one-source-out error.
#ifndef MODELCALC_TRAIN_CALIBRATE_H_
#define MODELCALC_TRAIN_CALIBRATE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/status.h"
#include "modelcalc/training.h"

namespace modelcalc {

// What a row's `measured` is, as its source publishes it.
enum class TrainMetric {
  kHfuTflopsPerGpu,    // hardware FLOP/s per GPU, recomputation counted (Megatron's "achieved teraFLOP/s")
  kModelTflopsPerGpu,  // model FLOP/s per GPU (PaLM's MFU numerator)
  kStepSeconds,        // seconds per optimizer step (iteration time)
};
// "hfu_tflops_per_gpu", "model_tflops_per_gpu", "step_seconds".
std::string_view train_metric_name(TrainMetric m);
// A time is bounded from below, a throughput from above.
constexpr bool lower_is_better(TrainMetric m) { return m == TrainMetric::kStepSeconds; }

struct TrainMeasuredRow {
  std::string id, source;       // source: a key of the file's header comment (N21, K22, L24)
  std::string model;            // a preset, or "gpt" with layers, hidden, heads
  int64_t layers = 0, hidden = 0, heads = 0;
  std::string gpu;
  TrainOptions options;         // the setup, as the source states it (notes say what was inferred)
  TrainMetric metric = TrainMetric::kHfuTflopsPerGpu;
  double measured = 0;
  std::string notes;
};

// Strict parse of the data/training-measured.tsv format.
Result<std::vector<TrainMeasuredRow>> parse_train_measured(std::string_view tsv);
// The compiled-in rows (a malformed file aborts: a programming error).
std::span<const TrainMeasuredRow> train_measured_catalog();

struct TrainCalibrationRow {
  const TrainMeasuredRow* row = nullptr;
  bool evaluated = false;
  std::string skipped;          // why not, when !evaluated
  double predicted = 0;         // in the row's metric, with the profile
  double ceiling = 0;           // the bound in the row's metric: compute at the dense peak plus the bubble
  double error = 0;             // predicted / measured - 1
  bool beyond_ceiling = false;  // the published figure is better than the bound (a modelling defect)
  double mfu = 0, hfu = 0;      // predicted
  bool fits = false;            // the engine's memory verdict for the setup
  double peak_memory = 0;
};

struct TrainCalibrationSummary {
  int64_t rows = 0, predicted_rows = 0;
  double median_abs_error = 0, mean_abs_error = 0, p90_abs_error = 0, max_abs_error = 0;
  int64_t over_ceiling = 0;     // rows whose published figure beats the modelled bound
  int64_t within_15_percent = 0;
};
TrainCalibrationSummary summarize(std::span<const TrainCalibrationRow> rows);

// Every row evaluated with `profile`.
std::vector<TrainCalibrationRow> calibrate_training(std::span<const TrainMeasuredRow> rows,
                                                    const TrainProfile& profile = default_train_profile());

// The fit: the profile minimizing the sum over rows of log(predicted /
// measured)^2 (Nelder-Mead from a fixed start, bounded to the parameters'
// physical ranges; deterministic). Leave-one-source-out: for each source,
// the profile fitted on the other sources, and its errors on this one.
struct TrainFitFold {
  std::string source;           // held out
  TrainProfile profile;         // fitted without it
  std::vector<TrainCalibrationRow> rows;  // the held-out rows under that profile
  TrainCalibrationSummary summary;
};
struct TrainFitResult {
  TrainProfile profile;         // fitted on every row
  double objective = 0;         // its sum of squared log errors
  std::vector<TrainCalibrationRow> rows;  // every row under it (in-sample)
  TrainCalibrationSummary summary;
  std::vector<TrainFitFold> folds;
  TrainCalibrationSummary loso;  // over every held-out row of every fold
};
TrainFitResult fit_training_profile(std::span<const TrainMeasuredRow> rows);

}  // namespace modelcalc

#endif  // MODELCALC_TRAIN_CALIBRATE_H_
