// Numeric storage formats: ONE table (kDtypeTable) says, per dtype, its names,
// bits per element, group scales, which GPU peak its matmuls run at and
// whether it is weight-only. Every other file asks the table; adding a dtype
// is one enum value plus one row (docs/dtypes.md).
//
// The seed convention stays exact: fp32 4 B, fp16/bf16 2 B, fp8/int8 1 B,
// int4 0.5 B per element (its textbook N x b has no scales). NVFP4 and MXFP4
// carry their group scales inside the format, so their bytes per element are
// 0.5 + 1/16 = 0.5625 and 0.5 + 1/32 = 0.53125.
#ifndef MODELCALC_DTYPE_H_
#define MODELCALC_DTYPE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "modelcalc/exact.h"
#include "modelcalc/status.h"

namespace modelcalc {

// In table order (kDtypeTable[i].dtype == Dtype(i)).
enum class Dtype { kFp32, kFp16, kBf16, kFp8, kInt8, kInt4, kNvfp4, kMxfp4 };
inline constexpr size_t kDtypeCount = 8;

// The GPU catalog column (data/gpus.tsv) whose peak math in a dtype runs at.
enum class PeakColumn { kNone, kFp32, kBf16, kFp8, kInt8, kFp4 };

// Where a dtype's group scales come from.
enum class ScaleKind {
  kNone,      // no scales (fp32, fp16, bf16)
  kFormat,    // part of the format: always `group_size` elements per scale (NVFP4, MXFP4)
  kGroup,     // checkpoint group scales, `group_size` by default, DeploymentOptions::quant_group_size
              // overrides (GPTQ/AWQ int4/int8)
  kOptional,  // optional 2-D block scales of block_rows x block_cols (fp8, DeepSeek-V3 style),
              // counted only when asked (DeploymentOptions::fp8_block_scales)
};

struct DtypeInfo {
  Dtype dtype;
  std::string_view name;                   // canonical, lower case: what JSON and reports print
  std::array<std::string_view, 3> spellings;  // other accepted names (lower case; empty = none)
  int64_t bits;                            // per element
  ScaleKind scales;
  int64_t group_size;                      // elements per scale (kFormat, kGroup's default); 0 = none
  int64_t block_rows, block_cols;          // kOptional: a 2-D block per scale; else 0
  int64_t scale_bits;                      // bits of one group/block scale
  std::string_view scale_format;           // e.g. "FP8 E4M3", "E8M0", "fp16", "fp32"
  int64_t tensor_scale_bits;               // one extra scale per tensor (NVFP4: fp32 = 32); 0 = none
  PeakColumn peak;                         // the peak math in this dtype runs at (kNone: no such rate)
  bool weight_only;                        // matmuls dequantize to 16-bit (bf16 roof) by default
  bool falls_back_to_16bit;                // on a GPU without `peak`: matmuls at the bf16 roof, not refused
  bool kv_cache;                           // accepted as a KV-cache dtype
  std::string_view roof_text;              // one line for docs and --help: where the matmuls run
};

inline constexpr std::array<DtypeInfo, kDtypeCount> kDtypeTable = {{
    // dtype, name, spellings, bits, scales, group_size, block_rows, block_cols, scale_bits, scale_format,
    // tensor_scale_bits, peak, weight_only, falls_back_to_16bit, kv_cache, roof_text
    {Dtype::kFp32, "fp32", {"float32", "", ""}, 32, ScaleKind::kNone, 0, 0, 0, 0, "", 0,
     PeakColumn::kFp32, false, false, true, "non-tensor fp32 peak"},
    {Dtype::kFp16, "fp16", {"float16", "half", ""}, 16, ScaleKind::kNone, 0, 0, 0, 0, "", 0,
     PeakColumn::kBf16, false, false, true, "16-bit tensor peak"},
    {Dtype::kBf16, "bf16", {"bfloat16", "", ""}, 16, ScaleKind::kNone, 0, 0, 0, 0, "", 0,
     PeakColumn::kBf16, false, false, true, "16-bit tensor peak"},
    {Dtype::kFp8, "fp8", {"float8", "fp8_e4m3", "float8_e4m3fn"}, 8, ScaleKind::kOptional, 0, 128, 128, 32,
     "fp32", 0, PeakColumn::kFp8, false, false, true, "fp8 peak (W8A8); a GPU without one is refused"},
    {Dtype::kInt8, "int8", {"", "", ""}, 8, ScaleKind::kGroup, 128, 0, 0, 16, "fp16", 0,
     PeakColumn::kInt8, true, false, true, "weight-only: bf16 peak (the int8 peak only with --compute-dtype int8)"},
    {Dtype::kInt4, "int4", {"", "", ""}, 4, ScaleKind::kGroup, 128, 0, 0, 16, "fp16", 0,
     PeakColumn::kNone, true, false, true, "weight-only: bf16 peak (no int4 rate is catalogued)"},
    {Dtype::kNvfp4, "nvfp4", {"nv_fp4", "fp4_e2m1_nv", ""}, 4, ScaleKind::kFormat, 16, 0, 0, 8, "FP8 E4M3", 32,
     PeakColumn::kFp4, false, true, false, "fp4 peak where the GPU has one, else weight-only at the bf16 peak"},
    {Dtype::kMxfp4, "mxfp4", {"mx_fp4", "", ""}, 4, ScaleKind::kFormat, 32, 0, 0, 8, "E8M0", 0,
     PeakColumn::kFp4, false, true, false, "fp4 peak where the GPU has one, else weight-only at the bf16 peak"},
}};

static_assert([] {
  for (size_t i = 0; i < kDtypeCount; ++i) {
    if (static_cast<size_t>(kDtypeTable[i].dtype) != i) return false;
  }
  return true;
}(), "kDtypeTable rows must be in Dtype order");

constexpr const DtypeInfo& dtype_info(Dtype t) { return kDtypeTable[static_cast<size_t>(t)]; }

// Every dtype, in table order.
inline constexpr std::array<Dtype, kDtypeCount> kAllDtypes = [] {
  std::array<Dtype, kDtypeCount> a{};
  for (size_t i = 0; i < kDtypeCount; ++i) a[i] = kDtypeTable[i].dtype;
  return a;
}();

// Bits per element: exact, so 4-bit formats need no fractions. Scales excluded.
constexpr int64_t dtype_bits(Dtype t) { return dtype_info(t).bits; }

// Bytes per element as a real number, counting the format's own group scales
// (ScaleKind::kFormat): 0.5 for int4, 0.5625 for NVFP4 (4 bits + 8 / 16),
// 0.53125 for MXFP4 (4 + 8 / 32). Checkpoint group scales (int4/int8) and
// per-tensor scales are not in it.
constexpr double dtype_bytes(Dtype t) {
  const DtypeInfo& i = dtype_info(t);
  const double element = static_cast<double>(i.bits) / 8.0;
  if (i.scales != ScaleKind::kFormat) return element;
  return element + static_cast<double>(i.scale_bits) / 8.0 / static_cast<double>(i.group_size);
}

// Bytes of `n` elements' values alone: ceil(n . bits / 8). A whole-byte dtype
// is n x bytes: the same value in one multiply, and an overflow only when the
// bytes themselves do not fit in 64 bits.
constexpr Exact element_bytes(Exact n, Dtype t) {
  const int64_t bits = dtype_bits(t);
  return bits % 8 == 0 ? n * Exact(bits / 8) : ceil_div(n * Exact(bits), 8);
}

// Elements per group scale for `t`: the format's group (NVFP4 16, MXFP4 32),
// `quant_group_size` for checkpoint group scales (int4/int8), the block's
// rows x cols for fp8 block scales when `block_scales`, else 0 (no scales).
// REQUIRES: quant_group_size >= 1.
constexpr int64_t scale_group_elements(Dtype t, int64_t quant_group_size, bool block_scales = false) {
  const DtypeInfo& i = dtype_info(t);
  switch (i.scales) {
    case ScaleKind::kNone: return 0;
    case ScaleKind::kFormat: return i.group_size;
    case ScaleKind::kGroup: return quant_group_size;
    case ScaleKind::kOptional: return block_scales ? i.block_rows * i.block_cols : 0;
  }
  return 0;
}

// Bytes of the group scales of `n` elements: ceil(n / group) scales of
// scale_bits, rounded up to whole bytes (0 when the dtype has none).
// Summed over a whole part of a model, as the deployment engine does, this
// equals the per-matrix sum when every matrix's size is a multiple of the
// group (true of every real shape with groups of 16, 32 or 128).
// REQUIRES: quant_group_size >= 1.
constexpr Exact group_scale_bytes(Exact n, Dtype t, int64_t quant_group_size, bool block_scales = false) {
  const int64_t g = scale_group_elements(t, quant_group_size, block_scales);
  if (g == 0) return Exact(0);
  return ceil_div(ceil_div(n, g) * Exact(dtype_info(t).scale_bits), 8);
}

// Bytes of one rows x cols matrix stored in `t`, exactly as a checkpoint
// holds it: the values, one scale per group along each row (NVFP4, MXFP4,
// int4/int8 with `quant_group_size`) or per block_rows x block_cols tile
// (fp8 with `block_scales`), and the per-tensor scale (NVFP4's fp32).
// REQUIRES: rows, cols >= 0; quant_group_size >= 1.
constexpr Exact matrix_bytes(Exact rows, Exact cols, Dtype t, int64_t quant_group_size, bool block_scales = false) {
  const DtypeInfo& i = dtype_info(t);
  Exact scales(0);
  if (i.scales == ScaleKind::kOptional) {
    if (block_scales) {
      scales = ceil_div(ceil_div(rows, i.block_rows) * ceil_div(cols, i.block_cols) * Exact(i.scale_bits), 8);
    }
  } else if (const int64_t g = scale_group_elements(t, quant_group_size); g > 0) {
    scales = ceil_div(rows * ceil_div(cols, g) * Exact(i.scale_bits), 8);
  }
  return element_bytes(rows * cols, t) + scales + Exact(ceil_div(Exact(i.tensor_scale_bits), 8));
}

// Lower-case canonical name: "fp32", "fp16", "bf16", "fp8", "int8", "int4", "nvfp4", "mxfp4".
constexpr std::string_view dtype_name(Dtype t) { return dtype_info(t).name; }

// The name of the compute roof math in `t` runs under: the dtype's name, but
// "fp4" for the fp4 peak column that nvfp4 and mxfp4 share.
constexpr std::string_view roof_label(Dtype t) {
  return dtype_info(t).peak == PeakColumn::kFp4 ? std::string_view("fp4") : dtype_name(t);
}

// The canonical names joined by ", " (for --help and errors); `kv_only`
// lists only those accepted as a KV-cache dtype.
std::string dtype_names(bool kv_only = false);

// Parses a dtype name (case-insensitive; canonical names and the table's
// spellings: "float16", "bfloat16", "float32", ...). On failure the Status
// names `field` and lists the allowed names.
Result<Dtype> parse_dtype(std::string_view text, std::string_view field);

// parse_dtype, then refuses a dtype the KV formulas do not count (kv_cache
// false: NVFP4/MXFP4, whose group scales the KV bytes would miss), naming
// `field`.
Result<Dtype> parse_kv_dtype(std::string_view text, std::string_view field);

// Ok when `t` may be a KV-cache dtype, else InvalidArgument naming `field`.
Status check_kv_dtype(Dtype t, std::string_view field);

}  // namespace modelcalc

#endif  // MODELCALC_DTYPE_H_
