// The training plan: how many of which GPU, split how, to train a model on D
// tokens within a deadline at the lowest cost. A search over GPU kinds,
// activation recomputation and the TP x PP x DP split with ZeRO stages, on
// the training-memory engine (capacity.h: what fits per GPU) and the lab's
// time formulas (6 N D at an MFU: GPU-hours, days).
//
// What the search models, and what it does not (every report says so):
//   time     GPU-hours = 6 N_active D x r / (peak x mfu) / 3600, r = 4/3 with
//            full recomputation (one more forward pass), else 1; days =
//            GPU-hours / GPUs / 24. Communication, the pipeline bubble,
//            stragglers and restarts are not modelled: the MFU must absorb them.
//   memory   analyze_train_memory per GPU (weights, gradients, optimizer under
//            ZeRO over DP, activations of the first pipeline stage with 1F1B).
//   cost     GPU-hours x the GPU's hourly price: for one GPU kind and one
//            recomputation choice it does not depend on the count, so the
//            deadline sets the count and memory can only raise it.
#ifndef MODELCALC_TRAIN_PLAN_H_
#define MODELCALC_TRAIN_PLAN_H_

#include <cstdint>
#include <vector>

#include "modelcalc/capacity.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/status.h"

namespace modelcalc {

// One GPU kind the search may use, with its price.
struct TrainPlanGpu {
  GpuSpec gpu;                  // needs capacity_bytes and peak_bf16_flops > 0
  double usd_per_gpu_hour = 0;  // > 0
};

struct TrainPlanQuery {
  const ModelSpec* model = nullptr;  // REQUIRES: non-null, validate(*model).ok(); not owned
  double tokens = 0;                 // D, training tokens; > 0
  double deadline_days = 0;          // the run must finish within this many days; > 0
  std::vector<TrainPlanGpu> gpus;    // the kinds searched; at least one
  double mfu = 0.4;                  // model FLOPs utilization reached without recomputation, in (0, 1]
  int64_t max_gpus = 4096;           // most GPUs in the run, 1 to 2^20
  int64_t seq = 4096;                // training context in tokens; > 0
  int64_t micro_batch = 1;           // sequences per micro-batch; > 0
  Optimizer optimizer = Optimizer::kAdamW;
  int64_t max_tp = 8;                // TP degrees searched: 1, 2, 4, ... up to this (a node); > 0
  int64_t max_pp = 16;               // PP degrees searched: 1, 2, 4, ... up to this and the layers; > 0
  bool flash = true;                 // FlashAttention: no s x s scores kept
};

enum class TrainPlanBound {
  kDeadline,  // the deadline sets the count (rounded up to whole TP x PP groups): fewer would miss it
  kMemory,    // memory needs more GPUs at this split than the deadline does
};

// One configuration: the cheapest and then the smallest for its GPU kind over
// every recomputation choice and split, and the simplest among equals.
struct TrainPlanConfig {
  size_t gpu_index = 0;  // into query.gpus
  Recompute recompute = Recompute::kNone;
  int64_t tp = 1, pp = 1, dp = 1, gpus = 1;  // gpus = tp x pp x dp
  int zero = 0;
  TrainPlanBound bound = TrainPlanBound::kDeadline;
  int64_t deadline_gpus = 0;  // ceil(gpu_hours / (24 x deadline_days)): what time alone needs
  double hardware_flops = 0;  // model_flops x r
  double gpu_hours = 0;       // training_gpu_hours(hardware_flops, peak, mfu)
  double days = 0;            // training_days(gpu_hours, gpus)
  double usd = 0;             // gpu_hours x price
  TrainMemoryResult memory;   // per GPU at this split, ZeRO stage and DP
};

// A GPU kind with no configuration, and why.
struct TrainPlanMiss {
  size_t gpu_index = 0;
  int64_t deadline_gpus = 0;  // without recomputation; may exceed max_gpus (then it is the reason)
  // Fewest GPUs whose memory fits, over every split, ZeRO stage and
  // recomputation searched; 0 when none fits within max_gpus.
  int64_t memory_gpus = 0;
};

struct TrainPlanResult {
  int64_t params = 0;         // N, all parameters (their states are trained)
  int64_t active_params = 0;  // N_active, per token (= params unless MoE)
  double model_flops = 0;     // training_flops(N_active, D) = 6 N_active D
  std::vector<TrainPlanConfig> ranked;  // one per GPU kind that can make it: by cost, then GPUs, then simplicity
  std::vector<TrainPlanMiss> misses;    // GPU kinds with nothing that fits within max_gpus and the deadline
};

// Errors name the query field (model, tokens, deadline_days, gpus, mfu,
// max_gpus, seq, micro_batch, max_tp, max_pp). An empty `ranked` is a result,
// not an error: `misses` then says why for every kind.
Result<TrainPlanResult> plan_training(const TrainPlanQuery& query);

}  // namespace modelcalc

#endif  // MODELCALC_TRAIN_PLAN_H_
