// libFuzzer target: the tradeoff candidates file. Any bytes produce two valid
// candidates or a one-line error; two accepted candidates resolve under equal
// weights to scores in (0, 1], or are refused in one line as a pair (a dial
// whose two values differ by more than 1e15x compares nothing).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "modelcalc/tradeoff.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace modelcalc;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = parse_candidates_json(text, "fuzz");
  if (!r.ok()) {
    if (r.status().message().find('\n') != std::string::npos) std::abort();
    return 0;
  }
  const auto& c = *r;
  if (c.size() != 2) std::abort();
  static const TradeoffWeights w = make_weights({1, 1, 1, 1, 1}).value();
  auto t = resolve_tradeoff(c[0], c[1], w);
  if (!t.ok()) {
    // Each candidate was valid alone; only the pair check may refuse them.
    if (t.status().message().find('\n') != std::string::npos) std::abort();
    if (t.status().message().find("1e15") == std::string::npos) std::abort();
    return 0;
  }
  for (double s : {t->score_a, t->score_b}) {
    if (!(s > 0 && s <= 1 + 1e-12)) std::abort();
  }
  return 0;
}
