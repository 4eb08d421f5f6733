// train-memory through the CLI: per-stage JSON derived by hand, the Llama 3
// 405B 8K stage, and bad inputs that exit 2 with one line naming the flag.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace modelcalc {
namespace {

using Args = std::vector<std::string>;

Args with(Args base, const Args& extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

// Llama-2-7B's shape typed as flags: L 32, d 4096, h 32 (MHA), SwiGLU 11008, V 32000, untied.
// N = 32 x (4 x 4096^2 + 3 x 4096 x 11008) + 2 x 32000 x 4096 = 6,738,149,376 (matrices only).
const Args kLlama2 = {"train-memory", "-L", "32", "-d", "4096", "--heads", "32", "--ffn", "11008", "--glu",
                      "--vocab", "32000", "--gpu", "h100"};

void ExpectBadInput(const Args& args, const std::string& flag) {
  const CliRun r = run_args(args);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  EXPECT_EQ(r.status, 2) << joined << "\n" << r.err;
  EXPECT_EQ(line_count(r.err), 1) << joined << "\n" << r.err;
  EXPECT_NE(r.err.find(flag), std::string::npos) << joined << " -> " << r.err;
  EXPECT_TRUE(r.out.empty()) << joined;
}

TEST(TrainMemoryCli, OneGpuByHand) {
  const CliRun r = run_args(with(kLlama2, {"--seq", "4096", "--flash", "--grads", "bf16", "--overhead", "1GB",
                                          "--json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  const double n = 6'738'149'376.0;
  ASSERT_EQ(j["stages"].size(), 1u);
  const auto& s = j["stages"][0];
  EXPECT_EQ(s["params"], 6'738'149'376);
  EXPECT_EQ(s["weights_bytes"].get<double>(), 2 * n);
  EXPECT_EQ(s["grads_bytes"].get<double>(), 2 * n);  // --grads bf16: the ZeRO paper's 16 B
  EXPECT_EQ(s["optimizer_bytes"].get<double>(), 12 * n);
  // Per layer per token (FlashAttention, no dropout): inputs 4 x 2d = 32,768 B; Q, K, V, output 4 x 8,192;
  // FFN 6 x 11,008 = 66,048; log-sum-exp 4 x 32 = 128: 131,712 B x 4096 = 539,492,352 per layer, x 32 layers;
  // + the final norm's and lm_head's inputs 2 x 2d x s = 67,108,864.
  EXPECT_EQ(s["activations_bytes"].get<double>(), 539'492'352.0 * 32 + 67'108'864.0);
  // Logits: s V x 6 B = 4096 x 32000 x 6 = 786,432,000.
  EXPECT_EQ(s["logits_bytes"].get<double>(), 786'432'000.0);
  EXPECT_EQ(s["total_bytes"].get<double>(), 16 * n + 539'492'352.0 * 32 + 67'108'864.0 + 786'432'000.0 + 1e9);
  EXPECT_EQ(j["fits"], false);  // 126 GB > 80 GB
  // Megatron's fp32 main gradients by default: 4 B.
  const CliRun f = run_args(with(kLlama2, {"--seq", "4096", "--flash", "--json"}));
  ASSERT_EQ(f.status, 0) << f.err;
  EXPECT_EQ(f.json()["stages"][0]["grads_bytes"].get<double>(), 4 * n);
}

TEST(TrainMemoryCli, StagesAsMegatronBuildsThem) {
  const CliRun r = run_args({"train-memory", "--model", "llama-3.1-8b", "--gpu", "h100", "--pp", "4", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto st = r.json()["stages"];
  ASSERT_EQ(st.size(), 4u);
  // 8 layers of 218,112,000; the embedding 525,336,576 on the first, the lm_head and final norm (4,096) on the last.
  EXPECT_EQ(st[0]["params"], 2'270'232'576);
  EXPECT_EQ(st[1]["params"], 1'744'896'000);
  EXPECT_EQ(st[3]["params"], 2'270'236'672);
  for (const auto& s : st) {
    for (const char* key : {"stage", "params", "weights_bytes", "grads_bytes", "optimizer_bytes", "activations_bytes",
                            "logits_bytes", "total_bytes"}) {
      EXPECT_TRUE(s.contains(key)) << key;
    }
  }
  EXPECT_GT(st[3]["logits_bytes"].get<double>(), 0);
  EXPECT_EQ(st[0]["logits_bytes"].get<double>(), 0);
}

// Llama-3.1-405B's 8K pretraining stage (TP 8, PP 16, DP 64, no activation
// checkpointing, Llama 3 paper sec. 3.3.2) on 80 GB H100s, with 1F1B. Per
// layer per token: inputs 8d / t = 131,072 / 8 = 16,384 B; (Q 32,768 + K, V
// 2,048 each + output 32,768 + FFN 6 x 53,248) / 8 = 48,640; log-sum-exp 4 x
// 128 / 8 = 64: 65,088 B x 8192 = 533,200,896 per layer. Stage 1 holds 15
// micro-batches of its 8 layers: 63,984,107,520 B.
TEST(TrainMemoryCli, Llama405bEightKFitsWithoutRecomputation) {
  const CliRun r = run_args({"train-memory", "--model", "llama-3.1-405b", "--gpu", "h100", "--tp", "8", "--pp", "16",
                             "--dp", "64", "--seq", "8192", "--flash", "--sequence-parallel", "--zero", "2",
                             "--embedding-in-split", "--loss-in-split", "--global-batch", "2048", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["stages"][1]["activations_bytes"].get<double>(), 15 * 8 * 533'200'896.0);
  EXPECT_EQ(j["stages"][0]["params"].get<int64_t>() < j["stages"][1]["params"].get<int64_t>(), true);  // 7 layers
  EXPECT_EQ(j["fits"], true);
}

TEST(TrainMemoryCli, BadInputsNameTheFlag) {
  const Args llama = {"train-memory", "--model", "llama-3.1-8b", "--gpu", "h100"};
  const Args mixtral = {"train-memory", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100"};
  ExpectBadInput(with(llama, {"--pp", "5"}), "--pp");  // 32 layers: Megatron refuses
  ExpectBadInput(with(llama, {"--pp", "5", "--first-stage-layers", "5", "--last-stage-layers", "5"}), "--pp");
  ExpectBadInput(with(llama, {"--micro-batch", "4", "--global-batch", "2"}), "--micro-batch");
  ExpectBadInput(with(llama, {"--dp", "2", "--global-batch", "6", "--micro-batch", "2"}), "--global-batch");
  ExpectBadInput(with(llama, {"--gpus", "7", "--tp", "2"}), "--gpus");  // TP x CP x PP x DP = 2
  ExpectBadInput(with(mixtral, {"--ep", "4", "--dp", "2"}), "--ep");    // EP must divide DP x CP
  ExpectBadInput(with(mixtral, {"--ep", "3", "--dp", "3"}), "--ep");    // ... and the 8 experts
  ExpectBadInput(with(llama, {"--ep", "2", "--dp", "2"}), "--ep");      // a dense model
  ExpectBadInput(with(llama, {"--cp", "2"}), "--cp");                   // without --flash
  ExpectBadInput(with(llama, {"--cp", "3", "--flash", "--seq", "2048"}), "--seq");  // 2048 % 6
  ExpectBadInput(with(llama, {"--pp", "4", "--virtual-stages", "3"}), "--virtual-stages");
  ExpectBadInput(with(llama, {"--virtual-stages", "2"}), "--virtual-stages");  // needs PP
  ExpectBadInput(with(llama, {"--pp", "2", "--first-stage-layers", "16", "--embedding-in-split"}),
                 "--first-stage-layers");
  ExpectBadInput(with(llama, {"--capacity-factor", "1.25"}), "--capacity-factor");  // dense
  ExpectBadInput(with(llama, {"--tp", "16"}), "--tp");                              // 8 KV heads
  ExpectBadInput(with(llama, {"--tp", "3"}), "--tp");
  ExpectBadInput(with(llama, {"--zero", "4"}), "--zero");
  ExpectBadInput(with(llama, {"--optimizer", "lion"}), "--optimizer");
  ExpectBadInput(with(llama, {"--recompute", "some"}), "--recompute");
  ExpectBadInput(with(llama, {"--grads", "fp8"}), "--grads");
  ExpectBadInput({"train-memory", "--model", "llama-3.1-8b"}, "--gpu");
  ExpectBadInput({"train-memory", "--params", "7B", "--model", "llama-3.1-8b", "--gpu", "h100"}, "--params");
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// --gpus without --dp fills the GPUs with replicas, as size infers dp (issue #30): 8 GPUs at TP 1 are
// DP 8, the same answer as --dp 8 given; train (with a layout) reads it the same way.
TEST(TrainMemoryCli, GpusWithoutDpInfersTheReplicas) {
  const CliRun a = run_args({"train-memory", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8", "--tp", "1",
                             "--json"});
  const CliRun b = run_args({"train-memory", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8", "--tp", "1",
                             "--dp", "8", "--json"});
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(a.json(), b.json());
  const CliRun t = run_args({"train", "--model", "llama-3.1-8b", "--tokens", "1T", "--gpu", "h100", "--gpus", "64",
                             "--tp", "2"});
  EXPECT_EQ(t.status, 0) << t.err;  // dp = 64 / 2 = 32
  // A count the split does not divide is still refused, naming --gpus.
  const CliRun bad = run_args({"train-memory", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "7", "--tp", "2"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.rfind("modelcalc: error: --gpus: ", 0), 0u) << bad.err;
}

}  // namespace
}  // namespace modelcalc
