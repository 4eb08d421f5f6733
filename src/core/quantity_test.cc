#include "quantity.h"

#include <gtest/gtest.h>

namespace modelcalc {
namespace {

TEST(QuantityTest, Counts) {
  EXPECT_EQ(parse_count("64000", "--vocab").value(), 64000);
  EXPECT_EQ(parse_count("64K", "--vocab").value(), 64000);
  EXPECT_EQ(parse_count("7B", "--params").value(), 7'000'000'000);
  EXPECT_EQ(parse_count("9007199254740993", "--x").value(), 9'007'199'254'740'993);  // 2^53 + 1, exact
  EXPECT_DOUBLE_EQ(parse_real_count("1.5T", "--tokens").value(), 1.5e12);
  EXPECT_DOUBLE_EQ(parse_real_count("5.76e23", "--compute").value(), 5.76e23);
  EXPECT_FALSE(parse_count("1.5", "--seq").ok());
  EXPECT_FALSE(parse_count("0", "--seq").ok());
  EXPECT_FALSE(parse_count("-3", "--seq").ok());
  EXPECT_FALSE(parse_count("12Q", "--seq").ok());
  EXPECT_FALSE(parse_count("", "--seq").ok());
  EXPECT_EQ(parse_count("99999999999999999999", "--x").status().code(), Status::Code::kOverflow);
}

TEST(QuantityTest, HardwareUnitsAreDecimal) {
  EXPECT_DOUBLE_EQ(parse_bytes("80GB", "--capacity").value(), 80e9);
  EXPECT_DOUBLE_EQ(parse_bytes("192 GB", "--capacity").value(), 192e9);
  EXPECT_DOUBLE_EQ(parse_bytes("24GiB", "--capacity").value(), 24.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_bandwidth("3.35TB/s", "--bandwidth").value(), 3.35e12);
  EXPECT_DOUBLE_EQ(parse_bandwidth("900 GB/s", "--bandwidth").value(), 900e9);
  EXPECT_DOUBLE_EQ(parse_flops("989.4TFLOPS", "--peak").value(), 989.4e12);
  EXPECT_DOUBLE_EQ(parse_flops("1.3 PFLOP/s", "--peak").value(), 1.3e15);
}

TEST(QuantityTest, WrongKindOfUnitIsRefusedNamingTheFlag) {
  auto r = parse_bandwidth("3.35TB", "--bandwidth");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--bandwidth"), std::string::npos);
  EXPECT_FALSE(parse_bytes("80GB/s", "--capacity").ok());
  EXPECT_FALSE(parse_flops("989GB/s", "--peak").ok());
  EXPECT_FALSE(parse_bytes("-1GB", "--capacity").ok());
  EXPECT_FALSE(parse_real("0.1x", "--reserve").ok());
}

TEST(QuantityTest, FractionTakesDecimalsAndPercentagesAlike) {
  EXPECT_DOUBLE_EQ(parse_fraction("0.1", "--reserve").value(), 0.1);
  EXPECT_DOUBLE_EQ(parse_fraction("10%", "--reserve").value(), 0.1);  // 10 / 100
  EXPECT_DOUBLE_EQ(parse_fraction("0", "--reserve").value(), 0.0);
  EXPECT_DOUBLE_EQ(parse_fraction("100%", "--reserve").value(), 1.0);
  for (const char* bad : {"", "%", "1.5", "150%", "-0.1", "-5%", "ten", "0.1x", "nan", "inf"}) {
    auto r = parse_fraction(bad, "--reserve");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("--reserve: ", 0), 0u) << r.status().message();
  }
}

}  // namespace
}  // namespace modelcalc
