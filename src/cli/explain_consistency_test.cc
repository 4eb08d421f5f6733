// Explain consistency: every --explain line checks out. Each report builder is
// driven through the CLI on the fixtures (tests/fixtures/hf-configs), the
// presets and the evidence cases; every explained number's substitution is
// evaluated (src/report/explain_eval.h: numbers with units, × ÷ + − ^ ² ( ),
// min, max, floor, ceil, sqrt) and must give the value shown, to the shown
// precision. A term that drifted from the analysis (a wrong formula text, a
// term rebuilt differently, a mislabelled unit) fails here with the line that
// shows it. Only a Σ over inputs the line does not list, or a value that is a
// word ("never"), is skipped. (One file: it replaces the former
// explain_consistency_test.cc and explain_interval_test.cc.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "explain_eval.h"
#include "test_util.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR, MODELCALC_BINARY

namespace modelcalc {
namespace {

struct ExplainedLine {
  std::string label, expr, substitution, shown;
};

// render_explain's layout: "  label   [name]", then "      = expr",
// "      = substitution" (when there are terms), "      = value   comment".
std::vector<ExplainedLine> explained_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<ExplainedLine> found;
  const std::string eq = "      = ";
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("  ", 0) != 0 || lines[i].back() != ']' || lines[i].find("   [") == std::string::npos) continue;
    std::vector<std::string> forms;
    size_t j = i + 1;
    for (; j < lines.size() && lines[j].rfind(eq, 0) == 0; ++j) forms.push_back(lines[j].substr(eq.size()));
    if (forms.size() == 3) {
      std::string shown = forms[2];
      if (auto c = shown.find("   "); c != std::string::npos) shown.resize(c);
      found.push_back({lines[i].substr(2, lines[i].find("   [") - 2), forms[0], forms[1], shown});
    }
    i = j - 1;
  }
  return found;
}

// Runs one command with --explain and checks every line that has a substitution.
// Returns how many lines were checked.
// `may_refuse`: a setup the model cannot take (8-way tensor parallel over 71 heads) is
// refused with exit 2, and then there is nothing to check.
int CheckExplain(std::vector<std::string> args, bool may_refuse = false) {
  args.push_back("--explain");
  std::string cmd;
  for (const auto& a : args) cmd += a + " ";
  const CliRun r = run_args(args);
  if (may_refuse && r.status == 2) return 0;
  EXPECT_EQ(r.status, 0) << cmd << r.err;
  int checked = 0;
  for (const ExplainedLine& l : explained_lines(r.out)) {
    auto shown = parse_shown(l.shown);
    if (!shown.ok()) continue;  // a word ("never", "∞") has no digits to check
    // A sum over inputs the line does not list (paged-kv's Σ over --lens) cannot be redone from it.
    if (l.substitution.find("Σ") != std::string::npos) continue;
    auto got = eval_substitution(l.substitution);
    if (!got.ok()) {
      ADD_FAILURE() << cmd << "\n  " << l.label << "\n  = " << l.substitution << "\n  " << got.status().message();
      continue;
    }
    ++checked;
    EXPECT_TRUE(got->overlaps(*shown, 1e-6))
        << cmd << "\n  " << l.label << "\n  = " << l.expr << "\n  = " << l.substitution << "\n  evaluates to ["
        << got->lo << ", " << got->hi << "]\n  but shows " << l.shown << " = [" << shown->lo << ", " << shown->hi
        << "]";
  }
  return checked;
}

std::string Src(const std::string& rel) { return std::string(MODELCALC_SOURCE_DIR) + "/" + rel; }

