// The layout flags on the command line: a flag that would change nothing is
// refused naming it, never dropped silently.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace modelcalc {
namespace {

void expect_refused(const std::vector<std::string>& args, const std::string& prefix) {
  const CliRun r = run_args(args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err.rfind("modelcalc: error: " + prefix, 0), 0u) << r.err;
}

TEST(LayoutFlagsTest, AFlagThatWouldChangeNothingIsRefused) {
  // No EP (8 GPUs of plain TP): the imbalance of EP ranks has nothing to act on.
  expect_refused({"size", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--expert-imbalance", "2"},
                 "--expert-imbalance: needs expert parallelism");
  // A dense model has no routed experts to balance or to overlap the all-to-all of.
  expect_refused({"size", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "2", "--redundant-experts", "8"},
                 "--redundant-experts: applies to routed experts");
  expect_refused({"plan", "--model", "llama-3.1-70b", "--isl", "100", "--osl", "100", "--two-batch-overlap"},
                 "--two-batch-overlap: hides the all-to-all of expert parallelism");
  // Without a whole model diagnose has no deployment for the layout to shape.
  expect_refused({"diagnose", "--phase", "decode", "--tokens-per-s", "100", "--params", "13B", "--gpu", "h100",
                  "--dp-attention"},
                 "--dp-attention: shapes the modeled deployment");
}

TEST(LayoutFlagsTest, RangesAreStatedAsAllowed) {
  expect_refused({"size", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--spec-method", "mtp",
                  "--spec-acceptance", "0.5", "--spec-tokens", "65"},
                 "--spec-tokens: expected a whole number of draft tokens from 1 to 64, got '65'");
  expect_refused({"size", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--prefix-tokens", "-1"},
                 "--prefix-tokens: expected a whole number of tokens from 0 to 2^30, got '-1'");
}

// A concurrency of C never fills a decode replica beyond C sequences: every decode pool of the
// disaggregated plan runs at most C (here 1,024, with batches up to 2,048 searched).
TEST(LayoutFlagsTest, DisaggregatedDecodeBatchesStayWithinTheConcurrency) {
  const CliRun r = run_args({"plan", "--model", "deepseek-v3", "--gpu", "h200", "--isl", "2000", "--osl", "200",
                             "--concurrency", "1024", "--tpot", "50ms", "--ttft", "2s", "--disaggregated",
                             "--batch", "256,512,1024,2048", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = r.json();
  ASSERT_FALSE(j["configs"].empty());
  for (const auto& c : j["configs"]) EXPECT_LE(c["decode_pool"]["batch"].get<int64_t>(), 1024) << c.dump();
}

// plan states the layout options it applied to every candidate, in its JSON and its header.
TEST(LayoutFlagsTest, PlanStatesTheLayoutOptionsItApplied) {
  const std::vector<std::string> base = {"plan", "--model", "deepseek-v3", "--gpu", "h200", "--isl", "2000", "--osl",
                                         "200", "--qps", "5", "--spec-method", "mtp", "--spec-tokens", "1",
                                         "--spec-acceptance", "0.8", "--prefix-hit", "0.5"};
  std::vector<std::string> json = base;
  json.push_back("--json");
  const CliRun r = run_args(json);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json o = r.json()["layout_options"];
  EXPECT_EQ(o["spec"]["method"], "mtp");
  EXPECT_EQ(o["spec"]["tokens"], 1);
  EXPECT_DOUBLE_EQ(o["spec"]["acceptance"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(o["prefix"]["hit"].get<double>(), 0.5);
  const CliRun t = run_args(base);
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("layout options: speculative decoding mtp K 1 A 0.8, prefix hit 0.5"), std::string::npos)
      << t.out;
}

// One engine, one answer: a sweep row under --dp-attention with a drafter is size's decode step for the same
// flags (the batch-varying all-to-all included, at the second batch of the list).
TEST(LayoutFlagsTest, SweepRowsAreSizesUnderDpAttention) {
  const std::vector<std::string> layout = {"--model", "deepseek-v3", "--gpu", "h200", "--gpus", "16", "--dp-attention",
                                           "--spec-method", "mtp", "--spec-tokens", "1", "--spec-acceptance", "0.8"};
  std::vector<std::string> sweep = {"sweep", "--batch", "64,512", "--format", "json", "--fields",
                                    "batch,layout,ep,tokens_per_s_aggregate,a2a_s,accepted_tokens_per_step"};
  sweep.insert(sweep.end(), layout.begin(), layout.end());
  const CliRun w = run_args(sweep);
  ASSERT_EQ(w.status, 0) << w.err;
  const nlohmann::json rows = w.json();
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    std::vector<std::string> size = {"size", "--batch", std::to_string(row["batch"].get<int64_t>()), "--json"};
    size.insert(size.end(), layout.begin(), layout.end());
    const CliRun z = run_args(size);
    ASSERT_EQ(z.status, 0) << z.err;
    const nlohmann::json j = z.json();
    EXPECT_EQ(row["layout"], j["deployment"]["layout"]);
    EXPECT_EQ(row["ep"], j["deployment"]["ep"]);
    EXPECT_DOUBLE_EQ(row["tokens_per_s_aggregate"].get<double>(),
                     j["decode_step"]["tokens_per_s_aggregate"].get<double>());
    EXPECT_DOUBLE_EQ(row["a2a_s"].get<double>(), j["decode_step"]["a2a_seconds"].get<double>());
    EXPECT_DOUBLE_EQ(row["accepted_tokens_per_step"].get<double>(),
                     j["decode_step"]["accepted_tokens_per_step"].get<double>());
  }
  // 1 + 0.8 tokens per step for one draft token (i.i.d. acceptance).
  EXPECT_DOUBLE_EQ(rows[0]["accepted_tokens_per_step"].get<double>(), 1.8);
}

}  // namespace
}  // namespace modelcalc
