// modelcalc models: every preset with the Hub repositories it stands for; and
// --model taking those ids exactly, as the core's resolve_model_id does.
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace modelcalc
