// --profile FILE: a user's time parameters (calibrate --fit --write) in place of the compiled-in ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "test_paths.h"
#include "test_util.h"

namespace modelcalc {
namespace {

std::string compiled_profile() {
  std::ifstream in(std::string(MODELCALC_SOURCE_DIR) + "/data/engine_profiles.tsv");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string write_profile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Every row of `param` (the pooled set and each family's) set to `value`.
std::string with_param(const std::string& param, const std::string& value) {
  std::istringstream in(compiled_profile());
  std::string out, line;
  while (std::getline(in, line)) {
    const size_t a = line.find('\t'), b = line.find('\t', a + 1);
    if (a != std::string::npos && b != std::string::npos && line.substr(a + 1, b - a - 1) == param) {
      line = line.substr(0, b + 1) + value;
    }
    out += line + "\n";
  }
  return out;
}

const std::vector<std::string> kPlan = {"plan", "--model", "llama-3.1-70b", "--isl", "2048", "--osl", "512",
                                        "--gpu", "h100", "--json"};

std::vector<std::string> plan_with(const std::string& profile) {
  std::vector<std::string> a = kPlan;
  a.insert(a.end(), {"--profile", profile});
  return a;
}

TEST(CmdProfileTest, TheCompiledInTableAsAFileGivesTheSamePrediction) {
  const std::string path = write_profile("same.tsv", compiled_profile());
  auto base = run_args(kPlan);
  auto mine = run_args(plan_with(path));
  ASSERT_EQ(base.status, 0) << base.err;
  ASSERT_EQ(mine.status, 0) << mine.err;
  auto b = base.json(), m = mine.json();
  // No --engine: each config names the engine its GPU's vendor runs (an H100: TensorRT-LLM), under the
  // profile it was predicted with.
  EXPECT_TRUE(b["engine"]["profile"].is_null());
  ASSERT_FALSE(b["configs"].empty());
  ASSERT_EQ(b["configs"].size(), m["configs"].size());
  for (size_t i = 0; i < b["configs"].size(); ++i) {
    EXPECT_EQ(b["configs"][i]["engine"]["profile"], "trtllm");
    EXPECT_EQ(m["configs"][i]["engine"]["profile"], path);  // the path as given
    b["configs"][i].erase("engine");
    m["configs"][i].erase("engine");
  }
  EXPECT_EQ(b["configs"], m["configs"]);  // the same parameters: the same numbers, bit for bit
}

TEST(CmdProfileTest, ALargerStepOverheadSlowsEveryStep) {
  // step_overhead_s is added once to every engine step; 0.5 s per step (instead of ~2.3 ms) must make
  // each candidate's predicted TPOT (one decode step per output token) at least 0.5 s.
  const std::string path = write_profile("slow.tsv", with_param("step_overhead_s", "0.5"));
  auto base = run_args(kPlan);
  auto mine = run_args(plan_with(path));
  ASSERT_EQ(base.status, 0) << base.err;
  ASSERT_EQ(mine.status, 0) << mine.err;
  auto b = base.json(), m = mine.json();
  ASSERT_FALSE(b["configs"].empty());
  ASSERT_FALSE(m["configs"].empty());
  double fastest_base = 1e300, fastest_mine = 1e300;
  for (const auto& c : b["configs"]) fastest_base = std::min(fastest_base, c["predicted"]["tpot_s"].get<double>());
  for (const auto& c : m["configs"]) fastest_mine = std::min(fastest_mine, c["predicted"]["tpot_s"].get<double>());
  EXPECT_GE(fastest_mine, 0.5);
  EXPECT_LT(fastest_base, 0.5);
}

TEST(CmdProfileTest, ABadFileIsOneLineNamingTheFlag) {
  const std::string header = "engine\tparameter\tvalue\n";
  const std::vector<std::string> bad = {
      ::testing::TempDir() + "/no-such-profile.tsv",
      write_profile("header.tsv", "a\tb\tc\n"),
      write_profile("unknown.tsv", compiled_profile() + "all\tno_such_parameter\t1\n"),
      write_profile("range.tsv", with_param("gemm_fraction", "7")),
      write_profile("inf.tsv", with_param("step_overhead_s", "inf")),
      write_profile("nan.tsv", with_param("hbm_fraction", "nan")),
      write_profile("missing.tsv", header + "all\tgemm_fraction\t0.5\n"),
  };
  for (const std::string& p : bad) {
    auto r = run_args(plan_with(p));
    EXPECT_EQ(r.status, 2) << p;
    EXPECT_TRUE(r.out.empty()) << p;
    EXPECT_NE(r.err.find("--profile"), std::string::npos) << p << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << p << ": " << r.err;
  }
}

// sweep's default columns are the ceiling's: a profile there would change nothing, so it is refused, naming
// --profile; with a predicted column it is read.
TEST(CmdProfileTest, ASweepThatReadsNoPredictionRefusesAProfile) {
  const std::string path = write_profile("sweep.tsv", compiled_profile());
  // The default columns read the prediction (issue #31); --fields without a predicted_ column does not.
  auto silent = run_args({"sweep", "--model", "llama-3.1-8b", "--gpu", "h100", "--fields", "batch,tokens_per_s_aggregate",
                          "--profile", path});
  EXPECT_EQ(silent.status, 2);
  EXPECT_TRUE(silent.out.empty());
  EXPECT_EQ(silent.err.rfind("modelcalc: error: --profile: ", 0), 0u) << silent.err;
  EXPECT_NE(silent.err.find("predicted_tokens_per_s_per_sequence"), std::string::npos) << silent.err;
  auto read = run_args({"sweep", "--model", "llama-3.1-8b", "--gpu", "h100", "--fields",
                        "batch,predicted_tokens_per_s_per_sequence", "--profile", path});
  EXPECT_EQ(read.status, 0) << read.err;
  EXPECT_EQ(run_args({"sweep", "--model", "llama-3.1-8b", "--gpu", "h100", "--profile", path}).status, 0);
}

TEST(CmdProfileTest, EveryPredictingCommandTakesIt) {
  for (const std::string cmd : {"size", "kv-budget", "cost", "diagnose", "plan", "sweep"}) {
    auto r = run_args({cmd, "--help"});
    EXPECT_NE(r.out.find("--profile"), std::string::npos) << cmd;
  }
}

}  // namespace
}  // namespace modelcalc
