// train-plan's presentation: the cheapest configuration line by line (text,
// --explain, JSON from one Report), the ranked alternatives, the kinds that
// cannot make it and why, and what the search does not model. Reads a
// TrainPlanResult; never recomputes.
#ifndef MODELCALC_TRAIN_PLAN_REPORT_H_
#define MODELCALC_TRAIN_PLAN_REPORT_H_

#include <string>

#include "modelcalc/train_plan.h"
#include "report.h"

namespace modelcalc {

// REQUIRES: r came from plan_training(q); `model` is the model's display name.
Report build_train_plan_report(const std::string& model, const TrainPlanQuery& q, const TrainPlanResult& r);

}  // namespace modelcalc

#endif  // MODELCALC_TRAIN_PLAN_REPORT_H_
