#include <gtest/gtest.h>

#include "test_util.h"

namespace modelcalc {
namespace {

const std::vector<std::string> kBase = {"train-plan", "--model", "llama-3.1-8b", "--tokens", "15T", "--days", "30"};

std::vector<std::string> with(std::initializer_list<std::string> extra) {
  std::vector<std::string> a = kBase;
  a.insert(a.end(), extra);
  return a;
}

TEST(CmdTrainPlanTest, JsonOfTheCheapestAndTheRanking) {
  const CliRun r = run_args(with({"--gpu", "h100,mi300x", "--price", "h100=2,mi300x=2", "--json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  // Llama 3.1 8B: N = 8,030,261,248, dense, so 6 N D = 6 x 8,030,261,248 x 15e12 = 7.2272e23 FLOP.
  EXPECT_EQ(j["params"], 8'030'261'248);
  EXPECT_DOUBLE_EQ(j["model_flops"].get<double>(), 6.0 * 8'030'261'248 * 15e12);
  // At the same price the faster GPU wins: MI300X 1307.4 TFLOP/s against H100's 989.4 (dense bf16):
  // 7.2272e23 / (1307.4e12 x 0.4) / 3600 = 383,885 GPU-hours; ceil(383,885 / 720) = 534 GPUs.
  ASSERT_EQ(j["ranked"].size(), 2u);
  EXPECT_EQ(j["ranked"][0]["gpu"], "mi300x");
  EXPECT_EQ(j["ranked"][1]["gpu"], "h100-sxm");
  EXPECT_EQ(j["ranked"][0]["gpus"], 534);
  EXPECT_NEAR(j["ranked"][0]["gpu_hours"].get<double>(), 6.0 * 8'030'261'248 * 15e12 / (1307.4e12 * 0.4) / 3600,
              1e-6);
  EXPECT_DOUBLE_EQ(j["ranked"][0]["usd"].get<double>(), j["ranked"][0]["gpu_hours"].get<double>() * 2);
  EXPECT_EQ(j["best"]["gpus"], 534);  // the section of the cheapest is the ranking's first
  EXPECT_EQ(j["best"]["gpu_name"], "AMD Instinct MI300X");
  EXPECT_TRUE(j["misses"].empty());
}

// One engine: train-plan's GPU-hours and days are `train`'s for the same N, D, GPU, count and MFU.
TEST(CmdTrainPlanTest, TimeAgreesWithTheTrainCommand) {
  const CliRun p = run_args(with({"--gpu", "h100", "--json"}));
  ASSERT_EQ(p.status, 0) << p.err;
  const auto best = p.json()["ranked"][0];
  const CliRun t = run_args({"train", "--params", "8030261248", "--tokens", "15T", "--gpu", "h100", "--gpus",
                             std::to_string(best["gpus"].get<int64_t>()), "--mfu", "0.4", "--json"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_DOUBLE_EQ(t.json()["gpu_hours"].get<double>(), best["gpu_hours"].get<double>());
  EXPECT_DOUBLE_EQ(t.json()["days"].get<double>(), best["days"].get<double>());
}

TEST(CmdTrainPlanTest, AMissSaysWhy) {
  // The deadline needs 534 MI300X (above): allow 500.
  const CliRun r = run_args(with({"--gpu", "mi300x", "--max-gpus", "500"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("the deadline needs 534 GPUs, more than --max-gpus 500"), std::string::npos) << r.out;
}

TEST(CmdTrainPlanTest, BadInputNamesTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"train-plan", "--model", "llama-3.1-8b", "--tokens", "15T"}, "--days"},
      {with({"--mfu", "0"}), "--mfu"},
      {with({"--mfu", "120%"}), "--mfu"},
      {with({"--gpu", "h1000"}), "--gpu"},
      {with({"--gpu", "h100", "--price", "a100=2"}), "--price"},
      {with({"--max-gpus", "0"}), "--max-gpus"},
      {with({"--max-gpus", "2000000"}), "--max-gpus"},
      {with({"--optimizer", "lion"}), "--optimizer"},
      {with({"--days", "0"}), "--days"},
      {with({"--seq", "0"}), "--seq"},
  };
  for (const auto& [args, flag] : cases) {
    const CliRun r = run_args(args);
    EXPECT_EQ(r.status, 2) << flag;
    EXPECT_TRUE(r.out.empty()) << flag;
    EXPECT_NE(r.err.find(flag), std::string::npos) << flag << ": " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
  }
}

}  // namespace
}  // namespace modelcalc
