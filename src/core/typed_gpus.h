// GPUs typed out as the catalog gives them, for the tests and benchmarks whose
// hand-derived numbers must not move when data/gpus.tsv does. A test adds what
// it needs beyond these (a key, the exposed memory, an int8 peak).
#ifndef MODELCALC_TYPED_GPUS_H_
#define MODELCALC_TYPED_GPUS_H_

#include "modelcalc/gpu.h"

namespace modelcalc {

// H100 SXM: 80 GB, 3.35 TB/s, 989.4 / 1978.9 TFLOP/s dense bf16 / fp8; NVLink 450 GB/s per direction in a
// domain of 8 (6 us), one 50 GB/s NIC (20 us).
inline GpuSpec typed_h100() {
  GpuSpec g;
  g.name = "H100";
  g.capacity_bytes = 80e9;
  g.bandwidth_bytes_per_s = 3.35e12;
  g.peak_bf16_flops = 989.4e12;
  g.peak_fp8_flops = 1978.9e12;
  g.link_bytes_per_s = 450e9;
  g.domain_gpus = 8;
  g.scaleout_bytes_per_s = 50e9;
  g.link_latency_s = 6e-6;
  g.scaleout_latency_s = 20e-6;
  return g;
}

// MI300X, the drills' reference machine: 192 GB, 5.3 TB/s, 1307.4 / 2614.9 TFLOP/s dense bf16 / fp8;
// Infinity Fabric 448 GB/s per direction in a platform of 8 (10 us), one 50 GB/s NIC (20 us).
inline GpuSpec typed_mi300x() {
  GpuSpec g;
  g.name = "MI300X";
  g.capacity_bytes = 192e9;
  g.bandwidth_bytes_per_s = 5.3e12;
  g.peak_bf16_flops = 1307.4e12;
  g.peak_fp8_flops = 2614.9e12;
  g.link_bytes_per_s = 448e9;
  g.domain_gpus = 8;
  g.scaleout_bytes_per_s = 50e9;
  g.link_latency_s = 10e-6;
  g.scaleout_latency_s = 20e-6;
  return g;
}

}  // namespace modelcalc

#endif  // MODELCALC_TYPED_GPUS_H_
