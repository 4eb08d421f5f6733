// libFuzzer target: any bytes given to model_from_hf_json must produce a
// spec or an error, never a crash, and an accepted spec's breakdown must add
// up and pass validate().
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "modelcalc/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = modelcalc::model_from_hf_json(text, "fuzz");
  if (!r.ok()) return 0;
  const modelcalc::ModelSpec& m = *r;
  if (!m.exact || !modelcalc::validate(m).ok()) std::abort();
  const auto& p = *m.exact;
  if (p.mlp_routed_active > p.mlp_routed || p.total() < p.blocks()) std::abort();
  return 0;
}
