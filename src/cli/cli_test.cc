#include "cli.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>

#include "commands.h"
#include "test_util.h"

namespace modelcalc {
namespace {

const std::vector<std::string> kDrill1 = {"-L",    "48",    "-d",   "6144", "--heads", "48",    "--kv-heads",
                                          "8",     "--ffn", "16384", "--glu", "--vocab", "64000", "--seq",
                                          "8192",  "--gpu", "mi300x"};

std::vector<std::string> with(std::vector<std::string> base, std::initializer_list<std::string> extra) {
  base.insert(base.end(), extra);
  return base;
}

TEST(CliTest, SizeIsTheDefaultCommandAndJsonCarriesTheContract) {
  CliRun r = run_args(with(kDrill1, {"--json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["params"]["q"], 37'748'736);         // 6144 x 6144
  EXPECT_EQ(j["params"]["kv"], 12'582'912);        // 2 x 6144 x 1024
  EXPECT_EQ(j["params"]["o"], 37'748'736);
  EXPECT_EQ(j["params"]["ffn"], 301'989'888);      // 3 x 6144 x 16384
  EXPECT_EQ(j["params"]["per_layer"], 390'070'272);
  EXPECT_EQ(j["params"]["blocks"], 18'723'373'056);
  EXPECT_EQ(j["params"]["embeddings"], 786'432'000);
  EXPECT_EQ(j["params"]["total"], 19'509'805'056);
  EXPECT_EQ(j["params"]["d_head"], 128);
  EXPECT_EQ(j["params"]["d_kv"], 1024);
  EXPECT_EQ(j["weights"]["bytes"], 39'019'610'112);
  EXPECT_DOUBLE_EQ(j["flops"]["forward_per_token"].get<double>(), 37'446'746'112.0);
  EXPECT_NEAR(j["flops"]["prefill_total"].get<double>() / 1e14, 3.859, 0.001);
  EXPECT_NEAR(j["flops"]["decode_per_token"].get<double>() / 1e10, 4.711, 0.001);
  EXPECT_EQ(j["kv"]["bytes_per_token"], 196'608);
  EXPECT_EQ(j["kv"]["bytes_per_sequence"], 1'610'612'736);
  EXPECT_EQ(j["kv"]["mha_bytes_per_sequence"], 9'663'676'416);
  EXPECT_NEAR(j["decode"]["tokens_per_s_weights_only"].get<double>(), 135.83, 0.01);
  EXPECT_NEAR(j["decode"]["tokens_per_s_with_kv"].get<double>(), 130.44, 0.01);
  EXPECT_NEAR(j["roofline"]["ridge"].get<double>(), 246.68, 0.01);
  EXPECT_EQ(j["roofline"]["max_batch_by_capacity"], 94);
}

TEST(CliTest, DrillVariantRuns) {
  // --dtype int8: 5.3e12 / 19,509,805,056 = 271.66 tokens/s.
  CliRun int8 = run_args(with(kDrill1, {"--dtype", "int8", "--json"}));
  ASSERT_EQ(int8.status, 0) << int8.err;
  EXPECT_NEAR(int8.json()["decode"]["tokens_per_s_weights_only"].get<double>(), 271.66, 0.01);
  // --gpu h100 (given last, overriding mi300x is not allowed: build it fresh).
  std::vector<std::string> h100 = kDrill1;
  h100.back() = "h100";
  CliRun h = run_args(with(h100, {"--json"}));
  ASSERT_EQ(h.status, 0) << h.err;
  EXPECT_NEAR(h.json()["decode"]["tokens_per_s_weights_only"].get<double>(), 85.85, 0.01);  // 3.35e12 / 39.02e9
  // --kv-heads 48: MHA, 6x the cache.
  std::vector<std::string> mha = kDrill1;
  mha[7] = "48";
  CliRun m = run_args(with(mha, {"--json"}));
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_EQ(m.json()["kv"]["bytes_per_sequence"], 9'663'676'416);  // 2 x 48 x 6144 x 2 x 8192
}

TEST(CliTest, ExplainShowsFormulaSubstitutionAndResult) {
  CliRun r = run_args(with(kDrill1, {"--explain"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("= 2 × L × d_kv × b_kv"), std::string::npos);
  EXPECT_NE(r.out.find("= 2 × 48 × 1,024 × 2"), std::string::npos);
  EXPECT_NE(r.out.find("= 196,608 B"), std::string::npos);
  EXPECT_NE(r.out.find("[decode_tokens_per_sec]"), std::string::npos);
  // bw is B/s on report.h's rule (4 significant digits, SI prefix): the MI300X's
  // 5.3e12 B/s / 1e12 = 5.3 -> "5.3 TB/s" (was "5,300 GB/s" from size_report's own gbps).
  EXPECT_NE(r.out.find("5.3 TB/s / 39.02 GB"), std::string::npos);
}

TEST(CliTest, TextReportNamesWhatWasIgnored) {
  CliRun r = run_args(kDrill1);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Ignored (and why it is safe)"), std::string::npos);
  EXPECT_NE(r.out.find("135.8 tokens/s"), std::string::npos);
  EXPECT_NE(r.out.find("19,509,805,056"), std::string::npos);
}

TEST(CliTest, ExercisesReproducesDrill1) {
  CliRun r = run_args({"exercises", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["params"]["total"], 19'509'805'056);
  EXPECT_NEAR(j["check"]["int8"]["tokens_per_s_weights_only"].get<double>(), 271.66, 0.01);
  EXPECT_NEAR(j["check"]["h100"]["tokens_per_s_weights_only"].get<double>(), 85.85, 0.01);
  EXPECT_EQ(j["check"]["mha"]["kv_bytes_per_sequence"], 9'663'676'416);
  // 6 x 19,509,805,056 x 1.5e12 = 1.7559e23
  EXPECT_NEAR(j["flops"]["train"].get<double>() / 1e23, 1.7559, 1e-4);
}

TEST(CliTest, CustomGpuFromUnits) {
  CliRun r = run_args({"-L", "48", "-d", "6144", "--heads", "48", "--kv-heads", "8", "--ffn", "16384", "--glu",
                       "--vocab", "64000", "--seq", "8192", "--bandwidth", "3.35TB/s", "--capacity", "80GB",
                       "--peak", "989.4TFLOPS", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NEAR(r.json()["roofline"]["ridge"].get<double>(), 295.34, 0.01);  // 989.4 / 3.35
}

TEST(CliTest, NoGpuLeavesOutHardwareSections) {
  CliRun r = run_args({"-L", "2", "-d", "64", "--heads", "4", "--ffn", "256", "--vocab", "100", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(r.json().contains("decode"));
  // 2 layers x (4 x 64^2 + 2 x 64 x 256) + 2 x 100 x 64 = 2 x 49,152 + 12,800 = 111,104.
  EXPECT_EQ(r.json()["params"]["total"], 111'104);
}

TEST(CliTest, GpusSplitTheModelIdeally) {
  // Llama-3.1-70B: 70,553,706,496 params x 2 B = 141,107,412,992 B: too big for one 80 GB H100,
  // fits 2 (160 GB). Weights-only ceiling on 2 x 3.35 TB/s: 6.7e12 / 141,107,412,992 = 47.48 tokens/s.
  CliRun one = run_args({"--model", "llama-3.1-70b", "--gpu", "h100", "--seq", "4096", "--json"});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_FALSE(one.json()["weights"]["fits"].get<bool>());
  CliRun two = run_args({"--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "2", "--seq", "4096", "--json"});
  ASSERT_EQ(two.status, 0) << two.err;
  EXPECT_TRUE(two.json()["weights"]["fits"].get<bool>());
  EXPECT_NEAR(two.json()["decode"]["tokens_per_s_weights_only"].get<double>(), 47.48, 0.01);
  CliRun no_gpu = run_args({"--model", "llama-3.1-70b", "--gpus", "2"});
  EXPECT_EQ(no_gpu.status, 2);
  EXPECT_NE(no_gpu.err.find("--gpus"), std::string::npos);
}

TEST(CliTest, ImplausibleResultsGetASanityNote) {
  // 2 x (4 x 64^2 + 2 x 64 x 256) + 2 x 100 x 64 = 111,104 params = 222,208 B in fp16:
  // 3.35e12 / 222,208 = 1.5e7 tokens/s, far above any real single stream.
  CliRun r = run_args({"-L", "2", "-d", "64", "--heads", "4", "--ffn", "256", "--vocab", "100", "--gpu", "h100",
                       "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto w = r.json()["warnings"];
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].get<std::string>().find("implausibly high"), std::string::npos);
  // A context past the model's max_position_embeddings (Llama-3.1-8B: 131,072) is said too.
  CliRun seq = run_args({"--model", "llama-3.1-8b", "--seq", "200000", "--json"});
  ASSERT_EQ(seq.status, 0) << seq.err;
  EXPECT_NE(seq.json()["warnings"][0].get<std::string>().find("exceeds"), std::string::npos);
}

struct BadCase {
  std::vector<std::string> args;
  std::string names;  // the flag or field the one-line error must name
};

void PrintTo(const BadCase& c, std::ostream* os) {
  for (const auto& a : c.args) *os << a << ' ';
}

std::string CaseName(const ::testing::TestParamInfo<BadCase>& info) {
  std::string name = "Case" + std::to_string(info.index) + "_";
  for (char ch : info.param.names) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

class CliBadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(CliBadInputTest, OneLineNamingTheFlagExit2NoOutput) {
  CliRun r = run_args(GetParam().args);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(GetParam().names), std::string::npos) << r.err;
}

std::vector<std::string> drill_with(size_t index, std::string value) {
  std::vector<std::string> a = kDrill1;
  a[index] = std::move(value);
  return a;
}

INSTANTIATE_TEST_SUITE_P(
    BadInput, CliBadInputTest,
    ::testing::Values(BadCase{drill_with(1, "0"), "--layers"}, BadCase{drill_with(1, "-4"), "--layers"},
                      BadCase{drill_with(3, "abc"), "--hidden"}, BadCase{drill_with(5, "40"), "--heads"},
                      BadCase{drill_with(7, "7"), "--kv-heads"}, BadCase{drill_with(7, "96"), "--kv-heads"},
                      BadCase{drill_with(16, "h1000"), "did you mean"}, BadCase{drill_with(14, "0"), "--seq"},
                      BadCase{drill_with(14, "1.5"), "--seq"},
                      BadCase{with(kDrill1, {"--dtype", "fp6"}), "--dtype"},
                      BadCase{with(kDrill1, {"--kv-dtype", "int3"}), "--kv-dtype"},
                      BadCase{with(kDrill1, {"--bandwidth", "3.35TB"}), "--bandwidth"},
                      BadCase{with(kDrill1, {"--capacity", "80GB/s"}), "--capacity"},
                      BadCase{with(kDrill1, {"--peak", "989.4TB/s"}), "--peak"},
                      BadCase{with(kDrill1, {"--batch", "0"}), "--batch"},
                      BadCase{with(kDrill1, {"--train-tokens", "lots"}), "--train-tokens"},
                      BadCase{drill_with(9, "99999999999999999999"), "--ffn"},
                      BadCase{drill_with(12, "4000000000000000"), "--vocab: must be a whole number between 1 and 1e15"},
                      BadCase{drill_with(12, "1000000000000000"), "overflow"},  // in range, 6144 x 1e15 is not
                      BadCase{{"-L", "48", "-d", "6144"}, "--heads"},
                      BadCase{{"-L", "48", "--bandwidth", "3TB/s"}, "--hidden"},
                      BadCase{{"sise", "-L", "1"}, "did you mean 'size'"},
                      BadCase{with(kDrill1, {"--no-such-flag"}), "--no-such-flag"}),
    CaseName);

TEST(CliTest, CustomGpuNeedsAllThreeFigures) {
  CliRun r = run_args({"-L", "2", "-d", "64", "--heads", "4", "--ffn", "256", "--vocab", "100", "--bandwidth",
                       "1TB/s"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--capacity"), std::string::npos) << r.err;
}

TEST(CliTest, HelpAndGpus) {
  CliRun help = run_args({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("exercises"), std::string::npos);
  CliRun gpus = run_args({"gpus", "--json"});
  ASSERT_EQ(gpus.status, 0) << gpus.err;
  bool found = false;
  for (const auto& g : gpus.json()) {
    if (g["key"] == "mi300x") {
      found = true;
      EXPECT_DOUBLE_EQ(g["bandwidth_bytes_per_s"].get<double>(), 5.3e12);
    }
  }
  EXPECT_TRUE(found);
}

// Every command's --help shows the numbers paragraph once, and a command's
// own footer too: CLI11 copies the parent's footer into each subcommand, which
// once printed the paragraph twice for every command without a footer of its own.
TEST(CliTest, EveryCommandsHelpShowsTheNumbersParagraphOnce) {
  for (const Command& c : all_commands()) {
    const CliRun r = run_args({std::string(c.name), "--help"});
    ASSERT_EQ(r.status, 0) << c.name << ": " << r.err;
    const std::string para = "Numbers: K = 1e3";
    const size_t first = r.out.find(para);
    ASSERT_NE(first, std::string::npos) << c.name;
    EXPECT_EQ(r.out.find(para, first + 1), std::string::npos) << c.name << " shows it twice";
  }
  EXPECT_NE(run_args({"plan", "--help"}).out.find("Exit status 1"), std::string::npos);  // plan's own footer
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// Every command that takes a weight dtype takes the FP4 formats, on a GPU with an
// fp4 peak (B200) and on one without (H100, where the table runs them at bf16).
TEST(CliDtypeTest, Fp4FormatsWorkInEveryDtypeCommand) {
  const std::vector<std::vector<std::string>> commands = {
      {"size", "--model", "llama-3.1-8b", "--seq", "8192"},
      {"kv-budget", "--model", "llama-3.1-8b", "--context", "8192"},
      {"roofline", "--model", "llama-3.1-8b", "--seq", "8192"},
      {"sweep", "--model", "llama-3.1-8b", "--seq", "8192", "--batch", "1,64"},
      {"diagnose", "--model", "llama-3.1-8b", "--context", "8192", "--tokens-per-s", "100"},
      {"cost", "--model", "llama-3.1-8b", "--seq", "8192", "--price-per-hour", "3"},
      {"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "256", "--tpot", "50ms"},
  };
  for (const char* gpu : {"b200", "h100"}) {
    for (const char* dtype : {"nvfp4", "mxfp4"}) {
      for (std::vector<std::string> args : commands) {
        args.insert(args.end(), {"--gpu", gpu, "--dtype", dtype});
        std::string joined;
        for (const std::string& a : args) joined += a + " ";
        const CliRun r = run_args(args);
        EXPECT_EQ(r.status, 0) << joined << r.err;
        EXPECT_NE(r.out.find(dtype), std::string::npos) << joined;  // the report names the dtype
      }
    }
  }
}

// A KV cache in FP4 is refused where the flag is typed, one line, exit 2.
TEST(CliDtypeTest, Fp4KvCacheIsRefusedNamingTheFlag) {
  const std::vector<std::vector<std::string>> commands = {
      {"size", "--model", "llama-3.1-8b", "--gpu", "h100"},
      {"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100"},
      {"sweep", "--model", "llama-3.1-8b", "--gpu", "h100"},
      {"plan", "--model", "llama-3.1-8b", "--isl", "1024", "--osl", "256", "--tpot", "50ms"},
      {"paged-kv", "--model", "llama-3.1-8b", "--lens", "100,200"},
  };
  for (std::vector<std::string> args : commands) {
    args.insert(args.end(), {"--kv-dtype", "nvfp4"});
    const CliRun r = run_args(args);
    EXPECT_EQ(r.status, 2) << args[0] << r.out;
    EXPECT_EQ(line_count(r.err), 1) << args[0] << r.err;
    EXPECT_NE(r.err.find("--kv-dtype: nvfp4 is a weight format"), std::string::npos) << args[0] << r.err;
    EXPECT_EQ(r.out, "") << args[0];
  }
}

// --help lists every dtype of the table for --dtype, and only the KV ones for --kv-dtype.
TEST(CliDtypeTest, HelpListsTheDtypeTable) {
  for (const char* cmd : {"size", "kv-budget", "sweep", "roofline", "plan"}) {
    const CliRun r = run_args({cmd, "--help"});
    EXPECT_NE(r.out.find("nvfp4"), std::string::npos) << cmd;
    EXPECT_NE(r.out.find("mxfp4"), std::string::npos) << cmd;
  }
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// `gpus` shows the driver-exposed memory: H100 SXM 81,559 MiB x 2^20 = 85,520,809,984 B.
TEST(CliGpusTest, ShowsDriverExposedMemory) {
  const CliRun j = run_args({"gpus", "--json"});
  ASSERT_EQ(j.status, 0) << j.err;
  bool seen_h100 = false, seen_unknown = false;
  for (const auto& g : j.json()) {
    if (g["key"] == "h100-sxm") {
      seen_h100 = true;
      EXPECT_EQ(g["exposed_bytes"].get<double>(), 85'520'809'984.0);
      EXPECT_EQ(g["usable_capacity_bytes"].get<double>(), 85'520'809'984.0);
      EXPECT_FALSE(g["exposed_source"].get<std::string>().empty());
    }
    if (g["key"] == "h20") {  // not catalogued: 0, and the usable capacity is the nominal 96 GB
      seen_unknown = true;
      EXPECT_EQ(g["exposed_bytes"].get<double>(), 0.0);
      EXPECT_EQ(g["usable_capacity_bytes"].get<double>(), 96e9);
    }
  }
  EXPECT_TRUE(seen_h100 && seen_unknown);
  const CliRun t = run_args({"gpus"});
  EXPECT_NE(t.out.find("81,559"), std::string::npos);
  const CliRun s = run_args({"gpus", "--sources"});
  EXPECT_NE(s.out.find("driver memory: nvidia-smi"), std::string::npos);
}

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// weights.bytes is the checkpoint's (issue #31 item 3): each part in the dtype it is stored in, the
// scales counted; weights.teaching_bytes charges every parameter at the dtype (the seed's N x b).
TEST(SizeCli, WeightBytesAreTheCheckpointsTheTeachingViewChargesEveryParameter) {
  // gpt-oss-120b, MXFP4 experts with BF16 attention, embeddings, router, norms and expert biases: the
  // checkpoint's model.safetensors.index.json total_size is 65,248,815,744 B (deployment_layers_test.cc
  // sums it by part); every one of its 116,829,156,672 parameters at 0.53125 B is 62,065,489,482.
  const CliRun g = run_args({"size", "--model", "gpt-oss-120b", "--gpu", "h100", "--json"});
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_EQ(g.json()["weights"]["bytes"], 65'248'815'744);
  EXPECT_EQ(g.json()["weights"]["teaching_bytes"], 62'065'489'482);
  EXPECT_EQ(g.json()["memory_per_gpu"]["weights"], 65'248'815'744);  // one GPU holds the whole model
  // Llama-3.1-8B (bf16) served at fp8: its 6,979,321,856 block-matrix parameters at 1 B (no block scales
  // asked for); the two 128256 x 4096 tables (1,050,673,152) and the 266,240 norm weights stay 16-bit.
  const CliRun l = run_args({"size", "--model", "llama-3.1-8b", "--dtype", "fp8", "--json"});
  ASSERT_EQ(l.status, 0) << l.err;
  EXPECT_EQ(l.json()["weights"]["bytes"], 6'979'321'856LL + (1'050'673'152LL + 266'240) * 2);
  EXPECT_EQ(l.json()["weights"]["teaching_bytes"], 8'030'261'248LL);
  // bf16: every part is 16-bit, both figures are 2 N.
  const CliRun b = run_args({"size", "--model", "llama-3.1-8b", "--json"});
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(b.json()["weights"]["bytes"], 2 * 8'030'261'248LL);
  EXPECT_EQ(b.json()["weights"]["teaching_bytes"], 2 * 8'030'261'248LL);
  // diagnose shows the served figure for a model.
  const CliRun d = run_args({"diagnose", "--model", "gpt-oss-120b", "--gpu", "h100", "--tokens-per-s", "100", "--json"});
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(d.json()["numbers"]["weight_bytes"].get<double>(), 65'248'815'744.0);
}

}  // namespace
}  // namespace modelcalc
