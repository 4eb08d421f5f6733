// Ceiling-based serving cost: the size analysis' aggregate decode ceiling
// (capped by the compute ceiling) priced per GPU-hour. A FLOOR on real cost:
// engines reach 60-80 % of the ceiling. Also the lab's worked example (two
// models, the same analyses), so its report only renders numbers.
#ifndef MODELCALC_COST_H_
#define MODELCALC_COST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "modelcalc/deployment.h"
#include "modelcalc/dtype.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/serving.h"
#include "modelcalc/size.h"
#include "modelcalc/status.h"
#include "modelcalc/tradeoff.h"

namespace modelcalc {

// Aggregate decode tokens/s: the bandwidth ceiling (SizeResult::tokens_per_s_aggregate),
// the compute ceiling peak / F_token, and the smaller of the two.
struct DecodeCeiling {
  double bandwidth_tps = 0;
  double compute_tps = 0;
  double tps = 0;
};
DecodeCeiling decode_ceiling(const SizeResult& r, const GpuSpec& g);

struct CostCeilingResult {
  int64_t gpus = 1;
  GpuSpec gpu;                       // tensor_parallel(one_gpu, gpus)
  SizeResult size;
  double weight_step_bytes = 0;      // weights read per decode step: step bytes − B × KV
  DecodeCeiling ceiling;             // valid when size.fits
  double usd_per_million_tokens = 0; // price × gpus / (tps × 3600) × 1e6; 0 when !size.fits
  // What to expect from an engine reaching 80 % and 60 % of the ceiling (the
  // usual range): the floor / 0.8 and the floor / 0.6. 0 when !size.fits.
  double usd_per_million_tokens_at_80pct = 0, usd_per_million_tokens_at_60pct = 0;
};

// REQUIRES: validate(m).ok(), one_gpu has bandwidth, capacity and bf16 peak > 0,
// gpus > 0, usd_per_gpu_hour > 0. Fails as analyze_size does; weights that do
// not fit are not an error here (size.fits is false; the caller decides).
Result<CostCeilingResult> analyze_cost_ceiling(const ModelSpec& m, const GpuSpec& one_gpu, int64_t gpus,
                                               const SizeOptions& options, double usd_per_gpu_hour);

// The modelled deployment priced: the engine's aggregate decode rate (shards,
// replication, communication) over all its GPUs at usd_per_gpu_hour. A floor
// like the ceiling above, and one that charges what a split costs.
struct ModeledCost {
  double usd_per_gpu_hour = 0;
  double gpus = 0;                    // tp x pp x dp
  double tokens_per_s = 0;            // decode, aggregate over the replicas
  double usd_per_million_tokens = 0;  // price x gpus / (tps x 3600) x 1e6
  bool fits = false;                  // false: a floor for a batch HBM cannot hold
};
// REQUIRES: usd_per_gpu_hour > 0.
ModeledCost modeled_cost(const DeploymentAnalysis& a, double usd_per_gpu_hour);
// The same at the serving engine's predicted decode rate (p beside a): the cost to plan with.
// REQUIRES: usd_per_gpu_hour > 0.
ModeledCost predicted_cost(const DeploymentAnalysis& a, const DeploymentPrediction& p, double usd_per_gpu_hour);

// ---------------------------------------------------------------- the worked example
// Two dense GQA models (presets llama-3.1-70b on 4 H100s, llama-3.1-8b on one)
// in fp16 at T = 4,096, batch 64, $3/GPU-hour, and their tradeoff under two
// workloads' weights.
// Training FLOPs at Chinchilla's D = 20·N, and the GPU-hours they take on one
// H100 kind at LabExample::kTrainMfu.
struct LabExampleFlops {
  double forward_per_token = 0;  // 2·N
  double chinchilla_tokens = 0;  // 20·N
  double train_flops = 0;        // 6·N·D
  double train_gpu_hours = 0;    // F / (peak × mfu × 3600)
};
struct LabExampleWeights {
  Dtype dtype = Dtype::kFp16;
  int64_t bytes = 0;  // N × b
};
struct LabExampleKv {
  int64_t kv_heads = 0;  // n_head (MHA) or n_head_kv (GQA)
  int64_t bytes = 0;     // one sequence at kSeq, fp16
};
struct LabExampleBatch {
  int64_t batch = 0;
  double tokens_per_s = 0;   // aggregate decode ceiling at that batch
  double over_batch_one = 0;  // tokens_per_s / the batch-1 ceiling
};
struct LabExampleModel {
  std::string key;  // "70b", "8b"
  ModelSpec model;
  CostCeilingResult deployment;
  Candidate candidate;  // the tradeoff dials (quality assumed; the rest computed)
  LabExampleFlops flops;
  std::vector<LabExampleWeights> weights;  // fp16, int8, int4
  std::vector<LabExampleKv> kv;            // MHA, then GQA
  std::vector<LabExampleBatch> batching;   // 1, 8, 32, kBatch, and the capacity limit when larger
};
// One decode step of the 8B at batch 1 against the H100 roofline.
struct LabExampleRoofline {
  double flops = 0, bytes = 0;  // 2·N; the fp16 weights read once
  double intensity = 0, ridge = 0, attainable_flops = 0;
  bool memory_bound = false;
};
struct LabExampleTradeoff {
  std::string key, label, weights;  // "quality_first", "Quality-first", "quality=0.8,..."
  TradeoffResult result;
};
struct LabExample {
  static constexpr int64_t kSeq = 4096;
  static constexpr int64_t kBatch = 64;
  static constexpr double kUsdPerGpuHour = 3.0;
  static constexpr double kTrainMfu = 0.4;
  GpuSpec h100;
  LabExampleModel big, small;
  LabExampleRoofline roofline;  // of `small`
  std::vector<LabExampleTradeoff> tradeoffs;
};
Result<LabExample> analyze_lab_example();

}  // namespace modelcalc

#endif  // MODELCALC_COST_H_
