// train-plan through the CLI: its JSON keys, the renderer's numbers, exit 1
// when nothing meets the deadline, agreement with `train` on the same
// layout, and bad inputs.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "test_util.h"

namespace modelcalc {
namespace {

using Args = std::vector<std::string>;

const Args kBase = {"train-plan", "--model", "llama-3.1-8b", "--tokens", "2T", "--days", "10", "--gpu", "h100,a100",
                    "--price", "h100=3,a100=1.5"};

Args with(std::initializer_list<std::string> extra) {
  Args a = kBase;
  a.insert(a.end(), extra);
  return a;
}

TEST(TrainPlanCli, LayoutsInJson) {
  const CliRun r = run_args(with({"--json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  ASSERT_FALSE(j["layouts"].empty());
  for (const auto& l : j["layouts"]) {
    for (const char* key : {"gpu", "gpus", "nodes", "tp", "pp", "dp", "ep", "zero", "recompute", "microbatch",
                            "global_batch", "memory_per_gpu", "step_seconds", "step_breakdown", "mfu", "days", "usd"}) {
      EXPECT_TRUE(l.contains(key)) << key;
    }
    EXPECT_EQ(l["gpus"].get<int64_t>(), l["nodes"].get<int64_t>() * 8);  // whole HGX nodes
    EXPECT_EQ(l["gpus"].get<int64_t>(), l["tp"].get<int64_t>() * l["pp"].get<int64_t>() * l["dp"].get<int64_t>());
    double parts = 0;
    for (const auto& [k, v] : l["step_breakdown"].items()) parts += v.get<double>();
    EXPECT_NEAR(parts, l["step_seconds"].get<double>(), 1e-12 * parts);
    EXPECT_LE(l["days"].get<double>(), 10.0);
  }
  EXPECT_GT(j["searched"].get<int64_t>(), 0);
  EXPECT_GE(j["seconds"].get<double>(), 0.0);
}

TEST(TrainPlanCli, DollarsGoThroughTheRenderer) {
  const CliRun r = run_args(kBase);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(std::regex_search(r.out, std::regex(R"(\$[0-9]{5,})"))) << r.out;  // grouped: $154,229
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(Cost +\$[0-9]{1,3},[0-9]{3})"))) << r.out;
}

// One engine: the plan's cheapest layout, given to `train`, takes the same step and days.
TEST(TrainPlanCli, AgreesWithTrainOnTheSameLayout) {
  const CliRun p = run_args(with({"--json"}));
  ASSERT_EQ(p.status, 0) << p.err;
  const auto l = p.json()["layouts"][0];
  const CliRun t = run_args({"train", "--model", "llama-3.1-8b", "--tokens", "2T", "--gpu", l["gpu"], "--tp",
                             std::to_string(l["tp"].get<int64_t>()), "--pp", std::to_string(l["pp"].get<int64_t>()),
                             "--dp", std::to_string(l["dp"].get<int64_t>()), "--micro-batch",
                             std::to_string(l["microbatch"].get<int64_t>()), "--global-batch",
                             std::to_string(l["global_batch"].get<int64_t>()), "--zero",
                             std::to_string(l["zero"].get<int64_t>()), "--recompute", l["recompute"], "--flash",
                             "--sequence-parallel", "--json"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_DOUBLE_EQ(t.json()["engine"]["step_seconds"].get<double>(), l["step_seconds"].get<double>());
  EXPECT_DOUBLE_EQ(t.json()["engine"]["days"].get<double>(), l["days"].get<double>());
  EXPECT_DOUBLE_EQ(t.json()["engine"]["memory_per_gpu"].get<double>(), l["memory_per_gpu"].get<double>());
}

TEST(TrainPlanCli, NothingMeetsTheDeadlineExitsOne) {
  const CliRun r = run_args({"train-plan", "--model", "llama-3.1-8b", "--tokens", "15T", "--days", "1", "--gpu",
                             "h100", "--max-gpus", "64"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("misses the deadline; its fastest layout that fits takes"), std::string::npos) << r.out;
}

TEST(TrainPlanCli, BadInputNamesTheFlag) {
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"train-plan", "--model", "llama-3.1-8b", "--tokens", "15T"}, "--days"},
      {with({"--gpu", "h1000"}), "--gpu"},
      {with({"--price", "l4=2"}), "--price"},
      {with({"--max-gpus", "0"}), "--max-gpus"},
      {with({"--max-gpus", "2000000"}), "--max-gpus"},
      {with({"--optimizer", "lion"}), "--optimizer"},
      {with({"--days", "0"}), "--days"},
      {with({"--seq", "0"}), "--seq"},
      {with({"--micro-batch", "0"}), "--micro-batch"},
      {with({"--micro-batch", "1,,2"}), "--micro-batch"},
      {with({"--rank-by", "speed"}), "--rank-by"},
      {with({"--global-batch", "512", "--max-batch-tokens", "4M"}), "--max-batch-tokens"},
      {with({"--max-batch-tokens", "100"}), "--max-batch-tokens"},
      {with({"--top", "0"}), "--top"},
  };
  for (const auto& [args, flag] : cases) {
    const CliRun r = run_args(args);
    EXPECT_EQ(r.status, 2) << flag << " " << r.out;
    EXPECT_TRUE(r.out.empty()) << flag;
    EXPECT_NE(r.err.find(flag), std::string::npos) << flag << ": " << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
  }
}

}  // namespace
}  // namespace modelcalc
