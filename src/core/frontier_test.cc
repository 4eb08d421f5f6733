#include "modelcalc/frontier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace modelcalc {
namespace {

PlanFrontierPoint point(const char* gpu, double user, double per_gpu, bool ceiling = false) {
  PlanFrontierPoint p;
  p.gpu = gpu;
  p.tokens_per_s_per_user = user;
  p.tokens_per_s_per_gpu = per_gpu;
  p.ceiling = ceiling;
  return p;
}

// Log-log interpolation between the two neighbouring points of the GPU's predicted curve: between (10, 1000)
// and (100, 10), at 10^1.5 tokens/s per user the log of the throughput is halfway, log10 = (3 + 1) / 2 = 2.
TEST(FrontierTest, FrontierAtInterpolatesLogLogOnOneGpusPredictedCurve) {
  const std::vector<PlanFrontierPoint> f = {point("a", 100, 10), point("a", 10, 1000), point("a", 50, 1e6, true),
                                            point("b", 31.6, 1e6)};
  EXPECT_NEAR(frontier_at(f, "a", std::pow(10.0, 1.5)), 100, 1e-9);
  EXPECT_DOUBLE_EQ(frontier_at(f, "a", 10), 1000);  // a point itself
  EXPECT_TRUE(std::isnan(frontier_at(f, "a", 200)));  // beyond the curve
  EXPECT_TRUE(std::isnan(frontier_at(f, "a", 5)));
  EXPECT_TRUE(std::isnan(frontier_at(f, "c", 50)));   // no curve for that GPU
}

const char kHeader[] =
    "id\tmodel\tcheckpoint\tgpu\tgpus\ttp\tpp\tep\tweight_dtype\tkv_dtype\tisl\tosl\tload\tmetric\tvalue\tengine\t"
    "engine_version\tsource\tnotes\n";

std::string row(const std::string& id, const std::string& model, const std::string& gpu, const std::string& isl,
                const std::string& load, const std::string& metric, const std::string& value) {
  return id + "\t" + model + "\t\t" + gpu + "\t1\t1\t1\t1\tfp8\tfp8\t" + isl + "\t1000\t" + load + "\t" + metric +
         "\t" + value + "\tTensorRT-LLM\t0.17\tsomewhere\t\n";
}

TEST(FrontierTest, RowsOfOneRunAreOnePointBesideItsCalibratedPrediction) {
  const std::string m8 = "meta-llama/Llama-3.1-8B";
  const std::string text =
      std::string(kHeader) +
      // Run A at concurrency 8: 2,000 output tokens/s on 1 GPU, 4 ms ITL (250 tokens/s per user), TTFT 0.1 s.
      row("a1", m8, "h100-sxm", "1000", "concurrency=8", "output_tokens_per_s", "2000") +
      row("a2", m8, "h100-sxm", "1000", "concurrency=8", "itl_s", "0.004") +
      row("a3", m8, "h100-sxm", "1000", "concurrency=8", "ttft_s", "0.1") +
      // Run B at 16: 3,000 tokens/s at 5 ms (200 per user). Run C at 4: 1,000 at 5 ms, which B beats on both axes.
      row("b1", m8, "h100-sxm", "1000", "concurrency=16", "output_tokens_per_s", "3000") +
      row("b2", m8, "h100-sxm", "1000", "concurrency=16", "itl_s", "0.005") +
      row("c1", m8, "h100-sxm", "1000", "concurrency=4", "output_tokens_per_s", "1000") +
      row("c2", m8, "h100-sxm", "1000", "concurrency=4", "itl_s", "0.005") +
      // Not this comparison's: another model, another isl, a GPU not searched.
      row("x1", "meta-llama/Llama-3.1-70B", "h100-sxm", "1000", "concurrency=8", "itl_s", "0.01") +
      row("x2", m8, "h100-sxm", "2000", "concurrency=8", "itl_s", "0.01") +
      row("x3", m8, "h200-sxm", "1000", "concurrency=8", "itl_s", "0.01");
  auto rows = parse_serving_tsv(text, "f.tsv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  const std::vector<std::string> gpus = {"h100-sxm"};
  const std::vector<Dtype> dtypes = {Dtype::kFp8};
  // A predicted curve from (300, 1000) to (150, 4000) tokens/s per user and per GPU.
  std::vector<PlanFrontierPoint> curve = {point("h100-sxm", 300, 1000), point("h100-sxm", 150, 4000)};
  // An MTP curve far above: the runs drafted with none, so they are held against the plain curve alone.
  for (PlanFrontierPoint p : {point("h100-sxm", 300, 1e5), point("h100-sxm", 150, 1e6)}) {
    p.mtp = true;
    curve.push_back(p);
  }
  const std::vector<std::optional<EngineRelease>> engines = {EngineRelease{}};  // TensorRT-LLM, as the rows
  const FrontierScope scope{"llama-3.1-8b", 1000, 1000, gpus, dtypes, curve, engines, false, false};
  const FrontierComparison c = compare_frontier(*rows, scope);
  EXPECT_EQ(c.rows, 10);
  EXPECT_EQ(c.matched_rows, 7);
  EXPECT_EQ(c.skipped_rows, 0);
  ASSERT_EQ(c.points.size(), 3u);
  const MeasuredFrontierPoint& a = c.points[0];
  EXPECT_EQ(a.ids, (std::vector<std::string>{"a1", "a2", "a3"}));
  EXPECT_EQ(a.gpu, "h100-sxm");
  EXPECT_DOUBLE_EQ(a.concurrency, 8);
  EXPECT_DOUBLE_EQ(a.measured_tokens_per_s_per_gpu, 2000);  // 2,000 / 1 GPU
  EXPECT_DOUBLE_EQ(a.measured_tokens_per_s_per_user, 250);  // 1 / 0.004 s
  EXPECT_DOUBLE_EQ(a.measured_ttft_s, 0.1);
  EXPECT_TRUE(a.on_published_frontier);
  EXPECT_TRUE(c.points[1].on_published_frontier);   // B: fewer tokens/s per user, more per GPU than A
  EXPECT_FALSE(c.points[2].on_published_frontier);  // C: B has as many per user and more per GPU
  EXPECT_TRUE(std::isnan(c.points[2].frontier_tokens_per_s_per_gpu));
  EXPECT_NE(c.points[2].frontier_note.find("not on the published frontier"), std::string::npos);
  // A against the curve at 250 per user: ln y = ln 1000 + t (ln 4000 - ln 1000), t = ln(250/300) / ln(150/300).
  const double t = std::log(250.0 / 300) / std::log(150.0 / 300);
  EXPECT_NEAR(a.frontier_tokens_per_s_per_gpu, 1000 * std::pow(4.0, t), 1e-9);
  EXPECT_TRUE(a.frontier_note.empty()) << a.frontier_note;
  // Each point's prediction is calibrate's for its rows (one engine, one answer).
  const std::vector<PreparedRow> prepared = prepare_rows(*rows);
  const Calibration cal = calibrate_rows(prepared, compiled_calibration_params());
  for (const CalibratedRow& r : cal.rows) {
    const std::string& id = r.prepared->row->id;
    if (id == "a1") {
      EXPECT_DOUBLE_EQ(a.predicted_tokens_per_s_per_gpu, r.predicted / 1);
    } else if (id == "a2") {
      EXPECT_DOUBLE_EQ(a.predicted_tokens_per_s_per_user, 1 / r.predicted);
    } else if (id == "a3") {
      EXPECT_DOUBLE_EQ(a.predicted_ttft_s, r.predicted);
    }
  }
  // Median |error| of the GPU's three runs, each point's own: one number per point, the middle one.
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].points, 3);
  EXPECT_EQ(c.errors[0].frontier_points, 2);  // A and B lie on the curve's span (250 and 200 per user)
  // The median of three |errors| is the middle one.
  std::vector<double> e;
  for (const MeasuredFrontierPoint& p : c.points) {
    e.push_back(std::fabs(p.predicted_tokens_per_s_per_gpu / p.measured_tokens_per_s_per_gpu - 1));
  }
  std::sort(e.begin(), e.end());
  EXPECT_DOUBLE_EQ(c.errors[0].tokens_per_s_per_gpu, e[1]);

  // Under another engine, or with MTP searched, the runs are not held against the curve, and say why.
  const std::vector<std::optional<EngineRelease>> vllm = {EngineRelease{EngineFamily::kVllmV1, std::nullopt}};
  FrontierScope other = scope;
  other.engines = vllm;
  EXPECT_NE(compare_frontier(*rows, other).points[0].frontier_note.find("--engine trtllm"), std::string::npos);
  other = scope;
  other.spec = true;
  EXPECT_NE(compare_frontier(*rows, other).points[0].frontier_note.find("without a drafter"), std::string::npos);
}

}  // namespace
}  // namespace modelcalc
