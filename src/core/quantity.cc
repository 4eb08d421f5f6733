#include "quantity.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace modelcalc {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "3.35TB/s" into the number 3.35 and the unit "tb/s" (lower-cased,
// spaces removed). Fails if there is no leading number.
bool split_number(std::string_view text, double* value, std::string* unit) {
  text = trim(text);
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, *value);
  if (ec != std::errc() || !std::isfinite(*value)) return false;
  unit->clear();
  for (const char* p = ptr; p != end; ++p) {
    if (*p != ' ') unit->push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*p))));
  }
  return true;
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

Status bad(std::string_view flag, std::string_view text, std::string_view allowed) {
  return Status::InvalidArgument(flag, "cannot read '" + std::string(text) + "'; " + std::string(allowed));
}

}  // namespace

Result<double> parse_real_count(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed =
      "expected a non-negative number, optionally with K, M, B or T (e.g. 7B, 1.5T)";
  double v = 0;
  std::string unit;
  if (!split_number(text, &v, &unit)) return bad(flag, text, kAllowed);
  double mult = 1;
  if (unit == "k") mult = 1e3;
  else if (unit == "m") mult = 1e6;
  else if (unit == "b" || unit == "g") mult = 1e9;
  else if (unit == "t") mult = 1e12;
  else if (!unit.empty()) return bad(flag, text, kAllowed);
  if (v < 0) return Status::InvalidArgument(flag, "must not be negative, got " + std::string(text));
  return v * mult;
}

Result<int64_t> parse_count(std::string_view text, std::string_view flag) {
  auto r = parse_real_count(text, flag);
  if (!r.ok()) {
    return Status::InvalidArgument(flag, "cannot read '" + std::string(text) +
                                             "'; expected a positive whole number (e.g. 4096, 64K)");
  }
  const double v = *r;
  if (v <= 0) return Status::InvalidArgument(flag, "must be a positive whole number, got " + std::string(text));
  if (v >= 9.2e18) return Status::Overflow(flag);
  if (std::floor(v) != v) {
    return Status::InvalidArgument(flag, "must be a whole number, got " + std::string(text));
  }
  // Re-read plain integers exactly (doubles lose digits above 2^53).
  int64_t exact = 0;
  std::string_view t = trim(text);
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), exact);
  if (ec == std::errc() && ptr == t.data() + t.size()) return exact;
  if (ec == std::errc::result_out_of_range) return Status::Overflow(flag);
  return static_cast<int64_t>(v);
}

Result<double> parse_real(std::string_view text, std::string_view flag) {
  double v = 0;
  std::string unit;
  if (!split_number(text, &v, &unit) || !unit.empty()) {
    return bad(flag, text, "expected a plain number (e.g. 0.1)");
  }
  if (v < 0) return Status::InvalidArgument(flag, "must not be negative, got " + std::string(text));
  return v;
}

Result<double> parse_bytes(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed = "expected a size such as 80GB, 192 GB, 24GiB or 40e9";
  double v = 0;
  std::string unit;
  if (!split_number(text, &v, &unit)) return bad(flag, text, kAllowed);
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
  if (v <= 0) return Status::InvalidArgument(flag, "must be positive, got " + std::string(text));
  return v * mult;
}

Result<double> parse_bandwidth(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed = "expected a rate such as 3.35TB/s or 900GB/s";
  double v = 0;
  std::string unit;
  if (!split_number(text, &v, &unit)) return bad(flag, text, kAllowed);
  double mult = 0;
  if (unit.size() == 2 && unit == "/s") mult = 1;
  if (unit == "b/s") mult = 1;
  if (unit.size() == 4 && unit.substr(1) == "b/s") mult = decimal_prefix(unit[0]);
  if (mult == 0) return bad(flag, text, kAllowed);
  if (v <= 0) return Status::InvalidArgument(flag, "must be positive, got " + std::string(text));
  return v * mult;
}

Result<double> parse_flops(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed = "expected a rate such as 989.4TFLOPS or 1.3PFLOP/s";
  double v = 0;
  std::string unit;
  if (!split_number(text, &v, &unit)) return bad(flag, text, kAllowed);
  double mult = 0;
  std::string u = unit;
  for (std::string_view suffix : {"flop/s", "flops"}) {
    if (u.size() >= suffix.size() && u.substr(u.size() - suffix.size()) == suffix) {
      const std::string prefix = u.substr(0, u.size() - suffix.size());
      if (prefix.empty()) mult = 1;
      else if (prefix.size() == 1) mult = decimal_prefix(prefix[0]);
      break;
    }
  }
  if (u.empty()) mult = 1;
  if (mult == 0) return bad(flag, text, kAllowed);
  if (v <= 0) return Status::InvalidArgument(flag, "must be positive, got " + std::string(text));
  return v * mult;
}

Result<double> parse_fraction(std::string_view text, std::string_view flag) {
  std::string_view t = trim(text);
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.remove_suffix(1);
  auto v = parse_real(t, flag);
  if (!v.ok()) {
    return bad(flag, text, "expected a fraction in [0, 1] as a decimal or a percentage, e.g. 0.1 or 10%");
  }
  const double f = percent ? *v / 100 : *v;
  if (!(f >= 0 && f <= 1)) {
    return Status::InvalidArgument(flag, "must be a fraction in [0, 1] (e.g. 0.1 or 10%), got " + std::string(text));
  }
  return f;
}

}  // namespace modelcalc
