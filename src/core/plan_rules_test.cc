// plan proposes only what the engines load: every configuration it ranks,
// every frontier point and every disaggregated pool passes the engine's
// acceptance rules (engine_rules.h), over the presets and the 2026 fixtures.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "modelcalc/engine_rules.h"
#include "modelcalc/hf_config.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR
#include "modelcalc/plan_engine.h"
#include "modelcalc/prices.h"

namespace modelcalc {
namespace {

PlanSpace small_space() {
  PlanSpace s;
  // One GPU of each family the rules tell apart: Ada (no FP8 block MoE in TensorRT-LLM), Hopper, CDNA3 (no
  // TensorRT-LLM at all), Blackwell.
  for (const char* name : {"l40s", "h100", "mi300x", "b200"}) {
    PlanGpu g;
    g.gpu = find_gpu(name).value();
    g.usd_per_hour = find_price(g.gpu.key)->usd_per_hour;
    g.domain_gpus = g.gpu.domain_gpus;
    s.gpus.push_back(g);
  }
  s.max_gpus = 16;
  s.max_pp = 2;
  s.batches = {64, 1024};
  s.top = 1000;
  return s;
}

std::vector<ModelSpec> models() {
  std::vector<ModelSpec> out;
  for (const PresetInfo& p : presets()) out.push_back(find_preset(p.name).value());
  const std::string dir = std::string(MODELCALC_SOURCE_DIR) + "/tests/fixtures/hf-configs-2026";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    auto m = load_hf_config(e.path().string());
    if (m.ok()) out.push_back(*m);
  }
  // The issue's checkpoint: Qwen3-235B-A22B with its -FP8 sibling's block quantization.
  std::ifstream in(dir + "/Qwen--Qwen3-235B-A22B.config.json");
  std::stringstream t;
  t << in.rdbuf();
  std::string text = t.str();
  text.insert(text.rfind('}'), R"(, "quantization_config": {"quant_method": "fp8", "fmt": "e4m3",
                                   "activation_scheme": "dynamic", "weight_block_size": [128, 128]})");
  out.push_back(model_from_hf_json(text, "Qwen3-235B-A22B-FP8").value());
  return out;
}

void expect_accepted(const ModelSpec& m, const PlanRequest& r, const std::string& gpu, const PlanCandidate& c) {
  auto p = prepare_plan_candidate(m, r, find_gpu(gpu).value(), c);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const Status s = check_engine_rules(p->settings.engine, m, find_gpu(gpu).value(), p->d);
  EXPECT_TRUE(s.ok()) << m.name << " on " << gpu << " tp" << c.tp << " ep" << c.ep << ": " << s.message();
}

TEST(PlanRulesTest, EveryProposedConfigurationIsOneTheEngineLoads) {
  const std::vector<ModelSpec> ms = models();
  ASSERT_GT(ms.size(), 50u);
  int64_t checked = 0;
  for (const ModelSpec& m : ms) {
    for (Engine e : kAllEngines) {
      PlanRequest r;
      r.isl = 1000;
      r.osl = 200;
      r.engine = default_release(e);
      auto res = plan_deployments(m, r, small_space());
      ASSERT_TRUE(res.ok()) << m.name << " " << engine_name(e) << ": " << res.status().message();
      for (const PlanConfig& c : res->configs) {
        expect_accepted(m, r, c.gpu, c.c);
        ++checked;
      }
      for (const PlanFrontierPoint& f : res->frontier) expect_accepted(m, r, f.gpu, f.c);
      if (e == Engine::kTrtllm) {
        for (const PlanConfig& c : res->configs) EXPECT_NE(c.gpu, "mi300x") << m.name;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

// The issue's case: vLLM cannot load Qwen3-235B-A22B-FP8 at TP8 without EP (the experts' 1536 / 8 = 192 is
// 1.5 blocks), so no plan row is TP8·EP1, and TP8·EP8 (whole experts) is among them.
TEST(PlanRulesTest, Qwen235Fp8OnVllmIsProposedWithExpertParallelism) {
  const ModelSpec m = models().back();
  PlanRequest r;
  r.isl = 2000;
  r.osl = 200;
  r.engine = default_release(Engine::kVllm);
  PlanSpace s = small_space();
  s.gpus.erase(s.gpus.begin());  // H100, MI300X, B200
  s.dp_attention = false;
  s.weight_dtypes = {Dtype::kFp8};  // the checkpoint's (the CLI's default for a quantized checkpoint)
  auto res = plan_deployments(m, r, s);
  ASSERT_TRUE(res.ok()) << res.status().message();
  bool ep_at_tp8 = false;
  for (const PlanConfig& c : res->configs) {
    EXPECT_FALSE(c.c.tp == 8 && c.c.ep == 1) << c.gpu;
    ep_at_tp8 |= c.c.tp == 8 && c.c.ep == 8 && c.gpu == "h100-sxm";
  }
  EXPECT_TRUE(ep_at_tp8);
  // Refused, by name: H100 and B200 at tp 8 (and B200 at tp 4? 1536 / 4 = 384 = 3 blocks: no) with ep 1.
  ASSERT_EQ(res->rejected.by_engine_rule.size(), 1u);
  EXPECT_EQ(res->rejected.by_engine_rule[0].first, "fp8-block-experts");
  EXPECT_GT(res->rejected.by_engine_rule[0].second, 0);
}

// The disaggregated pools come from the same prepared candidates: every pool passes too.
TEST(PlanRulesTest, DisaggregatedPoolsAreOnesTheEngineLoads) {
  const ModelSpec m = models().back();
  PlanRequest r;
  r.isl = 2000;
  r.osl = 200;
  r.engine = default_release(Engine::kSglang);
  r.load_kind = PlanLoadKind::kRequestsPerS;
  r.load = 10;
  auto res = plan_disaggregated(m, r, small_space());
  ASSERT_TRUE(res.ok()) << res.status().message();
  ASSERT_FALSE(res->configs.empty());
  for (const DisaggPlanConfig& c : res->configs) {
    expect_accepted(m, r, c.prefill.gpu, c.prefill.c);
    expect_accepted(m, r, c.decode.gpu, c.decode.c);
  }
}

}  // namespace
}  // namespace modelcalc
