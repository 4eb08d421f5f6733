// train and mfu with a model (the training engine's FLOPs beside the lab's),
// train with a layout (one predicted step), calibrate --training, and their
// bad inputs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace modelcalc {
namespace {

using Args = std::vector<std::string>;

void ExpectBadInput(const Args& args, const std::string& flag) {
  const CliRun r = run_args(args);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  EXPECT_EQ(r.status, 2) << joined << "\n" << r.err;
  EXPECT_EQ(line_count(r.err), 1) << joined << "\n" << r.err;
  EXPECT_NE(r.err.find(flag), std::string::npos) << joined << " -> " << r.err;
  EXPECT_TRUE(r.out.empty()) << joined;
}

// Llama-3.1-8B at s = 8,192 (train_flops_test.cc derives each term):
// linear 6 x 6,979,321,856 = 41,875,931,136; attention 12 L d s =
// 12,884,901,888; lm_head 6 V d = 3,152,019,456.
TEST(TrainEngineCli, FlopsPerTokenBesideSixN) {
  const CliRun r = run_args({"train", "--model", "llama-3.1-8b", "--tokens", "15T", "--seq", "8192", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto f = r.json()["flops"];
  EXPECT_DOUBLE_EQ(f["per_token_6n"].get<double>(), 6.0 * 8'030'261'248);
  EXPECT_DOUBLE_EQ(f["per_token_attention"].get<double>(), 12'884'901'888.0);
  EXPECT_DOUBLE_EQ(f["per_token_total"].get<double>(), 41'875'931'136.0 + 12'884'901'888.0 + 3'152'019'456.0);
  EXPECT_DOUBLE_EQ(f["six_nd"].get<double>(), 6.0 * 8'030'261'248 * 15e12);  // the lab's view, unchanged
  EXPECT_DOUBLE_EQ(f["total"].get<double>(), f["per_token_total"].get<double>() * 15e12);
  // The lab's view with a bare count stays exact to the digit: 6 x 70e9 x 2e12.
  const CliRun lab = run_args({"train", "--params", "70B", "--tokens", "2T", "--json"});
  ASSERT_EQ(lab.status, 0) << lab.err;
  EXPECT_DOUBLE_EQ(lab.json()["flops"]["six_nd"].get<double>(), 8.4e23);
  EXPECT_FALSE(lab.json()["flops"].contains("per_token_attention"));
}

TEST(TrainEngineCli, MfuAndHfuOfAMeasuredRun) {
  // 8 H100s at 20,000 tokens/s, full recomputation: MFU = tps x F_model / (8 x 989.4e12),
  // HFU = tps x (F_model + (linear + attention) / 3) / (8 x 989.4e12).
  const CliRun r = run_args({"mfu", "--model", "llama-3.1-8b", "--tokens-per-s", "20000", "--gpu", "h100", "--gpus",
                             "8", "--train", "--seq", "8192", "--recompute", "full", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  const double linear = 41'875'931'136.0, attention = 12'884'901'888.0, lm_head = 3'152'019'456.0;
  const double model = linear + attention + lm_head;
  EXPECT_NEAR(j["engine"]["mfu"].get<double>(), 20000 * model / (8 * 989.4e12), 1e-15);
  EXPECT_NEAR(j["engine"]["hfu"].get<double>(), 20000 * (model + (linear + attention) / 3) / (8 * 989.4e12), 1e-15);
  // The lab's 6N view beside it.
  EXPECT_NEAR(j["mfu"].get<double>(), 20000 * 6.0 * 8'030'261'248 / (8 * 989.4e12), 1e-15);
}

// One answer per screen (issue #31): with a model and a sequence the engine's MFU and HFU lead the
// text, the k x N figure follows in the teaching view; train leads with the engine's FLOPs and days.
TEST(TrainEngineCli, TheEnginesFiguresLeadTheText) {
  const CliRun r = run_args({"mfu", "--model", "llama-3.1-8b", "--tokens-per-s", "20000", "--gpu", "h100", "--gpus",
                             "8", "--train", "--seq", "8192"});
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t answer = r.out.find("Answer: the engine's utilization");
  const size_t teaching = r.out.find("Teaching view (the seed's whiteboard)");
  ASSERT_NE(answer, std::string::npos) << r.out;
  ASSERT_NE(teaching, std::string::npos) << r.out;
  EXPECT_LT(answer, teaching);
  // MFU = 20,000 x (41,875,931,136 + 12,884,901,888 + 3,152,019,456) / (8 x 989.4e12) = 14.6 %; 6N's
  // 20,000 x 48,181,567,488 / 7.9152e15 = 12.2 % comes after it.
  const size_t engine_mfu = r.out.find("14.6 %"), six_n = r.out.find("12.2 %");
  ASSERT_NE(engine_mfu, std::string::npos) << r.out;
  ASSERT_NE(six_n, std::string::npos) << r.out;
  EXPECT_LT(engine_mfu, six_n);
  EXPECT_LT(r.out.find('%'), teaching);  // the first percentage on the screen is the engine's

  // train: model FLOPs 57,912,852,480 per token x 1e12 tokens at 40 % of 64 x 989.4e12:
  // F = 57,912,852,480 x 1e12 = 5.7913e22; H = F / (989.4e12 x 0.4) / 3600 = 40,648 h; days = H / 64 / 24.
  const CliRun t = run_args({"train", "--model", "llama-3.1-8b", "--tokens", "1T", "--seq", "8192", "--gpu", "h100",
                             "--gpus", "64", "--json"});
  ASSERT_EQ(t.status, 0) << t.err;
  const double F = (41'875'931'136.0 + 12'884'901'888.0 + 3'152'019'456.0) * 1e12;
  const double H = F / (989.4e12 * 0.4) / 3600;
  EXPECT_NEAR(t.json()["engine_gpu_hours"].get<double>(), H, 1e-6 * H);
  EXPECT_NEAR(t.json()["engine_days"].get<double>(), H / 64 / 24, 1e-6 * H / 64 / 24);
  const CliRun tt = run_args({"train", "--model", "llama-3.1-8b", "--tokens", "1T", "--seq", "8192", "--gpu", "h100",
                              "--gpus", "64"});
  ASSERT_EQ(tt.status, 0) << tt.err;
  EXPECT_EQ(tt.out.find("Answer: the engine's FLOPs"), tt.out.find("\n\n") + 2) << tt.out;
  EXPECT_LT(tt.out.find("Wall-clock with the engine's model FLOPs"), tt.out.find("Teaching view")) << tt.out;
}

TEST(TrainEngineCli, ALayoutGetsTheEnginesStep) {
  const CliRun r = run_args({"train", "--model", "llama-3.1-8b", "--tokens", "1T", "--gpu", "h100", "--tp", "2",
                             "--dp", "4", "--seq", "4096", "--global-batch", "64", "--flash", "--sequence-parallel",
                             "--zero", "1", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto e = r.json()["engine"];
  ASSERT_TRUE(e.contains("step_seconds")) << r.out;
  // 64 sequences of 4,096 tokens a step: ceil(1e12 / 262,144) = 3,814,698 steps.
  EXPECT_EQ(e["steps"], 3'814'698);
  EXPECT_DOUBLE_EQ(e["days"].get<double>(), 3'814'698 * e["step_seconds"].get<double>() / 86400);
  EXPECT_GE(e["step_seconds"].get<double>(), e["ceiling_seconds"].get<double>());
  EXPECT_GT(e["mfu"].get<double>(), 0.1);
  EXPECT_LT(e["mfu"].get<double>(), 1.0);
}

TEST(TrainEngineCli, CalibrateTraining) {
  const CliRun r = run_args({"calibrate", "--training", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  ASSERT_EQ(j["rows"].size(), 22u);
  for (const auto& row : j["rows"]) {
    for (const char* key : {"id", "measured", "predicted", "ceiling", "error"}) EXPECT_TRUE(row.contains(key)) << key;
    EXPECT_DOUBLE_EQ(row["error"].get<double>(), row["predicted"].get<double>() / row["measured"].get<double>() - 1);
  }
  for (const char* key : {"rows", "predicted_rows", "median_abs_error", "mean_abs_error", "p90_abs_error",
                          "over_ceiling"}) {
    EXPECT_TRUE(j["summary"].contains(key)) << key;
  }
  EXPECT_EQ(j["summary"]["over_ceiling"], 0);
  const CliRun fit = run_args({"calibrate", "--training", "--fit", "--json"});
  ASSERT_EQ(fit.status, 0) << fit.err;
  EXPECT_EQ(fit.json()["folds"].size(), 3u);
  EXPECT_TRUE(fit.json()["loso"].contains("median_abs_error"));
  // --fit alone refits the serving engine (issue #20's calibrate --fit); the serving data's flags are
  // refused with --training.
  ExpectBadInput({"calibrate", "--training", "--data", "x.tsv"}, "--data");
}

TEST(TrainEngineCli, BadInputsNameTheFlag) {
  ExpectBadInput({"train", "--model", "llama-3.1-8b", "--params", "7B", "--tokens", "1T"}, "--params");
  ExpectBadInput({"train", "--tokens", "1T"}, "--params");
  ExpectBadInput({"train", "--params", "7B", "--tokens", "1T", "--seq", "4096"}, "--seq");
  ExpectBadInput({"train", "--params", "7B", "--tokens", "1T", "--gpu", "h100", "--tp", "2"}, "--tp");
  ExpectBadInput({"train", "--model", "llama-3.1-8b", "--tokens", "1T", "--gpu", "h100", "--tp", "2", "--gpus", "3"},
                 "--gpus");
  ExpectBadInput({"train", "--model", "llama-3.1-8b", "--tokens", "1T", "--tp", "2"}, "--gpu");
  ExpectBadInput({"train", "--model", "llama-3.1-8b", "--tokens", "1T", "--gpu", "h100", "--pp", "5"}, "--pp");
  ExpectBadInput({"mfu", "--params", "7B", "--tokens-per-s", "1000", "--gpu", "h100", "--train", "--seq", "4096"},
                 "--seq");
  ExpectBadInput({"mfu", "--model", "llama-3.1-8b", "--tokens-per-s", "1000", "--gpu", "h100", "--recompute", "full"},
                 "--recompute");  // needs --train
}

}  // namespace
}  // namespace modelcalc
