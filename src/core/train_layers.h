// Internal to the training engine (train_flops.cc, train_memory.cc,
// train_step.cc): one layer's parameters by class, recovered from the
// model's exact breakdown, and its attention geometry. Not public API.
#ifndef MODELCALC_SRC_CORE_TRAIN_LAYERS_H_
#define MODELCALC_SRC_CORE_TRAIN_LAYERS_H_

#include <cstdint>

#include "modelcalc/exact.h"
#include "modelcalc/model.h"
#include "modelcalc/status.h"
#include "modelcalc/training.h"

namespace modelcalc {
namespace train_internal {

// Parameters of one layer of each kind (whole, before any split), exact.
// The breakdown sums every layer; its layers are homogeneous within a kind
// (attention in every layer, dense FFN in dense layers, experts, shared
// experts and routers in MoE layers), so a kind's total over its layers is
// one layer's count times the layers.
struct LayerParams {
  int64_t attention = 0;       // q, k, v, o (or MLA's) matrices
  int64_t attention_replicated = 0;  // of which MLA's down-projections: whole on every TP rank
  int64_t dense_ffn = 0;       // a dense layer's FFN matrices
  int64_t routed = 0;          // a MoE layer's routed experts, all of them
  int64_t routed_active = 0;   // the top-k experts one token uses
  int64_t shared = 0;          // a MoE layer's shared experts
  int64_t router = 0;
  int64_t norms = 0;           // a layer's norms (q/k norms, MLA latent norms included)
  int64_t biases = 0;          // a layer's Linear biases
  int64_t final_norm = 0;      // the norm before the lm_head
  int64_t embeddings = 0;      // the input table (with OPT's projections), unpadded
  int64_t position = 0;        // learned position tables
  int64_t lm_head = 0;         // an untied output matrix (with its bias); 0 when tied
};
// REQUIRES: validate(m).ok(). Overflow when a count does not fit.
Result<LayerParams> layer_params(const ModelSpec& m);

// Attention head widths: d_k and d_v per head (MLA: nope + rope, and v).
inline int64_t head_dim_k(const ModelSpec& m) { return m.n_embd_head_k > 0 ? m.n_embd_head_k : m.n_embd_head; }
inline int64_t head_dim_v(const ModelSpec& m) { return m.n_embd_head_v > 0 ? m.n_embd_head_v : m.n_embd_head; }

// Mean keys one query attends to in layer il at sequence length s: all s
// (or the window) when counted in full, the causal mean (1/s) sum_t min(t, W)
// otherwise.
double keys_per_query(const ModelSpec& m, int64_t il, int64_t s, bool causal);

// Dense and MoE layers among layers [begin, end).
inline int64_t moe_layers_in(const ModelSpec& m, int64_t begin, int64_t end) {
  if (m.n_expert <= 0 || end <= begin) return 0;
  const int64_t first = begin > m.n_layer_dense_lead ? begin : m.n_layer_dense_lead;
  return end > first ? end - first : 0;
}

// One stage's bytes per GPU at (dp, m micro-batches, ZeRO stage `zero`; -1 =
// nothing sharded): what evaluate_training sums and analyze_train_memory
// shows. Pure, allocation-free. Defined in train_memory.cc.
StageMemory stage_memory(const PreparedTraining& p, int64_t stage, int64_t dp, int64_t micro_batches, int zero);

}  // namespace train_internal
}  // namespace modelcalc

#endif  // MODELCALC_SRC_CORE_TRAIN_LAYERS_H_
