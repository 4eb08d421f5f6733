#include "format.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/compile.h>
#include <fmt/format.h>

namespace modelcalc {

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

char* write_shortest(char* out, double v) {
  // fmt 9.1's write(OutputIt, double), format.h: sign, then Dragonbox's
  // decimal (significand without trailing zeros, exponent), then
  // do_write_float's layout for float_specs() (general, precision 0). Copies
  // are of fixed sizes (inline moves, no memcpy calls): they may write
  // scratch bytes past the returned end, within the 48 bytes of room.
  if (std::signbit(v)) {
    *out++ = '-';
    v = -v;
  }
  const auto dec = fmt::detail::dragonbox::to_decimal(v);
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  // The significand's digits (at most 17) end at buf + 20; fixed-size copies
  // read up to 24 bytes from their first digit, all inside buf.
  // Whole blocks of 8 digits first (a 17-digit significand is two and one
  // digit), each by 32-bit halves of 4 digits; then what is left, by pairs
  // in 32-bit arithmetic. Two 64-bit divisions instead of eight.
  char buf[48];
  char* const end = buf + 20;
  char* d = end;
  uint64_t s64 = dec.significand;
  while (s64 >= 100000000) {
    const auto block = static_cast<uint32_t>(s64 % 100000000);
    s64 /= 100000000;
    const uint32_t hi = block / 10000, lo = block % 10000;
    d -= 8;
    std::memcpy(d, kPairs + (hi / 100) * 2, 2);
    std::memcpy(d + 2, kPairs + (hi % 100) * 2, 2);
    std::memcpy(d + 4, kPairs + (lo / 100) * 2, 2);
    std::memcpy(d + 6, kPairs + (lo % 100) * 2, 2);
  }
  auto s = static_cast<uint32_t>(s64);
  while (s >= 100) {
    d -= 2;
    std::memcpy(d, kPairs + (s % 100) * 2, 2);
    s /= 100;
  }
  if (s >= 10) {
    d -= 2;
    std::memcpy(d, kPairs + s * 2, 2);
  } else {
    *--d = static_cast<char>('0' + s);
  }
  const int n = static_cast<int>(end - d);  // significand digits
  const int e = dec.exponent;
  const int output_exp = e + n - 1;
  if (output_exp < -4 || output_exp >= 16) {  // d[.ddd]e(+|-)XX[X]
    out[0] = d[0];
    out[1] = '.';
    std::memcpy(out + 2, d + 1, 16);
    out += n > 1 ? n + 1 : 1;
    *out++ = 'e';
    int x = output_exp;
    *out++ = x < 0 ? '-' : '+';
    if (x < 0) x = -x;
    if (x >= 100) {  // a double's decimal exponent has at most 3 digits
      *out++ = static_cast<char>('0' + x / 100);
      x %= 100;
    }
    std::memcpy(out, kPairs + x * 2, 2);
    return out + 2;
  }
  if (e >= 0) {  // 1234e5 -> 123400000 (n + e <= 16 digits)
    std::memcpy(out, d, 24);
    std::memset(out + n, '0', 16);
    return out + n + e;
  }
  const int int_digits = n + e;
  if (int_digits > 0) {  // 1234e-2 -> 12.34
    std::memcpy(out, d, 24);
    out[int_digits] = '.';
    std::memcpy(out + int_digits + 1, d + int_digits, 16);
    return out + n + 1;
  }
  // 1234e-6 -> 0.001234 (at most 3 zeros: output_exp >= -4)
  std::memcpy(out, "0.000", 5);
  out += 2 - int_digits;
  std::memcpy(out, d, 24);
  return out + n;
}

}  // namespace modelcalc
