// The Hub repositories each preset stands for (data/presets/*.json,
// "_modelcalc".repos): every listed id resolves to its preset's exact count
// (each total derived by hand from transformers' modeling code, here or in the
// test named beside it), the re-releases carry the checkpoint dtypes their
// sources state, misspelt ids get a did-you-mean, and the shared published runs
// resolve.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "modelcalc/hf_config.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR

namespace modelcalc {
namespace {

// Llama (modeling_llama.py, LlamaForCausalLM): per layer q d x h.hd, k and v
// d x kv.hd each, o h.hd x d, gate/up/down 3 x d x ff, two RMSNorms of d; the
// final norm d; embed_tokens and an untied lm_head V x d each.
//
// Llama-2-13b: d 5120, L 40, h 40 = kv (MHA), hd 128, ff 13824, V 32000.
// Layer: 4 x 5120^2 = 104,857,600 + 3 x 5120 x 13824 = 212,336,640 + 10,240
// = 317,204,480; x 40 = 12,688,179,200; + 5,120 + 2 x 163,840,000
// = 13,015,864,320 (Meta's "13B").
constexpr int64_t kLlama2_13b = 13'015'864'320;
// Llama-2-70b: d 8192, L 80, h 64, kv 8, hd 128, ff 28672, V 32000.
// Layer: q 67,108,864 + k, v 2 x 8192 x 1024 = 16,777,216 + o 67,108,864
// = 150,994,944; MLP 3 x 8192 x 28672 = 704,643,072; norms 16,384
// -> 855,654,400; x 80 = 68,452,352,000; + 8,192 + 2 x 262,144,000
// = 68,976,648,192 (Meta's "70B").
constexpr int64_t kLlama2_70b = 68'976'648'192;
// Llama-3.1-70B / 3.3-70B: Llama-2-70b's layers with V 128256:
// 68,452,352,000 + 8,192 + 2 x 1,050,673,152 = 70,553,706,496.
constexpr int64_t kLlama31_70b = 70'553'706'496;
// Llama-3.1-405B: d 16384, L 126, h 128, kv 8, hd 128, ff 53248, V 128256.
// Layer: q, o 2 x 268,435,456 + k, v 2 x 16,777,216 = 570,425,344; MLP
// 3 x 16384 x 53248 = 2,617,245,696; norms 32,768 -> 3,187,703,808; x 126
// = 401,650,679,808; + 16,384 + 2 x 2,101,346,304 = 405,853,388,800.
constexpr int64_t kLlama31_405b = 405'853'388'800;
// Qwen3 (modeling_qwen3.py): Llama's layer plus q_norm and k_norm of hd each.
// Qwen3-32B: d 5120, L 64, h 64, kv 8, hd 128, ff 25600, V 151936, untied.
// Layer: q, o 2 x 5120 x 8192 = 83,886,080 + k, v 2 x 5,242,880 = 94,371,840;
// q/k norms 256; MLP 3 x 5120 x 25600 = 393,216,000; norms 10,240
// -> 487,598,336; x 64 = 31,206,293,504; + 5,120 + 2 x 777,912,320
// = 32,762,123,264.
constexpr int64_t kQwen3_32b = 32'762'123'264;
// Qwen3-MoE (modeling_qwen3_moe.py) Qwen3-235B-A22B: d 4096, L 94, h 64, kv 4,
// hd 128, 128 experts of 1536 (gate/up/down), router 4096 x 128, V 151936.
// Layer: q, o 2 x 33,554,432 + k, v 2 x 2,097,152 = 71,303,168; q/k norms
// 256; experts 128 x 18,874,368 = 2,415,919,104; router 524,288; norms 8,192
// -> 2,487,755,008; x 94 = 233,848,970,752; + 4,096 + 2 x 622,329,856
// = 235,093,634,560.
constexpr int64_t kQwen3_235b = 235'093'634'560;
// Derived in hf_config_test.cc (FixtureTotalsMatchParamsTsv and the preset tests).
constexpr int64_t kLlama2_7b = 6'738'415'616, kLlama31_8b = 8'030'261'248, kLlama32_1b = 1'235'814'400,
                  kMistral7b = 7'241'732'096, kMixtral8x7b = 46'702'792'704, kMixtral8x22b = 140'630'071'296,
                  kQwen25_7b = 7'615'616'512, kQwen25_72b = 72'706'203'648, kQwen3_8b = 8'190'735'360,
                  kQwen3_30b = 30'532'122'624, kGemma2_9b = 9'241'705'984;
// DeepSeek-V3 (hf_config_test.cc, DeepSeekV3): 671,026,404,352. DeepSeek-R1's
// config (tests/fixtures/hf-configs-2026) differs from V3's only in auto_map,
// transformers_version, aux_loss_alpha and seq_aux, none of which builds a
// parameter, so R1 and R1-0528 count the same.
constexpr int64_t kDeepSeekV3 = 671'026'404'352;
// Derived in hf_config_2026_test.cc.
constexpr int64_t kKimiK2 = 1'026'408'209'408, kScout = 107'769'861'120, kMaverick = 400'711'848'960;

struct Listed {
  const char* id;
  const char* preset;
  int64_t total;
};
constexpr Listed kListed[] = {
    {"meta-llama/Llama-2-7b-hf", "llama-2-7b", kLlama2_7b},
    {"meta-llama/Llama-2-7b-chat-hf", "llama-2-7b", kLlama2_7b},
    {"meta-llama/Llama-2-13b-hf", "llama-2-13b", kLlama2_13b},
    {"meta-llama/Llama-2-13b-chat-hf", "llama-2-13b", kLlama2_13b},
    {"meta-llama/Llama-2-70b-hf", "llama-2-70b", kLlama2_70b},
    {"meta-llama/Llama-2-70b-chat-hf", "llama-2-70b", kLlama2_70b},
    {"meta-llama/Llama-3.1-8B", "llama-3.1-8b", kLlama31_8b},
    {"meta-llama/Meta-Llama-3.1-8B", "llama-3.1-8b", kLlama31_8b},
    {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b", kLlama31_8b},
    {"meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b", kLlama31_8b},
    {"nvidia/Llama-3.1-8B-Instruct-FP8", "llama-3.1-8b", kLlama31_8b},
    {"nvidia/Llama-3.1-8B-Instruct-FP4", "llama-3.1-8b", kLlama31_8b},
    {"meta-llama/Llama-3.1-70B", "llama-3.1-70b", kLlama31_70b},
    {"meta-llama/Meta-Llama-3.1-70B", "llama-3.1-70b", kLlama31_70b},
    {"meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b", kLlama31_70b},
    {"meta-llama/Meta-Llama-3.1-70B-Instruct", "llama-3.1-70b", kLlama31_70b},
    {"nvidia/Llama-3.1-70B-Instruct-FP8", "llama-3.1-70b", kLlama31_70b},
    {"amd/Llama-3.1-70B-Instruct-FP8-KV", "llama-3.1-70b", kLlama31_70b},
    {"meta-llama/Llama-3.1-405B", "llama-3.1-405b", kLlama31_405b},
    {"meta-llama/Meta-Llama-3.1-405B", "llama-3.1-405b", kLlama31_405b},
    {"meta-llama/Llama-3.1-405B-Instruct", "llama-3.1-405b", kLlama31_405b},
    {"meta-llama/Meta-Llama-3.1-405B-Instruct", "llama-3.1-405b", kLlama31_405b},
    {"nvidia/Llama-3.1-405B-Instruct-FP8", "llama-3.1-405b", kLlama31_405b},
    {"amd/Llama-3.1-405B-Instruct-FP8-KV", "llama-3.1-405b", kLlama31_405b},
    {"meta-llama/Llama-3.2-1B", "llama-3.2-1b", kLlama32_1b},
    {"meta-llama/Llama-3.2-1B-Instruct", "llama-3.2-1b", kLlama32_1b},
    {"meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b", kLlama31_70b},
    {"nvidia/Llama-3.3-70B-Instruct-FP8", "llama-3.3-70b", kLlama31_70b},
    {"nvidia/Llama-3.3-70B-Instruct-FP4", "llama-3.3-70b", kLlama31_70b},
    {"mistralai/Mistral-7B-v0.1", "mistral-7b-v0.1", kMistral7b},
    {"mistralai/Mistral-7B-Instruct-v0.1", "mistral-7b-v0.1", kMistral7b},
    {"mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b-v0.1", kMixtral8x7b},
    {"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b-v0.1", kMixtral8x7b},
    {"mistralai/Mixtral-8x22B-v0.1", "mixtral-8x22b-v0.1", kMixtral8x22b},
    {"mistralai/Mixtral-8x22B-Instruct-v0.1", "mixtral-8x22b-v0.1", kMixtral8x22b},
    {"deepseek-ai/DeepSeek-V3", "deepseek-v3", kDeepSeekV3},
    {"deepseek-ai/DeepSeek-V3-Base", "deepseek-v3", kDeepSeekV3},
    {"deepseek-ai/DeepSeek-V3-0324", "deepseek-v3", kDeepSeekV3},
    {"nvidia/DeepSeek-V3-0324-FP4", "deepseek-v3", kDeepSeekV3},
    {"deepseek-ai/DeepSeek-R1", "deepseek-r1", kDeepSeekV3},
    {"deepseek-ai/DeepSeek-R1-0528", "deepseek-r1", kDeepSeekV3},
    {"deepseek-ai/DeepSeek-R1-Zero", "deepseek-r1", kDeepSeekV3},
    {"nvidia/DeepSeek-R1-FP4", "deepseek-r1", kDeepSeekV3},
    {"nvidia/DeepSeek-R1-0528-FP4", "deepseek-r1", kDeepSeekV3},
    {"nvidia/DeepSeek-R1-0528-FP4-v2", "deepseek-r1", kDeepSeekV3},
    {"Qwen/Qwen2.5-7B", "qwen2.5-7b", kQwen25_7b},
    {"Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b", kQwen25_7b},
    {"Qwen/Qwen2.5-72B", "qwen2.5-72b", kQwen25_72b},
    {"Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b", kQwen25_72b},
    {"Qwen/Qwen3-8B", "qwen3-8b", kQwen3_8b},
    {"Qwen/Qwen3-8B-FP8", "qwen3-8b", kQwen3_8b},
    {"Qwen/Qwen3-32B", "qwen3-32b", kQwen3_32b},
    {"Qwen/Qwen3-32B-FP8", "qwen3-32b", kQwen3_32b},
    {"nvidia/Qwen3-32B-NVFP4", "qwen3-32b", kQwen3_32b},
    {"Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b", kQwen3_30b},
    {"Qwen/Qwen3-30B-A3B-FP8", "qwen3-30b-a3b", kQwen3_30b},
    {"nvidia/Qwen3-30B-A3B-NVFP4", "qwen3-30b-a3b", kQwen3_30b},
    {"Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b", kQwen3_235b},
    {"Qwen/Qwen3-235B-A22B-FP8", "qwen3-235b-a22b", kQwen3_235b},
    {"nvidia/Qwen3-235B-A22B-NVFP4", "qwen3-235b-a22b", kQwen3_235b},
    {"google/gemma-2-9b", "gemma-2-9b", kGemma2_9b},
    {"google/gemma-2-9b-it", "gemma-2-9b", kGemma2_9b},
    {"moonshotai/Kimi-K2-Instruct", "kimi-k2", kKimiK2},
    {"moonshotai/Kimi-K2-Base", "kimi-k2", kKimiK2},
    {"moonshotai/Kimi-K2-Instruct-0905", "kimi-k2", kKimiK2},
    {"meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout", kScout},
    {"meta-llama/Llama-4-Scout-17B-16E", "llama-4-scout", kScout},
    {"meta-llama/Llama-4-Maverick-17B-128E-Instruct", "llama-4-maverick", kMaverick},
    {"meta-llama/Llama-4-Maverick-17B-128E", "llama-4-maverick", kMaverick},
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TEST(Presets, EveryListedIdResolvesToItsPresetsExactCount) {
  std::map<std::string, const Listed*> table;
  for (const Listed& l : kListed) table[l.id] = &l;
  for (const Listed& l : kListed) {
    auto r = resolve_model_id(l.id);
    ASSERT_TRUE(r.ok()) << l.id << ": " << r.status().message();
    EXPECT_EQ(r->preset, l.preset) << l.id;
    EXPECT_EQ(r->repo, l.id);
    EXPECT_EQ(r->spec.name, l.id);
    ASSERT_TRUE(r->spec.exact.has_value()) << l.id;
    EXPECT_EQ(r->spec.exact->total(), l.total) << l.id;
    // The Hub resolves ids whatever their case; so does the list.
    auto upper = resolve_model_id(lower(l.id));
    ASSERT_TRUE(upper.ok()) << l.id;
    EXPECT_EQ(upper->repo, l.id);
  }
  // Every id some preset lists is in the table above, and nothing else is
  // listed twice (ASCII case ignored: the Hub would resolve both to one).
  std::set<std::string> seen;
  for (const RepoInfo& r : listed_repos()) {
    if (table.count(r.id) == 0) {
      // Presets whose only repository is their own hf_repo, counted in their own tests.
      EXPECT_EQ(r.checkpoint, "") << r.id << " is listed but has no row above";
    } else {
      EXPECT_EQ(table[r.id]->preset, r.preset) << r.id;
    }
    EXPECT_TRUE(seen.insert(lower(r.id)).second) << r.id << " is listed twice";
  }
  for (const Listed& l : kListed) EXPECT_TRUE(seen.count(lower(l.id))) << l.id << " is not listed";
}

// What each quantized re-release's checkpoint holds, as its source (the
// entry's "source", data/presets/*.json) states it.
struct Checkpoint {
  const char* id;
  Dtype weights;
  std::optional<Dtype> kv;
  bool attention;  // the attention projections are quantized
};
TEST(Presets, ReReleasesCarryTheirCheckpointDtypes) {
  const Checkpoint cases[] = {
      // hf_quant_config.json: quant_algo FP8, kv_cache_quant_algo FP8, exclude lm_head.
      {"nvidia/Llama-3.1-70B-Instruct-FP8", Dtype::kFp8, Dtype::kFp8, true},
      {"nvidia/Llama-3.3-70B-Instruct-FP8", Dtype::kFp8, Dtype::kFp8, true},
      {"nvidia/Llama-3.3-70B-Instruct-FP4", Dtype::kNvfp4, Dtype::kFp8, true},
      // AMD Quark: fp8 weights with static KV-cache scales.
      {"amd/Llama-3.1-405B-Instruct-FP8-KV", Dtype::kFp8, Dtype::kFp8, true},
      // Qwen's block fp8: no KV scheme.
      {"Qwen/Qwen3-32B-FP8", Dtype::kFp8, std::nullopt, true},
      // NVIDIA's DeepSeek NVFP4: attention kept 16-bit; the v2 states FP8 KV, V3-0324's none.
      {"nvidia/DeepSeek-R1-0528-FP4-v2", Dtype::kNvfp4, Dtype::kFp8, false},
      {"nvidia/DeepSeek-V3-0324-FP4", Dtype::kNvfp4, std::nullopt, false},
  };
  for (const Checkpoint& c : cases) {
    auto r = resolve_model_id(c.id);
    ASSERT_TRUE(r.ok()) << c.id << ": " << r.status().message();
    ASSERT_TRUE(r->spec.quant.has_value()) << c.id;
    EXPECT_EQ(r->spec.quant->dtype, c.weights) << c.id;
    EXPECT_EQ(r->spec.quant->kv, c.kv) << c.id;
    EXPECT_EQ(r->spec.quant->attention, c.attention) << c.id;
    // Reports name where the dtypes come from.
    EXPECT_NE(r->spec.quant->source.find(c.id), std::string::npos) << r->spec.quant->source;
  }
  // Qwen3-32B-FP8's 128 x 128 blocks; the base repositories stay 16-bit.
  EXPECT_TRUE(resolve_model_id("Qwen/Qwen3-32B-FP8")->spec.quant->block_scales);
  EXPECT_FALSE(resolve_model_id("meta-llama/Llama-3.3-70B-Instruct")->spec.quant.has_value());
  // DeepSeek-R1-0528 is DeepSeek's own block-fp8 checkpoint, as its config says.
  auto r1 = resolve_model_id("deepseek-ai/DeepSeek-R1-0528");
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(r1->spec.quant->dtype, Dtype::kFp8);
  EXPECT_TRUE(r1->spec.quant->block_scales);
}

TEST(Presets, PresetNamesStillResolveAndNameTheSpec) {
  auto r = resolve_model_id("Llama-2-70B");  // the preset name, case and separators ignored
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->preset, "llama-2-70b");
  EXPECT_EQ(r->repo, "");
  EXPECT_EQ(r->spec.name, "llama-2-70b");
  EXPECT_EQ(r->spec.exact->total(), kLlama2_70b);
  EXPECT_EQ(find_preset("deepseek-r1")->exact->total(), kDeepSeekV3);
}

std::string error_of(std::string_view name) {
  auto r = resolve_model_id(name);
  EXPECT_FALSE(r.ok()) << name << " resolved to " << (r.ok() ? r->preset : "");
  return r.ok() ? "" : r.status().message();
}

TEST(Presets, NoPrefixNoOwnerlessIdNoClosestName) {
  // Each is refused, with the closest listed ids and the hint to pass the config.
  const struct {
    const char* typed;
    const char* suggested;
  } cases[] = {
      {"nvidia/Llama-3.3-70B-Instruct-FP9", "'nvidia/Llama-3.3-70B-Instruct-FP8'"},    // a typo
      {"meta-llama/Llama-2-70b-chat", "'meta-llama/Llama-2-70b-chat-hf'"},            // a prefix of an id
      {"deepseek-ai/DeepSeek-R1-05", "'deepseek-ai/DeepSeek-R1-0528'"},               // a prefix of an id
      {"Llama-2-70b-chat-hf", "'meta-llama/Llama-2-70b-chat-hf'"},                    // no owner
      {"DeepSeek-R1-0528", "'deepseek-ai/DeepSeek-R1-0528'"},                         // no owner
      {"meta-llama/Llama-3.1-8B-Instruct-FP8", "'nvidia/Llama-3.1-8B-Instruct-FP8'"},  // another owner's
  };
  for (const auto& c : cases) {
    const std::string e = error_of(c.typed);
    EXPECT_EQ(e.rfind("model: unknown model '" + std::string(c.typed) + "'", 0), 0u) << e;
    EXPECT_NE(e.find("did you mean"), std::string::npos) << e;
    EXPECT_NE(e.find(c.suggested), std::string::npos) << c.typed << ": " << e;
    EXPECT_NE(e.find("--config"), std::string::npos) << e;
  }
  // Nothing close: no suggestion, still the hint.
  const std::string far = error_of("someone/SomethingElse-1T");
  EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
  EXPECT_NE(far.find("pass its config.json with --config"), std::string::npos) << far;
  EXPECT_FALSE(resolve_model_id("").ok());
  EXPECT_FALSE(resolve_model_id("meta-llama/").ok());
}

TEST(Presets, RunModelAndCheckpointColumns) {
  std::string note;
  // No checkpoint: the model's.
  auto a = resolve_run_model("meta-llama/Llama-3.1-70B", "", &note);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->preset, "llama-3.1-70b");
  EXPECT_EQ(note, "");
  // A listed checkpoint, alone or with a remark in parentheses: its own dtypes.
  auto b = resolve_run_model("deepseek-ai/DeepSeek-R1-0528", "nvidia/DeepSeek-R1-0528-FP4-v2 (NVFP4)", &note);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->repo, "nvidia/DeepSeek-R1-0528-FP4-v2");
  EXPECT_EQ(b->spec.quant->dtype, Dtype::kNvfp4);
  EXPECT_EQ(note, "");
  auto c = resolve_run_model("meta-llama/Llama-3.1-70B-Instruct", "amd/Llama-3.1-70B-Instruct-FP8-KV", &note);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->repo, "amd/Llama-3.1-70B-Instruct-FP8-KV");
  // Free text: the model, and a note that the row's dtype columns stand for the checkpoint.
  auto d = resolve_run_model("meta-llama/Llama-2-70b-chat-hf",
                             "MLPerf llama2-70b-99 reference weights, quantized by submitter (fp8)", &note);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->repo, "meta-llama/Llama-2-70b-chat-hf");
  EXPECT_NE(note.find("names no repository"), std::string::npos) << note;
  EXPECT_NE(note.find("dtypes"), std::string::npos) << note;
  // An id no preset lists is refused naming its column and the id.
  auto e = resolve_run_model("meta-llama/Llama-3.1-70B", "someone/Llama-3.1-70B-int3", &note);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message().rfind("checkpoint: unknown model 'someone/Llama-3.1-70B-int3'", 0), 0u)
      << e.status().message();
  auto f = resolve_run_model("meta-llama/Llama-2-70b", "", &note);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message().rfind("model: unknown model 'meta-llama/Llama-2-70b'", 0), 0u);
  EXPECT_NE(f.status().message().find("'meta-llama/Llama-2-70b-hf'"), std::string::npos);
  // A checkpoint of another architecture than the model's.
  auto g = resolve_run_model("meta-llama/Llama-3.1-8B", "nvidia/Llama-3.3-70B-Instruct-FP8", &note);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message().rfind("checkpoint: ", 0), 0u);
  EXPECT_NE(g.status().message().find("llama-3.3-70b"), std::string::npos);
}

