// plan over the real deployment engine: one engine (each configuration's TTFT
// and TPOT are the engine's for that deployment and batch), and the issue's
// properties on real models.
#include "modelcalc/plan_engine.h"

#include <gtest/gtest.h>

#include "modelcalc/hf_config.h"
#include "modelcalc/prices.h"

namespace modelcalc {
namespace {

PlanSpace space_of(std::initializer_list<const char*> gpus) {
  PlanSpace s;
  for (const char* name : gpus) {
    PlanGpu g;
    g.gpu = find_gpu(name).value();
    g.usd_per_hour = find_price(g.gpu.key)->usd_per_hour;
    g.domain_gpus = g.gpu.domain_gpus;
    s.gpus.push_back(g);
  }
  return s;
}

PlanRequest request_70b() {
  PlanRequest r;
  r.isl = 2048;
  r.osl = 512;
  r.ttft_s = 1.0;
  r.tpot_s = 0.050;
  r.load_kind = PlanLoadKind::kRequestsPerS;
  r.load = 20;
  return r;
}

TEST(PlanEngineTest, EveryConfigIsTheEnginesDeployment) {
  const ModelSpec m = find_preset("llama-3.1-70b").value();
  const PlanRequest r = request_70b();
  PlanSpace s = space_of({"h100", "h200"});
  s.top = 1000;
  auto res = plan_deployments(m, r, s);
  ASSERT_TRUE(res.ok()) << res.status().message();
  ASSERT_FALSE(res->configs.empty());
  for (const PlanConfig& c : res->configs) {
    DeploymentOptions o = plan_deployment_options(r, c.c);
    o.batch = c.batch;
    auto e = analyze_deployment(m, find_gpu(c.gpu).value(), o);
    ASSERT_TRUE(e.ok()) << e.status().message();
    // The same function on the same inputs: equal to the last bit.
    EXPECT_EQ(c.tpot_s, e->decode.seconds) << c.gpu << " tp" << c.c.tp << " batch " << c.batch;
    EXPECT_EQ(c.ttft_s, e->prefill.seconds);
    EXPECT_EQ(c.max_sequences, e->memory.max_sequences);
    EXPECT_LE(c.batch, e->memory.max_sequences);
  }
}

TEST(PlanEngineTest, EveryReturnedConfigMeetsItsTargets) {
  const ModelSpec m = find_preset("llama-3.1-70b").value();
  for (double tpot : {0.02, 0.05, 0.1}) {
    PlanRequest r = request_70b();
    r.tpot_s = tpot;
    PlanSpace s = space_of({"h100", "h200", "mi300x"});
    s.max_gpus = 32;
    s.top = 1000;
    auto res = plan_deployments(m, r, s);
    ASSERT_TRUE(res.ok());
    for (const PlanConfig& c : res->configs) {
      EXPECT_LE(c.ttft_s, *r.ttft_s);
      EXPECT_LE(c.tpot_s, *r.tpot_s);
      EXPECT_LE(c.batch, c.max_sequences);
      EXPECT_LE(c.gpus, s.max_gpus);
      EXPECT_GE(static_cast<double>(c.replicas) * c.tokens_per_s_per_replica, r.load * 512 * (1 - 1e-12));
    }
  }
}

TEST(PlanEngineTest, LooserTargetsNeverRaiseTheBestCost) {
  const ModelSpec m = find_preset("llama-3.1-8b").value();
  double previous = 1e300;
  for (double tpot : {0.005, 0.01, 0.02, 0.04, 0.08, 0.2}) {
    PlanRequest r = request_70b();
    r.tpot_s = tpot;
    r.ttft_s = 2.0;
    auto res = plan_deployments(m, r, space_of({"h100", "l40s"}));
    ASSERT_TRUE(res.ok());
    if (res->configs.empty()) continue;  // too tight: nothing to compare yet
    EXPECT_LE(res->configs[0].usd_per_million_output, previous) << tpot;
    previous = res->configs[0].usd_per_million_output;
  }
  EXPECT_LT(previous, 1e300);
}

TEST(PlanEngineTest, MoreGpusNeverLowerAConfigsMaximumThroughput) {
  // For one GPU kind and dtype, the best output tokens/s per replica over every batch that
  // fits, as TP grows 1 -> 2 -> 4 -> 8 (no targets, no load).
  const ModelSpec m = find_preset("llama-3.1-70b").value();
  PlanRequest r = request_70b();
  r.ttft_s.reset();
  r.tpot_s.reset();
  r.load_kind = PlanLoadKind::kNone;
  double previous = 0;
  for (int64_t tp : {1, 2, 4, 8}) {
    PlanSpace s = space_of({"h100"});
    s.weight_dtypes = {Dtype::kFp8};
    s.max_gpus = tp;
    s.max_pp = 1;
    s.top = 1000;
    auto res = plan_deployments(m, r, s);
    ASSERT_TRUE(res.ok());
    double best = 0;
    for (const PlanConfig& c : res->configs) best = std::max(best, c.tokens_per_s_per_replica);
    EXPECT_GE(best, previous) << "tp " << tp;
    previous = best;
  }
  EXPECT_GT(previous, 0);
}

TEST(PlanEngineTest, InfeasibleNamesTheBindingConstraint) {
  const ModelSpec m = find_preset("llama-3.1-70b").value();
  PlanRequest r = request_70b();
  r.tpot_s = 0.0005;  // 0.5 ms per token: no GPU reads a 70B model that fast
  auto res = plan_deployments(m, r, space_of({"h100"}));
  ASSERT_TRUE(res.ok());
  EXPECT_TRUE(res->configs.empty());
  EXPECT_TRUE(res->binding == "tpot" || res->binding == "communication") << res->binding;
  ASSERT_FALSE(res->misses.empty());

  PlanRequest big = request_70b();
  big.load = 1e6;  // a million requests/s cannot fit in 8 GPUs
  PlanSpace s = space_of({"h100"});
  s.max_gpus = 8;
  auto g = plan_deployments(m, big, s);
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->configs.empty());
  EXPECT_EQ(g->binding, "gpus");
}

TEST(PlanEngineTest, MoeSearchesExpertParallel) {
  const ModelSpec m = find_preset("mixtral-8x7b-v0.1").value();
  PlanRequest r = request_70b();
  PlanSpace s = space_of({"h100"});
  s.top = 1000;
  auto res = plan_deployments(m, r, s);
  ASSERT_TRUE(res.ok());
  EXPECT_GT(res->searched, 0);
  bool ep = false;
  for (const PlanConfig& c : res->configs) ep = ep || c.c.ep > 1;
  EXPECT_TRUE(ep);
}

}  // namespace
}  // namespace modelcalc
