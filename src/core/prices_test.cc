#include "modelcalc/prices.h"
#include "catalog_parsers.h"

#include <gtest/gtest.h>

#include <cstring>

#include "modelcalc/gpu.h"

namespace modelcalc {
namespace {

constexpr const char* kHeader = "gpu\tusd_per_gpu_hour\tprovider\tdate\tconfirmed\tsource\tnotes\n";

std::string one_row(const std::string& row) { return std::string("# comment\n") + kHeader + row + "\n"; }

TEST(PricesTest, CompiledInListIsValidAndCited) {
  auto prices = price_catalog();
  ASSERT_GE(prices.size(), 5u);
  for (const GpuPrice& p : prices) {
    EXPECT_TRUE(find_gpu(p.gpu).ok()) << p.gpu;
    EXPECT_GT(p.usd_per_hour, 0) << p.gpu;
    EXPECT_FALSE(p.source.empty()) << p.gpu;
    if (!p.confirmed) {
      EXPECT_FALSE(p.notes.empty()) << p.gpu;
    }
  }
  ASSERT_NE(find_price("h100-sxm"), nullptr);
  // Runpod H100 active worker $0.00093/s x 3600 s/h = $3.348/h.
  EXPECT_DOUBLE_EQ(find_price("h100-sxm")->usd_per_hour, 3.348);
  EXPECT_EQ(find_price("no-such-gpu"), nullptr);
}

TEST(PricesTest, ParsesARow) {
  auto r = parse_price_catalog(one_row("h100-sxm\t2.49\tLambda\t2026-05-07\tno\tsome page\trecalled"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].gpu, "h100-sxm");
  EXPECT_DOUBLE_EQ((*r)[0].usd_per_hour, 2.49);
  EXPECT_EQ((*r)[0].provider, "Lambda");
  EXPECT_FALSE((*r)[0].confirmed);
}

TEST(PricesTest, StrictRows) {
  const char* bad_rows[] = {
      "h100\t2.49\tLambda\t2026-05-07\tyes\tsrc\t",           // alias, not a key
      "nope\t2.49\tLambda\t2026-05-07\tyes\tsrc\t",           // unknown GPU
      "h100-sxm\t0\tLambda\t2026-05-07\tyes\tsrc\t",          // zero price
      "h100-sxm\t-2\tLambda\t2026-05-07\tyes\tsrc\t",         // negative
      "h100-sxm\t1e3\tLambda\t2026-05-07\tyes\tsrc\t",        // not a plain decimal
      "h100-sxm\t1000.5\tLambda\t2026-05-07\tyes\tsrc\t",     // above the bound
      "h100-sxm\t2.49\t\t2026-05-07\tyes\tsrc\t",             // no provider
      "h100-sxm\t2.49\tLambda\t2026-13-07\tyes\tsrc\t",       // bad month
      "h100-sxm\t2.49\tLambda\t07/05/2026\tyes\tsrc\t",       // bad date format
      "h100-sxm\t2.49\tLambda\t2026-05-07\tmaybe\tsrc\t",     // confirmed not yes/no
      "h100-sxm\t2.49\tLambda\t2026-05-07\tyes\t\t",          // no source
      "h100-sxm\t2.49\tLambda\t2026-05-07\tno\tsrc\t",        // unconfirmed without notes
      "h100-sxm\t2.49\tLambda\t2026-05-07\tyes\tsrc",         // missing column
  };
  for (const char* row : bad_rows) EXPECT_FALSE(parse_price_catalog(one_row(row)).ok()) << row;
  EXPECT_FALSE(parse_price_catalog(one_row("h100-sxm\t2.49\tA\t2026-05-07\tyes\ts\t\nh100-sxm\t2.5\tB\t2026-05-07\tyes\ts\t")).ok());
  EXPECT_FALSE(parse_price_catalog("gpu\tprice\n").ok());  // wrong header
  EXPECT_FALSE(parse_price_catalog("").ok());
}

TEST(PricesTest, Overrides) {
  auto r = parse_price_overrides("h100=2.49, mi300x=1.5", "--price");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].gpu, "h100-sxm");  // alias resolved to the key
  EXPECT_DOUBLE_EQ((*r)[0].usd_per_hour, 2.49);
  EXPECT_EQ((*r)[1].gpu, "mi300x");
  for (const char* bad : {"h100", "h100=", "=2", "h100=abc", "h100=0", "nogpu=2", "h100=2,h100-sxm=3", "h100=-1"}) {
    auto b = parse_price_overrides(bad, "--price");
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.status().message().rfind("--price: ", 0), 0u) << b.status().message();
  }
}

// Line numbers count every line of the file (comments, blank lines), CRLF ends read as '\n' (src/core/tsv.h):
// line 1 the comment, 2 the header, 3 blank, 4 a row of 2 columns.
TEST(PricesTest, ErrorsNameTheEditorsLineAndCrlfIsALineEnd) {
  const std::string header(kHeader, std::strlen(kHeader) - 1);  // without its '\n'
  auto bad = parse_price_catalog("# c\r\n" + header + "\r\n\r\nh100-sxm\t2.49\r\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "prices.tsv line 4: has 2 columns, expected 7");
  auto ok = parse_price_catalog("# c\r\n" + header + "\r\nh100-sxm\t2.49\tLambda\t2026-05-07\tno\tsome page\trecalled\r\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].notes, "recalled");  // the last field without the '\r'
}

}  // namespace
}  // namespace modelcalc
