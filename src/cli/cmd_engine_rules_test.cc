// The deployment commands refuse, with --engine, a layout that engine will not
// load: exit 2, one line on stderr naming the flag, the rule and its source,
// nothing on stdout. Without --engine the default engine's prediction stands.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace modelcalc {
namespace {

std::vector<std::string> with(std::vector<std::string> base, std::initializer_list<std::string> more) {
  base.insert(base.end(), more);
  return base;
}

// DeepSeek-V3's FP8 blocks (weight_block_size 128 x 128) at TP32: its dense MLP, 18432 / 32 = 576, is 4.5
// blocks (sgl-project/sglang#3345).
const std::vector<std::string> kDeepSeekTp32 = {"--model", "deepseek-v3", "--gpu", "h200", "--gpus", "32",
                                                "--tp", "32", "--ep", "32"};

TEST(CmdEngineRulesTest, EveryDeploymentCommandRefusesWhatTheNamedEngineWillNotLoad) {
  for (const char* cmd : {"size", "kv-budget", "cost"}) {
    std::vector<std::string> a = with({cmd}, {});
    a.insert(a.end(), kDeepSeekTp32.begin(), kDeepSeekTp32.end());
    if (std::string(cmd) == "cost") a = with(a, {"--price-per-hour", "3"});
    const CliRun r = run_args(with(a, {"--engine", "sglang"}));
    EXPECT_EQ(r.status, 2) << cmd << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << cmd;
    EXPECT_EQ(line_count(r.err), 1) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("--tp: SGLang refuses this layout"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("rule fp8-block-linear"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("fp8_utils.py validate_fp8_block_shape"), std::string::npos) << cmd << ": " << r.err;
    // TensorRT-LLM has no such row (it narrows the MLP's TP instead of refusing): the command runs.
    EXPECT_EQ(run_args(with(a, {"--engine", "trtllm"})).status, 0) << cmd;
  }
}

TEST(CmdEngineRulesTest, DiagnoseRefusesToo) {
  const CliRun r = run_args({"diagnose", "--model", "llama-3.1-8b", "--gpu", "mi300x", "--phase", "decode",
                             "--batch", "8", "--seq", "4096", "--tokens-per-s", "40", "--engine", "trtllm"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--gpu: TensorRT-LLM refuses this layout: the GPU is CDNA3 (gfx942)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("support-matrix.md"), std::string::npos) << r.err;
}

TEST(CmdEngineRulesTest, WithoutEngineTheDefaultPredictionStands) {
  std::vector<std::string> a = {"size"};
  a.insert(a.end(), kDeepSeekTp32.begin(), kDeepSeekTp32.end());
  EXPECT_EQ(run_args(a).status, 0);
}

}  // namespace
}  // namespace modelcalc
