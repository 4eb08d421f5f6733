// No text output prints an infinite, undefined or negative figure for a setup that cannot work: a memory that
// does not fit says "does not fit (short by X)", a queue that grows says "unbounded: the queue grows", and JSON
// gives such a figure null with a "<key>_reason" beside it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace modelcalc {
namespace {

// The offending token of `text`, or "": "inf", "nan", "∞", or a number with a minus sign ("-60.57", "−3").
std::string bad_figure(const std::string& text) {
  const auto word_at = [&](size_t i, const std::string& w) {
    if (text.compare(i, w.size(), w) != 0) return false;
    const auto letter = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    return (i == 0 || !letter(text[i - 1])) && (i + w.size() >= text.size() || !letter(text[i + w.size()]));
  };
  for (size_t i = 0; i < text.size(); ++i) {
    for (const char* w : {"inf", "nan", "NaN", "Inf"}) {
      if (word_at(i, w)) return text.substr(i > 30 ? i - 30 : 0, 60);
    }
    if (text.compare(i, 3, "∞") == 0) return text.substr(i > 30 ? i - 30 : 0, 60);
    // A minus sign that starts a number: after a space, '(', '$' or a line start, before a digit.
    const bool ascii = text[i] == '-';
    const bool unicode = text.compare(i, 3, "−") == 0;
    if (!ascii && !unicode) continue;
    const size_t next = i + (ascii ? 1 : 3);
    const bool starts = i == 0 || text[i - 1] == ' ' || text[i - 1] == '(' || text[i - 1] == '$' || text[i - 1] == '\n';
    if (starts && next < text.size() && std::isdigit(static_cast<unsigned char>(text[next]))) {
      return text.substr(i > 30 ? i - 30 : 0, 60);
    }
  }
  return "";
}

TEST(InfeasibleOutputTest, TheCheckerSeesWhatItLooksFor) {
  EXPECT_NE(bad_figure("Kept back  -60.57 GB"), "");
  EXPECT_NE(bad_figure("TTFT inf"), "");
  EXPECT_NE(bad_figure("misses TTFT: inf > 1 s"), "");
  EXPECT_NE(bad_figure("x (−3 GB)"), "");
  EXPECT_EQ(bad_figure("llama-3.1-70b, info, 1 − 1/G, --max-gpus 2, does not fit (short by 60.57 GB)"), "");
}

const std::vector<std::vector<std::string>> kInfeasible = {
    // The weights alone exceed the GPU.
    {"kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100"},
    {"kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100", "--engine", "vllm"},
    {"kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100", "--engine", "sglang"},
    {"size", "--model", "llama-3.1-70b", "--gpu", "h100", "--batch", "64", "--seq", "8192", "--prompt", "4096"},
    {"size", "--model", "llama-3.1-405b", "--gpu", "l4", "--engine", "vllm"},
    {"size", "--model", "deepseek-v3", "--gpu", "h100", "--gpus", "8"},
    {"cost", "--model", "llama-3.1-405b", "--gpu", "h100", "--price-per-hour", "3"},
    // A batch past every limit; a rate the steps cannot keep up with.
    {"plan", "--model", "llama-3.1-70b", "--gpu", "h100", "--isl", "2048", "--osl", "512", "--qps", "1", "--batch",
     "1073741824"},
    {"plan", "--model", "llama-3.1-70b", "--gpu", "h100", "--isl", "2048", "--osl", "512", "--qps", "1", "--ttft", "1s",
     "--top", "1000"},
    {"plan", "--model", "llama-3.1-70b", "--gpu", "h100", "--isl", "32768", "--osl", "16", "--qps", "500", "--max-gpus",
     "8"},
    // The step-token budget.
    {"plan", "--model", "gpt-oss-120b", "--gpu", "h100", "--max-gpus", "2", "--isl", "2000", "--osl", "100", "--tpot",
     "140ms", "--concurrency", "512", "--engine", "vllm"},
    {"plan", "--model", "llama-3.1-405b", "--gpu", "l4", "--max-gpus", "1", "--isl", "1000", "--osl", "100"},
    {"plan", "--model", "deepseek-v3", "--gpu", "h100", "--isl", "2000", "--osl", "200", "--qps", "1000", "--ttft",
     "10ms", "--tpot", "5ms", "--disaggregated"},
    {"plan", "--model", "deepseek-v3", "--gpu", "h100", "--isl", "8000", "--osl", "200", "--qps", "50", "--ttft",
     "2s", "--disaggregated", "--max-gpus", "16"},
};

TEST(InfeasibleOutputTest, NoInfiniteUndefinedOrNegativeFigure) {
  for (const auto& args : kInfeasible) {
    const CliRun r = run_args(args);
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    // A refusal (exit 2: the weights cannot be placed at all) prints nothing on stdout.
    ASSERT_TRUE(r.status == 0 || r.status == 1 || (r.status == 2 && r.out.empty())) << cmd << ": " << r.err;
    EXPECT_EQ(bad_figure(r.out), "") << cmd;
    // And JSON: every null figure says why.
    std::vector<std::string> j = args;
    j.push_back("--json");
    const CliRun jr = run_args(j);
    ASSERT_EQ(jr.status, r.status) << cmd << "--json: " << jr.err;
    EXPECT_EQ(jr.out.find("Infinity"), std::string::npos) << cmd;
    EXPECT_EQ(jr.out.find("NaN"), std::string::npos) << cmd;
  }
}

}  // namespace
}  // namespace modelcalc
