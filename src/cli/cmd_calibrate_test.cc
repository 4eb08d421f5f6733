// modelcalc calibrate end to end: the JSON the issue specifies, files named
// with --data, the fitted parameters written with --write.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_util.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR, MODELCALC_BINARY

namespace modelcalc {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path temp_file(const std::string& name, const std::string& content) {
  const fs::path p = fs::temp_directory_path() / ("modelcalc_calibrate_test_" + name);
  std::ofstream(p) << content;
  return p;
}

TEST(CmdCalibrateTest, JsonRowsAndSummaryAsSpecified) {
  const CliRun r = run_args({"calibrate", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = r.json();
  ASSERT_EQ(j["rows"].size(), 395u + 1420u);  // data/serving-measured.tsv, then data/serving-multiengine.tsv
  int64_t evaluated = 0, unbounded = 0;
  for (const auto& row : j["rows"]) {
    ASSERT_TRUE(row.contains("id"));
    if (row.contains("skipped")) {
      EXPECT_TRUE(row["skipped"].is_string());
      EXPECT_FALSE(row.contains("predicted"));
      continue;
    }
    ++evaluated;
    for (const char* k : {"measured", "predicted", "ceiling", "error"}) EXPECT_TRUE(row.contains(k)) << k;
    if (row["predicted"].is_null()) {  // no finite prediction (a rate beyond the engine): no finite error either
      EXPECT_TRUE(row["error"].is_null()) << row["id"];
      ++unbounded;
      continue;
    }
    // error = predicted / measured - 1
    EXPECT_DOUBLE_EQ(row["error"].get<double>(),
                     row["predicted"].get<double>() / row["measured"].get<double>() - 1);
  }
  const auto& s = j["summary"];
  EXPECT_EQ(s["rows"], 395 + 1420);
  EXPECT_EQ(s["predicted_rows"], evaluated);
  for (const char* k : {"median_abs_error", "mean_abs_error", "p90_abs_error", "over_ceiling"}) {
    EXPECT_TRUE(s.contains(k)) << k;
  }
  EXPECT_EQ(s["over_ceiling"], 0);
  EXPECT_EQ(s["unbounded"], unbounded);
  EXPECT_TRUE(s["mean_abs_error"].is_number());  // over the finite errors
  for (const char* g : {"throughput", "ttft", "tpot", "dense", "moe", "fp4", "disaggregated", "prefill-heavy",
                        "long-context"}) {
    EXPECT_TRUE(j["by_regime"].contains(g)) << g;
  }
  for (const char* e : {"trtllm", "vllm", "sglang"}) EXPECT_TRUE(j["parameters"]["profiles"].contains(e)) << e;
  EXPECT_TRUE(j["ignored_columns"].empty());
  // The layouts' published figures beside the fit: measured under the ceiling, measured_over_ceiling and
  // predicted_error as defined (measured / ceiling, predicted / measured - 1).
  ASSERT_EQ(j["reality_check"].size(), 5u);
  for (const auto& k : j["reality_check"]) {
    const double measured = k["measured"].get<double>(), ceiling = k["ceiling"].get<double>();
    EXPECT_LE(measured, ceiling) << k["id"];
    EXPECT_DOUBLE_EQ(k["measured_over_ceiling"].get<double>(), measured / ceiling);
    EXPECT_DOUBLE_EQ(k["predicted_error"].get<double>(), k["predicted"].get<double>() / measured - 1);
    EXPECT_FALSE(k["source"].get<std::string>().empty());
  }
}

TEST(CmdCalibrateTest, ReadsAUsersFileInTheSchema) {
  const fs::path p = temp_file(
      "ok.tsv",
      "id\tmodel\tcheckpoint\tgpu\tgpus\ttp\tpp\tep\tweight_dtype\tkv_dtype\tisl\tosl\tload\tmetric\tvalue\tengine\t"
      "engine_version\tsource\tnotes\track\n"
      "mine\tmeta-llama/Llama-3.1-8B\t\th100-sxm\t1\t1\t1\t1\tbf16\tbf16\t512\t256\tqps=1\titl_s\t0.009\tvLLM\t\t"
      "my bench\t\tB7\n");
  const CliRun r = run_args({"calibrate", "--data", p.string(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = r.json();
  EXPECT_EQ(j["ignored_columns"], nlohmann::json::array({"rack"}));  // a column outside the schema, named
  const CliRun text = run_args({"calibrate", "--data", p.string()});
  EXPECT_NE(text.out.find("Warning: columns not read (not in the schema): rack"), std::string::npos) << text.out;
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["id"], "mine");
  EXPECT_EQ(j["rows"][0]["engine"]["profile"], "vllm");
  EXPECT_GT(j["rows"][0]["predicted"].get<double>(), j["rows"][0]["ceiling"].get<double>());  // a time: slower
  EXPECT_FALSE(j.contains("reality_check"));  // the compiled-in data's, not a user's file's
  fs::remove(p);
}

TEST(CmdCalibrateTest, BadInputIsOneLineNamingTheFlag) {
  const fs::path bad = temp_file("bad.tsv", "id\tmodel\n");
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  } cases[] = {
      {{"calibrate", "--data", bad.string()}, "--data: "},
      {{"calibrate", "--data", "/nonexistent/x.tsv"}, "--data: "},
      {{"calibrate", "--write", "x.tsv"}, "--write: needs --fit"},
      {{"calibrate", "--fit", "--cv", "gpus"}, "--cv: lists gpu, model and release"},
      {{"calibrate", "--fit", "--cv", "gpu,gpu"}, "--cv: lists gpu, model and release"},
  };
  for (const Case& c : cases) {
    const CliRun r = run_args(c.args);
    EXPECT_EQ(r.status, 2) << c.args[1];
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  }
  fs::remove(bad);
}

TEST(CmdCalibrateTest, FitWritesTheParametersTheBinaryShips) {
  // Refitting the compiled-in rows and writing the table gives data/engine_profiles.tsv byte for byte.
  const fs::path out = fs::temp_directory_path() / "modelcalc_calibrate_test_fit.tsv";
  const CliRun r = run_args({"calibrate", "--fit", "--cv", "none", "--write", out.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(out), slurp(fs::path(MODELCALC_SOURCE_DIR) / "data" / "engine_profiles.tsv"));
  EXPECT_NE(r.out.find("Fit on "), std::string::npos);
  EXPECT_EQ(r.out.find("Cross-validated |error|"), std::string::npos);  // --cv none
  fs::remove(out);
}

}  // namespace
}  // namespace modelcalc
