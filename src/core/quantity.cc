#include "quantity.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

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

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

enum class Split { kOk, kNotANumber, kOutOfRange };

// Splits "3.35TB/s" into the number 3.35 and the unit "tb/s" (lower-cased,
// spaces removed). Fails if there is no leading finite number; a literal
// beyond double's range (1e400) or below it (1e-400) is kOutOfRange.
Split split_number(std::string_view text, double* value, std::string* unit) {
  text = trim(text);
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, *value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) return Split::kOutOfRange;
  if (ec != std::errc() || !std::isfinite(*value)) return Split::kNotANumber;
  unit->clear();
  for (const char* p = ptr; p != end; ++p) {
    if (*p != ' ') unit->push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*p))));
  }
  return Split::kOk;
}

double decimal_prefix(char c) {
  switch (c) {
    case 'k': return 1e3;
    case 'm': return 1e6;
    case 'g': return 1e9;
    case 't': return 1e12;
    case 'p': return 1e15;
    case 'e': return 1e18;
    default: return 0;
  }
}

// "1e15" for the powers of ten the limits are.
std::string limit_text(double v) {
  return "1e" + std::to_string(static_cast<int>(std::lround(std::log10(v))));
}

Status bad(std::string_view flag, std::string_view text, std::string_view allowed) {
  return Status::InvalidArgument(flag, "cannot read " + quote_input(text) + "; " + std::string(allowed));
}

Status out_of_range(std::string_view flag, std::string_view text, std::string_view range) {
  return Status::InvalidArgument(flag, "must be " + std::string(range) + ", got " + quote_input(text));
}

// Reads the number, maps a kOutOfRange literal to the range error.
Status read_number(std::string_view text, std::string_view flag, std::string_view allowed, std::string_view range,
                   double* v, std::string* unit) {
  switch (split_number(text, v, unit)) {
    case Split::kOk: return Status::Ok();
    case Split::kOutOfRange: return out_of_range(flag, text, range);
    case Split::kNotANumber: break;
  }
  return bad(flag, text, allowed);
}

// The multiplier of a count suffix: K M B/G T (decimal), Ki Mi Gi Ti (binary).
// 0 when `unit` is none of them.
double count_multiplier(const std::string& unit) {
  if (unit.empty()) return 1;
  if (unit == "k") return 1e3;
  if (unit == "m") return 1e6;
  if (unit == "b" || unit == "g") return 1e9;
  if (unit == "t") return 1e12;
  if (unit == "ki") return 1024.0;
  if (unit == "mi") return 1024.0 * 1024;
  if (unit == "gi") return 1024.0 * 1024 * 1024;
  if (unit == "ti") return 1024.0 * 1024 * 1024 * 1024;
  return 0;
}

}  // namespace

namespace {

// The length of the well-formed UTF-8 sequence at s[i] and its code point,
// or 0 when the bytes there are not one.
size_t utf8_sequence(std::string_view s, size_t i, char32_t* cp) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  char32_t c = 0;
  if (b >= 0xC2 && b <= 0xDF) n = 2, c = b & 0x1F;
  else if (b >= 0xE0 && b <= 0xEF) n = 3, c = b & 0x0F;
  else if (b >= 0xF0 && b <= 0xF4) n = 4, c = b & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto cb = static_cast<unsigned char>(s[i + k]);
    if ((cb & 0xC0) != 0x80) return 0;
    c = (c << 6) | (cb & 0x3F);
  }
  if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10FFFF)) || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *cp = c;
  return n;
}

// escape_for_terminal (one line: \n \t \r and \xNN for controls) and
// escape_output_text (lines kept: \u00NN for controls, valid in a JSON string).
std::string escape_controls(std::string_view s, bool keep_lines) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  const auto hex = [&](const char* prefix, unsigned v) {
    out += prefix;
    out.push_back(kHex[(v >> 4) & 0xF]);
    out.push_back(kHex[v & 0xF]);
  };
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b >= 0x20 && b < 0x7F) || (keep_lines && (b == '\n' || b == '\t'))) {
      out.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    if (b >= 0x80) {
      char32_t cp = 0;
      if (const size_t n = utf8_sequence(s, i, &cp); n > 0) {
        if (cp >= 0x80 && cp <= 0x9F) {  // C1 controls (e.g. CSI) act like ESC sequences
          hex("\\u00", static_cast<unsigned>(cp));
        } else {
          out.append(s.substr(i, n));
        }
        i += n;
        continue;
      }
      hex("\\x", b);  // not UTF-8
    } else if (keep_lines) {  // C0 controls, CR, ESC, DEL
      hex("\\u00", b);
    } else if (b == '\n') {
      out += "\\n";
    } else if (b == '\t') {
      out += "\\t";
    } else if (b == '\r') {
      out += "\\r";
    } else {
      hex("\\x", b);
    }
    ++i;
  }
  return out;
}

}  // namespace

