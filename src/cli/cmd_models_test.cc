// modelcalc models: every preset with the Hub repositories it stands for; and
// --model taking those ids exactly, as the core's resolve_model_id does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_paths.h"  // MODELCALC_SOURCE_DIR
#include "test_util.h"

namespace modelcalc {
namespace {

TEST(CmdModels, JsonListsEachPresetsRepositoriesWithTheirCheckpointDtypes) {
  const CliRun r = run_args({"models", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = r.json();
  const nlohmann::json* llama = nullptr;
  for (const auto& p : j["presets"]) {
    ASSERT_TRUE(p["repos"].is_array()) << p["name"];
    ASSERT_FALSE(p["repos"].empty()) << p["name"];
    EXPECT_EQ(p["repos"][0]["id"], p["hf_repo"]) << p["name"];  // the preset's own repository first
    if (p["name"] == "llama-3.3-70b") llama = &p;
  }
  ASSERT_NE(llama, nullptr);
  bool fp8 = false;
  for (const auto& repo : (*llama)["repos"]) {
    if (repo["id"] != "nvidia/Llama-3.3-70B-Instruct-FP8") continue;
    fp8 = true;
    // As its hf_quant_config.json states: quant_algo FP8, kv_cache_quant_algo FP8.
    EXPECT_EQ(repo["weight_dtype"], "fp8");
    EXPECT_EQ(repo["kv_dtype"], "fp8");
    EXPECT_FALSE(repo["source"].get<std::string>().empty());
  }
  EXPECT_TRUE(fp8);
  EXPECT_TRUE((*llama)["repos"][0]["weight_dtype"].is_null());  // the 16-bit base
}

TEST(CmdModels, TextShowsTheRepositories) {
  const CliRun r = run_args({"models"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("meta-llama/Llama-2-70b-chat-hf"), std::string::npos);
  EXPECT_NE(r.out.find("nvidia/DeepSeek-R1-0528-FP4-v2"), std::string::npos);
}

TEST(CmdModels, ModelTakesAListedIdAndRefusesAnythingElseInOneLine) {
  // Llama-2-70b-chat-hf is llama-2-70b: 68,976,648,192 (derived in src/core/presets_test.cc).
  const CliRun ok = run_args({"size", "--model", "meta-llama/Llama-2-70b-chat-hf", "--gpu", "h100", "--json"});
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(ok.json()["params"]["total"], 68'976'648'192);
  EXPECT_EQ(ok.json()["model"]["name"], "meta-llama/Llama-2-70b-chat-hf");
  for (const char* typed : {"Llama-2-70b-chat-hf", "meta-llama/Llama-2-70b-chat", "nvidia/Llama-3.3-70B-Instruct-FP9"}) {
    const CliRun bad = run_args({"size", "--model", typed, "--gpu", "h100"});
    EXPECT_EQ(bad.status, 2) << typed;
    EXPECT_EQ(bad.out, "") << typed;
    EXPECT_EQ(line_count(bad.err), 1) << bad.err;
    EXPECT_NE(bad.err.find("--model"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("did you mean"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("--config"), std::string::npos) << bad.err;
  }
}

// A folder holding WizardLM-2-8x22B's config.json (tests/fixtures/safetensors) and nothing else, named by `what`
// and the running test (ctest runs the tests at once).
std::filesystem::path wizard_config_only(const std::string& what) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::TempDir()) /
                       ("cmd_models_" + what + "_" + testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(fs::path(MODELCALC_SOURCE_DIR) / "tests/fixtures/safetensors/WizardLM-2-8x22B/config.json",
                dir / "config.json");
  return dir;
}

// The same config beside one shard holding its embedding and lm_head (2 x 32000 x 6144 BF16), cut off after
// its header.
std::string wizard_head_only() {
  const std::filesystem::path dir = wizard_config_only("count");
  const std::string json =
      R"({"lm_head.weight": {"dtype": "BF16", "shape": [32000, 6144], "data_offsets": [0, 393216000]},)"
      R"( "model.embed_tokens.weight": {"dtype": "BF16", "shape": [32000, 6144], "data_offsets": [393216000, 786432000]}})";
  std::string prefix(8, '\0');
  for (int i = 0; i < 8; ++i) prefix[static_cast<size_t>(i)] = static_cast<char>((json.size() >> (8 * i)) & 0xff);
  std::ofstream(dir / "model.safetensors", std::ios::binary) << prefix << json;
  return dir.string();
}

TEST(CmdModels, CountReadsTheHeadersBesideTheConfig) {
  const std::string dir = wizard_head_only();
  const CliRun j = run_args({"models", "--count", dir, "--json"});
  ASSERT_EQ(j.status, 0) << j.err;
  const auto c = j.json()["checkpoint"];
  EXPECT_EQ(c["shards"], 1);
  EXPECT_EQ(c["params"]["embeddings"]["checkpoint"], 32000LL * 6144);
  EXPECT_EQ(c["params"]["lm_head"]["checkpoint"], 32000LL * 6144);
  // The config builds 140,620,634,112 (src/core/safetensors_test.cc); these headers hold only the two tables.
  EXPECT_EQ(c["config_total"], 140'620'634'112);
  EXPECT_EQ(c["bytes_by_dtype"]["BF16"], 786'432'000);
  const CliRun t = run_args({"models", "--count", dir});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("only the safetensors headers were read"), std::string::npos);
  EXPECT_NE(t.out.find("196,608,000"), std::string::npos);  // 32000 x 6144, grouped
}

TEST(CmdModels, CheckpointNeedsItsHeadersAndCountIsRefusedInOneLine) {
  const std::filesystem::path dir = wizard_config_only("no_headers");
  const CliRun size = run_args({"size", "--checkpoint", dir.string(), "--gpu", "h100"});
  EXPECT_EQ(size.status, 2);
  EXPECT_EQ(size.out, "");
  EXPECT_EQ(line_count(size.err), 1) << size.err;
  EXPECT_NE(size.err.find("--checkpoint"), std::string::npos) << size.err;
  const CliRun count = run_args({"models", "--count", dir.string()});
  EXPECT_EQ(count.status, 2);
  EXPECT_EQ(line_count(count.err), 1) << count.err;
  EXPECT_NE(count.err.find("--count"), std::string::npos) << count.err;
  // With the headers there, --checkpoint counts as they say (the two tables; no layers).
  const CliRun ok = run_args({"size", "--checkpoint", wizard_head_only(), "--gpu", "h100", "--json"});
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(ok.json()["params"]["total"], 2LL * 32000 * 6144);
}

// Every command that reads a model takes --checkpoint and resolves it as size does: a folder without headers is
// refused in one line naming the flag, and the head-only checkpoint is read (the request layer's commands and
// those still declaring their model flags in src/cli alike).
TEST(CmdModels, EveryCommandThatReadsAModelTakesACheckpoint) {
  const std::filesystem::path bare = wizard_config_only("no_headers");
  const std::string ok = wizard_head_only();
  const std::vector<std::vector<std::string>> runs = {
      {"size", "--gpu", "h100"},
      {"kv-budget", "--gpu", "h100"},
      {"roofline", "--gpu", "h100"},
      {"cost", "--gpu", "h100", "--price-per-hour", "3"},
      {"diagnose", "--gpu", "h100", "--tokens-per-s", "20"},
      {"plan", "--gpu", "h100", "--isl", "1000", "--osl", "200"},
      {"sweep", "--gpu", "h100", "--batch", "1,8"},
      {"train-memory", "--gpu", "h100"},
      {"train", "--tokens", "1T", "--gpu", "h100", "--gpus", "8"},
      {"train-plan", "--tokens", "1T", "--days", "10", "--gpu", "h100"},
      {"mfu", "--gpu", "h100", "--tokens-per-s", "20"},
      {"paged-kv", "--lens", "100,200"},
  };
  for (const std::vector<std::string>& run : runs) {
    std::vector<std::string> a = run;
    a.insert(a.end(), {"--checkpoint", bare.string()});
    const CliRun r = run_args(a);
    EXPECT_EQ(r.status, 2) << run[0] << " " << r.err;
    EXPECT_EQ(r.out, "") << run[0];
    EXPECT_EQ(line_count(r.err), 1) << run[0] << " " << r.err;
    EXPECT_EQ(r.err.rfind("modelcalc: error: --checkpoint: ", 0), 0u) << run[0] << " " << r.err;
    a = run;
    a.insert(a.end(), {"--checkpoint", ok});
    const CliRun good = run_args(a);
    EXPECT_TRUE(good.status == 0 || (run[0] == "plan" && good.status == 1)) << run[0] << " " << good.err;
  }
  const CliRun both = run_args({"size", "--checkpoint", ok, "--config", ok, "--gpu", "h100"});
  EXPECT_EQ(both.status, 2);
  EXPECT_EQ(both.err.rfind("modelcalc: error: --checkpoint: give one of --model, --config or --checkpoint", 0), 0u)
      << both.err;
}

}  // namespace
}  // namespace modelcalc
