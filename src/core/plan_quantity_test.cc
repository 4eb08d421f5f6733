#include "plan_quantity.h"

#include <gtest/gtest.h>

namespace modelcalc {
namespace {

TEST(PlanQuantityTest, DurationsNeedAUnit) {
  EXPECT_DOUBLE_EQ(parse_duration("1s", "--ttft").value(), 1.0);
  EXPECT_DOUBLE_EQ(parse_duration("1.5 s", "--ttft").value(), 1.5);
  EXPECT_DOUBLE_EQ(parse_duration("50ms", "--tpot").value(), 0.05);
  EXPECT_DOUBLE_EQ(parse_duration("200us", "--tpot").value(), 200e-6);
  EXPECT_DOUBLE_EQ(parse_duration("200\xc2\xb5s", "--tpot").value(), 200e-6);
  EXPECT_DOUBLE_EQ(parse_duration("2min", "--ttft").value(), 120.0);
  for (const char* bad : {"50", "0ms", "-5ms", "5GB", "1 h", "", "ms", "inf s", "nan s", "2days", "+1s"}) {
    auto r = parse_duration(bad, "--tpot");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("--tpot: ", 0), 0u) << r.status().message();
  }
  EXPECT_FALSE(parse_duration("86401s", "--ttft").ok());  // one day is the bound
  EXPECT_TRUE(parse_duration("86400s", "--ttft").ok());
}

TEST(PlanQuantityTest, WrongUnitSaysWhatIsAllowed) {
  auto r = parse_duration("5GB", "--ttft");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("50ms"), std::string::npos) << r.status().message();
}

TEST(PlanQuantityTest, Rates) {
  EXPECT_DOUBLE_EQ(parse_rate("20", "--qps", {"req"}).value(), 20.0);
  EXPECT_DOUBLE_EQ(parse_rate("20/s", "--qps", {"req"}).value(), 20.0);
  EXPECT_DOUBLE_EQ(parse_rate("1.5K", "--rate", {"tokens"}).value(), 1500.0);
  EXPECT_DOUBLE_EQ(parse_rate("50K tokens/s", "--rate", {"tok", "tokens"}).value(), 50000.0);
  EXPECT_DOUBLE_EQ(parse_rate("2M", "--rate", {"tokens"}).value(), 2e6);
  EXPECT_DOUBLE_EQ(parse_rate("0.5 req/s", "--qps", {"req"}).value(), 0.5);
  for (const char* bad : {"0", "-3", "5GB", "5ms", "20 tokens/s", "1e13", "x", ""}) {
    auto r = parse_rate(bad, "--qps", {"req"});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("--qps: ", 0), 0u);
  }
}

TEST(PlanQuantityTest, Lists) {
  auto l = split_comma_list("h100, h200,mi300x", "--gpu").value();
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], "h100");
  EXPECT_EQ(l[1], "h200");
  EXPECT_EQ(l[2], "mi300x");
  EXPECT_EQ(split_comma_list("bf16", "--dtype").value().size(), 1u);
  EXPECT_FALSE(split_comma_list("", "--gpu").ok());
  EXPECT_FALSE(split_comma_list("h100,,h200", "--gpu").ok());
  EXPECT_FALSE(split_comma_list("h100,", "--gpu").ok());
  auto dup = split_comma_list("bf16,bf16", "--dtype");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("twice"), std::string::npos);
}

}  // namespace
}  // namespace modelcalc
