// calibrate --training's presentation: each published run beside the engine's
// prediction and ceiling, the error distribution, and the profile's fit with
// leave-one-source-out error. Reads results (train_calibrate.h).
#ifndef MODELCALC_TRAIN_CALIBRATE_REPORT_H_
#define MODELCALC_TRAIN_CALIBRATE_REPORT_H_

#include <vector>

#include "modelcalc/train_calibrate.h"
#include "report.h"

namespace modelcalc {

// REQUIRES: rows == calibrate_training(train_measured_catalog(), profile).
Report build_train_calibration_report(const std::vector<TrainCalibrationRow>& rows, const TrainProfile& profile);
// REQUIRES: fit == fit_training_profile(train_measured_catalog()); `compiled` is the profile in use.
Report build_train_fit_report(const TrainFitResult& fit, const TrainProfile& compiled);

}  // namespace modelcalc

#endif  // MODELCALC_TRAIN_CALIBRATE_REPORT_H_
