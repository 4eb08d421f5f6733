// write_shortest must give fmt's "{}" bytes for every finite double: the
// sweep's CSV writer uses it in place of fmt (issue #14), and its output must
// stay the bytes the table printer (fmt::format("{}", v)) gives. The expected
// text is fmt's own, computed here for each value.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <random>
#include <string>

#include "format.h"

namespace modelcalc {
namespace {

std::string shortest(double v) {
  char buf[48];
  return std::string(buf, write_shortest(buf, v));
}

TEST(WriteShortestTest, HandPickedValues) {
  // Each layout of fmt 9's "{}", written out by hand.
  EXPECT_EQ(shortest(0.0), "0");
  EXPECT_EQ(shortest(-0.0), "-0");
  EXPECT_EQ(shortest(1.0), "1");
  EXPECT_EQ(shortest(100.0), "100");
  EXPECT_EQ(shortest(12.34), "12.34");
  EXPECT_EQ(shortest(-0.5), "-0.5");
  EXPECT_EQ(shortest(0.0001), "0.0001");        // decimal exponent -4: still fixed
  EXPECT_EQ(shortest(0.00012), "0.00012");
  EXPECT_EQ(shortest(0.00001), "1e-05");        // -5: exponent form, two digits at least
  EXPECT_EQ(shortest(1.5e-7), "1.5e-07");
  EXPECT_EQ(shortest(1e15), "1000000000000000");  // exponent 15: fixed
  EXPECT_EQ(shortest(1e16), "1e+16");           // 16: exponent form
  EXPECT_EQ(shortest(1.25e17), "1.25e+17");
  EXPECT_EQ(shortest(1e100), "1e+100");
  EXPECT_EQ(shortest(5e-324), "5e-324");        // the smallest subnormal
  EXPECT_EQ(shortest(DBL_MAX), "1.7976931348623157e+308");
  EXPECT_EQ(shortest(0.1 + 0.2), "0.30000000000000004");
}

// Every power of ten in range and its neighbours (the layout boundaries), and
// two million random finite bit patterns and values of a sweep's magnitudes.
TEST(WriteShortestTest, EqualsFmtOnManyDoubles) {
  int64_t checked = 0, failures = 0;
  auto check = [&](double v) {
    if (!std::isfinite(v)) return;
    ++checked;
    const std::string want = fmt::format("{}", v);
    if (shortest(v) != want && ++failures <= 10) ADD_FAILURE() << want << " written as " << shortest(v);
  };
  for (int e = -324; e <= 308; ++e) {
    const double p = std::pow(10.0, e);
    for (double v : {p, std::nextafter(p, 0.0), std::nextafter(p, INFINITY), 9.5 * p, 1.5 * p}) {
      check(v);
      check(-v);
    }
  }
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> mag(-6, 20);
  for (int i = 0; i < 1'000'000; ++i) {
    check(std::bit_cast<double>(rng()));
    check(std::pow(10.0, mag(rng)));
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(checked, 2'000'000);
}

// write_shortest makes a significand's digits in blocks of 8, then the rest
// in pairs: every length from 1 to 17 digits, with digit patterns that have
// inner zeros and zeros at a block's edges,
// at exponents around each layout's boundaries. A k-digit integer m below
// 10^15 divided by 10^j round-trips with m's digits, so each length occurs.
TEST(WriteShortestTest, EqualsFmtAtEverySignificandLength) {
  int64_t failures = 0;
  auto check = [&](double v) {
    const std::string want = fmt::format("{}", v);
    if (shortest(v) != want && ++failures <= 10) ADD_FAILURE() << want << " written as " << shortest(v);
  };
  check(0.0);
  check(-0.0);
  std::mt19937_64 rng(1714);
  for (int k = 1; k <= 17; ++k) {
    const auto lo = static_cast<uint64_t>(std::pow(10.0, k - 1)), span = 9 * lo;
    for (int i = 0; i < 200; ++i) {
      uint64_t m = lo + rng() % span;
      if (i % 4 == 1) m = lo + 1;                    // 10...01: zeros inside, across a block edge
      if (i % 4 == 2) m = lo * 9;                    // 90...0: one digit once its zeros are dropped
      for (int j : {0, 1, 3, 4, 5, 8, 9, 12, 16, 17, 20}) {
        const double v = static_cast<double>(m) / std::pow(10.0, j);
        check(v);
        check(-v);
        check(static_cast<double>(m) * std::pow(10.0, j));
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace modelcalc
