// Inputs the tools cannot honour are refused in one line (issue #39): each
// case below once answered (a silently wrong figure, exit 1, or a line naming
// a flag the user never typed). Every refusal: exit 2, nothing on stdout, one
// line on stderr that starts with the flag the user typed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.h"  // MODELCALC_SOURCE_DIR
#include "test_util.h"

namespace modelcalc {
namespace {

using Args = std::vector<std::string>;

// Refused naming `flag` first; returns the line for further checks.
std::string Refused(const Args& args, const std::string& flag) {
  CliRun r = run_args(args);
  EXPECT_EQ(r.status, 2) << show(args) << "\n" << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << show(args);
  EXPECT_EQ(line_count(r.err), 1) << show(args) << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("modelcalc: error: " + flag + ": ", 0), 0u) << show(args) << "\n" << r.err;
  return r.err;
}

void Accepted(const Args& args) {
  CliRun r = run_args(args);
  EXPECT_EQ(r.status, 0) << show(args) << "\n" << r.err;
}

Args with(Args base, std::initializer_list<std::string> more) {
  base.insert(base.end(), more);
  return base;
}

const Args kSize = {"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "8192"};

// ---------------------------------------------------------------- 1. the shared prefix is part of the prompt

TEST(BadInputTest, APrefixAtOrAboveThePromptIsRefused) {
  // It answered "not one sequence fits beside the weights": a prefix of the whole context leaves each
  // sequence no KV of its own. The prompt is the context (8192 tokens) here: 0 to 8191 are allowed.
  const std::string e = Refused(with(kSize, {"--prefix-tokens", "8192"}), "--prefix-tokens");
  EXPECT_NE(e.find("0 to 8191, got 8192"), std::string::npos) << e;
  Refused(with(kSize, {"--prefix-tokens", "100000"}), "--prefix-tokens");
  Accepted(with(kSize, {"--prefix-tokens", "8191"}));
  // With a prompt of 512 tokens the prefix is part of it: 0 to 511.
  const std::string p = Refused(with(kSize, {"--prompt", "512", "--prefix-tokens", "512"}), "--prefix-tokens");
  EXPECT_NE(p.find("0 to 511, got 512"), std::string::npos) << p;
  Accepted(with(kSize, {"--prompt", "512", "--prefix-tokens", "511"}));
  Refused({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "4096", "--prefix-tokens", "4096"},
          "--prefix-tokens");
  // sweep: below every context swept (2048 is the shortest of 2048,4096).
  Refused({"sweep", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "2048,4096", "--prefix-tokens", "3000"},
          "--prefix-tokens");
  // plan: the prompt is --isl (512 tokens).
  const std::string pl = Refused({"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--gpu", "h100",
                                  "--max-gpus", "8", "--prefix-tokens", "512"},
                                 "--prefix-tokens");
  EXPECT_NE(pl.find("0 to 511"), std::string::npos) << pl;
}

// ---------------------------------------------------------------- 2. the engine's limit holds the context

TEST(BadInputTest, AMaxModelLenBelowTheContextIsRefusedNamingBoth) {
  const Args kv = {"kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "8192", "--engine", "vllm"};
  const std::string e = Refused(with(kv, {"--max-model-len", "4096"}), "--max-model-len");
  EXPECT_NE(e.find("--seq"), std::string::npos) << e;
  EXPECT_NE(e.find("8192 tokens"), std::string::npos) << e;
  Accepted(with(kv, {"--max-model-len", "8192"}));  // exactly the context fits
  Refused(with(kSize, {"--engine", "vllm", "--max-model-len", "8191"}), "--max-model-len");
  // plan: a request holds --isl + --osl = 512 + 128 = 640 tokens.
  const std::string p = Refused({"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--gpu", "h100",
                                 "--max-gpus", "8", "--max-model-len", "639"},
                                "--max-model-len");
  EXPECT_NE(p.find("--isl + --osl"), std::string::npos) << p;
  EXPECT_NE(p.find("640 tokens"), std::string::npos) << p;
  Refused({"sweep", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "1024,4096", "--engine", "vllm",
           "--max-model-len", "2048"},
          "--max-model-len");
}

// ---------------------------------------------------------------- 3. layouts the model cannot take

TEST(BadInputTest, PlanRefusesAnExpertParallelDegreeADenseModelCannotTake) {
  // It exited 1, "nothing meets the targets": bad input exits 2.
  const Args plan = {"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--qps", "1", "--gpu", "h100",
                     "--max-gpus", "8"};
  const std::string e = Refused(with(plan, {"--ep", "2"}), "--ep");
  EXPECT_NE(e.find("has none"), std::string::npos) << e;
  Refused(with(plan, {"--ep", "1,2"}), "--ep");
  // deepseek-v3's 256 experts: 3 divides no searched tp (1, 2, 4, ...), 128 exceeds --max-gpus 8.
  const Args moe = {"plan", "--model", "deepseek-v3", "--isl", "512", "--osl", "128", "--gpu", "h200", "--max-gpus", "8"};
  Refused(with(moe, {"--ep", "3"}), "--ep");
  Refused(with(moe, {"--ep", "128"}), "--ep");
}

TEST(BadInputTest, MtpOnAModelWithoutAnMtpHeadIsSaidFirst) {
  // gpt-oss has no multi-token-prediction head: that is the answer, before asking for --spec-acceptance.
  const Args base = {"size", "--model", "gpt-oss-120b", "--gpu", "h100", "--gpus", "2", "--spec-method", "mtp"};
  const std::string e = Refused(base, "--spec-method");
  EXPECT_NE(e.find("gpt-oss-120b has none"), std::string::npos) << e;
  Refused(with(base, {"--spec-tokens", "2"}), "--spec-method");
  Refused({"sweep", "--model", "gpt-oss-120b", "--gpu", "h100", "--gpus", "2", "--spec-method", "mtp"},
          "--spec-method");
  Refused({"plan", "--model", "gpt-oss-120b", "--isl", "512", "--osl", "128", "--gpu", "h100", "--spec-method", "mtp"},
          "--spec-method");
  // deepseek-v3 has one: then what the drafter needs is asked for.
  Refused({"size", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--spec-method", "mtp"}, "--spec-tokens");
}

TEST(BadInputTest, RedundantExpertsThatBreakTheSplitNameRedundantExperts) {
  // deepseek-v3 over 8 GPUs with --dp-attention: ep = 8. 256 + 7 = 263 slots do not split over 8 ranks; the
  // user typed --redundant-experts, not --ep. 256 + 8 = 264 = 8 x 33 does.
  const Args base = {"size", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--dp-attention"};
  const std::string e = Refused(with(base, {"--redundant-experts", "7"}), "--redundant-experts");
  EXPECT_NE(e.find("a multiple of 8, got 7"), std::string::npos) << e;
  Accepted(with(base, {"--redundant-experts", "8"}));
  // Without --dp-attention: ep 8 inside tp 8; 256 + 4 = 260 slots, 260 / 8 = 32.5.
  Refused({"size", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--ep", "8", "--redundant-experts", "4"},
          "--redundant-experts");
}

// ---------------------------------------------------------------- 4. did-you-mean and --help

TEST(BadInputTest, ALongFlagGetsALongFlagSuggestion) {
  CliRun a = run_args(with(kSize, {"--dp-atention"}));
  EXPECT_EQ(a.status, 2);
  EXPECT_NE(a.err.find("did you mean --dp-attention?"), std::string::npos) << a.err;
  CliRun h = run_args({"size", "--model", "llama-3.1-8b", "--hiden", "4096"});
  EXPECT_EQ(h.status, 2);
  EXPECT_NE(h.err.find("did you mean --hidden?"), std::string::npos) << h.err;
  EXPECT_EQ(line_count(h.err), 1);
}

TEST(BadInputTest, PlanSaysItSearchesWhatItDecidesItself) {
  const Args plan = {"plan", "--model", "deepseek-v3", "--isl", "512", "--osl", "128", "--gpu", "h200"};
  for (const char* flag : {"--dp-attention", "--tp", "--gpus"}) {
    CliRun r = run_args(with(plan, {flag}));
    EXPECT_EQ(r.status, 2) << flag;
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind(std::string("modelcalc: error: ") + flag + ": not a flag of plan: plan searches", 0), 0u)
        << r.err;
    EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
  }
}

TEST(BadInputTest, RooflineHelpMentionsNoFlagRooflineLacks) {
  CliRun r = run_args({"roofline", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--ep"), std::string::npos);  // the help is there
  // Since issue #31 roofline takes the layout flags its deployments use: the help names them and they run.
  EXPECT_NE(r.out.find("--dp-attention"), std::string::npos) << r.out;
  EXPECT_EQ(run_args({"roofline", "--model", "deepseek-v3", "--gpu", "h200", "--gpus", "8", "--tp", "1",
                      "--dp-attention", "--batch", "8"})
                .status,
            0);
}

// ---------------------------------------------------------------- 5. a derived value names what was typed

TEST(BadInputTest, ADerivedComputeDtypeNamesTheDtypeTyped) {
  // fp8 weights compute in fp8, which the A100 has no peak for: the user typed --dtype, not --compute-dtype.
  const std::string e = Refused({"size", "--model", "llama-3.1-8b", "--gpu", "a100", "--dtype", "fp8"}, "--dtype");
  EXPECT_EQ(e.rfind("modelcalc: error: --dtype: from --dtype fp8: ", 0), 0u) << e;
  Refused({"kv-budget", "--model", "llama-3.1-8b", "--gpu", "a100", "--dtype", "fp8"}, "--dtype");
  Refused({"cost", "--price-per-hour", "2", "--model", "llama-3.1-8b", "--gpu", "a100", "--dtype", "fp8"}, "--dtype");
  // Given, the compute dtype is the user's own and named as such.
  Refused({"size", "--model", "llama-3.1-8b", "--gpu", "a100", "--compute-dtype", "fp8"}, "--compute-dtype");
  // The way out the line gives works: fp8 weights with bf16 matmuls.
  Accepted({"size", "--model", "llama-3.1-8b", "--gpu", "a100", "--dtype", "fp8", "--compute-dtype", "bf16"});
}

// ---------------------------------------------------------------- 6. an output never replaces an input

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// A fresh folder holding a copy of a real config.json.
fs::path model_folder(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / ("modelcalc_bad_input_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(std::string(MODELCALC_SOURCE_DIR) + "/tests/fixtures/hf-configs/Qwen3-8B.config.json",
                dir / "config.json");
  return dir;
}

TEST(BadInputTest, AReportOrPlotOverAnInputIsRefusedAndTheInputKept) {
  const fs::path dir = model_folder("report");
  const std::string config = (dir / "config.json").string(), before = slurp(config);
  // It overwrote the config with the HTML page.
  const std::string e = Refused({"size", "--config", config, "--gpu", "h100", "--report", config}, "--report");
  EXPECT_NE(e.find("the file --config reads"), std::string::npos) << e;
  // However spelled: ./ and a symbolic link name the same file.
  fs::create_symlink(config, dir / "link.json");
  Refused({"size", "--config", config, "--gpu", "h100", "--report", (dir / "." / "link.json").string()}, "--report");
  // The folder given: its config.json is what it reads; so are its .json and .safetensors files.
  const std::string f = Refused({"size", "--config", dir.string(), "--gpu", "h100", "--report", config}, "--report");
  EXPECT_NE(f.find("in the folder --config reads"), std::string::npos) << f;
  Refused({"roofline", "--config", config, "--gpu", "h100", "--plot", config}, "--plot");
  Refused({"plan", "--config", config, "--isl", "512", "--osl", "128", "--gpu", "h100", "--max-gpus", "1", "--plot",
           config},
          "--plot");
  EXPECT_EQ(slurp(config), before);
  // Another file in the folder (not .json or .safetensors) and a new file are written.
  Accepted({"size", "--config", dir.string(), "--gpu", "h100", "--report", (dir / "report.html").string()});
  EXPECT_EQ(slurp(dir / "report.html").rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(slurp(config), before);
}

// The shared schema's header and one real row (data/serving-measured.tsv's r211: Llama-3.1-8B on one H200, 29,526
// output tokens/s), its id, gpus and value replaced.
std::string serving_row_tsv(const std::string& id, const std::string& gpus, const std::string& value) {
  std::istringstream lines(slurp(std::string(MODELCALC_SOURCE_DIR) + "/data/serving-measured.tsv"));
  std::string header, row, line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header.empty()) {
      header = line;
    } else if (line.rfind("r211\t", 0) == 0) {
      row = line;
    }
  }
  std::vector<std::string> f;
  std::istringstream cells(row);
  for (std::string c; std::getline(cells, c, '\t');) f.push_back(c);
  f.resize(19);  // notes empty
  f[0] = id, f[4] = gpus, f[14] = value;  // columns id, gpus, value (the schema's order)
  std::string out = header + "\n";
  for (size_t i = 0; i < f.size(); ++i) out += (i ? "\t" : "") + f[i];
  return out + "\n";
}

TEST(BadInputTest, CalibrateWriteOverItsDataIsRefused) {
  const fs::path data = fs::path(testing::TempDir()) / "modelcalc_bad_input_rows.tsv";
  put(data, serving_row_tsv("x1", "1", "29526"));
  const std::string before = slurp(data);
  Refused({"calibrate", "--data", data.string(), "--fit", "--write", data.string()}, "--write");
  EXPECT_EQ(slurp(data), before);
}

// ---------------------------------------------------------------- 7. measurements within physical ranges

TEST(BadInputTest, AMeasurementBeyondPhysicalRangesIsRefused) {
  const fs::path data = fs::path(testing::TempDir()) / "modelcalc_bad_input_range.tsv";
  const auto calibrate = [&](const std::string& gpus, const std::string& value) {
    put(data, serving_row_tsv("x1", gpus, value));
    return Args{"calibrate", "--data", data.string()};
  };
  // It printed 1e308 tokens/s as a 309-digit number.
  const std::string e = Refused(calibrate("1", "1e308"), "--data");
  EXPECT_NE(e.find("column value must be at most 1e12 tokens/s per GPU"), std::string::npos) << e;
  // Per GPU: 8 GPUs may report 8e12 tokens/s (1e12 each), not 8.1e12.
  Refused(calibrate("8", "8.1e12"), "--data");
  Accepted(calibrate("8", "8e12"));
  Refused(calibrate("1", "inf"), "--data");
  Refused(calibrate("1", "nan"), "--data");
  Refused(calibrate("1", "-5"), "--data");
  Refused(calibrate("1", "0"), "--data");
}

// ---------------------------------------------------------------- 7. control characters never reach the terminal

TEST(BadInputTest, ControlCharactersInAnInputFileAreEscapedInTheOutput) {
  const fs::path data = fs::path(testing::TempDir()) / "modelcalc_bad_input_escape.tsv";
  // An id that would retitle the terminal (OSC 0 ... BEL) and clear it (CSI 2J, here as the C1 CSI U+009B).
  put(data, serving_row_tsv("x\x1b]0;pwned\x07\xc2\x9b" "2J", "1", "29526"));
  for (const bool json : {false, true}) {
    Args a = {"calibrate", "--data", data.string()};
    if (json) a.push_back("--json");
    CliRun r = run_args(a);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
    EXPECT_EQ(r.out.find('\x07'), std::string::npos);
    EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos);
    // \u00NN: legible in the text and the same character read back from the JSON.
    EXPECT_NE(r.out.find("x\\u001b]0;pwned\\u0007\\u009b2J"), std::string::npos) << r.out.substr(0, 2000);
    if (json) {
      EXPECT_TRUE(nlohmann::json::accept(r.out));
    }
  }
}

}  // namespace
}  // namespace modelcalc
