// Presentation of calibration (modelcalc calibrate): per row measured,
// predicted, ceiling and error; the error distribution by regime; the fit's
// parameters and its cross-validated error. Reads results; never recomputes.
#ifndef MODELCALC_CALIBRATE_REPORT_H_
#define MODELCALC_CALIBRATE_REPORT_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "modelcalc/calibrate.h"
#include "modelcalc/frontier.h"
#include "modelcalc/layout_check.h"

namespace modelcalc {

struct CalibrateView {
  std::string data;                    // where the rows come from ("data/serving-measured.tsv (compiled in)", a path)
  std::vector<std::string> ignored_columns;  // columns of the file the reader does not use (one warning)
  const Calibration* calibration = nullptr;
  const FitResult* fit = nullptr;      // --fit: the parameters fitted on every row
  const CrossValidation* cv = nullptr; // --fit: their cross-validated error
  const CalibrationParams* evaluated_with = nullptr;  // the parameters the rows were evaluated with
  std::string written;                 // --write: the file the parameters went to
  // The serving layouts' published figures, not fitted (layout_check.h); null with --data.
  const std::vector<LayoutCheck>* layouts = nullptr;
};

std::string calibrate_text(const CalibrateView& v);
// calibrate --frontier: per GPU and engine, the runs' own and the frontier's median |error|, then every run.
std::string frontier_calibration_text(const std::string& data, const FrontierCalibration& f);
nlohmann::json frontier_calibration_json(const std::string& data, const FrontierCalibration& f);
nlohmann::json calibrate_json(const CalibrateView& v);
// A summary as JSON: {rows, predicted_rows, median_abs_error, ...}.
nlohmann::json error_summary_json(const ErrorSummary& s);
nlohmann::json step_params_json(const StepTimeParams& p);

}  // namespace modelcalc

#endif  // MODELCALC_CALIBRATE_REPORT_H_
