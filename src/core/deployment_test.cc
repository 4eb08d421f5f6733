// The deployment engine against numbers derived by hand (formula in each
// comment). Models are hand-typed shapes (seed matrices-only counts) so that
// every expectation can be recomputed on paper.
#include "modelcalc/deployment.h"

#include <gtest/gtest.h>

#include <cmath>

#include "drills.h"
#include "typed_gpus.h"

namespace modelcalc {
namespace {

// An H100 SXM as the catalog gives it (typed_gpus.h), with its int8 peak.
GpuSpec H100() {
  GpuSpec g = typed_h100();
  g.peak_int8_ops = 1978.9e12;
  return g;
}

GpuSpec Mi300x() { return typed_mi300x(); }

// Llama-3.1-70B's shape: 80 layers, d 8192, 64 heads, 8 KV heads of 128, SwiGLU 28672, V 128256.
ModelSpec Llama70b() {
  ModelSpec m;
  m.n_layer = 80;
  m.n_embd = 8192;
  m.n_head = 64;
  m.n_head_kv = 8;
  m.n_embd_head = 128;
  m.n_ff = 28672;
  m.ffn_gated = true;
  m.n_vocab = 128256;
  return m;
}

// Mixtral-8x7B's shape: 32 layers, d 4096, 32 heads, 8 KV heads, 8 experts of 14336, top-2.
ModelSpec Mixtral() {
  ModelSpec m;
  m.n_layer = 32;
  m.n_embd = 4096;
  m.n_head = 32;
  m.n_head_kv = 8;
  m.n_embd_head = 128;
  m.n_ff = 14336;
  m.ffn_gated = true;
  m.n_vocab = 32000;
  m.n_expert = 8;
  m.n_expert_used = 2;
  m.n_ff_exp = 14336;
  return m;
}

// DeepSeek-V3's attention: 61 layers, 128 heads, MLA latent 512 + RoPE key 64.
ModelSpec DeepSeekV3() {
  ModelSpec m;
  m.n_layer = 61;
  m.n_embd = 7168;
  m.n_head = 128;
  m.n_head_kv = 128;
  m.n_embd_head = 128;
  m.n_ff = 18432;
  m.ffn_gated = true;
  m.n_vocab = 129280;
  m.n_expert = 256;
  m.n_expert_used = 8;
  m.n_expert_shared = 1;
  m.n_ff_exp = 2048;
  m.n_ff_shexp = 2048;
  m.n_layer_dense_lead = 3;
  m.n_lora_q = 1536;
  m.n_lora_kv = 512;
  m.n_rot = 64;
  m.n_embd_head_k = 192;
  m.n_embd_head_v = 128;
  return m;
}

DeploymentOptions Split(int64_t tp, int64_t pp = 1) {
  DeploymentOptions o;
  o.split.tp = tp;
  o.split.pp = pp;
  return o;
}

TEST(DeploymentTest, Drill1WeightsOnOneGpuAreTheTextbookBytes) {
  DeploymentOptions o;
  o.context = 8192;
  auto r = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const WeightShard& w = r->memory.weights;
  EXPECT_EQ(w.embeddings, 786'432'000);  // 64,000 x 6144 x 2 B
  EXPECT_EQ(w.lm_head, 786'432'000);
  EXPECT_EQ(w.attention, 8'455'716'864);  // 48 x (2 x 6144^2 + 2 x 6144 x 1024) x 2 B
  EXPECT_EQ(w.mlp, 28'991'029'248);       // 48 x 3 x 6144 x 16384 x 2 B
  EXPECT_EQ(w.total(), 39'019'610'112);   // = drill 1's 19,509,805,056 params x 2 B
  EXPECT_EQ(r->memory.kv_per_token, 196'608);         // 48 x 8 x (128 + 128) x 2 B
  EXPECT_EQ(r->memory.kv_per_sequence, 1'610'612'736);  // x 8192
}

TEST(DeploymentTest, KvHeadsReplicatedPastTheirCount) {
  // 70B: 80 layers x (K + V = 256 elements per head) x 2 B = 40,960 B per KV head per token.
  // TP 16 > 8 KV heads: every GPU holds one whole head, so 40,960 B/token/GPU (not 327,680 / 16 = 20,480).
  for (int64_t tp : {8, 16}) {
    auto r = analyze_deployment(Llama70b(), H100(), Split(tp));
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->memory.kv_per_token, 40'960) << "tp " << tp;
  }
  auto r4 = analyze_deployment(Llama70b(), H100(), Split(4));
  ASSERT_TRUE(r4.ok());
  EXPECT_EQ(r4->memory.kv_per_token, 81'920);  // 2 heads per GPU
}

TEST(DeploymentTest, Llama70bOn16H100At8kFitCount) {
  // Per GPU at TP 16 (bf16): attention per layer: q + o = 2 x 8192^2 = 134,217,728 split 16 ways
  // = 8,388,608, plus one KV head's k, v = 2 x 8192 x 128 = 2,097,152 -> 10,485,760 x 80 layers
  // = 838,860,800 params; MLP 3 x 8192 x 28672 / 16 x 80 = 3,523,215,360; embedding and lm_head
  // 128,256 x 8192 / 16 = 65,667,072 each. Bytes: 2 x (838,860,800 + 3,523,215,360 + 2 x 65,667,072)
  // = 8,986,820,608. The ceiling keeps nothing back: room = 80e9 - 8,986,820,608 = 71,013,179,392 B;
  // KV per sequence 40,960 x 8192 = 335,544,320 -> floor(211.64) = 211.
  DeploymentOptions o = Split(16);
  o.context = 8192;
  auto r = analyze_deployment(Llama70b(), H100(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->memory.weights.total(), 8'986'820'608);
  EXPECT_EQ(r->memory.kv_per_sequence, 335'544'320);
  EXPECT_DOUBLE_EQ(r->memory.reserve, 0.0);
  EXPECT_DOUBLE_EQ(r->memory.workspace, 0.0);
  EXPECT_DOUBLE_EQ(r->memory.free_for_kv, 71'013'179'392.0);
  EXPECT_EQ(r->memory.max_sequences, 211);
  // The nominal view on request: a 10 % reserve and kv-budget's workspace allowance, 2048 tokens x
  // (2 x 28672 / 16 + 128,256 / 16) x 2 B = 2048 x (3584 + 8016) x 2 = 47,513,600. Room: 80e9 x 0.9
  // - 47,513,600 - 8,986,820,608 = 62,965,665,792 B -> floor(187.65) = 187.
  o.reserve_fraction = 0.1;
  o.workspace_allowance = true;
  auto n = analyze_deployment(Llama70b(), H100(), o);
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_DOUBLE_EQ(n->memory.workspace, 47'513'600.0);
  EXPECT_DOUBLE_EQ(n->memory.free_for_kv, 62'965'665'792.0);
  EXPECT_EQ(n->memory.max_sequences, 187);
}

TEST(DeploymentTest, CapacityIsTheDriverExposedMemoryWhenCatalogued) {
  // An H100 whose driver exposes 81,559 MiB = 85,520,809,984 B (nvidia-smi): the ceiling's room is that
  // less the same 8,986,820,608 B of weights = 76,533,989,376 B -> floor(76,533,989,376 / 335,544,320)
  // = floor(228.09) = 228 sequences, where the nominal 80 GB gave 211.
  GpuSpec g = H100();
  g.exposed_bytes = 81559.0 * 1048576.0;
  DeploymentOptions o = Split(16);
  o.context = 8192;
  auto r = analyze_deployment(Llama70b(), g, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->memory.capacity, 85'520'809'984.0);
  EXPECT_DOUBLE_EQ(r->memory.free_for_kv, 76'533'989'376.0);
  EXPECT_EQ(r->memory.max_sequences, 228);
}

TEST(DeploymentTest, MlaLatentHeldWholeOnEveryTensorRank) {
  // 61 layers x (512 + 64) x 2 B = 70,272 B per token, on every GPU whatever tp.
  for (int64_t tp : {1, 8, 16}) {
    auto r = analyze_deployment(DeepSeekV3(), H100(), Split(tp));
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->memory.kv_per_token, 70'272) << "tp " << tp;
  }
}

TEST(DeploymentTest, MlaDecodeAttentionIsTheAbsorbedForm) {
  // Absorbed: 2 x T x h x (d_c + d_rope + d_c) per layer = 2 x 32768 x 128 x 1088 x 61 at batch 1.
  DeploymentOptions o = Split(1);
  o.context = 32768;
  o.weight_dtype = Dtype::kFp8;
  GpuSpec g = H100();
  g.capacity_bytes = 1e13;  // room for the whole model on "one GPU", to read the FLOPs
  auto r = analyze_deployment(DeepSeekV3(), g, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->decode.flops.attention, 2.0 * 32768 * 128 * 1088 * 61);
  // The decompressed form would be 2 x T x h x (192 + 128): 1088 / 320 = 3.4x fewer.
  EXPECT_NEAR(r->decode.flops.attention / (2.0 * 32768 * 128 * 320 * 61), 3.4, 1e-12);
}

TEST(DeploymentTest, MoeReadsTheExpectedDistinctExperts) {
  // One expert = 3 x 4096 x 14336 = 176,160,768 params = 352,321,536 B in bf16.
  // Batch 1: k = 2 experts per layer; batch 2: 8 (1 - (6/8)^2) = 3.5; 32 MoE layers.
  for (auto [batch, touched] : {std::pair<int64_t, double>{1, 2.0}, {2, 3.5}}) {
    DeploymentOptions o = Split(1);
    o.batch = batch;
    GpuSpec g = H100();
    g.capacity_bytes = 200e9;
    auto r = analyze_deployment(Mixtral(), g, o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_DOUBLE_EQ(r->decode.experts_touched, touched);
    EXPECT_NEAR(r->decode.bytes.experts, 32 * touched * 352'321'536.0, 1e-3);
  }
}

TEST(DeploymentTest, DecodeReadsEmbeddingRowsAndTheWholeLmHead) {
  // Drill 1 at batch 4: 4 rows x 6144 x 2 B = 49,152 B of the input table, not its 786 MB;
  // the lm_head in full (786,432,000 B) and its FLOPs 2 x 64,000 x 6144 x 4.
  DeploymentOptions o;
  o.batch = 4;
  auto r = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->decode.bytes.embedding_rows, 49'152.0);
  EXPECT_DOUBLE_EQ(r->decode.bytes.lm_head, 786'432'000.0);
  EXPECT_DOUBLE_EQ(r->decode.flops.lm_head, 2.0 * 64000 * 6144 * 4);
  // Block weights read once: (39,019,610,112 - 2 x 786,432,000) B.
  EXPECT_DOUBLE_EQ(r->decode.bytes.weights, 37'446'746'112.0);
}

TEST(DeploymentTest, TensorParallelAllReduceTime) {
  // Drill 1 on 8 H100s, batch 1: 2 all-reduces per layer x 48 layers of 1 x 6144 x 2 B = 12,288 B.
  // Ring: 2 (8 - 1) / 8 = 1.75 x 12,288 B / 450 GB/s + 6 us latency, each.
  auto r = analyze_deployment(drill1_model(), H100(), Split(8));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const double one = 1.75 * 12288.0 / 450e9 + 6e-6;
  EXPECT_NEAR(r->decode.allreduce_seconds, 96 * one, 1e-15);
  EXPECT_EQ(r->decode.handoff_seconds, 0);
  EXPECT_DOUBLE_EQ(r->decode.seconds, std::max(r->decode.compute_seconds, r->decode.memory_seconds) +
                                          r->decode.comm_seconds);
  // Across two boxes (tp 16 > 8 per domain) the all-reduce uses the 50 GB/s NIC and 20 us.
  auto r16 = analyze_deployment(Llama70b(), H100(), Split(16));
  ASSERT_TRUE(r16.ok());
  EXPECT_NEAR(r16->decode.allreduce_seconds, 160 * (2.0 * 15 / 16 * 16384.0 / 50e9 + 20e-6), 1e-15);
}

TEST(DeploymentTest, PipelineHandOffs) {
  // 70B on 2 stages of 4: one hand-off of 1 x 8192 x 2 B over NVLink (8 GPUs fit one box).
  auto r = analyze_deployment(Llama70b(), H100(), Split(4, 2));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->decode.handoff_seconds, 16384.0 / 450e9 + 6e-6, 1e-15);
}

TEST(DeploymentTest, SlidingWindowCapsKvAndAttention) {
  // 4 layers, pattern 2 -> layers 0 and 2 keep a 4-token window; context 10:
  // tokens held = 2 x 10 + 2 x 4 = 28; per token per layer 2 heads x (8 + 8) = 32 elements x 2 B.
  ModelSpec m;
  m.n_layer = 4;
  m.n_embd = 32;
  m.n_head = 4;
  m.n_head_kv = 2;
  m.n_embd_head = 8;
  m.n_ff = 64;
  m.n_vocab = 100;
  m.n_swa = 4;
  m.set_swa_pattern(2);
  DeploymentOptions o;
  o.context = 10;
  auto r = analyze_deployment(m, H100(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->memory.kv_per_sequence, 28 * 32 * 2);
  // Decode attention: 2 x h x (d_k + d_v) per key = 2 x 4 x 16 = 128 FLOP x 28 keys.
  EXPECT_DOUBLE_EQ(r->decode.flops.attention, 128.0 * 28);
  // Causal prefill of 10 tokens: full layers 55 keys each; window layers 1+2+3+4 + 6 x 4 = 34.
  EXPECT_DOUBLE_EQ(r->prefill.attention_flops, 128.0 * (2 * 55 + 2 * 34));
}

TEST(DeploymentTest, DtypeDefaults) {
  EXPECT_EQ(default_compute_dtype(Dtype::kInt4, H100()), Dtype::kBf16);
  EXPECT_EQ(default_compute_dtype(Dtype::kInt8, H100()), Dtype::kBf16);
  EXPECT_EQ(default_compute_dtype(Dtype::kFp8, H100()), Dtype::kFp8);
  // FP4: the fp4 peak where the GPU has one, else weight-only at the 16-bit roof.
  EXPECT_EQ(default_compute_dtype(Dtype::kNvfp4, H100()), Dtype::kBf16);
  EXPECT_EQ(default_compute_dtype(Dtype::kMxfp4, H100()), Dtype::kBf16);
  GpuSpec fp4 = H100();
  fp4.peak_fp4_flops = 9000e12;
  EXPECT_EQ(default_compute_dtype(Dtype::kNvfp4, fp4), Dtype::kNvfp4);
  EXPECT_EQ(default_compute_dtype(Dtype::kMxfp4, fp4), Dtype::kMxfp4);
  EXPECT_EQ(default_kv_dtype(Dtype::kNvfp4), Dtype::kBf16);
  EXPECT_EQ(default_kv_dtype(Dtype::kInt4), Dtype::kBf16);  // the cache stays 16-bit
  EXPECT_EQ(default_kv_dtype(Dtype::kFp8), Dtype::kBf16);
  EXPECT_EQ(default_kv_dtype(Dtype::kFp16), Dtype::kFp16);
  // int4 weights do not make the cache int4: same KV bytes as bf16.
  DeploymentOptions o;
  o.weight_dtype = Dtype::kInt4;
  auto r = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->memory.kv_per_token, 196'608);
  // fp8 weights with fp8 compute are judged against the fp8 ridge: 1978.9e12 / 3.35e12.
  o.weight_dtype = Dtype::kFp8;
  auto f = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_TRUE(f.ok());
  EXPECT_DOUBLE_EQ(f->decode.ridge, 1978.9e12 / 3.35e12);
}

TEST(DeploymentTest, Int4KeepsEmbeddingsSixteenBitPlusGroupScales) {
  // Block matrices 4,227,858,432 + 14,495,514,624 = 18,723,373,056 params x 0.5 B;
  // one 2-byte scale per 128: 18,723,373,056 / 128 x 2 = 292,552,704 B; tables stay 2 B.
  DeploymentOptions o;
  o.weight_dtype = Dtype::kInt4;
  auto r = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->memory.weights.attention, 2'113'929'216);
  EXPECT_EQ(r->memory.weights.mlp, 7'247'757'312);
  EXPECT_EQ(r->memory.weights.scales, 292'552'704);
  EXPECT_EQ(r->memory.weights.embeddings, 786'432'000);
  EXPECT_EQ(r->memory.weights.lm_head, 786'432'000);
}

TEST(DeploymentTest, Fp4FormatsCarryTheirGroupScales) {
  // Drill 1's block matrices: 18,723,373,056 params (attention 4,227,858,432, MLP
  // 14,495,514,624), each a multiple of 32. Values 4 bits = 0.5 B each; tables stay 2 B.
  // NVFP4: one 1-byte E4M3 scale per 16: 18,723,373,056 / 16 = 1,170,210,816 B.
  // MXFP4: one 1-byte E8M0 scale per 32: 18,723,373,056 / 32 = 585,105,408 B.
  // quant_group_size (int4/int8 only) does not change either.
  DeploymentOptions o;
  o.weight_dtype = Dtype::kNvfp4;
  o.quant_group_size = 64;
  auto r = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->memory.weights.attention, 2'113'929'216);
  EXPECT_EQ(r->memory.weights.mlp, 7'247'757'312);
  EXPECT_EQ(r->memory.weights.scales, 1'170'210'816);
  EXPECT_EQ(r->memory.weights.embeddings, 786'432'000);
  o.weight_dtype = Dtype::kMxfp4;
  r = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->memory.weights.scales, 585'105'408);
  // On the H100 (no fp4 peak) the matmuls run at the bf16 roof: ridge 989.4e12 / 3.35e12.
  EXPECT_DOUBLE_EQ(r->decode.ridge, 989.4e12 / 3.35e12);
  // With an fp4 peak they run at it: 9000e12 / 3.35e12.
  GpuSpec fp4 = H100();
  fp4.peak_fp4_flops = 9000e12;
  r = analyze_deployment(drill1_model(), fp4, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->decode.ridge, 9000e12 / 3.35e12);
}

TEST(DeploymentTest, Fp8BlockScalesOnlyWhenAsked) {
  // fp8 block matrices 18,723,373,056 B; with block scales one fp32 per 128 x 128 = 16,384
  // weights: ceil(18,723,373,056 / 16,384) = 1,142,784 (exact: 18,723,373,056 = 16,384 x
  // 1,142,784) x 4 B = 4,571,136 B. Without: none.
  DeploymentOptions o;
  o.weight_dtype = Dtype::kFp8;
  auto r = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->memory.weights.scales, 0);
  o.fp8_block_scales = true;
  r = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->memory.weights.scales, 4'571'136);
}

TEST(DeploymentTest, Fp4KvCacheIsRefusedNamingTheField) {
  DeploymentOptions o;
  o.kv_dtype = Dtype::kNvfp4;
  auto r = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("kv_dtype: ", 0), 0u) << r.status().message();
}

TEST(DeploymentTest, GqaDecodeIntensityLevelsOffBelowTheRidge) {
  // Drill 1 in int8 on MI300X at T = 8192: as B grows every sequence reads its own KV, so the
  // intensity tends to (2 x 18,723,373,056 + 2 x 64,000 x 6144 + 2 x 8192 x 48 x 256 x 48)
  // = 47,896,854,528 / 1,610,612,736 = 29.74 FLOP/B, far below the bf16 ridge 246.7 (int8 weight-only
  // runs in bf16). Batch 214 is neither compute-bound nor holdable (214 x 1.61 GB > 192 GB).
  DeploymentOptions o;
  o.weight_dtype = Dtype::kInt8;
  o.context = 8192;
  o.batch = 214;
  auto r = analyze_deployment(drill1_model(), Mi300x(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->decode.regime, DeploymentRegime::kCapacityBound);
  EXPECT_NEAR(r->decode.ridge, 1307.4 / 5.3, 1e-9);
  const double per_seq_flops = 2.0 * 18'723'373'056 + 2.0 * 64000 * 6144 + 2.0 * 8192 * 48 * 256 * 48;
  const double limit = per_seq_flops / 1'610'612'736.0;
  EXPECT_NEAR(limit, 29.74, 0.005);
  EXPECT_LT(r->decode.intensity, limit);
  auto big = prepare_deployment(drill1_model(), Mi300x(), o);
  ASSERT_TRUE(big.ok());
  EXPECT_NEAR(evaluate_deployment(*big, 1'000'000, 8192, 0).decode.intensity, limit, 0.01 * limit);
  EXPECT_EQ(compute_bound_batch(*big, 8192), 0);  // never, at any batch
}

TEST(DeploymentTest, RegimeByWhichTermDominates) {
  // Short context, big batch: the weights are amortised and compute dominates.
  DeploymentOptions o;
  o.context = 16;
  o.batch = 1024;
  GpuSpec g = H100();
  g.capacity_bytes = 1e12;
  auto r = analyze_deployment(drill1_model(), g, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->decode.regime, DeploymentRegime::kComputeBound);
  o.batch = 1;
  auto b = analyze_deployment(drill1_model(), g, o);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->decode.regime, DeploymentRegime::kBandwidthBound);
  // A tiny model on 8 GPUs at batch 1: latency of 2 all-reduces per layer dominates.
  ModelSpec m;
  m.n_layer = 4;
  m.n_embd = 256;
  m.n_head = 8;
  m.n_head_kv = 8;
  m.n_embd_head = 32;
  m.n_ff = 512;
  m.n_vocab = 1000;
  auto c = analyze_deployment(m, H100(), Split(8));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->decode.regime, DeploymentRegime::kCommunicationBound);
  // The batch where decode turns compute-bound: first batch with flops/peak >= bytes/bw.
  auto p = prepare_deployment(drill1_model(), g, o);
  ASSERT_TRUE(p.ok());
  const int64_t cb = compute_bound_batch(*p, 16);
  ASSERT_GT(cb, 1);
  const DeploymentResult at = evaluate_deployment(*p, cb, 16, 0), below = evaluate_deployment(*p, cb - 1, 16, 0);
  EXPECT_GE(at.decode.compute_seconds, at.decode.memory_seconds);
  EXPECT_LT(below.decode.compute_seconds, below.decode.memory_seconds);
}

TEST(DeploymentTest, DataParallelMultipliesTheAggregateOnly) {
  DeploymentOptions o;
  o.batch = 8;
  auto one = analyze_deployment(drill1_model(), H100(), o);
  o.split.dp = 4;
  auto four = analyze_deployment(drill1_model(), H100(), o);
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_DOUBLE_EQ(four->decode.tokens_per_s_aggregate, 4 * one->decode.tokens_per_s_aggregate);
  EXPECT_DOUBLE_EQ(four->decode.tokens_per_s_per_sequence, one->decode.tokens_per_s_per_sequence);
  EXPECT_EQ(four->memory.max_sequences, one->memory.max_sequences);
}

TEST(DeploymentTest, ExpertParallelKeepsTheShard) {
  // ep | tp: the same bytes per rank as pure TP (E/ep whole experts sliced tp/ep ways).
  DeploymentOptions o = Split(8);
  auto tp = analyze_deployment(Mixtral(), H100(), o);
  o.split.ep = 8;
  auto ep = analyze_deployment(Mixtral(), H100(), o);
  ASSERT_TRUE(tp.ok() && ep.ok()) << ep.status().message();
  EXPECT_EQ(tp->memory.weights.experts, ep->memory.weights.experts);
}

TEST(DeploymentTest, ErrorsNameTheField) {
  auto field_of = [](const DeploymentOptions& o, const ModelSpec& m = drill1_model()) {
    auto r = analyze_deployment(m, H100(), o);
    if (r.ok()) return std::string("ok");
    const std::string& msg = r.status().message();
    return msg.substr(0, msg.find(':'));
  };
  EXPECT_EQ(field_of(Split(5)), "tp");   // 48 heads
  EXPECT_EQ(field_of(Split(3)), "tp");   // divides 48 heads but not 8 KV heads, nor a multiple
  EXPECT_EQ(field_of(Split(16)), "ok");  // 16 = 2 x 8 KV heads: replicated
  EXPECT_EQ(field_of(Split(1, 7)), "pp");  // 48 layers
  DeploymentOptions o;
  o.split.ep = 2;
  EXPECT_EQ(field_of(o), "ep");  // dense model
  o.split.ep = 1;
  o.split.dp = 0;
  EXPECT_EQ(field_of(o), "dp");
  o.split.dp = 1;
  o.reserve_fraction = 1.0;
  EXPECT_EQ(field_of(o), "reserve_fraction");
  o.reserve_fraction = 0.1;
  o.compute_dtype = Dtype::kInt4;
  EXPECT_EQ(field_of(o), "compute_dtype");
  o.compute_dtype.reset();
  o.batch = 0;
  EXPECT_EQ(field_of(o), "batch");
  o.batch = 1;
  o.prompt_tokens = 9000;  // > the default context 8192
  EXPECT_EQ(field_of(o), "prompt_tokens");
  o.prompt_tokens = 0;
  o.context = int64_t{1} << 41;
  EXPECT_EQ(field_of(o), "context");
  o.context = 8192;
  DeploymentOptions e = Split(4);
  e.split.ep = 3;
  EXPECT_EQ(field_of(e, Mixtral()), "ep");  // does not divide tp 4
}

TEST(DeploymentTest, PrefillTimeAndPromptDefault) {
  // Prompt 0 = the whole context, by default 8,192 tokens (defaults.h). Drill 1, P = 8192, tp 1: linear
  // 2 x P x 18,723,373,056 plus one token of lm_head 2 x 64,000 x 6144, plus causal attention
  // 2 x 48 x 256 x P(P+1)/2 x 48 layers.
  auto r = analyze_deployment(drill1_model(), H100(), DeploymentOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->prefill.prompt_tokens, 8192);
  const double P = 8192;
  const double expect = 2 * P * 18'723'373'056.0 + 2.0 * 64000 * 6144 + 2.0 * 48 * 256 * P * (P + 1) / 2 * 48;
  EXPECT_NEAR(r->prefill.flops, expect, expect * 1e-12);
  EXPECT_DOUBLE_EQ(r->prefill.seconds, std::max(r->prefill.flops / 989.4e12, r->prefill.bytes / 3.35e12));
}

TEST(DeploymentTest, FullAnalysisAgreesWithTheHotPath) {
  DeploymentOptions o = Split(8);
  o.batch = 16;
  o.context = 8192;
  auto a = analyze_deployment_full(Llama70b(), H100(), o);
  auto r = analyze_deployment(Llama70b(), H100(), o);
  ASSERT_TRUE(a.ok() && r.ok());
  EXPECT_EQ(a->result.decode.seconds, r->decode.seconds);
  EXPECT_EQ(a->result.memory.max_sequences, r->memory.max_sequences);
  EXPECT_EQ(a->compute_bound_batch, compute_bound_batch(a->prepared, 8192));
}

}  // namespace
}  // namespace modelcalc
