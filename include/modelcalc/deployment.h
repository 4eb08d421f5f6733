// The deployment engine: ONE model of a deployment -- a model on G GPUs of one
// kind, split tensor x pipeline x expert x data parallel, with weight, compute
// and KV dtypes, serving a workload (context, batch, prompt) -- evaluated in
// one place. Every command that answers a deployment question reads these
// results; none recomputes them.
//
// Two steps, so that a search can evaluate millions of candidates:
//   prepare_deployment()  validates everything and hoists the per-(model, GPU,
//                         split, dtype) constants (allocates only for errors);
//   evaluate_deployment() the hot path: pure, allocation-free, no I/O.
// analyze_deployment() does both for one setup.
//
// The model, per GPU (README "The deployment model" says the same in prose):
// * Sharded by TP: attention q/o (and k/v while tp <= KV heads), dense and shared
//   FFN, routed experts, vocab-parallel embedding and lm_head (ceil(V/tp) rows).
//   Replicated on every TP rank: norms, routers, position tables, MLA's
//   down-projections (q_a, kv_a), and -- when tp > KV heads -- each rank keeps a
//   whole KV head (tp must then be a multiple of the KV heads).
// * PP splits layers evenly (pp | n_layer); stage 0 holds the embedding, the last
//   stage the lm_head (a tied table is held by both when pp > 1). Memory is the
//   worst stage (largest weight shard and largest KV share taken together).
// * EP (ep | tp, ep | n_expert): routed experts spread over ep ranks inside the
//   TP group, each expert's matrices split over tp/ep. The shard per rank and the
//   expected expert bytes read equal the pure-TP case; the MoE output is summed
//   over the TP group by the same all-reduce. The DP-attention layout
//   (Parallelism::dp_attention) spreads the experts over the whole replica with
//   an all-to-all dispatch and combine per MoE layer (docs/serving-layouts.md).
// * DP replicates the whole tp x pp group; `batch` is sequences PER REPLICA,
//   aggregate rates multiply by dp.
// * A quantized checkpoint (ModelSpec::quant): weight_dtype applies to the parts it
//   quantizes, the parts it keeps in 16 bits stay bf16 (gpt-oss: MXFP4 experts, bf16
//   attention); its fp8 block scales and group size apply to its own dtype.
// * Quantized weights (int8/int4/fp8/nvfp4/mxfp4): block matrices in weight_dtype;
//   embeddings, lm_head, norms, routers, biases and position tables stay 16-bit
//   (fp32 if the weights are fp32); the shard's `scales` hold the group scales the
//   dtype table (dtype.h) gives: int8/int4 one 16-bit scale per quant_group_size
//   weights, NVFP4 one 8-bit per 16, MXFP4 one 8-bit per 32, fp8 one fp32 per
//   128 x 128 block when fp8_block_scales (else none). NVFP4's per-tensor fp32
//   scale (4 B per matrix) is ignored.
// * Time of one step: max(compute, memory) per stage (compute and memory overlap
//   perfectly), stages run one after another (no micro-batching), communication
//   is NOT overlapped: seconds = pp x max(flops/peak, bytes/bw) + comm.
// * Per-layer kinds: KV only for layers with attention; a sliding layer holds
//   and reads min(T, window) tokens, a chunked layer min(T, chunk) (its largest
//   chunk); a recurrent layer holds a fixed state per sequence (any length),
//   reads and writes it back each decode step and spends O(state) FLOPs a
//   token; a DSA layer holds every token's latent and indexer key, scores all
//   indexer keys and attends to at most top-k latents. max_sequences divides
//   the free memory by KV + state per sequence.
// * Regime: capacity-bound if the batch cannot be held (or the weights do not
//   fit); else communication-bound if comm exceeds the compute/memory time; else
//   compute- or bandwidth-bound by which of flops/peak and bytes/bw is larger,
//   with the peak of the dtype the matmuls run in (compute_dtype).
#ifndef MODELCALC_DEPLOYMENT_H_
#define MODELCALC_DEPLOYMENT_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

#include "modelcalc/defaults.h"
#include "modelcalc/dtype.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/status.h"

