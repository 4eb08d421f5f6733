// Capacity: how much fits in memory. Two analyses over the formula core:
//   kv-budget     an HBM budget -> concurrent sequences, MHA vs the model's
//                 attention (drill 2's teaching view), and the changes that
//                 double it -- each the deployment engine on the varied
//                 scenario (propose_kv_changes);
//   paged-kv      KV memory used vs reserved contiguously vs allocated in blocks.
// Training memory (train-memory) is the training engine's: modelcalc/training.h.
// The pure formulas first (constexpr, no allocation, no I/O), then the
// analyses: plain options in, plain result structs out, errors as Status.
#ifndef MODELCALC_CAPACITY_H_
#define MODELCALC_CAPACITY_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "modelcalc/defaults.h"
#include "modelcalc/dtype.h"
#include "modelcalc/exact.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/scenario.h"
#include "modelcalc/status.h"

namespace modelcalc {

// =============================================================== formulas

// ---------------------------------------------------------------- KV budget
// Bytes left for the KV cache: capacity . gpus . (1 - reserve) - W - A.
// Negative when the weights and allowance do not fit.
constexpr double kv_budget_bytes(double capacity_bytes, double gpus, double reserve,
                                 double weight_bytes, double allowance_bytes) {
  return capacity_bytes * gpus * (1.0 - reserve) - weight_bytes - allowance_bytes;
}
// Sequences whose whole KV reservation fits: floor(budget / KV). 0 if none.
constexpr int64_t max_sequences(int64_t budget_bytes, int64_t kv_bytes_per_seq) {
  return budget_bytes <= 0 || kv_bytes_per_seq <= 0 ? 0 : budget_bytes / kv_bytes_per_seq;
}
// Tokens of one prefill chunk the default workspace allowance is sized for
// (vLLM's default max_num_batched_tokens with chunked prefill).
inline constexpr int64_t kWorkspaceChunkTokens = 2048;
// Activation/workspace allowance of an inference engine: one forward step over
// a chunk of C tokens holds, at its peak, the FFN's widest intermediate
// (w_ffn = d_ff, twice for a gated FFN's gate and up outputs) and the logits
// over the vocabulary, in 16-bit: C . (w_ffn + V) . 2 bytes.
constexpr Exact workspace_allowance_bytes(Exact chunk_tokens, Exact ffn_width, Exact vocab) {
  return chunk_tokens * (ffn_width + vocab) * Exact(2);
}
// KV heads a tensor-parallel group of g GPUs stores in total: each GPU holds
// ceil(kv_heads / g) heads, so when g > kv_heads heads are replicated.
constexpr int64_t kv_heads_stored(int64_t kv_heads, int64_t gpus) {
  return gpus * ((kv_heads + gpus - 1) / gpus);
}
// Tokens a paged allocator reserves for a sequence of `len` tokens:
// ceil(len / block) . block.
constexpr int64_t paged_tokens(int64_t len, int64_t block_size) {
  return (len + block_size - 1) / block_size * block_size;
}

// ---------------------------------------------------------------- paged KV
// Token-level accounting of a paged KV allocator (PagedAttention, Kwon et al.
// 2023): each sequence gets ceil(len / block) blocks, so only its last block
// is partly empty and the waste is below one block per sequence.
struct PagedKvWaste {
  int64_t sequences = 0;
  int64_t used_tokens = 0;       // sum of lengths
  int64_t allocated_tokens = 0;  // sum of ceil(len / block) . block
  int64_t waste_tokens = 0;      // allocated - used
  double waste_fraction = 0;     // waste / allocated; 0 when nothing is allocated
};
// Pure: no allocation. Fails with InvalidArgument when block_size <= 0 or a
// length is negative, Overflow when a sum does not fit in int64_t.
Result<PagedKvWaste> paged_kv_waste(std::span<const int64_t> seq_lens, int64_t block_size);

// =============================================================== analyses

// ---------------------------------------------------------------- kv-budget
struct KvBudgetOptions {
  int64_t gpus = 1;                     // tensor-parallel GPUs sharing weights and KV; > 0
  int64_t context = kDefaultContext;    // tokens reserved per sequence; > 0
  double reserve = kDefaultReserveFraction;  // fraction of capacity kept back; 0 <= r < 1
  Dtype weight_dtype = kDefaultWeightDtype;
  Dtype kv_dtype = kDefaultWeightDtype;  // 16-bit as the weights (default_kv_dtype)
  std::optional<double> budget;         // the KV budget in bytes, given directly
  std::optional<double> workspace;      // activation/workspace allowance; default formula
  int64_t mean_len = 0;                 // mean sequence length for paged allocation; 0 = context / 2
  int64_t block_size = 16;              // paged-allocation block in tokens; > 0
};

enum class KvProposalKind {
  kKvDtype,          // store the KV cache in `dtype` (--kv-dtype)
  kWeightDtype,      // store the weights in `dtype` (--dtype)
  kPagedAllocation,  // allocate blocks as sequences grow: each holds its mean length, `value`,
                     // rounded up to whole blocks (the engine at --context of that)
  kShorterContext,   // reserve `value` tokens per sequence (--context)
  kMoreGpus,         // tensor parallel over `value` GPUs per replica (--gpus)
  kFewerKvHeads,     // retrain with `value` KV heads (--kv-heads)
};
struct KvProposal {
  KvProposalKind kind = KvProposalKind::kKvDtype;
  Dtype dtype = Dtype::kBf16;   // kKvDtype, kWeightDtype
  int64_t value = 0;            // see KvProposalKind
  int64_t max_sequences = 0;    // per replica after the change: the engine's memory.max_sequences
  double factor = 0;            // max_sequences / before; +inf when before is 0
  int effort = 0;               // disruption rank, 1 = a config switch ... 6 = retraining
  Variation variation;          // the change and the engine's figures for the varied scenario
};

struct KvBudgetResult {
  bool budget_given = false;
  double capacity_bytes = 0;    // capacity . gpus (0 without a GPU)
  int64_t usable_bytes = 0;     // capacity . gpus . (1 - reserve), rounded to a byte
  int64_t n_params = 0;         // N, as param_breakdown counts it
  int64_t weight_bytes = 0;
  int64_t workspace_bytes = 0;
  int64_t ffn_width = 0;        // w_ffn in the allowance formula
  int64_t budget_bytes = 0;     // may be negative: the weights do not fit
  int64_t kv_bytes_per_token = 0;       // one copy, no replication
  int64_t kv_heads_stored = 0;          // over all GPUs (> kv_heads when replicated)
  int64_t kv_bytes_per_sequence = 0;    // at context, over all GPUs
  double kv_bytes_per_sequence_one_copy = 0;  // at context, before replication over GPUs
  int64_t kv_bytes_per_sequence_mha = 0;
  double kv_ratio = 0;                  // MHA / actual
  // Recurrent state one sequence holds over all GPUs, whatever its length (16-bit,
  // as the deployment engine's default state dtype); 0 without recurrent layers.
  // Every sequence count below reserves it beside the KV.
  int64_t state_bytes_per_sequence = 0;
  int64_t max_sequences = 0;
  int64_t max_sequences_mha = 0;
  double gqa_sequence_gain = 0;         // max_sequences / max_sequences_mha; 0 when no MHA sequence fits
  int64_t mean_len = 0;                 // the paged proposal's assumption
};

// REQUIRES: validate(m).ok(). `gpu` may be null only when options.budget is
// set. Errors name the options field (budget, reserve, gpus, context,
// mean_len, block_size, workspace) or "gpu".
Result<KvBudgetResult> analyze_kv_budget(const ModelSpec& m, const GpuSpec* gpu,
                                         const KvBudgetOptions& options);

// The changes that make room for more sequences, each the deployment engine
// on the varied scenario (no arithmetic of their own): KV in fp8 (int4 KV is
// served by none of the engines modelled), weights in fp8 or int4, paged allocation (sequences hold their mean length,
// options.mean_len or half the context, in blocks of options.block_size), the
// longest shorter context that doubles the count, the fewest more
// tensor-parallel GPUs that divide the heads (at least twice today's), and a
// retrained model with the most KV heads that doubles it (else MQA). Before
// and after are the engine's memory.max_sequences per replica at the
// scenario's context. Ranked: reaching 2x first, least disruptive first; then
// the rest by size (by size alone when nothing fits today).
struct KvProposals {
  int64_t max_sequences = 0;          // the engine's, before any change
  std::vector<KvProposal> proposals;  // ranked
};
Result<KvProposals> propose_kv_changes(const Scenario& s, const KvBudgetOptions& options);

// ---------------------------------------------------------------- drill 2 under a budget
// With a KV budget and no deployment (kv-budget --budget), the changes the seed's drill 2 asks for, each the
// capacity function (analyze_kv_budget) on the changed model or options; the weights are outside the budget.
enum class BudgetChangeKind {
  kKvDtype,        // store the KV cache in `kv_dtype` (--kv-dtype): only dtypes an engine serves (fp8, int8)
  kFewerKvHeads,   // retrain with `kv_heads` KV heads (--kv-heads), the most that still double, else MQA
  kLatent,         // retrain with a DeepSeek-V3-style latent: kv_lora_rank 512 + qk_rope_head_dim 64 cached
  kSlidingWindow,  // retrain with every attention layer but each `pattern`-th sliding over `window` tokens (Gemma
                   // 3's 6), counted over the attention layers in order: `sliding_layers` of them slide
  kShorterContext, // reserve `context` tokens per sequence (--context): the longest that doubles
};
struct BudgetChange {
  BudgetChangeKind kind = BudgetChangeKind::kKvDtype;
  Dtype kv_dtype = Dtype::kBf16;            // kKvDtype
  int64_t kv_heads = 0;                     // kFewerKvHeads
  int64_t kv_lora_rank = 0, rope_dim = 0;   // kLatent
  int64_t window = 0, pattern = 0;          // kSlidingWindow
  int64_t sliding_layers = 0;               // kSlidingWindow: attention layers that slide after it
  int64_t context = 0;                      // kShorterContext
};
struct BudgetProposal {
  BudgetChange change;
  bool needs_retraining = false;  // an architecture change: the model must be trained again
  int effort = 0;                 // disruption rank, as KvProposal's: 1 a serving flag ... 6 retraining
  KvBudgetResult after;           // analyze_kv_budget on the changed model and options
  double factor = 0;              // after.max_sequences / before; +inf when before is 0
};
struct BudgetProposals {
  int64_t max_sequences = 0;  // before any change
  std::vector<BudgetProposal> proposals;  // ranked as KvProposals: reaching 2x first, least disruptive first
};
// The model and options a change makes: what analyze_kv_budget is run on for it.
// REQUIRES: validate(m).ok(); the change one propose_budget_changes made for m.
std::pair<ModelSpec, KvBudgetOptions> apply_budget_change(const ModelSpec& m, const KvBudgetOptions& o,
                                                          const BudgetChange& c);
// REQUIRES: validate(m).ok(). Fails as analyze_kv_budget does, and with InvalidArgument("budget") when
// options.budget is unset. A change the model already has (a latent on MLA, windows where layers slide,
// fewer KV heads than one) is not proposed.
Result<BudgetProposals> propose_budget_changes(const ModelSpec& m, const KvBudgetOptions& options);

// ---------------------------------------------------------------- paged-kv
struct PagedKvResult {
  PagedKvWaste paged;
  int64_t max_len = 0;
  int64_t kv_bytes_per_token = 0;
  int64_t used_bytes = 0;
  int64_t contiguous_reserved_bytes = 0;  // sequences . max_len . KV_token
  int64_t paged_allocated_bytes = 0;
  int64_t contiguous_waste_bytes = 0, paged_waste_bytes = 0;
  double contiguous_waste_fraction = 0, paged_waste_fraction = 0;
  double paging_gain = 0;  // contiguous_reserved / paged_allocated: how many times the sequences paging holds
  // Sliding windows (analyze_paged_kv_model): swa_layers of the model's layers keep
  // at most `window` tokens, so they hold the *_window tokens below; bytes are then
  // KV_layer x (full_layers x tokens + swa_layers x window tokens). 0 = no window.
  int64_t full_layers = 0, swa_layers = 0, window = 0;
  int64_t kv_bytes_per_layer_token = 0;  // one layer's K and V for one token
  int64_t used_window_tokens = 0, reserved_window_tokens = 0, allocated_window_tokens = 0;
};
// Errors name the argument: seq_lens when empty or a length is outside
// 1..max_len, block_size, max_len, kv_bytes_per_token; Overflow when bytes
// exceed int64_t.
Result<PagedKvResult> analyze_paged_kv(std::span<const int64_t> seq_lens, int64_t block_size,
                                       int64_t max_len, int64_t kv_bytes_per_token);
// The same for a model's cache: sliding-window layers keep min(len, window)
// tokens (a paged allocator frees blocks that leave the window; a window
// straddling one more block is ignored), so gemma-2 or Mistral are not
// charged their full length on every layer. Without windows == analyze_paged_kv
// with kv_bytes_per_token(m, kv). Same errors, plus the model's.
Result<PagedKvResult> analyze_paged_kv_model(const ModelSpec& m, Dtype kv_dtype, std::span<const int64_t> seq_lens,
                                             int64_t block_size, int64_t max_len);

}  // namespace modelcalc

#endif  // MODELCALC_CAPACITY_H_
