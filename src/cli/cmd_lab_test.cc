// The lab's commands driven in-process: JSON keys scripts rely on, --explain,
// and one clear line with exit status 2 for every bad input. Expected numbers
// are derived by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace modelcalc {
namespace {

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::path(testing::TempDir()) / name).string();
  std::ofstream(path) << text;
  return path;
}

// The same candidates as tradeoff_test.cc.
constexpr const char* kCandidates = R"([
  {"name": "big", "quality": 0.9, "latency": 200, "throughput": 1000, "cost": 4, "memory": 160},
  {"name": "small", "quality": 0.6, "latency": 100, "throughput": 2000, "cost": 1, "memory": 20}
])";

// The 8B shape used below: Llama 3 8B (L 32, d 4096, 32 heads, 8 KV heads, SwiGLU 14336, V 128256, untied).
const std::vector<std::string> k8b = {"-L", "32", "-d", "4096", "--heads", "32", "--kv-heads", "8",
                                      "--ffn", "14336", "--glu", "--vocab", "128256"};

std::vector<std::string> With(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

void ExpectBadInput(const std::vector<std::string>& args, const std::string& flag) {
  const CliRun r = run_args(args);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  EXPECT_EQ(r.status, 2) << joined << "\n" << r.out << r.err;
  EXPECT_EQ(line_count(r.err), 1) << joined << "\n" << r.err;
  EXPECT_NE(r.err.find(flag), std::string::npos) << joined << " -> " << r.err;
  EXPECT_TRUE(r.out.empty()) << joined;
}

TEST(TrainCommandTest, FlopsGpuHoursAndDays) {
  const CliRun r = run_args({"train", "--params", "70B", "--tokens", "2T", "--gpu", "h100", "--gpus", "2048",
                             "--mfu", "0.4", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  // 6 · 70e9 · 2e12 = 8.4e23 FLOP.
  EXPECT_DOUBLE_EQ(j["flops"]["six_nd"].get<double>(), 8.4e23);
  // 8.4e23 / (989.4e12 · 0.4) / 3600 = 589,583.6 H100-hours; / 2048 / 24 = 11.995 days.
  EXPECT_NEAR(j["gpu_hours"].get<double>(), 8.4e23 / (989.4e12 * 0.4) / 3600, 1e-3);
  EXPECT_NEAR(j["days"].get<double>(), 8.4e23 / (989.4e12 * 0.4) / 3600 / 2048 / 24, 1e-9);
  EXPECT_NEAR(j["days"].get<double>(), 11.995, 1e-3);
}

TEST(TrainCommandTest, WithoutAGpuOnlyFlops) {
  const CliRun r = run_args({"train", "--params", "7B", "--tokens", "1T", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  // 6 · 7e9 · 1e12 = 4.2e22.
  EXPECT_DOUBLE_EQ(r.json()["flops"]["six_nd"].get<double>(), 6 * 7e9 * 1e12);
  EXPECT_FALSE(r.json().contains("gpu_hours"));
}

TEST(TrainCommandTest, ExplainShowsTheSubstitution) {
  const CliRun r = run_args({"train", "--params", "70B", "--tokens", "2T", "--explain"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("[training_flops]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("= 6 × 70B × 2T"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("8.4e23 FLOP"), std::string::npos) << r.out;
}

TEST(ChinchillaCommandTest, TokensForParams) {
  const CliRun r = run_args({"chinchilla", "--params", "70B", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  // D = 20 · 70e9 = 1.4e12; C = 6 · 70e9 · 1.4e12 = 5.88e23.
  EXPECT_DOUBLE_EQ(r.json()["params"].get<double>(), 70e9);
  EXPECT_DOUBLE_EQ(r.json()["tokens"].get<double>(), 1.4e12);
  EXPECT_DOUBLE_EQ(r.json()["compute"].get<double>(), 5.88e23);
}

TEST(ChinchillaCommandTest, ParamsAndTokensForCompute) {
  const CliRun r = run_args({"chinchilla", "--compute", "5.76e23", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  // N = sqrt(5.76e23 / 120) = sqrt(4.8e21) ≈ 6.928e10; D = 20 N ≈ 1.386e12.
  EXPECT_NEAR(r.json()["params"].get<double>(), std::sqrt(4.8e21), 1);
  EXPECT_NEAR(r.json()["tokens"].get<double>(), 20 * std::sqrt(4.8e21), 20);
}

TEST(CostCommandTest, FromAMeasuredThroughput) {
  const CliRun r = run_args({"cost", "--price-per-hour", "2.50", "--tokens-per-s", "1000", "--gpus", "8", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  // $2.50 · 8 / (1000 · 3600) · 1e6 = 20 / 3.6 = $5.5556.
  EXPECT_NEAR(r.json()["usd_per_million_tokens"].get<double>(), 20 / 3.6, 1e-12);
}

TEST(CostCommandTest, FloorFromTheDecodeCeiling) {
  const CliRun r = run_args(With({"cost"}, With(k8b, {"--gpu", "h100", "--batch", "64", "--price-per-hour", "3", "--seq", "4096",
                                       "--json"})));
  ASSERT_EQ(r.status, 0) << r.err;
  // Seed formulas, per layer: Q 4096·32·128 = 16,777,216; KV 2·4096·1024 = 8,388,608; O 16,777,216;
  // FFN 3·4096·14336 = 176,160,768; layer 218,103,808; × 32 = 6,979,321,856; embeddings 2·128256·4096 =
  // 1,050,673,152; N = 8,029,995,008; fp16 W = 16,059,990,016 B.
  // KV per sequence 2·32·4096·1024·2 = 536,870,912 B; step bytes at B = 64: W + 64·KV = 50,419,728,384.
  // Bandwidth ceiling 64 · 3.35e12 / 50,419,728,384 = 4,252.3 tok/s (the compute ceiling, ~61,000, is far above).
  const double tps = 64 * 3.35e12 / 50'419'728'384.0;
  const auto j = r.json();
  EXPECT_NEAR(j["ceiling"]["tokens_per_s"].get<double>(), tps, 1e-6);
  // $3 · 1 / (tps · 3600) · 1e6 ≈ $0.196.
  EXPECT_NEAR(j["usd_per_million_tokens"].get<double>(), 3.0 / (tps * 3600) * 1e6, 1e-12);
  EXPECT_TRUE(j["usd_per_million_tokens_is_floor"].get<bool>());
  EXPECT_NE(run_args(With({"cost"}, With(k8b, {"--gpu", "h100", "--price-per-hour", "3"}))).out.find("FLOOR"),
            std::string::npos);
  // Engines at 80 % and 60 % of the ceiling: 0.19597 / 0.8 = 0.24497 -> "$0.245" (4 significant digits,
  // the trailing 0 dropped); 0.19597 / 0.6 = 0.32662 -> "$0.3266".
  const CliRun text = run_args(
      With({"cost"}, With(k8b, {"--gpu", "h100", "--batch", "64", "--price-per-hour", "3", "--seq", "4096"})));
  EXPECT_NE(text.out.find("roughly $0.245–$0.3266 per 1M decode tokens"), std::string::npos) << text.out;
}

TEST(CostCommandTest, ModeledCostPricesTheRateSizeReports) {
  // One engine, one answer: cost's modeled $/1M prices the aggregate decode rate that
  // size reports for the same deployment (8B on 2 H100s, TP 2, batch 64, T 4,096):
  // $/1M = price x gpus / (tps x 3600) x 1e6.
  const std::vector<std::string> setup = {"--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "2", "--batch", "64",
                                          "--seq", "4096", "--json"};
  const CliRun size = run_args(With({"size"}, setup));
  const CliRun cost = run_args(With({"cost", "--price-per-hour", "3"}, setup));
  ASSERT_EQ(size.status, 0) << size.err;
  ASSERT_EQ(cost.status, 0) << cost.err;
  const double tps = size.json()["decode_step"]["tokens_per_s_aggregate"].get<double>();
  ASSERT_GT(tps, 0);
  EXPECT_DOUBLE_EQ(cost.json()["cost"]["modeled_usd_per_million_tokens"].get<double>(), 3.0 * 2 / (tps * 3600) * 1e6);
  // The answer to plan with prices the predicted rate size reports beside the ceiling, and leads the text.
  const double predicted = size.json()["decode_step"]["predicted"]["tokens_per_s_aggregate"].get<double>();
  ASSERT_GT(predicted, 0);
  EXPECT_DOUBLE_EQ(cost.json()["cost"]["predicted"]["usd_per_million_tokens"].get<double>(),
                   3.0 * 2 / (predicted * 3600) * 1e6);
  std::vector<std::string> text_args = With({"cost", "--price-per-hour", "3"}, setup);
  text_args.pop_back();
  const std::string text = run_args(text_args).out;
  EXPECT_LT(text.find("USD per 1M tokens, predicted"), text.find("USD per 1M tokens, ceiling")) << text;
}

TEST(CostCommandTest, TensorParallelScalesBandwidthAndPrice) {
  // Same 8B on 2 H100s at batch 64: bandwidth 6.7e12, so the ceiling doubles and the $/1M
  // (twice the GPUs, twice the tokens) is unchanged: 3 · 2 / (2 tps · 3600) · 1e6.
  const CliRun r = run_args(With({"cost"}, With(k8b, {"--gpu", "h100", "--gpus", "2", "--batch", "64", "--seq", "4096",
                                       "--price-per-hour", "3", "--json"})));
  ASSERT_EQ(r.status, 0) << r.err;
  const double tps = 64 * 6.7e12 / 50'419'728'384.0;
  EXPECT_NEAR(r.json()["ceiling"]["tokens_per_s"].get<double>(), tps, 1e-6);
  EXPECT_NEAR(r.json()["usd_per_million_tokens"].get<double>(), 6.0 / (tps * 3600) * 1e6, 1e-12);
}

TEST(CostCommandTest, WarnsWhenTheBatchDoesNotFit) {
  // 8B on one H100: (80e9 − 16.06e9) / 536,870,912 = 119.1 -> 119 sequences fit; 200 do not.
  const CliRun r = run_args(With({"cost"}, With(k8b, {"--gpu", "h100", "--batch", "200", "--seq", "4096", "--price-per-hour", "3",
                                       "--json"})));
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(r.json()["warnings"].size(), 1u);
  EXPECT_NE(r.json()["warnings"][0].get<std::string>().find("only 119 sequences fit"), std::string::npos);
}

TEST(MfuCommandTest, InferenceAndTraining) {
  CliRun r = run_args({"mfu", "--params", "7B", "--tokens-per-s", "3000", "--gpu", "a100", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  // 3000 · 2 · 7e9 / 312e12 = 0.134615...
  EXPECT_NEAR(r.json()["mfu"].get<double>(), 3000 * 2 * 7e9 / 312e12, 1e-15);
  r = run_args({"mfu", "--params", "7B", "--tokens-per-s", "3000", "--gpu", "a100", "--train", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  // 3000 · 6 · 7e9 / 312e12 = 0.403846...
  EXPECT_NEAR(r.json()["mfu"].get<double>(), 3000 * 6 * 7e9 / 312e12, 1e-15);
  // Eight GPUs: peak 8 · 312e12, so an eighth of it.
  r = run_args({"mfu", "--params", "7B", "--tokens-per-s", "3000", "--gpu", "a100", "--gpus", "8", "--json"});
  EXPECT_NEAR(r.json()["mfu"].get<double>(), 3000 * 2 * 7e9 / (8 * 312e12), 1e-15);
}

TEST(MfuCommandTest, ImpossibleMfuIsFlagged) {
  // 7B at 1e6 tokens/s on one A100: 1e6 · 1.4e10 / 3.12e14 = 44.9 > 1, an MFU of 4,490 %: impossible, so
  // bad input naming the rate, with the most the GPU can do (3.12e14 / 1.4e10 = 22,285.7 tokens/s).
  const CliRun r = run_args({"mfu", "--params", "7B", "--tokens-per-s", "1M", "--gpu", "a100", "--json"});
  ASSERT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err.rfind("modelcalc: error: --tokens-per-s: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("at most 22,285 tokens/s"), std::string::npos) << r.err;
}

TEST(TradeoffCommandTest, WinnerFlipsWithTheWeights) {
  const std::string path = WriteFile("lab_candidates.json", kCandidates);
  // See tradeoff_test.cc: quality=0.8,cost=0.2 -> big 0.85 vs small 0.7333, quality decides.
  CliRun r = run_args({"tradeoff", path, "--weights", "quality=0.8,cost=0.2", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.json()["winner"], "big");
  EXPECT_EQ(r.json()["deciding_dial"], "quality");
  EXPECT_NEAR(r.json()["scores"]["big"].get<double>(), 0.85, 1e-12);
  // quality=0.4,latency=0.3,cost=0.3 -> big 0.625 vs small 0.8667, cost decides.
  r = run_args({"tradeoff", path, "--weights", "quality=0.4,latency=0.3,cost=0.3", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.json()["winner"], "small");
  EXPECT_EQ(r.json()["deciding_dial"], "cost");
  EXPECT_NEAR(r.json()["scores"]["big"].get<double>(), 0.625, 1e-12);
  EXPECT_NEAR(r.json()["scores"]["small"].get<double>(), 0.4 * 2 / 3 + 0.6, 1e-12);
  EXPECT_NEAR(r.json()["weights"]["latency"].get<double>(), 0.3, 1e-12);
}

TEST(TradeoffCommandTest, SaysWhenTheWeightsWereNormalized) {
  const std::string path = WriteFile("lab_candidates.json", kCandidates);
  const CliRun r = run_args({"tradeoff", path, "--weights", "quality=2,cost=2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("sum to 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("For the decision record"), std::string::npos) << r.out;
}

TEST(ExampleCommandTest, TheWorkedExampleEndToEnd) {
  const CliRun r = run_args({"example", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  // The lab's KV checks: 2^31 B with MHA, 2^29 B with 8 of 32 KV heads.
  EXPECT_EQ(j["kv"]["8b"]["mha"].get<int64_t>(), 2'147'483'648);
  EXPECT_EQ(j["kv"]["8b"]["gqa"].get<int64_t>(), 536'870'912);
  // 70B: 2 · 80 · 4096 · 8192 · 2 = 10,737,418,240 B MHA; an eighth with 8 of 64: 1,342,177,280 B.
  EXPECT_EQ(j["kv"]["70b"]["mha"].get<int64_t>(), 10'737'418'240);
  EXPECT_EQ(j["kv"]["70b"]["gqa"].get<int64_t>(), 1'342'177'280);
  // Decode at batch 1 in fp16 is 1 FLOP/byte, far under the H100 ridge 989.4 / 3.35 = 295.3.
  EXPECT_DOUBLE_EQ(j["roofline"]["decode_intensity"].get<double>(), 1.0);
  EXPECT_NEAR(j["roofline"]["ridge"].get<double>(), 989.4 / 3.35, 1e-9);
  EXPECT_TRUE(j["roofline"]["memory_bound"].get<bool>());
  // The llama-3.1-8b preset has 8,030,261,248 parameters (transformers' count), so fp16 weights are
  // 16,060,522,496 B; at batch 1 on one H100: 3.35e12 / (16,060,522,496 + 536,870,912) = 201.84 tok/s.
  EXPECT_EQ(j["weights"]["8b"]["fp16"].get<int64_t>(), 16'060'522'496);
  EXPECT_NEAR(j["decode"]["8b"]["batch_1"].get<double>(), 3.35e12 / 16'597'393'408.0, 1e-9);
  // The tradeoff flips between the two workloads, each naming its deciding dial.
  ASSERT_EQ(j["tradeoffs"].size(), 2u);
  EXPECT_NE(j["tradeoffs"][0]["winner"], j["tradeoffs"][1]["winner"]);
  EXPECT_EQ(j["tradeoffs"][0]["deciding_dial"], "quality");
  EXPECT_EQ(j["tradeoffs"][1]["deciding_dial"], "cost");
}

TEST(LabCommandsTest, ExplainWorksForEveryCommand) {
  const std::string path = WriteFile("lab_candidates.json", kCandidates);
  const std::vector<std::vector<std::string>> runs = {
      {"train", "--params", "70B", "--tokens", "2T", "--gpu", "h100", "--explain"},
      {"chinchilla", "--compute", "5.76e23", "--explain"},
      {"cost", "--price-per-hour", "2.5", "--tokens-per-s", "1000", "--explain"},
      With(k8b, {"--gpu", "h100", "--price-per-hour", "3", "--explain"}),
      {"mfu", "--params", "7B", "--tokens-per-s", "3000", "--gpu", "a100", "--explain"},
      {"tradeoff", path, "--weights", "quality=1", "--explain"},
      {"example", "--explain"}};
  for (auto args : runs) {
    if (args[0] == "-L") args.insert(args.begin(), "cost");
    const CliRun r = run_args(args);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
    EXPECT_NE(r.out.find("      = "), std::string::npos) << args[0];  // a formula line
  }
}

TEST(LabCommandsTest, BadInputIsOneLineAndExitTwo) {
  // Negative, zero, unparseable.
  ExpectBadInput({"train", "--params=-70B", "--tokens", "2T"}, "--params");
  ExpectBadInput({"train", "--params", "70B", "--tokens", "0"}, "--tokens");
  ExpectBadInput({"train", "--params", "seventy", "--tokens", "2T"}, "--params");
  ExpectBadInput({"train", "--params", "70B", "--tokens", "2T", "--gpu", "h100", "--gpus", "0"}, "--gpus");
  ExpectBadInput({"train", "--params", "70B", "--tokens", "2T", "--gpu", "h100", "--mfu", "0"}, "--mfu");
  ExpectBadInput({"train", "--params", "70B", "--tokens", "2T", "--gpu", "h100", "--mfu", "40"}, "--mfu");
  ExpectBadInput({"train", "--params", "70B", "--tokens", "2T", "--gpu", "h1000"}, "--gpu");
  ExpectBadInput({"train", "--params", "70B", "--tokens", "2T", "--gpu", "a10g"}, "--gpu");  // no bf16 peak
  ExpectBadInput({"chinchilla"}, "--params");
  ExpectBadInput({"chinchilla", "--params", "70B", "--compute", "1e23"}, "--params");
  ExpectBadInput({"chinchilla", "--compute", "0"}, "--compute");
  ExpectBadInput({"chinchilla", "--compute=-1e23"}, "--compute");
  ExpectBadInput({"cost", "--price-per-hour", "0", "--tokens-per-s", "1000"}, "--price-per-hour");
  ExpectBadInput({"cost", "--price-per-hour=-2", "--tokens-per-s", "1000"}, "--price-per-hour");
  ExpectBadInput({"cost", "--price-per-hour", "2", "--tokens-per-s", "0"}, "--tokens-per-s");
  ExpectBadInput({"cost", "--price-per-hour", "2"}, "--tokens-per-s");
  ExpectBadInput({"cost", "--price-per-hour", "2", "--tokens-per-s", "1000", "--batch", "64"}, "--batch");
  ExpectBadInput(With({"cost"}, With(k8b, {"--price-per-hour", "3", "--tokens-per-s", "10", "--gpu", "h100"})),
                 "--tokens-per-s");
  ExpectBadInput(With({"cost"}, With(k8b, {"--price-per-hour", "3"})), "--gpu");
  ExpectBadInput(With({"cost"}, With(k8b, {"--price-per-hour", "3", "--gpu", "h100", "--dtype", "fp7"})), "--dtype");
  ExpectBadInput(With({"cost"}, With(k8b, {"--price-per-hour", "3", "--gpu", "h100", "--batch", "0"})), "--batch");
  // 70B in fp16 (141 GB) on one 80 GB H100.
  ExpectBadInput({"cost", "-L", "80", "-d", "8192", "--heads", "64", "--kv-heads", "8", "--ffn", "28672", "--glu",
                  "--vocab", "128256", "--gpu", "h100", "--price-per-hour", "3"},
                 "--gpus");
  ExpectBadInput({"mfu", "--params", "7B", "--tokens-per-s", "3000"}, "--gpu");
  ExpectBadInput({"mfu", "--params", "0", "--tokens-per-s", "3000", "--gpu", "a100"}, "--params");
  ExpectBadInput({"mfu", "--params", "7B", "--tokens-per-s", "3000", "--peak", "fast"}, "--peak");
}

TEST(LabCommandsTest, BadTradeoffInputIsOneLineAndExitTwo) {
  const std::string good = WriteFile("lab_candidates.json", kCandidates);
  ExpectBadInput({"tradeoff", good, "--weights", "qualty=1"}, "--weights");
  ExpectBadInput({"tradeoff", good, "--weights", "quality=-1"}, "--weights");
  ExpectBadInput({"tradeoff", good, "--weights", "quality:1"}, "--weights");
  ExpectBadInput({"tradeoff", good, "--weights", "quality=0"}, "--weights");
  ExpectBadInput({"tradeoff", good}, "--weights");
  ExpectBadInput({"tradeoff", "/nonexistent/candidates.json", "--weights", "quality=1"}, "candidates file");
  ExpectBadInput({"tradeoff", WriteFile("lab_not_json.json", "{not json"), "--weights", "quality=1"},
                 "malformed JSON");
  ExpectBadInput({"tradeoff", WriteFile("lab_one.json", R"([{"name": "a"}])"), "--weights", "quality=1"},
                 "exactly two");
  ExpectBadInput({"tradeoff",
                  WriteFile("lab_missing.json", R"([
    {"name": "a", "quality": 1, "latency": 1, "throughput": 1, "cost": 1},
    {"name": "b", "quality": 1, "latency": 1, "throughput": 1, "cost": 1, "memory": 1}])"),
                  "--weights", "quality=1"},
                 "lacks the dial \"memory\"");
  ExpectBadInput({"tradeoff",
                  WriteFile("lab_unknown.json", R"([
    {"name": "a", "quality": 1, "latncy": 1, "throughput": 1, "cost": 1, "memory": 1},
    {"name": "b", "quality": 1, "latency": 1, "throughput": 1, "cost": 1, "memory": 1}])"),
                  "--weights", "quality=1"},
                 "did you mean 'latency'");
  ExpectBadInput({"tradeoff",
                  WriteFile("lab_zero.json", R"([
    {"name": "a", "quality": 1, "latency": 0, "throughput": 1, "cost": 1, "memory": 1},
    {"name": "b", "quality": 1, "latency": 1, "throughput": 1, "cost": 1, "memory": 1}])"),
                  "--weights", "quality=1"},
                 "latency must be a positive number");
  ExpectBadInput({"tradeoff",
                  WriteFile("lab_string.json", R"([
    {"name": "a", "quality": "high", "latency": 1, "throughput": 1, "cost": 1, "memory": 1},
    {"name": "b", "quality": 1, "latency": 1, "throughput": 1, "cost": 1, "memory": 1}])"),
                  "--weights", "quality=1"},
                 "must be a number");
}

}  // namespace
}  // namespace modelcalc
