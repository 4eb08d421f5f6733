// Each contradiction issue #10 listed, as a regression test: the commands now
// read one deployment engine, so they agree. Expected values are either
// derived by hand (comments) or another command's answer for the same setup.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "modelcalc/gpu.h"
#include "test_util.h"

namespace modelcalc {
namespace {

nlohmann::json run_json(const std::vector<std::string>& args) {
  const CliRun r = run_args(args);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? r.json() : nlohmann::json::object();
}

// Mixtral-8x7B on 2 x H100, T = 4096, batch 1: a single stream reads the top-2 experts, not all 8.
// A realistic 85 tokens/s is below the modeled ceiling, and diagnose compares it with size's ceiling.
TEST(DeploymentRegressionTest, MixtralOnTwoH100DiagnoseUsesSizesCeiling) {
  const auto size = run_json({"size", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--gpus", "2", "--seq", "4096",
                              "--json"});
  const auto dx = run_json({"diagnose", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--gpus", "2", "--context",
                            "4096", "--batch", "1", "--tokens-per-s", "85", "--phase", "decode", "--json"});
  const double ceiling = size["decode_step"]["tokens_per_s_per_sequence"].get<double>();
  // Per GPU (TP 2, bf16): ~1/2 of (1.6 B attention + 2 of 8 experts x 32 layers x 176 M + lm_head) x 2 B
  // ~ 13 GB -> 3.35e12 / 13e9 ~ 255 tokens/s before communication: far above 85, far below "all experts" 71.
  EXPECT_GT(ceiling, 150);
  EXPECT_LT(ceiling, 260);
  EXPECT_EQ(dx["decode_step"]["tokens_per_s_per_sequence"], size["decode_step"]["tokens_per_s_per_sequence"]);
  EXPECT_EQ(dx["above_ceiling"], false);
}

TEST(DeploymentRegressionTest, DeepSeekV3OnEightH200Fp8AgreesAcrossCommands) {
  const auto size = run_json({"size", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--dtype", "fp8",
                              "--seq", "4096", "--json"});
  const auto dx = run_json({"diagnose", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--dtype", "fp8",
                            "--context", "4096", "--tokens-per-s", "30", "--phase", "decode", "--json"});
  EXPECT_EQ(dx["decode_step"]["tokens_per_s_per_sequence"], size["decode_step"]["tokens_per_s_per_sequence"]);
  EXPECT_EQ(size["deployment"]["compute_dtype"], "fp8");
}

// Llama-3.1-70B on 16 x H100 at 8K: 8 KV heads over 16 ranks, each GPU holds one whole head:
// 80 layers x 256 x 2 B = 40,960 B per token per GPU. size and kv-budget give the same fit count.
TEST(DeploymentRegressionTest, Llama70bOnSixteenH100SameFitCount) {
  const auto size = run_json({"size", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "16", "--seq", "8192",
                              "--json"});
  const auto kv = run_json({"kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "16", "--context",
                            "8192", "--json"});
  EXPECT_EQ(size["memory_per_gpu"]["kv_per_token"], 40'960);
  EXPECT_EQ(kv["memory_per_gpu"]["kv_per_token"], 40'960);
  EXPECT_EQ(size["memory_per_gpu"]["max_sequences"], kv["memory_per_gpu"]["max_sequences"]);
}

// Drill 1 in int8 at batch 214 on MI300X, T = 8192: the whole step's intensity is ~30 FLOP/B (every
// sequence reads its own KV), far below the bf16 ridge 246.7 the weight-only int8 matmuls run under;
// and 214 sequences of 1.61 GB do not fit. Never "compute-bound"; roofline's engine entry agrees.
TEST(DeploymentRegressionTest, Drill1Int8Batch214IsNotComputeBound) {
  const std::vector<std::string> shape = {"-L", "48", "-d", "6144", "--heads", "48", "--kv-heads", "8", "--ffn",
                                          "16384", "--glu", "--vocab", "64000", "--gpu", "mi300x", "--dtype", "int8"};
  std::vector<std::string> size = {"size", "--seq", "8192", "--batch", "214", "--json"};
  size.insert(size.end(), shape.begin(), shape.end());
  std::vector<std::string> roof = {"roofline", "--seq", "8192", "--batch", "214", "--json"};
  roof.insert(roof.end(), shape.begin(), shape.end());
  const auto s = run_json(size), r = run_json(roof);
  EXPECT_NE(s["decode_step"]["regime"], "compute-bound");
  EXPECT_LT(s["decode_step"]["intensity"].get<double>(), 35);
  EXPECT_EQ(s["deployment"]["compute_dtype"], "bf16");
  ASSERT_EQ(r["deployments"].size(), 1u);
  EXPECT_EQ(r["deployments"][0]["decode_step"]["regime"], s["decode_step"]["regime"]);
  EXPECT_EQ(r["deployments"][0]["decode_step"]["intensity"], s["decode_step"]["intensity"]);
}

// --dtype int4 keeps a 16-bit KV cache (no serving engine quantizes the cache by default).
TEST(DeploymentRegressionTest, Int4WeightsKeepASixteenBitCache) {
  const auto j = run_json({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--dtype", "int4", "--seq", "8192",
                           "--json"});
  EXPECT_EQ(j["deployment"]["kv_dtype"], "bf16");
  // 32 layers x 8 KV heads x (128 + 128) x 2 B = 131,072 B per token.
  EXPECT_EQ(j["kv"]["bytes_per_token"], 131'072);
  EXPECT_EQ(j["memory_per_gpu"]["kv_per_token"], 131'072);
}

// fp8 weights with fp8 compute are judged against the fp8 ridge: 1978.9 / 3.35 = 590.7 FLOP/B on H100.
TEST(DeploymentRegressionTest, Fp8IsJudgedAgainstTheFp8Roof) {
  const auto j = run_json({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--dtype", "fp8", "--json"});
  EXPECT_NEAR(j["decode_step"]["ridge"].get<double>(), 1978.9 / 3.35, 1e-9);
}

// The sequences llama-3.1-8b holds at 128K context in bf16 on one H100 (the ceiling: the driver-exposed
// memory less the weights): (capacity - 16,060,522,496 B of weights) / (131,072 tokens x 131,072 B =
// 17,179,869,184 B per sequence), floored. 4 with the 81,559 MiB nvidia-smi shows; 3 with a nominal 80 GB.
int64_t llama8b_128k_h100_sequences() {
  const double cap = find_gpu("h100")->usable_capacity_bytes();
  return static_cast<int64_t>(std::floor((cap - 16'060'522'496.0) / 17'179'869'184.0));
}

// sweep marks rows whose batch cannot be held: at 128K a few sequences fit, not 64.
TEST(DeploymentRegressionTest, SweepMarksBatchesThatCannotBeHeld) {
  const auto j = run_json({"sweep", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "131072", "--batch", "1,64",
                           "--dtype", "bf16", "--fields", "batch,fits,max_sequences", "--format", "json"});
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["fits"], true);
  EXPECT_EQ(j[1]["fits"], false);
  EXPECT_EQ(j[1]["max_sequences"], llama8b_128k_h100_sequences());
}

// One vocabulary: --reserve 10% and 0.1 are the same in size and kv-budget.
TEST(DeploymentRegressionTest, ReserveParsesTheSameEverywhere) {
  for (const char* cmd : {"size", "kv-budget"}) {
    const auto a = run_json({cmd, "--model", "llama-3.1-8b", "--gpu", "h100", "--reserve", "10%", "--json"});
    const auto b = run_json({cmd, "--model", "llama-3.1-8b", "--gpu", "h100", "--reserve", "0.1", "--json"});
    EXPECT_EQ(a["memory_per_gpu"]["max_sequences"], b["memory_per_gpu"]["max_sequences"]) << cmd;
    EXPECT_EQ(a["deployment"]["reserve_fraction"], 0.1) << cmd;
  }
}

// A split that does not divide the heads is refused on one line naming the flag, exit 2, nothing on stdout.
TEST(DeploymentRegressionTest, BadSplitIsOneLineNamingTheFlag) {
  const CliRun r = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "3"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(line_count(r.err), 1);
  // --gpus 3 is what the user typed (tp = 3 follows from it): the line names --gpus, not --tp.
  EXPECT_EQ(r.err.rfind("modelcalc: error: --gpus: ", 0), 0u) << r.err;
  const CliRun p = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "2", "--tp", "1", "--pp",
                             "3", "--dp", "1"});
  EXPECT_EQ(p.status, 2);
  EXPECT_EQ(line_count(p.err), 1);
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// Advice that fits: diagnose's "batch more" never proposes a batch HBM cannot hold. llama-3.1-8b at
// 128K context on one H100 holds 3 sequences (see SweepMarksBatchesThatCannotBeHeld), so from batch 2
// it proposes 3, not 2 x 8 = 16; from batch 3 it proposes no larger batch at all.
TEST(DeploymentRegressionTest, DiagnoseNeverProposesABatchThatDoesNotFit) {
  auto batch_fix = [](const std::string& batch) {
    const CliRun r = run_args({"diagnose", "--model", "llama-3.1-8b", "--gpu", "h100", "--context", "131072",
                               "--batch", batch, "--bw-util", "0.8", "--phase", "decode", "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = r.status == 0 ? r.json() : nlohmann::json::object();
    for (const auto& f : j["fixes"]) {
      if (f["change"].is_object() && f["change"].contains("batch")) return f;
    }
    return nlohmann::json();
  };
  const int64_t fit = llama8b_128k_h100_sequences();
  const nlohmann::json from2 = batch_fix("2");
  ASSERT_TRUE(from2.is_object());
  EXPECT_EQ(from2["change"], (nlohmann::json{{"batch", fit}}));
  EXPECT_EQ(from2["after"]["decode_step"]["batch"], fit);
  EXPECT_EQ(from2["after"]["decode_step"]["fits"], true);
  EXPECT_TRUE(batch_fix(std::to_string(fit)).is_null());
}

// diagnose --explain on an MLA model shows the latent's formula, whose substitution evaluates to the value:
// deepseek-v2-lite caches 27 layers x (512 + 64) x 2 B x 8,192 tokens = 254,803,968 B.
TEST(DeploymentRegressionTest, DiagnoseExplainsTheMlaCacheWithTheLatent) {
  const CliRun r = run_args({"diagnose", "--model", "deepseek-v2-lite", "--gpu", "h100", "--context", "8192",
                             "--tokens-per-s", "50", "--phase", "decode", "--explain"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("L × d_c × b × T"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("27 × 576 × 2 B × 8,192"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("2 × 27 × 3,072"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace modelcalc
