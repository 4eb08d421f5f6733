// The roofline analysis (`modelcalc roofline` is tested in src/cli/cmd_roofline_test.cc).
// Every expected number is
// derived by hand in the comments.
#include "modelcalc/roofline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>


namespace modelcalc {
namespace {

// A tiny MHA model whose every number is easy by hand:
// L=2, d=64, h=4 (d_head 16), MHA, FFN 256 ungated, vocab 1000 untied.
//   per layer: q 64·64 = 4,096; kv 2·64·64 = 8,192; o 4,096; ffn 2·64·256 = 32,768 -> 49,152
//   blocks 2·49,152 = 98,304; embeddings 2·1,000·64 = 128,000; total 226,304
//   bf16 weights W = 452,608 B; KV per token 2·L·d_kv·2 B = 2·2·64·2 = 512 B.
ModelSpec tiny() {
  ModelSpec m;
  m.name = "tiny";
  m.n_layer = 2;
  m.n_embd = 64;
  m.n_head = 4;
  m.n_head_kv = 4;
  m.n_embd_head = 16;
  m.n_ff = 256;
  m.n_vocab = 1000;
  return m;
}

GpuSpec gpu(const char* name) { return find_gpu(name).value(); }

RooflineOptions tiny_options() {
  RooflineOptions o;
  o.batches = {2};
  o.context = 16;
  return o;  // bf16 weights, KV and math; GEMM 8192
}

TEST(Roofline, GemmFormulas) {
  // n = 8192: 2 n³ = 1,099,511,627,776 FLOP; 3 n² · 2 B = 402,653,184 B.
  EXPECT_EQ(square_gemm_flops(8192), 1099511627776.0);
  EXPECT_EQ(square_gemm_bytes(8192, 2), 402653184.0);
  // Residual stream of a 16-token prefill, L=2, d=64, bf16: 2·2·16·64·2 = 8,192 B.
  EXPECT_EQ(prefill_activation_bytes(2, 16, 64, 2), 8192.0);
}

TEST(Roofline, GpuRoofsListOnlyWhatTheGpuHas) {
  // A100 80GB SXM: bf16 312, no fp8, int8 624 TOP/s; bandwidth 2.039 TB/s.
  const auto roofs = gpu_roofs(gpu("a100"));
  ASSERT_EQ(roofs.size(), 2u);
  EXPECT_EQ(roofs[0].dtype, Dtype::kBf16);
  EXPECT_NEAR(roofs[0].ridge, 312.0 / 2.039, 1e-9);  // 153.016
  EXPECT_EQ(roofs[1].dtype, Dtype::kInt8);
  EXPECT_NEAR(roofs[1].ridge, 624.0 / 2.039, 1e-9);  // 306.03
  // H100 SXM has all three: 989.4, 1978.9, 1978.9.
  EXPECT_EQ(gpu_roofs(gpu("h100")).size(), 3u);
}

TEST(Roofline, TinyModelPointsByHand) {
  const ModelSpec m = tiny();
  const GpuSpec h100 = gpu("h100");
  auto r = analyze_roofline(&m, std::span(&h100, 1), tiny_options());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->points.size(), 3u);  // decode B=2, prefill, GEMM

  // Decode, B = 2, context 16: FLOP per token = 2·98,304 + 4·16·d_attn 64·L 2 = 196,608 + 8,192 = 204,800;
  // step FLOPs 2·204,800 = 409,600; bytes W + B·KV = 452,608 + 2·(16·512) = 468,992.
  const OperatingPoint& d = r->points[0];
  EXPECT_EQ(d.kind, PointKind::kDecode);
  EXPECT_EQ(d.flops, 409600.0);
  EXPECT_EQ(d.bytes, 468992.0);
  EXPECT_EQ(d.weight_bytes, 452608.0);
  EXPECT_EQ(d.kv_bytes, 16384.0);
  EXPECT_DOUBLE_EQ(d.intensity, 409600.0 / 468992.0);  // 0.8734

