// A model's shape as flat hyperparameters (after llama.cpp's llama_hparams):
// every field a plain number, per-layer facts behind accessors so that GQA,
// MoE and sliding-window layers stay readable. Built by the flag parser, the
// Hugging Face config reader or a preset; checked by validate().
#ifndef MODELCALC_MODEL_H_
#define MODELCALC_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "modelcalc/defaults.h"
#include "modelcalc/dtype.h"
#include "modelcalc/exact.h"
#include "modelcalc/status.h"

namespace modelcalc {

// Exact parameter counts by component. Every parameter of the model is in
// exactly one field, so total() is the sum of the fields.
struct ParamBreakdown {
  int64_t embeddings = 0;  // input token embedding table (counted once when tied),
                           // plus OPT's project_in/project_out when present

  int64_t position = 0;    // learned position tables (GPT-2 wpe, OPT's offset-2 table)
  int64_t lm_head = 0;     // untied output projection, with its bias if any; when tied
                           // only a bias remains (phi's lm_head.bias), else 0
  int64_t attention = 0;   // attention weight matrices of all layers (q,k,v,o or MLA's)
  int64_t mlp_dense = 0;   // dense FFN weight matrices of all dense layers
  int64_t mlp_routed = 0;  // all routed experts of all MoE layers (weights and biases)
  int64_t mlp_shared = 0;  // shared experts, with their gate if any
  int64_t router = 0;      // routers (expert gates), with their biases if any
  int64_t norms = 0;       // every norm's weight and bias, incl. final and q/k norms
  int64_t biases = 0;      // Linear biases inside the blocks (attention and dense MLP)
  // Routed-expert parameters one token uses: n_expert_used experts per MoE layer.
  int64_t mlp_routed_active = 0;

  // Sums; REQUIRES: the fields were computed without overflow (they are int64_t).
  // Inline: compute_size and every sweep row call them (issue #14).
  int64_t total() const {
    return embeddings + position + lm_head + attention + mlp_dense + mlp_routed + mlp_shared + router + norms +
           biases;
  }
  // Parameters one token touches: total minus the routed experts it skips.
  int64_t active() const { return total() - mlp_routed + mlp_routed_active; }
  // Everything but embeddings, positions and lm_head: what 2 x params FLOPs counts.
  int64_t blocks() const { return total() - embeddings - position - lm_head; }
  int64_t blocks_active() const { return blocks() - mlp_routed + mlp_routed_active; }
  // The seed's convention: weight matrices only (no norms, biases or position tables).
  int64_t matrices_only() const { return total() - norms - biases - position; }
};

struct ModelSpec {
  std::string name = "custom";        // preset or file name; presentation only
  std::string model_type = "custom";  // Hugging Face model_type, or "custom"

  int64_t n_layer = 0;      // L, transformer blocks
  int64_t n_embd = 0;       // d, hidden size
  int64_t n_head = 0;       // h, query heads
  int64_t n_head_kv = 0;    // KV heads (== n_head for MHA, 1 for MQA)
  int64_t n_embd_head = 0;  // d_head for q, k and v (may differ from n_embd / n_head)
  int64_t n_ff = 0;         // dense FFN inner width
  bool ffn_gated = false;   // gated FFN: gate, up, down = three matrices
  int64_t n_vocab = 0;      // vocabulary size
  bool tied_embeddings = false;
  int64_t n_ctx_train = 0;  // max_position_embeddings; 0 = not stated

  // Mixture of experts. Layer il is MoE iff n_expert > 0 and il >= n_layer_dense_lead.
  int64_t n_expert = 0;            // routed experts per MoE layer
  int64_t n_expert_used = 0;       // top-k routed experts per token
  int64_t n_expert_shared = 0;     // shared experts per MoE layer (always active)
  int64_t n_ff_exp = 0;            // inner width of one routed expert
  int64_t n_ff_shexp = 0;          // inner width of ONE shared expert
  int64_t n_layer_dense_lead = 0;  // leading dense layers before the MoE layers

  // Multi-head latent attention (DeepSeek-V2/V3). n_lora_kv > 0 selects MLA.
  int64_t n_lora_q = 0;        // q_lora_rank; 0 = plain q_proj
  int64_t n_lora_kv = 0;       // kv_lora_rank: the latent cached per token
  int64_t n_rot = 0;           // qk_rope_head_dim: the decoupled RoPE key, cached too
  int64_t n_embd_head_k = 0;   // qk_nope_head_dim + qk_rope_head_dim
  int64_t n_embd_head_v = 0;   // v_head_dim

  // Sliding-window attention. A SWA layer keeps at most n_swa tokens of KV.
  // n_swa_pattern == 1: every layer; == p > 1: layer il is SWA iff il % p < p - 1
  // (Gemma-2: p = 2, even layers local). 0: no SWA.
  int64_t n_swa = 0;
  int64_t n_swa_pattern = 0;

  // Exact counts from the reference architecture, set by the config reader.
  // Absent for a hand-typed shape, where the seed's matrices-only counts apply.
  std::optional<ParamBreakdown> exact;
  // What the reader assumed where the input was silent and the choice matters;
  // every report repeats these so that no assumption is silent.
  std::vector<std::string> assumptions;

