#include "modelcalc/hf_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace modelcalc {
namespace {

// Fixtures copied verbatim from shared/fixtures/hf-configs into the repo.
std::string Fixture(const std::string& name) {
  return std::string(MODELCALC_SOURCE_DIR) + "/tests/fixtures/hf-configs/" + name + ".config.json";
}

ModelSpec LoadFixture(const std::string& name) {
  auto r = load_hf_config(Fixture(name));
  EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.status().message());
  return r.ok() ? r.value() : ModelSpec{};
}

ModelSpec Preset(const std::string& name) {
  auto r = find_preset(name);
  EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.status().message());
  return r.ok() ? r.value() : ModelSpec{};
}

// Every parameter is in exactly one field: the fields add up to total().
void ExpectConsistent(const ModelSpec& m) {
  ASSERT_TRUE(m.exact.has_value()) << m.name;
  const ParamBreakdown& p = *m.exact;
  EXPECT_EQ(p.total(), p.embeddings + p.position + p.lm_head + p.attention + p.mlp_dense +
                           p.mlp_routed + p.mlp_shared + p.router + p.norms + p.biases);
  EXPECT_LE(p.mlp_routed_active, p.mlp_routed);
  EXPECT_TRUE(validate(m).ok()) << m.name;
}

// --- fixtures: exact_total_params from shared/fixtures/hf-configs/params.tsv ---

struct FixtureCase {
  const char* file;
  int64_t total;
};

