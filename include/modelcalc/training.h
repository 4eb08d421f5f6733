// Training runs as Megatron-LM builds them: FLOPs per token (with attention,
// recomputation and the lm_head), memory per GPU for every pipeline stage,
// and the time of one optimizer step from the catalog's compute and link
// figures with a calibrated profile. docs/training.md states every formula,
// what Megatron does, the sources and what is ignored.
//
// Three layers, as elsewhere in the core:
//   formulas        constexpr, plain numbers (bytes per parameter, ZeRO, the
//                   collectives, the pipeline schedule, the paper's activation
//                   formula);
//   prepare/evaluate  prepare_training() validates a model, GPU and layout and
//                   hoists every per-stage constant; evaluate_training() is the
//                   hot path over (dp, global batch, ZeRO stage): pure,
//                   allocation-free, no I/O (train-plan calls it millions of
//                   times);
//   analyses        analyze_train_memory(), analyze_train_step() and
//                   training_flops_per_token(): prepare + evaluate, expanded
//                   into plain result structs for the reports.
//
// Units: parameters and tokens as counts, bytes, FLOP, seconds.
#ifndef MODELCALC_TRAINING_H_
#define MODELCALC_TRAINING_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/status.h"

namespace modelcalc {

// =============================================================== formulas

// Optimizers and their bytes per parameter with 16-bit weights and gradients
// (fp32_grads raises the gradients to 4 B; kAdamWFp32 has them already):
//   kAdamW      2 weights + 2 grads + 12 optimizer (fp32 master copy 4 +
//               momentum 4 + variance 4) = 16  [ZeRO, Rajbhandari et al. 2020,
//               sec. 3.1: "2Ψ + 2Ψ + KΨ, K = 12"]; with Megatron's fp32 main
//               gradients 2 + 4 + 12 = 18 (Megatron-LM docs, distributed
//               optimizer: "bf16 param, fp32 grads: 18 = 6 + 12/d sharded")
//   kAdamWFp32  4 fp32 weights + 4 fp32 grads + 8 (momentum 4 + variance 4) = 16
//   kSgd        2 weights + 2 grads + 8 (fp32 master 4 + momentum 4) = 12
//   kAdam8bit   2 weights + 2 grads + 6 (fp32 master 4 + 8-bit momentum 1 +
//               8-bit variance 1) = 10  [Dettmers et al. 2022; the per-block
//               fp32 scales, 4 B per 2048 values, are ignored]
enum class Optimizer { kAdamW, kAdamWFp32, kSgd, kAdam8bit };
struct TrainBytesPerParam {
  int64_t weights = 0;
  int64_t gradients = 0;
  int64_t optimizer = 0;
  constexpr int64_t total() const { return weights + gradients + optimizer; }
};
constexpr TrainBytesPerParam train_bytes_per_param(Optimizer o, bool fp32_grads = false) {
  TrainBytesPerParam b;
  switch (o) {
    case Optimizer::kAdamW: b = {2, 2, 12}; break;
    case Optimizer::kAdamWFp32: b = {4, 4, 8}; break;
    case Optimizer::kSgd: b = {2, 2, 8}; break;
    case Optimizer::kAdam8bit: b = {2, 2, 6}; break;
  }
  if (fp32_grads) b.gradients = 4;
  return b;
}

// ZeRO stage s shards over the data-parallel group of dp GPUs: stage >= 1 the
// optimizer states, >= 2 also the gradients, 3 also the weights
// (Rajbhandari et al. 2020, Figure 1: P_os, P_os+g, P_os+g+p). Stage 1 is
// Megatron's distributed optimizer; stage 3 is FSDP.
struct ZeroDivisors {
  int64_t weights = 1, gradients = 1, optimizer = 1;
};
constexpr ZeroDivisors zero_divisors(int stage, int64_t dp) {
  return {stage >= 3 ? dp : 1, stage >= 2 ? dp : 1, stage >= 1 ? dp : 1};
}

// Activation recomputation as Megatron names it: none; selective (the core
// attention -- QKᵀ, softmax, dropout, AV -- is recomputed in the backward
// pass, Korthikanti et al. 2022 sec. 5); full (each layer keeps only its
// input and is recomputed whole: one more forward pass).
enum class Recompute { kNone, kSelective, kFull };

// The paper's activation bytes of one GPT layer for one micro-batch
// (Korthikanti et al. 2022, Table 2: 16-bit activations, MHA, a 4h GeLU MLP,
// dropout), s = sequence, b = micro-batch, h = hidden, a = heads, t = TP:
//   no parallelism             s b h (34 + 5 a s / h)                 (Eq. 1)
//   tensor parallel            s b h (10 + 24/t + 5 a s / (h t))      (Eq. 2)
//   tensor + sequence parallel s b h / t (34 + 5 a s / h)             (Eq. 4)
//   selective recomputation    drops the 5 a s / h (attention s²) term
//   full recomputation         2 s b h: only the layer input is kept
// FlashAttention never materializes the s x s scores: it drops the same term.
// Kept as the reference the generalised layer_activations() reduces to for
// that layer (a test checks it). REQUIRES: all sizes > 0.
constexpr double activation_bytes_per_layer(double s, double b, double h, double a, double t,
                                            bool sequence_parallel, bool flash, Recompute rc) {
  const double sbh = s * b * h;
  if (rc == Recompute::kFull) return 2.0 * sbh;
  const bool drop_scores = flash || rc == Recompute::kSelective;
  const double scores = drop_scores ? 0.0 : 5.0 * a * s / h;
  if (sequence_parallel) return sbh / t * (34.0 + scores);
  return sbh * (10.0 + 24.0 / t + scores / t);
}

// Smallest data-parallel degree dp with fixed + sharded / dp <= capacity:
// ceil(sharded / (capacity - fixed)), at least 1. 0 when no dp fits.
inline int64_t min_dp_to_fit(double fixed_bytes, double sharded_bytes, double capacity_bytes) {
  if (fixed_bytes + sharded_bytes <= capacity_bytes) return 1;
  const double room = capacity_bytes - fixed_bytes;
  if (room <= 0) return 0;
  const double dp = std::ceil(sharded_bytes / room);
  if (!(dp < 9.0e18)) return 0;
  auto n = static_cast<int64_t>(dp);
  while (fixed_bytes + sharded_bytes / static_cast<double>(n) > capacity_bytes) ++n;  // rounding
  return n;
}

// ---------------------------------------------------------------- collectives
// Bytes one GPU sends in a ring collective over n GPUs of a buffer of `bytes`
// (the whole buffer each GPU holds, or the gathered result):
//   all-reduce                    2 (n - 1) / n x bytes  (reduce-scatter + all-gather)
//   all-gather, reduce-scatter,
//   all-to-all                    (n - 1) / n x bytes
// NCCL's "bus bandwidth" convention (nccl-tests PERFORMANCE.md).
constexpr double allreduce_wire_bytes(double bytes, double n) { return n <= 1 ? 0.0 : 2.0 * (n - 1) / n * bytes; }
constexpr double gather_wire_bytes(double bytes, double n) { return n <= 1 ? 0.0 : (n - 1) / n * bytes; }
// One collective: its fixed cost plus its bytes at the achieved link rate.
constexpr double collective_seconds(double wire_bytes, double link_bytes_per_s, double latency_s) {
  return wire_bytes <= 0 ? 0.0 : latency_s + wire_bytes / link_bytes_per_s;
}

// ---------------------------------------------------------------- pipeline
// The 1F1B bubble as a fraction of the ideal time: (p - 1) / (m v)
// (Narayanan et al. 2021, sec. 2.2: (p-1)/m, and /v with v interleaved stages).
constexpr double pipeline_bubble_fraction(double p, double m, double v) { return (p - 1.0) / (m * v); }
// Chunk forwards whose activations pipeline rank r holds at once under
// Megatron's schedules (megatron/core/pipeline_parallel/schedules.py,
// get_pp_rank_microbatches): the warm-up forwards plus the one in flight,
//   1F1B (v = 1)   min(m, p - r)
//   interleaved    min(m v, 2 (p - r - 1) + (v - 1) N + 1),  N = micro-batches
//                  per virtual-stage group (default p)
// With v = 1 and r = 0 this is Korthikanti et al.'s "the first stage stores p
// micro-batches". REQUIRES: 0 <= r < p, m >= 1, v >= 1, group >= 1.
constexpr int64_t inflight_chunks(int64_t p, int64_t r, int64_t v, int64_t m, int64_t group) {
  if (p <= 1) return 1;
  if (v <= 1) return m < p - r ? m : p - r;
  const int64_t warm = 2 * (p - r - 1) + (v - 1) * group + 1;
  return warm < m * v ? warm : m * v;
}

// Megatron pads the vocabulary to a multiple of divisor x tp
// (--make-vocab-size-divisible-by, default 128; megatron/training/tokenizer
// _vocab_size_with_padding), so embedding and lm_head hold V_pad rows.
constexpr int64_t megatron_padded_vocab(int64_t vocab, int64_t tp, int64_t divisor) {
  const int64_t q = divisor * tp;
  return (vocab + q - 1) / q * q;
}

// =============================================================== FLOPs

// How the s x s attention work is counted for MFU and HFU: every query
// against every key (PaLM, Chowdhery et al. 2022 app. B: 6N + 12 L H Q T;
// Megatron's 96 B s l h² (1 + s/6h + V/16lh); the literature's convention,
// the default) or the causal half ((s + 1) / 2 keys per query).
enum class AttentionCount { kFull, kCausal };

// Training FLOPs per token of the whole model (forward 2, backward 4 per
// multiply-add; the lm_head's V x d included; embeddings are a lookup, 0).
struct TrainFlopsPerToken {
  double six_n = 0;      // 6 x N_active: the shortcut (counts an untied input table, norms and biases)
  double linear = 0;     // 6 x matmul parameters per token in the blocks (q/k/v/o, FFN, top-k and
                         // shared experts, routers)
  double attention = 0;  // 6 x sum over layers of h x (d_k + d_v) x keys (QKᵀ and AV)
  double lm_head = 0;    // 6 x V x d
  double model = 0;      // linear + attention + lm_head: the MFU numerator
  double recompute = 0;  // the extra forward: full (linear + attention) / 3, selective attention / 3
  double hardware = 0;   // model + recompute: the HFU numerator
};
// A FLOP utilization: achieved tokens/s x FLOPs per token / the peak of all
// the GPUs producing them. With the model FLOPs it is MFU, with the hardware
// FLOPs HFU (Korthikanti et al. 2022 sec. 6.3, after PaLM). REQUIRES: peak > 0.
constexpr double flops_utilization(double tokens_per_s, double flops_per_token, double peak_flops) {
  return tokens_per_s * flops_per_token / peak_flops;
}
// REQUIRES: validate(m).ok(), seq > 0. Fails with Overflow on an absurd shape.
Result<TrainFlopsPerToken> training_flops_per_token(const ModelSpec& m, int64_t seq, Recompute rc,
                                                    AttentionCount count = AttentionCount::kFull);

// =============================================================== the run

// How the GPUs are arranged (Megatron's rank order tp-cp-ep-dp-pp: TP
// innermost, PP outermost) and how layers fall onto pipeline stages.
struct TrainLayout {
  int64_t tp = 1;  // tensor parallel; divides the heads and the KV heads (Megatron divides query groups)
  int64_t pp = 1;  // pipeline stages
  int64_t dp = 1;  // data parallel replicas
  int64_t cp = 1;  // context parallel: the sequence split over cp GPUs (needs FlashAttention)
  int64_t ep = 1;  // expert parallel: experts over ep GPUs of the dp x cp group; divides the experts
  int64_t virtual_stages = 1;     // v: model chunks per pipeline rank (interleaved 1F1B when > 1)
  int64_t microbatch_group = 0;   // N: micro-batches per virtual-stage group; 0 = pp (Megatron's default)
  // Uneven splits Megatron allows (else pp must divide the layers): the first
  // and last stages' layer counts (--decoder-first/last-pipeline-num-layers;
  // 0 = even), or the embedding and the loss each counted as one layer
  // (--account-for-embedding/loss-in-pipeline-split). Not both kinds.
  int64_t first_stage_layers = 0, last_stage_layers = 0;
  bool embedding_in_split = false, loss_in_split = false;
  int64_t gpus() const { return tp * pp * dp * cp; }
};

// What each GPU computes and keeps. Defaults are Megatron's unless stated.
struct TrainOptions {
  TrainLayout layout;
  int64_t seq = 4096;          // s, tokens per sequence
  int64_t micro_batch = 1;     // b, sequences per micro-batch
  int64_t global_batch = 0;    // sequences per optimizer step; 0 = dp x b x pp (m = pp: the pipeline full)
  int zero = 0;                // 0..3 over the dp x cp group (routed experts over dp x cp / ep)
  Optimizer optimizer = Optimizer::kAdamW;
  bool fp32_grads = true;      // Megatron keeps bf16 training's gradients in fp32 (main_grad)
  Recompute recompute = Recompute::kNone;
  bool sequence_parallel = false;  // Megatron's --sequence-parallel (TP > 1)
  bool flash = false;          // FlashAttention / TE fused attention: no s x s scores kept
  bool dropout = false;        // attention and hidden dropout masks kept (GPT-3 style; Llama: none)
  double capacity_factor = 0;  // MoE: tokens per expert capped at cf x k x tokens / E, padded; 0 = dropless
  int64_t vocab_divisor = 128; // --make-vocab-size-divisible-by
  double overhead_bytes = 2e9; // per GPU: CUDA context, NCCL and cuBLAS buffers, allocator fragmentation
  bool overlap_dp = true;      // --overlap-grad-reduce / --overlap-param-gather (FSDP prefetch)
  AttentionCount attention_count = AttentionCount::kFull;  // for MFU and HFU
  // A bare parameter count instead of a shape (train-memory --params): one
  // stage of params / (tp x pp), no activations. Unset = from the model.
  std::optional<int64_t> params;
};

// The global batch `o` asks for: o.global_batch, or when 0 dp x b x pp (pp
// micro-batches per replica, what fills the pipeline and so what its stages
// hold in a real run; one micro-batch without PP).
inline int64_t effective_global_batch(const TrainOptions& o) {
  return o.global_batch > 0 ? o.global_batch : o.layout.dp * o.micro_batch * o.layout.pp;
}

// ---------------------------------------------------------------- activations
// One transformer layer's stored activations for one micro-batch on one GPU,
// in bytes, before recomputation: Korthikanti et al.'s accounting of each
// tensor kept for the backward pass, generalised to the layer actually built
// (d_q = h d_head and d_kv = kv_heads d_head widths, gated FFN, MoE with top-k
// copies and a capacity factor, MLA latents, FlashAttention, dropout, SP, CP).
// Per token (x s b / cp):
//   replicated   LN1 and LN2 inputs 2d + 2d, the QKV and FFN inputs 2d + 2d,
//                dropout masks 1d + 1d; MoE: router probabilities 4E, the
//                combined expert outputs 2 k c d; MLA latents -- split by t
//                only with sequence parallelism
//   expert       MoE: the dispatched token copies 2 k c d (every TP rank of
//                an expert holds its tokens whole)
//   split        Q 2d_q, K and V 2d_kv each, the attention output 2d_q, the
//                FFN intermediates 4f (6f gated: gate and up, and their
//                product), experts k c x 4f_e (6f_e), shared experts -- / t
//   scores       softmax output 2 a s (+ dropout mask a s and output 2 a s) / t;
//                0 with FlashAttention
//   flash_stats  FlashAttention's log-sum-exp, 4 a / t (fp32 per head)
//   input        the layer input 2d (/ t with sequence parallelism): all that
//                full recomputation keeps
// For the paper's GPT layer this is exactly Table 2.
struct LayerActivations {
  double replicated = 0, expert = 0, split = 0, scores = 0, flash_stats = 0, input = 0;
  double total() const { return replicated + expert + split + scores + flash_stats; }
  // Kept until the layer's backward pass under `rc`.
  double kept(Recompute rc) const {
    if (rc == Recompute::kFull) return input;
    return rc == Recompute::kSelective ? total() - scores - flash_stats : total();
  }
  // Recomputed, so alive only during this layer's backward pass.
  double working(Recompute rc) const { return total() - kept(rc); }
};

// ---------------------------------------------------------------- memory
struct StageMemory {
  int64_t stage = 0;               // pipeline rank
  int64_t layers = 0;              // transformer layers on this rank (over its chunks)
  int64_t moe_layers = 0;
  bool embedding = false;          // holds the input embedding (rank 0)
  bool lm_head = false;            // holds the final norm, lm_head and loss (last rank)
  int64_t params = 0;              // per GPU: dense + expert
  int64_t expert_params = 0;       // routed experts (their ZeRO group is dp x cp / ep)
  int64_t in_flight = 0;           // chunk forwards whose activations are held at the peak
  double weights = 0, grads = 0, optimizer = 0;  // per GPU after ZeRO
  double activations = 0;          // kept for the in-flight chunks + one layer's recomputation
  double logits = 0;               // last rank: s b V_pad / (t cp) x (4 B fp32 softmax + 2 B gradient)
  double gather_buffer = 0;        // ZeRO-3: two layers' full 16-bit weights (current and prefetched)
  double overhead = 0;             // TrainOptions::overhead_bytes
  double total = 0;                // all of the above
};

struct TrainMemoryResult {
  int64_t params = 0;              // N of the model (unpadded)
  int64_t padded_vocab = 0;        // V_pad
  TrainBytesPerParam bytes_per_param;
  int64_t micro_batches = 0;       // m = global_batch / (dp x b)
  int64_t microbatch_group = 0;    // N used
  bool has_activations = false;
  LayerActivations dense_layer;    // one dense layer (the first, if any)
  LayerActivations moe_layer;      // one MoE layer (zero when none)
  std::vector<StageMemory> stages;
  int64_t worst_stage = 0;         // largest total
  double capacity = 0;
  bool fits = false;
  // At options' dp: the smallest ZeRO stage whose worst stage fits (-1 none);
  // and per ZeRO stage the smallest dp that fits (0 = none), with the worst
  // stage's unsharded and sharded bytes (the two inputs of min_dp_to_fit).
  int smallest_zero_fitting = -1;
  std::array<int64_t, 4> min_dp_by_zero{};
  std::array<double, 4> min_dp_fixed{}, min_dp_sharded{};
};

// ---------------------------------------------------------------- step time
// The calibrated profile: few, global, physically named; fitted by
// `modelcalc calibrate --training --fit` on data/training-measured.tsv and
// compiled in from data/training-profile.tsv.
struct TrainProfile {
  double gemm_efficiency = 0.7;       // achieved fraction of the dense bf16 peak in the linear layers' matmuls
  double attention_efficiency = 0.5;  // the same in the attention kernels (QKᵀ and AV, eager or FlashAttention)
  double hbm_traffic = 4.0;           // bytes elementwise kernels move per byte of activations kept
  double link_efficiency = 0.7;       // achieved fraction of the catalog's link bandwidth in collectives
};
// The compiled-in profile (a malformed data/training-profile.tsv aborts).
const TrainProfile& default_train_profile();
// Strict parse of the data/training-profile.tsv format (name<TAB>value[<TAB>comment] rows).
Result<TrainProfile> parse_train_profile(std::string_view tsv);

// One optimizer step on the slowest pipeline stage, in seconds.
struct StepBreakdown {
  double compute = 0;    // m x (F_linear / (peak x gemm_efficiency) + F_attention / (peak x attention_efficiency))
  double memory = 0;     // m x hbm_traffic x activation bytes / HBM bandwidth (elementwise kernels)
  double tp_comm = 0;    // m x TP all-reduces (or SP all-gathers and reduce-scatters), not overlapped
  double cp_comm = 0;    // m x CP all-gathers of K and V and reduce-scatters of their gradients
  double ep_comm = 0;    // m x EP all-to-alls (dispatch and combine, forward and backward)
  double pp_comm = 0;    // m x point-to-point sends between stages
  double bubble = 0;     // (p - 1) / v x the stage's micro-batch time
  double dp_comm = 0;    // exposed DP gradient reduction, parameter gathers, ZeRO-3 traffic
  double optimizer = 0;  // the optimizer update, HBM-bound
  double total() const { return compute + memory + tp_comm + cp_comm + ep_comm + pp_comm + bubble + dp_comm + optimizer; }
};

// Everything prepare_training hoists for one (model, GPU, options minus dp,
// global batch and ZeRO stage). Plain numbers in fixed arrays: copyable,
// allocation-free to evaluate.
inline constexpr int64_t kMaxPipelineStages = 256;
inline constexpr int64_t kMaxModelChunks = 1024;  // pp x virtual stages
struct PreparedStage {
  int64_t layers = 0, moe_layers = 0;
  bool embedding = false, lm_head = false;
  double dense_params = 0, expert_params = 0;  // per GPU
  double largest_layer_params = 0;             // for the ZeRO-3 gather buffer
  double working = 0;                          // one layer's recomputed activations (largest)
  double logits = 0;
  // t per micro-batch over all of the rank's chunks, by part.
  double t_compute = 0, t_memory = 0, t_tp = 0, t_cp = 0, t_ep = 0, t_pp = 0;
  double t_micro_batch = 0;                    // their sum
  double flops_executed = 0;                   // per micro-batch, this GPU
  double attention_flops_executed = 0;         // of which in the attention kernels
};
struct PreparedTraining {
  TrainOptions options;
  TrainProfile profile;
  int64_t n_layer = 0;
  int64_t params = 0, padded_vocab = 0;
  TrainBytesPerParam bytes_per_param;
  LayerActivations dense_layer, moe_layer;
  double peak_flops = 0, hbm_bytes_per_s = 0, capacity = 0;
  // The links evaluate_training picks by dp: achieved rates (catalog x
  // link_efficiency) and fixed costs inside and across the fast domain.
  double link_rate = 0, link_latency = 0, scaleout_rate = 0, scaleout_latency = 0;
  int64_t domain_gpus = 1;
  bool has_links = false;
  double pp_message_bytes = 0;                          // one stage-to-stage send of a micro-batch
  TrainFlopsPerToken flops_per_token;
  int64_t chunks = 1;                                   // pp x v
  std::array<double, kMaxModelChunks> chunk_kept{};     // per micro-batch, in model order
  std::array<PreparedStage, kMaxPipelineStages> stages{};
  int64_t slowest_stage = 0;                            // largest t_micro_batch
  int64_t most_params_stage = 0;                        // largest dense + expert params
  double max_flops_executed = 0;                        // per micro-batch, over stages
};

// Memory and time of one (dp, global batch, ZeRO stage) on a prepared run.
struct TrainEval {
  int64_t micro_batches = 0;
  double peak_memory = 0;        // the worst stage's total per GPU
  int64_t worst_stage = 0;
  bool fits = false;
  StepBreakdown step;
  double seconds = 0;            // step.total(): the prediction
  double ceiling_seconds = 0;    // compute at the dense peak + the bubble: no run is faster
  double tokens = 0;             // per step: global_batch x seq
  double mfu = 0, hfu = 0;       // predicted: model / hardware FLOPs per second / (GPUs x peak)
};

// Validates everything but dp, the global batch and the ZeRO stage, which
// check_training_batch() validates. Errors name the options field (tp, pp,
// cp, ep, virtual_stages, first_stage_layers, seq, micro_batch, ...) or
// "gpu"; Megatron's refusals are refused (pp not dividing the layers without
// an uneven split it allows, TP not dividing the KV heads, CP without
// FlashAttention, ...).
Result<PreparedTraining> prepare_training(const ModelSpec& m, const GpuSpec& gpu, const TrainOptions& options,
                                          const TrainProfile& profile = default_train_profile());
// Errors name dp, global_batch, zero, ep or microbatch_group: the global
// batch a multiple of dp x b and at least that, ep dividing dp x cp, ZeRO 0-3,
// the interleaved schedule's group rules.
Status check_training_batch(const PreparedTraining& p, int64_t dp, int64_t global_batch, int zero);
// The hot path. REQUIRES: check_training_batch(p, dp, global_batch, zero).ok().
TrainEval evaluate_training(const PreparedTraining& p, int64_t dp, int64_t global_batch, int zero);

// ---------------------------------------------------------------- analyses
// prepare + check + evaluate, with every stage expanded. m may be null only
// when options.params is set. Errors as prepare_training and
// check_training_batch, plus "gpus" when given and != tp x cp x pp x dp.
Result<TrainMemoryResult> analyze_train_memory(const ModelSpec* m, const GpuSpec& gpu, const TrainOptions& options);

struct TrainStepResult {
  PreparedTraining prepared;
  TrainEval eval;
  int64_t gpus = 0;
  double dp_wire_bytes = 0;      // per GPU per step: the DP/ZeRO collectives' bytes on the wire
  double days_per_token = 0;     // seconds / tokens / 86400: days = this x D
};
Result<TrainStepResult> analyze_train_step(const ModelSpec& m, const GpuSpec& gpu, const TrainOptions& options,
                                           const TrainProfile& profile = default_train_profile());
// Bytes on the wire per GPU per step of the DP collectives at ZeRO `zero`
// (what evaluate_training times): stage 0 all-reduces the gradients, 1 and 2
// reduce-scatter them (2: every micro-batch) and all-gather the updated
// weights, 3 all-gathers the weights in every forward and backward and
// reduce-scatters every micro-batch's gradients. For the stage with the most
// parameters.
double dp_wire_bytes_per_step(const PreparedTraining& p, int64_t dp, int64_t micro_batches, int zero);

}  // namespace modelcalc

#endif  // MODELCALC_TRAINING_H_
