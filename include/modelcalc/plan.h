// plan: the cheapest deployment that meets latency targets at a load.
//
// The search enumerates GPU kinds x tensor/pipeline/expert splits (TP inside
// the GPU's fast domain, PP and EP where they divide) x weight and KV dtypes x
// batch sizes (the listed ones plus the largest batch HBM holds, when it falls
// between two listed ones, and the largest meeting TPOT, bisected between the
// best listed batch and the next one when TPOT is what stops that one). Per (GPU, split, dtypes) it prepares the deployment once; the
// batch loop only evaluates (no allocation). Each evaluation is either
// rejected with a reason (memory, ttft, tpot, communication, gpus) or costed.
//
// The serving model (docs/prediction.md and docs/planning.md say the same in prose):
// * One replica = tp x pp GPUs holding the model, serving `batch` sequences by
//   continuous batching in steady state (serving.h): each engine step decodes
//   the batch at its mean context (isl + osl / 2) and prefills, beside it, the
//   prompts of the requests that replace the finishing ones (batch x isl / osl
//   tokens, chunked, weights read once per step). TPOT is that step; a
//   replica serves batch / TPOT output tokens per second.
// * Two figure sets from the one step model: the CEILING (the ideal machine,
//   the driver-exposed memory less the weights, no engine limit) and the
//   PREDICTION (the engine profile: its memory accounting, admission at the
//   last token's context, its batch and token caps, its fitted efficiencies).
//   The search ranks by the prediction (rank_by_ceiling: by the ceiling).
// * TTFT: ceiling = the prompt's prefill alone; prediction = half a step of
//   residual, an M/D/1 wait for the step's prompt budget, and the steps that
//   carry the prompt's chunks beside the batch.
// * --efficiency e in (0, 1] divides the ranked figures' times by e (1 = as modelled).
// * Replicas (= dp) are added to carry the load: requests/s, output tokens/s,
//   or concurrent sequences. gpus = tp x pp x replicas, at most max_gpus.
// * Cost: usd_per_hour = gpus x price. $/1M output tokens = usd_per_hour over
//   the output tokens served per hour (the load when one is given, else the
//   replicas' capacity); $/1M input tokens charges the prefill tokens' share
//   of each step to input tokens; blended = usd_per_hour over input + output tokens.
//   GPU-hours per 1M output tokens = gpus over the same tokens per hour (x 1e6): the cost without a price.
//   The search ranks by $/1M output tokens, or, when a GPU searched has no price (PlanSpace::
//   rank_by_gpu_hours), every configuration by GPU-hours per 1M output tokens (rank_cost); a GPU without a
//   price has its US$ figures NaN (absent).
#ifndef MODELCALC_PLAN_H_
#define MODELCALC_PLAN_H_

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "modelcalc/cancel.h"
#include "modelcalc/deployment.h"
#include "modelcalc/dtype.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/gpu.h"
#include "modelcalc/scenario.h"
#include "modelcalc/serving.h"
#include "modelcalc/status.h"