namespace modelcalc {

struct Parallelism {
  int64_t tp = 1;  // tensor parallel ranks (under dp_attention: inside each attention group); divides n_head;
                   // KV heads divide tp or tp divides them
  int64_t pp = 1;  // pipeline stages; divides n_layer
  // Expert-parallel ranks of the MoE group (moe_group(): the TP group, or the whole replica under
  // dp_attention): whole experts spread over ep ranks, each expert's matrices split over the group's
  // moe_group() / ep others; divides moe_group() and n_expert + redundant experts.
  int64_t ep = 1;
  int64_t dp = 1;  // data-parallel replicas of the whole group
  // The attention-DP x MoE-EP layout (SGLang's --enable-dp-attention, DeepSeek's DP32/EP32): a
  // replica of attn_dp x tp GPUs runs attention, its KV, the dense FFNs and the lm_head in attn_dp
  // data-parallel groups of tp GPUs (each group holds only its own sequences' KV), and its routed
  // experts over all of them, tokens dispatched and combined by an all-to-all per MoE layer.
  // REQUIRES pp == 1. attn_dp > 1 only with dp_attention.
  bool dp_attention = false;
  int64_t attn_dp = 1;  // attention data-parallel groups per replica
  int64_t replica_gpus() const { return tp * attn_dp * pp; }
  int64_t moe_group() const { return tp * attn_dp; }  // GPUs one stage's routed experts spread over
  int64_t gpus() const { return replica_gpus() * dp; }
};

// Speculative decoding: K draft tokens per target step, verified in one
// target pass of K + 1 tokens per sequence. The acceptance model is i.i.d.:
// each draft token is accepted with probability A given its predecessors
// were, so a step yields (1 - A^(K+1)) / (1 - A) tokens (K + 1 at A = 1).
enum class SpecMethod {
  kNone,
  kMtp,         // the model's own multi-token-prediction module (DeepSeek-V3, GLM-4.5), run K times
                // autoregressively (TensorRT-LLM's "MTP Eagle"): one layer of the model's last kind,
                // sharing its embedding and lm_head
  kDraftModel,  // a separate (dense) draft model run K times per step
};
std::string_view spec_method_name(SpecMethod m);  // "none", "mtp", "draft"
struct SpeculativeDecoding {
  SpecMethod method = SpecMethod::kNone;
  int64_t tokens = 0;        // K >= 1 draft tokens per target step (method != kNone)
  double acceptance = 0;     // A in [0, 1]
  // kDraftModel: the draft's shape (not owned; read by prepare_deployment only). Its weights and KV are
  // held beside the target's on every GPU of an attention group, split over the same tp.
  const ModelSpec* draft = nullptr;
  bool on() const { return method != SpecMethod::kNone && tokens > 0; }
};
// Expected tokens one target step yields: (1 - A^(K+1)) / (1 - A); K + 1 at A = 1; 1 with K = 0.
double accepted_tokens_per_step(int64_t k, double acceptance);

// Prefix caching: prompt tokens whose KV is found in the cache are not
// prefilled (no FLOPs, no KV written); the tokens after them still attend to
// them. A shared prefix (a system prompt every request carries) is held once
// per attention group instead of once per sequence.
struct PrefixCache {
  double hit = 0;             // share of each prompt's tokens found cached, in [0, 1)
  int64_t shared_tokens = 0;  // tokens of a prefix every request shares (held once); counts as cached
};


// Defaults: modelcalc/defaults.h (context, dtypes, batch, the drills' reserve,
// quant group). The deployment engine is the CEILING: its memory is the
// driver-exposed capacity (GpuSpec::usable_capacity_bytes) less the weights and
// nothing else, so it bounds every engine; --reserve / workspace_bytes narrow it
// on request. What an engine keeps back is the prediction's (engine_profile.h).
inline constexpr double kCeilingReserveFraction = 0.0;
// kv-budget's activation/workspace allowance (capacity.h
// workspace_allowance_bytes): one prefill chunk of kWorkspaceChunkTokens (2048)
// tokens x (widest FFN intermediate / tp + vocabulary / tp) x 2 B per GPU;
// the deployment engine charges it only when asked (workspace_allowance).

// The dtype matmuls run in when none is given, from the dtype table: fp8
// weights -> fp8 (W8A8); int8/int4 weight-only -> bf16 (dequantized in the
// kernel); nvfp4/mxfp4 -> themselves (the fp4 peak) on a GPU with an fp4 peak,
// else bf16 (weight-only); else the weights' own.
Dtype default_compute_dtype(Dtype weight, const GpuSpec& gpu);
// The KV cache dtype when none is given: 16-bit, NOT following quantized
// weights (fp16 weights -> fp16, fp32 -> fp32, everything else -> bf16).
Dtype default_kv_dtype(Dtype weight);
// A model's defaults: the dtype its checkpoint stores its quantized parts in
// (ModelSpec::quant), else `fallback`; the KV dtype its checkpoint states, else
// default_kv_dtype(weight). Every command takes its defaults from these.
Dtype default_weight_dtype(const ModelSpec& m, Dtype fallback);
Dtype default_kv_dtype(const ModelSpec& m, Dtype weight);
// The recurrent state's dtypes when none is given: the conv window in
// default_kv_dtype(weight); the SSM / delta-rule matrix in the dtype the config
// states (ModelSpec::ssm_state_dtype: Nemotron-3's float32), else the same.
Dtype default_state_dtype(Dtype weight);
Dtype default_ssm_state_dtype(const ModelSpec& m, Dtype weight);

struct DeploymentOptions {
  Parallelism split;                         // default: one GPU
  Dtype weight_dtype = kDefaultWeightDtype;
  std::optional<Dtype> compute_dtype;        // default: default_compute_dtype(weight_dtype)
  std::optional<Dtype> kv_dtype;             // default: default_kv_dtype(model, weight_dtype)
  std::optional<Dtype> state_dtype;          // recurrent state, the whole of it (SSM matrix and conv window);
                                             // default: default_state_dtype / default_ssm_state_dtype
  int64_t quant_group_size = kDefaultQuantGroupSize;  // int8/int4: weights per 16-bit scale
  bool fp8_block_scales = false;  // fp8: one fp32 scale per 128 x 128 block (DeepSeek-V3 checkpoints)
  double reserve_fraction = kCeilingReserveFraction;  // of capacity kept back, in [0, 1)
  std::optional<double> workspace_bytes;     // per GPU; default 0 (the ceiling), or the allowance below
  bool workspace_allowance = false;          // no workspace_bytes: charge kv-budget's chunk allowance
  int64_t context = kDefaultContext;         // tokens of KV each sequence holds (T)
  int64_t batch = kDefaultBatch;             // sequences per replica decoding together (B)
  int64_t prompt_tokens = 0;                 // prefill length P; 0 = the whole context
  // Routed experts under EP (ep > 1).
  double expert_imbalance = 1.0;   // busiest EP rank's routed tokens / the mean, >= 1 (beyond uniform routing's
                                   // own sampling spread, which the engine adds); 1 = balanced
  int64_t redundant_experts = 0;   // EPLB-style replicas: extra expert slots per MoE layer (memory), needs ep > 1
  bool two_batch_overlap = false;  // the all-to-all hidden behind the other micro-batch's compute (SGLang TBO,
                                   // DeepSeek's dual micro-batch): step = max(busy, a2a) + the rest
  SpeculativeDecoding spec;        // default: off
  PrefixCache prefix;              // default: nothing cached
};

enum class DeploymentRegime { kBandwidthBound, kComputeBound, kCapacityBound, kCommunicationBound };
// "bandwidth-bound", "compute-bound", "capacity-bound", "communication-bound".
std::string_view regime_name(DeploymentRegime r);

// Weight bytes one GPU holds, by part (worst pipeline stage).
struct WeightShard {
  int64_t embeddings = 0;  // vocab-parallel input table (+ positions), 16-bit
  int64_t lm_head = 0;     // vocab-parallel output matrix (a tied copy on the last stage when pp > 1)
  int64_t attention = 0;   // attention matrices (sharded + replicated KV/MLA parts)
  int64_t mlp = 0;         // dense and shared-expert FFN matrices
  int64_t experts = 0;     // routed experts
  int64_t other = 0;       // norms, routers, biases (16-bit, replicated or sharded as they are)
  int64_t scales = 0;      // group scales of the block matrices (dtype table: int8/int4, nvfp4, mxfp4, fp8 blocks)
  int64_t recurrent = 0;   // recurrent mixers (Mamba, Gated DeltaNet), sharded by heads
  int64_t draft = 0;       // a speculative draft held beside the model: an MTP module or a draft model (its scales
                           // included; not in params.total)
  int64_t vision = 0;      // the vision tower and projector (params.vision, not in params.total), 16-bit, sharded
                           // by TP (whole on every GPU where ModelSpec::towers_whole), on the first stage: vLLM's
                           // multimodal models build and load them
  int64_t audio = 0;       // the audio tower and embedder (params.audio), as the vision tower
  int64_t total() const {
    return embeddings + lm_head + attention + mlp + experts + other + scales + recurrent + draft + vision + audio;
  }
};

// A speculative draft reduced to what one draft pass costs on one GPU of an
// attention group (per sequence where it says so); hoisted by prepare_deployment.
struct DraftTerms {
  double weight_bytes = 0;        // non-routed block weights and the lm_head shard, read once per pass
  double row_bytes = 0;           // the input row one token reads (a draft model's own table; MTP: the model's)
  double flops_per_token = 0;     // non-routed matmuls + lm_head, per token
  double moe_layers = 0;          // routed-expert layers (MTP: the module's), on the model's own expert terms
  double kv_layers = 0;           // layers whose cache each pass reads, every token of the context
  double kv_bytes_per_key = 0;    // per layer per cached token
  double attn_flops_per_key = 0;  // per layer per cached token and query
  double allreduces = 0;          // TP all-reduces per pass (tp > 1)
  int64_t kv_per_token_memory = 0;  // bytes one token adds to the draft's cache on one GPU
};

// Everything evaluate_deployment needs, hoisted. Plain numbers; copyable.
// A handle for the hot path: pass it to evaluate_deployment. Read the split,
// the dtypes, the GPU's figures and the weight shard if you need them; every
// other member is an internal constant of the engine (its meaning and its
// presence may change with the engine): read the results, DeploymentResult,
// for figures.
struct PreparedDeployment {
  Parallelism split;
  Dtype weight_dtype = Dtype::kBf16, compute_dtype = Dtype::kBf16, kv_dtype = Dtype::kBf16;
  Dtype state_dtype = Dtype::kBf16;      // recurrent state: the conv window
  Dtype ssm_state_dtype = Dtype::kBf16;  // recurrent state: the SSM / delta-rule matrix
  int64_t quant_group_size = kDefaultQuantGroupSize;
  bool fp8_block_scales = false;
  double reserve_fraction = kCeilingReserveFraction;
  double workspace_bytes = 0;
  // A quantized checkpoint (ModelSpec::quant): weight_dtype is what its quantized
  // parts are served in; the parts it keeps in 16 bits are bf16 (or weight_dtype
  // when that is 16 or 32 bits). Without one every part is weight_dtype.
  bool checkpoint_quant = false;
  Dtype attention_dtype = Dtype::kBf16, mlp_dtype = Dtype::kBf16, experts_dtype = Dtype::kBf16,
        recurrent_dtype = Dtype::kBf16;

