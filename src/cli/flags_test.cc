// The declare-once flag helper and the shared deployment flag group, driven
// through run_cli: empty values, aliases, ranges and list ranges.
#include "flags.h"

#include <gtest/gtest.h>

#include "inputs.h"
#include "test_util.h"

namespace modelcalc {
namespace {

void ExpectBadInput(const std::vector<std::string>& args, const std::string& flag) {
  const CliRun r = run_args(args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("error: " + flag + ":"), std::string::npos) << r.err;
}

const std::vector<std::string> k8b = {"--model", "llama-3.1-8b", "--gpu", "h100"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(FlagsTest, AnEmptyValueIsAnErrorNamingTheFlagInEveryCommand) {
  ExpectBadInput(with({"size"}, {"--model", "llama-3.1-8b", "--seq", ""}), "--seq");
  ExpectBadInput(with({"size"}, {"--model", ""}), "--model");
  ExpectBadInput(with({"size"}, {"-L", ""}), "--layers");
  ExpectBadInput(with({"kv-budget"}, {"--model", "llama-3.1-8b", "--gpu", "h100", "--reserve="}), "--reserve");
  ExpectBadInput(with({"sweep"}, {"--model", "llama-3.1-8b", "--gpu", "h100", "--batch", ""}), "--batch");
  ExpectBadInput({"train", "--params", "", "--tokens", "2T"}, "--params");
  ExpectBadInput({"tradeoff", "", "--weights", "quality=1"}, "candidates");
  ExpectBadInput({"diagnose", "--gpu", "h100", "--kernel-us", ""}, "--kernel-us");
}

TEST(FlagsTest, ContextIsTheSameFlagAsSeq) {
  const CliRun seq = run_args(with(with({"size"}, k8b), {"--seq", "4096", "--json"}));
  const CliRun context = run_args(with(with({"size"}, k8b), {"--context", "4096", "--json"}));
  ASSERT_EQ(seq.status, 0) << seq.err;
  EXPECT_EQ(seq.out, context.out);
  const CliRun kv_seq = run_args(with(with({"kv-budget"}, k8b), {"--seq", "4096", "--json"}));
  const CliRun kv_context = run_args(with(with({"kv-budget"}, k8b), {"--context", "4096", "--json"}));
  ASSERT_EQ(kv_seq.status, 0) << kv_seq.err;
  EXPECT_EQ(without_commands(kv_seq.json()), without_commands(kv_context.json()));
  // 2 (K, V) x 32 layers x 1,024 (8 KV heads x 128) x 2 B = 131,072 B per token, x 4,096 tokens.
  EXPECT_EQ(kv_seq.json()["kv_bytes_per_sequence"], 131'072LL * 4096) << kv_seq.out;
  // One flag, two spellings: giving both is an error naming the second.
  ExpectBadInput(with(with({"size"}, k8b), {"--seq", "4096", "--context", "4096"}), "--context");
}

TEST(FlagsTest, ReserveTakesAPercentageOrAFraction) {
  const CliRun pct = run_args(with(with({"kv-budget"}, k8b), {"--reserve", "20%", "--json"}));
  const CliRun frac = run_args(with(with({"kv-budget"}, k8b), {"--reserve", "0.2", "--json"}));
  const CliRun other = run_args(with(with({"kv-budget"}, k8b), {"--reserve", "0.1", "--json"}));
  ASSERT_EQ(pct.status, 0) << pct.err;
  EXPECT_EQ(without_commands(pct.json()), without_commands(frac.json()));
  EXPECT_NE(without_commands(pct.json()), without_commands(other.json()));  // the flag has an effect
  ExpectBadInput(with(with({"kv-budget"}, k8b), {"--reserve", "100%"}), "--reserve");
}

TEST(FlagsTest, DeploymentCountsAreRangeChecked) {
  ExpectBadInput(with(with({"size"}, k8b), {"--gpus", "1048577"}), "--gpus");  // 2^20 + 1
  ExpectBadInput(with(with({"size"}, k8b), {"--gpus", "0"}), "--gpus");
  ExpectBadInput(with(with({"size"}, k8b), {"--batch", "1073741825"}), "--batch");  // 2^30 + 1
  ExpectBadInput(with(with({"size"}, k8b), {"--seq", "2B"}), "--seq");
  ExpectBadInput(with(with({"size"}, k8b), {"--dtype", "fp7"}), "--dtype");
  ExpectBadInput({"train-memory", "--params", "7B", "--gpu", "h100", "--tp", "-1"}, "--tp");
}

TEST(FlagsTest, OnlyTheDeclaredDeploymentFlagsAreAccepted) {
  // paged-kv takes no --tp (it answers no split question): CLI11 refuses it.
  const CliRun r = run_args({"paged-kv", "--model", "llama-3.1-8b", "--lens", "100", "--tp", "2"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--tp"), std::string::npos) << r.err;
}

TEST(CountListTest, ItemsAndRanges) {
  // A:B steps by one; A:B:S by S; A:B:xF multiplies (1k = 1,000, decimal).
  EXPECT_EQ(parse_count_list("1,8,64", "--batch", 1000).value(), (std::vector<int64_t>{1, 8, 64}));
  EXPECT_EQ(parse_count_list("1:4", "--batch", 1000).value(), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(parse_count_list("2:9:3", "--batch", 1000).value(), (std::vector<int64_t>{2, 5, 8}));
  EXPECT_EQ(parse_count_list("1k:8k:x2", "--seq", 1'000'000).value(),
            (std::vector<int64_t>{1000, 2000, 4000, 8000}));
  EXPECT_EQ(parse_count_list("1:3,16,1:2", "--batch", 1000).value(), (std::vector<int64_t>{1, 2, 3, 16, 1, 2}));
  EXPECT_EQ(parse_count_list("5:5", "--batch", 1000).value(), (std::vector<int64_t>{5}));
  EXPECT_EQ(parse_count_list("1:1024", "--batch", 1 << 20).value().size(), 1024u);
}

TEST(CountListTest, BadListsNameTheFlag) {
  for (const char* bad : {"", ",", "1,,8", "8,", "8:1", "1:8:x1", "1:8:0", "1:", ":8", "1:8:", "0:4", "1:2000",
                          "a:b", "1:8:y2"}) {
    auto r = parse_count_list(bad, "--batch", 1000);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("--batch: ", 0), 0u) << r.status().message();
  }
  // A list never holds more than kMaxListItems values, whatever is typed.
  auto huge = parse_count_list("1:1073741824", "--batch", kMaxBatch);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("1,048,576"), std::string::npos) << huge.status().message();
}

TEST(FlagsTest, SweepRangesMakeTheRows) {
  const CliRun r = run_args(with(with({"sweep"}, k8b), {"--batch", "1:3", "--seq", "1k:4k:x2", "--format", "csv",
                                                        "--fields", "context,batch"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "context,batch\n1000,1\n1000,2\n1000,3\n2000,1\n2000,2\n2000,3\n4000,1\n4000,2\n4000,3\n");
}

TEST(FlagsTest, HelpListsEveryCommandAndEachCommandsFlags) {
  const CliRun top = run_args({"--help"});
  ASSERT_EQ(top.status, 0);
  for (const Command& c : commands()) EXPECT_NE(top.out.find(c.name), std::string::npos) << c.name;
  const CliRun size = run_args({"size", "--help"});
  ASSERT_EQ(size.status, 0);
  EXPECT_NE(size.out.find("--context"), std::string::npos);
  EXPECT_NE(size.out.find("(default: a quantized checkpoint's own (quantization_config), else bf16)"), std::string::npos);
}

}  // namespace
}  // namespace modelcalc
