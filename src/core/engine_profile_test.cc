// Engine releases: --engine NAME[@VERSION] to the release family the memory
// rules and the time parameters hang off.
#include "modelcalc/engine_profile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace modelcalc {
namespace {

EngineRelease parsed(const char* text) {
  auto r = parse_engine(text, "--engine");
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? *r : EngineRelease{};
}

std::string error_of(const char* text) {
  auto r = parse_engine(text, "--engine");
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? std::string() : r.status().message();
}

TEST(EngineReleaseTest, NamesWithoutAVersionAreTheFamilysCurrentRelease) {
  EXPECT_EQ(parsed("trtllm"), (EngineRelease{EngineFamily::kTrtllm, std::nullopt}));
  EXPECT_EQ(parsed("TensorRT-LLM"), (EngineRelease{EngineFamily::kTrtllm, std::nullopt}));
  EXPECT_EQ(parsed("trtllm-pytorch"), (EngineRelease{EngineFamily::kTrtllmPytorch, std::nullopt}));
  EXPECT_EQ(parsed("vllm"), (EngineRelease{EngineFamily::kVllmV1, std::nullopt}));
  EXPECT_EQ(parsed("vllm-v1"), (EngineRelease{EngineFamily::kVllmV1, std::nullopt}));
  EXPECT_EQ(parsed("vllm-v0"), (EngineRelease{EngineFamily::kVllmV0, std::nullopt}));
  EXPECT_EQ(parsed("SGLang"), (EngineRelease{EngineFamily::kSglang, std::nullopt}));
  EXPECT_EQ(kDefaultEngine, parsed("trtllm"));
  for (Engine e : kAllEngines) EXPECT_EQ(default_release(e), parsed(std::string(engine_name(e)).c_str()));
}

TEST(EngineReleaseTest, AVersionPicksTheFamily) {
  // vLLM: V1 by default from 0.8.0; TensorRT-LLM: the PyTorch backend by default from 1.0.
  EXPECT_EQ(parsed("vllm@0.6"), (EngineRelease{EngineFamily::kVllmV0, EngineVersion{0, 6, 0}}));
  EXPECT_EQ(parsed("vllm@0.7.3"), (EngineRelease{EngineFamily::kVllmV0, EngineVersion{0, 7, 3}}));
  EXPECT_EQ(parsed("vllm@0.8"), (EngineRelease{EngineFamily::kVllmV1, EngineVersion{0, 8, 0}}));
  EXPECT_EQ(parsed("vllm@v0.11.2"), (EngineRelease{EngineFamily::kVllmV1, EngineVersion{0, 11, 2}}));
  EXPECT_EQ(parsed("trtllm@0.17"), (EngineRelease{EngineFamily::kTrtllm, EngineVersion{0, 17, 0}}));
  EXPECT_EQ(parsed("trtllm@1.0"), (EngineRelease{EngineFamily::kTrtllmPytorch, EngineVersion{1, 0, 0}}));
  EXPECT_EQ(parsed("trtllm-pytorch@0.19"), (EngineRelease{EngineFamily::kTrtllmPytorch, EngineVersion{0, 19, 0}}));
  EXPECT_EQ(parsed("vllm-v1@0.7"), (EngineRelease{EngineFamily::kVllmV1, EngineVersion{0, 7, 0}}));
  EXPECT_EQ(parsed("sglang@0.4.9"), (EngineRelease{EngineFamily::kSglang, EngineVersion{0, 4, 9}}));
}

TEST(EngineReleaseTest, AFamilyKeyRefusesAReleaseOutsideIt) {
  EXPECT_NE(error_of("trtllm-pytorch@0.16").find("0.17 and later"), std::string::npos);
  EXPECT_NE(error_of("vllm-v0@0.11").find("vllm-v0 covers releases"), std::string::npos);
  EXPECT_NE(error_of("vllm-v1@0.6").find("0.7 and later"), std::string::npos);
}

TEST(EngineReleaseTest, BadTextNamesTheFlag) {
  for (const char* bad : {"tgi", "vllm@", "vllm@0", "vllm@0.6.x", "vllm@0.6.5.1", "vllm@latest", "@0.6", "vllm@12345.1",
                          "vllm@0.6@0.7", ""}) {
    const std::string e = error_of(bad);
    EXPECT_EQ(e.substr(0, 9), "--engine:") << bad << ": " << e;
  }
}

TEST(EngineReleaseTest, KeysRoundTrip) {
  for (const char* text : {"trtllm", "trtllm-pytorch", "vllm", "vllm-v0", "sglang", "vllm@0.6.5", "trtllm@1.0",
                           "trtllm@0.17", "sglang@0.5.12", "vllm-v0@0.10.1"}) {
    const EngineRelease r = parsed(text);
    EXPECT_EQ(parsed(engine_release_key(r).c_str()), r) << text << " -> " << engine_release_key(r);
  }
  EXPECT_EQ(engine_release_key(parsed("vllm@0.6.5")), "vllm-v0@0.6.5");
  EXPECT_EQ(engine_release_key(parsed("trtllm@1.0")), "trtllm-pytorch@1.0");
  EXPECT_EQ(engine_release_key(parsed("vllm")), "vllm");
  EXPECT_EQ(engine_release_display(parsed("vllm")), "vLLM V1, current release");
  EXPECT_EQ(engine_release_display(parsed("vllm-v0")), "vLLM V0, its last release");
  EXPECT_EQ(engine_release_display(parsed("vllm@0.6.5")), "vLLM V0 0.6.5");
}

TEST(EngineReleaseTest, RulesCompareTheVersion) {
  EXPECT_TRUE(parsed("vllm").at_least({0, 11, 0}));  // the current release is newer than any
  EXPECT_TRUE(parsed("vllm@0.9.1").at_least({0, 9, 0}));
  EXPECT_FALSE(parsed("vllm@0.8.5").at_least({0, 9, 0}));
}

TEST(EngineReleaseTest, DataRowsFindTheirVersion) {
  EXPECT_EQ(find_engine_version("vLLM 0.9.0.2.dev108+g71faa1880.d20250730.rocm641"), (EngineVersion{0, 9, 0}));
  EXPECT_EQ(find_engine_version("v0.5.8.post1-cu130"), (EngineVersion{0, 5, 8}));
  EXPECT_EQ(find_engine_version("1.2.0rc6.post2"), (EngineVersion{1, 2, 0}));
  EXPECT_EQ(find_engine_version("0.17"), (EngineVersion{0, 17, 0}));
  EXPECT_FALSE(find_engine_version("unrecorded").has_value());
  EXPECT_FALSE(find_engine_version("").has_value());
  EXPECT_EQ(engine_family_at(Engine::kVllm, std::nullopt), EngineFamily::kVllmV1);
  EXPECT_EQ(engine_family_at(Engine::kTrtllm, EngineVersion{0, 21, 0}), EngineFamily::kTrtllm);
}

TEST(EngineReleaseTest, EveryFamilyHasAProfileNamedByItsKey) {
  for (EngineFamily f : kAllEngineFamilies) {
    const EngineProfile& p = engine_profile(f);
    EXPECT_EQ(p.family, f);
    EXPECT_EQ(p.name, engine_family_info(f).key);
    EXPECT_EQ(p.engine, engine_of(f));
    EXPECT_EQ(*parse_engine_family(p.name), f);
    EXPECT_FALSE(p.memory_rule.empty());
    EXPECT_FALSE(p.memory_source.empty());
    // A family the shipped table lists has its own fitted parameters; the others take the pooled set.
    const auto& listed = engine_time_table().profiles;
    const bool fitted = std::any_of(listed.begin(), listed.end(), [&](const auto& e) { return e.first == f; });
    EXPECT_EQ(p.time_inherited, !fitted) << p.name;
    // The shared data has rows of every family today (calibrate --fit: trtllm 709, trtllm-pytorch 285,
    // vllm-v0 44, vllm 46, sglang 368), so every one is fitted.
    EXPECT_TRUE(fitted) << p.name;
  }
  EXPECT_EQ(engine_of(EngineFamily::kTrtllmPytorch), Engine::kTrtllm);
  EXPECT_FALSE(parse_engine_family("vllm@0.6").ok());
}

}  // namespace
}  // namespace modelcalc
