#include "quantity.h"

#include <gtest/gtest.h>

namespace modelcalc {
namespace {

TEST(QuantityTest, Counts) {
  EXPECT_EQ(parse_count("64000", "--vocab").value(), 64000);
  EXPECT_EQ(parse_count("64K", "--vocab").value(), 64000);
  EXPECT_EQ(parse_count("7B", "--params").value(), 7'000'000'000);
  EXPECT_EQ(parse_count("1000000000000000", "--x").value(), 1'000'000'000'000'000);  // 1e15, the largest
  EXPECT_DOUBLE_EQ(parse_real_count("1.5T", "--tokens").value(), 1.5e12);
  EXPECT_DOUBLE_EQ(parse_real_count("5.76e23", "--compute").value(), 5.76e23);
  EXPECT_FALSE(parse_count("1.5", "--seq").ok());
  EXPECT_FALSE(parse_count("0", "--seq").ok());
  EXPECT_FALSE(parse_count("-3", "--seq").ok());
  EXPECT_FALSE(parse_count("12Q", "--seq").ok());
  EXPECT_FALSE(parse_count("", "--seq").ok());
  EXPECT_FALSE(parse_count("99999999999999999999", "--x").ok());
}

TEST(QuantityTest, BinarySuffixesForCountsDecimalOtherwise) {
  EXPECT_EQ(parse_count("8Ki", "--seq").value(), 8192);           // 8 x 2^10
  EXPECT_EQ(parse_count("8K", "--seq").value(), 8000);            // K stays 1e3
  EXPECT_EQ(parse_count("1Mi", "--seq").value(), 1'048'576);      // 2^20
  EXPECT_EQ(parse_count("2Gi", "--x").value(), 2'147'483'648);    // 2 x 2^30
  EXPECT_EQ(parse_count("1Ti", "--x").value(), 1'099'511'627'776);  // 2^40
  EXPECT_EQ(parse_count("0.5Ki", "--seq").value(), 512);
  EXPECT_DOUBLE_EQ(parse_real_count("128Ki", "--tokens").value(), 131072.0);
  EXPECT_FALSE(parse_count("1.0001Ki", "--seq").ok());  // 1024.1024 tokens: not whole
}

TEST(QuantityTest, FractionsAcceptDecimalsAndPercentages) {
  EXPECT_DOUBLE_EQ(parse_fraction("0.1", "--reserve").value(), 0.1);
  EXPECT_DOUBLE_EQ(parse_fraction("10%", "--reserve").value(), 0.1);
  EXPECT_DOUBLE_EQ(parse_fraction(" 78 % ", "--bw-util").value(), 0.78);
  EXPECT_DOUBLE_EQ(parse_fraction("0", "--x").value(), 0.0);
  EXPECT_DOUBLE_EQ(parse_fraction("100%", "--x").value(), 1.0);
  for (const char* bad : {"1.01", "101%", "-0.1", "-5%", "nan", "inf", "1e400", "", "%", "0.1%%", "10 percent"}) {
    auto r = parse_fraction(bad, "--bw-util");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("--bw-util: ", 0), 0u) << r.status().message();
  }
}

// Every parser: NaN, infinities, literals beyond double, and values beyond the
// stated range (docs/robustness.md) are errors naming the flag.
TEST(QuantityTest, NonFiniteAndOutOfRangeValuesAreRefused) {
  using Parser = Result<double> (*)(std::string_view, std::string_view);
  const Parser parsers[] = {parse_real_count, parse_real, parse_fraction, parse_bytes, parse_bandwidth, parse_flops};
  for (Parser p : parsers) {
    for (const char* bad : {"nan", "NaN", "inf", "-inf", "infinity", "1e400", "-1e400", "1e-400", "-1", "0x10"}) {
      auto r = p(bad, "--flag");
      ASSERT_FALSE(r.ok()) << bad;
      EXPECT_EQ(r.status().message().rfind("--flag: ", 0), 0u) << r.status().message();
    }
  }
  for (const char* bad : {"nan", "inf", "1e400", "1e16", "1000000000000001", "1e30K", "1e300T", "9.3e18"}) {
    EXPECT_FALSE(parse_count(bad, "--seq").ok()) << bad;
  }
  // The largest allowed values pass and the next ones up do not.
  EXPECT_DOUBLE_EQ(parse_real_count("1e27", "--tokens").value(), 1e27);
  EXPECT_FALSE(parse_real_count("1.0000001e27", "--tokens").ok());
  EXPECT_FALSE(parse_real_count("1e300T", "--tokens").ok());  // 1e312: was infinite
  EXPECT_DOUBLE_EQ(parse_bytes("1PB", "--capacity").value(), 1e15);
  EXPECT_FALSE(parse_bytes("1.000001PB", "--capacity").ok());
  EXPECT_FALSE(parse_bytes("1e30B", "--capacity").ok());
  EXPECT_FALSE(parse_bytes("1e308EB", "--capacity").ok());  // was infinite
  EXPECT_DOUBLE_EQ(parse_bandwidth("1PB/s", "--bandwidth").value(), 1e15);
  EXPECT_FALSE(parse_bandwidth("1001TB/s", "--bandwidth").ok());
  EXPECT_DOUBLE_EQ(parse_flops("1EFLOPS", "--peak").value(), 1e18);
  EXPECT_FALSE(parse_flops("1e308PFLOPS", "--peak").ok());  // was infinite
  EXPECT_DOUBLE_EQ(parse_real("1e9", "--price-per-hour").value(), 1e9);
  EXPECT_FALSE(parse_real("1000000001", "--price-per-hour").ok());
}

TEST(QuantityTest, EchoedInputIsBounded) {
  const std::string huge(10000, '7');
  auto r = parse_bytes(huge + "QB", "--capacity");
  ASSERT_FALSE(r.ok());
  EXPECT_LT(r.status().message().size(), 200u) << r.status().message();
  EXPECT_EQ(quote_input("abc"), "'abc'");
  EXPECT_EQ(quote_input(std::string(41, 'x')), "'" + std::string(40, 'x') + "...'");
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

// Binary units as drivers and engines print them (nvidia-smi MiB, vLLM GiB),
// exact powers of two: KiB 2^10, MiB 2^20, GiB 2^30, TiB 2^40.
TEST(QuantityTest, BinaryByteUnits) {
  // nvidia-smi on an H100: 81,559 MiB x 1,048,576 = 85,520,809,984 B (exact).
  EXPECT_EQ(parse_bytes("81559MiB", "--capacity").value(), 85'520'809'984.0);
  EXPECT_EQ(parse_bytes("81559 mib", "--capacity").value(), 85'520'809'984.0);
  // vLLM's log: 79.2 GiB = 79.2 x 1,073,741,824 = 85,040,352,460.8 B.
  EXPECT_DOUBLE_EQ(parse_bytes("79.2GiB", "--capacity").value(), 85'040'352'460.8);
  EXPECT_EQ(parse_bytes("1KiB", "--capacity").value(), 1024.0);
  EXPECT_EQ(parse_bytes("0.5 KiB", "--capacity").value(), 512.0);
  EXPECT_EQ(parse_bytes("1TiB", "--capacity").value(), 1'099'511'627'776.0);
  // Decimal beside binary: 80 GB = 80e9, 80 GiB = 85,899,345,920.
  EXPECT_EQ(parse_bytes("80GiB", "--capacity").value(), 85'899'345'920.0);
  // 910 TiB = 1,000,555,581,276,160 B: above the 1e15 B limit, refused naming the flag.
  auto big = parse_bytes("910TiB", "--capacity");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message().rfind("--capacity: must be", 0), 0u) << big.status().message();
  // "MiB/s" is a rate, "Mi" alone is not a byte unit.
  EXPECT_FALSE(parse_bytes("81559MiB/s", "--capacity").ok());
  EXPECT_FALSE(parse_bytes("81559Mi", "--capacity").ok());
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
TEST(QuantityTest, EveryStatusIsOneLine) {
  // Whatever a message echoes: a newline becomes \n, ESC \x1b, a stray byte \xff; UTF-8 stays.
  const Status s = Status::InvalidArgument("--flag", std::string("got 'a\nb\x1b[2J\xff' \xc3\x97 2"));
  EXPECT_EQ(s.message(), "--flag: got 'a\\nb\\x1b[2J\\xff' \xc3\x97 2");
  EXPECT_EQ(Status::NotFound("x\ry").message(), "x\\ry");
  // Escaping is idempotent: an escaped message passes through unchanged.
  EXPECT_EQ(escape_for_terminal(s.message()), s.message());
}

// ---------------------------------------------------------------- plan: durations, rates, lists

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
