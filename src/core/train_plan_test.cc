// The training plan: whole nodes, the deadline, the fewest nodes that meet
// it, the deciding constraint, and agreement with one evaluation of the
// chosen layout.
#include "modelcalc/train_plan.h"

#include <gtest/gtest.h>

#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"

namespace modelcalc {
namespace {

TrainPlanQuery Query(const ModelSpec* m, double tokens, double days) {
  TrainPlanQuery q;
  q.model = m;
  q.tokens = tokens;
  q.deadline_days = days;
  q.gpus = {{*find_gpu("h100"), 3.0}, {*find_gpu("a100"), 1.5}};
  return q;
}

// The layout the plan chose, evaluated once by the engine.
Result<TrainStepResult> Evaluate(const ModelSpec& m, const TrainPlanQuery& q, const TrainPlanLayout& l) {
  TrainOptions o;
  o.layout.tp = l.tp;
  o.layout.pp = l.pp;
  o.layout.dp = l.dp;
  o.layout.ep = l.ep;
  o.seq = q.seq;
  o.micro_batch = l.micro_batch;
  o.global_batch = l.global_batch;
  o.zero = l.zero;
  o.recompute = l.recompute;
  o.flash = q.flash;
  o.sequence_parallel = q.sequence_parallel && l.tp > 1;
  return analyze_train_step(m, q.gpus[l.gpu_index].gpu, o, q.profile);
}

TEST(TrainPlan, WholeNodesWithinTheDeadlineAndTheFewestThatMeetIt) {
  const ModelSpec m = *find_preset("llama-3.1-8b");
  const TrainPlanQuery q = Query(&m, 2e12, 10);
  auto r = plan_training(q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->layouts.empty());
  EXPECT_GT(r->searched, r->prepared);
  for (const TrainPlanLayout& l : r->layouts) {
    EXPECT_EQ(l.gpus % 8, 0);  // whole HGX nodes
    EXPECT_EQ(l.gpus, l.tp * l.pp * l.dp);
    EXPECT_LE(l.days, q.deadline_days);
    EXPECT_TRUE(l.eval.fits);
    EXPECT_LE(l.global_batch * q.seq, static_cast<int64_t>(q.max_batch_tokens));
    EXPECT_EQ(l.global_batch % (l.dp * l.micro_batch), 0);
    // One engine: the plan's step is the engine's for the same layout.
    auto e = Evaluate(m, q, l);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_DOUBLE_EQ(e->eval.seconds, l.eval.seconds);
    EXPECT_DOUBLE_EQ(e->eval.peak_memory, l.eval.peak_memory);
    // days = ceil(D / tokens per step) x step / 86400; usd = days x 24 x GPUs x price.
    EXPECT_DOUBLE_EQ(l.days, std::ceil(2e12 / (static_cast<double>(l.global_batch) * 4096)) * l.eval.seconds / 86400);
    EXPECT_DOUBLE_EQ(l.usd, l.days * 24 * static_cast<double>(l.gpus) * q.gpus[l.gpu_index].usd_per_gpu_hour);
  }
  // Ranked by cost.
  for (size_t i = 1; i < r->layouts.size(); ++i) EXPECT_LE(r->layouts[i - 1].usd, r->layouts[i].usd);
  // The cheapest is the cheapest of its split: one node fewer misses the deadline or costs more.
  const TrainPlanLayout& best = r->layouts.front();
  const int64_t node_dp = 8 / (best.tp * best.pp);  // TP x PP within a node here
  ASSERT_GT(best.dp, node_dp);
  TrainPlanLayout fewer = best;
  fewer.dp = best.dp - node_dp;
  fewer.global_batch = static_cast<int64_t>(q.max_batch_tokens / 4096) / (fewer.dp * best.micro_batch) *
                       (fewer.dp * best.micro_batch);
  auto e = Evaluate(m, q, fewer);
  ASSERT_TRUE(e.ok()) << e.status().message();
  const double days = std::ceil(2e12 / (static_cast<double>(fewer.global_batch) * 4096)) * e->eval.seconds / 86400;
  const double usd = days * 24 * static_cast<double>(fewer.dp * best.tp * best.pp) * 3.0;
  EXPECT_TRUE(days > q.deadline_days || !e->eval.fits || usd >= best.usd) << days << " days, $" << usd;
  EXPECT_EQ(best.bound, TrainPlanBound::kDeadline);  // a cheaper, slower layout fits
}

TEST(TrainPlan, MemoryDecidesWhenTheDeadlineIsNoObject) {
  // 70B on H100s with all the time in the world: the cheapest layouts (fewest GPUs) cannot hold the states.
  const ModelSpec m = *find_preset("llama-3.1-70b");
  TrainPlanQuery q = Query(&m, 1e11, 1e5);
  q.gpus.resize(1);
  auto r = plan_training(q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->kinds[0].found);
  EXPECT_EQ(r->kinds[0].best.bound, TrainPlanBound::kMemory);
  EXPECT_GE(r->kinds[0].best.gpus, 16);  // 70.6e9 x 18 B = 1.27 TB of states
}

TEST(TrainPlan, NothingMeetsAnImpossibleDeadline) {
  const ModelSpec m = *find_preset("llama-3.1-8b");
  TrainPlanQuery q = Query(&m, 15e12, 0.5);
  q.max_gpus = 64;
  auto r = plan_training(q);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->layouts.empty());
  for (const TrainPlanKind& k : r->kinds) {
    EXPECT_FALSE(k.found);
    ASSERT_TRUE(k.any_fits);
    EXPECT_GT(k.fastest.days, 0.5);  // its fastest layout that fits still takes longer
  }
}

TEST(TrainPlan, BadQueriesNameTheirField) {
  const ModelSpec m = *find_preset("llama-3.1-8b");
  auto field = [](const TrainPlanQuery& q) {
    auto r = plan_training(q);
    return r.ok() ? std::string("ok") : r.status().message().substr(0, r.status().message().find(':'));
  };
  TrainPlanQuery q = Query(&m, 1e12, 10);
  q.tokens = 0;
  EXPECT_EQ(field(q), "tokens");
  q = Query(&m, 1e12, 10);
  q.micro_batches = {};
  EXPECT_EQ(field(q), "micro_batches");
  q = Query(&m, 1e12, 10);
  q.max_batch_tokens = 100;  // below one sequence of 4096
  EXPECT_EQ(field(q), "max_batch_tokens");
  q = Query(&m, 1e12, 10);
  q.gpus.clear();
  EXPECT_EQ(field(q), "gpus");
}

}  // namespace
}  // namespace modelcalc
