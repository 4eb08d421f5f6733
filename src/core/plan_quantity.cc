#include "plan_quantity.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

namespace modelcalc {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Leading number and the rest (lower-cased, spaces removed).
bool split_number(std::string_view text, double* value, std::string* unit) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') return false;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, *value);
  if (ec != std::errc() || !std::isfinite(*value)) return false;
  unit->clear();
  for (const char* p = ptr; p != end; ++p) {
    if (*p != ' ') unit->push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*p))));
  }
  return true;
}

Status bad(std::string_view flag, std::string_view text, std::string_view allowed) {
  return Status::InvalidArgument(flag, "cannot read '" + std::string(text) + "'; " + std::string(allowed));
}

}  // namespace

Result<double> parse_duration(std::string_view text, std::string_view flag) {
  static constexpr std::string_view kAllowed =
      "expected a duration with its unit, e.g. 1s, 50ms, 200us (s, ms, us, min)";
  double v = 0;
  std::string unit;
  if (!split_number(text, &v, &unit)) return bad(flag, text, kAllowed);
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
  if (!(s > 0)) return Status::InvalidArgument(flag, "must be a positive duration, got " + std::string(text));
  if (s > kMaxDurationSeconds) {
    return Status::InvalidArgument(flag, "must be at most one day (86400s), got " + std::string(text));
  }
  return s;
}

Result<double> parse_rate(std::string_view text, std::string_view flag,
                          std::initializer_list<std::string_view> units) {
  std::string allowed = "expected a positive rate per second, e.g. 20, 20/s or 1.5K";
  if (units.size() > 0) allowed += " (or 1.5K " + std::string(*units.begin()) + "/s)";
  double v = 0;
  std::string unit;
  if (!split_number(text, &v, &unit)) return bad(flag, text, allowed);
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
  if (!(r > 0)) return Status::InvalidArgument(flag, "must be positive, got " + std::string(text));
  if (r > kMaxRate) return Status::InvalidArgument(flag, "must be at most 1e12 per second, got " + std::string(text));
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
      return Status::InvalidArgument(flag, "has an empty item in '" + std::string(text) +
                                               "'; expected a comma-separated list, e.g. a,b");
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
