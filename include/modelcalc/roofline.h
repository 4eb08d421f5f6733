// The roofline analysis: where a model's work lands on a GPU's roofline.
// Operating points (decode at each batch size, prefill of one prompt, a large
// square GEMM, or a bare intensity) are placed at their arithmetic intensity
// I = FLOP / byte and at the attainable rate min(peak, bw x I) under each
// GPU's compute roof for the math dtype. Plain numbers in, plain numbers out.
//
// Byte model (bytes moved between HBM and the chip per step; caches ignored):
//   decode step at batch B, context T: the weights the batch touches once
//     (every weight for a dense model; for MoE the expected routed experts)
//     + B x KV(T), every sequence's cache read once   -> decode_step_bytes.
//   prefill of one T-token prompt: the weights the T tokens touch, once
//     + KV(T) written once + the residual stream read and written by every
//     layer, 2 x L x T x d x b (prefill_activation_bytes). Attention scores
//     are assumed fused (FlashAttention-style): no T^2 bytes.
//   square GEMM C = A x B, n x n x n: read A and B, write C, once each:
//     3 x n^2 x b (square_gemm_bytes) for 2 x n^3 FLOP (square_gemm_flops).
// FLOPs follow `size`: 2 x active block params per token plus attention
// (include/modelcalc/size.h), the lm_head excluded.
#ifndef MODELCALC_ROOFLINE_H_
#define MODELCALC_ROOFLINE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "modelcalc/defaults.h"
#include "modelcalc/dtype.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/status.h"

namespace modelcalc {

// ---------------------------------------------------------------- formulas
// FLOP of an n x n by n x n matrix product: one multiply-add (2 FLOP) per
// n^3 inner-product term.
constexpr double square_gemm_flops(double n) { return 2.0 * n * n * n; }
// Bytes of that product with b bytes per element: A and B read, C written.
constexpr double square_gemm_bytes(double n, double bytes_per_elem) {
  return 3.0 * n * n * bytes_per_elem;
}
// Residual-stream traffic of a T-token prefill: each of L layers reads its
// T x d input and writes its T x d output once, b bytes per element.
constexpr double prefill_activation_bytes(double layers, double tokens, double d,
                                          double bytes_per_elem) {
  return 2.0 * layers * tokens * d * bytes_per_elem;
}

// ---------------------------------------------------------------- analysis
enum class PointKind { kDecode, kPrefill, kGemm, kGiven };

// One unit of work, independent of the GPU.
struct OperatingPoint {
  PointKind kind = PointKind::kGiven;
  int64_t batch = 0;     // decode: sequences per step; prefill: 1; else 0
  int64_t tokens = 0;    // decode: B; prefill: T; gemm: n; given: 0
  double flops = 0;      // FLOP per step (0 for a bare intensity)
  double bytes = 0;      // bytes per step (0 for a bare intensity)
  double weight_bytes = 0;  // of `bytes`, the weights (decode, prefill)
  double kv_bytes = 0;      // of `bytes`, the KV cache (decode: B x KV; prefill: KV written)
  double activation_bytes = 0;  // of `bytes`, the residual stream (prefill)
  double resident_bytes = 0;    // all weights + this point's KV held in memory (decode, prefill)
  double intensity = 0;  // FLOP / byte
};

// A compute roof: the peak for one math dtype and the ridge it makes.
struct Roof {
  Dtype dtype = Dtype::kBf16;
  double peak_flops = 0;  // FLOP/s (OP/s for int8), dense
  double ridge = 0;       // FLOP/byte: peak / bandwidth
};

// An operating point placed under one GPU's roof for the math dtype.
struct PlacedPoint {
  double attainable_flops = 0;  // min(peak, bw x I)
  double peak_fraction = 0;     // attainable / peak, in (0, 1]
  bool memory_bound = false;    // I < ridge
  double step_seconds = 0;      // flops / attainable (0 for a bare intensity)
  bool fits = true;             // weights + KV fit the GPU's capacity (decode, prefill)
};

struct GpuRoofline {
  GpuSpec gpu;
  std::vector<Roof> roofs;  // bf16, fp8, int8, fp4 (as nvfp4): those the GPU has a peak for
  Roof math;                // the roof the points are placed under
  std::vector<PlacedPoint> placed;  // parallel to RooflineResult::points
};

struct RooflineOptions {
  std::vector<int64_t> batches = {1, 8, 64, 256};  // decode batch sizes; each > 0
  int64_t context = kDefaultContext;  // context for decode, prompt length for prefill; > 0
  Dtype weight_dtype = kDefaultWeightDtype;  // storage of the weights
  Dtype kv_dtype = kDefaultWeightDtype;      // storage of the KV cache (16-bit as the weights)
  Dtype math_dtype = kDefaultWeightDtype;    // the compute roof points sit under
  int64_t gemm_n = 8192;              // square GEMM size; 0 = no GEMM point
  std::optional<double> intensity;    // a bare intensity to place; > 0
};

struct RooflineResult {
  std::vector<OperatingPoint> points;  // decode by batch, prefill, GEMM, given intensity
  std::vector<GpuRoofline> gpus;       // in the order given
};

// The compute roofs of `gpu`: bf16, fp8 and int8, each only where the GPU
// has a peak for it. REQUIRES: gpu.bandwidth_bytes_per_s > 0.
std::vector<Roof> gpu_roofs(const GpuSpec& gpu);

// Places a bare intensity under one roof. REQUIRES: bw > 0, peak > 0, I >= 0.
PlacedPoint place(const OperatingPoint& p, double peak_flops, double bw_bytes_per_s);

// The analysis. `model` may be null (then only the GEMM and the given
// intensity are placed; the GEMM is skipped too when options.intensity is set
// and there is no model, so the lab's one-number question gets one number).
// Fails with InvalidArgument naming the options field: "math_dtype" when a GPU
// has no peak for the math dtype but has others, "gpu" when a GPU has no
// tensor peak at all or lacks a bandwidth (or none is given), "batches" when the batch list is
// empty or holds a non-positive batch, "context" or "intensity" out of range.
Result<RooflineResult> analyze_roofline(const ModelSpec* model, std::span<const GpuSpec> gpus,
                                        const RooflineOptions& options);

}  // namespace modelcalc

#endif  // MODELCALC_ROOFLINE_H_
