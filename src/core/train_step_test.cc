// The step-time model against hand derivations, the DP collectives' volume,
// the profile's parser, and the ceiling's bound.
#include <gtest/gtest.h>

#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/training.h"

namespace modelcalc {
namespace {

// A two-layer GPT, matrices only: d 1024, 16 heads of 64, a 4096 GeLU MLP,
// V 32768 untied. Per layer 4 d^2 + 8 d^2 = 12,582,912; embedding and lm_head
// 33,554,432 each; N = 92,274,688.
ModelSpec TinyGpt() {
  ModelSpec m;
  m.n_layer = 2;
  m.n_embd = 1024;
  m.n_head = 16;
  m.n_head_kv = 16;
  m.n_embd_head = 64;
  m.n_ff = 4096;
  m.n_vocab = 32768;
  return m;
}

TrainProfile Profile() {
  TrainProfile p;
  p.gemm_efficiency = 0.5;
  p.attention_efficiency = 0.25;
  p.hbm_traffic = 2;
  p.link_efficiency = 1;
  return p;
}

GpuSpec H100() { return *find_gpu("h100"); }  // 989.4 TFLOP/s, 3.35 TB/s, NVLink 450 GB/s, 6 us

TrainOptions Opts(int64_t tp, int64_t seq) {
  TrainOptions o;
  o.layout.tp = tp;
  o.seq = seq;
  return o;
}

// One GPU, one micro-batch of 1,024 tokens, eager attention, no recomputation.
// Executed FLOPs per token: linear 3 x 2 x 12,582,912 per layer = 75,497,472;
// attention 3 x 2 h (d_k + d_v) s = 3 x 2 x 16 x 128 x 1024 = 12,582,912 per
// layer; lm_head 6 V d = 201,326,592. Over 1,024 tokens: F_lin = (2 x
// 75,497,472 + 201,326,592) x 1024 = 360,777,252,864, F_attn = 2 x 12,582,912
// x 1024 = 25,769,803,776.
TEST(TrainStep, OneGpuByHand) {
  auto r = analyze_train_step(TinyGpt(), H100(), Opts(1, 1024), Profile());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const double peak = 989.4e12;
  const double f_lin = 360'777'252'864.0, f_attn = 25'769'803'776.0;
  const StepBreakdown& b = r->eval.step;
  EXPECT_EQ(r->eval.micro_batches, 1);
  EXPECT_DOUBLE_EQ(b.compute, f_lin / (peak * 0.5) + f_attn / (peak * 0.25));
  // Activations per layer per token: inputs 8d = 8,192 B, Q, K, V, output 4 x 2,048 + FFN 4 x 4096 = 24,576,
  // scores 2 h s = 32,768: 65,536 B x 1024 = 67,108,864; logits 1024 x 32768 x 6 = 201,326,592.
  // Elementwise traffic 2 x (2 x 67,108,864 + 201,326,592) / 3.35e12.
  EXPECT_DOUBLE_EQ(b.memory, 2 * (2 * 67'108'864.0 + 201'326'592.0) / 3.35e12);
  EXPECT_DOUBLE_EQ(b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.bubble + b.dp_comm, 0.0);
  // The optimizer reads 4 B of gradient, reads and writes 12 B of states, writes 2 B of weights: 30 B x N.
  EXPECT_DOUBLE_EQ(b.optimizer, 30 * 92'274'688.0 / 3.35e12);
  EXPECT_DOUBLE_EQ(r->eval.seconds, b.compute + b.memory + b.optimizer);
  EXPECT_DOUBLE_EQ(r->eval.ceiling_seconds, (f_lin + f_attn) / peak);
  // MFU: model FLOPs per token 6 x (2 x 12,582,912 + 32768 x 1024) + 6 x 16 x 128 x 1024 x 2 = 377,487,360.
  EXPECT_DOUBLE_EQ(r->eval.mfu, 377'487'360.0 * 1024 / (r->eval.seconds * peak));
}

// TP 2 adds Megatron's all-reduces: 4 per layer (2 forward, 2 backward) and
// one each for the vocab-parallel embedding and the lm_head's input: 10 of
// the 1,024 x 1024 x 2 B residual stream, each 6 us + 2 (t - 1) / t x
// 2,097,152 B / 450 GB/s.
TEST(TrainStep, TensorParallelAllReduces) {
  auto r = analyze_train_step(TinyGpt(), H100(), Opts(2, 1024), Profile());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->eval.step.tp_comm, 10 * (6e-6 + 2'097'152.0 / 450e9));
  // With sequence parallelism an all-gather and a reduce-scatter per all-reduce: the same bytes, twice the latency.
  TrainOptions o = Opts(2, 1024);
  o.sequence_parallel = true;
  auto sp = analyze_train_step(TinyGpt(), H100(), o, Profile());
  ASSERT_TRUE(sp.ok());
  EXPECT_DOUBLE_EQ(sp->eval.step.tp_comm, 10 * 2 * (6e-6 + 1'048'576.0 / 450e9));
}

TEST(TrainStep, PipelineBubble) {
  // PP 2 (one layer each), m 2: the bubble is (p - 1) / v micro-batch times of the slowest stage.
  TrainOptions o = Opts(1, 1024);
  o.layout.pp = 2;
  auto r = analyze_train_step(TinyGpt(), H100(), o, Profile());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const PreparedStage& slow = r->prepared.stages[static_cast<size_t>(r->prepared.slowest_stage)];
  EXPECT_EQ(r->prepared.slowest_stage, 1);  // the last stage has the lm_head
  const double t_pp = r->eval.step.pp_comm / 2;
  EXPECT_DOUBLE_EQ(r->eval.step.bubble, 1.0 * (slow.t_micro_batch + t_pp));
  EXPECT_DOUBLE_EQ(r->eval.step.compute, 2 * slow.t_compute);
}

// The DP collectives of Llama-3.1-8B at TP 1, PP 1, DP 8, m 2 (P =
// 8,030,261,248; fp32 gradients G = 4P, 16-bit weights W = 2P, (d - 1) / d =
// 7/8): ZeRO-0 all-reduces G once, 2 x 7/8 x 4P = 7P; ZeRO-1 reduce-scatters
// G and all-gathers W once, 7/8 x 6P = 5.25P; ZeRO-2 reduce-scatters every
// micro-batch's G, 2 x 7/8 x 4P + 7/8 x 2P = 8.75P; ZeRO-3 gathers W for
// every forward and backward and reduce-scatters every G, 2 x 7/8 x (2W + G)
// = 14P.
TEST(TrainStep, DataParallelVolumeByZeroStage) {
  const ModelSpec m = *find_preset("llama-3.1-8b");
  auto p = prepare_training(m, H100(), Opts(1, 1024), Profile());
  ASSERT_TRUE(p.ok()) << p.status().message();
  const double P = 8'030'261'248.0;
  EXPECT_DOUBLE_EQ(dp_wire_bytes_per_step(*p, 8, 2, 0), 7 * P);
  EXPECT_DOUBLE_EQ(dp_wire_bytes_per_step(*p, 8, 2, 1), 5.25 * P);
  EXPECT_DOUBLE_EQ(dp_wire_bytes_per_step(*p, 8, 2, 2), 8.75 * P);
  EXPECT_DOUBLE_EQ(dp_wire_bytes_per_step(*p, 8, 2, 3), 14 * P);
  EXPECT_DOUBLE_EQ(dp_wire_bytes_per_step(*p, 1, 2, 3), 0.0);
}

TEST(TrainStep, TheCeilingBoundsEveryPrediction) {
  for (const char* name : {"llama-3.1-8b", "mixtral-8x7b-v0.1", "qwen2.5-7b"}) {
    const ModelSpec m = *find_preset(name);
    for (int64_t tp : {1, 2, 8}) {
      for (int64_t pp : {1, 2, 4}) {
        for (Recompute rc : {Recompute::kNone, Recompute::kFull}) {
          TrainOptions o = Opts(tp, 2048);
          o.layout.pp = pp;
          o.layout.dp = 4;
          o.recompute = rc;
          o.flash = true;
          o.sequence_parallel = tp > 1;
          o.zero = 1;
          auto r = analyze_train_step(m, H100(), o);
          if (!r.ok()) continue;  // tp not dividing the KV heads
          EXPECT_LE(r->eval.ceiling_seconds, r->eval.seconds) << name;
          EXPECT_LE(r->eval.mfu, 1.0) << name;
          EXPECT_GT(r->eval.mfu, 0.0) << name;
        }
      }
    }
  }
}

TEST(TrainStep, ProfileParser) {
  auto ok = parse_train_profile(
      "# c\ngemm_efficiency\t0.5\tnote\nattention_efficiency\t0.25\nhbm_traffic\t3\nlink_efficiency\t0.9\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_DOUBLE_EQ(ok->gemm_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(ok->attention_efficiency, 0.25);
  EXPECT_DOUBLE_EQ(ok->hbm_traffic, 3);
  EXPECT_DOUBLE_EQ(ok->link_efficiency, 0.9);
  for (const char* bad : {"gemm_efficiency\t0.5\n",                                                   // missing ones
                          "gemm_efficiency\t1.5\nattention_efficiency\t0.2\nhbm_traffic\t3\nlink_efficiency\t0.9\n",
                          "gemm_efficiency\tx\nattention_efficiency\t0.2\nhbm_traffic\t3\nlink_efficiency\t0.9\n",
                          "speed\t1\n", "gemm_efficiency 0.5\n",
                          "gemm_efficiency\t0.5\ngemm_efficiency\t0.5\n"}) {
    EXPECT_FALSE(parse_train_profile(bad).ok()) << bad;
  }
}

TEST(TrainStep, NeedsAPeak) {
  GpuSpec g = H100();
  g.peak_bf16_flops = 0;
  auto r = analyze_train_step(TinyGpt(), g, Opts(1, 1024));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("gpu: ", 0), 0u);
}

// Line 1 the comment, 2 blank, 3 the bad value; the message quotes the value without the CRLF's '\r'.
TEST(TrainStep, ProfileErrorsNameTheEditorsLineAndCrlfIsALineEnd) {
  auto bad = parse_train_profile("# c\r\n\r\ngemm_efficiency\tx\r\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "profile: line 3: 'x' is not a number");
  auto ok = parse_train_profile(
      "gemm_efficiency\t0.5\r\nattention_efficiency\t0.25\r\nhbm_traffic\t3\r\nlink_efficiency\t0.9\r\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_DOUBLE_EQ(ok->link_efficiency, 0.9);
}

}  // namespace
}  // namespace modelcalc
