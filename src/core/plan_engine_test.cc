// plan over the real deployment engine: one engine (each configuration's TTFT
// and TPOT are the engine's for that deployment and batch), and the issue's
// properties on real models.
#include "modelcalc/plan_engine.h"

#include <gtest/gtest.h>

#include <cmath>

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

TEST(PlanEngineTest, EveryConfigIsTheServingModelsSteadyState) {
  const ModelSpec m = find_preset("llama-3.1-70b").value();
  const PlanRequest r = request_70b();
  PlanSpace s = space_of({"h100", "h200"});
  s.top = 1000;
  auto res = plan_deployments(m, r, s);
  ASSERT_TRUE(res.ok()) << res.status().message();
  ASSERT_FALSE(res->configs.empty());
  for (const PlanConfig& c : res->configs) {
    ASSERT_TRUE(c.has_figures);
    auto p = prepare_plan_candidate(m, r, find_gpu(c.gpu).value(), c.c);
    ASSERT_TRUE(p.ok()) << p.status().message();
    // The same function on the same inputs: equal to the last bit, both figure sets.
    const ServingRequest req{r.isl, r.osl, ServingLoad::kBatch, static_cast<double>(c.batch)};
    const ServingFigures ceil = serve(p->d, p->ceiling_cap, p->params, true, req);
    const ServingFigures pred = serve(p->engine_d, p->engine_cap, p->params, false, req);
    EXPECT_EQ(c.ceiling.tpot_s, ceil.tpot_s) << c.gpu << " tp" << c.c.tp << " batch " << c.batch;
    EXPECT_EQ(c.ceiling.ttft_s, ceil.ttft_s);
    EXPECT_EQ(c.predicted.tpot_s, pred.tpot_s);
    EXPECT_EQ(c.predicted.ttft_s, pred.ttft_s);
    EXPECT_EQ(c.tpot_s, c.predicted.tpot_s);  // ranked by the prediction
    EXPECT_EQ(c.predicted.max_sequences, static_cast<int64_t>(std::floor(pred.capacity_sequences)));
    EXPECT_LE(c.batch, c.predicted.max_sequences);
    // The ceiling bounds the prediction at the same batch: never slower, never fewer sequences.
    EXPECT_LE(c.ceiling.tpot_s, c.predicted.tpot_s);
    EXPECT_LE(c.ceiling.ttft_s, c.predicted.ttft_s);
    EXPECT_GE(c.ceiling.max_sequences, c.predicted.max_sequences);
    EXPECT_GE(c.ceiling.tokens_per_s_per_gpu, c.predicted.tokens_per_s_per_gpu);
  }
}

TEST(PlanEngineTest, SearchesBatchesBeyond1024AndFp8Kv) {
  // An 8B model on an H200 holds thousands of sequences: with no targets the cheapest per token runs
  // past 1,024 (the old search's last batch), and the default KV list has fp8 on a GPU with an fp8 peak.
  const ModelSpec m = find_preset("llama-3.1-8b").value();
  PlanRequest r;
  r.isl = 128;
  r.osl = 1024;
  PlanSpace s = space_of({"h200"});
  s.weight_dtypes = {Dtype::kFp8};
  auto res = plan_deployments(m, r, s);
  ASSERT_TRUE(res.ok()) << res.status().message();
  ASSERT_FALSE(res->configs.empty());
  EXPECT_GT(res->configs[0].batch, 1024);
  EXPECT_EQ(res->configs[0].c.kv_dtype, Dtype::kFp8);
  // A100s have no fp8 peak: no fp8 KV candidate.
  PlanSpace a = space_of({"a100"});
  for (const PlanCandidate& c : enumerate_plan_candidates(a)) EXPECT_NE(c.kv_dtype, Dtype::kFp8);
}