  // Prefill, T = 16: 2·98,304·16 + 4·16²·64·2 = 3,145,728 + 131,072 = 3,276,800 FLOP;
  // bytes W 452,608 + KV 8,192 + residual 2·2·16·64·2 = 8,192 -> 468,992.
  const OperatingPoint& p = r->points[1];
  EXPECT_EQ(p.kind, PointKind::kPrefill);
  EXPECT_EQ(p.flops, 3276800.0);
  EXPECT_EQ(p.weight_bytes, 452608.0);
  EXPECT_EQ(p.kv_bytes, 8192.0);
  EXPECT_EQ(p.activation_bytes, 8192.0);
  EXPECT_EQ(p.bytes, 468992.0);

  // GEMM 8192³ in bf16: I = 2n / (3·2) = 8192 / 3 = 2730.67.
  EXPECT_NEAR(r->points[2].intensity, 8192.0 / 3.0, 1e-9);

  // On the H100 (3.35 TB/s, 989.4 TFLOP/s, ridge 295.3): decode at I = 0.8734 is memory-bound,
  // attainable 3.35e12 · 0.8734 = 2.926e12; the GEMM is compute-bound at the peak.
  const GpuRoofline& g = r->gpus[0];
  EXPECT_TRUE(g.placed[0].memory_bound);
  EXPECT_NEAR(g.placed[0].attainable_flops, 3.35e12 * 409600.0 / 468992.0, 1);
  EXPECT_NEAR(g.placed[0].step_seconds, 468992.0 / 3.35e12, 1e-18);  // bytes / bw when memory-bound
  EXPECT_TRUE(g.placed[0].fits);
  EXPECT_FALSE(g.placed[2].memory_bound);
  EXPECT_EQ(g.placed[2].attainable_flops, 989.4e12);
  EXPECT_EQ(g.placed[2].peak_fraction, 1.0);  // at the peak
  EXPECT_NEAR(g.placed[0].peak_fraction, 3.35e12 * 409600.0 / 468992.0 / 989.4e12, 1e-15);  // 2.926e12 / 989.4e12 = 0.296 %
}

TEST(Roofline, DecodeIntensityGrowsWithBatchUntilKvDominates) {
  // I(B) = B·F / (W + B·KV) rises with B toward F / KV (= 204,800 / 8,192 = 25 here).
  const ModelSpec m = tiny();
  const GpuSpec h100 = gpu("h100");
  RooflineOptions o = tiny_options();
  o.batches = {1, 8, 64, 100000};
  auto r = analyze_roofline(&m, std::span(&h100, 1), o);
  ASSERT_TRUE(r.ok());
  for (size_t i = 1; i < 4; ++i) EXPECT_GT(r->points[i].intensity, r->points[i - 1].intensity);
  EXPECT_LT(r->points[3].intensity, 25.0);
  EXPECT_GT(r->points[3].intensity, 24.0);  // 100000·204800 / (452608 + 100000·8192) = 24.99
}

TEST(Roofline, FitsComparesWeightsAndKvWithCapacity) {
  // 80 GB H100; KV per sequence at T = 16 is 8,192 B, so B = 10,000,000 needs 81.9 GB of KV: no fit.
  const ModelSpec m = tiny();
  const GpuSpec h100 = gpu("h100");
  RooflineOptions o = tiny_options();
  o.batches = {1, 10000000};
  auto r = analyze_roofline(&m, std::span(&h100, 1), o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->gpus[0].placed[0].fits);
  EXPECT_FALSE(r->gpus[0].placed[1].fits);
}

TEST(Roofline, BadOptionsAreErrors) {
  const ModelSpec m = tiny();
  const GpuSpec a100 = gpu("a100");
  RooflineOptions o = tiny_options();
  o.batches = {};
  auto r = analyze_roofline(&m, std::span(&a100, 1), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("batches: ", 0), 0u);
  o = tiny_options();
  o.math_dtype = Dtype::kFp8;  // the A100 has no fp8 peak
  r = analyze_roofline(&m, std::span(&a100, 1), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("math_dtype: ", 0), 0u);
  EXPECT_NE(r.status().message().find("bf16, int8"), std::string::npos);
}

}  // namespace
}  // namespace modelcalc
