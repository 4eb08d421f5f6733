#include "modelcalc/dtype.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace modelcalc {

std::string_view dtype_name(Dtype t) {
  switch (t) {
    case Dtype::kFp32: return "fp32";
    case Dtype::kFp16: return "fp16";
    case Dtype::kBf16: return "bf16";
    case Dtype::kFp8: return "fp8";
    case Dtype::kInt8: return "int8";
    case Dtype::kInt4: return "int4";
  }
  return "?";
}

Result<Dtype> parse_dtype(std::string_view text, std::string_view field) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (Dtype t : kAllDtypes) {
    if (s == dtype_name(t)) return t;
  }
  if (s == "float32") return Dtype::kFp32;
  if (s == "float16" || s == "half") return Dtype::kFp16;
  if (s == "bfloat16") return Dtype::kBf16;
  return Status::InvalidArgument(
      field, "unknown dtype '" + std::string(text) + "'; allowed: fp32, fp16, bf16, fp8, int8, int4");
}

}  // namespace modelcalc
