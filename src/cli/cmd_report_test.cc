// `size --report`: one self-contained HTML page built from the size Report.
#include "html_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "modelcalc/app/answers.h"
#include "test_util.h"

namespace modelcalc {
namespace {

const std::vector<std::string> kTiny = {"size", "-L", "2", "-d", "64", "--heads", "4", "--ffn", "256",
                                        "--vocab", "1000", "--seq", "16"};

struct TempDir {
  std::filesystem::path path;
  TempDir() : path(std::filesystem::temp_directory_path() / ("modelcalc_html_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

TEST(HtmlReport, PageHoldsTheSizeSectionsFormulasAndRoofline) {
  TempDir dir;
  const auto path = dir.path / "report.html";
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), {"--gpu", "h100", "--report", path.string()});
  auto r = run_args(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string html = slurp(path);
  // The size report's sections, in order: the engine's answer first, the teaching view after the facts.
  size_t at = 0;
  for (const char* title : {"<h2>Answer", "<h2>1. Parameters", "<h2>2. Weight memory", "<h2>3. FLOPs",
                            "<h2>4. KV cache", "<h2>Teaching view", "5. Decode ceiling", "<h2>Teaching view",
                            "6. Regime", "<h2>Roofline"}) {
    const size_t i = html.find(title, at + 1);
    EXPECT_NE(i, std::string::npos) << title;
    EXPECT_GT(i, at) << title;
    at = i;
  }
  // Numbers and formulas: the tiny model's total is 2·49,152 + 2·1,000·64 = 226,304 params,
  // shown with its formula and the substituted terms (as in --explain).
  EXPECT_NE(html.find("226,304"), std::string::npos);
  EXPECT_NE(html.find("ParamBreakdown::total"), std::string::npos);
  EXPECT_NE(html.find("98,304 + 128,000"), std::string::npos);
  // The roofline: one inline SVG with the model's points, and its table.
  EXPECT_EQ(count(html, "<svg "), 1u);
  EXPECT_NE(html.find("id=\"pt-h100-sxm-decode_b1\""), std::string::npos);
  EXPECT_NE(html.find("<td>prefill T=16</td>"), std::string::npos);
  // The text output is unchanged by --report.
  std::vector<std::string> gpu_only = kTiny;
  gpu_only.insert(gpu_only.end(), {"--gpu", "h100"});
  EXPECT_EQ(r.out, run_args(gpu_only).out);
}

TEST(HtmlReport, PageIsSelfContained) {
  TempDir dir;
  const auto path = dir.path / "report.html";
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), {"--gpu", "mi300x", "--report", path.string()});
  ASSERT_EQ(run_args(args).status, 0);
  const std::string html = slurp(path);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  for (const char* fetch : {"<script", "<link", "<img", "<iframe", "src=", "href=", "url(", "@import"}) {
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  }
  // The only URL is the SVG namespace name, which is never fetched.
  EXPECT_EQ(count(html, "http"), count(html, "http://www.w3.org/2000/svg"));
}

TEST(HtmlReport, WithoutAGpuThePageSaysWhyThereIsNoRoofline) {
  TempDir dir;
  const auto path = dir.path / "report.html";
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), {"--report", path.string()});
  ASSERT_EQ(run_args(args).status, 0);
  const std::string html = slurp(path);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("The roofline needs a GPU"), std::string::npos);
}

TEST(HtmlReport, BadPathIsOneLineNamingReportAndNothingIsPrinted) {
  for (const std::string& bad : {std::string("/nonexistent-dir/x/report.html"), std::string("/tmp")}) {
    std::vector<std::string> args = kTiny;
    args.insert(args.end(), {"--gpu", "h100", "--report", bad});
    auto r = run_args(args);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--report"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(HtmlReport, FailedRunWritesNoFile) {
  TempDir dir;
  const auto path = dir.path / "report.html";
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), {"--gpu", "h100", "--batch", "0", "--report", path.string()});
  EXPECT_EQ(run_args(args).status, 2);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(HtmlReport, Int4WeightsAreMultipliedInBf16) {
  // No GPU has an int4 peak in the catalog; the report's roofline falls back to bf16 math.
  SizeOptions o;
  o.weight_dtype = o.kv_dtype = Dtype::kInt4;
  const RooflineOptions ro = app::page_roofline_options(find_gpu("h100").value(), o);
  EXPECT_EQ(ro.math_dtype, Dtype::kBf16);
  EXPECT_EQ(ro.weight_dtype, Dtype::kInt4);
  o.weight_dtype = Dtype::kFp8;
  o.batch = 16;
  const RooflineOptions fp8 = app::page_roofline_options(find_gpu("h100").value(), o);
  EXPECT_EQ(fp8.math_dtype, Dtype::kFp8);
  EXPECT_EQ(fp8.batches, (std::vector<int64_t>{1, 8, 16, 64, 256}));  // the run's batch joins the defaults
}

}  // namespace
}  // namespace modelcalc