std::string escape_for_terminal(std::string_view s) { return escape_controls(s, /*keep_lines=*/false); }

std::string escape_output_text(std::string_view s) { return escape_controls(s, /*keep_lines=*/true); }

namespace status_internal {
std::string one_line(std::string_view text) { return escape_for_terminal(text); }
}  // namespace status_internal

std::string quote_input(std::string_view text) {
  constexpr size_t kMax = 40;
  if (text.size() <= kMax) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, kMax)) + "...'";
}

Result<double> parse_real_count(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed =
      "expected a non-negative number, optionally with K, M, B, T or Ki, Mi, Gi, Ti (e.g. 7B, 1.5T, 8Ki)";
  static const std::string kRange = "between 0 and " + limit_text(kMaxRealCount);
  double v = 0;
  std::string unit;
  MC_RETURN_IF_ERROR(read_number(text, flag, kAllowed, kRange, &v, &unit));
  const double mult = count_multiplier(unit);
  if (mult == 0) return bad(flag, text, kAllowed);
  const double x = v * mult;
  if (!(x >= 0) || !(x <= kMaxRealCount)) return out_of_range(flag, text, kRange);
  return x;
}

Result<int64_t> parse_count(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed =
      "expected a positive whole number, optionally with K, M, B, T or Ki, Mi, Gi, Ti (e.g. 4096, 64K, 8Ki)";
  static const std::string kRange = "a whole number between 1 and " + limit_text(static_cast<double>(kMaxCount));
  double v = 0;
  std::string unit;
  MC_RETURN_IF_ERROR(read_number(text, flag, kAllowed, kRange, &v, &unit));
  const double mult = count_multiplier(unit);
  if (mult == 0) return bad(flag, text, kAllowed);
  const double x = v * mult;
  if (!(x >= 1) || !(x <= static_cast<double>(kMaxCount))) return out_of_range(flag, text, kRange);
  if (std::floor(x) != x) return Status::InvalidArgument(flag, "must be a whole number, got " + quote_input(text));
  // x is integral and at most 1e15 < 2^53, so the conversion is exact and in range.
  return static_cast<int64_t>(x);
}

Result<double> parse_real(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed = "expected a plain number (e.g. 0.1)";
  static const std::string kRange = "between 0 and " + limit_text(kMaxReal);
  double v = 0;
  std::string unit;
  MC_RETURN_IF_ERROR(read_number(text, flag, kAllowed, kRange, &v, &unit));
  if (!unit.empty()) return bad(flag, text, kAllowed);
  if (v < 0) return Status::InvalidArgument(flag, "must not be negative, got " + quote_input(text));
  if (!(v <= kMaxReal)) return out_of_range(flag, text, kRange);
  return v;
}

Result<double> parse_fraction(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed = "expected a fraction such as 0.1 or a percentage such as 10%";
  static constexpr std::string_view kRange = "a fraction between 0 and 1 (or 0% to 100%)";
  std::string_view t = trim(text);
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.remove_suffix(1);
  double v = 0;
  std::string unit;
  MC_RETURN_IF_ERROR(read_number(t, flag, kAllowed, kRange, &v, &unit));
  if (!unit.empty()) return bad(flag, text, kAllowed);
  const double f = percent ? v / 100 : v;
  if (!(f >= 0) || !(f <= 1)) return out_of_range(flag, text, kRange);
  return f;
}

Result<double> parse_bytes(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed =
      "expected a size such as 80GB, 192 GB, 79.2GiB, 81559MiB or 40e9 (KiB MiB GiB TiB are binary)";
  static const std::string kRange = "a positive size of at most " + limit_text(kMaxBytes) + " B (1 PB)";
  double v = 0;
  std::string unit;
  MC_RETURN_IF_ERROR(read_number(text, flag, kAllowed, kRange, &v, &unit));
  if (unit.size() >= 2 && unit.substr(unit.size() - 2) == "/s") {
    return bad(flag, text, "this is a rate; expected a size such as 80GB");
  }
  double mult = 0;
  if (unit.empty() || unit == "b") {
    mult = 1;
  } else if (unit.size() == 2 && unit[1] == 'b') {
    mult = decimal_prefix(unit[0]);
  } else if (unit.size() == 3 && unit[1] == 'i' && unit[2] == 'b') {
    const std::string bin = "kmgtpe";
    const auto pos = bin.find(unit[0]);
    if (pos != std::string::npos) mult = std::ldexp(1.0, 10 * static_cast<int>(pos + 1));
  }
  if (mult == 0) return bad(flag, text, kAllowed);
  if (v <= 0) return Status::InvalidArgument(flag, "must be positive, got " + quote_input(text));
  const double x = v * mult;
  if (!(x > 0) || !(x <= kMaxBytes)) return out_of_range(flag, text, kRange);
  return x;
}

