#include "error_number.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace modelcalc {

std::string error_number(double v) { return fmt::format("{}", v); }

std::string error_number_sig(double v, int sig) {
  if (std::isinf(v)) return v > 0 ? "∞" : "-∞";
  if (std::isnan(v)) return "n/a";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  std::string s;
  if (a >= 1e-3 && a < 1e7) {
    const int int_digits = a >= 1 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 0;
    int decimals = std::max(0, sig - int_digits);
    if (a < 1) decimals = sig - static_cast<int>(std::floor(std::log10(a))) - 1;
    s = fmt::format("{:.{}f}", v, decimals);
  } else {
    s = fmt::format("{:.{}e}", v, sig - 1);
  }
  // Trailing zeros of the mantissa go; "e+14" -> "e14", "e-05" -> "e-5".
  const auto e = s.find('e');
  std::string exp = e == std::string::npos ? "" : s.substr(e);
  std::string mant = e == std::string::npos ? s : s.substr(0, e);
  if (mant.find('.') != std::string::npos) {
    while (mant.back() == '0') mant.pop_back();
    if (mant.back() == '.') mant.pop_back();
  }
  if (!exp.empty()) {
    const std::string sign = exp[1] == '-' ? "-" : "";
    size_t i = 2;
    while (i + 1 < exp.size() && exp[i] == '0') ++i;
    exp = "e" + sign + exp.substr(i);
  }
  return mant + exp;
}

}  // namespace modelcalc
