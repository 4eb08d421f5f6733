// Presentation of the lab's calculator: train, chinchilla, cost, mfu,
// tradeoff and the worked example. Each builder takes validated inputs and
// returns a Report (text, --explain and JSON all come from it); the numbers
// come from the formula core (formulas.h, lab.h), the size analysis and
// resolve_tradeoff.
#ifndef MODELCALC_LAB_REPORT_H_
#define MODELCALC_LAB_REPORT_H_

#include <cstdint>
#include <optional>

#include "modelcalc/cost.h"
#include "modelcalc/formulas.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/size.h"
#include "modelcalc/status.h"
#include "modelcalc/tradeoff.h"
#include "report.h"

namespace modelcalc {

struct TrainQuery {
  double params = 0;            // N, > 0
  double tokens = 0;            // D, > 0
  std::optional<GpuSpec> gpu;   // when set: peak_bf16_flops > 0
  int64_t gpus = 1;             // > 0
  double mfu = 0.4;             // (0, 1]
};
Report build_train_report(const TrainQuery& q);

// Exactly one of params and compute is set, and it is > 0.
struct ChinchillaQuery {
  std::optional<double> params;   // N
  std::optional<double> compute;  // C, FLOP
};
Report build_chinchilla_report(const ChinchillaQuery& q);

struct CostRateQuery {
  double usd_per_gpu_hour = 0;  // > 0
  double tokens_per_s = 0;      // aggregate, > 0
  int64_t gpus = 1;             // > 0
};
Report build_cost_rate_report(const CostRateQuery& q);


// Ceiling-based cost: renders analyze_cost_ceiling's result, a FLOOR on real cost.
// REQUIRES: r == analyze_cost_ceiling(m, one_gpu, r.gpus, options, usd_per_gpu_hour), r.size.fits.
Report build_cost_ceiling_report(const ModelSpec& m, const GpuSpec& one_gpu, const SizeOptions& options,
                                 double usd_per_gpu_hour, const CostCeilingResult& r);

struct MfuQuery {
  double tokens_per_s = 0;  // achieved, aggregate over all GPUs; > 0
  double params = 0;        // N, > 0
  std::string gpu_name;     // for the labels
  double peak_per_gpu = 0;  // dense bf16 FLOP/s, > 0
  int64_t gpus = 1;         // > 0
  MfuMode mode = MfuMode::kInference;
};
Report build_mfu_report(const MfuQuery& q);

// REQUIRES: r == resolve_tradeoff(a, b, w).
Report build_tradeoff_report(const Candidate& a, const Candidate& b, const TradeoffWeights& w,
                             const TradeoffResult& r);

// The lab's worked example end to end (70B and 8B dense GQA models on H100).
Report build_example_report(const LabExample& example);

}  // namespace modelcalc

#endif  // MODELCALC_LAB_REPORT_H_