Result<double> parse_bandwidth(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed = "expected a rate such as 3.35TB/s or 900GB/s";
  static const std::string kRange = "a positive rate of at most " + limit_text(kMaxBandwidth) + " B/s (1 PB/s)";
  double v = 0;
  std::string unit;
  MC_RETURN_IF_ERROR(read_number(text, flag, kAllowed, kRange, &v, &unit));
  double mult = 0;
  if (unit == "/s" || unit == "b/s") mult = 1;
  if (unit.size() == 4 && unit.substr(1) == "b/s") mult = decimal_prefix(unit[0]);
  if (mult == 0) return bad(flag, text, kAllowed);
  if (v <= 0) return Status::InvalidArgument(flag, "must be positive, got " + quote_input(text));
  const double x = v * mult;
  if (!(x > 0) || !(x <= kMaxBandwidth)) return out_of_range(flag, text, kRange);
  return x;
}

Result<double> parse_flops(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed = "expected a rate such as 989.4TFLOPS or 1.3PFLOP/s";
  static const std::string kRange = "a positive rate of at most " + limit_text(kMaxFlops) + " FLOP/s (1 EFLOP/s)";
  double v = 0;
  std::string unit;
  MC_RETURN_IF_ERROR(read_number(text, flag, kAllowed, kRange, &v, &unit));
  double mult = 0;
  for (std::string_view suffix : {"flop/s", "flops"}) {
    if (unit.size() >= suffix.size() && unit.substr(unit.size() - suffix.size()) == suffix) {
      const std::string prefix = unit.substr(0, unit.size() - suffix.size());
      if (prefix.empty()) mult = 1;
      else if (prefix.size() == 1) mult = decimal_prefix(prefix[0]);
      break;
    }
  }
  if (unit.empty()) mult = 1;
  if (mult == 0) return bad(flag, text, kAllowed);
  if (v <= 0) return Status::InvalidArgument(flag, "must be positive, got " + quote_input(text));
  const double x = v * mult;
  if (!(x > 0) || !(x <= kMaxFlops)) return out_of_range(flag, text, kRange);
  return x;
}

// ---------------------------------------------------------------- plan: durations, rates, lists

Result<double> parse_duration(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed =
      "expected a duration with its unit, e.g. 1s, 50ms, 200us (s, ms, us, min)";
  double v = 0;
  std::string unit;
  if (split_number(text, &v, &unit) != Split::kOk) return bad(flag, text, kAllowed);
  double mult = 0;
  if (unit == "s" || unit == "sec") mult = 1;
  else if (unit == "ms") mult = 1e-3;
  else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs") mult = 1e-6;  // us, µs (micro, mu)
  else if (unit == "min") mult = 60;
  if (unit.empty()) {
    return bad(flag, text, "a duration needs its unit (s, ms, us or min), e.g. 1s or 50ms");
  }
  if (mult == 0) return bad(flag, text, kAllowed);
  const double s = v * mult;
  if (!(s > 0)) return Status::InvalidArgument(flag, "must be a positive duration, got " + quote_input(text));
  if (s > kMaxDurationSeconds) {
    return Status::InvalidArgument(flag, "must be at most one day (86400s), got " + quote_input(text));
  }
  return s;
}

Result<double> parse_rate(std::string_view text, std::string_view flag,
                          std::initializer_list<std::string_view> units) {
  std::string allowed = "expected a positive rate per second, e.g. 20, 20/s or 1.5K";
  if (units.size() > 0) allowed += " (or 1.5K " + std::string(*units.begin()) + "/s)";
  double v = 0;
  std::string unit;
  if (split_number(text, &v, &unit) != Split::kOk) return bad(flag, text, allowed);
  double mult = 1;
  if (!unit.empty() && (unit[0] == 'k' || unit[0] == 'm')) {
    mult = unit[0] == 'k' ? 1e3 : 1e6;
    unit.erase(0, 1);
  }
  if (unit.size() >= 2 && unit.substr(unit.size() - 2) == "/s") {
    unit.resize(unit.size() - 2);
    bool known = unit.empty();
    for (std::string_view u : units) known = known || unit == u;
    if (!known) return bad(flag, text, allowed);
  } else if (!unit.empty()) {
    return bad(flag, text, allowed);
  }
  const double r = v * mult;
  if (!(r > 0)) return Status::InvalidArgument(flag, "must be positive, got " + quote_input(text));
  if (r > kMaxRate) return Status::InvalidArgument(flag, "must be at most 1e12 per second, got " + quote_input(text));
  return r;
}

Result<std::vector<std::string>> split_comma_list(std::string_view text, std::string_view flag) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t pos = text.find(',', start);
    const std::string_view item =
        trim(text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (item.empty()) {
      return Status::InvalidArgument(flag, "has an empty item in " + quote_input(text) +
                                               "; expected a comma-separated list, e.g. a,b");
    }
    for (const std::string& seen : out) {
      if (seen == item) return Status::InvalidArgument(flag, "lists '" + seen + "' twice");
    }
    out.emplace_back(item);
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

}  // namespace modelcalc
