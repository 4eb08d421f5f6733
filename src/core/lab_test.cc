// The lab's formulas (formulas.h, lab.h) against numbers derived by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "modelcalc/formulas.h"
#include "modelcalc/lab.h"

namespace modelcalc {
namespace {

TEST(LabFormulasTest, TrainingIsSixNDAndInferenceTwoN) {
  // Small integers make the check exact: 6 · 10 · 3 = 180; 2 · 10 = 20; 2 · 10 · 3 = 60.
  EXPECT_EQ(training_flops(10, 3), 180.0);
  EXPECT_EQ(forward_flops_per_token(10), 20.0);
  EXPECT_EQ(inference_flops(10, 3), 60.0);
  // 70B on 2T tokens: 6 · 70e9 · 2e12 = 8.4e23.
  EXPECT_DOUBLE_EQ(training_flops(70e9, 2e12), 8.4e23);
  // Training one token is three forward passes: 6N = 3 · 2N.
  EXPECT_EQ(training_flops(123, 1), 3 * forward_flops_per_token(123));
}

TEST(LabFormulasTest, WeightMemoryAcrossDtypes) {
  // 7e9 params: fp32 4 B = 28e9; fp16/bf16 2 B = 14e9; fp8/int8 1 B = 7e9; int4 0.5 B = 3.5e9.
  const Exact n = 7'000'000'000;
  EXPECT_EQ(weight_memory_bytes(n, Dtype::kFp32).value(), 28'000'000'000);
  EXPECT_EQ(weight_memory_bytes(n, Dtype::kFp16).value(), 14'000'000'000);
  EXPECT_EQ(weight_memory_bytes(n, Dtype::kBf16).value(), 14'000'000'000);
  EXPECT_EQ(weight_memory_bytes(n, Dtype::kFp8).value(), 7'000'000'000);
  EXPECT_EQ(weight_memory_bytes(n, Dtype::kInt8).value(), 7'000'000'000);
  EXPECT_EQ(weight_memory_bytes(n, Dtype::kInt4).value(), 3'500'000'000);
  // An odd count in int4 rounds up to whole bytes: ceil(3 · 4 / 8) = ceil(1.5) = 2.
  EXPECT_EQ(weight_memory_bytes(3, Dtype::kInt4).value(), 2);
}

TEST(LabFormulasTest, WeightMemoryOverflowsOnlyWhenTheBytesDoNotFit) {
  // 2^61 params in fp32 are 2^63 B: one past INT64_MAX (2^63 - 1), so overflow; one param fewer is
  // 4 (2^61 - 1) = 2^63 - 4 B, which fits although its bit count 32 (2^61 - 1) would not.
  const int64_t two61 = int64_t{1} << 61;
  EXPECT_TRUE(weight_memory_bytes(two61, Dtype::kFp32).overflow());
  const Exact fp32 = weight_memory_bytes(two61 - 1, Dtype::kFp32);
  EXPECT_FALSE(fp32.overflow());
  EXPECT_EQ(fp32.value(), INT64_MAX - 3);
  // int4 counts bits: (2^61 - 1) · 4 = 2^63 - 4 fits, ceil((2^63 - 4) / 8) = 2^60 (2^63 - 4 = 8 · (2^60 - 1) + 4).
  const Exact int4 = weight_memory_bytes(two61 - 1, Dtype::kInt4);
  EXPECT_FALSE(int4.overflow());
  EXPECT_EQ(int4.value(), int64_t{1} << 60);
  // And 2^61 params in int4 are 2^63 bits: overflow, though the 2^60 bytes would fit.
  EXPECT_TRUE(weight_memory_bytes(two61, Dtype::kInt4).overflow());
}

TEST(LabFormulasTest, CeilDivRoundsUpOnlyWithARemainder) {
  // 16 / 8 = 2 exactly; 17 / 8 = 2.125 -> 3; 0 / 8 = 0; INT64_MAX / 8 = 1152921504606846975.875 -> ...976.
  EXPECT_EQ(ceil_div(Exact(16), 8).value(), 2);
  EXPECT_EQ(ceil_div(Exact(17), 8).value(), 3);
  EXPECT_EQ(ceil_div(Exact(0), 8).value(), 0);
  EXPECT_EQ(ceil_div(Exact(INT64_MAX), 8).value(), 1152921504606846976);
  // A divisor that is not a power of two: 10 / 3 = 3.33 -> 4; 9 / 3 = 3.
  EXPECT_EQ(ceil_div(Exact(10), 3).value(), 4);
  EXPECT_EQ(ceil_div(Exact(9), 3).value(), 3);
  EXPECT_TRUE(ceil_div(Exact(INT64_MAX) + Exact(1), 8).overflow());
}

TEST(LabFormulasTest, KvCacheMhaMatchesTheLab) {
  // 2 · L · T · d · b · batch = 2 · 32 · 4096 · 4096 · 2 · 1 = 2^1 · 2^5 · 2^12 · 2^12 · 2^1 = 2^31.
  const Exact kv = kv_cache_bytes(32, 4096, 4096, Dtype::kFp16, 1, 32, 32);
  EXPECT_FALSE(kv.overflow());
  EXPECT_EQ(kv.value(), 2'147'483'648);
}

TEST(LabFormulasTest, KvCacheGqaIsNkvOverNHead) {
  // d_kv = 4096 · 8 / 32 = 1024, so 2 · 32 · 4096 · 1024 · 2 = 2^29 = 536,870,912 (a quarter of MHA).
  EXPECT_EQ(kv_cache_bytes(32, 4096, 4096, Dtype::kFp16, 1, 32, 8).value(), 536'870'912);
  // Batch multiplies: 8 sequences = 8 · 2^29 = 2^32.
  EXPECT_EQ(kv_cache_bytes(32, 4096, 4096, Dtype::kFp16, 8, 32, 8).value(), 4'294'967'296);
  // int8 halves it: 2^28.
  EXPECT_EQ(kv_cache_bytes(32, 4096, 4096, Dtype::kInt8, 1, 32, 8).value(), 268'435'456);
}

TEST(LabFormulasTest, KvCacheOverflowIsReportedNotWrapped) {
  // 2 · 1e6 · 1e6 · 1e6 · 2 overflows int64 (~9.2e18).
  EXPECT_TRUE(kv_cache_bytes(1'000'000, 1'000'000, 1'000'000, Dtype::kFp16, 1, 1, 1).overflow());
}

TEST(LabFormulasTest, RooflineA100) {
  // Ridge = 312e12 / 2e12 = 156 FLOP/byte.
  EXPECT_DOUBLE_EQ(roofline_ridge_intensity(312e12, 2.0e12), 156.0);
  EXPECT_TRUE(is_memory_bound(1.0, 312e12, 2.0e12));     // 1 < 156
  EXPECT_FALSE(is_memory_bound(500.0, 312e12, 2.0e12));  // 500 > 156
  // Attainable = min(peak, bw · I): at I = 1, 2e12 · 1 = 2e12; at I = 500, min(312e12, 1e15) = 312e12.
  EXPECT_DOUBLE_EQ(roofline_attainable_flops(1.0, 312e12, 2.0e12), 2e12);
  EXPECT_DOUBLE_EQ(roofline_attainable_flops(500.0, 312e12, 2.0e12), 312e12);
  // Decode at batch 1 in fp16: 2 FLOP per parameter over 2 bytes per parameter = 1 FLOP/byte.
  EXPECT_DOUBLE_EQ(arithmetic_intensity(2.0 * 7e9, 2.0 * 7e9), 1.0);
}

TEST(LabFormulasTest, DecodeScalesAboutLinearlyWhileKvIsSmall) {
  // bw 2e12 B/s, weights 14e9 B, KV 1e6 B per sequence (tiny next to the weights).
  // tps(B) = B · 2e12 / (14e9 + B · 1e6): tps(1) = 2e12 / 14.001e9 = 142.847...;
  // tps(64) / tps(1) = 64 · 14.001e9 / 14.064e9 = 63.71..., i.e. within 1 % of 64.
  const double bw = 2e12, w = 14e9, small_kv = 1e6;
  const double one = decode_tokens_per_sec(bw, w, small_kv, 1);
  EXPECT_NEAR(one, 2e12 / 14.001e9, 1e-9);
  const double ratio = decode_tokens_per_sec(bw, w, small_kv, 64) / one;
  EXPECT_NEAR(ratio, 64.0 * 14.001e9 / 14.064e9, 1e-9);
  EXPECT_GT(ratio, 0.99 * 64);
  // With KV = 14e9 per sequence (as large as the weights): tps(64)/tps(1) = 64 · 28e9 / (14e9 + 64 · 14e9)
  // = 64 · 2 / 65 = 1.969..., far from linear: the KV read, not the weight read, dominates.
  const double big_kv = 14e9;
  const double sub = decode_tokens_per_sec(bw, w, big_kv, 64) / decode_tokens_per_sec(bw, w, big_kv, 1);
  EXPECT_NEAR(sub, 128.0 / 65.0, 1e-12);
  // Bytes per step: 14e9 + 64 · 1e6 = 14.064e9.
  EXPECT_DOUBLE_EQ(decode_step_bytes(w, small_kv, 64), 14.064e9);
}

TEST(LabFormulasTest, CostPerMillionTokens) {
  // $2.50/h · 8 GPUs / (1000 tok/s · 3600 s/h) · 1e6 = 20 / 3.6e6 · 1e6 = 5.5555...
  EXPECT_NEAR(cost_per_million_tokens(2.5, 1000, 8), 20.0 / 3.6, 1e-12);
  // $3/h, 1 GPU, 3600 tok/s: 3 / (3600 · 3600) · 1e6 = 0.231481...
  EXPECT_NEAR(cost_per_million_tokens(3, 3600, 1), 3e6 / (3600.0 * 3600.0), 1e-12);
}

TEST(LabFormulasTest, MfuInferenceAndTraining) {
  // 3000 tok/s · 2 · 7e9 / 312e12 = 4.2e13 / 3.12e14 = 0.134615...
  EXPECT_NEAR(mfu(3000, 7e9, 312e12, MfuMode::kInference), 4.2e13 / 3.12e14, 1e-15);
  // Training counts 6N per token: three times the inference figure.
  EXPECT_NEAR(mfu(3000, 7e9, 312e12, MfuMode::kTraining), 1.26e14 / 3.12e14, 1e-15);
}

TEST(LabFormulasTest, ChinchillaRoundTrip) {
  // D = 20 N: 70e9 -> 1.4e12.
  EXPECT_DOUBLE_EQ(chinchilla_optimal_tokens(70e9), 1.4e12);
  // C = 6 · N · 20N = 120 N²; N = 1e9 -> C = 1.2e20 -> sqrt(1.2e20 / 120) = sqrt(1e18) = 1e9.
  const ChinchillaPoint p = chinchilla_optimal_params(1.2e20);
  EXPECT_DOUBLE_EQ(p.params, 1e9);
  EXPECT_DOUBLE_EQ(p.tokens, 2e10);
  // Round trip for an awkward N: params -> compute -> params.
  for (double n : {70e9, 8.03e9, 123456789.0}) {
    const double c = training_flops(n, chinchilla_optimal_tokens(n));
    EXPECT_NEAR(chinchilla_optimal_params(c).params / n, 1.0, 1e-12) << n;
  }
  // The paper's budget 5.76e23: sqrt(5.76e23 / 120) = sqrt(4.8e21) = 6.9282e10 (69.3B).
  EXPECT_NEAR(chinchilla_optimal_params(5.76e23).params, std::sqrt(4.8e21), 1.0);
}

TEST(LabFormulasTest, TrainingTime) {
  // 8.4e23 FLOP at 989.4e12 · 0.4 = 3.9576e14 FLOP/s: 8.4e23 / 3.9576e14 = 2.1224985e9 s, / 3600 = 589,582.9 GPU-hours;
  // on 2048 GPUs: / 2048 / 24 = 11.995 days.
  const double h = training_gpu_hours(8.4e23, 989.4e12, 0.4);
  EXPECT_NEAR(h, 8.4e23 / 3.9576e14 / 3600, 1e-6);
  EXPECT_NEAR(h, 589582.9, 0.1);
  EXPECT_NEAR(training_days(h, 2048), 11.995, 0.001);
  // 48 GPU-hours on 2 GPUs = 1 day.
  EXPECT_DOUBLE_EQ(training_days(48, 2), 1.0);
}

TEST(LabFormulasTest, DecodeComputeCeiling) {
  // 1e15 FLOP/s over 2e10 FLOP per token = 5e4 tokens/s.
  EXPECT_DOUBLE_EQ(decode_compute_ceiling(1e15, 2e10), 5e4);
}

}  // namespace
}  // namespace modelcalc
