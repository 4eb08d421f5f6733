#include <gtest/gtest.h>

#include <fstream>
#include <tuple>

#include "test_util.h"

namespace modelcalc {
namespace {

const std::vector<std::string> kBase = {"plan", "--model", "llama-3.1-70b", "--isl", "2048", "--osl", "512"};

std::vector<std::string> with(std::initializer_list<std::string> extra) {
  std::vector<std::string> a = kBase;
  a.insert(a.end(), extra);
  return a;
}

TEST(CmdPlanTest, RanksAndExplains) {
  auto r = run_args(with({"--ttft", "1s", "--tpot", "50ms", "--qps", "20", "--gpu", "h100,h200"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Best configurations"), std::string::npos);
  EXPECT_NE(r.out.find("efficiency 1.0"), std::string::npos);
  auto e = run_args(with({"--ttft", "1s", "--tpot", "50ms", "--qps", "20", "--gpu", "h100", "--explain"}));
  ASSERT_EQ(e.status, 0) << e.err;
  EXPECT_NE(e.out.find("B / TPOT"), std::string::npos);
}

TEST(CmdPlanTest, JsonKeysAndTargetsMet) {
  auto r = run_args(with({"--ttft", "1s", "--tpot", "50ms", "--qps", "20", "--gpu", "h100,mi300x", "--json",
                          "--efficiency", "60%"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_DOUBLE_EQ(j["efficiency"].get<double>(), 0.6);
  EXPECT_GT(j["searched"].get<int64_t>(), 0);
  EXPECT_TRUE(j.contains("seconds"));
  EXPECT_TRUE(j["rejected"].contains("memory"));
  ASSERT_FALSE(j["configs"].empty());
  EXPECT_EQ(j["rank_by"], "predicted");
  // No --engine: each GPU runs its vendor's engine, TensorRT-LLM on the H100 and vLLM on the MI300X (which
  // TensorRT-LLM does not run on); the plan names no single one.
  EXPECT_TRUE(j["engine"]["profile"].is_null());
  for (const auto& c : j["configs"]) {
    EXPECT_EQ(c["engine"]["profile"], c["gpu"] == "mi300x" ? "vllm" : "trtllm") << c["gpu"];
    // Ranked by the prediction (times / 0.6), the ceiling's keys beside it at the top level.
    EXPECT_LE(c["predicted"]["ttft_s"].get<double>(), 1.0);
    EXPECT_LE(c["predicted"]["tpot_s"].get<double>(), 0.05);
    EXPECT_LE(c["tpot_s"].get<double>(), c["predicted"]["tpot_s"].get<double>());
    EXPECT_FALSE(c["deciding"].get<std::string>().empty());
  }
}

// One engine: each configuration's figures are what `size` reports for that deployment at that
// batch and request shape (context isl + osl, prompt isl: size's serving section), both sets.
TEST(CmdPlanTest, EachConfigAgreesWithSize) {
  auto r = run_args(with({"--ttft", "1s", "--tpot", "50ms", "--qps", "20", "--gpu", "h100,mi300x", "--json",
                          "--top", "6"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  ASSERT_FALSE(j["configs"].empty());
  for (const auto& c : j["configs"]) {
    const int64_t tp = c["tp"], pp = c["pp"], ep = c["ep"], batch = c["batch"];
    auto s = run_args({"size", "--model", "llama-3.1-70b", "--gpu", c["gpu"].get<std::string>(), "--gpus",
                       std::to_string(tp * pp), "--tp", std::to_string(tp), "--pp", std::to_string(pp), "--ep",
                       std::to_string(ep), "--dtype", c["weight_dtype"].get<std::string>(), "--kv-dtype",
                       c["kv_dtype"].get<std::string>(), "--seq", "2560", "--prompt", "2048", "--batch",
                       std::to_string(batch), "--json"});
    ASSERT_EQ(s.status, 0) << s.err;
    const auto sv = s.json()["serving"];
    EXPECT_DOUBLE_EQ(c["tpot_s"].get<double>(), sv["tpot_s"].get<double>());
    EXPECT_DOUBLE_EQ(c["ttft_s"].get<double>(), sv["ttft_s"].get<double>());
    EXPECT_EQ(c["max_sequences"].get<int64_t>(), sv["max_sequences"].get<int64_t>());
    EXPECT_DOUBLE_EQ(c["predicted"]["tpot_s"].get<double>(), sv["predicted"]["tpot_s"].get<double>());
    EXPECT_DOUBLE_EQ(c["predicted"]["ttft_s"].get<double>(), sv["predicted"]["ttft_s"].get<double>());
    EXPECT_EQ(c["predicted"]["max_sequences"].get<int64_t>(), sv["predicted"]["max_sequences"].get<int64_t>());
  }
}

TEST(CmdPlanTest, NothingFitsIsExitOneWithMisses) {
  auto r = run_args(with({"--tpot", "200us", "--gpu", "h100"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("Nothing meets the targets"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would need"), std::string::npos);
  EXPECT_EQ(line_count(r.err), 1);
  auto j = run_args(with({"--tpot", "200us", "--gpu", "h100", "--json"}));
  EXPECT_EQ(j.status, 1);
  EXPECT_FALSE(j.json()["binding"].is_null());
}

TEST(CmdPlanTest, FrontierPlotIsWritten) {
  const std::string path = ::testing::TempDir() + "plan_frontier.svg";
  std::remove(path.c_str());
  auto r = run_args(with({"--gpu", "h100,h200", "--frontier", "--plot", path}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Frontier per GPU kind"), std::string::npos);
  FILE* fp = std::fopen(path.c_str(), "r");
  ASSERT_NE(fp, nullptr);
  std::fclose(fp);
  std::remove(path.c_str());
}

TEST(CmdPlanTest, BadInputIsExitTwoOneLineNamingTheFlag) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {with({"--tpot", "0ms"}), "--tpot"},
      {with({"--tpot", "50"}), "--tpot"},
      {with({"--ttft", "5GB"}), "--ttft"},
      {{"plan", "--model", "llama-3.1-70b", "--isl", "-5", "--osl", "512"}, "--isl"},
      {{"plan", "--model", "llama-3.1-70b", "--osl", "512"}, "--isl"},
      {with({"--gpu", "nosuchgpu"}), "--gpu"},
      {with({"--gpu", "h100,h100"}), "--gpu"},
      {with({"--qps", "20", "--rate", "5000"}), "--rate"},
      {with({"--qps", "fast"}), "--qps"},
      {with({"--efficiency", "1.5"}), "--efficiency"},
      {with({"--price", "h100=abc"}), "--price"},
      {with({"--dtype", "bf17"}), "--dtype"},
      {with({"--batch", "0"}), "--batch"},
      {with({"--max-gpus", "0"}), "--max-gpus"},
      {with({"--tpot", "50ms", "--tokens-per-s-per-user", "20"}), "--tokens-per-s-per-user"},
      {with({"--rank-by", "cost"}), "--rank-by"},
      {with({"--engine", "tgi"}), "--engine"},
      {with({"--engine", "vllm", "--gpu-memory-utilization", "0"}), "--gpu-memory-utilization"},
      {with({"--engine", "vllm", "--block-size", "0"}), "--block-size"},
      {with({"--engine", "vllm", "--max-model-len", "200000"}), "--max-model-len"},
      {with({"--mem-fraction-static", "0.8"}), "--mem-fraction-static"},  // SGLang's flag under trtllm
  };
  for (const auto& [args, flag] : cases) {
    auto r = run_args(args);
    EXPECT_EQ(r.status, 2) << flag << ": " << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// --max-gpus takes what its --help says, up to 2^20 = 1,048,576: the core once refused above 1,000,000,
// naming its field instead of the flag.
TEST(CmdPlanTest, MaxGpusTakesItsWholeRange) {
  const CliRun ok = run_args(with({"--qps", "1", "--gpu", "h100", "--max-gpus", "1048576"}));
  EXPECT_EQ(ok.status, 0) << ok.err;
  const CliRun over = run_args(with({"--qps", "1", "--gpu", "h100", "--max-gpus", "1048577"}));
  EXPECT_EQ(over.status, 2);
  EXPECT_EQ(over.err.rfind("modelcalc: error: --max-gpus:", 0), 0u) << over.err;
}

// Each row's "text" holds the cells the table prints (one function makes both), and --plot - the SVG alone.
TEST(CmdPlanTest, JsonTextIsTheTablesCellsAndPlotDashIsTheSvg) {
  auto args = with({"--ttft", "1s", "--tpot", "50ms", "--qps", "20", "--gpu", "h100"});
  auto text = run_args(args);
  args.push_back("--json");
  auto json = run_args(args);
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json c = json.json()["configs"][0];
  // The first row of the table: "   1  h100-sxm ... <ttft> <tpot> <tok/s/u> <tok/s/GPU> ...".
  const size_t row = text.out.find("\n   1  ");
  ASSERT_NE(row, std::string::npos) << text.out;
  const std::string line = text.out.substr(row + 1, text.out.find('\n', row + 1) - row - 1);
  for (const char* k : {"split", "dtypes", "ttft", "tpot", "tokens_per_s_per_user", "tokens_per_s_per_gpu",
                        "usd_per_hour", "usd_per_million_output_tokens", "usd_per_million_input_tokens"}) {
    EXPECT_NE(line.find(" " + c["text"][k].get<std::string>()), std::string::npos) << k << " in: " << line;
  }
  // TPOT in the text is the JSON's seconds, at most 50 ms (the target).
  EXPECT_LE(c["tpot_s"].get<double>(), 0.050);
  args.back() = "--plot";
  args.push_back("-");
  auto svg = run_args(args);
  EXPECT_EQ(svg.status, 0) << svg.err;
  EXPECT_NE(svg.out.find("<svg"), std::string::npos);
  EXPECT_EQ(svg.out.find("Best configurations"), std::string::npos);
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// A GPU with no catalog price (the B300) is planned, not refused (#38): every configuration is ranked by
// GPU-hours per 1M output tokens, gpus / (served output tokens/s x 3600) x 1e6, the US$ figures null with
// their reason; a price given for it ranks by US$ again.
TEST(CmdPlanTest, GpuWithoutAPriceIsRankedByGpuHours) {
  auto r = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "1024", "--gpu", "b300,h100",
                     "--tpot", "30ms", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["rank_cost"], "gpu_hours_per_million_output_tokens");
  EXPECT_NE(j["rank_order"].get<std::string>().find("b300 has no catalog price"), std::string::npos);
  ASSERT_EQ(j["prices"].size(), 2u);
  EXPECT_TRUE(j["prices"][0]["usd_per_hour"].is_null());
  EXPECT_GT(j["prices"][1]["usd_per_hour"].get<double>(), 0);
  ASSERT_GE(j["configs"].size(), 2u);
  double previous = 0;
  bool saw_b300 = false;
  for (const auto& c : j["configs"]) {
    const auto& p = c["predicted"];  // the ranked set
    const double hours = p["gpus"].get<double>() / (p["served_output_tokens_per_s"].get<double>() * 3600) * 1e6;
    EXPECT_NEAR(p["gpu_hours_per_million_output_tokens"].get<double>(), hours, 1e-9 * hours);
    EXPECT_GE(hours, previous) << "ranked by GPU-hours, fewest first";
    previous = hours;
    if (c["gpu"] == "b300") {
      saw_b300 = true;
      EXPECT_TRUE(p["usd_per_million_output_tokens"].is_null());
      EXPECT_NE(p["usd_per_million_output_tokens_reason"].get<std::string>().find("no catalog price"),
                std::string::npos);
      EXPECT_EQ(c["text"]["usd_per_hour"], "no price");
    } else {
      EXPECT_GT(p["usd_per_million_output_tokens"].get<double>(), 0);
    }
  }
  EXPECT_TRUE(saw_b300);
  auto t = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "1024", "--gpu", "b300",
                     "--frontier"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("GPU-h/1M"), std::string::npos);
  EXPECT_NE(t.out.find("Frontier per GPU kind"), std::string::npos);
  auto priced = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "1024", "--gpu", "b300",
                          "--price", "b300=6", "--json"});
  ASSERT_EQ(priced.status, 0) << priced.err;
  const auto pj = priced.json();
  EXPECT_EQ(pj["rank_cost"], "usd_per_million_output_tokens");
  EXPECT_DOUBLE_EQ(pj["prices"][0]["usd_per_hour"].get<double>(), 6.0);
  // train-plan needs a cost: it still refuses a GPU without a price, naming --price.
  auto tp = run_args({"train-plan", "--model", "llama-3.1-8b", "--gpu", "b300", "--tokens", "1e9", "--days", "30"});
  EXPECT_EQ(tp.status, 2);
  EXPECT_NE(tp.err.find("--price"), std::string::npos) << tp.err;
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// The frontier holds both kinds: the prediction's and the ceiling's curves per GPU, each a Pareto set; the
// ceiling of a configuration bounds its prediction, so every predicted point is matched or beaten on both
// axes by a point of the ceiling's curve.
TEST(CmdPlanTest, FrontierHasBothKindsAndTheCeilingBoundsThePrediction) {
  auto r = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "1024", "--gpu", "h100,b200",
                     "--frontier", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto f = r.json()["frontier"];
  ASSERT_FALSE(f["predicted"].empty());
  ASSERT_FALSE(f["ceiling"].empty());
  EXPECT_FALSE(f.contains("measured"));  // only with --compare
  for (const char* kind : {"predicted", "ceiling"}) {
    for (const auto& p : f[kind]) {
      for (const auto& q : f[kind]) {
        if (&p == &q || p["gpu"] != q["gpu"]) continue;
        const bool beaten = q["tokens_per_s_per_user"].get<double>() >= p["tokens_per_s_per_user"].get<double>() &&
                            q["tokens_per_s_per_gpu"].get<double>() > p["tokens_per_s_per_gpu"].get<double>();
        EXPECT_FALSE(beaten) << kind << " " << p.dump();
      }
      // Cost per point: the GPUs' price over the output tokens they serve per hour, per GPU.
      const double per_gpu = p["tokens_per_s_per_gpu"].get<double>();
      EXPECT_NEAR(p["gpu_hours_per_million_output_tokens"].get<double>(), 1 / (per_gpu * 3600) * 1e6,
                  1e-9 / (per_gpu * 3600) * 1e6);
      EXPECT_TRUE(p.contains("ttft_s"));
      EXPECT_TRUE(p.contains("tpot_s"));
    }
  }
  for (const auto& p : f["predicted"]) {
    bool bounded = false;
    for (const auto& c : f["ceiling"]) {
      bounded = bounded || (c["gpu"] == p["gpu"] &&
                            c["tokens_per_s_per_user"].get<double>() >= p["tokens_per_s_per_user"].get<double>() &&
                            c["tokens_per_s_per_gpu"].get<double>() >= p["tokens_per_s_per_gpu"].get<double>());
    }
    EXPECT_TRUE(bounded) << p.dump();
    EXPECT_FALSE(p["engine"].is_null());
  }
  // Output tokens/s per MW of TDP: per GPU over its watts, x 1e6 (the catalog's TDPs: H100 SXM 700 W, B200
  // 1,000 W).
  for (const auto& p : f["predicted"]) {
    const double watts = p["gpu"] == "b200" ? 1000 : 700;
    EXPECT_NEAR(p["output_tokens_per_s_per_mw"].get<double>(), p["tokens_per_s_per_gpu"].get<double>() / watts * 1e6,
                1e-6);
  }
}

// --compare: the published runs of the model at the plan's shape on the GPUs searched, each a measured point
// with its prediction, which is calibrate's for the same rows (one engine, one answer).
TEST(CmdPlanTest, CompareDrawsMeasuredPointsWithCalibratesPrediction) {
  const std::string path = ::testing::TempDir() + "plan_compare.tsv";
  {
    std::ofstream out(path);
    out << "id\tmodel\tcheckpoint\tgpu\tgpus\ttp\tpp\tep\tweight_dtype\tkv_dtype\tisl\tosl\tload\tmetric\tvalue\t"
           "engine\tengine_version\tsource\tnotes\n";
    for (const auto& [id, metric, value] : {std::tuple{"m1", "output_tokens_per_s", "4000"},
                                            std::tuple{"m2", "itl_s", "0.008"}}) {
      out << id << "\tmeta-llama/Llama-3.1-8B\t\th100-sxm\t2\t2\t1\t1\tfp8\tfp8\t1024\t1024\tconcurrency=32\t"
          << metric << "\t" << value << "\tTensorRT-LLM\t0.17\ta test\t\n";
    }
  }
  auto r = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "1024", "--gpu", "h100",
                     "--compare", path, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  ASSERT_EQ(j["frontier"]["measured"].size(), 1u);
  const auto& m = j["frontier"]["measured"][0];
  EXPECT_DOUBLE_EQ(m["tokens_per_s_per_gpu"].get<double>(), 2000);  // 4,000 over 2 GPUs
  EXPECT_DOUBLE_EQ(m["tokens_per_s_per_user"].get<double>(), 125);   // 1 / 8 ms
  EXPECT_DOUBLE_EQ(m["concurrency"].get<double>(), 32);
  EXPECT_EQ(m["layout"], "TP2");
  EXPECT_EQ(j["frontier"]["comparison"]["matched_rows"], 2);
  auto cal = run_args({"calibrate", "--data", path, "--json"});
  ASSERT_EQ(cal.status, 0) << cal.err;
  const auto cal_json = cal.json();  // held: a range-for over a temporary's member would dangle
  for (const auto& row : cal_json["rows"]) {
    if (row["id"] == "m1") {
      EXPECT_NEAR(m["predicted"]["tokens_per_s_per_gpu"].get<double>(), row["predicted"].get<double>() / 2,
                  1e-9 * row["predicted"].get<double>());
    }
    if (row["id"] == "m2") {
      EXPECT_NEAR(m["predicted"]["tokens_per_s_per_user"].get<double>(), 1 / row["predicted"].get<double>(), 1e-9);
    }
  }
  // The text lists it; --compare implies the frontier table.
  auto t = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "1024", "--gpu", "h100",
                     "--compare", path});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("Measured (--compare: 1 runs"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("the ceiling's"), std::string::npos);
  // The compiled-in runs: DeepSeek-R1's InferenceX sweeps on B200.
  auto shared = run_args({"plan", "--model", "deepseek-r1", "--isl", "1024", "--osl", "1024", "--gpu", "b200",
                          "--compare", "shared", "--length-dist", "uniform-0.8", "--json"});
  ASSERT_EQ(shared.status, 0) << shared.err;
  const auto sj = shared.json();
  EXPECT_GT(sj["frontier"]["measured"].size(), 10u);
  EXPECT_EQ(sj["workload"]["length_dist"], "uniform-0.8");
  EXPECT_EQ(sj["workload"]["isl"], 922);  // round(0.9 x 1024): served at the mean
}

TEST(CmdPlanTest, CompareRefusesWhatItCannotMatch) {
  const std::vector<std::string> base = {"plan", "--isl", "1024", "--osl", "1024", "--gpu", "h100"};
  auto with_args = [&](std::initializer_list<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra);
    return a;
  };
  const std::string missing = ::testing::TempDir() + "no_such_runs.tsv";
  const std::string bad = ::testing::TempDir() + "bad_runs.tsv";
  {
    std::ofstream(bad) << "id\tmodel\n1\tx\n";
  }
  for (const auto& args : {with_args({"--model", "llama-3.1-8b", "--compare", missing}),
                           with_args({"--model", "llama-3.1-8b", "--compare", bad}),
                           with_args({"--layers", "2", "--hidden", "256", "--heads", "4", "--ffn", "512", "--vocab",
                                      "1000", "--compare", "shared"}),
                           with_args({"--model", "llama-3.1-8b", "--compare", "shared", "--disaggregated"})}) {
    auto r = run_args(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--compare"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  auto d = run_args(with_args({"--model", "llama-3.1-8b", "--length-dist", "normal"}));
  EXPECT_EQ(d.status, 2);
  EXPECT_NE(d.err.find("--length-dist"), std::string::npos) << d.err;
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// calibrate --frontier plans each group of runs under its own engine family and holds them against it: a
// group's point is the one plan --compare gives for the same rows and engine (one function, one answer).
TEST(CmdPlanTest, CalibrateFrontierIsPlanCompareOverEachGroup) {
  const std::string path = ::testing::TempDir() + "calibrate_frontier.tsv";
  {
    std::ofstream out(path);
    out << "id\tmodel\tcheckpoint\tgpu\tgpus\ttp\tpp\tep\tweight_dtype\tkv_dtype\tisl\tosl\tload\tmetric\tvalue\t"
           "engine\tengine_version\tsource\tnotes\n";
    for (const auto& [id, metric, value] : {std::tuple{"f1", "output_tokens_per_s", "4000"},
                                            std::tuple{"f2", "itl_s", "0.008"}}) {
      out << id << "\tmeta-llama/Llama-3.1-8B\t\th100-sxm\t2\t2\t1\t1\tfp8\tfp8\t1024\t1024\tconcurrency=32\t"
          << metric << "\t" << value << "\tSGLang\t0.5.9\ta test\t\n";
    }
  }
  auto cal = run_args({"calibrate", "--frontier", "--data", path, "--json"});
  ASSERT_EQ(cal.status, 0) << cal.err;
  const auto c = cal.json();
  EXPECT_EQ(c["groups"], 1);
  ASSERT_EQ(c["points"].size(), 1u);
  auto plan = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "1024", "--gpu", "h100",
                        "--dtype", "fp8", "--engine", "sglang", "--compare", path, "--json"});
  ASSERT_EQ(plan.status, 0) << plan.err;
  const auto pj = plan.json();
  ASSERT_EQ(pj["frontier"]["measured"].size(), 1u);
  EXPECT_EQ(c["points"][0], pj["frontier"]["measured"][0]);
  EXPECT_EQ(c["by_gpu_engine"][0]["engine"], "SGLang");
  for (const auto& [args, flag] :
       {std::pair{std::vector<std::string>{"calibrate", "--frontier", "--fit"}, "--frontier"},
        std::pair{std::vector<std::string>{"calibrate", "--frontier", "--training"}, "--frontier"}}) {
    auto r = run_args(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// The frontier alone sweeps MTP for a model with an MTP head, at its published acceptance (DeepSeek-V3's
// report: 85-90 %, the low end), beside the plain candidates; --spec-method none leaves it out.
TEST(CmdPlanTest, FrontierSweepsMtpWhereTheModelHasAHead) {
  const std::vector<std::string> base = {"plan", "--model", "deepseek-r1", "--isl", "1024", "--osl", "1024",
                                         "--gpu", "b200", "--frontier", "--json"};
  auto r = run_args(base);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto f = r.json()["frontier"];
  EXPECT_NE(f["mtp_note"].get<std::string>().find("acceptance 0.85"), std::string::npos) << f["mtp_note"];
  int mtp = 0, plain = 0;
  for (const auto& p : f["predicted"]) (p["mtp"].get<bool>() ? mtp : plain)++;
  EXPECT_GT(mtp, 0);
  EXPECT_GT(plain, 0);  // at the largest batches the draft's extra tokens cost more than they yield
  auto none = base;
  none.insert(none.end(), {"--spec-method", "none"});
  auto n = run_args(none);
  ASSERT_EQ(n.status, 0) << n.err;
  const auto nj = n.json();
  for (const auto& p : nj["frontier"]["predicted"]) EXPECT_FALSE(p["mtp"].get<bool>());
  EXPECT_NE(nj["frontier"]["mtp_note"].get<std::string>().find("left out"), std::string::npos);
  auto llama = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "1024", "--gpu", "h100",
                         "--frontier", "--json"});
  ASSERT_EQ(llama.status, 0) << llama.err;
  EXPECT_FALSE(llama.json()["frontier"].contains("mtp_note"));  // no MTP head: nothing to sweep
  auto bad = none;
  bad.insert(bad.end(), {"--spec-tokens", "2"});
  auto b = run_args(bad);
  EXPECT_EQ(b.status, 2);
  EXPECT_NE(b.err.find("--spec-method"), std::string::npos) << b.err;
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// The frontier alone sweeps disaggregated pools too: a pair's point is its decode pool's split and batch with
// its prefill pool beside it, its tokens/s per GPU over both pools' GPUs.
TEST(CmdPlanTest, FrontierSweepsDisaggregatedPools) {
  auto r = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "1024", "--gpu", "h100",
                     "--frontier", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto f = r.json()["frontier"];
  EXPECT_NE(f["disaggregated_note"].get<std::string>().find("disaggregated pools swept"), std::string::npos);
  int disaggregated = 0;
  for (const auto& p : f["predicted"]) {
    if (!p["disaggregated"].get<bool>()) continue;
    ++disaggregated;
    EXPECT_GE(p["prefill"]["replicas"].get<int64_t>(), 1);
    EXPECT_GE(p["decode_replicas"].get<int64_t>(), 1);
    // "1P×TP1/2D×TP1": x prefill replicas of its split, y decode replicas of the decode split.
    EXPECT_EQ(p["split"].get<std::string>(),
              std::to_string(p["prefill"]["replicas"].get<int64_t>()) + "P×" + p["prefill"]["split"].get<std::string>() +
                  "/" + std::to_string(p["decode_replicas"].get<int64_t>()) + "D×" + "TP" +
                  std::to_string(p["tp"].get<int64_t>()) +
                  (p["pp"].get<int64_t>() > 1 ? "·PP" + std::to_string(p["pp"].get<int64_t>()) : std::string()));
  }
  EXPECT_GT(disaggregated, 0);  // at 1024/1024 some pairs beat every aggregated point on one axis
}

}  // namespace
}  // namespace modelcalc
