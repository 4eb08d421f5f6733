// Presentation of the `size` analysis: turns a SizeResult into a Report
// (text, --explain and JSON all come from it).
#ifndef MODELCALC_SIZE_REPORT_H_
#define MODELCALC_SIZE_REPORT_H_

#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/size.h"
#include "report.h"

namespace modelcalc {

Report build_size_report(const ModelSpec& m, const GpuSpec& gpu, const SizeOptions& o,
                         const SizeResult& r);

}  // namespace modelcalc

#endif  // MODELCALC_SIZE_REPORT_H_
