#include "report.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace modelcalc
