// Every "what if" is the engine on the varied scenario: for every proposal
// diagnose and kv-budget make on the cross-command fixtures (dense, MoE, MLA,
// sliding window; 1, 2 and 8 GPUs; each weight dtype), its `after` equals what
// `size` reports when run directly with the base flags and the change's flags.
// No expected number is typed here: the expectation is the other command.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "test_util.h"

namespace modelcalc {
namespace {

using Flags = std::map<std::string, std::string>;  // "--flag" -> value, one each

std::vector<std::string> to_args(const std::string& command, const Flags& f, const std::vector<std::string>& extra) {
  std::vector<std::string> a = {command};
  for (const auto& [k, v] : f) {
    a.push_back(k);
    a.push_back(v);
  }
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// The base flags with the change's flags applied: {"dtype": "int8"} -> --dtype int8.
Flags with_change(Flags f, const nlohmann::json& change) {
  for (auto it = change.begin(); it != change.end(); ++it) {
    std::string flag = "--" + it.key();
    for (char& c : flag) c = c == '_' ? '-' : c;
    if (flag == "--context") flag = "--seq";
    f[flag] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
  }
  return f;
}

struct Checked {
  int compared = 0;
  int speculative = 0;  // of them, a drafter's change
};

// Runs `size --json` for the base flags varied by each proposal's change and
// compares the engine's objects with the proposal's after.
void expect_after_is_size(const std::string& where, const Flags& size_base, const nlohmann::json& proposals,
                          Checked* checked) {
  for (const auto& p : proposals) {
    if (!p.contains("change") || p["change"].is_null()) continue;  // no change of the setup (fusion, graphs, ...)
    ASSERT_TRUE(p["after"].is_object()) << where;
    if (p["change"].contains("kv_heads") && size_base.count("--model")) continue;  // a retrained preset has no flags
    const std::vector<std::string> args = to_args("size", with_change(size_base, p["change"]), {"--json"});
    const CliRun r = run_args(args);
    ASSERT_EQ(r.status, 0) << where << ": " << show(args) << "\n" << r.err;
    const nlohmann::json size = r.json();
    EXPECT_EQ(p["after"]["decode_step"], size["decode_step"]) << where << ": " << show(args);
    EXPECT_EQ(p["after"]["memory_per_gpu"], size["memory_per_gpu"]) << where << ": " << show(args);
    ++checked->compared;
    checked->speculative += p["change"].contains("spec_method") ? 1 : 0;
  }
}

struct Fixture {
  const char* what;
  Flags model;  // --model or shape flags
};

const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> k = {
      {"dense GQA", {{"--model", "llama-3.1-8b"}}},
      {"MoE", {{"--model", "mixtral-8x7b-v0.1"}}},
      {"MLA", {{"--model", "deepseek-v2-lite"}}},
      {"sliding window", {{"--model", "gemma-2-9b"}}},
      {"MLA with an MTP module (the speculative fix)", {{"--model", "deepseek-v3"}}},
      {"hand-typed", {{"-L", "32"}, {"-d", "4096"}, {"--heads", "32"}, {"--kv-heads", "8"}, {"--ffn", "14336"},
                      {"--vocab", "128256"}}},
  };
  return k;
}

Flags base_flags(const Fixture& fx, const std::string& gpu, int gpus, const std::string& dtype) {
  Flags f = fx.model;
  f["--gpu"] = gpu;
  f["--gpus"] = std::to_string(gpus);
  f["--dtype"] = dtype;
  f["--seq"] = "4096";
  return f;
}

TEST(WhatIfConsistency, DiagnoseFixesAreWhatSizeSaysForTheirFlags) {
  Checked checked;
  for (const Fixture& fx : fixtures()) {
    for (int gpus : {1, 2, 8}) {
      for (const char* dtype : {"bf16", "fp8", "int8"}) {
        Flags base = base_flags(fx, "h100", gpus, dtype);
        // Bandwidth-bound near the ceiling (quantize, KV, batch), compute-bound at a large batch (fp8, scale
        // out, the rejected int4), and a batch HBM cannot hold (shrink the KV, cap the batch).
        for (const std::vector<std::string>& evidence :
             std::vector<std::vector<std::string>>{{"--batch", "1", "--tokens-per-s", "20", "--bw-util", "70%"},
                                                   {"--batch", "64", "--tokens-per-s", "5", "--flop-util", "70%"},
                                                   {"--batch", "100000", "--tokens-per-s", "1"}}) {
          Flags dx = base;
          for (size_t i = 0; i + 1 < evidence.size(); i += 2) dx[evidence[i]] = evidence[i + 1];
          const std::vector<std::string> args = to_args("diagnose", dx, {"--phase", "decode", "--json"});
          const CliRun r = run_args(args);
          if (r.status == 2) continue;  // a split the model's heads refuse (e.g. 8 GPUs, too few KV heads)
          ASSERT_EQ(r.status, 0) << show(args) << "\n" << r.err;
          const nlohmann::json j = r.json();
          Flags size_base = base;
          size_base["--batch"] = dx["--batch"];
          const std::string where = std::string(fx.what) + " " + show(args);
          // The baseline itself: diagnose's engine view is size's.
          const CliRun s = run_args(to_args("size", size_base, {"--json"}));
          ASSERT_EQ(s.status, 0) << where << "\n" << s.err;
          EXPECT_EQ(j["decode_step"], s.json()["decode_step"]) << where;
          expect_after_is_size(where, size_base, j["fixes"], &checked);
          if (j["reject"].is_object()) {
            expect_after_is_size(where, size_base, nlohmann::json::array({j["reject"]}), &checked);
          }
        }
      }
    }
  }
  EXPECT_GE(checked.compared, 100);  // every fixture, GPU count and dtype proposed something
  EXPECT_GT(checked.speculative, 0);  // DeepSeek-V3's MTP drafter priced by the engine at least once
}

TEST(WhatIfConsistency, KvBudgetProposalsAreWhatSizeSaysForTheirFlags) {
  Checked checked;
  for (const Fixture& fx : fixtures()) {
    for (int gpus : {1, 2, 8}) {
      for (const char* dtype : {"bf16", "fp8", "int4"}) {
        const Flags base = base_flags(fx, "h100", gpus, dtype);
        const std::vector<std::string> args = to_args("kv-budget", base, {"--json"});
        const CliRun r = run_args(args);
        if (r.status == 2) continue;  // a split the model's heads refuse
        ASSERT_EQ(r.status, 0) << show(args) << "\n" << r.err;
        const nlohmann::json j = r.json();
        EXPECT_FALSE(j["proposals"].empty()) << show(args);
        for (const auto& p : j["proposals"]) {
          EXPECT_EQ(p["max_sequences"], p["after"]["memory_per_gpu"]["max_sequences"]) << show(args);
          EXPECT_EQ(p["before_max_sequences"], j["memory_per_gpu"]["max_sequences"]) << show(args);
        }
        expect_after_is_size(std::string(fx.what) + " " + show(args), base, j["proposals"], &checked);
      }
    }
  }
  EXPECT_GE(checked.compared, 100);
}

// The examples, as the cross-command expectations they are.
TEST(WhatIfConsistency, MixtralInt8OnTwoH100ReadsWhatSizeSays) {
  const CliRun dx = run_args({"diagnose", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--gpus", "2", "--batch",
                              "1", "--seq", "4096", "--tokens-per-s", "150", "--bw-util", "60%", "--json"});
  ASSERT_EQ(dx.status, 0) << dx.err;
  const CliRun size = run_args({"size", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--gpus", "2", "--batch", "1",
                                "--seq", "4096", "--dtype", "int8", "--json"});
  ASSERT_EQ(size.status, 0) << size.err;
  const double int8 = size.json()["decode_step"]["tokens_per_s_per_sequence"].get<double>();
  // ~414 tokens/s: the top-2 experts at 1 B per weight, not every expert (the old 142).
  EXPECT_GT(int8, 400);
  EXPECT_LT(int8, 430);
  const nlohmann::json j = dx.json();
  bool found = false;
  for (const auto& f : j["fixes"]) {
    if (f["change"] == nlohmann::json{{"dtype", "int8"}}) {
      found = true;
      EXPECT_EQ(f["after"]["decode_step"]["tokens_per_s_per_sequence"].get<double>(), int8);
      EXPECT_GT(f["speedup"].get<double>(), 1.5);  // quantizing speeds decode up
    }
  }
  EXPECT_TRUE(found) << j["fixes"].dump();
}

TEST(WhatIfConsistency, DeepSeekV3OnEightH200Int4IsAboveFp8) {
  // fp8 weights now; int4 reads half the bytes, so its ceiling is higher (it was 114 below fp8's 503).
  const CliRun dx = run_args({"diagnose", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--dtype", "fp8",
                              "--seq", "4096", "--tokens-per-s", "300", "--json"});
  ASSERT_EQ(dx.status, 0) << dx.err;
  const nlohmann::json j = dx.json();
  double fp8 = j["decode_step"]["tokens_per_s_per_sequence"].get<double>(), int4 = 0;
  for (const auto& e : j["evidence"]) {
    if (e["key"] == "int4_ceiling_aggregate") int4 = e["value"].get<double>();
    // The compute ceiling counts the ~37.6 G active parameters (and attention), not 671 G.
    if (e["key"] == "compute_ceiling_aggregate") {
      EXPECT_GT(e["value"].get<double>(), 8 * 989.4e12 / (2 * 671e9));
    }
  }
  EXPECT_GT(int4, fp8);
}

TEST(WhatIfConsistency, BatchMoreNeverExceedsWhatHbmHoldsAndSlowsEachSequence) {
  const CliRun dx = run_args({"diagnose", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--gpus", "2", "--batch",
                              "1", "--seq", "4096", "--tokens-per-s", "150", "--bw-util", "60%", "--json"});
  ASSERT_EQ(dx.status, 0) << dx.err;
  const nlohmann::json j = dx.json();
  bool found = false;
  for (const auto& f : j["fixes"]) {
    if (!f["change"].is_object() || !f["change"].contains("batch")) continue;
    found = true;
    const auto& a = f["after"];
    EXPECT_TRUE(f["change"]["batch"].is_number_integer()) << f["change"];  // a whole batch, never 147.67
    EXPECT_LE(a["decode_step"]["batch"].get<int64_t>(), a["memory_per_gpu"]["max_sequences"].get<int64_t>());
    EXPECT_LT(a["decode_step"]["tokens_per_s_per_sequence"].get<double>(),
              j["decode_step"]["tokens_per_s_per_sequence"].get<double>());
    EXPECT_GT(a["decode_step"]["tokens_per_s_aggregate"].get<double>(),
              j["decode_step"]["tokens_per_s_aggregate"].get<double>());
  }
  EXPECT_TRUE(found);
  // With HBM full (the batch is all that fits: size says how many at 128K), no larger batch is proposed;
  // one more sequence than fits is capacity-bound, and its fixes (fp8 KV, cap the batch) never exceed HBM.
  const CliRun s = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "131072", "--json"});
  ASSERT_EQ(s.status, 0) << s.err;
  const int64_t fit = s.json()["memory_per_gpu"]["max_sequences"].get<int64_t>();
  ASSERT_GT(fit, 0);
  for (const int64_t batch : {fit, fit + 1}) {
    const CliRun full = run_args({"diagnose", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "131072", "--batch",
                                  std::to_string(batch), "--bw-util", "80%", "--phase", "decode", "--json"});
    ASSERT_EQ(full.status, 0) << full.err;
    const nlohmann::json k = full.json();
    if (batch > fit) {
      EXPECT_EQ(k["regime"], "capacity-bound");
    }
    for (const auto& f : k["fixes"]) {
      if (f["change"].is_object() && f["change"].contains("batch")) {
        EXPECT_LE(f["change"]["batch"].get<int64_t>(), fit);
      }
    }
  }
}

