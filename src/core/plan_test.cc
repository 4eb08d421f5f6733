// The search over a stand-in evaluator whose numbers are simple enough to
// derive by hand (the engine-backed search is tested in plan_engine_test.cc).
#include "modelcalc/plan.h"
#include "plan_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>


namespace modelcalc {
namespace {

// Stand-in model: 100 GB of weights, 1 GB of KV per sequence, both split evenly
// over the g = tp x pp GPUs of a replica. Per GPU: capacity C GB, bandwidth
// BW GB/s. max_sequences = floor(C x g - 100); TPOT = (100 + batch) / g / BW;
// TTFT = 0.1 s / g.
struct StandIn {
  double g, capacity_gb, bw_gbps;
};

PlanGpu kind(const char* key, double capacity_gb, double bw_gbps, double price) {
  PlanGpu g;
  g.gpu.key = key;
  g.gpu.capacity_bytes = capacity_gb * 1e9;
  g.gpu.bandwidth_bytes_per_s = bw_gbps * 1e9;
  g.usd_per_hour = price;
  g.domain_gpus = 2;
  return g;
}

PlanSpace small_space() {
  PlanSpace s;
  s.gpus = {kind("a", 80, 1000, 2.0), kind("b", 160, 2000, 5.0)};
  s.max_gpus = 64;
  s.weight_dtypes = {Dtype::kBf16};
  s.kv_dtypes = {Dtype::kBf16};
  s.batches = {1, 2, 4, 8, 16, 32, 64};
  s.max_pp = 1;
  s.n_head = 8;
  s.n_layer = 8;
  return s;
}

PlanRequest small_request() {
  PlanRequest r;
  r.isl = 1000;
  r.osl = 100;
  r.ttft_s = 1.0;
  r.tpot_s = 0.060;
  return r;
}

PlanResult run(const PlanRequest& r, const PlanSpace& s) {
  EXPECT_TRUE(check_plan(r, s).ok()) << check_plan(r, s).message();
  auto prepare = [&](const PlanCandidate& c) -> Result<StandIn> {
    const PlanGpu& g = s.gpus[c.gpu];
    return StandIn{static_cast<double>(c.tp * c.pp), g.gpu.capacity_bytes / 1e9, g.gpu.bandwidth_bytes_per_s / 1e9};
  };
  auto evaluate = [](const StandIn& p, int64_t batch, int64_t, int64_t) {
    PlanPoint pt;
    pt.max_sequences = std::max<int64_t>(0, static_cast<int64_t>(std::floor(p.capacity_gb * p.g - 100)));
    pt.tpot_s = (100 + static_cast<double>(batch)) / p.g / p.bw_gbps;
    pt.ttft_s = 0.1 / p.g;
    pt.comm_s = 0;
    return pt;
  };
  return search_plan(r, s, prepare, evaluate);
}

TEST(PlanTest, HandDerivedSmallCase) {
  const PlanResult res = run(small_request(), small_space());
  // Candidates: a TP1, a TP2, b TP1, b TP2; 7 batches each, plus the largest batch that fits
  // where it falls between two listed ones: 60 for a TP2 and b TP1 (a TP1 holds none, b TP2's
  // 220 is above the largest listed, 64); plus, where TPOT stops the next batch (a TP2 and b TP1:
  // 16 meets 60 ms, 32 does not), bisection 24 (62 ms, no), 20 (60 ms, yes), 22, 21 (no): 30 + 8.
  EXPECT_EQ(res.searched, 38);
  // a TP1: 80 - 100 < 0, the weights do not fit (7 x memory).
  // a TP2: holds floor(160 - 100) = 60; TPOT (100 + B)/2/1000 <= 60 ms up to B = 20;
  //        B = 21, 22, 24, 32 and 60 miss TPOT, B = 64 misses memory.
  // b TP1: holds 60; TPOT (100 + B)/2000 <= 60 ms up to B = 20; the same 5 miss TPOT, 64 memory.
  // b TP2: holds 220; TPOT (100 + B)/4000 <= 41 ms: all 7 pass.
  EXPECT_EQ(res.rejected.memory, 9);
  EXPECT_EQ(res.rejected.tpot, 10);
  EXPECT_EQ(res.rejected.ttft, 0);
  EXPECT_EQ(res.feasible, 3);
  ASSERT_EQ(res.configs.size(), 3u);
  // Best: b TP2 batch 64. TPOT = 164/4000 = 41 ms, TTFT = 50 ms; a replica finishes 64
  // requests every 100 x 0.041 + 64 x 0.05 = 7.3 s: 64 x 100 / 7.3 = 876.71 tokens/s;
  // 2 GPUs x $5 = $10/h over 876.71 x 3600 tokens/h = $3.1684 per 1M output tokens.
  const PlanConfig& best = res.configs[0];
  EXPECT_EQ(best.gpu, "b");
  EXPECT_EQ(best.c.tp, 2);
  EXPECT_EQ(best.batch, 64);
  EXPECT_EQ(best.gpus, 2);
  EXPECT_EQ(best.replicas, 1);
  EXPECT_NEAR(best.tpot_s, 0.041, 1e-12);
  EXPECT_NEAR(best.ttft_s, 0.05, 1e-12);
  EXPECT_NEAR(best.tokens_per_s_per_replica, 6400 / 7.3, 1e-9);
  EXPECT_NEAR(best.tokens_per_s_per_gpu, 3200 / 7.3, 1e-9);
  EXPECT_NEAR(best.usd_per_hour, 10.0, 1e-12);
  EXPECT_NEAR(best.usd_per_million_output, 10.0 / (6400 / 7.3 * 3600) * 1e6, 1e-9);
  EXPECT_NEAR(best.usd_per_million_output, 3.1684, 1e-4);
  // Input: the prefill share 64 x 0.05 / 7.3 of $10/h over 64 x 1000 / 7.3 input tokens/s.
  EXPECT_NEAR(best.usd_per_million_input, 10.0 * (3.2 / 7.3) / (64000 / 7.3 * 3600) * 1e6, 1e-9);
  EXPECT_NEAR(best.usd_per_million_blended, 10.0 / (70400 / 7.3 * 3600) * 1e6, 1e-9);
  // Next: a TP2 batch 20: 100 x 0.060 + 20 x 0.05 = 7 s per 2,000 tokens; $4/h -> $3.8889.
  EXPECT_EQ(res.configs[1].gpu, "a");
  EXPECT_EQ(res.configs[1].batch, 20);
  EXPECT_NEAR(res.configs[1].usd_per_million_output, 4.0 / (2000 / 7.0 * 3600) * 1e6, 1e-9);
  // Then b TP1 batch 20: 100 x 0.060 + 20 x 0.1 = 8 s per 2,000 tokens; $5/h -> $5.5556.
  EXPECT_EQ(res.configs[2].gpu, "b");
  EXPECT_EQ(res.configs[2].batch, 20);
  EXPECT_NEAR(res.configs[2].usd_per_million_output, 5.0 / (2000 / 8.0 * 3600) * 1e6, 1e-9);
  // What stops the cheaper neighbour of the best: a TP2 at batch 64 would cost
  // 4 / (6400 / 11.4 x 3600) x 1e6 = $1.98/1M but holds only 60 sequences (memory).
  // (src/report/plan_text_test.cc checks how the report layer words these.)
  EXPECT_EQ(best.deciding.kind, PlanDecidingKind::kCheapestMisses);
  EXPECT_EQ(best.deciding.neighbour.reason, PlanReason::kMemory);
  EXPECT_EQ(best.deciding.neighbour.max_sequences, 60);
  EXPECT_EQ(best.deciding.neighbour.batch, 64);
  EXPECT_NEAR(best.deciding.neighbour.usd_per_million_output, 4.0 / (6400 / 11.4 * 3600) * 1e6, 1e-9);
  // a TP2's own neighbour is batch 21, which misses TPOT: 121 / 2 / 1000 = 60.5 ms.
  EXPECT_EQ(res.configs[1].deciding.kind, PlanDecidingKind::kNextBatchMisses);
  EXPECT_EQ(res.configs[1].deciding.neighbour.batch, 21);
  EXPECT_EQ(res.configs[1].deciding.neighbour.reason, PlanReason::kTpot);
  EXPECT_NEAR(res.configs[1].deciding.neighbour.tpot_s, 0.0605, 1e-12);
  EXPECT_TRUE(res.misses.empty());
  EXPECT_TRUE(res.binding.empty());
}

TEST(PlanTest, FrontierIsParetoPerGpuKind) {
  const PlanResult res = run(small_request(), small_space());
  ASSERT_FALSE(res.frontier.empty());
  for (size_t i = 1; i < res.frontier.size(); ++i) {
    const auto& a = res.frontier[i - 1];
    const auto& b = res.frontier[i];
    if (a.gpu != b.gpu) continue;
    EXPECT_GT(a.tokens_per_s_per_user, b.tokens_per_s_per_user);
    EXPECT_LT(a.tokens_per_s_per_gpu, b.tokens_per_s_per_gpu);
  }
  // b's fastest point per user is TP2 batch 1: 1 / ((100 + 1) / 4000) = 39.6 tokens/s.
  bool found = false;
  for (const auto& f : res.frontier) {
    if (f.gpu == "b" && f.batch == 1 && f.c.tp == 2) {
      found = true;
      EXPECT_NEAR(f.tokens_per_s_per_user, 4000.0 / 101, 1e-9);
    }
  }
  EXPECT_TRUE(found);
}

TEST(PlanTest, LooserSloNeverRaisesTheBestCost) {
  double previous = 1e300;
  for (double tpot : {0.026, 0.03, 0.04, 0.05, 0.06, 0.08, 0.12, 0.5}) {
    PlanRequest r = small_request();
    r.tpot_s = tpot;
    const PlanResult res = run(r, small_space());
    ASSERT_FALSE(res.configs.empty()) << tpot;
    EXPECT_LE(res.configs[0].usd_per_million_output, previous) << tpot;
    previous = res.configs[0].usd_per_million_output;
  }
}

TEST(PlanTest, EveryReturnedConfigMeetsItsTargets) {
  for (double tpot : {0.03, 0.05, 0.07}) {
    for (double qps : {0.5, 5.0, 50.0}) {
      PlanRequest r = small_request();
      r.tpot_s = tpot;
      r.ttft_s = 0.08;
      r.load_kind = PlanLoadKind::kRequestsPerS;
      r.load = qps;
      PlanSpace s = small_space();
      s.max_gpus = 16;
      const PlanResult res = run(r, s);
      for (const PlanConfig& c : res.configs) {
        EXPECT_LE(c.ttft_s, *r.ttft_s);
        EXPECT_LE(c.tpot_s, *r.tpot_s);
        EXPECT_LE(c.batch, c.max_sequences);
        EXPECT_LE(c.gpus, s.max_gpus);
        // The replicas carry the load: replicas x capacity >= qps.
        EXPECT_GE(static_cast<double>(c.replicas) * c.tokens_per_s_per_replica / 100, qps * (1 - 1e-12));
      }
    }
  }
}

TEST(PlanTest, MoreGpusNeverLowerTheBestThroughput) {
  double previous = 0;
  for (int64_t max_gpus : {1, 2, 4}) {
    PlanRequest r = small_request();
    r.tpot_s.reset();
    r.ttft_s.reset();
    PlanSpace s = small_space();
    s.max_gpus = max_gpus;
    s.gpus[0].domain_gpus = s.gpus[1].domain_gpus = 4;
    const PlanResult res = run(r, s);
    double best = 0;
    for (const auto& f : res.frontier) best = std::max(best, f.tokens_per_s_per_gpu * 1.0);
    double best_replica = 0;
    for (const PlanConfig& c : res.configs) best_replica = std::max(best_replica, c.tokens_per_s_per_replica);
    EXPECT_GE(best_replica, previous) << max_gpus;
    previous = best_replica;
  }
}

TEST(PlanTest, LoadSetsReplicasAndCost) {
  PlanRequest r = small_request();
  r.load_kind = PlanLoadKind::kRequestsPerS;
  r.load = 20;
  const PlanResult res = run(r, small_space());
  ASSERT_FALSE(res.configs.empty());
  const PlanConfig& c = res.configs[0];
  // Per replica, a TP2 batch 20 completes 20 / 7 = 2.857 requests/s: 20 needs 7 replicas, 14 GPUs,
  // $28/h (b TP2 batch 64: 64 / 7.3 = 8.77/s, 3 replicas, 6 GPUs, $30/h; b TP1 batch 20: 2.5/s,
  // 8 GPUs, $40/h), serving 20 x 100 output tokens/s: 28 / (2000 x 3600) x 1e6 = $3.8889 per 1M.
  EXPECT_EQ(c.gpu, "a");
  EXPECT_EQ(c.batch, 20);
  EXPECT_EQ(c.replicas, 7);
  EXPECT_EQ(c.gpus, 14);
  EXPECT_NEAR(c.usd_per_million_output, 28.0 / (2000 * 3600) * 1e6, 1e-9);
}

TEST(PlanTest, InfeasibleNamesTheBindingConstraint) {
  PlanRequest r = small_request();
  r.tpot_s = 0.010;  // the fastest step is b TP2 batch 1: 101 / 4000 = 25.25 ms
  const PlanResult res = run(r, small_space());
  EXPECT_TRUE(res.configs.empty());
  EXPECT_EQ(res.binding, "tpot");
  ASSERT_FALSE(res.misses.empty());
  const PlanMiss& m = res.misses[0];
  EXPECT_EQ(m.config.gpu, "b");
  EXPECT_EQ(m.config.batch, 1);
  ASSERT_FALSE(m.changes.empty());
  EXPECT_EQ(m.changes[0].kind, PlanChangeKind::kTpotTarget);
  EXPECT_NEAR(m.changes[0].seconds, 0.02525, 1e-12);  // 101 / 4000

  PlanRequest g = small_request();
  g.load_kind = PlanLoadKind::kConcurrency;
  g.load = 10000;
  PlanSpace s = small_space();
  s.max_gpus = 8;
  const PlanResult gres = run(g, s);
  EXPECT_TRUE(gres.configs.empty());
  EXPECT_EQ(gres.binding, "gpus");
}

TEST(PlanTest, EfficiencyScalesTimes) {
  PlanRequest r = small_request();
  r.tpot_s.reset();
  r.efficiency = 0.5;
  const PlanResult res = run(r, small_space());
  ASSERT_FALSE(res.configs.empty());
  for (const PlanConfig& c : res.configs) {
    // TPOT doubles: (100 + B) / g / BW / 0.5.
    const double g = static_cast<double>(c.c.tp);
    const double bw = c.gpu == "a" ? 1000 : 2000;
    EXPECT_NEAR(c.tpot_s, (100 + static_cast<double>(c.batch)) / g / bw / 0.5, 1e-12);
  }
}

TEST(PlanTest, CheckPlanNamesTheField) {
  PlanRequest r = small_request();
  PlanSpace s = small_space();
  r.isl = 0;
  EXPECT_EQ(check_plan(r, s).message().rfind("isl:", 0), 0u);
  r = small_request();
  r.tpot_s = 0;
  EXPECT_EQ(check_plan(r, s).message().rfind("tpot:", 0), 0u);
  r = small_request();
  r.efficiency = 1.5;
  EXPECT_EQ(check_plan(r, s).message().rfind("efficiency:", 0), 0u);
  r = small_request();
  s.max_gpus = 0;
  EXPECT_EQ(check_plan(r, s).message().rfind("max_gpus:", 0), 0u);
}

// A GPU without a price (NaN) is searched all the same: every configuration is then ranked by GPU-hours per
// 1M output tokens, gpus / (tokens/s x 3600) x 1e6, and the unpriced GPU's US$ figures are NaN.
TEST(PlanTest, UnpricedGpuRanksByGpuHours) {
  PlanSpace s = small_space();
  s.gpus[1].usd_per_hour = std::numeric_limits<double>::quiet_NaN();  // "b" has no price
  EXPECT_EQ(check_plan(small_request(), s).message().rfind("gpus:", 0), 0u);  // the flag must say so
  s.rank_by_gpu_hours = true;
  const PlanResult res = run(small_request(), s);
  ASSERT_EQ(res.configs.size(), 3u);
  // The same three feasible configurations as HandDerivedSmallCase, reordered by GPU-hours:
  //   b TP2 batch 64: 2 GPUs over 6400 / 7.3 tokens/s: 2 x 7.3 / (6400 x 3600) x 1e6 = 0.6337 GPU-h
  //   b TP1 batch 20: 1 GPU over 2000 / 8 tokens/s:     1 x 8 / (2000 x 3600) x 1e6   = 1.1111 GPU-h
  //   a TP2 batch 20: 2 GPUs over 2000 / 7 tokens/s:    2 x 7 / (2000 x 3600) x 1e6   = 1.9444 GPU-h
  // (by cost, a TP2 at $3.89 came before b TP1 at $5.56).
  EXPECT_EQ(res.configs[0].gpu, "b");
  EXPECT_EQ(res.configs[0].c.tp, 2);
  EXPECT_NEAR(res.configs[0].gpu_hours_per_million_output, 2 * 7.3 / (6400.0 * 3600) * 1e6, 1e-9);
  EXPECT_EQ(res.configs[1].gpu, "b");
  EXPECT_EQ(res.configs[1].c.tp, 1);
  EXPECT_NEAR(res.configs[1].gpu_hours_per_million_output, 8 / (2000.0 * 3600) * 1e6, 1e-9);
  EXPECT_EQ(res.configs[2].gpu, "a");
  EXPECT_NEAR(res.configs[2].gpu_hours_per_million_output, 2 * 7 / (2000.0 * 3600) * 1e6, 1e-9);
  for (const PlanConfig& c : res.configs) EXPECT_DOUBLE_EQ(c.rank_cost, c.gpu_hours_per_million_output);
  EXPECT_TRUE(std::isnan(res.configs[0].usd_per_million_output));
  EXPECT_TRUE(std::isnan(res.configs[0].usd_per_hour));
  // "a" keeps its price: $4/h over 2000 / 7 tokens/s.
  EXPECT_NEAR(res.configs[2].usd_per_million_output, 4.0 / (2000 / 7.0 * 3600) * 1e6, 1e-9);
  // The flag without an unpriced GPU is refused too.
  PlanSpace priced = small_space();
  priced.rank_by_gpu_hours = true;
  EXPECT_EQ(check_plan(small_request(), priced).message().rfind("gpus:", 0), 0u);
}

TEST(PlanTest, EnumerationRespectsDivisibilityAndDomains) {
  PlanSpace s = small_space();
  s.n_head = 6;  // TP 4 does not divide 6 heads
  s.gpus[0].domain_gpus = 8;
  s.max_pp = 4;
  s.n_layer = 6;  // PP 4 does not divide 6 layers
  s.gpus.resize(1);
  for (const PlanCandidate& c : enumerate_plan_candidates(s)) {
    EXPECT_EQ(6 % c.tp, 0);
    EXPECT_EQ(6 % c.pp, 0);
    EXPECT_EQ(c.ep, 1);  // dense
  }
  EXPECT_EQ(enumerate_plan_candidates(s).size(), 4u);  // TP {1,2} x PP {1,2}
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

PlanFrontierPoint fp(const char* gpu, double user, double per_gpu, bool ceiling, bool mtp) {
  PlanFrontierPoint p;
  p.gpu = gpu;
  p.tokens_per_s_per_user = user;
  p.tokens_per_s_per_gpu = per_gpu;
  p.ceiling = ceiling;
  p.mtp = mtp;
  return p;
}

// Two frontiers merged keep only what no point of the same GPU and set beats on both axes: the MTP curve
// (200, 50), (100, 300) against the plain (150, 40), (100, 200), (50, 400): (150, 40) loses to (200, 50),
// (100, 200) to (100, 300); (50, 400) stays. Another GPU's and the ceiling's points are their own curves.
TEST(PlanTest, MergedFrontiersKeepTheParetoPointsPerGpuAndSet) {
  const std::vector<PlanFrontierPoint> plain = {fp("a", 150, 40, false, false), fp("a", 100, 200, false, false),
                                                fp("a", 50, 400, false, false), fp("a", 500, 1, true, false),
                                                fp("b", 10, 10, false, false)};
  const std::vector<PlanFrontierPoint> mtp = {fp("a", 200, 50, false, true), fp("a", 100, 300, false, true),
                                              fp("a", 400, 2, true, true)};
  const auto m = merge_frontiers(plain, mtp, false);
  ASSERT_EQ(m.size(), 6u);
  // a's predicted curve first, by tokens/s per user descending, then a's ceiling, then b.
  EXPECT_EQ(m[0].tokens_per_s_per_user, 200);
  EXPECT_TRUE(m[0].mtp);
  EXPECT_EQ(m[1].tokens_per_s_per_user, 100);
  EXPECT_EQ(m[1].tokens_per_s_per_gpu, 300);
  EXPECT_EQ(m[2].tokens_per_s_per_user, 50);
  EXPECT_FALSE(m[2].mtp);
  EXPECT_TRUE(m[3].ceiling);  // (500, 1) and (400, 2): neither beats the other
  EXPECT_EQ(m[3].tokens_per_s_per_user, 500);
  EXPECT_TRUE(m[4].ceiling);
  EXPECT_EQ(m[5].gpu, "b");
}

}  // namespace
}  // namespace modelcalc