// tests/fixtures/published-runs/ids.tsv: every (model, checkpoint) pair of the
// shared published runs. Every architecture they use has a preset, so every
// row resolves.
TEST(Presets, TheSharedPublishedRunsResolve) {
  std::ifstream in(std::string(MODELCALC_SOURCE_DIR) + "/tests/fixtures/published-runs/ids.tsv");
  ASSERT_TRUE(in.good());
  std::string line;
  int64_t rows = 0, pairs = 0, free_text = 0;
  std::map<std::string, int64_t> rows_by_file;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("file\t", 0) == 0) continue;
    std::stringstream s(line);
    std::string file, model, checkpoint, n;
    std::getline(s, file, '\t');
    std::getline(s, model, '\t');
    std::getline(s, checkpoint, '\t');
    std::getline(s, n, '\t');
    std::string note;
    auto r = resolve_run_model(model, checkpoint, &note);
    EXPECT_TRUE(r.ok()) << file << ": " << model << " / " << checkpoint << ": " << r.status().message();
    if (!note.empty()) ++free_text;
    ++pairs;
    rows += std::stoll(n);
    rows_by_file[file] += std::stoll(n);
  }
  // The README's row counts: 395 + 1,420.
  EXPECT_EQ(rows_by_file["serving-measured.tsv"], 395);
  EXPECT_EQ(rows_by_file["serving-multiengine.tsv"], 1'420);
  EXPECT_EQ(rows, 1'815);
  EXPECT_GT(pairs, 0);
  EXPECT_GT(free_text, 0);  // the MLPerf rows' "quantized by submitter" cells
}

}  // namespace
}  // namespace modelcalc