TEST(PlanEngineTest, RankByCeilingKeepsTheBound) {
  const ModelSpec m = find_preset("llama-3.1-70b").value();
  PlanRequest r = request_70b();
  r.rank_by_ceiling = true;
  auto res = plan_deployments(m, r, space_of({"h100"}));
  ASSERT_TRUE(res.ok());
  ASSERT_FALSE(res->configs.empty());
  for (const PlanConfig& c : res->configs) EXPECT_EQ(c.tpot_s, c.ceiling.tpot_s);
  // The ceiling needs no more GPUs than the prediction for the same load.
  PlanRequest q = request_70b();
  auto pred = plan_deployments(m, q, space_of({"h100"}));
  ASSERT_TRUE(pred.ok());
  ASSERT_FALSE(pred->configs.empty());
  EXPECT_LE(res->configs[0].gpus, pred->configs[0].gpus);
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


// A disaggregated plan small enough to check by hand: a 32-layer dense model (d 1024, 8 MHA heads of 128,
// V 32000) on H100s alone, TP 1, 2, 4 or 8, bf16 weights and KV, one batch (64), 5 requests/s of 2,048 in and
// 256 out, ranked by the ceiling, no targets. Each candidate's pool figures are serve()'s (a prefill replica
// saturated: R_p requests/s; a decode replica at batch 64: R_d); the plan must pick, over every pair, the
// fewest replicas x = ceil(5 / R_p), y = ceil(5 / R_d) at the lowest cost (x tp_p + y tp_d) x price, and
// price its output at cost / (5 x 256 x 3600) x 1e6. Its prompt's KV: 2,048 x 32 x 2 x 1024 x 2 B.
TEST(PlanEngineTest, DisaggregatedPlanByHand) {
  ModelSpec m;
  m.n_layer = 32;
  m.n_embd = 1024;
  m.n_head = 8;
  m.n_head_kv = 8;
  m.n_embd_head = 128;
  m.n_ff = 4096;
  m.ffn_gated = true;
  m.n_vocab = 32000;
  PlanRequest r;
  r.isl = 2048;
  r.osl = 256;
  r.load_kind = PlanLoadKind::kRequestsPerS;
  r.load = 5;
  r.rank_by_ceiling = true;
  PlanSpace s = space_of({"h100"});
  s.max_pp = 1;
  s.weight_dtypes = {Dtype::kBf16};
  s.kv_dtypes = {Dtype::kBf16};
  s.batches = {64};
  s.top = 1;
  auto res = plan_disaggregated(m, r, s);
  ASSERT_TRUE(res.ok()) << res.status().message();
  ASSERT_EQ(res->configs.size(), 1u);
  const DisaggPlanConfig& c = res->configs[0];
  const double price = s.gpus[0].usd_per_hour;
  double best = 1e30;
  int64_t best_x = 0, best_y = 0, best_tp_p = 0, best_tp_d = 0;
  for (int64_t tp_p : {1, 2, 4, 8}) {
    for (int64_t tp_d : {1, 2, 4, 8}) {
      PlanCandidate cp{0, tp_p, 1, 1, 1, Dtype::kBf16, Dtype::kBf16}, cd{0, tp_d, 1, 1, 1, Dtype::kBf16, Dtype::kBf16};
      auto pp = prepare_plan_candidate(m, r, s.gpus[0].gpu, cp);
      auto dp = prepare_plan_candidate(m, r, s.gpus[0].gpu, cd);
      ASSERT_TRUE(pp.ok() && dp.ok());
      const ServingFigures pf = serve(pp->d, pp->ceiling_cap, pp->params, true,
                                      {r.isl, r.osl, ServingLoad::kSaturated, 0, ServingPhase::kPrefillOnly});
      const ServingFigures df = serve(dp->d, dp->ceiling_cap, dp->params, true,
                                      {r.isl, r.osl, ServingLoad::kBatch, 64, ServingPhase::kDecodeOnly});
      const int64_t x = static_cast<int64_t>(std::ceil(5 / pf.requests_per_s));
      const int64_t y = static_cast<int64_t>(std::ceil(5 / df.requests_per_s));
      const double cost = static_cast<double>(x * tp_p + y * tp_d) * price;
      if (cost < best) {
        best = cost;
        best_x = x, best_y = y, best_tp_p = tp_p, best_tp_d = tp_d;
      }
    }
  }
  EXPECT_EQ(c.prefill.replicas, best_x);
  EXPECT_EQ(c.decode.replicas, best_y);
  EXPECT_EQ(c.prefill.c.tp * c.prefill.replicas + c.decode.c.tp * c.decode.replicas,
            best_tp_p * best_x + best_tp_d * best_y);
  EXPECT_DOUBLE_EQ(c.usd_per_hour, best);
  EXPECT_DOUBLE_EQ(c.usd_per_million_output, best / (5.0 * 256 * 3600) * 1e6);
  EXPECT_DOUBLE_EQ(c.kv_bytes_per_request, 2048.0 * 32 * 2 * 1024 * 2);
  EXPECT_EQ(c.decode.batch, 64);
  // The aggregated plan beside it.
  EXPECT_FALSE(res->aggregated.configs.empty());
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// Under a concurrency C (a closed loop: benchmark_serving --max-concurrency C), each configuration's
// ceil(C / slots) replicas share the users, and every replica's predicted figures obey Little's law:
// C / replicas = rate x (TTFT + (osl - 1) x TPOT), rate = tokens/s per replica / osl; the served
// output is the replicas' sum. The case: gpt-oss-120b, vLLM, 2000 in / 100 out, 390 users
// (where the batch model predicted TTFT 215 s beside TPOT 110 ms).
TEST(PlanEngineTest, AConcurrencyIsAClosedLoopObeyingLittlesLaw) {
  const ModelSpec m = find_preset("gpt-oss-120b").value();
  PlanRequest r;
  r.isl = 2000;
  r.osl = 100;
  r.tpot_s = 0.2;
  r.load_kind = PlanLoadKind::kConcurrency;
  r.load = 390;
  r.engine = default_release(Engine::kVllm);
  PlanSpace s = space_of({"h100"});
  s.max_gpus = 8;
  s.top = 1000;
  auto res = plan_deployments(m, r, s);
  ASSERT_TRUE(res.ok()) << res.status().message();
  ASSERT_FALSE(res->configs.empty());
  for (const PlanConfig& c : res->configs) {
    const PlanFigures& f = c.predicted;
    const double users = 390.0 / static_cast<double>(c.replicas);
    EXPECT_EQ(c.batch, static_cast<int64_t>(std::ceil(users - 1e-9)));  // every user holds a slot
    EXPECT_LE(c.batch, f.max_sequences);
    const double rate = f.tokens_per_s_per_replica / 100.0;  // requests/s of one replica
    EXPECT_NEAR(rate * (f.ttft_s + 99 * f.tpot_s), users, 1e-6 * users) << c.gpu << " x" << c.replicas;
    EXPECT_NEAR(f.served_output_tokens_per_s, static_cast<double>(c.replicas) * f.tokens_per_s_per_replica,
                1e-9 * f.served_output_tokens_per_s);
  }
}

}  // namespace
}  // namespace modelcalc
