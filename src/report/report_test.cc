#include "report.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <limits>

#include "format.h"

namespace modelcalc {
namespace {

TEST(ReportTest, SubstituteReplacesWholeIdentifiersOnly) {
  const std::vector<Term> t = {term("d", int64_t{6144}), term("d_kv", int64_t{1024}), term("L", int64_t{48})};
  EXPECT_EQ(substitute("2 × L × d_kv × d", t), "2 × 48 × 1,024 × 6,144");
  EXPECT_EQ(substitute("d²", t), "6,144²");
  EXPECT_EQ(substitute("unknown + d", t), "unknown + 6,144");
  // Letters inside numeric literals are not symbols: "12d" and "1e6" stay as written.
  const std::vector<Term> e = {term("e6", int64_t{7}), term("d", int64_t{2})};
  EXPECT_EQ(substitute("x × 1e6 + 12d + d", e), "x × 1e6 + 12d + 2");
}

// render_text pads narrow labels itself; the padding must be fmt's "{:<{}}"
// (display width, the widest label's byte size as the field), which stays the
// reference: labels of ASCII, two-byte and U+2000..U+22FF characters, a wide
// one (CJK, two columns), an emoji and malformed UTF-8 (fmt measures those).
TEST(ReportTest, TextPadsLabelsAsFmtDoes) {
  const std::vector<std::string> labels = {"a", "Layer ÷ d²", "… small-T", "d×d, T·1 − ≈", "日本", "x 😀",
                                           "bad \xff", "cut \xe2\x80", "over \xc0\xaf", "\xe2\x8c\xa9 wide"};
  Report r;
  r.title = "t";
  Section s{"S", {}, {}};
  for (const std::string& l : labels) s.lines.push_back(given("", l, int64_t{7}, Unit::kNone, "c"));
  r.sections.push_back(s);
  size_t width = 0;
  for (const std::string& l : labels) width = std::max(width, l.size());
  std::string expected = "t\n\nS\n";
  for (const std::string& l : labels) expected += fmt::format("  {:<{}}  {}", l, width, "7") + "   c\n";
  EXPECT_EQ(render_text(r).substr(0, expected.size()), expected);
}

TEST(ReportTest, JsonTextAndExplainComeFromTheSameLines) {
  Report r;
  r.title = "t";
  static constexpr FormulaText kF{"f", "a × b"};
  Line l;
  l.key = "x.y";
  l.label = "Product";
  l.value = int64_t{6};
  l.unit = Unit::kParams;
  l.formula = &kF;
  l.terms = {term("a", int64_t{2}), term("b", int64_t{3})};
  r.sections.push_back({"S", {l}, {}});
  EXPECT_EQ(render_json(r)["x"]["y"], 6);
  EXPECT_NE(render_text(r).find("Product  6"), std::string::npos);
  const std::string e = render_explain(r);
  EXPECT_NE(e.find("= a × b"), std::string::npos);
  EXPECT_NE(e.find("= 2 × 3"), std::string::npos);
}

TEST(FormatTest, Numbers) {
  EXPECT_EQ(group_digits(19509805056), "19,509,805,056");
  EXPECT_EQ(group_digits(-1234), "-1,234");
  EXPECT_EQ(group_digits(INT64_MIN), "-9,223,372,036,854,775,808");
  // Commas every three digits from the right, none at the ends: (n - 1) / 3 of them.
  EXPECT_EQ(group_digits(0), "0");
  EXPECT_EQ(group_digits(999), "999");
  EXPECT_EQ(group_digits(1000), "1,000");
  EXPECT_EQ(group_digits(-100000), "-100,000");
  EXPECT_EQ(group_digits(INT64_MAX), "9,223,372,036,854,775,807");
  EXPECT_EQ(fmt_sig(3.8590e14), "3.859e14");
  EXPECT_EQ(fmt_sig(135.8322), "135.8");
  EXPECT_EQ(fmt_sig(0.99967), "0.9997");
  // The exponent form: "{:.3e}" then trailing zeros, '+' and exponent zeros go.
  EXPECT_EQ(fmt_sig(1.5e7), "1.5e7");      // 1.500e+07
  EXPECT_EQ(fmt_sig(2.5e-5), "2.5e-5");    // 2.500e-05
  EXPECT_EQ(fmt_sig(-0.00123456), "-0.001235");  // 4 significant: 6 decimals below 1
  EXPECT_EQ(fmt_fixed(1234567.891, 1), "1,234,567.9");
  EXPECT_EQ(fmt_si(39019610112.0, "B"), "39.02 GB");
}

// The line form: one rule per unit (report.h's table), by hand.
TEST(FormatTest, LineFormOneRulePerUnit) {
  EXPECT_EQ(format_quantity(70.55e9, Unit::kParams), "70.55 G params");  // 4 significant digits, SI
  EXPECT_EQ(format_quantity(39019610112.0, Unit::kBytes), "39.02 GB");   // 3.9019...e10 B
  EXPECT_EQ(format_quantity(2.548e8, Unit::kBytes), "254.8 MB");
  EXPECT_EQ(format_quantity(1.401e11, Unit::kFlop), "1.401e11 FLOP");
  EXPECT_EQ(format_quantity(1307.4e12, Unit::kFlopPerS), "1307.4 TFLOP/s");  // always TFLOP/s, 5 digits
  EXPECT_EQ(format_quantity(3.35e12, Unit::kBytesPerS), "3.35 TB/s");
  EXPECT_EQ(format_quantity(203.84, Unit::kTokensPerS), "203.8 tokens/s");
  EXPECT_EQ(format_quantity(0.785, Unit::kFraction), "78.5 %");
  EXPECT_EQ(format_quantity(1.9617, Unit::kFactor), "×1.962");
  EXPECT_EQ(format_quantity(1.125, Unit::kUsd), "$1.125");
  EXPECT_EQ(format_quantity(1698335.4, Unit::kUsd), "$1,698,335");  // whole dollars, grouped, from $10,000
  EXPECT_EQ(format_quantity(0.004906, Unit::kSeconds), "4.906 ms");  // ms below 0.1 s
  EXPECT_EQ(format_quantity(0.25, Unit::kSeconds), "0.25 s");
}

// The brief form, in sentences and cells: one rule per unit, by hand.
TEST(FormatTest, BriefFormOneRulePerUnit) {
  EXPECT_EQ(format_brief(70e9, Unit::kParams), "70B");     // 7e10 / 1e9, as --params takes it
  EXPECT_EQ(format_brief(1.4e12, Unit::kTokens), "1.4T");  // 1.4e12 / 1e12
  EXPECT_EQ(format_brief(8.03e9, Unit::kParams), "8.03B");
  EXPECT_EQ(format_brief(512, Unit::kTokens), "512");        // below 1K: the number
  EXPECT_EQ(format_brief(2.548e8, Unit::kBytes), "255 MB");  // 3 significant digits: 254.8 -> 255
  EXPECT_EQ(format_brief(4.0e10, Unit::kBytes), "40 GB");
  EXPECT_EQ(format_brief(38.46, Unit::kTokensPerS), "38.5 tokens/s");    // 1 decimal below 100
  EXPECT_EQ(format_brief(2126.4, Unit::kTokensPerS), "2,126 tokens/s");  // whole from 100
  EXPECT_EQ(format_brief(0.786, Unit::kFraction), "79 %");               // 2 significant digits: 78.6 -> 79
  EXPECT_EQ(format_brief(0.0376, Unit::kFraction), "3.8 %");
  EXPECT_EQ(format_brief(1.2849, Unit::kFactor), "1.28×");
  EXPECT_EQ(format_brief(612.4, Unit::kUsd), "$612");     // whole dollars from $100
  EXPECT_EQ(format_brief(3.1684, Unit::kUsd), "$3.17");   // cents from $1
  EXPECT_EQ(format_brief(0.6123, Unit::kUsd), "$0.612");  // 3 significant digits below $1
  EXPECT_EQ(format_brief(1.25, Unit::kSeconds), "1.25 s");
  EXPECT_EQ(format_brief(0.0605, Unit::kSeconds), "60.5 ms");
  EXPECT_EQ(format_brief(0.25, Unit::kSeconds), "250 ms");
  EXPECT_EQ(format_brief(18e-6, Unit::kSeconds), "18 µs");
  EXPECT_EQ(format_brief(std::numeric_limits<double>::infinity(), Unit::kUsd), "inf");
  EXPECT_EQ(format_brief(295.2, Unit::kFlopPerByte), format_quantity(295.2, Unit::kFlopPerByte));  // no brief rule
}

}  // namespace
}  // namespace modelcalc