TEST(HfConfigTest, FixtureTotalsMatchParamsTsv) {
  const FixtureCase cases[] = {
      {"gpt2", 124'439'808},                // params.tsv gpt2
      {"Llama-2-7b", 6'738'415'616},        // params.tsv Llama-2-7b
      {"Llama-3.2-1B", 1'235'814'400},      // params.tsv Llama-3.2-1B (tied, once)
      {"Mistral-7B-v0.1", 7'241'732'096},   // params.tsv Mistral-7B-v0.1
      {"Mixtral-8x7B-v0.1", 46'702'792'704},  // params.tsv Mixtral-8x7B-v0.1
      {"Qwen2.5-7B", 7'615'616'512},        // params.tsv Qwen2.5-7B
      {"Qwen3-8B", 8'190'735'360},          // params.tsv Qwen3-8B
      {"gemma-2b", 2'506'172'416},          // params.tsv gemma-2b
      {"phi-2", 2'779'683'840},             // params.tsv phi-2
      {"falcon-7b", 6'921'720'704},         // params.tsv falcon-7b
      {"opt-1.3b", 1'315'758'080},          // params.tsv opt-1.3b
      {"DeepSeek-V2-Lite", 15'706'484'224},  // params.tsv DeepSeek-V2-Lite
  };
  for (const auto& c : cases) {
    const ModelSpec m = LoadFixture(c.file);
    ASSERT_TRUE(m.exact.has_value()) << c.file;
    EXPECT_EQ(m.exact->total(), c.total) << c.file;
    ExpectConsistent(m);
  }
}

// The fixtures' embedding / lm_head columns of params.tsv.
TEST(HfConfigTest, FixtureEmbeddingsAndHeads) {
  // gpt2: wte 50257 x 768 = 38,597,376; wpe 1024 x 768 = 786,432 (sum 39,383,808); tied.
  const ModelSpec gpt2 = LoadFixture("gpt2");
  EXPECT_EQ(gpt2.exact->embeddings, 38'597'376);
  EXPECT_EQ(gpt2.exact->position, 786'432);
  EXPECT_EQ(gpt2.exact->lm_head, 0);
  // Llama-3.2-1B: 128256 x 2048 = 262,668,288, tied: lm_head 0.
  const ModelSpec l32 = LoadFixture("Llama-3.2-1B");
  EXPECT_EQ(l32.exact->embeddings, 262'668'288);
  EXPECT_EQ(l32.exact->lm_head, 0);
  EXPECT_TRUE(l32.tied_embeddings);
  // phi-2: lm_head 51200 x 2560 + bias 51200 = 131,123,200 (params.tsv's
  // 131,128,320 also holds the final LayerNorm, 2 x 2560, which is in norms).
  const ModelSpec phi = LoadFixture("phi-2");
  EXPECT_EQ(phi.exact->lm_head, 131'123'200);
  // opt-1.3b: tokens 50272 x 2048 = 102,957,056; positions (2048 + 2) x 2048 = 4,198,400.
  const ModelSpec opt = LoadFixture("opt-1.3b");
  EXPECT_EQ(opt.exact->embeddings, 102'957'056);
  EXPECT_EQ(opt.exact->position, 4'198'400);
  // gemma-2b: config has no tie key; GemmaConfig ties by default. 256000 x 2048.
  const ModelSpec gemma = LoadFixture("gemma-2b");
  EXPECT_TRUE(gemma.tied_embeddings);
  EXPECT_EQ(gemma.exact->embeddings, 524'288'000);
  EXPECT_EQ(gemma.n_embd_head, 256);
  EXPECT_EQ(gemma.n_head_kv, 1);
}

TEST(HfConfigTest, MixtralActive) {
  // One expert: 3 x 4096 x 14336 = 176,160,768. Routed: 32 layers x 8 experts =
  // 45,097,156,608; active 32 x 2 = 11,274,289,152. Active = 46,702,792,704 -
  // 45,097,156,608 + 11,274,289,152 = 12,879,925,248 (params.tsv).
  const ModelSpec m = LoadFixture("Mixtral-8x7B-v0.1");
  EXPECT_EQ(m.exact->mlp_routed, 45'097'156'608);
  EXPECT_EQ(m.exact->router, 1'048'576);  // 32 x 4096 x 8, no bias
  EXPECT_EQ(m.exact->active(), 12'879'925'248);
  EXPECT_EQ(m.n_expert, 8);
  EXPECT_EQ(m.n_expert_used, 2);
  EXPECT_EQ(m.n_swa, 0);  // "sliding_window": null
}

TEST(HfConfigTest, DeepSeekV2LiteActiveAndShape) {
  // Expert: 3 x 2048 x 1408 = 8,650,752. 26 MoE layers skip 64 - 6 = 58 experts:
  // 26 x 58 x 8,650,752 = 13,045,334,016. 15,706,484,224 - that = 2,661,150,208.
  const ModelSpec m = LoadFixture("DeepSeek-V2-Lite");
  EXPECT_EQ(m.exact->active(), 2'661'150'208);
  // Shared: 26 layers x 2 x 8,650,752 = 449,839,104; router 26 x 64 x 2048 = 3,407,872.
  EXPECT_EQ(m.exact->mlp_shared, 449'839'104);
  EXPECT_EQ(m.exact->router, 3'407'872);
  EXPECT_EQ(m.n_layer_dense_lead, 1);
  EXPECT_EQ(m.n_lora_q, 0);  // no q_lora_rank: plain q_proj
  // ...and that reading is not silent: the fixture omits the key.
  ASSERT_EQ(m.assumptions.size(), 1u);
  EXPECT_NE(m.assumptions[0].find("q_lora_rank"), std::string::npos);
  EXPECT_EQ(m.n_lora_kv, 512);
  EXPECT_EQ(m.n_rot, 64);
  EXPECT_EQ(m.n_embd_head_k, 192);
  EXPECT_EQ(m.n_embd_head_v, 128);
}

TEST(HfConfigTest, FalconMultiQueryAndQwenBias) {
  const ModelSpec f = LoadFixture("falcon-7b");  // legacy "RefinedWebModel" keys
  EXPECT_EQ(f.model_type, "falcon");
  EXPECT_EQ(f.n_head_kv, 1);
  EXPECT_EQ(f.n_embd_head, 64);  // 4544 / 71
  // Qwen2.5-7B q/k/v biases: 28 x (3584 + 512 + 512) = 129,024.
  const ModelSpec q = LoadFixture("Qwen2.5-7B");
  EXPECT_EQ(q.exact->biases, 129'024);
  EXPECT_EQ(q.n_swa, 0);  // use_sliding_window false
  // Qwen3-8B norms: 36 x (2 x 4096 + 2 x 128) + 4096 = 308,224.
  const ModelSpec q3 = LoadFixture("Qwen3-8B");
  EXPECT_EQ(q3.exact->norms, 308'224);
}

// --- presets not among the fixtures, derived by hand ---

TEST(HfConfigTest, Llama31_8B) {
  // d 4096, L 32, h 32, kv 8, d_head 128, ff 14336, V 128256, untied.
  // Layer: q 4096^2 = 16,777,216; k+v 2 x 4096 x 1024 = 8,388,608; o 16,777,216;
  // MLP 3 x 4096 x 14336 = 176,160,768; norms 2 x 4096 = 8,192 -> 218,112,000.
  // 32 layers 6,979,584,000 + final norm 4,096 + 2 x 128256 x 4096 (1,050,673,152)
  // = 8,030,261,248.
  const ModelSpec m = Preset("llama-3.1-8b");
  EXPECT_EQ(m.exact->total(), 8'030'261'248);
  EXPECT_EQ(m.n_ctx_train, 131072);
  ExpectConsistent(m);
}

TEST(HfConfigTest, Qwen25_72B) {
  // d 8192, L 80, h 64, kv 8, d_head 128, ff 29568, V 152064, untied.
  // Layer: q 8192^2 = 67,108,864; k+v 2 x 8192 x 1024 = 16,777,216; o 67,108,864;
  // qkv bias 8192 + 1024 + 1024 = 10,240; MLP 3 x 8192 x 29568 = 726,663,168;
  // norms 16,384 -> 877,684,736. x 80 = 70,214,778,880; + final 8,192
  // + 2 x 152064 x 8192 (2,491,416,576) = 72,706,203,648.
  const ModelSpec m = Preset("Qwen2.5-72B");
  EXPECT_EQ(m.exact->total(), 72'706'203'648);
  ExpectConsistent(m);
}

TEST(HfConfigTest, Gemma2_9B) {
  // d 3584, L 42, h 16, kv 8, d_head 256, ff 14336, V 256000, tied.
  // Layer: q 3584 x 4096 = 14,680,064; k+v 2 x 3584 x 2048 = 14,680,064;
  // o 4096 x 3584 = 14,680,064; MLP 3 x 3584 x 14336 = 154,140,672; four norms
  // 4 x 3584 = 14,336 -> 198,195,200. x 42 = 8,324,198,400; + final 3,584
  // + 256000 x 3584 (917,504,000) = 9,241,705,984.
  const ModelSpec m = Preset("gemma-2-9b");
  EXPECT_EQ(m.exact->total(), 9'241'705'984);
  EXPECT_EQ(m.n_swa, 4096);
  EXPECT_EQ(m.n_swa_pattern, 2);
  EXPECT_TRUE(m.is_swa_layer(0));  // even layers slide (modeling_gemma2.py)
  EXPECT_FALSE(m.is_swa_layer(1));
  ExpectConsistent(m);
}

TEST(HfConfigTest, Mixtral8x22B) {
  // d 6144, L 56, h 48, kv 8, ff 16384, V 32768, 8 experts, top 2.
  // Layer: q 37,748,736 + k/v 12,582,912 + o 37,748,736 = 88,080,384; experts
  // 8 x 3 x 6144 x 16384 = 2,415,919,104; router 49,152; norms 12,288
  // -> 2,504,060,928. x 56 = 140,227,411,968; + 6,144 + 2 x 32768 x 6144
  // (402,653,184) = 140,630,071,296. Active drops 56 x 6 x 301,989,888 =
  // 101,468,602,368 -> 39,161,468,928.
  const ModelSpec m = Preset("mixtral-8x22b-v0.1");
  EXPECT_EQ(m.exact->total(), 140'630'071'296);
  EXPECT_EQ(m.exact->active(), 39'161'468'928);
}

TEST(HfConfigTest, DeepSeekV3) {
  // d 7168, L 61 (3 dense), h 128, q_lora 1536, kv_lora 512, rope 64, nope 128,
  // v 128, V 129280, ff 18432, 256 experts of 2048 + 1 shared, top 8.
  // Attention: q_a 7168 x 1536 = 11,010,048; q_b 1536 x 128 x 192 = 37,748,736;
  // kv_a 7168 x 576 = 4,128,768; kv_b 512 x 128 x 256 = 16,777,216;
  // o 16384 x 7168 = 117,440,512 -> 187,105,280; norms 1536 + 512 + 2 x 7168 =
  // 16,384. x 61 = 11,414,421,504. Dense MLP 3 x 396,361,728 = 1,189,085,184.
  // MoE layer: 257 x 44,040,192 + router 1,835,008 = 11,320,164,352; x 58 =
  // 656,569,532,416. Embeddings + lm_head 2 x 926,679,040; final norm 7,168.
  // Total 671,026,404,352: DeepSeek's 671,026,419,200 also counts
  // e_score_correction_bias (58 x 256 = 14,848), a buffer in transformers.
  const ModelSpec m = Preset("deepseek-v3");
  EXPECT_EQ(m.exact->total(), 671'026'404'352);
  // Active: minus 58 x 248 x 44,040,192 = 633,474,121,728.
  EXPECT_EQ(m.exact->active(), 37'552'282'624);
  EXPECT_EQ(m.n_lora_q, 1536);
  EXPECT_EQ(m.n_layer_dense_lead, 3);
}

// --- KV cache shape ---

TEST(HfConfigTest, MlaKvPerToken) {
  // DeepSeek-V2-Lite caches the latent 512 + rope key 64 per layer:
  // 27 x 576 x 2 B = 31,104 B per token.
  const ModelSpec m = LoadFixture("DeepSeek-V2-Lite");
  auto per_token = kv_bytes_per_token(m, Dtype::kBf16);
  ASSERT_TRUE(per_token.ok());
  EXPECT_EQ(*per_token, 31'104);
  auto seq = kv_bytes_per_sequence(m, 1000, Dtype::kBf16);
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq, 31'104'000);
}

TEST(HfConfigTest, MistralSlidingWindowKv) {
  // No "sliding_window" key in the fixture: MistralConfig's default 4096.
  // Per token per layer 8 kv x (128 + 128) x 2 B = 4,096 B; 32 layers keep 4096
  // of 8192 tokens: 32 x 4096 x 4096 = 536,870,912 B.
  const ModelSpec m = LoadFixture("Mistral-7B-v0.1");
  EXPECT_EQ(m.n_swa, 4096);
  EXPECT_EQ(m.n_swa_pattern, 1);
  auto seq = kv_bytes_per_sequence(m, 8192, Dtype::kFp16);
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq, 536'870'912);
}

TEST(HfConfigTest, Gemma2AlternatingKv) {
  // Per token per layer 8 x (256 + 256) x 2 B = 8,192 B. At 8192 tokens: 21
  // sliding layers x 4096 + 21 global layers x 8192 = 258,048 layer-tokens
  // x 8,192 B = 2,113,929,216 B.
  const ModelSpec m = Preset("gemma-2-9b");
  auto seq = kv_bytes_per_sequence(m, 8192, Dtype::kBf16);
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq, 2'113'929'216);
}

// --- small synthetic configs for the flags fixtures do not exercise ---

Result<ModelSpec> Parse(const std::string& text) { return model_from_hf_json(text, "test.json"); }

TEST(HfConfigTest, OptProjectionAndNoFinalNorm) {
  // OPT-350m-like: d 1024, proj 512, L 1, ff 4096, V 100, 10 positions, post-LN.
  // Embeddings 100 x 512 + project_in/out 2 x 512 x 1024 = 51,200 + 1,048,576.
  // Positions 12 x 1024 = 12,288. Layer: 4 x 1024^2 = 4,194,304 + biases 4,096;
  // fc1/fc2 2 x 1024 x 4096 = 8,388,608 + biases 4096 + 1024; 2 LayerNorms 4,096.
  // No final norm (do_layer_norm_before false). Tied.
  auto r = Parse(R"({"model_type":"opt","hidden_size":1024,"num_hidden_layers":1,
      "num_attention_heads":16,"ffn_dim":4096,"vocab_size":100,"max_position_embeddings":10,
      "word_embed_proj_dim":512,"do_layer_norm_before":false})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exact->embeddings, 1'099'776);
  EXPECT_EQ(r->exact->position, 12'288);
  EXPECT_EQ(r->exact->norms, 4'096);
  EXPECT_EQ(r->exact->total(), 1'099'776 + 12'288 + 4'194'304 + 4'096 + 8'388'608 + 5'120 + 4'096);
}

TEST(HfConfigTest, FalconNewDecoderArchitecture) {
  // d 64, h 8 (d_head 8), kv 2, L 1, V 10, new arch: qkv (2 x 2 + 8) x 8 = 96 wide.
  // qkv 64 x 96 = 6,144; dense 4,096; MLP 2 x 64 x 256 = 32,768; ln_attn + ln_mlp
  // 4 x 64 = 256; ln_f 128; embeddings 640 (tied).
  auto r = Parse(R"({"model_type":"falcon","hidden_size":64,"num_hidden_layers":1,
      "num_attention_heads":8,"num_kv_heads":2,"vocab_size":10,"new_decoder_architecture":true})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->n_head_kv, 2);
  EXPECT_EQ(r->exact->total(), 6'144 + 4'096 + 32'768 + 256 + 128 + 640);
}

TEST(HfConfigTest, LlamaBiasesAndHeadDim) {
  // d 64, h 4, head_dim 32 (q width 128), kv 2 (k/v width 64), ff 100, L 1, V 10.
  // q 64 x 128 + k, v 2 x 64 x 64 + o 128 x 64 = 24,576; attention biases
  // 128 + 64 + 64 + 64 = 320; MLP 3 x 64 x 100 = 19,200, biases 200 + 64 = 264.
  auto r = Parse(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,
      "num_attention_heads":4,"num_key_value_heads":2,"head_dim":32,"intermediate_size":100,
      "vocab_size":10,"attention_bias":true,"mlp_bias":true})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exact->attention, 24'576);
  EXPECT_EQ(r->exact->biases, 320 + 264);
  EXPECT_EQ(r->n_embd_head, 32);
}

TEST(HfConfigTest, Qwen2MoeSharedExpertGate) {
  // d 16, L 2, mlp_only_layers [0]: layer 0 dense (3 x 16 x 32 = 1,536), layer 1
  // MoE: 4 experts x 3 x 16 x 8 = 1,536, router 64, shared 3 x 16 x 24 + gate 16 = 1,168.
  auto r = Parse(R"({"model_type":"qwen2_moe","hidden_size":16,"num_hidden_layers":2,
      "num_attention_heads":2,"num_key_value_heads":2,"intermediate_size":32,"vocab_size":10,
      "num_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":8,
      "shared_expert_intermediate_size":24,"mlp_only_layers":[0]})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exact->mlp_dense, 1'536);
  EXPECT_EQ(r->exact->mlp_routed, 1'536);
  EXPECT_EQ(r->exact->mlp_routed_active, 768);
  EXPECT_EQ(r->exact->router, 64);
  EXPECT_EQ(r->exact->mlp_shared, 1'168);
  EXPECT_EQ(r->n_layer_dense_lead, 1);
}

// --- errors ---

TEST(HfConfigTest, UnknownModelTypeListsSupported) {
  auto r = Parse(R"({"model_type":"mamba","hidden_size":8})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("'mamba'"), std::string::npos);
  EXPECT_NE(r.status().message().find("deepseek_v3"), std::string::npos);
  EXPECT_NE(r.status().message().find("qwen3_moe"), std::string::npos);
}

TEST(HfConfigTest, MissingFieldIsNamed) {
  auto r = Parse(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,
      "num_attention_heads":4,"vocab_size":10})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("intermediate_size"), std::string::npos);
  EXPECT_NE(r.status().message().find("missing"), std::string::npos);
}

TEST(HfConfigTest, WrongTypeIsNamed) {
  auto r = Parse(R"({"model_type":"llama","hidden_size":"4096","num_hidden_layers":1,
      "num_attention_heads":4,"vocab_size":10,"intermediate_size":8})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("hidden_size"), std::string::npos);
  EXPECT_NE(r.status().message().find("expected an integer"), std::string::npos);
  auto b = Parse(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,
      "num_attention_heads":4,"vocab_size":10,"intermediate_size":8,"tie_word_embeddings":1})");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("tie_word_embeddings"), std::string::npos);
}

TEST(HfConfigTest, MalformedJsonGivesPosition) {
  auto r = Parse("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,,\n}");
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("malformed JSON at line 3"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(HfConfigTest, FolderWithoutConfig) {
  const auto dir = std::filesystem::temp_directory_path() / "modelcalc_hf_empty_dir";
  std::filesystem::create_directories(dir);
  auto r = load_hf_config(dir.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("config.json"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(HfConfigTest, FolderWithConfigUsesFolderName) {
  const auto dir = std::filesystem::temp_directory_path() / "modelcalc_hf_gpt2";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(Fixture("gpt2"), dir / "config.json",
                             std::filesystem::copy_options::overwrite_existing);
  auto r = load_hf_config(dir.string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "modelcalc_hf_gpt2");
  EXPECT_EQ(r->exact->total(), 124'439'808);
  std::filesystem::remove_all(dir);
}

TEST(HfConfigTest, PartialSlidingWindowRefused) {
  auto r = Parse(R"({"model_type":"qwen2","hidden_size":64,"num_hidden_layers":4,
      "num_attention_heads":4,"num_key_value_heads":4,"intermediate_size":8,"vocab_size":10,
      "use_sliding_window":true,"sliding_window":16,"max_window_layers":2})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("max_window_layers"), std::string::npos);
}

// --- presets ---

TEST(HfConfigTest, EveryPresetLoadsAndIsConsistent) {
  ASSERT_GE(presets().size(), 20u);
  for (const auto& p : presets()) {
    auto r = find_preset(p.name);
    ASSERT_TRUE(r.ok()) << p.name << ": " << r.status().message();
    EXPECT_EQ(r->name, p.name);
    EXPECT_FALSE(p.hf_repo.empty()) << p.name;
    ExpectConsistent(*r);
  }
}

TEST(HfConfigTest, PresetsMatchFixtureCounts) {
  // Presets of fixture models carry the official config; same totals as params.tsv.
  EXPECT_EQ(Preset("falcon-7b").exact->total(), 6'921'720'704);
  EXPECT_EQ(Preset("phi-2").exact->total(), 2'779'683'840);
  EXPECT_EQ(Preset("deepseek-v2-lite").exact->total(), 15'706'484'224);
  EXPECT_EQ(Preset("mistral-7b-v0.1").n_swa, 4096);
}

TEST(HfConfigTest, ForgivingPresetLookup) {
  EXPECT_EQ(Preset("Llama_3.1 8B").name, "llama-3.1-8b");
  EXPECT_EQ(Preset("meta-llama/Llama-3.1-8B").name, "llama-3.1-8b");
  EXPECT_EQ(Preset("Llama-3.3-70B-Instruct").name, "llama-3.3-70b");
  auto r = find_preset("llama-3.1-7b");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kNotFound);
  EXPECT_NE(r.status().message().find("did you mean"), std::string::npos);
  auto text = preset_config_text("gpt2");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("\"_modelcalc\""), std::string_view::npos);
}

}  // namespace
}  // namespace modelcalc
