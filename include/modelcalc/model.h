// A model's shape as flat hyperparameters (after llama.cpp's llama_hparams):
// every field a plain number, per-layer facts behind accessors so that GQA,
// MoE, sliding-window, chunked, recurrent and hybrid layers stay readable.
// Where architectures differ per layer, `layer_kinds` holds one LayerKind per
// layer (llama.cpp's per-layer arrays: swa_layers, recurrent_layer_arr, ...);
// an empty array means every layer is the same (full attention, and MoE from
// n_layer_dense_lead on when n_expert > 0). Built by the flag parser, the
// Hugging Face config reader or a preset; checked by validate().
#ifndef MODELCALC_MODEL_H_
#define MODELCALC_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
  int64_t attention = 0;   // attention weight matrices of all layers (q,k,v,o or MLA's, a
                           // sparse indexer's projections, per-head attention sinks)
  int64_t recurrent = 0;   // recurrent mixers (Mamba, Gated DeltaNet): projections, conv,
                           // A, D, dt; their norms are in `norms`
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
    return embeddings + position + lm_head + attention + recurrent + mlp_dense + mlp_routed + mlp_shared + router +
           norms + biases;
  }
  // Parameters one token touches: total minus the routed experts it skips.
  int64_t active() const { return total() - mlp_routed + mlp_routed_active; }
  // Everything but embeddings, positions and lm_head: what 2 x params FLOPs counts.
  int64_t blocks() const { return total() - embeddings - position - lm_head; }
  int64_t blocks_active() const { return blocks() - mlp_routed + mlp_routed_active; }
  // The seed's convention: weight matrices only (no norms, biases or position tables).
  int64_t matrices_only() const { return total() - norms - biases - position; }
};

// What one layer holds. A layer has at most one softmax attention (Attn), may
// also hold a recurrent mixer with a fixed per-sequence state (Falcon-H1 runs
// both in parallel; Jamba, Nemotron-H and Qwen3-Next use it instead of
// attention), and one FFN (dense, MoE, or none: Nemotron-H's mixer-only blocks).
enum class Attn : uint8_t {
  kFull,     // every past token (a DSA layer: every token indexed, top-k attended)
  kSliding,  // the last n_swa tokens (Mistral, gemma-2/3, gpt-oss's local layers)
  kChunked,  // tokens of the current n_chunk-token chunk (Llama 4's RoPE layers)
  kNone,     // no softmax attention: no KV cache
};
enum class Ffn : uint8_t { kDense, kMoe, kNone };
struct LayerKind {
  Attn attn = Attn::kFull;
  bool recurrent = false;
  Ffn ffn = Ffn::kDense;
  // The layer attends (full or sliding, as attn says) over an earlier layer's KV and keeps none of its own
  // (Gemma 3n's num_kv_shared_layers): its attention costs FLOPs and reads, its cache no memory.
  bool kv_shared = false;
  bool operator==(const LayerKind&) const = default;
};

// The recurrent mixer's family (one per model), which fixes what its state
// holds and the FLOPs a token spends on it.
enum class Recurrent : uint8_t {
  kNone,
  kMamba1,         // selective scan, state d_inner x d_state (Jamba)
  kMamba2,         // SSD, state heads x head_dim x d_state (Nemotron-H, Falcon-H1)
  kGatedDeltaNet,  // gated delta rule, state v_heads x d_k x d_v (Qwen3-Next)
  kShortConv,      // a gated short convolution, no state matrix: only the conv window (LFM2)
};
// "mamba", "mamba2", "gated_deltanet", "short_conv" ("" for kNone).
std::string_view recurrent_name(Recurrent r);
// FLOPs one token spends per element of a layer's recurrent state (n_embd_s),
// counted from the recurrence. Mamba (1 and 2): h <- a*h + (dt*x)*B is 3 (two
// multiplies, an add), y = C.h is 2 (multiply-add): 5. Gated DeltaNet: decay
// S <- g*S 1, S^T k 2, the rank-1 update S += k (x) delta 2, the readout S^T q 2: 7.
constexpr int64_t recurrent_flops_per_state_elem(Recurrent r) {
  switch (r) {
    case Recurrent::kNone: return 0;
    case Recurrent::kMamba1:
    case Recurrent::kMamba2: return 5;
    case Recurrent::kGatedDeltaNet: return 7;
    case Recurrent::kShortConv: return 0;  // no state matrix (n_embd_s 0)
  }
  return 0;
}

