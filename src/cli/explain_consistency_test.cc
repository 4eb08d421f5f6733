// Explain consistency: every explained line's substitution, evaluated, equals
// the value it explains. Drives each report builder on the fixtures through the
// CLI (--explain), parses "= formula / = substitution / = value" triples and
// evaluates the substitution (numbers with units, × ÷ + − ^ ( ), min, max,
// floor, ceil, sqrt). Lines whose substitution still holds a symbol (a Σ or an
// unsubstituted name) are skipped and counted; most lines must be checked.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace modelcalc {
namespace {

// Recursive descent over a substituted formula. Returns nullopt when the text
// is not plain arithmetic.
class Eval {
 public:
  explicit Eval(std::string s) : s_(std::move(s)) {}
  std::optional<double> run() {
    auto v = sum();
    skip();
    if (!v || i_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(std::string_view t) {
    skip();
    if (s_.compare(i_, t.size(), t) == 0) {
      i_ += t.size();
      return true;
    }
    return false;
  }
  std::optional<double> sum() {
    auto v = product();
    while (v) {
      if (eat("+")) {
        auto r = product();
        if (!r) return std::nullopt;
        *v += *r;
      } else if (eat("−") || eat("-")) {
        auto r = product();
        if (!r) return std::nullopt;
        *v -= *r;
      } else {
        break;
      }
    }
    return v;
  }
  std::optional<double> product() {
    auto v = power();
    while (v) {
      if (eat("×") || eat("*") || eat("·")) {
        auto r = power();
        if (!r) return std::nullopt;
        *v *= *r;
      } else if (eat("÷") || eat("/")) {
        auto r = power();
        if (!r) return std::nullopt;
        *v /= *r;
      } else {
        break;
      }
    }
    return v;
  }
  std::optional<double> power() {
    auto v = atom();
    if (!v) return v;
    if (eat("²")) return *v * *v;
    if (eat("^")) {
      auto e = atom();
      if (!e) return std::nullopt;
      return std::pow(*v, *e);
    }
    return v;
  }
  std::optional<double> atom() {
    skip();
    if (eat("(")) {
      auto v = sum();
      if (!v || !eat(")")) return std::nullopt;
      return v;
    }
    if (eat("−") || eat("-")) {
      auto v = atom();
      if (!v) return v;
      return -*v;
    }
    for (std::string_view f : {"min", "max", "floor", "ceil", "sqrt"}) {
      if (eat(f)) {
        if (!eat("(")) return std::nullopt;
        auto a = sum();
        std::optional<double> b;
        if (eat(",")) b = sum();
        if (!a || !eat(")")) return std::nullopt;
        if (f == "min") return b ? std::min(*a, *b) : a;
        if (f == "max") return b ? std::max(*a, *b) : a;
        if (f == "floor") return std::floor(*a);
        if (f == "ceil") return std::ceil(*a);
        return std::sqrt(*a);
      }
    }
    return number();
  }
  std::optional<double> number() {
    skip();
    std::string digits;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == ',' || s_[i_] == '.' ||
                              ((s_[i_] == 'e' || s_[i_] == 'E') && i_ + 1 < s_.size() &&
                               (std::isdigit(static_cast<unsigned char>(s_[i_ + 1])) || s_[i_ + 1] == '-' ||
                                s_[i_ + 1] == '+')) ||
                              ((s_[i_] == '-' || s_[i_] == '+') && !digits.empty() &&
                               (digits.back() == 'e' || digits.back() == 'E')))) {
      if (s_[i_] == ',') {
        // A thousands separator has three digits after it; otherwise the comma separates arguments.
        const bool grouped = i_ + 3 < s_.size() &&
                             std::isdigit(static_cast<unsigned char>(s_[i_ + 1])) &&
                             std::isdigit(static_cast<unsigned char>(s_[i_ + 2])) &&
                             std::isdigit(static_cast<unsigned char>(s_[i_ + 3])) &&
                             (i_ + 4 >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_ + 4])));
        if (!grouped) break;
      } else {
        digits += s_[i_];
      }
      ++i_;
    }
    if (digits.empty()) return std::nullopt;
    double v = std::stod(digits);
    // An optional unit: decimal prefixes scale; the rest is a name of the quantity.
    skip();
    static constexpr std::pair<std::string_view, double> kUnits[] = {
        {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}, {"GFLOP/s", 1e9}, {"FLOP/s", 1}, {"FLOP/byte", 1}, {"FLOP", 1},
        {"TB/s", 1e12},    {"GB/s", 1e9},     {"MB/s", 1e6},    {"kB/s", 1e3}, {"B/s", 1},         {"tokens/s", 1},
        {"TB", 1e12},      {"GB", 1e9},       {"MB", 1e6},      {"kB", 1e3},   {"B", 1},           {"tokens", 1},
        {"sequences", 1},  {"params", 1},     {"M params", 1e6}, {"G params", 1e9}, {"ms", 1e-3},      {"µs", 1e-6},     {"s", 1},      {"%", 0.01}};
    for (const auto& [u, k] : kUnits) {
      const size_t end = i_ + u.size();
      if (s_.compare(i_, u.size(), u) == 0 &&
          (end >= s_.size() || !std::isalpha(static_cast<unsigned char>(s_[end])))) {
        i_ = end;
        return v * k;
      }
    }
    return v;
  }
  std::string s_;
  size_t i_ = 0;
};

