// The step model's time parameters (serving.h): what a step costs on real
// kernels beyond the ideal machine. Each is physically named and global: one
// value per engine release family (data/engine_profiles.tsv), never per model,
// GPU or row; the per-architecture factors are one value for every family.
// The ceiling is the same step model with every fraction and factor 1 and no
// overhead (compute overlapped with memory), so a prediction is never faster
// than its ceiling. docs/prediction.md gives each one's fitted value.
#ifndef MODELCALC_STEP_PARAMS_H_
#define MODELCALC_STEP_PARAMS_H_

#include <array>
#include <string_view>

#include "modelcalc/dtype.h"
#include "modelcalc/gpu.h"
#include "modelcalc/status.h"

namespace modelcalc {

struct StepTimeParams {
  // Kernels, as achieved fractions of the catalog's roofs (its dense peaks and HBM bandwidth).
  double gemm_fraction = 1;          // dense GEMMs whose math runs in 16 bits (bf16/fp16)
  double fp8_gemm_fraction = 1;      // GEMMs whose math runs in fp8
  double fp4_gemm_fraction = 1;      // GEMMs whose math runs in fp4 (nvfp4, mxfp4)
  double grouped_gemm_fraction = 1;  // the routed experts' grouped GEMMs, of their dtype's dense fraction; each
                                     // expert's tokens padded to the kernels' 64-row tile
  double hbm_fraction = 1;           // HBM bandwidth streaming weights and activations
  double kv_read_fraction = 1;       // HBM bandwidth reading KV in decode attention
  double attention_fraction = 1;     // the 16-bit peak in attention math (decode and prefill; causal tiles
                                     // padded to 128 keys)
  double overlap_loss = 0;           // fraction of a GEMM's shorter roof not hidden behind its longer one:
                                     // max(c, m) + overlap_loss x min(c, m)
  double allreduce_efficiency = 1;   // link bandwidth in all-reduces, all-to-alls and pipeline hand-offs
  double allreduce_latency_s = 0;    // per collective beyond the catalog's link latency, seconds
  // Fixed costs, seconds.
  double layer_overhead_s = 0;        // per layer per forward: small kernels' floors and the gaps between kernels
  double moe_layer_overhead_s = 0;    // per MoE layer per forward: the router, top-k and token permutation kernels
  double eager_layer_overhead_s = 0;  // per layer per forward launched outside a CUDA graph (a prefill's)
  double step_overhead_s = 0;         // per engine step: the scheduler
  double sequence_overhead_s = 0;     // per sequence per step: sampling, bookkeeping
  double request_overhead_s = 0;      // per request before its first token: the frontend (HTTP, tokenizer)
  // Global: the achieved fraction of an architecture family's datasheet roofs relative to Hopper's (1),
  // multiplying every compute and bandwidth fraction above; the same in every family's parameters.
  // By GpuArch; read through factor_family (Blackwell Ultra takes Blackwell's).
  std::array<double, kGpuArchCount> arch_factor = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
};

// The per-family parameters, by index 0..kStepTimeParamCount-1 in the order above.
inline constexpr int kStepTimeParamCount = 16;
double step_param(const StepTimeParams& p, int i);
void set_step_param(StepTimeParams* p, int i, double v);
// "gemm_fraction", ... as the struct names them.
std::string_view step_param_name(int i);
// True for the overheads and the latency (seconds).
bool step_param_is_seconds(int i);
// Whether v is in parameter i's range: fractions in (0, 1], overlap_loss in
// [0, 1], seconds in [0, 1).
bool step_param_in_range(int i, double v);
// "arch_factor_blackwell", ...: the global parameters' names in the profile file.
std::string arch_factor_name(GpuArch a);
// An architecture factor's range: (0, 2].
bool arch_factor_in_range(double v);
// "a fraction in (0, 1]", "a fraction in [0, 1]", "in [0, 1) seconds".
std::string_view step_param_range_text(int i);
// A global row of data/engine_profiles.tsv ("all<TAB>NAME<TAB>VALUE"): an
// architecture factor by its name, its value in range. Errors name `where`.
Status read_global_step_param(std::string_view name, std::string_view value, std::string_view where,
                              StepTimeParams* globals);
// The ideal parameters: the ceiling's.
StepTimeParams ideal_step_params();

// The fraction of the datasheet peak the dense GEMMs of `compute` reach
// (gemm_fraction, fp8_gemm_fraction or fp4_gemm_fraction).
double gemm_fraction_for(const StepTimeParams& p, Dtype compute);

}  // namespace modelcalc

#endif  // MODELCALC_STEP_PARAMS_H_