// Both fixture folders: the reference configs and today's families (hybrid,
// sliding/full, chunked, MLA + DSA, quantized checkpoints).
std::vector<std::string> Fixtures() {
  std::vector<std::string> paths;
  for (const char* dir : {"tests/fixtures/hf-configs", "tests/fixtures/hf-configs-2026"}) {
    for (const auto& e : std::filesystem::directory_iterator(Src(dir))) {
      if (e.path().extension() == ".json") paths.push_back(e.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(ExplainConsistencyTest, SizeOnEveryFixture) {
  int checked = 0;
  for (const std::string& f : Fixtures()) {
    checked += CheckExplain({"size", "--config", f, "--gpu", "h100", "--seq", "4096"});
    checked += CheckExplain({"size", "--config", f, "--gpu", "mi300x", "--seq", "2048", "--batch", "16", "--dtype",
                             "int8", "--kv-dtype", "fp8"});
  }
  EXPECT_GT(checked, 100);
}

TEST(ExplainConsistencyTest, KvBudgetOnEveryFixture) {
  int checked = 0;
  for (const std::string& f : Fixtures()) {
    checked += CheckExplain({"kv-budget", "--config", f, "--gpu", "h100", "--context", "4096"});
    checked += CheckExplain({"kv-budget", "--config", f, "--gpu", "h100", "--gpus", "8", "--context", "8192"},
                            /*may_refuse=*/true);
  }
  checked += CheckExplain({"kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "16", "--workspace", "2GB"});
  checked += CheckExplain({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--budget", "40GB"});
  EXPECT_GT(checked, 100);
}

TEST(ExplainConsistencyTest, TrainMemoryAndPagedKv) {
  int checked = 0;
  checked += CheckExplain({"train-memory", "--params", "7B", "--gpu", "h100"});
  checked += CheckExplain({"train-memory", "--model", "llama-3.1-8b", "--gpu", "h100", "--zero", "3", "--dp", "8", "--tp",
                           "2", "--pp", "2", "--micro-batch", "2", "--seq", "4096"});
  checked += CheckExplain({"train-memory", "--model", "llama-2-7b", "--gpu", "a100", "--sequence-parallel", "--tp", "4"});
  checked += CheckExplain({"train-memory", "--model", "llama-2-7b", "--gpu", "a100", "--recompute", "full", "--zero", "1",
                           "--dp", "4"});
  checked += CheckExplain({"train-memory", "--model", "gpt2", "--gpu", "h100", "--flash", "--tp", "2"});
  checked += CheckExplain({"train-memory", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--tp", "2", "--pp", "4",
                           "--virtual-stages", "2", "--dp", "4", "--ep", "2", "--zero", "1", "--flash",
                           "--sequence-parallel", "--recompute", "selective", "--global-batch", "32"});
  checked += CheckExplain({"paged-kv", "--lens", "100,2000,517", "--max-len", "4096", "--kv-bytes-per-token",
                           "131072"});
  checked += CheckExplain({"paged-kv", "--lens", "100,2000,517", "--max-len", "4096", "--model", "llama-3.1-8b",
                           "--kv-dtype", "fp8"});
  EXPECT_GT(checked, 20);
}

TEST(ExplainConsistencyTest, Roofline) {
  int checked = 0;
  checked += CheckExplain({"roofline", "--gpu", "a100", "--intensity", "1"});
  for (const std::string& f : Fixtures()) {
    checked += CheckExplain({"roofline", "--config", f, "--gpu", "h100,mi300x", "--seq", "2048"});
  }
  EXPECT_GT(checked, 50);
}

TEST(ExplainConsistencyTest, DiagnoseCasesAndModels) {
  int checked = 0;
  for (const char* c : {"case_a", "case_b", "case_c", "case_d", "case_e"}) {
    checked += CheckExplain({"diagnose", Src(std::string("tests/evidence/") + c + ".json")});
  }
  for (const std::string& f : Fixtures()) {
    checked += CheckExplain({"diagnose", "--config", f, "--gpu", "h100", "--context", "8192", "--tokens-per-s",
                             "20", "--batch", "4"});
  }
  EXPECT_GT(checked, 100);
}

TEST(ExplainConsistencyTest, LabCommands) {
  int checked = 0;
  checked += CheckExplain({"train", "--params", "70B", "--tokens", "2T", "--gpu", "h100", "--gpus", "2048"});
  checked += CheckExplain({"train", "--model", "llama-3.1-8b", "--tokens", "2T", "--gpu", "h100", "--tp", "2", "--pp",
                           "2", "--dp", "4", "--global-batch", "64", "--flash", "--recompute", "full"});
  checked += CheckExplain({"mfu", "--model", "llama-3.1-8b", "--tokens-per-s", "20000", "--gpu", "h100", "--gpus",
                           "8", "--train", "--recompute", "selective"});
  checked += CheckExplain({"calibrate", "--training"});
  checked += CheckExplain({"train-plan", "--model", "llama-3.1-8b", "--tokens", "15T", "--days", "30"});
  checked += CheckExplain({"train-plan", "--model", "llama-3.1-70b", "--tokens", "2T", "--days", "1000", "--gpu",
                           "h100", "--seq", "32768"});
  checked += CheckExplain({"chinchilla", "--compute", "5.76e23"});
  checked += CheckExplain({"chinchilla", "--params", "70B"});
  checked += CheckExplain({"cost", "--price-per-hour", "2.5", "--tokens-per-s", "1000", "--gpus", "8"});
  checked += CheckExplain({"cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "64", "--price-per-hour",
                           "3"});
  checked += CheckExplain({"mfu", "--params", "7B", "--tokens-per-s", "3000", "--gpu", "a100"});
  checked += CheckExplain({"mfu", "--params", "7B", "--tokens-per-s", "3000", "--gpu", "a100", "--train"});
  const std::string candidates = (std::filesystem::path(testing::TempDir()) / "explain_candidates.json").string();
  std::ofstream(candidates) << R"([
    {"name": "big", "quality": 0.9, "latency": 200, "throughput": 1000, "cost": 4, "memory": 160},
    {"name": "small", "quality": 0.6, "latency": 100, "throughput": 2000, "cost": 1, "memory": 20}])";
  checked += CheckExplain({"tradeoff", candidates, "--weights", "quality=0.4,latency=0.3,cost=0.3"});
  checked += CheckExplain({"example"});
  EXPECT_GT(checked, 30);
}

// The presets and shapes the fixtures do not cover: MoE, MLA, sliding windows,
// pipeline stages, a hand-given shape.
TEST(ExplainConsistencyTest, PresetsAndShapes) {
  const std::vector<std::vector<std::string>> runs = {
      {"size", "-L", "48", "-d", "6144", "--heads", "48", "--kv-heads", "8", "--ffn", "16384", "--glu", "--vocab",
       "64000", "--seq", "8192", "--gpu", "mi300x"},
      {"size", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--gpus", "2"},
      {"size", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--dtype", "fp8"},
      {"size", "--model", "gemma-2-9b", "--gpu", "h100", "--seq", "8192"},
      {"size", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "16", "--seq", "8192", "--pp", "2",
       "--tp", "8"},
      {"kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "16"},
      {"diagnose", "--model", "deepseek-v2-lite", "--gpu", "h100", "--context", "8192", "--tokens-per-s", "50"},
      {"diagnose", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--gpus", "2", "--context", "4096",
       "--batch", "4", "--aggregate-tokens-per-s", "300"},
      {"paged-kv", "--model", "gemma-2-9b", "--lens", "8192,3000", "--max-len", "8192"},
      {"paged-kv", "--model", "llama-4-scout", "--lens", "100,20000,9000", "--max-len", "32768"},
      {"paged-kv", "--model", "qwen3-next-80b-a3b", "--lens", "100,20000", "--max-len", "32768"},
      {"size", "--model", "gpt-oss-120b", "--gpu", "b200", "--seq", "8192", "--batch", "16"},
      {"size", "--model", "nemotron-h-56b", "--gpu", "h100", "--gpus", "4", "--pp", "2", "--tp", "2"},
      {"kv-budget", "--model", "qwen3-next-80b-a3b", "--gpu", "h200", "--gpus", "2"},
      {"size", "--model", "deepseek-v3.2", "--gpu", "h200", "--gpus", "8"},
      {"cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--price-per-hour", "3"},
  };
  int checked = 0;
  for (const std::vector<std::string>& args : runs) checked += CheckExplain(args);
  EXPECT_GT(checked, 250);
}

// The evaluator the checks rely on reads the spellings the explain lines use
// (kept from the former explain_consistency_test; explain_eval_test.cc tests
// the evaluator in depth).
TEST(ExplainConsistencyTest, TheEvaluatorReadsUnitsAndOperators) {
  auto is = [](std::string_view text, double want) {
    auto got = eval_substitution(text);
    if (!got.ok()) return testing::AssertionFailure() << text << ": " << got.status().message();
    if (!got->overlaps({want, want})) {
      return testing::AssertionFailure() << text << " = [" << got->lo << ", " << got->hi << "], not " << want;
    }
    return testing::AssertionSuccess();
  };
  EXPECT_TRUE(is("3.35 TB/s / 39.02 GB", 3.35e12 / 39.02e9));
  EXPECT_TRUE(is("2 × 27 × 3,072 × 2 B × 8,192", 2.0 * 27 * 3072 * 2 * 8192));
  EXPECT_TRUE(is("floor(62,965,665,792 / 335,544,320)", 187));
  EXPECT_TRUE(is("max(0.01397, 3.886) + 0.3852", 3.886 + 0.3852));
  EXPECT_TRUE(is("12 × 6,144²", 12.0 * 6144 * 6144));
  EXPECT_FALSE(eval_substitution("Σ len").ok());
  EXPECT_FALSE(eval_substitution("KV_token × T").ok());
}

}  // namespace
}  // namespace modelcalc