// Layers of each kind in [begin, end); count_layers computes it.
struct LayerCounts {
  int64_t full = 0, sliding = 0, chunked = 0, no_attn = 0;  // attention kinds
  int64_t recurrent = 0;                                     // layers with a recurrent mixer
  int64_t dense = 0, moe = 0, no_ffn = 0;                    // FFN kinds
  int64_t no_mixer = 0;  // layers with neither attention nor a recurrent mixer (FFN-only blocks)
  // Layers that attend over another layer's KV and keep none (LayerKind::kv_shared): not in full or sliding.
  int64_t shared_full = 0, shared_sliding = 0;
  int64_t attention() const { return full + sliding + chunked; }  // layers that keep KV
  int64_t attending() const { return attention() + shared_full + shared_sliding; }  // layers that attend
  int64_t layers() const { return full + sliding + chunked + no_attn + shared_full + shared_sliding; }
};

// How a quantized checkpoint stores its block weights (config.json's
// quantization_config, or ModelOpt's hf_quant_config.json beside it): the
// dtype of the parts it quantizes; the parts it keeps (modules_to_not_convert,
// ignore, exclude_modules) stay 16-bit, as do embeddings, lm_head, norms and
// routers in every checkpoint the engine models.
struct CheckpointQuant {
  std::string method;           // quant_method as written: fp8, mxfp4, modelopt, awq, gptq, compressed-tensors
  Dtype dtype = Dtype::kBf16;   // what the quantized parts hold
  bool attention = true;        // the attention projections are quantized
  bool mlp = true;              // dense and shared-expert MLPs
  bool experts = true;          // routed experts
  bool recurrent = true;        // recurrent mixers' projections
  bool block_scales = false;    // fp8 with 128 x 128 block scales (weight_block_size)
  int64_t group_size = 0;       // int4/int8 group (AWQ, GPTQ); 0 = the dtype's default
  std::optional<Dtype> kv;      // the KV cache dtype the checkpoint states (kv_cache_scheme, kv_cache_quant_algo)
  // A MIXED_PRECISION checkpoint's own dtype for a quantized part where it is
  // not `dtype` (ModelOpt's per-module quantized_layers); nullopt: `dtype`.
  std::optional<Dtype> attention_dtype, mlp_dtype, experts_dtype, recurrent_dtype;
  std::string source;           // "quantization_config" or "hf_quant_config.json"
};

struct ModelSpec;
// One line for reports: what m's checkpoint quantizes to what, what stays
// 16-bit (naming only the parts m has). REQUIRES: m.quant.
std::string checkpoint_summary(const ModelSpec& m);

