// The training reality check: the compiled-in published runs, the bound, the
// fit's reproducibility and the error summary.
#include "modelcalc/train_calibrate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace modelcalc {
namespace {

TEST(TrainCalibrate, EveryPublishedRunIsEvaluatedAndBoundedByItsCeiling) {
  const auto rows = train_measured_catalog();
  ASSERT_EQ(rows.size(), 22u);  // Narayanan et al. 2021 Table 1 (10), Korthikanti et al. 2022 (9), Llama 3 (3)
  std::set<std::string> sources;
  for (const TrainMeasuredRow& r : rows) sources.insert(r.source);
  EXPECT_EQ(sources, (std::set<std::string>{"N21", "K22", "L24"}));
  for (const TrainCalibrationRow& c : calibrate_training(rows)) {
    ASSERT_TRUE(c.evaluated) << c.row->id << ": " << c.skipped;
    EXPECT_FALSE(c.beyond_ceiling) << c.row->id;
    if (lower_is_better(c.row->metric)) {
      EXPECT_LE(c.ceiling, c.row->measured) << c.row->id;
    } else {
      EXPECT_GE(c.ceiling, c.row->measured) << c.row->id;
    }
  }
}

// The compiled-in profile is what the fit on the compiled-in rows gives (it
// is written with four significant digits).
TEST(TrainCalibrate, TheCompiledProfileIsTheFit) {
  const TrainFitResult fit = fit_training_profile(train_measured_catalog());
  const TrainProfile& p = default_train_profile();
  EXPECT_NEAR(fit.profile.gemm_efficiency / p.gemm_efficiency, 1.0, 1e-3);
  EXPECT_NEAR(fit.profile.attention_efficiency / p.attention_efficiency, 1.0, 1e-3);
  EXPECT_NEAR(fit.profile.hbm_traffic / p.hbm_traffic, 1.0, 1e-3);
  EXPECT_NEAR(fit.profile.link_efficiency / p.link_efficiency, 1.0, 1e-3);
  // Leave one source out: three folds, each testing its own source's rows.
  ASSERT_EQ(fit.folds.size(), 3u);
  size_t held = 0;
  for (const TrainFitFold& f : fit.folds) {
    for (const TrainCalibrationRow& c : f.rows) EXPECT_EQ(c.row->source, f.source);
    held += f.rows.size();
  }
  EXPECT_EQ(held, 22u);
  EXPECT_EQ(fit.loso.predicted_rows, 22);
}

// The goal for the calibrated prediction, measured: every run within 15 %.
TEST(TrainCalibrate, TheCalibratedPredictionIsWithin15PercentOfEveryRun) {
  const TrainCalibrationSummary s = summarize(calibrate_training(train_measured_catalog()));
  EXPECT_EQ(s.predicted_rows, 22);
  EXPECT_LT(s.max_abs_error, 0.15);
  EXPECT_EQ(s.over_ceiling, 0);
}

TEST(TrainCalibrate, SummaryStatistics) {
  TrainMeasuredRow row;
  std::vector<TrainCalibrationRow> rows(5);
  const double errors[] = {0.1, -0.2, 0.05, 0.3};
  for (size_t i = 0; i < 4; ++i) {
    rows[i].row = &row;
    rows[i].evaluated = true;
    rows[i].error = errors[i];
  }
  rows[4].row = &row;  // skipped
  const TrainCalibrationSummary s = summarize(rows);
  EXPECT_EQ(s.rows, 5);
  EXPECT_EQ(s.predicted_rows, 4);
  EXPECT_DOUBLE_EQ(s.median_abs_error, (0.1 + 0.2) / 2);  // |e| sorted 0.05 0.1 0.2 0.3
  EXPECT_DOUBLE_EQ(s.mean_abs_error, (0.1 + 0.2 + 0.05 + 0.3) / 4);
  EXPECT_DOUBLE_EQ(s.p90_abs_error, 0.3);  // nearest rank ceil(0.9 x 4) = 4
  EXPECT_DOUBLE_EQ(s.max_abs_error, 0.3);
  EXPECT_EQ(s.within_15_percent, 2);
}

TEST(TrainCalibrate, StrictParse) {
  const std::string header =
      "id\tsource\tmodel\tlayers\thidden\theads\tgpu\tseq\ttp\tpp\tdp\tcp\tep\tvp\tsplit\tmbs\tgbs\trecompute\tsp\t"
      "flash\tdropout\tzero\tfp32_grads\toverlap_dp\tmetric\tmeasured\tnotes\n";
  const std::string good = "a\tX\tgpt\t2\t64\t4\th100\t128\t1\t1\t1\t1\t1\t1\teven\t1\t1\tnone\tno\tno\tno\t0\tyes\tyes\t"
                           "step_seconds\t1.5\tn\n";
  auto ok = parse_train_measured(header + good);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->front().metric, TrainMetric::kStepSeconds);
  EXPECT_DOUBLE_EQ(ok->front().measured, 1.5);
  for (const std::string& bad : {std::string("x") + header + good,                  // header
                                 header + "a\tX\tgpt\t2\t64\t4\th100\n",            // columns
                                 header + std::string(good).replace(good.find("step_seconds"), 12, "speed_units"),
                                 header + std::string(good).replace(good.find("none"), 4, "some"),
                                 header + std::string(good).replace(good.find("\t1.5\t"), 5, "\t-1\t")}) {
    EXPECT_FALSE(parse_train_measured(bad).ok()) << bad;
  }
}

// Line 1 the comment, 2 the header, 3 blank, 4 a row of 2 columns (the header has 27); CRLF ends read as '\n'.
TEST(TrainCalibrate, ErrorsNameTheEditorsLineAndCrlfIsALineEnd) {
  const std::string header =
      "id\tsource\tmodel\tlayers\thidden\theads\tgpu\tseq\ttp\tpp\tdp\tcp\tep\tvp\tsplit\tmbs\tgbs\trecompute\tsp\t"
      "flash\tdropout\tzero\tfp32_grads\toverlap_dp\tmetric\tmeasured\tnotes\r\n";
  auto bad = parse_train_measured("# c\r\n" + header + "\r\na\tX\r\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "training-measured.tsv line 4: expected 27 columns");
  auto ok = parse_train_measured(header + "a\tX\tgpt\t2\t64\t4\th100\t128\t1\t1\t1\t1\t1\t1\teven\t1\t1\tnone\tno\tno\tno\t0\t"
                                          "yes\tyes\tstep_seconds\t1.5\tn\r\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->front().notes, "n");  // the last field without the '\r'
}

}  // namespace
}  // namespace modelcalc
