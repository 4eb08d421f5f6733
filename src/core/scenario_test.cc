// Scenarios and their variations: a varied scenario is the engine on the
// changed options, nothing else. Expected numbers derived by hand (formula in
// each comment) on drill 1's model (drills.h): 48 layers, d 6144, 48 heads,
// 8 KV heads of 128, SwiGLU 16384, V 64000, untied: 19,509,805,056 params.
#include "modelcalc/scenario.h"

#include <gtest/gtest.h>

#include "drills.h"
#include "typed_gpus.h"

namespace modelcalc {
namespace {

GpuSpec Mi300x() {  // the drills' reference machine, typed out (typed_gpus.h)
  GpuSpec g = typed_mi300x();
  g.key = "mi300x";
  return g;
}

Scenario Drill1() {
  Scenario s{drill1_model(), Mi300x(), {}};
  s.options.context = 8192;
  return s;
}

TEST(ScenarioTest, VaryReplacesOnlyTheFieldsItSets) {
  const Scenario base = Drill1();
  ScenarioChange c;
  c.batch = 16;
  const Scenario v = vary(base, c);
  EXPECT_EQ(v.options.batch, 16);
  EXPECT_EQ(v.options.context, 8192);
  EXPECT_EQ(v.options.weight_dtype, Dtype::kBf16);
  EXPECT_FALSE(v.options.kv_dtype.has_value());
  EXPECT_TRUE(ScenarioChange{}.empty());
  EXPECT_FALSE(c.empty());
}

TEST(ScenarioTest, QuantizedWeightsKeepTheDefaultSixteenBitCache) {
  // --dtype int8 alone: the KV and the matmuls stay 16-bit (default_kv_dtype, default_compute_dtype),
  // so KV per token stays 48 x 8 x 256 x 2 B = 196,608 B while the block weights halve.
  ScenarioChange c;
  c.weight_dtype = Dtype::kInt8;
  auto v = evaluate_variation(Drill1(), c);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->after.prepared.kv_dtype, Dtype::kBf16);
  EXPECT_EQ(v->after.prepared.compute_dtype, Dtype::kBf16);
  EXPECT_EQ(v->after.result.memory.kv_per_token, 196'608);
  // Block matrices 48 x (2 x 6144^2 + 2 x 6144 x 1024 + 3 x 6144 x 16384) = 18,723,373,056 params at
  // 1 B, plus one 16-bit scale per 128 of them: 18,723,373,056 / 128 x 2 = 292,552,704 B.
  EXPECT_EQ(v->after.result.memory.weights.attention + v->after.result.memory.weights.mlp, 18'723'373'056);
  EXPECT_EQ(v->after.result.memory.weights.scales, 292'552'704);
}

TEST(ScenarioTest, AVariationIsTheEngineOnTheChangedOptions) {
  // The same deployment written out by hand: no arithmetic of its own.
  ScenarioChange c;
  c.kv_dtype = Dtype::kFp8;
  c.batch = 8;
  auto v = evaluate_variation(Drill1(), c);
  ASSERT_TRUE(v.ok());
  DeploymentOptions o;
  o.context = 8192;
  o.kv_dtype = Dtype::kFp8;
  o.batch = 8;
  auto direct = analyze_deployment_full(drill1_model(), Mi300x(), o);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(v->after.result.decode.seconds, direct->result.decode.seconds);
  EXPECT_EQ(v->after.result.memory.max_sequences, direct->result.memory.max_sequences);
  // fp8 KV: 196,608 / 2 = 98,304 B per token.
  EXPECT_EQ(v->after.result.memory.kv_per_token, 98'304);
}

TEST(ScenarioTest, EngineErrorsNameTheField) {
  ScenarioChange c;
  c.split = Parallelism{5, 1, 1, 1};  // 5 does not divide 48 heads
  auto v = evaluate_variation(Drill1(), c);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message().rfind("tp: ", 0), 0u) << v.status().message();
}

TEST(ScenarioTest, SmallestValidTpSkipsSplitsTheHeadsRefuse) {
  // 48 heads, 8 KV heads: tp must divide 48 and (divide 8 or be a multiple of 8): 1, 2, 4, 8, 16, 24, 48.
  EXPECT_EQ(smallest_valid_tp(Drill1(), 3, 64), 4);
  EXPECT_EQ(smallest_valid_tp(Drill1(), 9, 64), 16);
  EXPECT_EQ(smallest_valid_tp(Drill1(), 49, 64), 0);
}

TEST(ScenarioTest, ServingRegimeIsTheEngineAtTheLargestBatchThatFits) {
  // Drill 1 on one MI300X at 8,192 tokens, the ceiling (nothing kept back): W = 39,019,610,112 B;
  // free = 192e9 - W = 152,980,389,888 B; KV per sequence 196,608 x 8192 = 1,610,612,736 B
  // -> floor(94.98) = 94 sequences. At batch 94 a step reads ~W + 94 x 1.61 GB = 190 GB for
  // ~94 x 2 x 19.5e9 = 3.7 TFLOP: 19 FLOP/byte, far below the ridge 1307.4e12 / 5.3e12 = 247, so HBM
  // stops the batch first: capacity-bound.
  auto a = serving_regime(Drill1());
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->max_sequences, 94);
  EXPECT_EQ(a->regime, DeploymentRegime::kCapacityBound);
  ASSERT_TRUE(a->full.has_value());
  EXPECT_EQ(a->full->result.decode.batch, 94);
  EXPECT_EQ(a->full->result.decode.regime, DeploymentRegime::kBandwidthBound);

  // A GPU whose ridge is 1 FLOP/byte (peak = bandwidth): a batch of a few sequences passes it.
  Scenario cheap_flops = Drill1();
  cheap_flops.gpu.peak_bf16_flops = cheap_flops.gpu.bandwidth_bytes_per_s;
  auto b = serving_regime(cheap_flops);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->regime, DeploymentRegime::kComputeBound);

  // 30 GB of HBM: the 39 GB of weights do not fit, nothing is held.
  Scenario small = Drill1();
  small.gpu.capacity_bytes = 30e9;
  auto c = serving_regime(small);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->max_sequences, 0);
  EXPECT_EQ(c->regime, DeploymentRegime::kCapacityBound);
  EXPECT_FALSE(c->full.has_value());
}

}  // namespace
}  // namespace modelcalc
