// Presentation of the `size` analysis: turns a SizeResult into a Report
// (text, --explain and JSON all come from it).
#ifndef MODELCALC_SIZE_REPORT_H_
#define MODELCALC_SIZE_REPORT_H_

#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/deployment.h"
#include "modelcalc/size.h"
#include "report.h"

namespace modelcalc {

// `served`: the model's weights as served (model_weights: the checkpoint's mixed dtypes and scales),
// weights.bytes; null (drill 1's exercises) prints the teaching view's every-parameter figure there.
Report build_size_report(const ModelSpec& m, const GpuSpec& gpu, const SizeOptions& o,
                         const SizeResult& r, const WeightShard* served = nullptr);

}  // namespace modelcalc

#endif  // MODELCALC_SIZE_REPORT_H_
