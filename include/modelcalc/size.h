// The `size` analysis: drill 1 end to end. Parameters, weight memory, FLOPs
// for prefill, decode and training, the KV cache, and the seed's decode
// ceiling and regime figures (the teaching view: GPUs pooled, every weight
// read), for one model on one GPU. Plain numbers in, plain numbers out. The
// answers a deployment gets (tokens/s, sequences that fit, the regime) are the
// deployment engine's (deployment.h, scenario.h).
#ifndef MODELCALC_SIZE_H_
#define MODELCALC_SIZE_H_

#include <array>
#include <cstdint>

#include "modelcalc/defaults.h"
#include "modelcalc/dtype.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/status.h"

namespace modelcalc {

struct SizeOptions {
  int64_t context = kDefaultContext;      // prompt / context length T in tokens; > 0
  int64_t batch = kDefaultBatch;          // concurrent sequences B for the aggregate ceiling; > 0
  Dtype weight_dtype = kDefaultWeightDtype;  // serving dtype of the weights
  Dtype kv_dtype = kDefaultWeightDtype;   // dtype of the KV cache (16-bit as the weights: default_kv_dtype)
  double train_tokens = 0;            // D for 6 N D; 0 = not asked
  bool has_gpu = true;                // false: sections that need hardware are left out
};

struct SizeResult {
  // 1. Parameters
  int64_t d_head = 0, d_kv = 0;
  LayerMatrices layer;              // seed formulas, one dense layer (zeros for MLA)
  bool has_layer_matrices = false;  // false for MLA, MoE and layers without attention, FFN or with a mixer
  double layer_over_d2 = 0;         // layer.total() / d^2
  double shortcut_layer = 0;        // 12 d^2
  double shortcut_error = 0;        // layer.total() / 12 d^2
  ParamBreakdown params;
  int64_t total = 0, active = 0, blocks = 0, blocks_active = 0;
  int64_t embeddings = 0;           // input embedding + lm_head (once when tied) + positions
  bool exact = false;               // params from the reference architecture, not the seed formulas
  LayerCounts layers;               // layers of each kind (attention, window, chunk, recurrent, FFN)

  // 2. Weight memory
  std::array<int64_t, kDtypeCount> weight_bytes_by_dtype{};  // indexed like kAllDtypes
  int64_t weight_bytes = 0;         // in options.weight_dtype
  bool fits = false;                // weights < capacity
  double kv_room_bytes = 0;         // capacity - weights (negative if they do not fit)

  // 3. FLOPs (FLOP, floating point)
  double forward_per_token = 0;     // 2 x active block params, lm_head excluded
  double train_flops = 0;           // 6 N D with N = active params; 0 when not asked
  double prefill_linear = 0, prefill_attention = 0, prefill_total = 0, attention_fraction = 0;
  double prefill_per_token = 0;
  double decode_per_token = 0;      // at a context of `context` tokens
  double crossover_tokens = 0;      // attention FLOPs = layer linear FLOPs
  double crossover_mlp_tokens = 0;  // attention FLOPs = FFN FLOPs
  int64_t d_attn = 0;               // width attention scores are computed at (h x d_head)

  // 4. KV cache (bytes, exact); recurrent state is not in the textbook KV
  int64_t kv_per_token = 0, kv_per_seq = 0, kv_mha_per_token = 0, kv_mha_per_seq = 0;
  int64_t state_per_seq = 0;        // recurrent state one sequence holds (16-bit, as the engine's default), any length
  double kv_mha_ratio = 0;

  // 5. Decode ceiling (tokens/s); needs a GPU
  double decode_weight_bytes = 0;   // bytes of weights one step reads (all experts)
  double tokens_per_s_weights_only = 0, tokens_per_s_with_kv = 0, tokens_per_s_aggregate = 0;  // as the JSON keys
  double step_bytes_aggregate = 0;

  // 6. Regime figures; need a GPU. The drill's numbers only: the conclusion
  // (which regime serving lands in) is the deployment engine's
  // (scenario.h serving_regime), so no command answers it twice.
  double ridge = 0;
  double intensity_one_token = 0, intensity_full_prompt = 0;
  double compute_bound_batch = 0;         // exact for a d x d projection (may be +inf)
  double compute_bound_batch_approx = 0;  // small-T approximation
  int64_t max_batch_by_capacity = 0;      // floor((capacity - W) / KV): the drill's pooled count
};

// The pure core of `size`: no strings, no allocation, no I/O.
// REQUIRES: validate(m).ok(), p == param_breakdown(m), options valid
// (context, batch > 0), and when options.has_gpu, gpu capacity, bandwidth and
// bf16 peak > 0. Byte counts that could overflow are checked by analyze_size.
SizeResult compute_size(const ModelSpec& m, const ParamBreakdown& p, const GpuSpec& gpu,
                        const SizeOptions& options);

// The same result, written into *out: sets every field of *out, whatever it
// held (fields a case does not use get a fresh SizeResult's zeros), so *out
// equals compute_size(m, p, gpu, options) afterwards. For loops that evaluate
// many results into one SizeResult: the by-value form starts from a fresh
// SizeResult, whose ~0.5 KB of default member initializers is a zero-fill on
// every call; this form skips it. Same REQUIRES, plus out != nullptr and *out
// is not (part of) m, p, gpu or options.
void compute_size(const ModelSpec& m, const ParamBreakdown& p, const GpuSpec& gpu, const SizeOptions& options,
                  SizeResult* out);

// compute_size in two steps, for callers that evaluate many rows of one
// model (sweep): the model part sets every field that depends on (m, p)
// alone; the row part, given a result whose model part is filled, sets every
// field that depends on the GPU and the options. compute_size is exactly the
// two in a row, so a sweep's rows equal compute_size's results. Same REQUIRES
// as the out-parameter compute_size.
void compute_size_model_part(const ModelSpec& m, const ParamBreakdown& p, SizeResult* r);
void compute_size_row_part(const ModelSpec& m, const ParamBreakdown& p, const GpuSpec& gpu, const SizeOptions& options,
                           SizeResult* r);

// Validates the inputs and runs compute_size, reporting any count that does
// not fit in 64 bits.
Result<SizeResult> analyze_size(const ModelSpec& m, const GpuSpec& gpu, const SizeOptions& options);

}  // namespace modelcalc

#endif  // MODELCALC_SIZE_H_
