// Memory per GPU for every pipeline stage, against hand derivations (formula
// in each comment), the papers' tables, and its properties.
#include <gtest/gtest.h>

#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/training.h"

namespace modelcalc {
namespace {

ModelSpec Preset(const char* name) {
  auto m = find_preset(name);
  EXPECT_TRUE(m.ok()) << name;
  return *m;
}

GpuSpec H100() { return *find_gpu("h100"); }

// A GPU whose memory never binds, with links, for the formulas alone.
GpuSpec Huge() {
  GpuSpec g = H100();
  g.capacity_bytes = 1e15;
  return g;
}

ModelSpec Gpt3Layer96() {
  ModelSpec m;
  m.n_layer = 96;
  m.n_embd = 12288;
  m.n_head = 96;
  m.n_head_kv = 96;
  m.n_embd_head = 128;
  m.n_ff = 4 * 12288;
  m.n_vocab = 51200;
  m.tied_embeddings = true;
  return m;
}

// Llama-2-7B's shape typed as flags: MHA, SwiGLU 11008, V 32000, untied; matrices only.
ModelSpec Llama2Shape() {
  ModelSpec m;
  m.n_layer = 32;
  m.n_embd = 4096;
  m.n_head = 32;
  m.n_head_kv = 32;
  m.n_embd_head = 128;
  m.n_ff = 11008;
  m.ffn_gated = true;
  m.n_vocab = 32000;
  return m;
}

TrainOptions Opts(int64_t tp, int64_t pp, int64_t seq) {
  TrainOptions o;
  o.layout.tp = tp;
  o.layout.pp = pp;
  o.seq = seq;
  return o;
}

TrainMemoryResult Memory(const ModelSpec& m, const GpuSpec& g, const TrainOptions& o) {
  auto r = analyze_train_memory(&m, g, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : TrainMemoryResult{};
}

// ---------------------------------------------------------------- formulas

TEST(TrainFormulas, BytesPerParameter) {
  EXPECT_EQ(train_bytes_per_param(Optimizer::kAdamW).total(), 16);        // 2 + 2 + 12 (ZeRO paper)
  EXPECT_EQ(train_bytes_per_param(Optimizer::kAdamW, true).total(), 18);  // Megatron: fp32 main grads 2 + 4 + 12
  EXPECT_EQ(train_bytes_per_param(Optimizer::kAdamW).optimizer, 12);      // master 4 + m 4 + v 4
  EXPECT_EQ(train_bytes_per_param(Optimizer::kAdamWFp32).total(), 16);    // 4 + 4 + 8
  EXPECT_EQ(train_bytes_per_param(Optimizer::kSgd).total(), 12);          // 2 + 2 + 4 + 4
  EXPECT_EQ(train_bytes_per_param(Optimizer::kAdam8bit).total(), 10);     // 2 + 2 + 4 + 1 + 1
}

TEST(TrainFormulas, MinDpClosedForm) {
  EXPECT_EQ(min_dp_to_fit(10, 50, 80), 1);   // all fits already
  EXPECT_EQ(min_dp_to_fit(60, 100, 80), 5);  // 100 / 20
  EXPECT_EQ(min_dp_to_fit(60, 101, 80), 6);  // ceil(5.05)
  EXPECT_EQ(min_dp_to_fit(80, 1, 80), 0);    // no room for any shard
  EXPECT_EQ(min_dp_to_fit(90, 0, 80), 0);
}

TEST(TrainFormulas, MegatronPadsTheVocabulary) {
  // GPT-2's 50,257 to a multiple of 128 x tp: 50,304 (393 x 128), 50,432 (197 x 256), 51,200 (50 x 1024).
  EXPECT_EQ(megatron_padded_vocab(50257, 1, 128), 50304);
  EXPECT_EQ(megatron_padded_vocab(50257, 2, 128), 50432);
  EXPECT_EQ(megatron_padded_vocab(50257, 8, 128), 51200);
  EXPECT_EQ(megatron_padded_vocab(128256, 8, 128), 129024);  // ceil(128256 / 1024) = 126 x 1024
}

TEST(TrainFormulas, InflightChunksAsMegatronSchedules) {
  // 1F1B: min(m, p - r).
  EXPECT_EQ(inflight_chunks(4, 0, 1, 8, 4), 4);
  EXPECT_EQ(inflight_chunks(4, 3, 1, 8, 4), 1);
  EXPECT_EQ(inflight_chunks(4, 0, 1, 2, 4), 2);  // fewer micro-batches than stages
  // Interleaved: 2 (p - r - 1) + (v - 1) N + 1, capped at m v. p 4, v 2, N 4: rank 0 6 + 4 + 1 = 11.
  EXPECT_EQ(inflight_chunks(4, 0, 2, 8, 4), 11);
  EXPECT_EQ(inflight_chunks(4, 3, 2, 8, 4), 5);
  EXPECT_EQ(inflight_chunks(4, 0, 2, 4, 4), 8);  // m v = 8 < 11
  EXPECT_EQ(inflight_chunks(1, 0, 1, 8, 1), 1);
}

TEST(TrainFormulas, Collectives) {
  EXPECT_DOUBLE_EQ(allreduce_wire_bytes(800, 8), 1400);  // 2 x 7/8 x 800
  EXPECT_DOUBLE_EQ(gather_wire_bytes(800, 8), 700);      // 7/8 x 800
  EXPECT_DOUBLE_EQ(allreduce_wire_bytes(800, 1), 0);
  EXPECT_DOUBLE_EQ(collective_seconds(1e9, 1e11, 5e-6), 0.01 + 5e-6);
  EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(8, 32, 2), 7.0 / 64);
}

// ---------------------------------------------------------------- activations

// The generalised layer reduces to the paper's Table 2 for its GPT layer
// (MHA, ungated 4h MLP, dropout): GPT-3 175B, s 2048, b 1, h 12288, a 96.
TEST(TrainActivations, ReducesToKorthikantiTable2) {
  const ModelSpec m = Gpt3Layer96();
  const double s = 2048, h = 12288, a = 96;
  struct Case {
    int64_t t;
    bool sp, flash;
    Recompute rc;
  };
  for (const Case c : {Case{1, false, false, Recompute::kNone}, Case{8, false, false, Recompute::kNone},
                       Case{8, true, false, Recompute::kNone}, Case{8, true, false, Recompute::kSelective},
                       Case{8, false, false, Recompute::kSelective}, Case{1, false, true, Recompute::kNone},
                       Case{8, false, false, Recompute::kFull}}) {
    TrainOptions o = Opts(c.t, 1, 2048);
    o.dropout = true;
    o.sequence_parallel = c.sp;
    o.flash = c.flash;
    o.recompute = c.rc;
    const TrainMemoryResult r = Memory(m, Huge(), o);
    const double paper = activation_bytes_per_layer(s, 1, h, a, static_cast<double>(c.t), c.sp, c.flash, c.rc);
    // FlashAttention adds its fp32 log-sum-exp, 4 a s b / t, which the paper's table does not have.
    const double lse = c.flash && c.rc == Recompute::kNone ? 4 * a * s / static_cast<double>(c.t) : 0;
    EXPECT_DOUBLE_EQ(r.dense_layer.kept(c.rc), paper + lse) << "t " << c.t << " sp " << c.sp;
  }
  // Eq. 1 by hand: s b h (34 + 5 a s / h) = 25,165,824 x (34 + 80).
  TrainOptions o = Opts(1, 1, 2048);
  o.dropout = true;
  EXPECT_DOUBLE_EQ(Memory(m, Huge(), o).dense_layer.total(), 25'165'824.0 * 114);
}

// Llama-3.1-8B at PP 4, s 4096, b 1, FlashAttention, TP 1, no dropout. Per
// token per layer: LN1, QKV, LN2 and FFN inputs 4 x 2d = 32,768 B; Q 2 x 4096
// + K, V 2 x 1024 each + attention output 2 x 4096 = 20,480; FFN (gated) 6 x
// 14336 = 86,016; log-sum-exp 4 x 32 = 128; sum 139,392 B; x 4096 tokens =
// 570,949,632 B per layer and micro-batch.
TEST(TrainActivations, Llama31_8BAtPipeline4) {
  TrainOptions o = Opts(1, 4, 4096);
  o.flash = true;  // global batch by default dp x b x pp = 4: m = 4
  const TrainMemoryResult r = Memory(Preset("llama-3.1-8b"), Huge(), o);
  const double layer = 570'949'632.0;
  EXPECT_DOUBLE_EQ(r.dense_layer.total(), layer);
  ASSERT_EQ(r.stages.size(), 4u);
  EXPECT_EQ(r.micro_batches, 4);
  // Stage r holds min(m, p - r) micro-batches of its 8 layers.
  EXPECT_EQ(r.stages[0].in_flight, 4);
  EXPECT_DOUBLE_EQ(r.stages[0].activations, 4 * 8 * layer);  // 18,270,388,224
  EXPECT_DOUBLE_EQ(r.stages[1].activations, 3 * 8 * layer);
  // The last stage adds the final norm's and the lm_head's inputs, 2 x 2d x s = 67,108,864,
  EXPECT_DOUBLE_EQ(r.stages[3].activations, 1 * 8 * layer + 67'108'864.0);
  // and the logits: s V 6 B (fp32 softmax + 16-bit gradient) = 4096 x 128256 x 6 = 3,152,019,456.
  EXPECT_DOUBLE_EQ(r.stages[3].logits, 3'152'019'456.0);
  EXPECT_DOUBLE_EQ(r.stages[0].logits, 0.0);
}

// Llama-2-7B's shape at PP 2, TP 2 with sequence parallelism, eager
// attention, s 2048: per token per layer (4 x 2d = 32,768) / 2 + (Q, K, V,
// output 4 x 8192 + FFN 6 x 11008 = 98,816) / 2 + scores 2 a s / 2 = 2 x 32 x
// 2048 / 2 = 65,536: 16,384 + 49,408 + 65,536 = 131,328 B; x 2048 tokens =
// 268,959,744 B.
TEST(TrainActivations, Llama2ShapeAtPipeline2WithTensorAndSequenceParallel) {
  TrainOptions o = Opts(2, 2, 2048);
  o.sequence_parallel = true;
  const TrainMemoryResult r = Memory(Llama2Shape(), Huge(), o);
  const double layer = 268'959'744.0;
  EXPECT_DOUBLE_EQ(r.dense_layer.total(), layer);
  EXPECT_DOUBLE_EQ(r.stages[0].activations, 2 * 16 * layer);  // 2 micro-batches x 16 layers
  // Last stage: 1 micro-batch, + the head's inputs 2 x 2d x s / t = 16,777,216.
  EXPECT_DOUBLE_EQ(r.stages[1].activations, 16 * layer + 16'777'216.0);
  // Selective recomputation drops the scores: kept 65,792 B per token; the recomputed scores of one
  // layer (65,536 x 2048 = 134,217,728 B) live during its backward.
  o.recompute = Recompute::kSelective;
  const TrainMemoryResult s = Memory(Llama2Shape(), Huge(), o);
  EXPECT_DOUBLE_EQ(s.stages[0].activations, 2 * 16 * 65'792.0 * 2048 + 134'217'728.0);
  // Full: the layer input 2d s / t = 8,388,608 per layer, + one layer's whole set less its input.
  o.recompute = Recompute::kFull;
  const TrainMemoryResult f = Memory(Llama2Shape(), Huge(), o);
  EXPECT_DOUBLE_EQ(f.stages[0].activations, 2 * 16 * 8'388'608.0 + (layer - 8'388'608.0));
}

// Interleaved 1F1B, Llama-3.1-8B at PP 4 with v 2 (chunks of 4 layers), m 8:
// rank 0 holds 2 (p - 1) + (v - 1) p + 1 = 11 chunk forwards = 44 layers,
// Korthikanti et al.'s L (1 + (p - 1) / (p v)) = 32 x 11/8 = 44; rank 3 holds
// 0 + 4 + 1 = 5 chunks = 20 layers.
TEST(TrainActivations, InterleavedSchedule) {
  TrainOptions o = Opts(1, 4, 4096);
  o.flash = true;
  o.layout.virtual_stages = 2;
  o.global_batch = 8;
  const TrainMemoryResult r = Memory(Preset("llama-3.1-8b"), Huge(), o);
  const double layer = 570'949'632.0;
  EXPECT_EQ(r.stages[0].in_flight, 11);
  EXPECT_DOUBLE_EQ(r.stages[0].activations, 44 * layer);
  EXPECT_EQ(r.stages[3].in_flight, 5);
  EXPECT_DOUBLE_EQ(r.stages[3].activations, 20 * layer + 67'108'864.0);
}

// Llama 3's layout: 126 layers on PP 16 with the embedding and the loss each
// counted as a layer, v 8: 128 / 128 = one slot per chunk, so rank 0's first
// chunk holds only the embedding. Rank 0 at m 32 holds 2 x 15 + 7 x 16 + 1 =
// 143 chunk forwards in groups of 16 per chunk: 16 of chunk 0 (no layer), 16
// each of chunks 1..7 (one layer), 15 of chunk 0 again: 112 layers.
TEST(TrainActivations, EmbeddingAndLossAsLayersWithEightVirtualStages) {
  TrainOptions o = Opts(8, 16, 8192);
  o.flash = true;
  o.sequence_parallel = true;
  o.layout.dp = 64;
  o.layout.virtual_stages = 8;
  o.layout.embedding_in_split = o.layout.loss_in_split = true;
  o.global_batch = 2048;  // 32 per replica
  const TrainMemoryResult r = Memory(Preset("llama-3.1-405b"), Huge(), o);
  ASSERT_EQ(r.stages.size(), 16u);
  EXPECT_EQ(r.stages[0].layers, 7);
  EXPECT_EQ(r.stages[1].layers, 8);
  EXPECT_EQ(r.stages[15].layers, 7);
  EXPECT_EQ(r.stages[0].in_flight, 143);
  EXPECT_DOUBLE_EQ(r.stages[0].activations, 112 * r.dense_layer.total());
  // Rank 1: 2 x 14 + 7 x 16 + 1 = 141 chunk forwards, every chunk one layer.
  EXPECT_DOUBLE_EQ(r.stages[1].activations, 141 * r.dense_layer.total());
}

// Context parallelism splits the sequence: s / cp tokens per GPU; the logits
// s b V_pad / (t cp) x 6 B. Llama-3.1-8B, TP 2, CP 2, s 8192: V_pad = 128,256
// (a multiple of 256): 4096 x 64,128 x 6 = 1,576,005,632.
TEST(TrainActivations, LogitsWithTensorAndContextParallel) {
  TrainOptions o = Opts(2, 1, 8192);
  o.flash = true;
  o.layout.cp = 2;
  const TrainMemoryResult r = Memory(Preset("llama-3.1-8b"), Huge(), o);
  EXPECT_EQ(r.padded_vocab, 128256);
  EXPECT_DOUBLE_EQ(r.stages[0].logits, 4096.0 * 64128 * 6);
}

// ---------------------------------------------------------------- parameters per stage

// Llama-3.1-8B: per layer attention 41,943,040 + FFN 176,160,768 + two
// RMSNorms 8,192 = 218,112,000; embedding and lm_head 128,256 x 4096 =
// 525,336,576 each (128,256 is a multiple of 128: no padding at TP 1); the
// final norm 4,096.
TEST(TrainStages, Llama31_8BParametersPerStage) {
  const ModelSpec m = Preset("llama-3.1-8b");
  TrainMemoryResult r = Memory(m, Huge(), Opts(1, 2, 2048));
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stages[0].params, int64_t{16} * 218'112'000 + 525'336'576);          // 4,015,128,576
  EXPECT_EQ(r.stages[1].params, int64_t{16} * 218'112'000 + 525'336'576 + 4'096);  // 4,015,132,672
  r = Memory(m, Huge(), Opts(1, 4, 2048));
  ASSERT_EQ(r.stages.size(), 4u);
  EXPECT_EQ(r.stages[0].params, 2'270'232'576);  // the "2.27 G with the embedding, not 2.01 G"
  EXPECT_EQ(r.stages[1].params, 1'744'896'000);
  EXPECT_EQ(r.stages[2].params, 1'744'896'000);
  EXPECT_EQ(r.stages[3].params, 2'270'236'672);
  EXPECT_EQ(r.stages[0].params + r.stages[1].params + r.stages[2].params + r.stages[3].params, 8'030'261'248);
  EXPECT_TRUE(r.stages[0].embedding);
  EXPECT_TRUE(r.stages[3].lm_head);
}

// Llama-3.2-1B, tied embeddings: per layer attention 2048 x (2048 + 2 x 512 +
// 2048) = 10,485,760 + FFN 3 x 2048 x 8192 = 50,331,648 + norms 4,096 =
// 60,821,504; table 128,256 x 2048 = 262,668,288. With PP the last stage
// keeps its own copy of the tied table.
TEST(TrainStages, Llama32_1BTiedTableOnBothEnds) {
  const ModelSpec m = Preset("llama-3.2-1b");
  TrainMemoryResult r = Memory(m, Huge(), Opts(1, 2, 2048));
  EXPECT_EQ(r.stages[0].params, 8 * 60'821'504 + 262'668'288);          // 749,240,320
  EXPECT_EQ(r.stages[1].params, 8 * 60'821'504 + 2'048 + 262'668'288);  // final norm + the copy
  // TP 2: matrices halve, norms stay whole; 128,256 = 501 x 256, no padding.
  // (10,485,760 + 50,331,648) / 2 + 4,096 = 30,412,800 per layer; the table 131,334,144.
  r = Memory(m, Huge(), Opts(2, 2, 2048));
  EXPECT_EQ(r.stages[0].params, 8 * 30'412'800 + 131'334'144);
  EXPECT_EQ(r.stages[1].params, 8 * 30'412'800 + 2'048 + 131'334'144);
}

TEST(TrainStages, UnevenSplitsMegatronAllows) {
  const ModelSpec m = Preset("llama-3.1-8b");
  // PP 5 for 32 layers is refused ...
  auto bad = analyze_train_memory(&m, Huge(), Opts(1, 5, 2048));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("pp: ", 0), 0u) << bad.status().message();
  // ... unless the first and last stages take 4 each: the middle three 24 / 3 = 8.
  TrainOptions o = Opts(1, 5, 2048);
  o.layout.first_stage_layers = 4;
  o.layout.last_stage_layers = 4;
  const TrainMemoryResult r = Memory(m, Huge(), o);
  ASSERT_EQ(r.stages.size(), 5u);
  EXPECT_EQ(r.stages[0].layers, 4);
  EXPECT_EQ(r.stages[2].layers, 8);
  EXPECT_EQ(r.stages[4].layers, 4);
  // First 5 and last 5 leave 22 for 3 stages: refused.
  o.layout.first_stage_layers = o.layout.last_stage_layers = 5;
  EXPECT_FALSE(analyze_train_memory(&m, Huge(), o).ok());
  // The embedding and the loss as layers: 34 / 2 = 17 slots, 16 layers on each end.
  TrainOptions e = Opts(1, 2, 2048);
  e.layout.embedding_in_split = e.layout.loss_in_split = true;
  const TrainMemoryResult q = Memory(m, Huge(), e);
  EXPECT_EQ(q.stages[0].layers, 16);
  EXPECT_EQ(q.stages[1].layers, 16);
}

// ---------------------------------------------------------------- states

// ZeRO paper, Figure 1: Ψ = 7.5B, Nd = 64, K = 12 (16-bit gradients):
// baseline (2 + 2 + 12)Ψ = 120 GB; P_os 4Ψ + 12Ψ/64 = 31.40625 GB;
// P_os+g 2Ψ + 14Ψ/64 = 16.640625 GB; P_os+g+p 16Ψ/64 = 1.875 GB.
TEST(TrainStates, ZeroPaperFigure1) {
  const double expected[] = {120e9, 31.40625e9, 16.640625e9, 1.875e9};
  for (int stage = 0; stage <= 3; ++stage) {
    TrainOptions o;
    o.params = 7'500'000'000;
    o.layout.dp = 64;
    o.zero = stage;
    o.fp32_grads = false;
    o.overhead_bytes = 0;
    auto r = analyze_train_memory(nullptr, H100(), o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_NEAR(r->stages[0].total, expected[stage], 1.0) << "stage " << stage;
  }
}

// Megatron's distributed optimizer with fp32 gradients: 6 + 12 / d bytes per
// parameter (Megatron-LM docs); d = dp x cp.
TEST(TrainStates, MegatronDistributedOptimizer) {
  TrainOptions o;
  o.params = 1'000'000'000;
  o.layout.dp = 4;
  o.layout.cp = 2;
  o.zero = 1;
  o.overhead_bytes = 0;
  auto r = analyze_train_memory(nullptr, Huge(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->stages[0].total, 1e9 * (6.0 + 12.0 / 8));
}

TEST(TrainStates, SevenBNeedsZeroOnOneGpu) {
  // 7e9 x 16 B = 112e9 B > 80e9 B: no ZeRO stage fits at dp 1.
  TrainOptions o;
  o.params = 7'000'000'000;
  o.fp32_grads = false;
  o.overhead_bytes = 0;
  auto r = analyze_train_memory(nullptr, H100(), o);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->stages[0].weights, 14e9);
  EXPECT_DOUBLE_EQ(r->stages[0].grads, 14e9);
  EXPECT_DOUBLE_EQ(r->stages[0].optimizer, 84e9);
  EXPECT_FALSE(r->fits);
  EXPECT_EQ(r->smallest_zero_fitting, -1);
  // ZeRO-0: never. ZeRO-1: 28e9 + 84e9 / dp <= 80e9 -> dp 2. ZeRO-2: 14e9 + 98e9 / dp -> 2. ZeRO-3: 112e9 / dp -> 2.
  EXPECT_EQ(r->min_dp_by_zero[0], 0);
  EXPECT_EQ(r->min_dp_by_zero[1], 2);
  EXPECT_EQ(r->min_dp_by_zero[2], 2);
  EXPECT_EQ(r->min_dp_by_zero[3], 2);
}

TEST(TrainStates, ExpertsShardOverTheirOwnGroup) {
  // Mixtral-8x7B at EP 2, DP 2: a MoE layer's 8 experts of 3 x 4096 x 14336 = 176,160,768 are 4 per GPU
  // (704,643,072 per layer); their ZeRO group is dp x cp / ep = 1, the dense parameters' is 2.
  const ModelSpec m = Preset("mixtral-8x7b-v0.1");
  TrainOptions o = Opts(1, 1, 1024);
  o.layout.dp = 2;
  o.layout.ep = 2;
  o.zero = 1;
  o.flash = true;
  const TrainMemoryResult r = Memory(m, Huge(), o);
  EXPECT_EQ(r.stages[0].expert_params, int64_t{32} * 704'643'072);
  const double dense = static_cast<double>(r.stages[0].params - r.stages[0].expert_params);
  EXPECT_DOUBLE_EQ(r.stages[0].optimizer, 12 * (dense / 2 + 32.0 * 704'643'072 / 1));
}

// ---------------------------------------------------------------- properties

TEST(TrainProperties, MoreRecomputationNeverRaisesActivations) {
  for (const char* name : {"llama-3.1-8b", "mixtral-8x7b-v0.1", "gpt2", "deepseek-v2-lite"}) {
    const ModelSpec m = Preset(name);
    for (int64_t tp : {1, 2}) {
      for (int64_t pp : {1, 2}) {
        for (bool sp : {false, true}) {
          for (bool flash : {false, true}) {
            double prev[16] = {};
            bool first = true;
            for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
              TrainOptions o = Opts(tp, pp, 1024);
              o.sequence_parallel = sp;
              o.flash = flash;
              o.recompute = rc;
              auto r = analyze_train_memory(&m, Huge(), o);
              if (!r.ok()) continue;  // tp not dividing the KV heads
              for (size_t s = 0; s < r->stages.size(); ++s) {
                if (!first) {
                  EXPECT_LE(r->stages[s].activations, prev[s]) << name << " stage " << s;
                }
                prev[s] = r->stages[s].activations;
              }
              first = false;
            }
          }
        }
      }
    }
  }
}

TEST(TrainProperties, AHigherZeroStageNeverRaisesStates) {
  for (const char* name : {"llama-3.1-8b", "mixtral-8x7b-v0.1", "qwen2.5-7b"}) {
    const ModelSpec m = Preset(name);
    for (int64_t dp : {1, 2, 8}) {
      for (int64_t pp : {1, 4}) {
        double prev[8] = {};
        for (int z = 0; z <= 3; ++z) {
          TrainOptions o = Opts(1, pp, 1024);
          o.layout.dp = dp;
          o.layout.ep = m.n_expert > 0 && dp % 2 == 0 ? 2 : 1;
          o.zero = z;
          const TrainMemoryResult r = Memory(m, Huge(), o);
          for (size_t s = 0; s < r.stages.size(); ++s) {
            const double states = r.stages[s].weights + r.stages[s].grads + r.stages[s].optimizer;
            if (z > 0) {
              EXPECT_LE(states, prev[s]) << name << " dp " << dp << " zero " << z;
            }
            prev[s] = states;
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------- bad input

TEST(TrainBadInput, EachRefusalNamesItsField) {
  const ModelSpec llama = Preset("llama-3.1-8b");
  const ModelSpec mixtral = Preset("mixtral-8x7b-v0.1");
  auto field = [](const Result<TrainMemoryResult>& r) {
    return r.ok() ? std::string("ok") : r.status().message().substr(0, r.status().message().find(':'));
  };
  TrainOptions o = Opts(16, 1, 2048);  // 8 KV heads
  EXPECT_EQ(field(analyze_train_memory(&llama, Huge(), o)), "tp");
  o = Opts(1, 1, 2048);
  o.layout.cp = 2;  // without FlashAttention
  EXPECT_EQ(field(analyze_train_memory(&llama, Huge(), o)), "cp");
  o = Opts(1, 1, 2048);
  o.micro_batch = 4;
  o.global_batch = 2;  // a micro-batch above the global batch
  EXPECT_EQ(field(analyze_train_memory(&llama, Huge(), o)), "micro_batch");
  o.global_batch = 6;  // not a multiple of b x dp
  EXPECT_EQ(field(analyze_train_memory(&llama, Huge(), o)), "global_batch");
  o = Opts(1, 1, 2048);
  o.layout.ep = 2;  // a dense model
  EXPECT_EQ(field(analyze_train_memory(&llama, Huge(), o)), "ep");
  o.layout.ep = 4;
  o.layout.dp = 2;  // 4 does not divide dp x cp = 2
  EXPECT_EQ(field(analyze_train_memory(&mixtral, Huge(), o)), "ep");
  o = Opts(1, 4, 2048);
  o.layout.virtual_stages = 3;  // 8 layers per stage
  EXPECT_EQ(field(analyze_train_memory(&llama, Huge(), o)), "virtual_stages");
  o = Opts(1, 4, 2048);
  o.layout.virtual_stages = 2;
  o.global_batch = 2;  // the interleaved schedule needs at least pp micro-batches
  EXPECT_EQ(field(analyze_train_memory(&llama, Huge(), o)), "global_batch");
  o = Opts(1, 1, 2048);
  o.zero = 4;
  EXPECT_EQ(field(analyze_train_memory(&llama, Huge(), o)), "zero");
}

}  // namespace
}  // namespace modelcalc