  // --- per-layer accessors (REQUIRES: 0 <= il < n_layer) ---
  bool is_moe_layer(int64_t il) const { return n_expert > 0 && il >= n_layer_dense_lead; }
  bool is_swa_layer(int64_t il) const {
    if (n_swa <= 0 || n_swa_pattern <= 0) return false;
    return n_swa_pattern == 1 || il % n_swa_pattern < n_swa_pattern - 1;
  }
  bool is_mla() const { return n_lora_kv > 0; }
  // Layers that use the sliding window (closed form of counting is_swa_layer).
  int64_t n_swa_layers() const {
    if (n_swa <= 0 || n_swa_pattern <= 0) return 0;
    return n_swa_pattern == 1 ? n_layer : n_layer - n_layer / n_swa_pattern;
  }
  // KV elements one token adds to layer il's cache.
  int64_t kv_elems_per_token(int64_t il) const;
  // Tokens of a context of `ctx` that layer il keeps in its cache.
  int64_t kv_tokens(int64_t il, int64_t ctx) const {
    return is_swa_layer(il) && ctx > n_swa ? n_swa : ctx;
  }
  int64_t n_moe_layers() const;
  // d_kv = n_head_kv x d_head: the K (or V) width; 0 for MLA.
  int64_t n_embd_kv() const { return n_head_kv * n_embd_head; }
  // Query width n_head x d_head (== n_embd for the textbook shape).
  int64_t n_embd_q() const { return n_head * n_embd_head; }
};

// Checks that every field is in range and consistent (sizes positive, KV heads
// dividing heads, MoE and MLA fields complete). Errors name the spec field.
Status validate(const ModelSpec& m);

// Per-layer matrix counts by the seed's formulas (drill 1, question 1b).
struct LayerMatrices {
  int64_t q = 0;    // d x (h . d_head)
  int64_t kv = 0;   // 2 . d . d_kv
  int64_t o = 0;    // (h . d_head) x d
  int64_t ffn = 0;  // (3 if gated else 2) . d . d_ff (dense layer)
  int64_t total() const { return q + kv + o + ffn; }
};

// The matrices-only breakdown of a dense or MoE shape, by the seed's
// formulas. REQUIRES: validate(m).ok(). Fails with Overflow if a count
// does not fit in int64_t.
Result<ParamBreakdown> seed_param_breakdown(const ModelSpec& m);
// REQUIRES: validate(m).ok() and !m.is_mla().
Result<LayerMatrices> seed_layer_matrices(const ModelSpec& m);

// The breakdown size and every analysis use: m.exact when set, else the seed's.
Result<ParamBreakdown> param_breakdown(const ModelSpec& m);

// Which cache to count: the model's own (GQA, MQA, MLA), or the same model
// with every query head keeping its own K and V (MHA; what as_mha() builds).
enum class KvLayout { kAsConfigured, kMha };

// The arithmetic behind kv_bytes_per_sequence / kv_bytes_per_token and
// seed_layer_matrices, inline and unchecked-by-Result for hot loops
// (compute_size): the Exact carries the overflow flag, callers that already
// validated (analyze_size, validate_sweep) read .value() directly. The
// Result-returning functions below are these plus the overflow check.
// KV elements one token adds to one layer under `layout`. MHA keeps a K and a
// V head per query head (for MLA: the full per-head K, nope + rope, and V).
inline int64_t kv_elems(const ModelSpec& m, KvLayout layout) {
  if (layout == KvLayout::kAsConfigured && m.is_mla()) return m.n_lora_kv + m.n_rot;
  const int64_t dk = m.n_embd_head_k > 0 ? m.n_embd_head_k : m.n_embd_head;
  const int64_t dv = m.n_embd_head_v > 0 ? m.n_embd_head_v : m.n_embd_head;
  return (layout == KvLayout::kAsConfigured ? m.n_head_kv : m.n_head) * (dk + dv);
}
// Token-layers a context of `ctx` tokens fills: every full layer keeps ctx
// tokens, a sliding-window layer at most n_swa.
inline Exact kv_token_layers(const ModelSpec& m, int64_t ctx) {
  const int64_t n_swa = m.n_swa_layers();
  const int64_t swa_tokens = ctx > m.n_swa ? m.n_swa : ctx;
  return Exact(m.n_layer - n_swa) * Exact(ctx) + Exact(n_swa) * Exact(swa_tokens);
}
// Bytes of `elems` KV elements per token-layer over `token_layers`, rounded
// up to whole bytes (every layer caches the same width per token).
inline Exact kv_bytes(Exact elems, Exact token_layers, Dtype kv_dtype) {
  return ceil_div(elems * token_layers * Exact(dtype_bits(kv_dtype)), 8);
}
inline Exact kv_bytes_per_sequence_exact(const ModelSpec& m, int64_t ctx, Dtype kv_dtype, KvLayout layout) {
  return kv_bytes(Exact(kv_elems(m, layout)), kv_token_layers(m, ctx), kv_dtype);
}
inline Exact kv_bytes_per_token_exact(const ModelSpec& m, Dtype kv_dtype, KvLayout layout) {
  return kv_bytes(Exact(kv_elems(m, layout)), Exact(m.n_layer), kv_dtype);
}

// KV cache bytes for one sequence of `ctx` tokens, summed over layers (GQA,
// MLA and sliding windows included). Exact; Overflow if it does not fit.
// Allocation-free.
Result<int64_t> kv_bytes_per_sequence(const ModelSpec& m, int64_t ctx, Dtype kv_dtype,
                                      KvLayout layout = KvLayout::kAsConfigured);
// KV bytes one token adds when no window has filled: sum over layers of
// kv_elems_per_token(il) x bytes.
Result<int64_t> kv_bytes_per_token(const ModelSpec& m, Dtype kv_dtype,
                                   KvLayout layout = KvLayout::kAsConfigured);

// The context every analysis uses when none is given: kDefaultContext (8,192
// tokens), or the model's max_position_embeddings when that is smaller.
int64_t default_context(const ModelSpec& m);

// The same shape with every KV head restored (MHA): n_head_kv = n_head. For MLA
// models, the MHA equivalent caches n_head x (d_head_k + d_head_v) per layer.
ModelSpec as_mha(const ModelSpec& m);

}  // namespace modelcalc

#endif  // MODELCALC_MODEL_H_
