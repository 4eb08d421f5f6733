// Presentation of the lab's calculator: train, chinchilla, cost, mfu,
// tradeoff and the worked example. Each builder takes a query and the result
// its analysis returned (lab_analysis.h, analyze_cost_ceiling,
// resolve_tradeoff, the worked example's LabExample) and returns a Report
// (text, --explain and JSON all come from it); it computes nothing itself.
#ifndef MODELCALC_LAB_REPORT_H_
#define MODELCALC_LAB_REPORT_H_

#include <cstdint>
#include <optional>

#include "modelcalc/cost.h"
#include "modelcalc/formulas.h"
#include "modelcalc/gpu.h"
#include "modelcalc/lab_analysis.h"
#include "modelcalc/model.h"
#include "modelcalc/size.h"
#include "modelcalc/status.h"
#include "modelcalc/tradeoff.h"
#include "modelcalc/training.h"
#include "report.h"

namespace modelcalc {

// The training engine's figures beside the lab's view (train with a model):
// FLOPs per token with attention and the lm_head, and, for a layout, one
// predicted step. Pointers are not owned; step, options and gpu may be null.
struct TrainEngineView {
  const ModelSpec* model = nullptr;
  int64_t seq = 0;
  Recompute recompute = Recompute::kNone;
  AttentionCount count = AttentionCount::kFull;
  TrainFlopsPerToken per_token;
  const TrainStepResult* step = nullptr;
  const TrainOptions* options = nullptr;
  const GpuSpec* gpu = nullptr;
};
// REQUIRES: r == analyze_train(q); engine's figures from the training engine.
Report build_train_report(const TrainQuery& q, const TrainResult& r, const TrainEngineView* engine = nullptr);
// REQUIRES: r == analyze_chinchilla(q).
Report build_chinchilla_report(const ChinchillaQuery& q, const ChinchillaResult& r);
// REQUIRES: r == analyze_cost_rate(q).
Report build_cost_rate_report(const CostRateQuery& q, const CostRateResult& r);

// Ceiling-based cost: renders analyze_cost_ceiling's result, a FLOOR on real cost.
// REQUIRES: r == analyze_cost_ceiling(m, one_gpu, r.gpus, options, usd_per_gpu_hour), r.size.fits.
Report build_cost_ceiling_report(const ModelSpec& m, const GpuSpec& one_gpu, const SizeOptions& options,
                                 double usd_per_gpu_hour, const CostCeilingResult& r);

// The training engine's utilization of a measured training throughput.
struct MfuEngineView {
  const ModelSpec* model = nullptr;
  int64_t seq = 0;
  Recompute recompute = Recompute::kNone;
  AttentionCount count = AttentionCount::kFull;
  TrainFlopsPerToken per_token;
  double mfu = 0, hfu = 0;  // flops_utilization with the model and the hardware FLOPs
};
// REQUIRES: r == analyze_mfu(q).
Report build_mfu_report(const MfuQuery& q, const MfuResult& r, const MfuEngineView* engine = nullptr);

// REQUIRES: r == resolve_tradeoff(a, b, w).
Report build_tradeoff_report(const Candidate& a, const Candidate& b, const TradeoffWeights& w,
                             const TradeoffResult& r);

// The lab's worked example end to end (70B and 8B dense GQA models on H100).
Report build_example_report(const LabExample& example);

}  // namespace modelcalc

#endif  // MODELCALC_LAB_REPORT_H_
