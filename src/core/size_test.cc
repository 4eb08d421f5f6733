#include "drills.h"
#include "modelcalc/size.h"

#include <gtest/gtest.h>

#include <cmath>

namespace modelcalc {
namespace {


// The seed's MI300X: 192 GB, 5.3 TB/s, 1307.4 TFLOP/s dense bf16.
GpuSpec Mi300x() {
  GpuSpec g;
  g.name = "MI300X";
  g.capacity_bytes = 192e9;
  g.bandwidth_bytes_per_s = 5.3e12;
  g.peak_bf16_flops = 1307.4e12;
  return g;
}

SizeOptions Seq8192() {
  SizeOptions o;
  o.context = 8192;
  return o;
}

TEST(SizeTest, Drill1Parameters) {
  auto r = analyze_size(drill1_model(), Mi300x(), Seq8192());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->d_head, 128);  // 6144 / 48
  EXPECT_EQ(r->d_kv, 1024);   // 8 x 128
  EXPECT_EQ(r->layer.total(), 390'070'272);
  EXPECT_NEAR(r->layer_over_d2, 10.333, 0.001);  // 390,070,272 / 6144^2 = 10 1/3
  EXPECT_EQ(r->blocks, 18'723'373'056);          // 48 x 390,070,272
  EXPECT_EQ(r->embeddings, 786'432'000);         // 2 x 64,000 x 6144
  EXPECT_EQ(r->total, 19'509'805'056);
  // 12 d^2 = 452,984,832 predicts; / 390,070,272 = 1.1613 (shortcut 16 % high).
  EXPECT_NEAR(r->shortcut_error, 1.1613, 0.0001);
}

TEST(SizeTest, Drill1MemoryAndFlops) {
  SizeOptions o = Seq8192();
  o.train_tokens = 1.5e12;
  auto r = analyze_size(drill1_model(), Mi300x(), o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->weight_bytes, 39'019'610'112);  // 2 B x 19,509,805,056
  EXPECT_EQ(r->weight_bytes_by_dtype[4], 19'509'805'056);  // int8: 1 B each
  EXPECT_EQ(r->weight_bytes_by_dtype[5], 9'754'902'528);   // int4: 0.5 B each
  EXPECT_DOUBLE_EQ(r->forward_per_token, 37'446'746'112.0);  // 2 x 18,723,373,056
  // 6 N D = 6 x 19,509,805,056 x 1.5e12 = 1.7559e23
  EXPECT_NEAR(r->train_flops / 1e23, 1.75588, 1e-5);
  // Linear 2 x 18,723,373,056 x 8192 = 3.0676e14; attention 4 x 8192^2 x 6144 x 48 = 7.9164e13.
  EXPECT_NEAR(r->prefill_linear, 2.0 * 18'723'373'056.0 * 8192, 1e3);
  EXPECT_NEAR(r->prefill_attention, 4.0 * 8192.0 * 8192 * 6144 * 48, 1e3);
  EXPECT_NEAR(r->prefill_total / 1e14, 3.859, 0.001);
  EXPECT_NEAR(r->attention_fraction, 0.205, 0.001);
  // Decode at 8192 context: 2 x 18,723,373,056 + 4 x 8192 x 6144 x 48 = 4.7110e10.
  EXPECT_NEAR(r->decode_per_token / 1e10, 4.711, 0.001);
  // Crossover (2 + m) d with m = 8/3 (FFN 8 d^2 over 3 matrices... per layer 10 1/3 d^2):
  // P_layer / (2 d) = 390,070,272 / 12,288 = 31,744 tokens.
  EXPECT_DOUBLE_EQ(r->crossover_tokens, 31'744.0);
}

TEST(SizeTest, Drill1KvCache) {
  auto r = analyze_size(drill1_model(), Mi300x(), Seq8192());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kv_per_token, 196'608);       // 2 x 48 x 1024 x 2 B
  EXPECT_EQ(r->kv_per_seq, 1'610'612'736);   // x 8192
  EXPECT_EQ(r->kv_mha_per_seq, 9'663'676'416);  // 48 KV heads: x 6
  EXPECT_DOUBLE_EQ(r->kv_mha_ratio, 6.0);
}

TEST(SizeTest, Drill1DecodeCeilingAndRegime) {
  auto r = analyze_size(drill1_model(), Mi300x(), Seq8192());
  ASSERT_TRUE(r.ok());
  // 5.3e12 B/s / 39,019,610,112 B = 135.83 tokens/s.
  EXPECT_NEAR(r->tokens_per_s_weights_only, 135.83, 0.01);
  // 5.3e12 / (39,019,610,112 + 1,610,612,736) = 5.3e12 / 40,630,222,848 = 130.44.
  EXPECT_NEAR(r->tokens_per_s_with_kv, 130.44, 0.01);
  EXPECT_NEAR(r->ridge, 246.68, 0.01);                // 1307.4 / 5.3
  EXPECT_NEAR(r->intensity_one_token, 0.99967, 1e-5);  // 6144 / 6146
  EXPECT_NEAR(r->intensity_full_prompt, 2234.18, 0.01);  // 8192 x 6144 / (6144 + 16384)
  // (192e9 - 39,019,610,112) / 1,610,612,736 = 94.98 -> 94 sequences.
  EXPECT_EQ(r->max_batch_by_capacity, 94);
  // Exact: T = R b d / (2 (d - R b)) = 246.68 x 2 x 6144 / (2 x (6144 - 493.36)) = 268.2.
  EXPECT_NEAR(r->compute_bound_batch, 268.2, 0.1);
  EXPECT_NEAR(r->compute_bound_batch_approx, 246.68, 0.01);  // R b / 2 with b = 2
}

TEST(SizeTest, Int8HalvesWeightsAndDoublesCeiling) {
  SizeOptions o = Seq8192();
  o.weight_dtype = Dtype::kInt8;
  auto r8 = analyze_size(drill1_model(), Mi300x(), o);
  auto r16 = analyze_size(drill1_model(), Mi300x(), Seq8192());
  ASSERT_TRUE(r8.ok() && r16.ok());
  EXPECT_EQ(2 * r8->weight_bytes, r16->weight_bytes);
  EXPECT_NEAR(r8->tokens_per_s_weights_only, 2 * r16->tokens_per_s_weights_only, 1e-9);
  EXPECT_NEAR(r8->tokens_per_s_weights_only, 271.66, 0.01);  // 5.3e12 / 19,509,805,056
}

TEST(SizeTest, CeilingScalesWithBandwidth) {
  GpuSpec h100 = Mi300x();
  h100.bandwidth_bytes_per_s = 3.35e12;
  auto r = analyze_size(drill1_model(), h100, Seq8192());
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->tokens_per_s_weights_only, 85.85, 0.01);  // 3.35e12 / 39,019,610,112
}

TEST(SizeTest, GqaDividesKvByGroupSize) {
  ModelSpec mha = drill1_model();
  mha.n_head_kv = 48;
  auto a = analyze_size(mha, Mi300x(), Seq8192());
  auto b = analyze_size(drill1_model(), Mi300x(), Seq8192());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->kv_per_seq, b->kv_per_seq * 6);  // 48 / 8
}

TEST(SizeTest, BatchRaisesAggregateLessThanLinearlyOnceKvMatters) {
  SizeOptions o = Seq8192();
  o.batch = 64;
  auto r64 = analyze_size(drill1_model(), Mi300x(), o);
  auto r1 = analyze_size(drill1_model(), Mi300x(), Seq8192());
  ASSERT_TRUE(r64.ok() && r1.ok());
  // 64 x 5.3e12 / (39.02e9 + 64 x 1.6106e9) = 3.392e14 / 1.4210e11 = 2387 tokens/s.
  EXPECT_NEAR(r64->tokens_per_s_aggregate, 64 * 5.3e12 / (39'019'610'112.0 + 64 * 1'610'612'736.0), 1e-6);
  EXPECT_GT(r64->tokens_per_s_aggregate, r1->tokens_per_s_aggregate);
  EXPECT_LT(r64->tokens_per_s_aggregate, 64 * r1->tokens_per_s_aggregate);
}

TEST(SizeTest, WeightsThatDoNotFitAreSaid) {
  GpuSpec small = Mi300x();
  small.capacity_bytes = 24e9;
  auto r = analyze_size(drill1_model(), small, Seq8192());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->fits);
  EXPECT_EQ(r->max_batch_by_capacity, 0);
}

TEST(SizeTest, SlidingWindowCapsKvAndAttention) {
  ModelSpec m = drill1_model();
  m.n_swa = 4096;
  m.set_swa_pattern(1);  // every layer
  auto r = analyze_size(m, Mi300x(), Seq8192());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kv_per_seq, 196'608LL * 4096);  // each layer keeps 4096 of 8192 tokens
  // Prefill attention: 4 x T x min(T, W) x d x L = 4 x 8192 x 4096 x 6144 x 48.
  EXPECT_NEAR(r->prefill_attention, 4.0 * 8192 * 4096 * 6144 * 48, 1e3);
}

TEST(SizeTest, MoeSingleStreamReadsOnlyActiveExperts) {
  // A toy MoE: 2 layers, d 1024, 8 experts of width 4096 (gated), top-2, V 1000 untied.
  ModelSpec m;
  m.n_layer = 2;
  m.n_embd = 1024;
  m.n_head = 8;
  m.n_head_kv = 8;
  m.n_embd_head = 128;
  m.ffn_gated = true;
  m.n_vocab = 1000;
  m.n_expert = 8;
  m.n_expert_used = 2;
  m.n_ff_exp = 4096;
  auto r = analyze_size(m, Mi300x(), Seq8192());
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Per layer: attention 4 x 1024^2 = 4,194,304; one expert 3 x 1024 x 4096 = 12,582,912;
  // router 1024 x 8 = 8192. Embeddings 2 x 1000 x 1024 = 2,048,000.
  // Total = 2 x (4,194,304 + 100,663,296 + 8,192) + 2,048,000
  //       = 2 x 104,865,792 + 2,048,000 = 211,779,584.
  EXPECT_EQ(r->total, 211'779'584);
  // Active = 2 x (4,194,304 + 2 x 12,582,912 + 8,192) + 2,048,000
  //        = 2 x 29,368,320 + 2,048,000 = 60,784,640.
  EXPECT_EQ(r->active, 60'784'640);
  // Batch-1 decode reads the active parameters: 60,784,640 x 2 B.
  EXPECT_DOUBLE_EQ(r->decode_weight_bytes, 60'784'640.0 * 2);
}

TEST(SizeTest, BadOptionsAreRefused) {
  SizeOptions o = Seq8192();
  o.context = 0;
  EXPECT_FALSE(analyze_size(drill1_model(), Mi300x(), o).ok());
  o = Seq8192();
  o.batch = -1;
  EXPECT_FALSE(analyze_size(drill1_model(), Mi300x(), o).ok());
  ModelSpec bad = drill1_model();
  bad.n_head_kv = 7;  // does not divide 48
  EXPECT_FALSE(analyze_size(bad, Mi300x(), Seq8192()).ok());
}

TEST(SizeTest, HugeContextOverflowIsReported) {
  SizeOptions o;
  o.context = 4'000'000'000'000'000'000LL;  // x 196,608 B per token overflows int64
  auto r = analyze_size(drill1_model(), Mi300x(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kOverflow);
}

}  // namespace
}  // namespace modelcalc
