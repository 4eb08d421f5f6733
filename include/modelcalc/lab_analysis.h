// The lab calculator's small analyses: train, chinchilla, cost from a measured
// rate, and mfu. Each takes a validated query and returns every number its
// report shows, so the report layer only renders (src/report/lab_report.h).
// Pure: no allocation, no I/O; the arithmetic is the formula core's
// (formulas.h, lab.h), under the lab's names.
//
// Units: parameters and tokens as counts, FLOP, FLOP/s, hours, days,
// tokens/s, US dollars.
#ifndef MODELCALC_LAB_ANALYSIS_H_
#define MODELCALC_LAB_ANALYSIS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "modelcalc/formulas.h"
#include "modelcalc/gpu.h"

namespace modelcalc {

// ---------------------------------------------------------------- train

struct TrainQuery {
  double params = 0;           // N, > 0
  double tokens = 0;           // D, > 0
  std::optional<GpuSpec> gpu;  // when set: peak_bf16_flops > 0
  int64_t gpus = 1;            // > 0
  double mfu = 0.4;            // (0, 1]
};

struct TrainTime {
  double peak_flops_per_gpu = 0;  // the GPU's dense bf16 peak, FLOP/s
  double gpu_hours = 0;           // training_gpu_hours(flops, peak, mfu)
  double days = 0;                // training_days(gpu_hours, gpus)
};

struct TrainResult {
  double flops = 0;             // training_flops(N, D) = 6·N·D
  double tokens_per_param = 0;  // D / N
  std::optional<TrainTime> time;  // set when the query has a GPU
};

// REQUIRES: q within the ranges its members state.
TrainResult analyze_train(const TrainQuery& q);

// ---------------------------------------------------------------- chinchilla

// Exactly one of params and compute is set, and it is > 0.
struct ChinchillaQuery {
  std::optional<double> params;   // N
  std::optional<double> compute;  // C, FLOP
};

struct ChinchillaResult {
  double params = 0;   // N: given, or chinchilla_optimal_params(C)
  double tokens = 0;   // D = 20·N
  double compute = 0;  // C: given, or training_flops(N, D)
};

// REQUIRES: exactly one of q.params and q.compute is set, > 0.
ChinchillaResult analyze_chinchilla(const ChinchillaQuery& q);

// ---------------------------------------------------------------- cost

struct CostRateQuery {
  double usd_per_gpu_hour = 0;  // > 0
  double tokens_per_s = 0;      // aggregate, > 0
  int64_t gpus = 1;             // > 0
};

struct CostRateResult {
  double usd_per_million_tokens = 0;  // cost_per_million_tokens(price, tps, gpus)
};

// REQUIRES: q within the ranges its members state.
CostRateResult analyze_cost_rate(const CostRateQuery& q);

// ---------------------------------------------------------------- mfu

struct MfuQuery {
  double tokens_per_s = 0;  // achieved, aggregate over all GPUs; > 0
  double params = 0;        // N, > 0
  std::string gpu_name;     // for the labels
  double peak_per_gpu = 0;  // dense bf16 FLOP/s, > 0
  int64_t gpus = 1;         // > 0
  MfuMode mode = MfuMode::kInference;
};

struct MfuResult {
  double flops_per_token_factor = 0;  // k: 2 (inference) or 6 (training)
  double flops_per_token = 0;         // k·N
  double peak_flops = 0;              // peak_per_gpu · gpus
  double mfu = 0;                     // mfu(tps, N, peak, mode); may exceed 1 for bad evidence
};

// REQUIRES: q within the ranges its members state.
MfuResult analyze_mfu(const MfuQuery& q);

}  // namespace modelcalc

#endif  // MODELCALC_LAB_ANALYSIS_H_
