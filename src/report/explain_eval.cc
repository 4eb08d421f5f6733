#include "explain_eval.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

namespace modelcalc {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Unit {
  std::string_view text;
  double scale;
};

// Base units the renderer prints; longest first so "FLOP/s" wins over "FLOP".
constexpr Unit kBaseUnits[] = {
    {"FLOP/byte", 1}, {"FLOP/s", 1}, {"FLOP", 1},   {"tokens/s", 1}, {"tokens", 1}, {"params", 1},
    {"sequences", 1}, {"B/s", 1},    {"B", 1},      {"days", 1},     {"ms", 1e-3},  {"µs", 1e-6},
    {"us", 1e-6},     {"ns", 1e-9},  {"s", 1},      {"h", 1},        {"%", 1e-2},
};
constexpr Unit kPrefixes[] = {{"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}, {"K", 1e3}};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

Interval exact(double v) { return {v, v}; }

Interval add(Interval a, Interval b) { return {a.lo + b.lo, a.hi + b.hi}; }
Interval sub(Interval a, Interval b) { return {a.lo - b.hi, a.hi - b.lo}; }
Interval mul(Interval a, Interval b) {
  const double p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  Interval r{kInf, -kInf};
  for (double x : p) {
    if (std::isnan(x)) x = 0;  // 0 × inf
    r.lo = std::min(r.lo, x);
    r.hi = std::max(r.hi, x);
  }
  return r;
}
Interval div(Interval a, Interval b) {
  if (b.lo <= 0 && b.hi >= 0) return {-kInf, kInf};
  return mul(a, {1 / b.hi, 1 / b.lo});
}
Interval pow_iv(Interval a, double e) {
  const double x = std::pow(std::max(a.lo, 0.0), e), y = std::pow(std::max(a.hi, 0.0), e);
  return {std::min(x, y), std::max(x, y)};
}

class Parser {
 public:
  explicit Parser(std::string_view s, bool shown = false) : s_(s), shown_(shown) {}

  Result<Interval> whole() {
    Interval v = comparison();
    skip_space();
    if (error_.empty() && i_ != s_.size()) fail("unexpected text");
    if (!error_.empty()) return Status::InvalidArgument("substitution", error_ + " in \"" + std::string(s_) + "\"");
    return v;
  }

  // A number and its unit, as a shown value: no operators.
  Result<Interval> shown() {
    skip_space();
    if (eat("yes")) return exact(1);
    if (eat("no")) return exact(0);
    eat("×");
    Interval v = number();
    if (!error_.empty()) return Status::InvalidArgument("value", error_ + " in \"" + std::string(s_) + "\"");
    return v;
  }

 private:
  void fail(std::string what) {
    if (error_.empty()) error_ = what + " at offset " + std::to_string(i_);
  }
  void skip_space() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool starts(std::string_view t) const { return s_.substr(i_, t.size()) == t; }
  bool eat(std::string_view t) {
    skip_space();
    if (!starts(t)) return false;
    i_ += t.size();
    return true;
  }

  Interval comparison() {
    Interval a = sum();
    // Printed precision cannot tell < from ≤, so both read as "below".
    struct Op {
      std::string_view text;
      bool less;
    };
    for (const Op& op : {Op{"≤", true}, Op{"<", true}, Op{"≥", false}, Op{">", false}}) {
      if (!eat(op.text)) continue;
      Interval b = sum();
      if (!op.less) std::swap(a, b);  // a < b from here on
      if (a.hi < b.lo) return exact(1);
      if (a.lo > b.hi) return exact(0);
      return {0, 1};
    }
    return a;
  }

  Interval sum() {
    Interval v = product();
    while (error_.empty()) {
      if (eat("+")) v = add(v, product());
      else if (eat("−") || eat("-")) v = sub(v, product());
      else break;
    }
    return v;
  }

  Interval product() {
    Interval v = unary();
    while (error_.empty()) {
      skip_space();
      if (eat("×") || eat("·") || eat("*")) v = mul(v, unary());
      else if (starts("x ")) { ++i_; v = mul(v, unary()); }
      else if (eat("/") || eat("÷")) v = div(v, unary());
      else break;
    }
    return v;
  }

  Interval unary() {
    if (eat("−") || eat("-")) {
      Interval v = unary();
      return {-v.hi, -v.lo};
    }
    return power();
  }

  Interval power() {
    Interval v = primary();
    while (error_.empty()) {
      if (eat("²")) v = pow_iv(v, 2);
      else if (eat("³")) v = pow_iv(v, 3);
      else if (eat("^")) {
        Interval e = unary();
        if (e.lo != e.hi) fail("an inexact exponent");
        v = pow_iv(v, e.lo);
      } else break;
    }
    return v;
  }

  Interval call(std::string_view f) {
    Interval a = comparison();
    if (f == "min" || f == "max") {
      while (eat(",")) {
        Interval b = comparison();
        a = f == "min" ? Interval{std::min(a.lo, b.lo), std::min(a.hi, b.hi)}
                       : Interval{std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
      }
    } else if (f == "floor") {
      a = {std::floor(a.lo), std::floor(a.hi)};
    } else if (f == "ceil") {
      a = {std::ceil(a.lo), std::ceil(a.hi)};
    } else if (f == "sqrt") {
      a = pow_iv(a, 0.5);
    }
    if (!eat(")")) fail("expected )");
    return a;
  }

  Interval primary() {
    skip_space();
    if (eat("(")) {
      Interval v = comparison();
      if (!eat(")")) fail("expected )");
      return v;
    }
    for (std::string_view f : {"floor(", "ceil(", "min(", "max(", "sqrt(", "√("}) {
      if (eat(f)) return call(f == "√(" ? "sqrt" : f.substr(0, f.size() - 1));
    }
    eat("$");
    if (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) return number();
    size_t j = i_;
    while (j < s_.size() && ident_char(s_[j])) ++j;
    fail(j > i_ ? "unsubstituted symbol '" + std::string(s_.substr(i_, j - i_)) + "'" : "expected a number");
    return exact(0);
  }

  // digits[,ddd]*[.digits][e[+-]digits] [unit]
  Interval number() {
    skip_space();
    eat("$");
    skip_space();
    std::string digits;
    bool grouped = false, point = false;
    int decimals = 0;
    const size_t start = i_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        digits.push_back(c);
        if (point) ++decimals;
        ++i_;
      } else if (c == ',' && !point && i_ + 3 < s_.size() + 1 && i_ + 3 <= s_.size() &&
                 std::all_of(s_.begin() + static_cast<long>(i_) + 1, s_.begin() + static_cast<long>(i_) + 4,
                             [](char d) { return std::isdigit(static_cast<unsigned char>(d)); }) &&
                 (i_ + 4 >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_ + 4])))) {
        grouped = true;
        ++i_;
      } else if (c == '.' && !point) {
        digits.push_back(c);
        point = true;
        ++i_;
      } else {
        break;
      }
    }
    if (i_ == start || digits == ".") {
      fail("expected a number");
      return exact(0);
    }
    double v = std::stod(digits);
    double ulp = point ? std::pow(10.0, -decimals) : 1;
    bool inexact = point;
    if (i_ + 1 < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E') &&
        (std::isdigit(static_cast<unsigned char>(s_[i_ + 1])) || s_[i_ + 1] == '-' || s_[i_ + 1] == '+')) {
      size_t j = i_ + 1;
      if (s_[j] == '-' || s_[j] == '+') ++j;
      const size_t e0 = j;
      while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) ++j;
      const double scale = std::pow(10.0, std::stod(std::string(s_.substr(i_ + 1, j - i_ - 1))));
      if (j == e0) fail("bad exponent");
      v *= scale;
      ulp *= scale;
      inexact = point;  // "1e6" is a formula's constant; "3.859e14" a rounded real
      i_ = j;
    }
    // An ungrouped integer of four or more digits is fmt_sig's rounding of a real.
    if (!inexact && !grouped && digits.size() >= 4) inexact = true;
    // A shown value is rounded to its last printed digit (trailing zeros stripped).
    if (shown_) inexact = true;
    const double scale = unit();
    if (scale != 1 && scale != 1e-2) inexact = true;
    if (!inexact) return exact(v * scale);
    return {(v - ulp / 2) * scale, (v + ulp / 2) * scale};
  }

  // An optional unit after a number; returns its scale to base units.
  double unit() {
    // A count suffix written against the number: 70B parameters, 2T tokens, 8K.
    if (i_ < s_.size() && (i_ + 1 >= s_.size() || !ident_char(s_[i_ + 1]))) {
      for (const Unit& c : {Unit{"K", 1e3}, Unit{"M", 1e6}, Unit{"B", 1e9}, Unit{"T", 1e12}}) {
        if (s_[i_] == c.text[0]) {
          ++i_;
          return c.scale;
        }
      }
    }
    size_t j = i_;
    while (j < s_.size() && s_[j] == ' ') ++j;
    auto try_base = [&](size_t at, double prefix) -> double {
      for (const Unit& u : kBaseUnits) {
        if (s_.substr(at, u.text.size()) != u.text) continue;
        const size_t end = at + u.text.size();
        if (end < s_.size() && ident_char(s_[end])) continue;
        i_ = end;
        return prefix * u.scale;
      }
      return 0;
    };
    if (const double s = try_base(j, 1); s != 0) return s;
    for (const Unit& p : kPrefixes) {
      if (s_.substr(j, p.text.size()) != p.text) continue;
      if (const double s = try_base(j + p.text.size(), p.scale); s != 0) return s;
      const size_t end = j + p.text.size();
      if (end >= s_.size() || !ident_char(s_[end])) {  // a bare prefix: "7.616 G" params
        i_ = end;
        return p.scale;
      }
    }
    return 1;
  }

  std::string_view s_;
  size_t i_ = 0;
  std::string error_;
  bool shown_ = false;
};

}  // namespace

bool Interval::overlaps(const Interval& o, double rel_slack) const {
  const double slack = rel_slack * std::max({std::fabs(lo), std::fabs(hi), std::fabs(o.lo), std::fabs(o.hi)});
  return lo <= o.hi + slack && o.lo <= hi + slack;
}

Result<Interval> eval_substitution(std::string_view text) { return Parser(text).whole(); }

Result<Interval> parse_shown(std::string_view text) { return Parser(text, true).shown(); }

}  // namespace modelcalc