namespace modelcalc {

enum class PlanLoadKind { kNone, kRequestsPerS, kOutputTokensPerS, kConcurrency };

struct PlanRequest {
  int64_t isl = 0;  // input (prompt) tokens per request, >= 1
  int64_t osl = 0;  // output tokens per request, >= 1
  // isl/osl are the means of lengths drawn uniform in [0.8 L, L] (InferenceX's), round(0.9 L), when set; the
  // search serves the means either way (reports show the means and say the lengths are uniform).
  bool uniform_lengths = false;
  PlanLoadKind load_kind = PlanLoadKind::kNone;
  double load = 0;  // requests/s, output tokens/s or sequences, by load_kind
  std::optional<double> ttft_s, tpot_s;  // SLOs; absent = not checked
  double efficiency = 1.0;               // (0, 1]: times of the ranked figures divided by it
  bool rank_by_ceiling = false;          // rank by the ceiling's figures instead of the prediction's
  // The release whose profile the prediction uses; unset: each GPU's vendor default (engine_for in
  // engine_rules.h: TensorRT-LLM on NVIDIA, vLLM on AMD; a GPU no profile runs on is not searched).
  std::optional<EngineRelease> engine;
  EngineFlags engine_flags;              // its flags
  // What every candidate deployment runs with (DeploymentOptions' fields of the same names).
  bool two_batch_overlap = false;        // DP-attention candidates hide the all-to-all behind compute
  double expert_imbalance = 1.0;         // the stated EP imbalance
  SpeculativeDecoding spec;              // speculative decoding on every candidate (MTP, or a dense draft model)
  PrefixCache prefix;                    // the prefix cache every candidate has
  bool kv_transfer_overlap = false;      // disaggregated: the KV streamed behind the prefill (else after it)
};

struct PlanGpu {
  GpuSpec gpu;
  double usd_per_hour = 0;  // per GPU; NaN: no price (then PlanSpace::rank_by_gpu_hours)
  std::string price_source;
  int64_t domain_gpus = 8;  // largest TP group searched (the fast-domain size)
};

// Powers of two up to 65,536: past what memory or an engine's batch cap allows, a batch is rejected
// for memory (the largest that fits is searched too).
inline constexpr std::array<int64_t, 17> kDefaultPlanBatches = {1,    2,    4,    8,     16,    32,    64,    128,  256,
                                                                512,  1024, 2048, 4096, 8192, 16384, 32768, 65536};

struct PlanSpace {
  std::vector<PlanGpu> gpus;
  // Rank by GPU-hours per 1M output tokens instead of US$: REQUIRED true exactly when some GPU's price is NaN
  // (check_plan checks it), since a cost without a price cannot be compared with one that has it.
  bool rank_by_gpu_hours = false;
  int64_t max_gpus = 64;                                    // total, all replicas
  std::vector<Dtype> weight_dtypes = {Dtype::kBf16, Dtype::kFp8};
  std::vector<Dtype> kv_dtypes = {Dtype::kBf16, Dtype::kFp8};
  bool fp8_kv_needs_fp8 = true;  // skip an fp8 KV cache on GPUs without an fp8 peak (the default list)
  std::vector<int64_t> batches{kDefaultPlanBatches.begin(), kDefaultPlanBatches.end()};
  int64_t max_pp = 8;       // pipeline stages searched: 1, 2, 4, ... up to this
  int64_t n_head = 0;       // the model's: TP must divide heads,
  int64_t n_layer = 0;      //   PP layers,
  int64_t n_expert = 0;     //   EP experts (0 = dense: EP stays 1)
  std::vector<int64_t> eps; // expert-parallel degrees searched; empty = 1 and, for a MoE, tp
  size_t top = 10;          // configurations returned
  // For a model with routed experts, also the attention-DP x MoE-EP layout: replicas of 8, 16, ... GPUs
  // (powers of two dividing n_expert, at most max_gpus), attention in groups of one GPU, EP over all.
  bool dp_attention = true;
  // Polled between candidates (modelcalc/cancel.h); null: never stops. Not owned.
  const SearchControl* control = nullptr;
  // plan_disaggregated: also the frontier of its pairs (each decode option with the cheapest prefill option
  // that pairs with it, both pools on one GPU kind) in DisaggPlanResult::frontier.
  bool disaggregated_frontier = false;
};

// One split of one GPU kind in two dtypes: what the search prepares once.
struct PlanCandidate {
  size_t gpu = 0;  // index into PlanSpace::gpus
  int64_t tp = 1, pp = 1, ep = 1;
  int64_t attn_dp = 1;  // > 1: the DP-attention layout, attn_dp groups of tp GPUs per replica
  Dtype weight_dtype = Dtype::kBf16, kv_dtype = Dtype::kBf16;
  int64_t gpus_per_replica() const { return tp * pp * attn_dp; }
  bool operator==(const PlanCandidate&) const = default;
};

// What sets a replica's most sequences (max_sequences), and the figures a miss that hits it cites.
struct PlanLimit {
  BatchLimit kind = BatchLimit::kNone;  // memory, the engine's max_num_seqs or its step-token budget
  double capacity = 0;           // sequences per replica, unrounded (max_sequences = floor of it)
  int64_t step_tokens = 0;       // the engine's max_num_batched_tokens, per attention group (0: the ceiling)
  int64_t max_num_seqs = 0;      // the engine's max_num_seqs, per attention group (0: the ceiling)
  double tokens_per_sequence = 0;  // kStepTokens: tokens one sequence brings to a step (its verified tokens and
                                   // its share of a replacing prompt: 1 + isl / osl without speculation)
};

// What the search needs from one evaluation.
struct PlanPoint {
  int64_t max_sequences = 0;  // per replica (memory and engine caps); 0 = weights do not fit
  PlanLimit limit;            // which cap that is
  double ttft_s = 0;          // time to first token
  double tpot_s = 0;          // the step at `batch`
  double comm_s = 0;          // communication inside that step
  // Output tokens/s of one replica at `batch`; 0: from the cycle of a replica
  // that prefills in series, B x osl / (osl x TPOT + B x TTFT) (stand-ins).
  double tokens_per_s = 0;
  double prefill_share = -1;  // share of the replica's time on prefill; < 0: B x TTFT / cycle
};
// Both figure sets of one evaluation (the engine-backed search's).
struct PlanPoints {
  PlanPoint ceiling, predicted;
};

// Why a configuration misses: the first limit or target it fails. A batch over max_sequences fails the limit
// that sets it: memory (KV), the engine's step-token budget (max_num_batched_tokens) or its max_num_seqs.
enum class PlanReason { kOk, kMemory, kStepTokens, kMaxNumSeqs, kTtft, kTpot, kCommunication, kGpus };
// "memory", "max_num_batched_tokens", "max_num_seqs", "ttft", "tpot", "communication", "gpus".
const char* plan_reason_name(PlanReason r);
// The reason a batch over the capacity fails, by what sets the capacity.
PlanReason plan_capacity_reason(BatchLimit b);

struct PlanRejected {
  int64_t memory = 0, ttft = 0, tpot = 0, communication = 0, gpus = 0;
  int64_t step_tokens = 0, max_num_seqs = 0;  // over the engine's step-token budget / its max_num_seqs
  int64_t unsupported = 0;  // (GPU, split, dtypes) the engine refused to prepare (not evaluated)
  // Of those, the ones the serving engine would not load, by the engine_rules() row that refuses them
  // (its name), in table order.
  std::vector<std::pair<std::string, int64_t>> by_engine_rule;
  // GPU kinds no engine profile runs on, none named (their keys, in list order): not in the predicted ranking,
  // searched apart by the ceiling (PlanResult::ceiling_only).
  std::vector<std::string> no_engine;
  int64_t total() const { return memory + step_tokens + max_num_seqs + ttft + tpot + communication + gpus; }
};

// The configuration a deciding clause cites: a rejected neighbour (for a miss,
// the configuration itself). Plain numbers; src/report/plan_text.h words it.
struct PlanNeighbour {
  PlanCandidate c;
  int64_t batch = 0, max_sequences = 0, gpus = 0;
  PlanLimit limit;
  double ttft_s = 0, tpot_s = 0, comm_s = 0, usd_per_million_output = 0;
  double gpu_hours_per_million_output = 0;
  PlanReason reason = PlanReason::kOk;
};

enum class PlanDecidingKind {
  kNone,             // not set (inside the search)
  kNextBatchMisses,  // the next batch of the same GPU, split and dtypes misses a target (`neighbour`)
  kLargestBatch,     // it is the largest batch searched for its split and dtypes
  kCheapestMisses,   // the cheapest configuration searched misses a target (`neighbour`)
  kNothingCheaper,   // nothing cheaper was searched: no target binds
  kMissed,           // a closest miss: why it fails (`neighbour` is the configuration itself)
};

// What stops the cheaper neighbour.
struct PlanDeciding {
  PlanDecidingKind kind = PlanDecidingKind::kNone;
  PlanNeighbour neighbour;
};

// One thing that would have to change for a miss to meet every target. Each lifts the limit the miss hits:
// memory (a smaller KV dtype, more GPUs per replica), the engine's step-token budget or max_num_seqs (the flag
// raised to `engine_value`), a latency target, the GPU limit.
enum class PlanChangeKind {
  kWeightsMemory, kBatchMemory, kStepTokens, kMaxNumSeqs, kTtftTarget, kTpotTarget, kGpuLimit, kFp8Weights
};
struct PlanChange {
  PlanChangeKind kind = PlanChangeKind::kWeightsMemory;
  int64_t batch = 0, holds = 0;      // kBatchMemory, kStepTokens, kMaxNumSeqs: the batch and what a replica holds
  int64_t engine_value = 0;          // kStepTokens: the budget per attention group that carries `batch`
                                     // (ceil(batch x tokens per sequence / attn_dp)); kMaxNumSeqs: the cap
                                     // (ceil(batch / attn_dp))
  PlanLimit limit = {};              // kStepTokens, kMaxNumSeqs: the limit as it stands
  int64_t gpus = 0;                  // kGpuLimit: the GPUs the load needs
  double seconds = 0;                // kTtftTarget, kTpotTarget: the target it would meet
  bool faster_interconnect = false;  // kTpotTarget: communication is over half the step
  // A change of the setup (kWeightsMemory: more tensor ranks; kBatchMemory: the batch that fits;
  // kFp8Weights: fp8 weights), as the engine evaluates it on the miss's scenario (plan_deployments
  // sets it; scenario.h). Unset for a change of the targets or the GPU limit.
  std::optional<Variation> variation = std::nullopt;
};

// One figure set of a configuration, costed.
struct PlanFigures {
  int64_t max_sequences = 0, replicas = 0, gpus = 0;
  PlanLimit limit;
  double ttft_s = 0, tpot_s = 0, comm_s = 0, prefill_stall_per_token_s = 0;
  double tokens_per_s_per_user = 0, tokens_per_s_per_replica = 0, tokens_per_s_per_gpu = 0;
  double served_output_tokens_per_s = 0, usd_per_hour = 0;
  double usd_per_million_output = 0, usd_per_million_input = 0, usd_per_million_blended = 0;
  double gpu_hours_per_million_output = 0;
  PlanReason reason = PlanReason::kOk;
};

// One evaluated configuration, costed.
struct PlanConfig {
  PlanCandidate c;
  std::string gpu;  // catalog key
  // The release its prediction uses (engine_for(request.engine, the GPU)); unset for a configuration ranked by
  // the ceiling alone (PlanResult::ceiling_only: no engine profile runs on its GPU).
  std::optional<EngineRelease> engine;
  int64_t batch = 0, max_sequences = 0;
  PlanLimit limit;                 // what sets max_sequences
  int64_t replicas = 0, gpus = 0;  // gpus = tp x pp x replicas
  double ttft_s = 0, tpot_s = 0, comm_s = 0;      // after efficiency
  double prefill_stall_per_token_s = 0;           // batch x ttft / osl (prefill in series; 0 when chunked into steps)
  double prefill_share = 0;                       // share of the replica's time charged to input tokens
  double tokens_per_s_per_user = 0;               // 1 / tpot
  double tokens_per_s_per_replica = 0;            // output, prefill time charged
  double tokens_per_s_per_gpu = 0;                // output
  double served_output_tokens_per_s = 0;          // the load, or the replicas' capacity
  double usd_per_hour = 0;                        // NaN (and the three below) when the GPU has no price
  double usd_per_million_output = 0, usd_per_million_input = 0, usd_per_million_blended = 0;
  double gpu_hours_per_million_output = 0;        // gpus / (served output tokens per hour) x 1e6
  // What the ranking minimizes: usd_per_million_output, or gpu_hours_per_million_output under
  // PlanSpace::rank_by_gpu_hours.
  double rank_cost = 0;
  PlanReason reason = PlanReason::kOk;
  PlanDeciding deciding;  // what stops the cheaper neighbour
  // The fields above are the ranked figures. An engine-backed search fills
  // both sets here too (has_figures): the ceiling's and the prediction's.
  bool has_figures = false;
  PlanFigures ceiling, predicted;
};
// The fields of `c` as a figure set.
PlanFigures plan_figures(const PlanConfig& c);

// One point of a frontier: a configuration (GPU, layout, dtypes) at a concurrency, its figures from one set.
struct PlanFrontierPoint {
  std::string gpu;
  PlanCandidate c;
  int64_t batch = 0;  // sequences in flight per replica (the concurrency one replica serves)
  double tokens_per_s_per_user = 0, tokens_per_s_per_gpu = 0;  // output: 1 / TPOT, and per GPU of the replica
  double ttft_s = 0, tpot_s = 0;
  double usd_per_million_output = 0;        // NaN when the GPU has no price
  double gpu_hours_per_million_output = 0;
  double tokens_per_s_per_mw = 0;           // output tokens/s per MW of the GPUs' TDP; NaN when no TDP is stated
  bool ceiling = false;                     // the ceiling's set; else the ranked set of a stand-in or the prediction
  bool mtp = false;                         // drafted with the model's MTP head (PlanFrontier sweeps it apart)
  // A disaggregated point (plan_disaggregated with PlanSpace::disaggregated_frontier): `c` and `batch` are its
  // decode pool's, `prefill` its prefill pool's candidate; tokens/s per GPU over both pools' GPUs.
  bool disaggregated = false;
  PlanCandidate prefill;
  int64_t prefill_replicas = 0, decode_replicas = 0;
};
// Output tokens/s per MW of `gpu`'s TDP at `tokens_per_s_per_gpu`; NaN when the catalog states no TDP.
inline double tokens_per_s_per_mw(const GpuSpec& gpu, double tokens_per_s_per_gpu) {
  return gpu.tdp_watts > 0 ? tokens_per_s_per_gpu / gpu.tdp_watts * 1e6 : std::numeric_limits<double>::quiet_NaN();
}

// The points of `a` and `b` that no other point of the same GPU and set beats on both tokens/s per user and per
// GPU, in PlanResult::frontier's order (per GPU, the `ranked_ceiling` set first, tokens/s per user descending).
std::vector<PlanFrontierPoint> merge_frontiers(std::vector<PlanFrontierPoint> a, std::vector<PlanFrontierPoint> b,
                                               bool ranked_ceiling);

struct PlanMiss {
  PlanConfig config;
  std::vector<PlanChange> changes;  // what would have to change, each an alternative
};

struct PlanResult {
  std::vector<PlanConfig> configs;          // meeting every target, cheapest first (at most top)
  int64_t feasible = 0;                     // candidates with at least one feasible batch
  // Per GPU kind and figure set (the ranked set's curve first, then the other's: `ceiling` says which), each
  // tokens/s/user descending: the points no other of its GPU and set beats on both tokens/s/user and per GPU.
  // Every visited batch that fits is a candidate, whatever the targets.
  std::vector<PlanFrontierPoint> frontier;
  int64_t searched = 0;                     // evaluations (candidate x batch)
  PlanRejected rejected;
  std::vector<PlanMiss> misses;             // when nothing meets the targets: the closest
  std::string binding;                      // then: the constraint that binds ("tpot", ...)
  std::string first_unsupported;            // one refusal message, for the report
  double seconds = 0;                       // wall time of the search
  // With no engine named, the GPUs no engine profile runs on (rejected.no_engine) searched apart, ranked by
  // the ceiling alone: meeting every target by it, cheapest first (at most top); no prediction (has_figures
  // false, the ranked figures the ceiling's), so never ranked beside `configs`.
  std::vector<PlanConfig> ceiling_only;
};

// Validates the request and space (fields: isl, osl, load, ttft, tpot,
// efficiency, max_gpus, gpus, batches, weight_dtypes, kv_dtypes).
Status check_plan(const PlanRequest& r, const PlanSpace& s);

// Every (GPU, tp, pp, ep, weight dtype, kv dtype) to prepare, in search order.
std::vector<PlanCandidate> enumerate_plan_candidates(const PlanSpace& s);

// Replicas to carry the load at a per-replica capacity; 1 without a load.
// Fails (returns 0) when the count would not fit in int64.
int64_t plan_replicas(const PlanRequest& r, int64_t batch, double requests_per_s_per_replica);
// Under a concurrency C (REQUIRES r.load_kind == kConcurrency), the users each of the ceil(C / slots)
// replicas holds: C / replicas, at most `slots`.
double plan_users_per_replica(const PlanRequest& r, int64_t slots);

// Costs one evaluation and gives its reason. Pure, no allocation.
void cost_plan_point(const PlanRequest& r, const PlanSpace& s, const PlanCandidate& c, int64_t batch,
                     const PlanPoint& p, PlanConfig* out);

// The search itself (search_plan over any evaluator) is internal: src/core/plan_search.h.

}  // namespace modelcalc

#endif  // MODELCALC_PLAN_H_
