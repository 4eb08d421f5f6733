// kv-budget and paged-kv driven through the CLI (train-memory: cmd_train_memory_test.cc): JSON numbers
// derived by hand, and bad inputs that must exit 2 with one line naming the flag.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace modelcalc {
namespace {

using Args = std::vector<std::string>;

// Llama-3-8B-like shape (see capacity_test.cc for the hand counts).
Args Llama3_8B(Args extra) {
  Args a = {"-L", "32", "-d", "4096", "--heads", "32", "--kv-heads", "8", "--ffn", "14336", "--glu",
            "--vocab", "128256"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}


Args cmd(const std::string& name, Args rest) {
  rest.insert(rest.begin(), name);
  return rest;
}

// Runs args expecting a bad-input exit: status 2, nothing on stdout, one stderr line naming `flag`.
void ExpectBadInput(const Args& args, const std::string& flag) {
  const CliRun r = run_args(args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
}

TEST(KvBudgetCli, EightBGqaOnOneH100) {
  const CliRun r = run_args(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--context", "8192", "--json"})));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  // 80e9 · 0.9 − 16,059,990,016 (weights) − 642,777,088 (2048 · (2·14336 + 128256) · 2).
  EXPECT_EQ(j["budget_bytes"], 55'297'232'896);
  EXPECT_EQ(j["kv_bytes_per_sequence"], 1'073'741'824);  // 2 · 32 · 1024 · 2 · 8192
  EXPECT_EQ(j["max_sequences"], 51);
  EXPECT_EQ(j["max_sequences_mha"], 12);
  EXPECT_EQ(j["kv_ratio"], 4.0);  // 32 heads / 8 KV heads
  ASSERT_TRUE(j["proposals"].is_array());
  ASSERT_FALSE(j["proposals"].empty());
  EXPECT_NE(j["proposals"][0]["change"].get<std::string>().find("KV cache in fp8"), std::string::npos);
  EXPECT_EQ(j["proposals"][0]["max_sequences"], 102);
  EXPECT_EQ(j["proposals"][0]["factor"], 2.0);
}

TEST(KvBudgetCli, BudgetGivenDirectly) {
  const CliRun r = run_args(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--budget", "40GB", "--json"})));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["budget_bytes"], 40'000'000'000);
  EXPECT_EQ(j["max_sequences"], 37);     // 40e9 / 1,073,741,824 = 37.25
  EXPECT_EQ(j["max_sequences_mha"], 9);  // 40e9 / 4,294,967,296 = 9.31
}

TEST(KvBudgetCli, NothingFitsRanksByGainNotByDoubling) {
  // 1e9 B / 1,073,741,824 B per sequence = 0.93: not one full-context sequence fits.
  const CliRun r = run_args(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--budget", "1GB", "--json"})));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["max_sequences"], 0);
  const auto& ps = j["proposals"];
  ASSERT_GE(ps.size(), 2u);
  for (size_t i = 1; i < ps.size(); ++i) {
    EXPECT_GE(ps[i - 1]["max_sequences"].get<int64_t>(), ps[i]["max_sequences"].get<int64_t>());
  }
  // KV in int4 leaves the budget alone: 1e9 / (1,073,741,824 / 4) = 3.73 -> 3 sequences.
  bool saw_kv_int4 = false;
  for (const auto& p : ps) {
    if (p["change"].get<std::string>().find("KV cache in int4") != std::string::npos) {
      saw_kv_int4 = true;
      EXPECT_EQ(p["max_sequences"], 3);
    }
  }
  EXPECT_TRUE(saw_kv_int4);
  const CliRun text = run_args(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--budget", "1GB"})));
  EXPECT_NE(text.out.find("Not one sequence at the full context fits"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("Smallest change reaching ×2"), std::string::npos);
}

TEST(KvBudgetCli, TextShowsEachStepAndExplainsFormulas) {
  const CliRun text = run_args(cmd("kv-budget", Llama3_8B({"--gpu", "h100"})));
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("Activation/workspace allowance"), std::string::npos);
  EXPECT_NE(text.out.find("Smallest change reaching ×2: KV cache in fp8"), std::string::npos);
  const CliRun ex = run_args(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--explain"})));
  ASSERT_EQ(ex.status, 0) << ex.err;
  EXPECT_NE(ex.out.find("floor(budget / KV)"), std::string::npos);
  EXPECT_NE(ex.out.find("= 51 sequences"), std::string::npos);
}

TEST(KvBudgetCli, BadInputs) {
  ExpectBadInput(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--budget", "100GB"})), "--budget");
  ExpectBadInput(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--reserve=-0.1"})), "--reserve");
  ExpectBadInput(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--reserve", "1"})), "--reserve");
  ExpectBadInput(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--reserve", "1.5"})), "--reserve");
  ExpectBadInput(cmd("kv-budget", Llama3_8B({})), "--gpu");
  ExpectBadInput(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--context", "0"})), "--context");
}

TEST(PagedKvCli, ListOfLengths) {
  const CliRun r = run_args(cmd("paged-kv", {"--lens", "100,2000,517", "--block-size", "16", "--max-len", "4096",
                                             "--kv-bytes-per-token", "131072", "--json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["used"], 2617LL * 131'072);                 // 100 + 2000 + 517 tokens
  EXPECT_EQ(j["contiguous_reserved"], 3LL * 4096 * 131'072);
  EXPECT_EQ(j["paged_allocated"], 2640LL * 131'072);      // 112 + 2000 + 528 tokens
  EXPECT_DOUBLE_EQ(j["contiguous_waste_fraction"].get<double>(), 9671.0 / 12288.0);
  EXPECT_DOUBLE_EQ(j["paged_waste_fraction"].get<double>(), 23.0 / 2640.0);
}

TEST(PagedKvCli, ModelGivesBytesPerToken) {
  // fp8 KV of the 8B GQA model: 2 · 32 · 1024 · 1 = 65,536 B per token.
  const CliRun r = run_args(cmd("paged-kv", Llama3_8B({"--lens", "16,17", "--max-len", "64", "--kv-dtype", "fp8",
                                                       "--json"})));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.json()["kv_bytes_per_token"], 65'536);
  EXPECT_EQ(r.json()["paged_allocated"], 48LL * 65'536);  // 16 + 32 tokens
}

TEST(PagedKvCli, LengthsFile) {
  const std::string path = testing::TempDir() + "/modelcalc_lens.txt";
  {
    std::ofstream f(path);
    f << "100\n\n2000\n517\n";
  }
  const CliRun r = run_args(cmd("paged-kv", {"--lens-file", path, "--max-len", "4096", "--kv-bytes-per-token", "2",
                                             "--json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.json()["used"], 2617 * 2);
  {
    std::ofstream f(path);
    f << "100\n200\nabc\n";
  }
  ExpectBadInput(cmd("paged-kv", {"--lens-file", path, "--max-len", "4096", "--kv-bytes-per-token", "2"}), "line 3");
  std::remove(path.c_str());
  ExpectBadInput(cmd("paged-kv", {"--lens-file", path, "--max-len", "4096", "--kv-bytes-per-token", "2"}),
                 "--lens-file");
}

TEST(PagedKvCli, BadInputs) {
  const Args common = {"--max-len", "4096", "--kv-bytes-per-token", "2"};
  auto with = [&](Args a) {
    a.insert(a.end(), common.begin(), common.end());
    return cmd("paged-kv", a);
  };
  ExpectBadInput(with({"--lens", ""}), "--lens");
  ExpectBadInput(with({"--lens", "100,,5"}), "--lens");
  ExpectBadInput(with({"--lens", "100", "--block-size", "0"}), "--block-size");
  ExpectBadInput(with({"--lens", "5000"}), "--lens");  // longer than --max-len
  ExpectBadInput(cmd("paged-kv", {"--lens", "100", "--max-len", "4096"}), "--kv-bytes-per-token");
}

// paged-kv counts sliding windows: gemma-2-9b has 42 layers, every other one keeps a 4,096-token window;
// one layer's K and V per token = 8 KV heads x (256 + 256) x 2 B = 8,192 B. One sequence of 8,192 tokens
// uses 8,192 B x (21 x 8,192 + 21 x 4,096) = 2,113,929,216 B, not 42 x 8,192 x 8,192 B = 2,818,572,288 B.
TEST(PagedKvCliTest, SlidingWindowsHoldOnlyTheWindow) {
  const CliRun r = run_args({"paged-kv", "--model", "gemma-2-9b", "--lens", "8192", "--block-size", "16", "--max-len",
                             "8192", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.json()["used"], 2'113'929'216);
  EXPECT_EQ(r.json()["paged_allocated"], 2'113'929'216);  // 8,192 and 4,096 are whole blocks of 16
  EXPECT_EQ(r.json()["contiguous_reserved"], 2'113'929'216);
}

}  // namespace
}  // namespace modelcalc
