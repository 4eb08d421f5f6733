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
  // The proposals are the engine on the changed setup, the ceiling: the H100's driver-exposed
  // 81,559 MiB = 85,520,809,984 B less the weights, nothing else kept back: 69,460,819,968 B free holds
  // 64 sequences today, and fp8 KV 69,460,819,968 / 536,870,912 = 129.4 -> 129 >= 2 x 64.
  const auto& p = j["proposals"][0];
  EXPECT_EQ(p["kind"], "kv_dtype");
  EXPECT_EQ(p["change"], (nlohmann::json{{"kv_dtype", "fp8"}}));
  EXPECT_EQ(p["before_max_sequences"], 64);
  EXPECT_EQ(p["max_sequences"], 129);
  EXPECT_EQ(p["after"]["memory_per_gpu"]["max_sequences"], 129);
  EXPECT_EQ(p["after"]["memory_per_gpu"]["kv_per_sequence"], 536'870'912);
  EXPECT_DOUBLE_EQ(p["factor"].get<double>(), 129.0 / 64.0);
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
  // An H100 with --capacity 17GB (the capacity given is all there is): the ceiling's 17e9 - 16,059,990,016
  // (bf16 weights) = 940,009,984 B is short of one 1,073,741,824 B sequence, so none fits. Each proposal
  // is the engine on the changed setup:
  //   int4 weights: blocks 6,979,321,856 params x 0.5 B = 3,489,660,928 + one 16-bit scale per 128,
  //     109,051,904, + 16-bit embedding and lm_head 2,101,346,304 = 5,700,059,136 B;
  //     (17e9 - 5,700,059,136) / 1,073,741,824 = 10.52 -> 10;
  //   tp 2: each GPU 8,029,995,008 B of weights and 536,870,912 B of KV per sequence:
  //     (17e9 - 8,029,995,008) / 536,870,912 = 16.7 -> 16.
  const CliRun r = run_args(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--capacity", "17GB", "--json"})));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["memory_per_gpu"]["max_sequences"], 0);
  const auto& ps = j["proposals"];
  ASSERT_GE(ps.size(), 2u);
  for (size_t i = 1; i < ps.size(); ++i) {
    EXPECT_GE(ps[i - 1]["max_sequences"].get<int64_t>(), ps[i]["max_sequences"].get<int64_t>());
  }
  bool saw_int4 = false, saw_tp2 = false;
  for (const auto& p : ps) {
    if (p["change"] == nlohmann::json{{"dtype", "int4"}}) {
      saw_int4 = true;
      EXPECT_EQ(p["max_sequences"], 10);
    }
    if (p["kind"] == "more_gpus") {
      saw_tp2 = true;
      EXPECT_EQ(p["change"]["tp"], 2);
      EXPECT_EQ(p["max_sequences"], 16);
    }
  }
  EXPECT_TRUE(saw_int4);
  EXPECT_TRUE(saw_tp2);
  EXPECT_EQ(ps[0]["kind"], "more_gpus");  // the largest gain first
  const CliRun text = run_args(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--capacity", "17GB"})));
  EXPECT_NE(text.out.find("Not one sequence at the full context fits"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("Smallest change reaching ×2"), std::string::npos);
  // With the budget given, drill 2's changes under it, ranked by gain when nothing fits (1e9 < one
  // 1,073,741,824 B sequence); the latent's 301,989,888 B a sequence holds floor(1e9 / 301,989,888) = 3.
  const CliRun b = run_args(cmd("kv-budget", Llama3_8B({"--gpu", "h100", "--budget", "1GB", "--json"})));
  ASSERT_EQ(b.status, 0) << b.err;
  const auto bj = b.json();
  const auto& bp = bj["proposals"];
  ASSERT_FALSE(bp.empty());
  EXPECT_EQ(bp[0]["kind"], "latent");  // the largest gain first
  EXPECT_EQ(bp[0]["max_sequences"], 3);
  for (const auto& p : bp) {
    // The longest context that makes room for one: floor(1e9 / 131,072) = 7629.
    if (p["kind"] == "shorter_context") {
      EXPECT_EQ(p["change"]["context"], 7629);
    }
  }
}

// Drill 2 as the seed asks it: an HBM budget, MHA vs GQA, and a change that doubles the concurrency,
// with no GPU. Every pasteable change run as kv-budget with that flag gives the proposal's after.
TEST(KvBudgetCli, DrillTwoUnderABudgetProposesAgain) {
  const Args base = Llama3_8B({"--context", "8192", "--budget", "40GB"});
  const CliRun r = run_args(cmd("kv-budget", base));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("Proposals need a GPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Smallest change reaching ×2: KV cache in fp8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(needs retraining)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(short of ×2)"), std::string::npos) << r.out;  // the window: 64 of 74
  Args json_args = base;
  json_args.push_back("--json");
  const auto j = run_args(cmd("kv-budget", json_args)).json();
  EXPECT_EQ(j["max_sequences"], 37);  // floor(40e9 / 1,073,741,824)
  const auto& ps = j["proposals"];
  ASSERT_EQ(ps.size(), 6u);  // fp8 and int8 KV, context, 4 KV heads, latent, window
  EXPECT_EQ(ps[0]["change"], (nlohmann::json{{"kv_dtype", "fp8"}}));
  EXPECT_EQ(ps[0]["after"]["max_sequences"], 74);  // floor(40e9 / 536,870,912)
  int ran = 0;
  for (const auto& p : ps) {
    EXPECT_EQ(p["before_max_sequences"], 37);
    EXPECT_EQ(p["reaches_2x"], p["max_sequences"].get<int64_t>() >= 74);
    Args changed = base;
    auto set = [&](const std::string& flag, const std::string& value) {
      for (size_t i = 0; i + 1 < changed.size(); ++i) {
        if (changed[i] == flag) {
          changed[i + 1] = value;
          return;
        }
      }
      changed.insert(changed.end(), {flag, value});
    };
    const auto& c = p["change"];
    if (c.contains("kv_dtype")) set("--kv-dtype", c["kv_dtype"].get<std::string>());
    else if (c.contains("kv_heads")) set("--kv-heads", std::to_string(c["kv_heads"].get<int64_t>()));
    else if (p["kind"] == "shorter_context") set("--context", std::to_string(c["context"].get<int64_t>()));
    else continue;  // the latent and the window have no flag: capacity_test.cc derives them
    changed.push_back("--json");
    const CliRun again = run_args(cmd("kv-budget", changed));
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_EQ(again.json()["max_sequences"], p["after"]["max_sequences"]) << c.dump();
    ++ran;
  }
  EXPECT_EQ(ran, 4);
}

// The answer leads (#31 item 1): the engine's admitted sequences, the ceiling's beside them, before the drill's
// pooled teaching view; the figures are the JSON's memory_per_gpu.predicted.max_sequences and max_sequences.
TEST(KvBudgetCli, TheEnginesAnswerLeadsTheTeachingViewFollows) {
  const Args base = Llama3_8B({"--gpu", "h100", "--context", "8192"});
  const CliRun text = run_args(cmd("kv-budget", base));
  ASSERT_EQ(text.status, 0) << text.err;
  Args json_args = base;
  json_args.push_back("--json");
  const nlohmann::json j = run_args(cmd("kv-budget", json_args)).json();
  const size_t answer = text.out.find("Answer (the deployment engine: tp 1 × pp 1 × dp 1)");
  ASSERT_NE(answer, std::string::npos) << text.out;
  EXPECT_LT(answer, text.out.find("Teaching view"));
  const int64_t predicted = j["memory_per_gpu"]["predicted"]["max_sequences"].get<int64_t>();
  const int64_t ceiling = j["memory_per_gpu"]["max_sequences"].get<int64_t>();
  EXPECT_LE(predicted, ceiling);  // the engine keeps back what the ceiling does not
  const std::string section = text.out.substr(answer, text.out.find("Teaching view") - answer);
  EXPECT_NE(section.find("Sequences the engine admits, predicted"), std::string::npos) << section;
  EXPECT_NE(section.find(std::to_string(predicted) + " sequences"), std::string::npos) << section;
  EXPECT_NE(section.find(std::to_string(ceiling) + " sequences"), std::string::npos) << section;
  // Where no profile runs (a TPU) the answer says there is no prediction and gives the ceiling alone.
  const CliRun tpu = run_args(cmd("kv-budget", Llama3_8B({"--gpu", "tpu-v5e", "--context", "8192"})));
  ASSERT_EQ(tpu.status, 0) << tpu.err;
  EXPECT_NE(tpu.out.find("Prediction"), std::string::npos);
  EXPECT_EQ(tpu.out.find("admits, predicted"), std::string::npos) << tpu.out;
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
