#include "format.h"

#include <charconv>
#include <cmath>
#include <fmt/compile.h>
#include <fmt/format.h>

namespace modelcalc {

std::string group_digits(int64_t v) {
  // Magnitude as unsigned so that INT64_MIN is safe.
  const uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  char digits[24];
  const size_t n = static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, mag).ptr - digits);
  // One string of the final size (a report formats ~200 counts; this was 5%
  // of a cold `size`'s instructions char by char).
  std::string out((v < 0 ? 1 : 0) + n + (n - 1) / 3, ',');
  char* o = out.data();
  if (v < 0) *o++ = '-';
  for (size_t i = 0; i < n; ++i) {
    *o++ = digits[i];
    if ((n - i - 1) % 3 == 0 && i + 1 < n) ++o;  // the ',' already there
  }
  return out;
}

namespace {

// Drops trailing fractional zeros and the exponent's '+' and leading zeros:
// "1.500" -> "1.5", "2.0e+14" -> "2e14", "3e-05" -> "3e-5". One string built.
std::string strip_zeros(std::string_view s) {
  const auto e = s.find_first_of("eE");
  std::string_view mant = e == std::string_view::npos ? s : s.substr(0, e);
  const std::string_view exp = e == std::string_view::npos ? std::string_view() : s.substr(e);
  if (mant.find('.') != std::string_view::npos) {
    while (!mant.empty() && mant.back() == '0') mant.remove_suffix(1);
    if (!mant.empty() && mant.back() == '.') mant.remove_suffix(1);
  }
  std::string out(mant);
  if (!exp.empty()) {
    // "e+14" -> "e14", "e-05" -> "e-5"
    const bool negative = exp.size() > 1 && exp[1] == '-';
    size_t i = 1;
    if (i < exp.size() && (exp[i] == '+' || exp[i] == '-')) ++i;
    while (i + 1 < exp.size() && exp[i] == '0') ++i;
    out += 'e';
    if (negative) out += '-';
    out += exp.substr(i);
  }
  return out;
}

}  // namespace

std::string fmt_sig(double v, int sig) {
  if (std::isinf(v)) return v > 0 ? "∞" : "-∞";
  if (std::isnan(v)) return "n/a";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  // Compiled formats (no run-time parse) into a stack buffer.
  fmt::memory_buffer buf;
  if (a >= 1e-3 && a < 1e7) {
    const int int_digits = a >= 1 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 0;
    int decimals = std::max(0, sig - int_digits);
    if (a < 1) decimals = sig - static_cast<int>(std::floor(std::log10(a))) - 1;
    fmt::format_to(std::back_inserter(buf), FMT_COMPILE("{:.{}f}"), v, decimals);
  } else {
    fmt::format_to(std::back_inserter(buf), FMT_COMPILE("{:.{}e}"), v, sig - 1);
  }
  return strip_zeros(std::string_view(buf.data(), buf.size()));
}

std::string fmt_fixed(double v, int decimals) {
  if (std::isinf(v)) return v > 0 ? "∞" : "-∞";
  if (std::isnan(v)) return "n/a";
  std::string s = fmt::format(FMT_COMPILE("{:.{}f}"), std::fabs(v), decimals);
  const auto dot = s.find('.');
  std::string int_part = s.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string grouped;
  for (size_t i = 0; i < int_part.size(); ++i) {
    grouped.push_back(int_part[i]);
    if ((int_part.size() - i - 1) % 3 == 0 && i + 1 < int_part.size()) grouped.push_back(',');
  }
  return (v < 0 ? "-" : "") + grouped + frac;
}

std::string fmt_si(double v, const std::string& unit, int sig) {
  static constexpr struct {
    double scale;
    const char* prefix;
  } kPrefixes[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  const double a = std::fabs(v);
  for (const auto& p : kPrefixes) {
    if (a >= p.scale) return fmt_sig(v / p.scale, sig) + " " + p.prefix + unit;
  }
  return fmt_sig(v, sig) + " " + unit;
}

}  // namespace modelcalc
