// calibrate --training [--fit]: the training reality check's branch of the
// calibrate command (cmd_calibrate.cc declares the flags through here, so the
// serving branch's file stays as it is).
#ifndef MODELCALC_TRAIN_CALIBRATE_CLI_H_
#define MODELCALC_TRAIN_CALIBRATE_CLI_H_

#include <ostream>

#include "flags.h"
#include "inputs.h"
#include "modelcalc/status.h"

namespace modelcalc {

struct TrainingCalibrateFlags {
  bool training = false;  // --training: published training runs against the training engine
  bool fit = false;       // --fit (with --training): refit the training profile, leave-one-source-out
};
void add_training_calibrate_flags(FlagSet& flags, TrainingCalibrateFlags* f);
Status run_training_calibrate(const TrainingCalibrateFlags& f, const OutputFlags& o, std::ostream& out);

}  // namespace modelcalc

#endif  // MODELCALC_TRAIN_CALIBRATE_CLI_H_