// Largest layer count a per-layer array is built for (readers refuse more).
inline constexpr int64_t kMaxPerLayerLayers = int64_t{1} << 16;

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

  // Mixture of experts. Without layer_kinds, layer il is MoE iff n_expert > 0
  // and il >= n_layer_dense_lead; with them, iff layer_kinds[il].ffn == kMoe
  // (MoE every n-th layer: Llama 4's interleave, Jamba's expert period).
  int64_t n_expert = 0;            // routed experts per MoE layer
  int64_t n_expert_used = 0;       // top-k routed experts per token
  int64_t n_expert_shared = 0;     // shared experts per MoE layer (always active)
  int64_t n_ff_exp = 0;            // inner width of one routed expert
  int64_t n_ff_shexp = 0;          // inner width of ONE shared expert
  int64_t n_layer_dense_lead = 0;  // leading dense layers before the MoE layers
  bool expert_gated = true;        // experts gate/up/down (3 matrices); false: up/down (Nemotron-H)
  bool expert_bias = false;        // routed experts carry biases (gpt-oss)
  int64_t n_expert_bias = 0;       // bias parameters of one routed expert, inside ParamBreakdown::mlp_routed
                                   // (gpt-oss: gate_up 2 d_ff + down d); checkpoints keep them 16-bit
  bool router_score_bias = false;  // a per-expert score-correction bias steers routing (DeepSeek-V3,
                                   // GLM-4.5): a buffer, not a parameter

  // Multi-head latent attention (DeepSeek-V2/V3). n_lora_kv > 0 selects MLA.
  int64_t n_lora_q = 0;        // q_lora_rank; 0 = plain q_proj
  int64_t n_lora_kv = 0;       // kv_lora_rank: the latent cached per token
  int64_t n_rot = 0;           // qk_rope_head_dim: the decoupled RoPE key, cached too
  int64_t n_embd_head_k = 0;   // qk_nope_head_dim + qk_rope_head_dim
  int64_t n_embd_head_v = 0;   // v_head_dim

  // DeepSeek Sparse Attention (DSA, DeepSeek-V3.2): a lightning indexer on every
  // attention layer caches one n_embd_head_index-wide key per token and scores
  // all of them; the attention then reads only the n_index_topk best. 0 = none.
  int64_t n_index_head = 0;       // index_n_heads
  int64_t n_embd_head_index = 0;  // index_head_dim: indexer key elements cached per token per layer
  int64_t n_index_topk = 0;       // index_topk: keys each query attends to

  // Windows. A kSliding layer keeps at most n_swa tokens of KV; a kChunked
  // layer attends within chunks of n_chunk tokens (keeps at most n_chunk).
  int64_t n_swa = 0;
  int64_t n_chunk = 0;
  bool attn_sinks = false;  // per-head learned sink logits (gpt-oss): h parameters a layer, no KV

  // Recurrent mixers (llama.cpp's ssm_* fields): the state a sequence keeps
  // per recurrent layer is n_embd_s() + n_embd_r() elements, whatever its length.
  Recurrent recurrent = Recurrent::kNone;
  int64_t n_ssm_state = 0;   // Mamba d_state (N); Gated DeltaNet d_k
  int64_t n_ssm_inner = 0;   // Mamba d_inner (heads x head_dim); Gated DeltaNet v_heads x d_v
  int64_t n_ssm_head = 0;    // heads tensor parallelism splits (Mamba-1: d_inner channels;
                             // Mamba-2: heads; Gated DeltaNet: key heads)
  int64_t n_ssm_conv = 0;    // causal conv kernel width (d_conv)
  int64_t n_ssm_conv_dim = 0;  // channels the conv runs over

  // One entry per layer where layers differ (see the file comment); empty = uniform.
  // REQUIRES (validate): empty or exactly n_layer entries.
  std::vector<LayerKind> layer_kinds;

  // Exact counts from the reference architecture, set by the config reader.
  // Absent for a hand-typed shape, where the seed's matrices-only counts apply.
  std::optional<ParamBreakdown> exact;
  // Parameters outside the language model, reported beside params.total and
  // never in it: a vision tower with its projector (Gemma 3, Llama 4,
  // Mistral 3) and multi-token-prediction layers (DeepSeek-V3, GLM-4.5), which
  // transformers does not build. nullopt: the model has none, or the config
  // does not describe them.
  std::optional<int64_t> params_vision;
  // An audio tower with its embedder (Gemma 3n's USM conformer and embed_audio), beside the total too.
  std::optional<int64_t> params_audio;
  // The towers are held whole on every GPU, not split by tensor parallelism: vLLM's gemma3n_mm.py builds
  // Gemma 3n's vision_tower and audio_tower with transformers' AutoModel.from_config (plain modules; only
  // the small embedders are its parallel layers, counted whole here too).
  bool towers_whole = false;
  std::optional<int64_t> params_mtp;
  // The checkpoint's quantization; nullopt: 16-bit (or a hand-typed shape).
  std::optional<CheckpointQuant> quant;
  // The dtype engines keep the SSM / delta-rule state matrix in (n_embd_s), as
  // the config states it: mamba_ssm_cache_dtype (Nemotron-H, Nemotron-3: vLLM's
  // NemotronHForCausalLMConfig reads it), mamba_ssm_dtype (Qwen3.5). The conv
  // window (n_embd_r) keeps the state dtype. nullopt: the config says nothing.
  std::optional<Dtype> ssm_state_dtype;
  // What the reader assumed where the input was silent and the choice matters;
  // every report repeats these so that no assumption is silent.
  std::vector<std::string> assumptions;

  // --- per-layer accessors (REQUIRES: 0 <= il < n_layer) ---
  LayerKind layer(int64_t il) const {
    if (!layer_kinds.empty()) return layer_kinds[static_cast<size_t>(il)];
    LayerKind k;
    k.ffn = n_expert > 0 && il >= n_layer_dense_lead ? Ffn::kMoe : Ffn::kDense;
    return k;
  }
  bool is_moe_layer(int64_t il) const { return layer(il).ffn == Ffn::kMoe; }
  bool is_swa_layer(int64_t il) const { return layer(il).attn == Attn::kSliding; }
  bool is_chunked_layer(int64_t il) const { return layer(il).attn == Attn::kChunked; }
  bool is_recurrent_layer(int64_t il) const { return layer(il).recurrent; }
  bool has_attention(int64_t il) const { return layer(il).attn != Attn::kNone; }
  bool is_mla() const { return n_lora_kv > 0; }
  bool is_dsa() const { return n_index_topk > 0; }
  bool is_hybrid() const;  // some layer differs from full attention + FFN (recurrent, none, chunked)
  // Layers of each kind in [begin, end) (end < 0: n_layer). O(1) for a uniform
  // model, O(end - begin) with layer_kinds.
  LayerCounts count_layers(int64_t begin = 0, int64_t end = -1) const;
  // Layers that use the sliding window.
  int64_t n_swa_layers() const { return count_layers().sliding; }
  // Makes every layer slide (p == 1), or every layer but each p-th (layer il
  // slides iff il % p < p - 1: Gemma-2's p = 2, Gemma 3's p = 6), keeping
  // every other fact of each layer. p == 0 removes the windows.
  // REQUIRES: n_layer <= kMaxPerLayerLayers, p >= 0.
  void set_swa_pattern(int64_t p);
  // KV elements one token adds to layer il's cache (0 for a layer without
  // attention; a DSA layer's indexer key included).
  int64_t kv_elems_per_token(int64_t il) const;
  // Tokens of a context of `ctx` that layer il keeps in its cache.
  int64_t kv_tokens(int64_t il, int64_t ctx) const {
    switch (layer(il).attn) {
      case Attn::kFull: return ctx;
      case Attn::kSliding: return ctx > n_swa ? n_swa : ctx;
      case Attn::kChunked: return ctx > n_chunk ? n_chunk : ctx;
      case Attn::kNone: return 0;
    }
    return ctx;
  }
  int64_t n_moe_layers() const { return count_layers().moe; }
  // d_kv = n_head_kv x d_head: the K (or V) width; 0 for MLA.
  int64_t n_embd_kv() const { return n_head_kv * n_embd_head; }
  // Query width n_head x d_head (== n_embd for the textbook shape).
  int64_t n_embd_q() const { return n_head * n_embd_head; }
  // Recurrent state of one layer for one sequence, in elements (llama.cpp's
  // n_embd_s and n_embd_r): the SSM or delta-rule matrix, and the rolling conv
  // window ((d_conv - 1) x channels).
  int64_t n_embd_s() const;
  int64_t n_embd_r() const;
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
// KV elements one token adds to one attention layer under `layout`. MHA keeps
// a K and a V head per query head (for MLA: the full per-head K, nope + rope,
// and V). A DSA model's indexer key is cached beside either.
inline int64_t kv_elems(const ModelSpec& m, KvLayout layout) {
  if (layout == KvLayout::kAsConfigured && m.is_mla()) return m.n_lora_kv + m.n_rot + m.n_embd_head_index;
  const int64_t dk = m.n_embd_head_k > 0 ? m.n_embd_head_k : m.n_embd_head;
  const int64_t dv = m.n_embd_head_v > 0 ? m.n_embd_head_v : m.n_embd_head;
  return (layout == KvLayout::kAsConfigured ? m.n_head_kv : m.n_head) * (dk + dv) + m.n_embd_head_index;
}
// Token-layers a context of `ctx` tokens fills over layers counted by `c`:
// every full layer keeps ctx tokens, a sliding-window layer at most n_swa, a
// chunked layer at most n_chunk (the largest chunk a sequence of ctx tokens
// reaches), a layer without attention none.
inline Exact kv_token_layers(const LayerCounts& c, int64_t n_swa, int64_t n_chunk, int64_t ctx) {
  const int64_t swa_tokens = ctx > n_swa ? n_swa : ctx;
  const Exact held = Exact(c.full) * Exact(ctx) + Exact(c.sliding) * Exact(swa_tokens);
  if (c.chunked == 0) return held;
  const int64_t chunk_tokens = ctx > n_chunk ? n_chunk : ctx;
  return held + Exact(c.chunked) * Exact(chunk_tokens);
}
inline Exact kv_token_layers(const ModelSpec& m, int64_t ctx) {
  return kv_token_layers(m.count_layers(), m.n_swa, m.n_chunk, ctx);
}
// Bytes of `elems` KV elements per token-layer over `token_layers`, rounded
// up to whole bytes (every attention layer caches the same width per token).
inline Exact kv_bytes(Exact elems, Exact token_layers, Dtype kv_dtype) {
  return ceil_div(elems * token_layers * Exact(dtype_bits(kv_dtype)), 8);
}
inline Exact kv_bytes_per_sequence_exact(const ModelSpec& m, int64_t ctx, Dtype kv_dtype, KvLayout layout) {
  return kv_bytes(Exact(kv_elems(m, layout)), kv_token_layers(m, ctx), kv_dtype);
}
inline Exact kv_bytes_per_token_exact(const ModelSpec& m, Dtype kv_dtype, KvLayout layout) {
  return kv_bytes(Exact(kv_elems(m, layout)), Exact(m.count_layers().attention()), kv_dtype);
}

