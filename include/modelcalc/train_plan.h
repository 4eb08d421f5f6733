// The training plan: which GPU, how many whole nodes, split how, to train a
// model on D tokens within a deadline at the lowest cost (or in the least
// time). A search over GPU kinds, recomputation, TP x PP x EP, micro-batch,
// ZeRO stage, DP and the global batch, every layout evaluated by the training
// engine (training.h: memory per stage as Megatron builds it, the step time
// with communication and the bubble from the calibrated profile).
//
// For each structural choice (GPU kind, recomputation, tp, pp, ep,
// micro-batch, ZeRO stage) the engine is prepared once; then the node count
// is searched: the fewest whole nodes that meet the deadline (rank by cost:
// more GPUs of one kind only lose efficiency) or the most within max_gpus
// (rank by time). At each count the global batch is the largest multiple of
// dp x micro-batch within max_batch_tokens (the least bubble and DP traffic
// per token), or fewer micro-batches when memory needs it, or exactly
// global_batch when given.
#ifndef MODELCALC_TRAIN_PLAN_H_
#define MODELCALC_TRAIN_PLAN_H_

#include <cstdint>
#include <vector>

#include "modelcalc/cancel.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/status.h"
#include "modelcalc/training.h"

namespace modelcalc {

// One GPU kind the search may use, with its price.
struct TrainPlanGpu {
  GpuSpec gpu;                  // needs capacity, bandwidth, a bf16 peak and link figures
  double usd_per_gpu_hour = 0;  // > 0
};

enum class TrainPlanRank { kCost, kTime };

struct TrainPlanQuery {
  const ModelSpec* model = nullptr;  // REQUIRES: non-null, validate(*model).ok(); not owned
  double tokens = 0;                 // D, training tokens; > 0
  double deadline_days = 0;          // the run must finish within this many days; > 0
  std::vector<TrainPlanGpu> gpus;    // the kinds searched; at least one
  int64_t max_gpus = 4096;           // most GPUs in the run, 1 to 2^20 (whole nodes within it)
  int64_t seq = 4096;                // training context in tokens
  std::vector<int64_t> micro_batches = {1, 2, 4, 8};  // searched
  int64_t global_batch = 0;          // sequences per step; 0 = searched up to max_batch_tokens
  double max_batch_tokens = 4194304; // 2^22 = 4M tokens per step (Llama 2's batch)
  Optimizer optimizer = Optimizer::kAdamW;
  bool fp32_grads = true;            // Megatron's fp32 main gradients
  int64_t max_tp = 8;                // TP degrees searched: powers of two up to this (and the node)
  int64_t max_pp = 16;               // PP degrees searched: every divisor of the layers up to this
  int64_t max_ep = 64;               // EP degrees searched for MoE: powers of two dividing the experts
  bool flash = true;                 // FlashAttention
  bool sequence_parallel = true;     // with TP > 1
  TrainPlanRank rank_by = TrainPlanRank::kCost;
  int64_t top = 10;                  // layouts kept, 1 to 1000
  TrainProfile profile = default_train_profile();
  // Polled per layout prepared (modelcalc/cancel.h); null: never stops. Not owned.
  const SearchControl* control = nullptr;
};

// Why the chosen layout is not cheaper (or faster).
enum class TrainPlanBound {
  kNone,      // it is the best layout searched: nothing binds
  kDeadline,  // a cheaper layout fits memory but misses the deadline
  kMemory,    // every cheaper (faster) layout runs out of memory
  kGpuLimit,  // a faster layout needs more than max_gpus
};

struct TrainPlanLayout {
  size_t gpu_index = 0;  // into query.gpus
  int64_t gpus = 0, nodes = 0;
  int64_t tp = 1, pp = 1, dp = 1, ep = 1;
  int zero = 0;
  Recompute recompute = Recompute::kNone;
  int64_t micro_batch = 1, global_batch = 1;
  TrainEval eval;        // memory per GPU (eval.peak_memory), the step and its breakdown, MFU
  double steps = 0;      // ceil(D / (global_batch x seq))
  double days = 0;       // steps x step seconds / 86400
  double gpu_hours = 0;  // days x 24 x gpus
  double usd = 0;        // gpu_hours x price
  TrainPlanBound bound = TrainPlanBound::kNone;  // set for each kind's best (kinds[].best)
};

struct TrainPlanKind {
  size_t gpu_index = 0;
  bool found = false;        // a layout fits and meets the deadline
  TrainPlanLayout best;      // when found
  // When not found: the fastest layout that fits within max_gpus (days =
  // how long it would take; 0 when nothing fits at all).
  bool any_fits = false;
  TrainPlanLayout fastest;
};

struct TrainPlanResult {
  int64_t params = 0, active_params = 0;
  TrainFlopsPerToken flops_per_token;  // at seq, without recomputation
  double model_flops = 0;              // flops_per_token.model x D
  std::vector<TrainPlanLayout> layouts;  // the top layouts meeting the deadline, ranked
  std::vector<TrainPlanKind> kinds;      // per GPU kind, in query order
  int64_t searched = 0;                  // layouts the engine evaluated
  int64_t prepared = 0;                  // structural choices prepared
  double seconds = 0;                    // wall time of the search
};

// Errors name the query field (model, tokens, deadline_days, gpus, max_gpus,
// seq, micro_batches, global_batch, max_batch_tokens, max_tp, max_pp, top).
// An empty `layouts` is a result, not an error: kinds[] then say why.
Result<TrainPlanResult> plan_training(const TrainPlanQuery& query);

}  // namespace modelcalc

#endif  // MODELCALC_TRAIN_PLAN_H_
