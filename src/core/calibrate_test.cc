#include "modelcalc/calibrate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "embedded_data.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR, MODELCALC_BINARY

namespace modelcalc {
namespace {

const char kHeader[] =
    "id\tmodel\tcheckpoint\tgpu\tgpus\ttp\tpp\tep\tweight_dtype\tkv_dtype\tisl\tosl\tload\tmetric\tvalue\tengine\t"
    "engine_version\tsource\tnotes\n";

// The 18 columns after the id of a well-formed row: Llama-3.1-8B on one H100, fp8, 1000/1000 offline.
std::string good(const std::string& id, const std::string& isl = "1000", const std::string& gpus = "1",
                 const std::string& value = "15000", const std::string& source = "somewhere") {
  return id + "\tmeta-llama/Llama-3.1-8B\t\th100-sxm\t" + gpus + "\t1\t1\t1\tfp8\tfp8\t" + isl +
         "\t1000\toffline\toutput_tokens_per_s\t" + value + "\tTensorRT-LLM\t0.17\t" + source + "\t\n";
}

std::string error_of(const std::string& body) {
  auto r = parse_serving_tsv(std::string(kHeader) + body, "f.tsv");
  return r.ok() ? std::string() : r.status().message();
}

std::string read_source_file(const std::string& rel) {
  std::ifstream in(std::string(MODELCALC_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CalibrateTest, ParsesTheSchema) {
  const std::string text = "# comment\n" + std::string(kHeader) + good("a1") + "# another\n" +
                           good("a2", "", "2", "12.5", "src");
  auto rows = parse_serving_tsv(text, "f.tsv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 2u);
  const ServingRow& a = (*rows)[0];
  EXPECT_EQ(a.id, "a1");
  EXPECT_EQ(a.line, 3);  // after the comment and the header
  EXPECT_EQ(a.gpus, 1);
  EXPECT_EQ(a.isl, 1000);
  EXPECT_EQ(a.load, MeasuredLoad::kOffline);
  EXPECT_EQ(a.metric, MeasuredMetric::kOutputTokensPerS);
  EXPECT_DOUBLE_EQ(a.value, 15000);
  EXPECT_EQ((*rows)[1].isl, 0);  // empty: not a fixed length
  EXPECT_EQ((*rows)[1].gpus, 2);  // 2 replicas of tp 1
}

TEST(CalibrateTest, StrictParseNamesTheLineAndColumn) {
  EXPECT_NE(parse_serving_tsv("# only a comment\n", "f.tsv").status().message().find("no header"), std::string::npos);
  EXPECT_TRUE(parse_serving_tsv(kHeader, "f.tsv").ok());  // a header and no rows
  EXPECT_NE(parse_serving_tsv("id\tmodel\n", "f.tsv").status().message().find("19 tab-separated"), std::string::npos);
  const std::string wrong_header = std::string(kHeader).replace(0, 2, "ID");
  EXPECT_NE(parse_serving_tsv(wrong_header, "f.tsv").status().message().find("header column 1 must be 'id'"),
            std::string::npos);
  EXPECT_NE(error_of(good("a") + good("a")).find("line 3: column id 'a' repeats line 2"), std::string::npos);
  EXPECT_NE(error_of(good("a", "12x")).find("column isl"), std::string::npos);
  EXPECT_NE(error_of(good("a", "1000", "1", "0")).find("column value"), std::string::npos);
  EXPECT_NE(error_of(good("a", "1000", "1", "15000", "")).find("column source"), std::string::npos);
  EXPECT_NE(error_of(good("a", "1000", "0")).find("column gpus"), std::string::npos);
}

// Line 1 a comment, 2 the header, 3 blank, 4 and 5 rows with the same id; CRLF ends read as '\n'.
TEST(CalibrateTest, ErrorsNameTheEditorsLineAndCrlfIsALineEnd) {
  auto crlf = [](std::string s) {
    for (size_t i = s.find('\n'); i != std::string::npos; i = s.find('\n', i + 2)) s.insert(i, "\r");
    return s;
  };
  auto r = parse_serving_tsv(crlf("# c\n" + std::string(kHeader) + "\n" + good("a") + good("a")), "f.tsv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "f.tsv line 5: column id 'a' repeats line 4");
}

// The engine profiles' reader counts lines the same way: 1 a comment, 2 the header, 3 blank, 4 a bad value.
TEST(CalibrateTest, EngineProfileErrorsNameTheEditorsLine) {
  auto r = parse_engine_params("# c\r\nengine\tparameter\tvalue\r\n\r\ntrtllm\tgemm_fraction\tx\r\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "engine_profiles.tsv line 4: value is not a number");
  // The compiled-in file read with CRLF ends gives the same parameters.
  std::string text(embedded_file_or_die("engine_profiles.tsv"));
  const auto lf = parse_engine_params(text);
  for (size_t i = text.find('\n'); i != std::string::npos; i = text.find('\n', i + 2)) text.insert(i, "\r");
  const auto crlf = parse_engine_params(text);
  ASSERT_TRUE(lf.ok() && crlf.ok()) << crlf.status().message();
  ASSERT_EQ(crlf->size(), lf->size());
  for (size_t k = 0; k < lf->size(); ++k) {
    EXPECT_EQ((*crlf)[k].first, (*lf)[k].first);
    for (int i = 0; i < kStepTimeParamCount; ++i) EXPECT_EQ(step_param((*crlf)[k].second, i), step_param((*lf)[k].second, i));
  }
}

TEST(CalibrateTest, TheSharedFileIsCompiledInWhole) {
  // 373 throughput rows + 22 online rows (shared/reference/README.md).
  const auto rows = shared_serving_rows();
  ASSERT_EQ(rows.size(), 395u);
  EXPECT_EQ(rows.front().id, "r211");
  std::set<std::string> ids;
  for (const ServingRow& r : rows) {
    EXPECT_FALSE(r.source.empty()) << r.id;
    ids.insert(r.id);
  }
  EXPECT_EQ(ids.size(), rows.size());
}

// The ceiling is a true upper bound: no published measurement exceeds it (a rate above, a time below).
void expect_no_row_over_its_ceiling(std::span<const ServingRow> rows, int64_t min_evaluated) {
  const std::vector<PreparedRow> prepared = prepare_rows(rows);
  const Calibration cal = calibrate_rows(prepared, profile_params());
  int64_t evaluated = 0;
  for (const CalibratedRow& c : cal.rows) {
    if (!c.evaluated) {
      EXPECT_FALSE(c.prepared->skipped.empty());
      continue;
    }
    ++evaluated;
    EXPECT_GT(c.ceiling, 0) << c.prepared->row->id;
    EXPECT_FALSE(c.over_ceiling) << c.prepared->row->id << ": measured " << c.measured << ", ceiling " << c.ceiling;
  }
  EXPECT_EQ(cal.summary.over_ceiling, 0);
  EXPECT_GE(evaluated, min_evaluated);
}

TEST(CalibrateTest, NoSharedRowBeatsItsCeiling) {
  // Every row: the catalog holds each of their GPUs and dtypes, the presets each model.
  expect_no_row_over_its_ceiling(shared_serving_rows(), 395);
}

TEST(CalibrateTest, NoRowOfTheProjectsOtherPublishedFileBeatsItsCeiling) {
  const std::string text = read_source_file("data/measured.tsv");
  auto rows = parse_serving_tsv(text, "data/measured.tsv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 14u);
  // m01-m08 (Llama on H100/H200 in fp8, on B200 in nvfp4), m12, m14 (Llama-2-7B int4 on an RTX 4090).
  expect_no_row_over_its_ceiling(*rows, 10);
}

TEST(CalibrateTest, RowsTheEngineCannotExpressAreSkippedWithTheReason) {
  const std::string text =
      std::string(kHeader) +
      "u1\tQwen/Qwen3-14B\t\th100-sxm\t1\t1\t1\t1\tfp8\tfp8\t1000\t1000\toffline\toutput_tokens_per_s\t1\tx\t\ts\t\n"
      "u2\tmeta-llama/Llama-3.1-8B\t\tnope-gpu\t1\t1\t1\t1\tfp8\tfp8\t1000\t1000\toffline\toutput_tokens_per_s\t1\tx\t\ts\t\n"
      "u3\tmeta-llama/Llama-3.1-8B\t\th100-sxm\t1\t1\t1\t1\tfp8\tfp8\t1000\t1000\toffline\tjoules\t1\tx\t\ts\t\n"
      "u4\tmeta-llama/Llama-3.1-8B\t\th100-sxm\t1\t1\t1\t1\tfp8\tfp8\t1000\t1000\toffline\tttft_s\t1\tx\t\ts\t\n"
      "u5\tmeta-llama/Llama-3.1-8B\t\th100-sxm\t1\t1\t1\t1\tfp3\tfp8\t1000\t1000\toffline\toutput_tokens_per_s\t1\tx\t\ts\t\n"
      "u6\tmeta-llama/Llama-3.1-8B\t\th100-sxm\t1\t1\t1\t1\tfp8\tfp8\t\t1000\toffline\toutput_tokens_per_s\t1\tx\t\ts\t\n"
      "u7\tmeta-llama/Llama-3.1-8B\t\th100-sxm\t1\t1\t1\t1\tfp8\tfp8\t1000\t1000\tbursty\toutput_tokens_per_s\t1\tx\t\ts\t\n";
  auto rows = parse_serving_tsv(text, "f.tsv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  const std::vector<PreparedRow> p = prepare_rows(*rows);
  ASSERT_EQ(p.size(), 7u);
  // The id it could not resolve, named in its column.
  EXPECT_EQ(p[0].skipped.rfind("model: unknown model 'Qwen/Qwen3-14B'", 0), 0u) << p[0].skipped;
  EXPECT_NE(p[1].skipped.find("unknown GPU"), std::string::npos) << p[1].skipped;
  EXPECT_NE(p[2].skipped.find("metric 'joules'"), std::string::npos) << p[2].skipped;
  EXPECT_NE(p[3].skipped.find("every request queued"), std::string::npos) << p[3].skipped;
  EXPECT_NE(p[4].skipped.find("fp3"), std::string::npos) << p[4].skipped;
  EXPECT_NE(p[5].skipped.find("not fixed"), std::string::npos) << p[5].skipped;
  EXPECT_NE(p[6].skipped.find("load 'bursty'"), std::string::npos) << p[6].skipped;
}

TEST(CalibrateTest, RowsAreReadAsTheirSourceStates) {
  const std::string text =
      std::string(kHeader) +
      // kv_dtype not stated with fp8 weights: fp8 (TensorRT-LLM quantizes the KV with FP8 checkpoints).
      "k1\tmeta-llama/Llama-3.1-8B\t\th100-sxm\t2\t1\t1\t1\tfp8\t\t128\t128\tqps=4\titl_s\t0.01\tvLLM\t\ts\t\n"
      // an engine without a profile: the default one, said.
      "k2\tmeta-llama/Llama-2-7b-hf\t\trtx-4090\t1\t1\t1\t1\tint4\tfp16\t128\t128\tconcurrency=1\t"
      "tokens_per_s_per_user\t150\tMLC LLM\t\ts\t\n";
  auto rows = parse_serving_tsv(text, "f.tsv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  const std::vector<PreparedRow> p = prepare_rows(*rows);
  ASSERT_TRUE(p[0].skipped.empty()) << p[0].skipped;
  EXPECT_EQ(p[0].d.kv_dtype, Dtype::kFp8);
  EXPECT_NE(p[0].note.find("kv_dtype not stated"), std::string::npos);
  EXPECT_EQ(p[0].engine, default_release(Engine::kVllm));
  EXPECT_EQ(p[0].d.split.dp, 2);  // 2 GPUs of tp 1: two replicas
  EXPECT_EQ(p[0].request.load, ServingLoad::kRequestsPerS);
  EXPECT_DOUBLE_EQ(p[0].request.value, 4);
  ASSERT_TRUE(p[1].skipped.empty()) << p[1].skipped;
  EXPECT_EQ(p[1].engine, kDefaultEngine);
  EXPECT_NE(p[1].note.find("'MLC LLM' has no profile"), std::string::npos) << p[1].note;
  EXPECT_EQ(p[1].request.load, ServingLoad::kConcurrency);
}

TEST(CalibrateTest, RegimesAsTheIssueDefinesThem) {
  // r211 128/128: osl <= 128, prefill-heavy; r215 1000/1000: decode-heavy (none of the others);
  // r219 20000/2000: isl/osl = 10 >= 4 and isl + osl >= 5,000; a Mixtral row: MoE; r584 itl_s: latency.
  const std::vector<PreparedRow> p = prepare_rows(shared_serving_rows());
  auto find = [&](const std::string& id) -> const PreparedRow& {
    for (const PreparedRow& r : p) {
      if (r.row->id == id) return r;
    }
    ADD_FAILURE() << id;
    return p.front();
  };
  auto in = [](const PreparedRow& r, DataRegime g) { return r.regimes[static_cast<size_t>(g)]; };
  EXPECT_TRUE(in(find("r211"), DataRegime::kPrefillHeavy));
  EXPECT_FALSE(in(find("r211"), DataRegime::kDecodeHeavy));
  EXPECT_EQ(find("r215").row->isl, 1000);
  EXPECT_TRUE(in(find("r215"), DataRegime::kDecodeHeavy));
  EXPECT_EQ(find("r219").row->isl, 20000);
  EXPECT_TRUE(in(find("r219"), DataRegime::kPrefillHeavy));
  EXPECT_TRUE(in(find("r219"), DataRegime::kLongContext));
  EXPECT_TRUE(in(find("r584"), DataRegime::kLatency));
  for (const PreparedRow& r : p) {
    if (r.skipped.empty() && r.model.find("mixtral") != std::string::npos) {
      EXPECT_TRUE(in(r, DataRegime::kMoe)) << r.row->id;
    }
  }
}

TEST(CalibrateTest, SummaryOfErrors) {
  // |errors| 0.1, 0.3, 0.2, 0.5: median (0.2 + 0.3) / 2 = 0.25, mean 1.1 / 4 = 0.275, p90 the
  // ceil(0.9 x 4) = 4th smallest = 0.5, max 0.5.
  const ErrorSummary s = summarize_errors({0.1, 0.3, 0.2, 0.5}, 6, 1);
  EXPECT_EQ(s.rows, 6);
  EXPECT_EQ(s.predicted_rows, 4);
  EXPECT_DOUBLE_EQ(s.median_abs_error, 0.25);
  EXPECT_DOUBLE_EQ(s.mean_abs_error, 0.275);
  EXPECT_DOUBLE_EQ(s.p90_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(s.max_abs_error, 0.5);
  EXPECT_EQ(s.over_ceiling, 1);
  // 10 errors 1..10 (x 0.01): p90 = the 9th = 0.09.
  std::vector<double> e;
  for (int i = 1; i <= 10; ++i) e.push_back(0.01 * i);
  EXPECT_DOUBLE_EQ(summarize_errors(e, 10, 0).p90_abs_error, 0.09);
}

TEST(CalibrateTest, ErrorIsPredictedOverMeasuredLessOne) {
  const std::vector<PreparedRow> p = prepare_rows(shared_serving_rows());
  const Calibration cal = calibrate_rows(p, profile_params());
  for (const CalibratedRow& c : cal.rows) {
    if (!c.evaluated) continue;
    EXPECT_DOUBLE_EQ(c.error, c.predicted / c.measured - 1) << c.prepared->row->id;
    EXPECT_DOUBLE_EQ(c.measured, c.prepared->row->value);
  }
}

// The compiled-in parameters are what `calibrate --fit` fits on the compiled-in rows (data/engine_profiles.tsv
// says so): refitting from the repo reproduces every one of them to the file's 6 significant digits.
TEST(CalibrateTest, RefittingFromTheRepoReproducesTheCompiledInParameters) {
  const std::vector<PreparedRow> p = prepare_rows(shared_serving_rows());
  const FitResult fit = fit_step_params(p, std::vector<bool>(p.size(), true));
  const StepTimeParams& shipped = engine_profile(kDefaultEngine).time;
  for (int i = 0; i < kStepTimeParamCount; ++i) {
    const double a = step_param(fit.params, i), b = step_param(shipped, i);
    EXPECT_NEAR(a, b, 1e-5 * std::max(std::fabs(b), 1e-9)) << step_param_name(i);
  }
  // The fit improves on the ideal machine by far: the ceiling's mean squared log error is ~1.
  EXPECT_LT(fit.loss, 0.05);
}

TEST(CalibrateTest, CrossValidationSplitsGroupsInHalves) {
  // The evaluated TensorRT-LLM rows of the shared file form (model, GPU) groups; a seed puts
  // floor(n / 2) in training, the rest in test, never a group on both sides.
  const std::vector<PreparedRow> p = prepare_rows(shared_serving_rows());
  std::set<std::string> groups;
  for (const PreparedRow& r : p) {
    if (r.skipped.empty()) groups.insert(r.model + " @ " + r.row->gpu);
  }
  const uint64_t seeds[] = {3};
  const CrossValidation cv = cross_validate(p, seeds);
  ASSERT_EQ(cv.folds.size(), 1u);
  EXPECT_EQ(cv.folds[0].train_groups, static_cast<int64_t>(groups.size() / 2));
  EXPECT_EQ(cv.folds[0].train_groups + cv.folds[0].test_groups, static_cast<int64_t>(groups.size()));
  EXPECT_GT(cv.folds[0].test.predicted_rows, 0);
  EXPECT_EQ(cv.pooled.predicted_rows, cv.folds[0].test.predicted_rows);
}

}  // namespace
}  // namespace modelcalc
