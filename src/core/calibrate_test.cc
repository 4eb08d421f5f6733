#include "modelcalc/calibrate.h"

#include <gtest/gtest.h>

namespace modelcalc {
namespace {

TEST(CalibrateTest, EveryRowIsSourcedAndTheEvaluatedOnesStayUnderTheCeiling) {
  const auto rows = calibrate();
  ASSERT_EQ(rows.size(), 14u);  // the reference file's rows
  int evaluated = 0;
  for (const CalibrationRow& c : rows) {
    EXPECT_FALSE(c.row->source.empty());
    if (!c.evaluated) {
      EXPECT_FALSE(c.explanation.empty());
      continue;
    }
    ++evaluated;
    EXPECT_GT(c.ceiling, 0);
    // No measured figure may exceed its modelled ceiling.
    EXPECT_LE(c.ratio, 1.0) << c.row->model << " on " << c.row->gpu << ": " << c.explanation;
  }
  EXPECT_GE(evaluated, 6);
}

TEST(CalibrateTest, StrictParse) {
  EXPECT_FALSE(parse_measured("").ok());
  EXPECT_FALSE(parse_measured("a\tb\n").ok());
}

}  // namespace
}  // namespace modelcalc
