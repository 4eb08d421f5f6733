// Accelerators: the numbers a roofline needs, each with where it came from.
#ifndef MODELCALC_GPU_H_
#define MODELCALC_GPU_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/dtype.h"
#include "modelcalc/status.h"

namespace modelcalc {

// GPU architecture families, as the engines' kernels and support matrices name
// them. Which catalog GPU is which is a sourced table in engine_rules.cc
// (gpu_arch() in engine_rules.h).
enum class GpuArch : uint8_t {
  kUnknown,         // not in the table (a GPU typed by hand): no architecture rule applies
  kAmpere,          // NVIDIA sm_80 / sm_86
  kAda,             // NVIDIA sm_89
  kHopper,          // NVIDIA sm_90
  kBlackwell,       // NVIDIA sm_100 (B200, GB200)
  kBlackwellUltra,  // NVIDIA sm_103 (B300, GB300)
  kBlackwellRtx,    // NVIDIA sm_120 (RTX 50xx, RTX PRO 6000)
  kCdna2,           // AMD gfx90a
  kCdna3,           // AMD gfx942
  kCdna4,           // AMD gfx950
  kGaudi,           // Intel Gaudi
  kTpu,             // Google TPU
};
inline constexpr int kGpuArchCount = 12;
inline constexpr std::array<GpuArch, kGpuArchCount> kAllGpuArchs = {
    GpuArch::kUnknown,      GpuArch::kAmpere, GpuArch::kAda,   GpuArch::kHopper,
    GpuArch::kBlackwell,    GpuArch::kBlackwellUltra, GpuArch::kBlackwellRtx, GpuArch::kCdna2,
    GpuArch::kCdna3,        GpuArch::kCdna4,  GpuArch::kGaudi, GpuArch::kTpu};
// "unknown", "ampere", "ada", "hopper", "blackwell", "blackwell-ultra", "blackwell-rtx", "cdna2", "cdna3",
// "cdna4", "gaudi", "tpu": the profile file's names.
std::string_view gpu_arch_key(GpuArch a);
enum class GpuVendor { kUnknown, kNvidia, kAmd, kIntel, kGoogle };
GpuVendor gpu_vendor(GpuArch a);
// The family whose factor the prediction applies (step_params.h): Blackwell Ultra (B300, GB300: Blackwell's
// sm_100 kernels on more FP4 units) shares Blackwell's; every other family its own.
GpuArch factor_family(GpuArch a);

struct GpuSpec {
  std::string key;   // canonical lookup key, e.g. "h100-sxm"
  std::string name;  // display name, e.g. "NVIDIA H100 SXM"
  std::vector<std::string> aliases;  // other accepted names, e.g. {"h100", "h100-sxm5"}
  double capacity_bytes = 0;     // HBM/GDDR capacity, decimal bytes (the vendor's nominal figure)
  // Memory the driver exposes (nvidia-smi / torch.cuda.mem_get_info total), bytes =
  // MiB x 2^20; 0 = not catalogued. The deployment engine does not read it (yet).
  double exposed_bytes = 0;
  std::string exposed_source;    // where exposed_bytes comes from; empty when it is 0
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
  // true: capacity, bandwidth and the dense bf16 peak were read from `source`
  // (notes flag any other figure that was recalled). false: figures recalled, verify.
  bool confirmed = false;
  std::string notes;

  // Interconnect, as numbers (the deployment engine's communication terms).
  double link_bytes_per_s = 0;      // per GPU, per direction, inside the fast domain
  int64_t domain_gpus = 1;          // GPUs in one fast domain (8 for HGX H100, 72 for NVL72)
  double scaleout_bytes_per_s = 0;  // per GPU, per direction, between domains (the NIC)
  double link_latency_s = 0;        // fixed cost of one small collective inside the domain
  double scaleout_latency_s = 0;    // the same across domains
  std::string link_source;          // where the interconnect figures come from

  // The memory a process can allocate from: exposed_bytes when catalogued, else
  // the nominal capacity_bytes.
  double usable_capacity_bytes() const { return exposed_bytes > 0 ? exposed_bytes : capacity_bytes; }

  // Peak for math in `t`: the column dtype_info(t).peak names (fp16/bf16 ->
  // bf16 peak, fp8 -> fp8, int8 -> int8, nvfp4/mxfp4 -> fp4, fp32 ->
  // non-tensor fp32; int4 -> 0: no int4 rate is catalogued and the int8 peak
  // is NOT assumed). 0 means the GPU has no such peak.
  double peak_flops(Dtype t) const;

  // Machine ridge point in FLOP/byte: peak_flops(t) / bandwidth. 0 when the GPU
  // has no peak for `t` (e.g. the A10G, whose tensor rates are unpublished).
  double ridge_point(Dtype t = Dtype::kBf16) const;
};

// `gpus` copies of `one` as one ideal GPU (perfect tensor parallelism):
// capacity (nominal and exposed), bandwidth and every peak times `gpus`; the name becomes "N × name".
// It is the ceiling, not a prediction: all-reduces and imbalance are ignored.
// REQUIRES: gpus >= 1.
GpuSpec tensor_parallel(const GpuSpec& one, int64_t gpus);

// The compiled-in catalog (data/gpus.tsv), in display order. Parsed once; a
// malformed catalog is a programming error and aborts with a message.
std::span<const GpuSpec> gpu_catalog();

// Looks a GPU up by an exact name: its key, one of its listed aliases
// (data/gpus.tsv: "h100" -> H100 SXM, "a100" -> A100 80GB SXM, "l40" -> L40S)
// or its display name, ignoring case, spaces, '-', '_' and '.'. Nothing else
// matches: no prefix is guessed (a prefix once read "h20" as the H200). An
// unknown name fails with NotFound suggesting the closest keys/aliases; an
// empty name fails with InvalidArgument.
Result<GpuSpec> find_gpu(std::string_view name);


}  // namespace modelcalc

#endif  // MODELCALC_GPU_H_
