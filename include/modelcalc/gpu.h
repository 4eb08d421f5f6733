// Accelerators: the numbers a roofline needs, each with where it came from.
#ifndef MODELCALC_GPU_H_
#define MODELCALC_GPU_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/dtype.h"
#include "modelcalc/status.h"

namespace modelcalc {

struct GpuSpec {
  std::string key;   // canonical lookup key, e.g. "h100-sxm"
  std::string name;  // display name, e.g. "NVIDIA H100 SXM"
  double capacity_bytes = 0;     // HBM/GDDR capacity, decimal bytes
  double bandwidth_bytes_per_s = 0;  // memory bandwidth, decimal bytes/s
  // Dense (not 2:4 sparse) tensor peaks in FLOP/s; 0 = not supported or not published.
  double peak_bf16_flops = 0;  // also fp16
  double peak_fp8_flops = 0;
  double peak_int8_ops = 0;
  double peak_fp4_flops = 0;
  double peak_fp32_flops = 0;  // non-tensor fp32
  std::string interconnect;      // free text, e.g. "NVLink4 900 GB/s (bidir)"
  double tdp_watts = 0;          // 0 = not stated
  std::string source;            // where the figures come from
  bool confirmed = false;        // false: figures recalled, not read from a source; verify
  std::string notes;

  // Peak for math in `t` (fp16/bf16 -> bf16 peak, fp8 -> fp8, int8 -> int8,
  // int4 -> int8 peak is NOT assumed: 0). 0 means the GPU has no such peak.
  double peak_flops(Dtype t) const;
};

// The compiled-in catalog, in display order.
std::span<const GpuSpec> gpu_catalog();

// Looks a GPU up forgivingly: case, spaces, '-' and '_' are ignored, and
// unique prefixes and aliases ("h100" -> H100 SXM) are accepted. Unknown
// names fail with NotFound listing the closest catalog keys.
Result<GpuSpec> find_gpu(std::string_view name);

}  // namespace modelcalc

#endif  // MODELCALC_GPU_H_
