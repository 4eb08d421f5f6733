// Numeric storage formats and their sizes. The seed convention:
// fp32 4 B, fp16/bf16 2 B, fp8/int8 1 B, int4 0.5 B per element.
#ifndef MODELCALC_DTYPE_H_
#define MODELCALC_DTYPE_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "modelcalc/status.h"

namespace modelcalc {

enum class Dtype { kFp32, kFp16, kBf16, kFp8, kInt8, kInt4 };

inline constexpr std::array<Dtype, 6> kAllDtypes = {Dtype::kFp32, Dtype::kFp16, Dtype::kBf16,
                                                    Dtype::kFp8,  Dtype::kInt8, Dtype::kInt4};

// Bits per element: exact, so int4 needs no fractions.
constexpr int64_t dtype_bits(Dtype t) {
  switch (t) {
    case Dtype::kFp32: return 32;
    case Dtype::kFp16:
    case Dtype::kBf16: return 16;
    case Dtype::kFp8:
    case Dtype::kInt8: return 8;
    case Dtype::kInt4: return 4;
  }
  return 0;
}

// Bytes per element as a real number (0.5 for int4).
constexpr double dtype_bytes(Dtype t) { return static_cast<double>(dtype_bits(t)) / 8.0; }

// Lower-case canonical name: "fp32", "fp16", "bf16", "fp8", "int8", "int4".
std::string_view dtype_name(Dtype t);

// Parses a dtype name (case-insensitive; also accepts "float16", "bfloat16",
// "float32"). On failure the Status names `field` and lists the allowed names.
Result<Dtype> parse_dtype(std::string_view text, std::string_view field);

}  // namespace modelcalc

#endif  // MODELCALC_DTYPE_H_
