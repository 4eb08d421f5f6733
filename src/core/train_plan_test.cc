#include "modelcalc/train_plan.h"

#include <gtest/gtest.h>

#include <cmath>

#include "drills.h"

namespace modelcalc {
namespace {

// Drill 1's model: N = N_active = 19,509,805,056 (48 layers of 390,070,272 + 786,432,000 embeddings).
constexpr double kN = 19'509'805'056.0;

TrainPlanGpu Gpu(const char* name, double capacity, double peak, double usd) {
  TrainPlanGpu g;
  g.gpu.name = g.gpu.key = name;
  g.gpu.capacity_bytes = capacity;
  g.gpu.bandwidth_bytes_per_s = 1e12;
  g.gpu.peak_bf16_flops = peak;
  g.usd_per_gpu_hour = usd;
  return g;
}

TrainPlanQuery Query(const ModelSpec* m) {
  TrainPlanQuery q;
  q.model = m;
  q.tokens = 1e12;
  q.deadline_days = 10;
  q.mfu = 0.5;
  q.seq = 128;  // activations ~1.3 GB at TP 1 (128 x 6144 x 34 B x 48 layers): small next to the states
  return q;
}

TEST(TrainPlanTest, TheDeadlineSetsTheCountWhenMemoryIsNoObject) {
  const ModelSpec m = drill1_model();
  TrainPlanQuery q = Query(&m);
  q.gpus = {Gpu("big", 1e15, 1e15, 2.0)};  // 1 PB: every state fits on one GPU
  auto r = plan_training(q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->params, 19'509'805'056);
  EXPECT_DOUBLE_EQ(r->model_flops, 6 * kN * 1e12);  // 6 N D = 1.1706e23 FLOP
  ASSERT_EQ(r->ranked.size(), 1u);                  // one per GPU kind
  const TrainPlanConfig& c = r->ranked[0];
  // GPU-hours = 6 N D / (peak x mfu) / 3600 = 1.1706e23 / 5e14 / 3600 = 65,032.68;
  // the deadline needs ceil(65,032.68 / (24 x 10)) = ceil(270.97) = 271 GPUs.
  const double gpu_hours = 6 * kN * 1e12 / (1e15 * 0.5) / 3600;
  EXPECT_NEAR(gpu_hours, 65'032.68, 0.01);
  EXPECT_EQ(c.recompute, Recompute::kNone);
  EXPECT_EQ(c.deadline_gpus, 271);
  EXPECT_EQ(c.gpus, 271);
  EXPECT_EQ(c.dp, 271);
  EXPECT_EQ(c.tp * c.pp, 1);
  EXPECT_EQ(c.zero, 0);
  EXPECT_EQ(c.bound, TrainPlanBound::kDeadline);
  EXPECT_DOUBLE_EQ(c.gpu_hours, gpu_hours);
  EXPECT_DOUBLE_EQ(c.days, gpu_hours / 271 / 24);  // 9.999 days
  EXPECT_DOUBLE_EQ(c.usd, gpu_hours * 2.0);         // $130,065
  EXPECT_TRUE(r->misses.empty());
}

TEST(TrainPlanTest, MemoryRaisesTheCountAndTheSplitIsTheSimplestThatFits) {
  const ModelSpec m = drill1_model();
  TrainPlanQuery q = Query(&m);
  q.deadline_days = 1e6;  // the deadline alone needs one GPU
  q.gpus = {Gpu("small", 100e9, 1e15, 2.0)};
  auto r = plan_training(q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const TrainPlanConfig& c = r->ranked[0];
  // AdamW in mixed precision keeps 16 B a parameter: 16 N = 312.2 GB of states.
  // 3 GPUs cannot hold them: 312.2 / 3 = 104.1 GB > 100 GB even fully sharded (ZeRO-3, TP or PP).
  // 4 can, and without ZeRO only when TP x PP = 4 splits the states: 78.04 GB + activations
  // (TP 4 with sequence parallelism: 1.28 / 4 = 0.32 GB; PP 4: 12 layers x 4 in flight = 1.28 GB) < 100 GB.
  // Among the ZeRO-0 splits of 4 GPUs, less PP first: TP 4 x PP 1.
  EXPECT_EQ(c.gpus, 4);
  EXPECT_EQ(c.zero, 0);
  EXPECT_EQ(c.tp, 4);
  EXPECT_EQ(c.pp, 1);
  EXPECT_EQ(c.dp, 1);
  EXPECT_EQ(c.deadline_gpus, 1);
  EXPECT_EQ(c.bound, TrainPlanBound::kMemory);
  EXPECT_TRUE(c.memory.fits);
  EXPECT_NEAR(c.memory.weights + c.memory.gradients + c.memory.optimizer, 16 * kN / 4, 1.0);
}

TEST(TrainPlanTest, FullRecomputationWhenOnlyItFits) {
  const ModelSpec m = drill1_model();
  TrainPlanQuery q = Query(&m);
  q.deadline_days = 1e6;
  q.seq = 131072;
  q.max_tp = q.max_pp = 1;
  q.gpus = {Gpu("mid", 500e9, 1e15, 2.0)};
  // s b h = 131,072 x 6,144 = 805,306,368. Activations (FlashAttention, TP 1): 34 s b h x 48 layers = 1.314 TB,
  // more than the 500 GB even with every state sharded away, and selective recomputation drops only the scores
  // FlashAttention already drops. Full recomputation keeps 2 s b h a layer: 77.31 GB, + 16 N = 312.16 GB of
  // states = 389.5 GB: one GPU, at 8 N D.
  auto r = plan_training(q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->ranked.size(), 1u);
  const TrainPlanConfig& c = r->ranked[0];
  EXPECT_EQ(c.recompute, Recompute::kFull);
  EXPECT_EQ(c.gpus, 1);
  EXPECT_EQ(c.zero, 0);
  EXPECT_DOUBLE_EQ(c.hardware_flops, 8 * kN * 1e12);
  EXPECT_NEAR(c.memory.activations, 2.0 * 805'306'368 * 48, 1.0);
  EXPECT_NEAR(c.memory.total, 2.0 * 805'306'368 * 48 + 16 * kN, 1e3);
}

TEST(TrainPlanTest, TheCheapestFlopWinsAcrossKinds) {
  const ModelSpec m = drill1_model();
  TrainPlanQuery q = Query(&m);
  // $ per GPU-hour / peak: a = 2 / 1e15, b = 3.3 / 2e15 = 1.65 / 1e15: b is cheaper per FLOP.
  q.gpus = {Gpu("a", 1e15, 1e15, 2.0), Gpu("b", 1e15, 2e15, 3.3)};
  auto r = plan_training(q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->ranked.size(), 2u);
  EXPECT_EQ(r->ranked[0].gpu_index, 1u);
  // b: 6 N D / (2e15 x 0.5) / 3600 = 32,516.34 GPU-hours x $3.3 = $107,304; ceil(32,516.34 / 240) = 136 GPUs.
  EXPECT_DOUBLE_EQ(r->ranked[0].usd, 6 * kN * 1e12 / (2e15 * 0.5) / 3600 * 3.3);
  EXPECT_EQ(r->ranked[0].gpus, 136);
  EXPECT_EQ(r->ranked[0].recompute, Recompute::kNone);
  EXPECT_EQ(r->ranked[1].gpu_index, 0u);  // a: $130,065
  EXPECT_DOUBLE_EQ(r->ranked[1].usd, 6 * kN * 1e12 / (1e15 * 0.5) / 3600 * 2.0);
}

TEST(TrainPlanTest, AKindThatCannotMeetTheDeadlineIsAMissWithItsNumbers) {
  const ModelSpec m = drill1_model();
  TrainPlanQuery q = Query(&m);
  q.max_gpus = 256;  // the deadline needs 271 (first test)
  q.gpus = {Gpu("big", 1e15, 1e15, 2.0)};
  auto r = plan_training(q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->ranked.empty());
  ASSERT_EQ(r->misses.size(), 1u);
  EXPECT_EQ(r->misses[0].deadline_gpus, 271);
  EXPECT_EQ(r->misses[0].memory_gpus, 1);
}

TEST(TrainPlanTest, ErrorsNameTheField) {
  const ModelSpec m = drill1_model();
  const auto field = [&](auto edit) {
    TrainPlanQuery q = Query(&m);
    q.gpus = {Gpu("big", 1e15, 1e15, 2.0)};
    edit(q);
    auto r = plan_training(q);
    return r.ok() ? std::string("ok") : r.status().message().substr(0, r.status().message().find(':'));
  };
  EXPECT_EQ(field([](TrainPlanQuery& q) { q.model = nullptr; }), "model");
  EXPECT_EQ(field([](TrainPlanQuery& q) { q.tokens = 0; }), "tokens");
  EXPECT_EQ(field([](TrainPlanQuery& q) { q.tokens = NAN; }), "tokens");
  EXPECT_EQ(field([](TrainPlanQuery& q) { q.deadline_days = -1; }), "deadline_days");
  EXPECT_EQ(field([](TrainPlanQuery& q) { q.mfu = 1.5; }), "mfu");
  EXPECT_EQ(field([](TrainPlanQuery& q) { q.max_gpus = 0; }), "max_gpus");
  EXPECT_EQ(field([](TrainPlanQuery& q) { q.gpus.clear(); }), "gpus");
  EXPECT_EQ(field([](TrainPlanQuery& q) { q.gpus[0].usd_per_gpu_hour = 0; }), "gpus");
  EXPECT_EQ(field([](TrainPlanQuery& q) { q.seq = 0; }), "seq");
  EXPECT_EQ(field([](TrainPlanQuery&) {}), "ok");
}

}  // namespace
}  // namespace modelcalc