  // Hardware (one GPU) and the links the split uses.
  double capacity_bytes = 0, bandwidth = 0, peak_flops = 0;  // usable capacity; peak of compute_dtype
  double peak_flops_16bit = 0;      // the bf16 peak: what attention kernels compute at (the prediction's)
  GpuArch arch = GpuArch::kUnknown;  // the GPU's architecture (gpu_arch): the prediction's per-family factor
  double tp_link_bytes_per_s = 0, tp_latency_s = 0;  // inside the domain if tp fits in it
  double pp_link_bytes_per_s = 0, pp_latency_s = 0;  // inside the domain if tp x pp fits in it
  bool tp_crosses_domain = false, pp_crosses_domain = false;
  double scaleout_bytes_per_s = 0, scaleout_latency_s = 0;  // the NIC: a disaggregated pool's KV transfer

  // Memory per GPU.
  WeightShard weights;                  // worst stage
  int64_t kv_elems_per_layer = 0;       // KV elements per token per layer on one rank
  int64_t kv_unique_elems_per_layer = 0;  // per token per layer over the whole TP group, once (MLA's latent
                                          // once, GQA's KV heads once): what a KV transfer moves
  int64_t kv_bits = 16;
  int64_t stage_full_layers = 0;        // worst stage: layers caching the whole context
  int64_t stage_swa_layers = 0;         // worst stage: sliding-window layers
  int64_t n_swa = 0;                    // window length (tokens)
  double memory_budget = 0;             // capacity x (1 - reserve) - workspace
  // Per-layer kinds beyond full/sliding (hybrid models; all 0 for the others).
  int64_t stage_chunked_layers = 0;     // worst stage: chunked-attention layers
  int64_t n_chunk = 0;                  // chunk length (tokens)
  int64_t stage_recurrent_layers = 0;   // worst stage: layers with a recurrent mixer
  int64_t state_bits = 16;              // bits of one conv-window element of the recurrent state
  int64_t ssm_state_bits = 16;          // bits of one SSM / delta-rule matrix element
  int64_t state_elems_per_layer = 0;    // recurrent state of one sequence, one layer, one rank (elements)
  int64_t ssm_state_elems_per_layer = 0;  // of which the SSM / delta-rule matrix; the rest is the conv window
  // DeepSeek Sparse Attention: each full layer also caches index_elems_per_layer
  // indexer-key elements per token (whole on every rank) and attends to at most
  // index_topk keys; 0 = no indexer.
  int64_t index_elems_per_layer = 0;
  int64_t index_topk = 0;

