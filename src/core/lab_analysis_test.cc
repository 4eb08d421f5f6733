#include "modelcalc/lab_analysis.h"

#include <gtest/gtest.h>

namespace modelcalc {
namespace {

TEST(LabAnalysis, TrainWithoutAGpuIsFlopsOnly) {
  TrainQuery q;
  q.params = 70e9;
  q.tokens = 1.4e12;
  const TrainResult r = analyze_train(q);
  EXPECT_DOUBLE_EQ(r.flops, 5.88e23);  // 6 · 70e9 · 1.4e12
  EXPECT_DOUBLE_EQ(r.tokens_per_param, 20);  // 1.4e12 / 70e9
  EXPECT_FALSE(r.time.has_value());
}

TEST(LabAnalysis, TrainOnAGpuGivesHoursAndDays) {
  TrainQuery q;
  q.params = 70e9;
  q.tokens = 1.4e12;
  GpuSpec g;
  g.peak_bf16_flops = 1e15;
  q.gpu = g;
  q.gpus = 1000;
  q.mfu = 0.5;
  const TrainResult r = analyze_train(q);
  ASSERT_TRUE(r.time.has_value());
  EXPECT_DOUBLE_EQ(r.time->peak_flops_per_gpu, 1e15);
  // 5.88e23 / (1e15 · 0.5) / 3600 = 1.176e9 s / 3600 = 326,666.67 GPU-hours
  EXPECT_NEAR(r.time->gpu_hours, 1.176e9 / 3600, 1e-6);
  // 326,666.67 / 1000 GPUs / 24 = 13.611 days
  EXPECT_NEAR(r.time->days, 1.176e9 / 3600 / 1000 / 24, 1e-12);
}

TEST(LabAnalysis, ChinchillaFromParamsOrFromCompute) {
  ChinchillaQuery by_n;
  by_n.params = 70e9;
  const ChinchillaResult a = analyze_chinchilla(by_n);
  EXPECT_DOUBLE_EQ(a.params, 70e9);
  EXPECT_DOUBLE_EQ(a.tokens, 1.4e12);    // 20 · N
  EXPECT_DOUBLE_EQ(a.compute, 5.88e23);  // 6 · N · 20N = 120 · (7e10)²

  ChinchillaQuery by_c;
  by_c.compute = 5.88e23;
  const ChinchillaResult b = analyze_chinchilla(by_c);
  EXPECT_DOUBLE_EQ(b.compute, 5.88e23);
  EXPECT_NEAR(b.params, 70e9, 1e-3);  // sqrt(5.88e23 / 120) = sqrt(4.9e21) = 7e10
  EXPECT_NEAR(b.tokens, 1.4e12, 1e-2);
}

TEST(LabAnalysis, CostFromAMeasuredRate) {
  // 8 GPUs × $2/h = $16/h; 1,000 tokens/s = 3.6e6 tokens/h; $16 / 3.6 per 1M tokens = $4.444
  const CostRateResult r = analyze_cost_rate({2.0, 1000.0, 8});
  EXPECT_NEAR(r.usd_per_million_tokens, 16.0 / 3.6, 1e-12);
}

TEST(LabAnalysis, MfuInferenceAndTraining) {
  MfuQuery q;
  q.tokens_per_s = 1000;
  q.params = 7e9;
  q.peak_per_gpu = 1e15;
  q.gpus = 2;
  const MfuResult inf = analyze_mfu(q);
  EXPECT_DOUBLE_EQ(inf.flops_per_token_factor, 2);
  EXPECT_DOUBLE_EQ(inf.flops_per_token, 14e9);  // 2 · 7e9
  EXPECT_DOUBLE_EQ(inf.peak_flops, 2e15);       // 1e15 · 2
  EXPECT_NEAR(inf.mfu, 0.007, 1e-15);           // 1000 · 14e9 / 2e15
  q.mode = MfuMode::kTraining;
  const MfuResult tr = analyze_mfu(q);
  EXPECT_DOUBLE_EQ(tr.flops_per_token, 42e9);  // 6 · 7e9
  EXPECT_NEAR(tr.mfu, 0.021, 1e-15);           // 1000 · 42e9 / 2e15
}

}  // namespace
}  // namespace modelcalc
