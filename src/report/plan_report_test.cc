#include "plan_report.h"

#include <gtest/gtest.h>

#include "plan_search.h"
#include "plan_text.h"

namespace modelcalc {
namespace {

// A two-GPU stand-in search (the numbers are checked in plan_test.cc).
struct Fixture {
  PlanRequest r;
  PlanSpace s;
  PlanResult res;
  Fixture(double tpot) {
    r.isl = 1000;
    r.osl = 100;
    r.ttft_s = 1.0;
    r.tpot_s = tpot;
    r.load_kind = PlanLoadKind::kRequestsPerS;
    r.load = 20;
    for (auto [key, bw, price] : {std::tuple{"a", 1000.0, 2.0}, std::tuple{"b", 2000.0, 5.0}}) {
      PlanGpu g;
      g.gpu.key = key;
      g.gpu.bandwidth_bytes_per_s = bw * 1e9;
      g.usd_per_hour = price;
      g.price_source = "test";
      g.domain_gpus = 2;
      s.gpus.push_back(g);
    }
    s.weight_dtypes = {Dtype::kBf16};
    s.batches = {1, 4, 16, 64};
    s.max_pp = 1;
    auto prepare = [&](const PlanCandidate& c) -> Result<double> {
      return static_cast<double>(c.tp) * s.gpus[c.gpu].gpu.bandwidth_bytes_per_s / 1e9;
    };
    auto evaluate = [](const double& g_bw, int64_t batch, int64_t, int64_t) {
      PlanPoint p;
      p.max_sequences = 100;
      p.tpot_s = (100 + static_cast<double>(batch)) / g_bw;
      p.ttft_s = 0.05;
      return p;
    };
    res = search_plan(r, s, prepare, evaluate);
  }
  PlanView view() const { return PlanView{"stand-in", &r, &s, &res, true, {}}; }
};

TEST(PlanReportTest, JsonHasTheIssueKeys) {
  Fixture fx(0.060);
  ASSERT_FALSE(fx.res.configs.empty());
  const nlohmann::json j = plan_json(fx.view());
  for (const char* k : {"configs", "frontier", "searched", "rejected", "seconds", "efficiency", "feasible"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  EXPECT_EQ(j["searched"].get<int64_t>(), fx.res.searched);
  for (const char* k : {"memory", "ttft", "tpot", "communication", "gpus", "unsupported"}) {
    EXPECT_TRUE(j["rejected"].contains(k)) << k;
  }
  const auto& c = j["configs"][0];
  for (const char* k : {"gpu", "gpus", "tp", "pp", "ep", "dp", "weight_dtype", "kv_dtype", "batch", "ttft_s", "tpot_s",
                        "tokens_per_s_per_user", "tokens_per_s_per_gpu", "replicas", "usd_per_hour",
                        "usd_per_million_output_tokens", "deciding"}) {
    EXPECT_TRUE(c.contains(k)) << k;
  }
  EXPECT_DOUBLE_EQ(c["tpot_s"].get<double>(), fx.res.configs[0].tpot_s);
  EXPECT_DOUBLE_EQ(c["usd_per_million_output_tokens"].get<double>(), fx.res.configs[0].usd_per_million_output);
}

TEST(PlanReportTest, TextNamesTheBestAndTheDecidingConstraint) {
  Fixture fx(0.060);
  const std::string t = render_plan_text(fx.view());
  EXPECT_NE(t.find("Best configurations"), std::string::npos);
  EXPECT_NE(t.find(plan_deciding_text(fx.r, fx.s, fx.res.configs[0])), std::string::npos);
  EXPECT_NE(t.find("efficiency 1.0"), std::string::npos);
  EXPECT_NE(t.find("Frontier per GPU kind"), std::string::npos);
}

TEST(PlanReportTest, InfeasibleTextListsMisses) {
  Fixture fx(0.001);
  ASSERT_TRUE(fx.res.configs.empty());
  const std::string t = render_plan_text(fx.view());
  EXPECT_NE(t.find("Nothing meets the targets (binding constraint: tpot)"), std::string::npos) << t;
  EXPECT_NE(t.find("would need: a TPOT target of at least"), std::string::npos) << t;
  const nlohmann::json j = plan_json(fx.view());
  EXPECT_EQ(j["binding"], "tpot");
  EXPECT_FALSE(j["misses"].empty());
}

TEST(PlanReportTest, ExplainSubstitutesTheResultsOwnNumbers) {
  Fixture fx(0.060);
  const Report rep = build_plan_explain(fx.view());
  const std::string e = render_explain(rep);
  EXPECT_NE(e.find("osl × TPOT + B × TTFT"), std::string::npos);
  // The GPU count explained is tp x pp x attn_dp x replicas of the chosen config.
  const PlanConfig& c = fx.res.configs[0];
  EXPECT_NE(e.find(std::to_string(c.c.tp) + " × 1 × 1 × " + std::to_string(c.replicas)), std::string::npos) << e;
  const nlohmann::json j = render_json(rep);
  EXPECT_EQ(j["gpus"].get<int64_t>(), c.gpus);
  EXPECT_DOUBLE_EQ(j["usd_per_hour"].get<double>(), c.usd_per_hour);
}

TEST(PlanReportTest, FrontierSvgHasOneLinePerGpuKind) {
  Fixture fx(0.060);
  const std::string svg = plan_frontier_svg(fx.view());
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  size_t polylines = 0;
  for (size_t p = svg.find("<polyline"); p != std::string::npos; p = svg.find("<polyline", p + 1)) ++polylines;
  EXPECT_EQ(polylines, 2u);
}

}  // namespace
}  // namespace modelcalc