// plan's "what would have to change": a change of the setup carries change and after, the engine on the
// miss's scenario (context isl + osl, prompt isl, the miss's batch and dtypes), which is size's answer.
TEST(WhatIfConsistency, PlanMissesAreWhatSizeSaysForTheirFlags) {
  Checked checked;
  // 70B in bf16 (141 GB) on one H100 cannot hold its weights; a batch of 256 at 8K+1K does not fit 8B.
  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{{"--model", "llama-3.1-70b", "--max-gpus", "1"},
                                             {"--model", "llama-3.1-8b", "--max-gpus", "1", "--batch", "256"}}) {
    std::vector<std::string> args = {"plan", "--gpu", "h100", "--isl", "8192", "--osl", "1024", "--dtype", "bf16",
                                     "--kv-dtype", "bf16", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliRun r = run_args(args);
    ASSERT_EQ(r.status, 1) << show(args) << "\n" << r.err;  // nothing meets: the closest misses
    const nlohmann::json j = r.json();
    ASSERT_FALSE(j["misses"].empty()) << show(args);
    for (const auto& m : j["misses"]) {
      const Flags base = {{"--model", extra[1]},
                          {"--gpu", "h100"},
                          {"--seq", "9216"},
                          {"--prompt", "8192"},
                          {"--dtype", m["weight_dtype"].get<std::string>()},
                          {"--kv-dtype", m["kv_dtype"].get<std::string>()},
                          {"--tp", std::to_string(m["tp"].get<int64_t>())},
                          {"--pp", std::to_string(m["pp"].get<int64_t>())},
                          {"--batch", std::to_string(m["batch"].get<int64_t>())}};
      for (const auto& ch : m["changes"]) EXPECT_TRUE(ch["kind"].is_string()) << ch;
      expect_after_is_size(show(args), base, m["changes"], &checked);
    }
  }
  EXPECT_GE(checked.compared, 2);
}

}  // namespace
}  // namespace modelcalc
