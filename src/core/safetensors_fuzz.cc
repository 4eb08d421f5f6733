// libFuzzer target: any bytes given as a safetensors header's JSON must be
// accepted or refused with an error, never crash, hang or overflow; an
// accepted header lays out a non-negative number of bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "modelcalc/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = modelcalc::check_safetensors_header(text, "fuzz");
  if (r.ok() && *r < 0) std::abort();
  return 0;
}