  // Decode/prefill per rank, summed over the pp stages (one "column" of ranks).
  // Layers that attend (full, sliding-window); of them, n_shared_* read another layer's KV and hold none.
  int64_t n_layer = 0, n_full_layers = 0, n_swa_layers = 0, n_moe_layers = 0;
  int64_t n_shared_full_layers = 0, n_shared_swa_layers = 0;
  int64_t n_chunked_layers = 0, n_recurrent_layers = 0;
  int64_t n_embd = 0;
  double dense_bytes = 0;           // non-routed block weights one rank reads per step (incl. scales)
  double expert_bytes = 0;          // bytes of ONE routed expert of ONE layer on one rank (incl. scales)
  double n_expert = 0, n_expert_used = 0;
  double lm_head_bytes = 0;         // lm_head shard one rank reads per step
  double embedding_row_bytes = 0;   // one embedding row's share on one rank (d x 16-bit / tp)
  double linear_flops_per_token = 0;    // 2 x active block matmul params per rank (excl. lm_head)
  double lm_head_flops_per_token = 0;   // 2 x V x d / tp
  double attn_flops_per_key_decode = 0;   // per layer per key per rank (GQA, or MLA absorbed)
  double attn_flops_per_key_prefill = 0;  // per layer per key per rank (MLA not absorbed)
  double index_flops_per_key = 0;         // DSA indexer scores: per full layer per key per rank
  double state_flops_per_token = 0;       // recurrent update + readout per recurrent layer per token per rank
  double act_bytes = 2;             // bytes per activation element sent over links (16-bit)
  // Activation bytes the non-GEMM kernels move per token through HBM, all layers of one rank
  // column: two norms and the residual read and written (6 d, replicated on every TP rank) and the
  // gated FFN's activation (reads gate and up, writes their product: 1.5 x the widest FFN
  // intermediate / tp), x act_bytes. The ceiling assumes them fused away; the prediction reads them.
  double elementwise_bytes_per_token = 0;
  double allreduces_per_layer = 0;  // when tp > 1: sublayers per layer on average (2: attention +
                                    // MLP; a mixer-only block 1), else 0
  double ring_factor = 0;           // 2 (tp - 1) / tp

