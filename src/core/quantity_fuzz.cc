// libFuzzer target: every parser of typed numbers, units and lists. The
// first byte picks the parser, the rest is the text. Whatever the text, the
// answer is an error naming the flag (one line) or a finite value inside the
// range quantity.h states.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "modelcalc/dtype.h"
#include "modelcalc/prices.h"
#include "modelcalc/tradeoff.h"
#include "quantity.h"

namespace {

using namespace modelcalc;

void check_error(const Status& s) {
  if (s.message().rfind("--flag: ", 0) != 0 || s.message().find('\n') != std::string::npos) std::abort();
}

void check_real(const Result<double>& r, double lo, double hi, bool lo_open) {
  if (!r.ok()) return check_error(r.status());
  const double v = *r;
  if (!std::isfinite(v) || v > hi || v < lo || (lo_open && v == lo)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 13) {
    case 0: {
      auto r = parse_count(text, "--flag");
      if (!r.ok()) {
        check_error(r.status());
      } else if (*r < 1 || *r > kMaxCount) {
        std::abort();
      }
      break;
    }
    case 1: check_real(parse_real_count(text, "--flag"), 0, kMaxRealCount, false); break;
    case 2: check_real(parse_real(text, "--flag"), 0, kMaxReal, false); break;
    case 3: check_real(parse_fraction(text, "--flag"), 0, 1, false); break;
    case 4: check_real(parse_bytes(text, "--flag"), 0, kMaxBytes, true); break;
    case 5: check_real(parse_bandwidth(text, "--flag"), 0, kMaxBandwidth, true); break;
    case 6: check_real(parse_flops(text, "--flag"), 0, kMaxFlops, true); break;
    case 7: {
      auto r = parse_dtype(text, "--flag");
      if (!r.ok()) check_error(r.status());
      break;
    }
    case 8: {  // the --weights list: dial=number,...
      auto r = parse_weights(text, "--flag");
      if (!r.ok()) {
        check_error(r.status());
        break;
      }
      double sum = 0;
      for (Dial d : kAllDials) {
        const double w = r->w[d];
        if (!std::isfinite(w) || w < 0) std::abort();
        sum += w;
      }
      if (std::fabs(sum - 1) > 1e-9) std::abort();
      break;
    }
    case 9: check_real(parse_duration(text, "--flag"), 0, kMaxDurationSeconds, true); break;
    case 10: check_real(parse_rate(text, "--flag", {"tok", "tokens"}), 0, kMaxRate, true); break;
    case 11: {  // plan's comma lists: items trimmed, none empty, none twice
      auto r = split_comma_list(text, "--flag");
      if (!r.ok()) {
        check_error(r.status());
        break;
      }
      if (r->empty()) std::abort();
      for (size_t i = 0; i < r->size(); ++i) {
        const std::string& item = (*r)[i];
        if (item.empty() || item.front() == ' ' || item.back() == ' ') std::abort();
        for (size_t j = 0; j < i; ++j) {
          if ((*r)[j] == item) std::abort();
        }
      }
      break;
    }
    case 12: {  // --price GPU=USD,...: catalog GPUs, each once, prices in (0, kMaxUsdPerGpuHour]
      auto r = parse_price_overrides(text, "--flag");
      if (!r.ok()) {
        check_error(r.status());
        break;
      }
      for (const GpuPrice& p : *r) {
        if (!std::isfinite(p.usd_per_hour) || !(p.usd_per_hour > 0) || p.usd_per_hour > kMaxUsdPerGpuHour) {
          std::abort();
        }
      }
      break;
    }
  }
  return 0;
}
