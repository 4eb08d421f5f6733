#include "modelcalc/layout_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/plan_engine.h"

namespace modelcalc {
namespace {

const char kHeader[] =
    "id\tengine\tprofile\tmodel\tgpu\tgpus\ttp\tattn_dp\tep\tredundant_experts\ttwo_batch_overlap\tweight_dtype\t"
    "kv_dtype\tphase\tisl\tosl\tprefix_hit\tspec_method\tspec_tokens\tspec_acceptance\tmetric\tvalue\tshape\tsource\t"
    "notes\n";

TEST(LayoutCheckTest, ParsesARow) {
  const std::string text = std::string("# a comment\n") + kHeader +
                           "r\tE\tsglang\tdeepseek-v3\th100\t16\t1\t16\t16\t0\tyes\tfp8\tbf16\tdecode\t2000\t100\t0.25\t"
                           "mtp\t2\t0.7\toutput_tokens_per_s_per_node\t1000\tpublished\tsrc\t\n";
  auto rows = parse_layout_measurements(text, "t.tsv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  const LayoutMeasurement& r = (*rows)[0];
  EXPECT_EQ(r.gpus, 16);
  EXPECT_EQ(r.attn_dp, 16);
  EXPECT_TRUE(r.two_batch_overlap);
  EXPECT_EQ(r.phase, ServingPhase::kDecodeOnly);
  EXPECT_EQ(r.spec_method, SpecMethod::kMtp);
  EXPECT_EQ(r.spec_tokens, 2);
  EXPECT_DOUBLE_EQ(r.prefix_hit, 0.25);
  EXPECT_FALSE(r.shape_assumed);
}

TEST(LayoutCheckTest, RefusesNamingTheLineAndColumn) {
  // Line 2 (the header is line 1): a prefill metric on a decode row.
  const std::string text = std::string(kHeader) +
                           "r\tE\tsglang\tdeepseek-v3\th100\t16\t1\t16\t16\t0\tno\tfp8\tbf16\tdecode\t2000\t100\t0\tnone\t"
                           "0\t0\tinput_tokens_per_s_per_node\t1000\tpublished\tsrc\t\n";
  auto rows = parse_layout_measurements(text, "t.tsv");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("t.tsv line 2: metric 'input_tokens_per_s_per_node' does not go with phase "
                                         "decode"),
            std::string::npos)
      << rows.status().message();
  const std::string no_source = std::string(kHeader) +
                                "r\tE\tsglang\tdeepseek-v3\th100\t16\t1\t16\t16\t0\tno\tfp8\tbf16\tprefill\t2000\t100\t0\t"
                                "none\t0\t0\tinput_tokens_per_s_per_node\t1000\tpublished\t\t\n";
  auto s = parse_layout_measurements(no_source, "t.tsv");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("source '' is empty"), std::string::npos) << s.status().message();
}

// The compiled-in rows are the ones the reality check promises: SGLang's large-scale EP blog (prefill and
// decode per node), DeepSeek's inference-system overview (prefill and decode per node), one published
// speculative-decoding speed-up with its acceptance rate.
TEST(LayoutCheckTest, TheSharedRowsCoverThePublishedFigures) {
  const auto rows = shared_layout_measurements();
  ASSERT_EQ(rows.size(), 5u);
  int prefill = 0, decode = 0, spec = 0;
  for (const LayoutMeasurement& r : rows) {
    EXPECT_FALSE(r.source.empty()) << r.id;
    prefill += r.metric == LayoutMetric::kInputTokensPerNode;
    decode += r.metric == LayoutMetric::kOutputTokensPerNode;
    spec += r.metric == LayoutMetric::kSpecSpeedup;
  }
  EXPECT_EQ(prefill, 2);
  EXPECT_EQ(decode, 2);
  EXPECT_EQ(spec, 1);
}

// The ceiling is a true upper bound: no published figure exceeds it, on the layout it was measured on (the
// shapes a source does not publish are assumed generously: a shorter context, the drafter on).
TEST(LayoutCheckTest, NoPublishedFigureExceedsTheCeiling) {
  auto checks = check_layouts(shared_layout_measurements());
  ASSERT_TRUE(checks.ok()) << checks.status().message();
  for (const LayoutCheck& k : *checks) {
    EXPECT_LE(k.row->value, k.ceiling) << k.row->id << ": measured " << k.row->value << ", ceiling " << k.ceiling;
    EXPECT_GT(k.predicted, 0) << k.row->id;
  }
}

// Per node is the pool's figure x 8 / gpus (an 8-GPU HGX node): the check's arithmetic against serve() on the
// same options, by hand.
TEST(LayoutCheckTest, PerNodeIsThePoolsFigureTimesNodeOverGpus) {
  const auto rows = shared_layout_measurements();
  const LayoutMeasurement& r = rows[1];  // sglang-ep-decode: 72 GPUs
  ASSERT_EQ(r.id, "sglang-ep-decode");
  auto checks = check_layouts(rows.subspan(1, 1));
  ASSERT_TRUE(checks.ok());
  const ModelSpec m = find_preset(r.model).value();
  const GpuSpec g = find_gpu(r.gpu).value();
  const DeploymentOptions o = layout_measurement_options(r).value();
  const PlanPrepared p = prepare_serving(m, g, o, r.profile, EngineFlags{}, r.isl, r.osl).value();
  const ServingFigures c = serve(p.d, p.ceiling_cap, p.params, true,
                                 {r.isl, r.osl, ServingLoad::kSaturated, 0, ServingPhase::kDecodeOnly});
  EXPECT_DOUBLE_EQ((*checks)[0].ceiling, c.output_tokens_per_s * 8.0 / 72.0);
  EXPECT_EQ((*checks)[0].node_gpus, 8);
}

// The speed-up row: its bound is the tokens a step yields, 1 + A for one draft token (K = 1, A = 0.875:
// 1.875); the engine's figure is the decode pool with the drafter over the same pool without. At A = 0 the
// drafter only costs (one token per step, plus the draft pass), so the engine's ratio falls below 1; at
// A = 1 it stays below K + 1 = 2 (the draft pass is not free).
TEST(LayoutCheckTest, SpeedupIsBoundedByTheTokensAStepYields) {
  LayoutMeasurement r = shared_layout_measurements()[4];
  ASSERT_EQ(r.metric, LayoutMetric::kSpecSpeedup);
  ASSERT_EQ(r.spec_tokens, 1);
  {
    const LayoutMeasurement rows[] = {r};
    auto checks = check_layouts(rows);
    ASSERT_TRUE(checks.ok()) << checks.status().message();
    EXPECT_DOUBLE_EQ((*checks)[0].ceiling, 1 + r.spec_acceptance);
  }
  r.spec_acceptance = 0;
  {
    const LayoutMeasurement rows[] = {r};
    auto checks = check_layouts(rows);
    ASSERT_TRUE(checks.ok()) << checks.status().message();
    EXPECT_DOUBLE_EQ((*checks)[0].ceiling, 1.0);
    EXPECT_LT((*checks)[0].modelled_ceiling, 1.0);
    EXPECT_GT((*checks)[0].modelled_ceiling, 0.5);
  }
  r.spec_acceptance = 1;
  {
    const LayoutMeasurement rows[] = {r};
    auto checks = check_layouts(rows);
    ASSERT_TRUE(checks.ok()) << checks.status().message();
    EXPECT_DOUBLE_EQ((*checks)[0].ceiling, 2.0);
    EXPECT_LT((*checks)[0].modelled_ceiling, 2.0);
    EXPECT_GT((*checks)[0].modelled_ceiling, 1.0);
  }
}

}  // namespace
}  // namespace modelcalc
