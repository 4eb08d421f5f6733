// The serving-time model: continuous batching in steady state, one function
// for both figures (docs/prediction.md says the same in prose).
//
// One engine step carries B decoding sequences, each reading its KV at the
// mean context (isl + osl / 2), and the prompt tokens of the requests that
// replace the ones finishing: B x isl / osl tokens per step, prefilled in
// chunks, with the weights read once per step for all of them. Its time is
// the sum of its kernels, each at its own roof:
//   dense      max(F_dense / (peak x gemm_fraction), W_dense / (bw x hbm_fraction))
//   experts    max(F_experts / (peak x moe_gemm_fraction), W_touched / (bw x hbm_fraction))
//   lm_head    max(F_lm / (peak x gemm_fraction), W_lm / (bw x hbm_fraction))
//   kv read    max(KV_read / (bw x kv_read_fraction), F_attn_decode / (peak x attention_fraction))
//   prefill    max(F_attn_prefill / (peak x attention_fraction), KV_written / (bw x hbm_fraction))
//   elementwise tokens x activation bytes of the norms, residual and FFN activation / (bw x hbm_fraction)
//   comm       all-reduces: count x (ring x message / (link x allreduce_efficiency) + latency); PP hand-offs
//   overhead   step_overhead + layer_overhead x n_layer
// The ceiling is the same step with every fraction 1 and no overhead, compute
// and memory overlapped perfectly: max(F / peak, bytes / bw) + comm. Every
// predicted part is at least its ideal share, so prediction <= ceiling.
//
// Capacity: the ceiling holds free_for_kv / KV(mean context) sequences
// (driver-exposed memory less the weights, no engine limit: a bound on any
// engine); the prediction holds what the engine admits (engine_profile.h:
// its KV cache in whole blocks, each sequence reserving its last token's
// context under trtllm, at most max_num_seqs) and what its step token budget
// carries: B x (1 + isl / osl) <= max_num_batched_tokens.
//
// A load turns into a batch by Little's law: at a rate of L requests/s a
// replica holds B = L x (TTFT + osl x TPOT) sequences, solved as a fixed
// point of the step time; a concurrency C holds min(C, capacity). TPOT is the
// mean step time (benchmark_serving's ITL: prefill chunks included). TTFT is
// the residual of the step in progress (half a step), an M/D/1 wait for the
// step's prefill budget (arrivals Poisson, the prompt's chunk steps as a
// deterministic service), and the steps its own prompt's chunks take beside
// the decoding batch. The ceiling's TTFT is the prompt's prefill alone.
#ifndef MODELCALC_SERVING_H_
#define MODELCALC_SERVING_H_

#include <cstdint>

#include "modelcalc/deployment.h"
#include "modelcalc/engine_profile.h"

