// Proposals that paste (#31 item 5): the user's command line with the change applied in the user's own
// spellings, and every printed command runs, giving the proposal's own "after".
#include "pasteable.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "modelcalc/app/requests.h"
#include "test_util.h"

namespace modelcalc {
namespace {

using Args = std::vector<std::string>;

// A pasted command back into argv (the quoting pasteable_command writes: '...' with '\'' inside).
Args words(const std::string& command) {
  Args out;
  std::string cur;
  bool quoted = false, any = false;
  for (size_t i = 0; i < command.size(); ++i) {
    const char ch = command[i];
    if (ch == '\'') {
      if (quoted && command.compare(i, 4, "'\\''") == 0) {
        cur += '\'';
        i += 3;
        continue;
      }
      quoted = !quoted;
      any = true;
    } else if (ch == ' ' && !quoted) {
      if (any || !cur.empty()) out.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += ch;
    }
  }
  if (any || !cur.empty()) out.push_back(cur);
  EXPECT_FALSE(out.empty());
  EXPECT_EQ(out.front(), "modelcalc");
  out.erase(out.begin());
  return out;
}

const app::Table& kv_table() { return app::KvBudgetRequest::table(); }

TEST(PasteableTest, ReplacesTheValueUnderTheSpellingTheUserTyped) {
  const Args seq = {"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "8192"};
  EXPECT_EQ(pasteable_command(seq, {{"context", 4096}}, kv_table()),
            "modelcalc kv-budget --model llama-3.1-8b --gpu h100 --seq 4096");
  const Args context = {"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--context", "8192"};
  EXPECT_EQ(pasteable_command(context, {{"context", 4096}}, kv_table()),
            "modelcalc kv-budget --model llama-3.1-8b --gpu h100 --context 4096");
  const Args joined = {"kv-budget", "--model", "llama-3.1-8b", "--gpu=h100", "--seq=8192"};
  EXPECT_EQ(pasteable_command(joined, {{"context", 4096}}, kv_table()),
            "modelcalc kv-budget --model llama-3.1-8b --gpu=h100 --seq=4096");
  // Not given: appended under the field's flag.
  EXPECT_EQ(pasteable_command(seq, {{"kv_dtype", "fp8"}}, kv_table()),
            "modelcalc kv-budget --model llama-3.1-8b --gpu h100 --seq 8192 --kv-dtype fp8");
  // A short flag is the user's spelling too.
  const Args shape = {"kv-budget", "-L", "32", "-d", "4096", "--heads", "32", "--kv-heads", "8", "--ffn", "14336",
                      "--vocab", "128256", "--budget", "40GB"};
  EXPECT_EQ(pasteable_command(shape, {{"kv_heads", 4}}, kv_table()),
            "modelcalc kv-budget -L 32 -d 4096 --heads 32 --kv-heads 4 --ffn 14336 --vocab 128256 --budget 40GB");
}

TEST(PasteableTest, NoCommandWhereNoFlagMakesTheChange) {
  const Args preset = {"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100"};
  // A retrained preset: --kv-heads cannot be combined with --model.
  EXPECT_FALSE(pasteable_command(preset, {{"kv_heads", 4}}, kv_table()).has_value());
  // A latent has no flag.
  EXPECT_FALSE(pasteable_command(preset, {{"kv_lora_rank", 512}, {"qk_rope_head_dim", 64}}, kv_table()).has_value());
  EXPECT_FALSE(pasteable_command({}, {{"context", 4096}}, kv_table()).has_value());
  EXPECT_FALSE(pasteable_command(preset, nlohmann::json::object(), kv_table()).has_value());
}

TEST(PasteableTest, ASplitOfOnesIsNotSpelledOutAndOddWordsAreQuoted) {
  const Args a = {"kv-budget", "--config", "/tmp/my model/config.json", "--gpu", "h100", "--gpus", "4"};
  EXPECT_EQ(pasteable_command(a, {{"gpus", 8}, {"tp", 8}, {"pp", 1}, {"ep", 1}, {"dp", 1}}, kv_table()),
            "modelcalc kv-budget --config '/tmp/my model/config.json' --gpu h100 --gpus 8 --tp 8");
  // A pp the user gave is replaced even at 1.
  const Args pp = {"kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "4", "--pp", "2"};
  EXPECT_EQ(pasteable_command(pp, {{"gpus", 8}, {"tp", 8}, {"pp", 1}}, kv_table()),
            "modelcalc kv-budget --model llama-3.1-70b --gpu h100 --gpus 8 --pp 1 --tp 8");
  EXPECT_EQ(words("modelcalc a 'b c' 'it'\\''s'"), (Args{"a", "b c", "it's"}));
}

// Every command kv-budget prints runs and holds the proposal's after: the engine's proposals (with a GPU)
// and drill 2's under a budget, in text and JSON alike.
TEST(PasteableTest, EveryKvBudgetCommandRunsAndGivesItsAfter) {
  const std::vector<Args> bases = {
      {"kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "4", "--seq", "8192", "--json"},
      {"kv-budget", "-L", "32", "-d", "4096", "--heads", "32", "--kv-heads", "8", "--ffn", "14336", "--glu",
       "--vocab", "128256", "--context", "8192", "--budget", "40GB", "--json"},
  };
  int ran = 0;
  for (const Args& base : bases) {
    const CliRun r = run_args(base);
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = r.json();
    for (const auto& p : j["proposals"]) {
      ASSERT_TRUE(p.contains("command")) << p.dump();
      if (p["command"].is_null()) {
        // Only a change no flag makes: a latent, a window, or new KV heads for a named model.
        EXPECT_TRUE(p["change"].contains("kv_lora_rank") || p["change"].contains("sliding_window") ||
                    (p["change"].contains("kv_heads") && show(base).find("--model") != std::string::npos))
            << p.dump();
        continue;
      }
      const CliRun again = run_args(words(p["command"].get<std::string>()));
      ASSERT_EQ(again.status, 0) << p["command"] << again.err;
      const nlohmann::json k = again.json();
      const int64_t held = k.contains("memory_per_gpu") ? k["memory_per_gpu"]["max_sequences"].get<int64_t>()
                                                        : k["max_sequences"].get<int64_t>();
      EXPECT_EQ(held, p["max_sequences"].get<int64_t>()) << p["command"];
      ++ran;
    }
    Args text = base;
    text.pop_back();  // without --json: the same commands, listed
    const CliRun t = run_args(text);
    ASSERT_EQ(t.status, 0) << t.err;
    EXPECT_NE(t.out.find("Each change as a command (your command line, changed)"), std::string::npos);
  }
  EXPECT_GE(ran, 8);  // 7 of the engine's (not the retrained KV heads), 4 of drill 2's
}

// diagnose's "batch more" fix pastes: llama-3.1-8b at 128K on one H100 from batch 2.
TEST(PasteableTest, DiagnoseFixesPaste) {
  const Args base = {"diagnose", "--model", "llama-3.1-8b", "--gpu", "h100", "--context", "131072", "--batch", "2",
                     "--bw-util", "0.8", "--phase", "decode", "--json"};
  const CliRun r = run_args(base);
  ASSERT_EQ(r.status, 0) << r.err;
  int pasted = 0;
  const nlohmann::json j = r.json();
  for (const auto& f : j["fixes"]) {
    if (!f["change"].is_object()) continue;
    ASSERT_TRUE(f["command"].is_string()) << f.dump();
    const Args again = words(f["command"].get<std::string>());
    if (f["change"].contains("batch")) {  // the user's --batch 2 replaced, not a second --batch appended
      EXPECT_NE(show(again).find("--batch " + std::to_string(f["change"]["batch"].get<int64_t>())), std::string::npos);
      EXPECT_EQ(show(again).find("--batch 2"), std::string::npos);
    }
    EXPECT_EQ(run_args(again).status, 0) << f["command"];
    ++pasted;
  }
  EXPECT_GE(pasted, 4);  // int8 and int4 weights, fp8 KV, a larger batch
}

// plan's misses: a change a flag of plan makes (fp8 weights) pastes onto the plan command, and the pasted
// plan runs (exit 0, or 1 when still nothing meets); a split plan searches itself has no command.
TEST(PasteableTest, PlanMissesPasteWhereAFlagOfPlanMakesTheChange) {
  const Args base = {"plan", "--gpu", "h100", "--isl", "8192", "--osl", "1024", "--dtype", "bf16", "--kv-dtype",
                     "bf16", "--model", "llama-3.1-70b", "--max-gpus", "1", "--json"};
  const CliRun r = run_args(base);
  ASSERT_EQ(r.status, 1) << r.err;  // 141 GB of bf16 weights on one H100: nothing meets
  const nlohmann::json j = r.json();
  int pasted = 0, split = 0;
  for (const auto& m : j["misses"]) {
    for (const auto& ch : m["changes"]) {
      if (!ch["change"].is_object()) continue;
      if (ch["change"].contains("tp")) {  // plan decides the split: no flag of plan makes it
        EXPECT_TRUE(ch["command"].is_null()) << ch.dump();
        ++split;
        continue;
      }
      ASSERT_TRUE(ch["command"].is_string()) << ch.dump();
      const Args again = words(ch["command"].get<std::string>());
      EXPECT_EQ(show(again).find("--dtype bf16"), std::string::npos) << show(again);  // replaced, not appended
      const CliRun p = run_args(again);
      EXPECT_TRUE(p.status == 0 || p.status == 1) << ch["command"] << p.err;
      ++pasted;
    }
  }
  EXPECT_GE(pasted, 1);
  EXPECT_GE(split, 1);
  Args text = base;
  text.pop_back();
  EXPECT_NE(run_args(text).out.find("miss 1 change 2: modelcalc plan"), std::string::npos);
}

}  // namespace
}  // namespace modelcalc
