// libFuzzer target: any bytes given to the evidence reader produce Evidence
// or a one-line error, never a crash; accepted evidence that passes
// validate() has finite numbers only.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "modelcalc/diagnose.h"

namespace {

void check_finite(const std::optional<double>& v) {
  if (v && !std::isfinite(*v)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = modelcalc::parse_evidence_json(text, "fuzz");
  if (!r.ok()) {
    if (r.status().message().find('\n') != std::string::npos) std::abort();
    return 0;
  }
  const modelcalc::Evidence& e = *r;
  if (!modelcalc::validate(e).ok()) return 0;
  check_finite(e.model.params);
  check_finite(e.measured.tokens_per_s_per_sequence);
  check_finite(e.measured.tokens_per_s_aggregate);
  check_finite(e.measured.ttft_s);
  check_finite(e.measured.itl_s);
  check_finite(e.profile.flop_utilization);
  check_finite(e.profile.bandwidth_utilization);
  check_finite(e.profile.peak_transient_bytes);
  return 0;
}