namespace modelcalc {

// What one step carries, per replica (one column of tp x pp ranks; under
// dp_attention the replica's attn_dp groups share the sequences). With
// speculative decoding each decoding sequence verifies K + 1 tokens.
struct StepWork {
  double decode_sequences = 0;     // B, each generating one token
  double decode_context = 0;       // tokens of KV each decoding sequence reads (mean)
  double prefill_tokens = 0;       // prompt tokens prefilled in the step
  double prefill_keys_full = 0;    // keys those tokens attend to, per full-attention layer (causal)
  double prefill_keys_window = 0;  // the same per sliding-window layer
  double prefill_done = 0;         // prompts whose prefill ends in the step (one lm_head row each)
  // Attention groups (dp_attention) the prompt tokens are spread over; 0 = all of them. The decoding
  // sequences are always spread over all; one prompt alone sits on one group.
  double prefill_groups = 0;
  // Forwards of the step launched outside a CUDA graph (a prefill's, or a prompt's share of one when
  // prompts share a forward): each pays the profile's eager_layer_overhead_s per layer. The prediction's.
  double eager_forwards = 0;
  // The ceiling's steady state: the prompt tokens' FLOPs count, their weight and expert reads do not (a
  // schedule batching prompts without limit reads the weights once for all of them).
  bool prefill_reads_amortized = false;
};

// One step's time by part (seconds, for the token to cross every stage) and
// its work per GPU.
struct StepTime {
  double dense_s = 0, experts_s = 0, lm_head_s = 0, kv_read_s = 0, prefill_attention_s = 0;
  double elementwise_s = 0;  // norms, residual, activation: memory-bound (0 on the ideal machine)
  double draft_s = 0;        // the K draft passes of speculative decoding
  double comm_s = 0, overhead_s = 0;
  double a2a_s = 0;          // of comm_s: the all-to-all (dp_attention); hidden behind the kernels under
                             // two-batch overlap up to their time
  double compute_s = 0;  // every FLOP at its achieved rate (pp x FLOPs / (peak x fraction), summed)
  double memory_s = 0;   // every byte at its achieved rate
  double seconds = 0;    // the step: the parts summed (prediction) or max(compute, memory) + comm (ceiling);
                         // with two-batch overlap the a2a counts only where it outlasts the kernels
  double bytes_per_gpu = 0, flops_per_gpu = 0;  // per pipeline stage (average)
};

// The step. `ceiling` = the ideal machine (p is then ignored). REQUIRES d
// prepared, work counts >= 0. Pure, allocation-free.
StepTime step_time(const PreparedDeployment& d, const StepWork& w, const StepTimeParams& p, bool ceiling);

// The steady state of a continuous-batching engine serving requests of isl
// prompt and osl output tokens.
enum class ServingLoad {
  kSaturated,     // the engine kept full: offline, all requests queued (trtllm-bench throughput)
  kBatch,         // the engine run at `value` sequences (at most its capacity): plan's operating points
  kRequestsPerS,  // Poisson arrivals at `value` requests/s for the whole deployment (all replicas)
  kConcurrency,   // `value` users in a closed loop, for the whole deployment
};
// Which phases one replica runs: both (continuous batching with chunked
// prefill), or one pool of a disaggregated deployment: prefill alone (steps
// carry only prompts; the KV leaves for a decode pool) or decode alone (steps
// carry only decoding sequences; the KV arrives from a prefill pool).
enum class ServingPhase { kAggregated, kPrefillOnly, kDecodeOnly };
// "aggregated", "prefill", "decode".
const char* serving_phase_name(ServingPhase p);

struct ServingRequest {
  int64_t isl = 0, osl = 0;  // >= 1
  ServingLoad load = ServingLoad::kSaturated;
  double value = 0;          // by load; unused for kSaturated
  ServingPhase phase = ServingPhase::kAggregated;
  // kPrefillOnly: prompts each step carries, at most what the limits allow (0 = that most): a smaller step
  // for a shorter TTFT at a lower rate.
  double prompts_per_step = 0;
  // kConcurrency: the requests each user sends in the run (benchmark_serving's --num-prompts over
  // --max-concurrency; InferenceX sends 10 per user). The first wave arrives at once, so the run's mean
  // TTFT holds one burst wave in W, and the run lasts the burst's extra wait longer. 0 = the steady
  // state alone (an endless run).
  double prompts_per_user = 0;
};

// What bounds the batch: one engine instance's (one attention group under
// dp_attention; serve() multiplies by attn_dp), the replica's otherwise.
struct ServingCapacity {
  double sequences = 0;       // sequences memory holds (engine admission, or the ceiling's bound)
  double max_num_seqs = 0;    // the engine's sequence cap; 0 = none (the ceiling)
  double step_tokens = 0;     // the engine's token budget per step; 0 = none (the ceiling)
  double chunk_tokens = 0;    // prefill chunk per step for TTFT; 0 = the whole prompt in one step
  // Decode steps between two looks of the scheduler at its queue of new requests (SGLang's
  // --scheduler-recv-interval and --num-continuous-decode-steps); 1 = every step. A new prompt waits half
  // of them on average. The prediction's.
  double poll_steps = 1;
};

enum class BatchLimit { kNone, kMemory, kMaxNumSeqs, kStepTokens };
// "none", "memory", "max_num_seqs", "max_num_batched_tokens".
const char* batch_limit_name(BatchLimit b);

struct ServingFigures {
  double capacity_sequences = 0;  // the most sequences a replica runs at once (all limits)
  BatchLimit limit = BatchLimit::kNone;  // which limit sets capacity_sequences
  double batch = 0;               // sequences decoding per step, per replica (mean)
  double mean_context = 0;        // isl + osl / 2
  double prefill_tokens_per_step = 0;
  StepTime step;                  // at `batch`
  double tpot_s = 0;              // mean time between output tokens (= step.seconds / accepted tokens per step)
  double ttft_s = 0;              // mean time to first token; +inf when saturated by a rate
  double queue_s = 0;             // the queueing part of ttft_s
  double requests_per_s = 0;      // served, all replicas
  double output_tokens_per_s = 0; // served, all replicas
  double tokens_per_s_per_user = 0;  // 1 / tpot_s
  double accepted_tokens_per_step = 1;  // speculative decoding: tokens a step yields per sequence
  double input_tokens_per_s = 0;  // prompt tokens served, all replicas (cached ones included)
  double cached_tokens = 0;       // of each prompt, found in the prefix cache
  bool fits = false;              // at least one sequence fits
  bool saturated = false;         // a rate or concurrency beyond what the replicas serve
};

// The figures of one request shape. `ceiling` selects the ideal step (p
// ignored). Allocation-free; a rate is solved in at most 64 fixed-point steps.
ServingFigures serve(const PreparedDeployment& d, const ServingCapacity& cap, const StepTimeParams& p, bool ceiling,
                     const ServingRequest& r);

// Disaggregated serving: the KV of one request's prompt moving from a prefill
// replica to a decode replica over the NICs (RDMA, as SGLang's Mooncake/NIXL
// and TensorRT-LLM's disaggregated serving do): the prompt's whole KV once
// (every layer kept; MLA's latent and GQA's KV heads once, not per TP rank),
// sent by the prefill attention group's tp x pp GPUs and received by the
// decode group's, at the slower side's aggregate NIC bandwidth plus the
// scale-out latency. Overlapped (streamed layer by layer behind the prefill's
// forward), only the last layer's share adds to TTFT; else all of it.
struct KvTransfer {
  double bytes = 0;             // one request's KV
  double link_bytes_per_s = 0;  // min(prefill group GPUs, decode group GPUs) x their NIC
  double seconds = 0;           // bytes / link + latency
  double ttft_seconds = 0;      // what it adds to TTFT
  bool overlapped = false;
};
KvTransfer kv_transfer(const PreparedDeployment& prefill, const PreparedDeployment& decode, int64_t isl,
                       bool overlapped);

// The requests/s one prefill replica's NICs carry away: its GPUs' scale-out bandwidth over one request's KV
// (kv_transfer's bytes). +inf when no KV leaves (no NIC figure is needed then); 0 without a NIC.
double prefill_nic_requests_per_s(const PreparedDeployment& prefill, int64_t isl);

// One disaggregated deployment: `prefill_replicas` replicas of a prefill
// pool (serve() with ServingPhase::kPrefillOnly) and `decode_replicas` of a
// decode pool (kDecodeOnly). A rate is split evenly over each pool's
// replicas; saturated, the pools serve min(x x R_prefill, y x R_decode)
// requests/s. TTFT = the prefill pool's (queue included) + the transfer's
// share; TPOT = the decode pool's. A prefill replica serves at most what its
// NICs carry away (prefill_nic_requests_per_s): a rate beyond it saturates
// the pool (its queue grows: TTFT +inf). Each pool's figures are per replica
// (PreparedDeployment::split.dp is ignored: the replica counts are these).
struct DisaggregatedFigures {
  ServingFigures prefill, decode;  // one replica of each, at its share of the load
  KvTransfer transfer;
  double prefill_replicas = 0, decode_replicas = 0;
  double requests_per_s = 0;       // served, the whole deployment
  double ttft_s = 0, tpot_s = 0;
  double output_tokens_per_s = 0, input_tokens_per_s = 0;
  bool fits = false;               // both pools hold at least one sequence
  bool saturated = false;          // the load exceeds what one of the pools serves
};
struct DisaggregatedPool {
  const PreparedDeployment* d = nullptr;  // as the engine runs it (engine_view) for the prediction
  ServingCapacity cap;                    // ceiling_capacity or engine_capacity of that deployment
  double replicas = 1;
};
DisaggregatedFigures serve_disaggregated(const DisaggregatedPool& prefill, const DisaggregatedPool& decode,
                                         const StepTimeParams& p, bool ceiling, const ServingRequest& r,
                                         bool overlapped_transfer);

// The deployment as the engine runs it: without sliding windows when the
// engine keeps every layer's whole context (EngineSettings::sliding_window).
// The ceiling keeps the model's windows (less KV to hold and read: still a
// bound). Copies the plain struct; allocation-free.
PreparedDeployment engine_view(const PreparedDeployment& d, const EngineSettings& s);

// The ceiling's capacity: free_for_kv / (KV per sequence at the mean context
// isl + osl / 2), unrounded (a bound on any engine's average), no caps.
ServingCapacity ceiling_capacity(const PreparedDeployment& d, const DeploymentMemory& m, int64_t isl, int64_t osl);
// The engine's capacity: admission (engine_admitted_sequences at the last
// token's context isl + osl and the mean), max_num_seqs and the step budget.
// `shared_prefix`: tokens every request shares, held once (PrefixCache::shared_tokens).
ServingCapacity engine_capacity(const EngineMemory& m, const EngineSettings& s, int64_t isl, int64_t osl,
                                int64_t shared_prefix = 0);

// Both figures from the one function above: the ceiling from the engine's
// ideal machine, the prediction from the profile (on engine_view(d, s)).
struct ServingPair {
  ServingFigures ceiling, predicted;
};
// The ceiling alone (serve_both's `ceiling`), for a GPU no engine profile runs on.
ServingFigures serve_ceiling(const PreparedDeployment& d, const DeploymentMemory& ceiling_memory,
                             const StepTimeParams& p, const ServingRequest& r);
ServingPair serve_both(const PreparedDeployment& d, const DeploymentMemory& ceiling_memory, const EngineMemory& em,
                       const EngineSettings& s, const StepTimeParams& p, const ServingRequest& r);

// The prediction for the deployment engine's own questions (a decode step of
// B sequences at context T; a prefill of P tokens alone), the same keys as
// DecodeStep and Prefill: every part at its achieved rate plus overheads.
// REQUIRES: d is engine_view(prepared, s).
struct PredictedDecode {
  StepTime step;
  double accepted_tokens_per_step = 1;
  double tokens_per_s_per_sequence = 0, tokens_per_s_aggregate = 0;
  bool fits = false;  // batch <= the sequences the engine admits at this context
  int64_t max_sequences = 0;
};
PredictedDecode predict_decode(const PreparedDeployment& d, const EngineMemory& em, const EngineSettings& s,
                               const StepTimeParams& p, int64_t batch, int64_t context);
// A prompt of P tokens prefilled alone, in chunks of the engine's step budget
// (one step per chunk: weights read once per chunk).
StepTime predict_prefill(const PreparedDeployment& d, const EngineSettings& s, const StepTimeParams& p,
                         int64_t prompt);

// The prediction beside one DeploymentAnalysis (the ceiling): the engine's
// settings and memory, its decode step at the analysis' batch and context and
// its prefill of the analysis' prompt. What every deployment command shows
// as its `predicted` figures.
struct DeploymentPrediction {
  const EngineProfile* profile = nullptr;
  EngineSettings settings;
  EngineMemory memory;
  PreparedDeployment engine_d;     // engine_view(analysis.prepared, settings)
  PredictedDecode decode;
  StepTime prefill;
  int64_t prompt_tokens = 0;
  int64_t kv_bytes_per_sequence = 0;  // at the context, each layer kind as the release keeps it (whole blocks)
  double reserve_bytes = 0;           // what the engine keeps back of its total (beyond weights and KV)
  bool windows_dropped = false;       // the model's sliding windows, kept whole by this engine
  // Why this engine, when no --engine named it: the GPU vendor's row (default_engine_for, engine_rules.h);
  // empty when it was named. Static text.
  std::string_view default_because;
};
// Errors as resolve_engine_settings's.
Result<DeploymentPrediction> predict_deployment(const ModelSpec& m, const GpuSpec& gpu, const DeploymentAnalysis& a,
                                                const EngineRelease& e, const EngineFlags& flags,
                                                const EngineWorkload& w);

}  // namespace modelcalc

#endif  // MODELCALC_SERVING_H_
