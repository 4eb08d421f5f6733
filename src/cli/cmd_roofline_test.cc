// `modelcalc roofline`: the command end to end, in process. The analysis and
// its hand-derived numbers are tested in src/core/roofline_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace modelcalc {
namespace {

// The tiny MHA model of src/core/roofline_test.cc as flags:
// L=2, d=64, h=4 (d_head 16), MHA, FFN 256 ungated, vocab 1000 untied.
const std::vector<std::string> kTinyFlags = {"-L", "2", "-d", "64", "--heads", "4", "--ffn", "256", "--vocab", "1000"};

TEST(RooflineCli, LabQuestionA100AtIntensityOne) {
  // `a100` is the A100 80GB SXM: 312 TFLOP/s bf16, 2.039 TB/s.
  // ridge = 312 / 2.039 = 153.016 FLOP/byte; at I = 1: min(312e12, 2.039e12 · 1) = 2.039e12, memory-bound.
  auto r = run_args({"roofline", "--gpu", "a100", "--intensity", "1", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_NEAR(j["ridge"].get<double>(), 312.0 / 2.039, 1e-9);
  EXPECT_EQ(j["attainable_flops"].get<double>(), 2.039e12);
  EXPECT_TRUE(j["memory_bound"].get<bool>());
  // At I = 500 > 153: compute-bound at the 312 TFLOP/s peak.
  r = run_args({"roofline", "--gpu", "a100", "--intensity", "500", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.json()["attainable_flops"].get<double>(), 312e12);
  EXPECT_FALSE(r.json()["memory_bound"].get<bool>());
}

TEST(RooflineCli, TextAndExplainSayTheSame) {
  auto text = run_args({"roofline", "--gpu", "a100", "--intensity", "1"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("2.039 TFLOP/s"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("memory"), std::string::npos);
  EXPECT_NE(text.out.find("ridge 153"), std::string::npos);
  auto ex = run_args({"roofline", "--gpu", "a100", "--intensity", "1", "--explain"});
  ASSERT_EQ(ex.status, 0) << ex.err;
  EXPECT_NE(ex.out.find("min(peak, bw × I)"), std::string::npos) << ex.out;
  EXPECT_NE(ex.out.find("min(312 TFLOP/s, 2.039 TB/s × 1)"), std::string::npos) << ex.out;
  EXPECT_NE(ex.out.find("= 2.039 TFLOP/s"), std::string::npos);
}

TEST(RooflineCli, SeveralGpusNestTheirKeys) {
  // MI300X: 1307.4 / 5.3 = 246.68; H100: 989.4 / 3.35 = 295.34.
  auto r = run_args({"roofline", "--gpu", "h100,mi300x", "--intensity", "1", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_NEAR(j["gpus"]["h100-sxm"]["ridge"].get<double>(), 989.4 / 3.35, 1e-9);
  EXPECT_NEAR(j["gpus"]["mi300x"]["ridge"].get<double>(), 1307.4 / 5.3, 1e-9);
  EXPECT_EQ(j["gpus"]["mi300x"]["attainable_flops"].get<double>(), 5.3e12);
  EXPECT_FALSE(j.contains("ridge"));
}

TEST(RooflineCli, ModelPointsInJson) {
  std::vector<std::string> args = {"roofline", "--gpu", "h100", "--batch", "2", "--seq", "16", "--json"};
  args.insert(args.end(), kTinyFlags.begin(), kTinyFlags.end());
  auto r = run_args(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  // Same hand numbers as TinyModelPointsByHand.
  EXPECT_EQ(j["points"]["decode_b2"]["flops"].get<double>(), 409600.0);
  EXPECT_EQ(j["points"]["decode_b2"]["bytes"].get<double>(), 468992.0);
  EXPECT_TRUE(j["points"]["decode_b2"]["memory_bound"].get<bool>());
  EXPECT_EQ(j["points"]["prefill"]["flops"].get<double>(), 3276800.0);
  EXPECT_EQ(j["points"]["gemm"]["attainable_flops"].get<double>(), 989.4e12);
  EXPECT_NEAR(j["roofs"]["fp8"]["ridge"].get<double>(), 1978.9 / 3.35, 1e-9);
}

TEST(RooflineCli, BadInputIsOneLineAndExitTwo) {
  struct Case {
    std::vector<std::string> args;
    const char* flag;
  };
  std::vector<std::string> model = kTinyFlags;
  auto with_model = [&](std::vector<std::string> a) {
    a.insert(a.end(), model.begin(), model.end());
    return a;
  };
  const Case cases[] = {
      {{"roofline", "--intensity", "1"}, "--gpu"},
      {{"roofline", "--gpu", "a100"}, "--intensity"},
      {{"roofline", "--gpu", "a100", "--intensity", "0"}, "--intensity"},
      {{"roofline", "--gpu", "a100", "--intensity", "-3"}, "--intensity"},
      {{"roofline", "--gpu", "a100", "--intensity", "1", "--dtype", "fp8"}, "--dtype"},
      {{"roofline", "--gpu", "h100", "--intensity", "1", "--kv-dtype", "nvfp4"}, "--kv-dtype"},  // not a KV format
      {{"roofline", "--gpu", "a10g", "--intensity", "1"}, "--gpu"},  // no tensor peaks catalogued: the GPU is at fault
      {{"roofline", "--gpu", "h100,", "--intensity", "1"}, "--gpu"},
      {{"roofline", "--gpu", "h100,h100-sxm", "--intensity", "1"}, "--gpu"},
      {{"roofline", "--gpu", "h100,nosuchgpu", "--intensity", "1"}, "--gpu"},
      {{"roofline", "--gpu", "h100,mi300x", "--bandwidth", "1TB/s", "--intensity", "1"}, "--bandwidth"},
      {{"roofline", "--gpu", "a100", "--intensity", "1", "--batch", "8"}, "--batch"},
      {with_model({"roofline", "--gpu", "a100", "--batch", ""}), "--batch"},
      {with_model({"roofline", "--gpu", "a100", "--batch", "1,,8"}), "--batch"},
      {with_model({"roofline", "--gpu", "a100", "--batch", "0"}), "--batch"},
      {with_model({"roofline", "--gpu", "a100", "--seq", "0"}), "--seq"},
      {with_model({"roofline", "--gpu", "a100", "--plot", "/nonexistent-dir/x/roofline.svg"}), "--plot"},
      {with_model({"roofline", "--gpu", "a100", "--plot", "/tmp"}), "--plot"},
  };
  for (const Case& c : cases) {
    auto r = run_args(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(r.status, 2) << joined;
    EXPECT_EQ(line_count(r.err), 1) << joined << r.err;
    EXPECT_NE(r.err.find(c.flag), std::string::npos) << joined << r.err;
    EXPECT_EQ(r.out, "") << joined;
  }
}

// The dtype table's roof: int4 is weight-only (bf16 roof); nvfp4 runs at the fp4
// peak where the GPU has one (B200: 9000 TFLOP/s / 8 TB/s = ridge 1125) and at the
// bf16 roof where it has none (H100: 989.4 / 3.35 = ridge 295.3...).
TEST(RooflineCli, PointsSitUnderTheDtypeTablesRoof) {
  const struct {
    const char* gpu;
    const char* dtype;
    const char* math;
    double ridge;
  } cases[] = {
      {"h100", "int4", "bf16", 989.4e12 / 3.35e12},
      {"h100", "nvfp4", "bf16", 989.4e12 / 3.35e12},
      {"b200", "nvfp4", "nvfp4", 9000e12 / 8e12},
      {"b200", "mxfp4", "mxfp4", 9000e12 / 8e12},
  };
  for (const auto& c : cases) {
    auto r = run_args({"roofline", "--gpu", c.gpu, "--intensity", "1", "--dtype", c.dtype, "--json"});
    ASSERT_EQ(r.status, 0) << c.gpu << " " << c.dtype << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["options"]["math_dtype"], c.math) << c.gpu << " " << c.dtype;
    EXPECT_DOUBLE_EQ(j["ridge"].get<double>(), c.ridge) << c.gpu << " " << c.dtype;
  }
}

TEST(RooflineCli, PlotIsWrittenOnlyOnSuccess) {
  const auto dir = std::filesystem::temp_directory_path() / "modelcalc_roofline_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "r.svg").string();
  std::filesystem::remove(path);
  // A failing run (fp8 on an A100) writes nothing.
  auto bad = run_args({"roofline", "--gpu", "a100", "--intensity", "1", "--dtype", "fp8", "--plot", path});
  EXPECT_EQ(bad.status, 2);
  EXPECT_FALSE(std::filesystem::exists(path));
  auto ok = run_args({"roofline", "--gpu", "a100", "--intensity", "1", "--plot", path});
  ASSERT_EQ(ok.status, 0) << ok.err;
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str().rfind("<?xml", 0), 0u);
  EXPECT_NE(ss.str().find("</svg>"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  std::filesystem::remove_all(dir);
}

// --plot -: the picture is the whole output (the web API's /api/svg/roofline), no file, no table.
TEST(RooflineCli, PlotDashPrintsTheSvgInsteadOfTheTable) {
  auto r = run_args({"roofline", "--model", "llama-3.1-8b", "--gpu", "a100", "--batch", "1,8", "--plot", "-"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("<?xml", 0), 0u);
  EXPECT_NE(r.out.find("decode_b8"), std::string::npos);
  EXPECT_EQ(r.out.find("Plot written"), std::string::npos);
  EXPECT_EQ(r.out.substr(r.out.size() - 7), "</svg>\n");
}

// One answer per screen: the text leads with the engine's decode step (size's, for the same flags) and
// labels the seed's points as the teaching view after it. The step printed is size's, rounded as size
// prints it.
TEST(RooflineCli, TheEnginesStepComesFirstAsSizeReportsIt) {
  const CliRun r = run_args({"roofline", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "32"});
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t answer = r.out.find("Answer (the deployment engine");
  const size_t teaching = r.out.find("Teaching view: operating points");
  ASSERT_NE(answer, std::string::npos) << r.out;
  ASSERT_NE(teaching, std::string::npos) << r.out;
  EXPECT_LT(answer, teaching);
  const CliRun z = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "32", "--json"});
  ASSERT_EQ(z.status, 0) << z.err;
  const double ms = z.json()["decode_step"]["seconds"].get<double>() * 1e3;
  char want[32];
  std::snprintf(want, sizeof want, "%.1f ms", ms);  // 14.7 ms: three significant digits
  const std::string section = r.out.substr(answer, teaching - answer);
  EXPECT_NE(section.find(want), std::string::npos) << want << "\n" << r.out;
  // The prediction leads the row (issue #31): size's predicted step, before the ceiling's.
  const double predicted_ms = z.json()["decode_step"]["predicted"]["seconds"].get<double>() * 1e3;
  char pwant[32];
  std::snprintf(pwant, sizeof pwant, predicted_ms < 100 ? "%.1f ms" : "%.0f ms", predicted_ms);
  const size_t row = section.find("h100-sxm");
  ASSERT_NE(row, std::string::npos) << section;
  EXPECT_LT(section.find(pwant, row), section.find(want, row)) << pwant << "\n" << section;
  EXPECT_NE(section.find("predicted step"), std::string::npos) << section;
  // JSON: each deployment carries size's predicted sibling.
  const CliRun j = run_args({"roofline", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "32", "--json"});
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_EQ(j.json()["deployments"][0]["decode_step"]["predicted"], z.json()["decode_step"]["predicted"]);
  EXPECT_EQ(j.json()["deployments"][0]["memory_per_gpu"]["predicted"], z.json()["memory_per_gpu"]["predicted"]);
}

// A GPU no engine profile runs on has the ceiling alone, said so in the row.
TEST(RooflineCli, AGpuWithoutAnEngineProfileShowsTheCeilingAlone) {
  const CliRun r = run_args({"roofline", "--model", "llama-3.1-8b", "--gpu", "tpu-v6e", "--batch", "8"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("tpu-v6e: no engine profile runs on it (the ceiling alone)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace modelcalc
