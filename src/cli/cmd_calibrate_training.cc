// calibrate --training: published training runs (data/training-measured.tsv)
// against the training engine's ceiling and prediction; --fit refits the
// profile with leave-one-source-out error.
#include "modelcalc/train_calibrate.h"
#include "train_calibrate_cli.h"
#include "train_calibrate_report.h"

namespace modelcalc {

void add_training_calibrate_flags(FlagSet& flags, TrainingCalibrateFlags* f) {
  flags
      .toggle("--training", "Published training runs (compiled in, each with its source) against the training engine",
              &f->training)
      .toggle("--fit", "Refit the serving engine's step parameters on the data and cross-validate them; with "
                       "--training: the training engine's, with leave-one-source-out error", &f->fit);
}

Status run_training_calibrate(const TrainingCalibrateFlags& f, const OutputFlags& o, std::ostream& out) {
  if (f.fit && !f.training) return Status::InvalidArgument("--fit", "needs --training (the training profile's fit)");
  const auto rows = train_measured_catalog();
  if (f.fit) {
    emit(build_train_fit_report(fit_training_profile(rows), default_train_profile()), o, out);
  } else {
    emit(build_train_calibration_report(calibrate_training(rows), default_train_profile()), o, out);
  }
  return Status::Ok();
}

}  // namespace modelcalc