std::string trim(std::string s) {
  const size_t b = s.find_first_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b);
}

struct Tally {
  int checked = 0, skipped = 0;
};

// Checks every "= formula / = substitution / = value" triple of an --explain output.
Tally check_explain(const std::vector<std::string>& args) {
  const CliRun r = run_args(args);
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  Tally t;
  for (size_t i = 0; i + 3 < lines.size(); ++i) {
    const std::string a = trim(lines[i + 1]), b = trim(lines[i + 2]), c = trim(lines[i + 3]);
    if (lines[i].empty() || lines[i].back() != ']' || !a.starts_with("= ") || !b.starts_with("= ") ||
        !c.starts_with("= ")) {
      continue;
    }
    const auto sub = Eval(b.substr(2)).run();
    // The value line: a number with its unit, then an optional aside.
    std::string value = c.substr(2);
    const size_t paren = value.find(" (");
    if (paren != std::string::npos) value = value.substr(0, paren);
    const size_t aside = value.find("   ");
    if (aside != std::string::npos) value = value.substr(0, aside);
    const auto val = Eval(value).run();
    if (!sub || !val) {
      ++t.skipped;
      continue;
    }
    ++t.checked;
    // Terms are printed to 4-5 significant digits and values to about 4: agree to 0.5 %.
    EXPECT_NEAR(*sub, *val, 5e-3 * std::max(std::fabs(*sub), std::fabs(*val)) + 1e-12)
        << lines[i] << "\n  " << b << "\n  " << c;
    i += 3;
  }
  return t;
}

TEST(ExplainConsistencyTest, EverySubstitutionEvaluatesToItsValue) {
  const std::vector<std::vector<std::string>> runs = {
      {"size", "-L", "48", "-d", "6144", "--heads", "48", "--kv-heads", "8", "--ffn", "16384", "--glu", "--vocab",
       "64000", "--seq", "8192", "--gpu", "mi300x"},
      {"size", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--gpus", "2"},
      {"size", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--dtype", "fp8"},
      {"size", "--model", "gemma-2-9b", "--gpu", "h100", "--seq", "8192"},
      {"size", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "16", "--seq", "8192", "--pp", "2",
       "--tp", "8"},
      {"kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "16"},
      {"diagnose", "--model", "deepseek-v2-lite", "--gpu", "h100", "--context", "8192", "--tokens-per-s", "50"},
      {"diagnose", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--gpus", "2", "--context", "4096",
       "--batch", "4", "--aggregate-tokens-per-s", "300"},
      {"paged-kv", "--model", "gemma-2-9b", "--lens", "8192,3000", "--max-len", "8192"},
      {"cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--price-per-hour", "3"},
  };
  Tally total;
  for (std::vector<std::string> args : runs) {
    args.push_back("--explain");
    const Tally t = check_explain(args);
    total.checked += t.checked;
    total.skipped += t.skipped;
  }
  EXPECT_GT(total.checked, 250);
  EXPECT_LT(total.skipped * 5, total.checked);  // at most a fifth are not plain arithmetic
}

TEST(ExplainConsistencyTest, TheEvaluatorReadsUnitsAndOperators) {
  EXPECT_DOUBLE_EQ(*Eval("3.35 TB/s / 39.02 GB").run(), 3.35e12 / 39.02e9);
  EXPECT_DOUBLE_EQ(*Eval("2 × 27 × 3,072 × 2 B × 8,192").run(), 2.0 * 27 * 3072 * 2 * 8192);
  EXPECT_DOUBLE_EQ(*Eval("floor(62,965,665,792 / 335,544,320)").run(), 187);
  EXPECT_DOUBLE_EQ(*Eval("max(0.01397, 3.886) + 0.3852").run(), 3.886 + 0.3852);
  EXPECT_DOUBLE_EQ(*Eval("12 × 6,144²").run(), 12.0 * 6144 * 6144);
  EXPECT_FALSE(Eval("Σ len").run().has_value());
  EXPECT_FALSE(Eval("KV_token × T").run().has_value());
}

}  // namespace
}  // namespace modelcalc