// KV cache bytes for one sequence of `ctx` tokens, summed over the layers that
// keep one (GQA, MLA, DSA's indexer keys, sliding windows and chunks included;
// recurrent state is not KV: state_bytes_per_sequence). Exact; Overflow if it
// does not fit. Allocation-free.
Result<int64_t> kv_bytes_per_sequence(const ModelSpec& m, int64_t ctx, Dtype kv_dtype,
                                      KvLayout layout = KvLayout::kAsConfigured);
// KV bytes one token adds when no window has filled: sum over layers of
// kv_elems_per_token(il) x bytes.
Result<int64_t> kv_bytes_per_token(const ModelSpec& m, Dtype kv_dtype,
                                   KvLayout layout = KvLayout::kAsConfigured);

// Recurrent state one sequence holds over every recurrent layer, whatever its
// length: recurrent layers x (n_embd_s x bits of `ssm_dtype` + n_embd_r x bits
// of `state_dtype`) / 8 (the SSM matrix and the conv window, as vLLM's
// MambaStateDtypeCalculator keeps them). 0 for a model without recurrent
// layers. Overflow if it does not fit. The one-dtype form holds both in
// `state_dtype`.
Result<int64_t> state_bytes_per_sequence(const ModelSpec& m, Dtype state_dtype, Dtype ssm_dtype);
inline Result<int64_t> state_bytes_per_sequence(const ModelSpec& m, Dtype state_dtype) {
  return state_bytes_per_sequence(m, state_dtype, state_dtype);
}
inline Exact state_bytes_per_sequence_exact(const ModelSpec& m, int64_t recurrent_layers, Dtype state_dtype,
                                            Dtype ssm_dtype) {
  return ceil_div((Exact(m.n_embd_s()) * Exact(dtype_bits(ssm_dtype)) +
                   Exact(m.n_embd_r()) * Exact(dtype_bits(state_dtype))) *
                      Exact(recurrent_layers),
                  8);
}

// The context every analysis uses when none is given: kDefaultContext (8,192
// tokens), or the model's max_position_embeddings when that is smaller.
int64_t default_context(const ModelSpec& m);

// The same shape with every KV head restored (MHA): n_head_kv = n_head. For MLA
// models, the MHA equivalent caches n_head x (d_head_k + d_head_v) per layer.
ModelSpec as_mha(const ModelSpec& m);

}  // namespace modelcalc

#endif  // MODELCALC_MODEL_H_
