// Presentation of the roofline analysis: a Report (for --explain and JSON),
// a compact table (the default text output) and the names of operating points
// shared with the plot.
#ifndef MODELCALC_ROOFLINE_REPORT_H_
#define MODELCALC_ROOFLINE_REPORT_H_

#include <string>

#include "modelcalc/model.h"
#include "modelcalc/deployment.h"
#include "modelcalc/roofline.h"
#include "modelcalc/serving.h"
#include "report.h"

namespace modelcalc {

// Human label of a point: "decode B=64", "prefill T=8,192", "GEMM 8192³", "I = 1".
std::string point_label(const OperatingPoint& p);
// JSON key of a point: "decode_b64", "prefill", "gemm", "given".
std::string point_key(const OperatingPoint& p);

// `model` may be null (no model flags). With one GPU the keys sit at the top
// level ({ridge, attainable_flops, memory_bound} when an intensity was given);
// with several, under "gpus.<key>.".
Report build_roofline_report(const ModelSpec* model, const RooflineOptions& o, const RooflineResult& r);

// One table per GPU: point, FLOP/step, bytes/step, intensity, attainable,
// share of peak, regime, fits. Numbers formatted by format_value, as in the Report.
std::string render_roofline_table(const ModelSpec* model, const RooflineOptions& o, const RooflineResult& r);

// The deployment engine's decode step at one (GPU, batch): what size reports for the same flags.
struct RooflineEnginePoint {
  const GpuSpec* gpu = nullptr;  // not owned
  DecodeStep step;
  double max_sequences = 0;      // per replica
  const DeploymentPrediction* predicted = nullptr;  // not owned; null: no engine profile runs on the GPU
};
// The answer section of roofline's text: per GPU and batch, the serving engine's predicted step and
// rate first, then the ceiling's step (per GPU: FLOPs / bytes = intensity against the compute dtype's
// ridge, its time and regime). "" without points.
std::string render_roofline_engine(const std::vector<RooflineEnginePoint>& points);

}  // namespace modelcalc

#endif  // MODELCALC_ROOFLINE_REPORT_H_