  // Routed experts over the MoE group (split.moe_group() GPUs: ep ranks x expert_tp slices).
  double attn_dp = 1;                 // attention groups per replica: sequences and dense work split over them
  double expert_slots_per_rank = 0;   // (n_expert + redundant) / ep: experts one EP rank holds per MoE layer
  double expert_slots = 0;            // n_expert + redundant
  double expert_tp = 1;               // each expert's matrices split over moe_group / ep GPUs
  double expert_flops_per_routed_token = 0;  // 2 x one expert's params / expert_tp: one (token, expert) pair
  double ep_spread = 0;               // expected largest of ep standard normals (Blom); 0 when ep == 1
  double expert_imbalance = 1;        // the stated factor on the busiest EP rank's routed tokens (ep > 1)
  int64_t redundant_experts = 0;
  // All-to-all (dp_attention with attn_dp > 1): per MoE layer and per token a GPU sends, the copies that
  // cross the fast domain and the NIC (destinations deduplicated per domain), and the bytes of one copy.
  bool a2a = false;
  double a2a_link_copies = 0, a2a_nic_copies = 0;
  double a2a_dispatch_bytes = 0, a2a_combine_bytes = 0;  // d x (fp8 + scales when the matmuls run in fp8; else 16-bit)
  double a2a_link_bytes_per_s = 0, a2a_nic_bytes_per_s = 0, a2a_latency_s = 0;
  bool two_batch_overlap = false;
  // Speculative decoding.
  SpecMethod spec_method = SpecMethod::kNone;
  int64_t spec_tokens = 0;            // K (0 = off)
  double spec_acceptance = 0;         // A
  double spec_accepted = 1;           // accepted_tokens_per_step(K, A)
  DraftTerms draft;
  // Prefix caching.
  double prefix_hit = 0;
  int64_t prefix_shared_tokens = 0;
};

// Bits of one sequence's recurrent state in one layer on one rank: the SSM /
// delta-rule matrix at ssm_state_bits, the conv window at state_bits. Exact.
inline Exact state_bits_per_layer(const PreparedDeployment& d) {
  return Exact(d.ssm_state_elems_per_layer) * Exact(d.ssm_state_bits) +
         Exact(d.state_elems_per_layer - d.ssm_state_elems_per_layer) * Exact(d.state_bits);
}

// Tokens one sequence of `ctx` tokens keeps in one layer: the whole context
// when `keep` is 0, else at most `keep` tokens plus `extra_blocks` blocks once
// the context passes `keep`; in whole blocks of `block` tokens (1: exact). The
// one rule behind every KV figure, per layer kind: the ceiling keeps a window
// layer's last `window` tokens and a chunked layer's chunk (block 1); an engine
// release keeps what its allocator keeps (EngineSettings::window_keep,
// chunk_keep). Pure.
// REQUIRES: ctx >= 0, keep >= 0, block >= 1.
inline double kv_kept_tokens(double ctx, int64_t keep, int64_t block, int64_t extra_blocks = 0) {
  const bool clipped = keep > 0 && ctx > static_cast<double>(keep);
  const double t = clipped ? static_cast<double>(keep) : ctx;
  const double b = static_cast<double>(block);
  return (std::ceil(t / b) + (clipped ? static_cast<double>(extra_blocks) : 0.0)) * b;
}

// Bytes one GPU reads in a decode step, by component.
struct DecodeBytes {
  double weights = 0;        // non-routed block weights (attention, dense/shared FFN, norms, scales)
  double experts = 0;        // routed experts expected to be touched
  double lm_head = 0;        // the lm_head shard, in full
  double embedding_rows = 0; // B rows of the input table (its share on this GPU)
  double kv = 0;             // every sequence's KV on this GPU (a DSA indexer's keys included)
  double state = 0;          // recurrent state: read and written back once per step, every sequence
  double draft = 0;          // the K draft passes of speculative decoding (their weights, experts and KV)
  double total() const { return weights + experts + lm_head + embedding_rows + kv + state + draft; }
};
struct DecodeFlops {
  double linear = 0;     // active block matmuls
  double attention = 0;  // scores + weighted sum over the keys each layer reads, in the kernels'
                         // form (a DSA indexer's scores over the whole context included)
  double lm_head = 0;
  double recurrent = 0;  // recurrent layers' state update and readout, O(state) per token
  double experts = 0;    // routed experts on the busiest GPU of the MoE group
  double draft = 0;      // the K draft passes of speculative decoding
  double total() const { return linear + attention + lm_head + recurrent + experts + draft; }
};

struct DeploymentMemory {   // per GPU, worst pipeline stage
  double capacity = 0;       // usable: the driver-exposed memory when catalogued, else nominal
  double reserve = 0;        // capacity x reserve_fraction
  double workspace = 0;
  WeightShard weights;
  int64_t kv_per_token = 0;     // B of KV one token adds on this GPU (no window filled)
  int64_t kv_per_sequence = 0;  // B of KV one sequence of `context` tokens holds on this GPU
  int64_t state_per_sequence = 0;  // B of recurrent state one sequence holds on this GPU, any length
  int64_t draft_kv_per_sequence = 0;  // B of the speculative draft's cache one sequence holds on this GPU
  int64_t shared_prefix = 0;    // B of a shared prefix's KV, held once per attention group (its full layers)
  double free_for_kv = 0;       // capacity - reserve - workspace - weights (may be negative)
  // Per replica: attn_dp x floor((free - shared prefix) / (kv + state + draft kv per sequence)); 0 when the
  // weights do not fit. A shared prefix shortens each sequence's own KV by its tokens on the full layers.
  int64_t max_sequences = 0;
};

struct DecodeStep {
  int64_t batch = 0, context = 0;
  double experts_touched = 0;   // expected distinct routed experts per MoE layer
  double experts_read = 0;      // of them, read by the busiest GPU's EP rank (= touched with ep 1)
  double routed_per_rank = 0;   // (token, expert) pairs routed to the busiest EP rank per MoE layer
  DecodeBytes bytes;            // per GPU, per pipeline stage (average)
  DecodeFlops flops;            // per GPU, per pipeline stage (average)
  double bytes_per_gpu = 0, flops_per_gpu = 0, intensity = 0;  // intensity = flops / bytes
  double ridge = 0;             // peak(compute_dtype) / bandwidth
  double compute_seconds = 0;   // pp x flops_per_gpu / peak
  double memory_seconds = 0;    // pp x bytes_per_gpu / bandwidth
  double allreduce_seconds = 0; // TP all-reduces, all layers
  double handoff_seconds = 0;   // PP hand-offs
  double a2a_seconds = 0;       // all-to-all dispatch + combine, every MoE layer (dp_attention)
  double comm_seconds = 0;      // allreduce + handoff + a2a (the a2a left out under two-batch overlap)
  double seconds = 0;           // one target step: max(compute, memory) + comm (with two-batch overlap
                                // max(compute, memory, a2a) + the rest); the K draft passes included
  double accepted_tokens_per_step = 1;   // tokens a step yields per sequence: (1 - A^(K+1)) / (1 - A)
  double tpot_seconds = 0;      // seconds / accepted_tokens_per_step
  double tokens_per_s_per_sequence = 0;  // accepted / seconds
  double tokens_per_s_aggregate = 0;     // batch x dp x accepted / seconds
  // Speculative decoding on: the same batch without it (the step of one token, no draft).
  double tokens_per_s_per_sequence_without_spec = 0, tokens_per_s_aggregate_without_spec = 0;
  bool fits = false;            // batch <= max_sequences
  DeploymentRegime regime = DeploymentRegime::kBandwidthBound;
};

struct Prefill {
  int64_t prompt_tokens = 0;
  int64_t cached_tokens = 0;    // of them found in the prefix cache (not computed)
  double flops = 0;             // per GPU, per stage: linear + causal attention + recurrent + lm_head (last token)
  double attention_flops = 0;
  double recurrent_flops = 0;   // per GPU, per stage: recurrent layers over the prompt
  double bytes = 0;             // per GPU, per stage: weights once, experts touched, KV written
  double compute_seconds = 0, memory_seconds = 0, comm_seconds = 0;
  double a2a_seconds = 0;       // of comm_seconds: the all-to-all (dp_attention)
  double seconds = 0;           // TTFT of one prompt
};

struct DeploymentResult {
  DeploymentMemory memory;
  DecodeStep decode;
  Prefill prefill;
  bool overflow = false;        // a KV count did not fit in int64 (context absurdly large)
};

// The options beside the split (expert balance, speculative decoding, prefix
// caching) on their own: what prepare_deployment checks of them, for a search
// to refuse them once. Errors name the field (expert_imbalance, spec_tokens,
// spec_acceptance, spec_method, draft_model, prefix_hit, prefix_tokens).
Status check_layout_options(const ModelSpec& m, const DeploymentOptions& options);

// The whole model's weights as one GPU holds them, served at options.weight_dtype: a quantized
// checkpoint's own mixed dtypes and scales; a 16-bit checkpoint quantized at load keeps its embeddings,
// lm_head, norms, routers, biases and towers 16-bit (as the engines load it). That is, the checkpoint's
// bytes: prepare_deployment's weight shard at one GPU, by the same per-part rule. The split and a draft
// are not read. Errors: the model's (validate) and Overflow.
Result<WeightShard> model_weights(const ModelSpec& m, const DeploymentOptions& options);

// Validates model, GPU, split and options; hoists constants. Errors name the
// FIELD (tp, pp, ep, dp, compute_dtype, reserve_fraction, ...) and what is allowed.
Result<PreparedDeployment> prepare_deployment(const ModelSpec& m, const GpuSpec& gpu,
                                              const DeploymentOptions& options);

// The hot path. REQUIRES: batch >= 1, context >= 1, prompt >= 0 (0 = context).
// Pure, allocation-free, no I/O.
DeploymentResult evaluate_deployment(const PreparedDeployment& d, int64_t batch, int64_t context,
                                     int64_t prompt);

// Prompt tokens of a prompt of `prompt` tokens found in the prefix cache: the
// larger of floor(prefix_hit x prompt) and the shared prefix, at most prompt - 1
// (the last token is computed: its logits give the first output token). Pure.
int64_t prefill_cached_tokens(const PreparedDeployment& d, int64_t prompt);

// Checks the workload numbers the hot path takes (field names batch, context,
// prompt_tokens), including that the KV counts fit in 64 bits and that the
// shared prefix is below the prompt (check_prefix_tokens).
Status check_workload(const PreparedDeployment& d, int64_t batch, int64_t context, int64_t prompt);

// A prefix every request shares is part of each prompt and leaves at least
// one prompt token to compute: `shared_tokens` must be below `prompt` (the
// prompt, or the context when the prompt is the whole context), which the
// error calls `prompt_is` ("the prompt"). Errors name prefix_tokens and the
// allowed range ("0 to 8191").
Status check_prefix_tokens(int64_t shared_tokens, int64_t prompt, std::string_view prompt_is);

// The smallest batch whose decode step at `context` is compute-bound
// (flops/peak >= bytes/bw), or 0 if none up to 2^30. Ignores capacity: compare
// with max_sequences (the batch HBM can hold) before advising it.
int64_t compute_bound_batch(const PreparedDeployment& d, int64_t context);

// prepare + check + evaluate for one setup.
Result<DeploymentResult> analyze_deployment(const ModelSpec& m, const GpuSpec& gpu,
                                            const DeploymentOptions& options);

// What a command shows: the prepared constants, the result at options.batch,
// and the batch at which decode turns compute-bound (0 = never up to 2^30).
struct DeploymentAnalysis {
  PreparedDeployment prepared;
  DeploymentResult result;
  int64_t compute_bound_batch = 0;
};
Result<DeploymentAnalysis> analyze_deployment_full(const ModelSpec& m, const GpuSpec& gpu,
                                                   const DeploymentOptions& options);

}  // namespace modelcalc

#endif  // MODELCALC_DEPLOYMENT_H_
