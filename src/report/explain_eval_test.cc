#include "explain_eval.h"

#include <gtest/gtest.h>

namespace modelcalc {
namespace {

Interval Eval(std::string_view s) {
  auto r = eval_substitution(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.status().message());
  return r.ok() ? *r : Interval{};
}

TEST(ExplainEvalTest, GroupedIntegersAreExact) {
  // 2 × 27 × 576 × 2 × 8192 = 509,607,936.
  const Interval v = Eval("2 × 27 × 576 × 2 B × 8,192");
  EXPECT_EQ(v.lo, 509'607'936.0);
  EXPECT_EQ(v.hi, 509'607'936.0);
  EXPECT_EQ(Eval("1,234,567 - 7").lo, 1'234'560.0);
}

TEST(ExplainEvalTest, UnitsScaleAndRoundedNumbersAreIntervals) {
  // 3.35 TB/s stands for [3.345e12, 3.355e12]; 31.67 GB for [31.665e9, 31.675e9].
  const Interval v = Eval("3.35 TB/s / 31.67 GB");
  EXPECT_NEAR(v.lo, 3.345e12 / 31.675e9, 1e-9);
  EXPECT_NEAR(v.hi, 3.355e12 / 31.665e9, 1e-9);
  EXPECT_NEAR(Eval("12 ms").lo, 0.0115, 1e-12);  // 12 ms: [11.5, 12.5] ms
  EXPECT_DOUBLE_EQ(Eval("10 %").lo, 0.1);
  EXPECT_DOUBLE_EQ(Eval("$2 × 3").lo, 6.0);
  EXPECT_DOUBLE_EQ(Eval("6 × 70B × 2T").lo, 6 * 69.5e9 * 1.5e12);  // attached suffixes are counts
  EXPECT_DOUBLE_EQ(Eval("1e6").lo, 1e6);              // a constant
  EXPECT_DOUBLE_EQ(Eval("3.9e14").lo, 3.85e14);        // a rounded real
}

TEST(ExplainEvalTest, OperatorsAndFunctions) {
  EXPECT_DOUBLE_EQ(Eval("2 x 3 · 4").lo, 24.0);
  EXPECT_DOUBLE_EQ(Eval("(1 + 2) × 3 − 4").lo, 5.0);
  EXPECT_DOUBLE_EQ(Eval("2^10").lo, 1024.0);
  EXPECT_DOUBLE_EQ(Eval("3²").lo, 9.0);
  EXPECT_DOUBLE_EQ(Eval("floor(7 / 2)").lo, 3.0);
  EXPECT_DOUBLE_EQ(Eval("ceil(7 / 2)").lo, 4.0);
  EXPECT_DOUBLE_EQ(Eval("min(4, 9, 2)").hi, 2.0);
  EXPECT_DOUBLE_EQ(Eval("max(1,234, 5)").lo, 1234.0);  // a grouping comma, then an argument comma
  EXPECT_DOUBLE_EQ(Eval("sqrt(16)").lo, 4.0);
  EXPECT_DOUBLE_EQ(Eval("1 < 2").lo, 1.0);
  EXPECT_DOUBLE_EQ(Eval("3 ≤ 2").hi, 0.0);
}

TEST(ExplainEvalTest, UnsubstitutedSymbolsAndJunkAreErrors) {
  EXPECT_FALSE(eval_substitution("2 × L").ok());
  EXPECT_FALSE(eval_substitution("Σ_layers 3").ok());
  EXPECT_FALSE(eval_substitution("(2 + 3").ok());
  EXPECT_FALSE(eval_substitution("").ok());
}

TEST(ExplainEvalTest, ShownValues) {
  auto v = parse_shown("39,019,610,112 B (39.02 GB)");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->lo, 39'019'610'111.5);  // shown values are rounded to their last digit
  v = parse_shown("254.8 MB");
  ASSERT_TRUE(v.ok());
  EXPECT_NEAR(v->lo, 254.75e6, 1e-3);
  EXPECT_NEAR(v->hi, 254.85e6, 1e-3);
  v = parse_shown("18.9 %");
  ASSERT_TRUE(v.ok());
  EXPECT_NEAR(v->lo, 0.1885, 1e-12);
  v = parse_shown("×1.25");
  ASSERT_TRUE(v.ok());
  EXPECT_NEAR(v->hi, 1.255, 1e-12);
  EXPECT_EQ(parse_shown("yes")->lo, 1.0);
  EXPECT_FALSE(parse_shown("never").ok());
  // The drifted DeepSeek-V2-Lite line: its substitution gives 2.718 GB, not 254.8 MB.
  EXPECT_FALSE(Eval("2 × 27 × 3,072 × 2 B × 8,192").overlaps(*parse_shown("254.8 MB")));
  EXPECT_TRUE(Eval("27 × 576 × 2 B × 8,192").overlaps(*parse_shown("254.8 MB")));
}

}  // namespace
}  // namespace modelcalc
