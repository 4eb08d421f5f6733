#include "modelcalc/hf_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include "test_paths.h"  // MODELCALC_SOURCE_DIR, MODELCALC_BINARY

namespace modelcalc {
namespace {

// Fixtures: some copied verbatim from shared/fixtures/hf-configs, some
// transcribed by hand (tests/fixtures/hf-configs/README.md says which).
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
  EXPECT_EQ(p.total(), p.embeddings + p.position + p.lm_head + p.attention + p.recurrent + p.mlp_dense +
                           p.mlp_routed + p.mlp_shared + p.router + p.norms + p.biases);
  EXPECT_LE(p.mlp_routed_active, p.mlp_routed);
  EXPECT_TRUE(validate(m).ok()) << m.name;
}

Result<ModelSpec> Parse(const std::string& text) { return model_from_hf_json(text, "test.json"); }

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
  EXPECT_EQ(m.n_swa_layers(), m.n_layer / 2);  // 21 of 42 layers slide
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

// --- transcribed fixtures (tests/fixtures/hf-configs/README.md): totals derived
// by hand from each modeling_<type>.py; published figures only cross-check ---

TEST(HfConfigTest, Pythia160mAndPythia1b) {
  // gpt_neox, attention_bias true, untied embed_out without bias. Per layer:
  // query_key_value d x 3d + 3d, dense d x d + d, dense_h_to_4h d x ff + ff,
  // dense_4h_to_h ff x d + d, input/post_attention LayerNorm 2 x 2d;
  // use_parallel_residual has no parameters. Plus final_layer_norm 2d.
  // pythia-160m: d 768, ff 3072, L 12, V 50304.
  // Layer: 1,769,472 + 2,304 + 589,824 + 768 + 2,359,296 + 3,072 + 2,359,296
  // + 768 + 3,072 = 7,087,872; x 12 = 85,054,464; + final 1,536 = 85,056,000
  // (the Pythia table's non-embedding count); + 2 x 50304 x 768 (77,266,944)
  // = 162,322,944 (published total).
  const ModelSpec s = LoadFixture("pythia-160m");
  EXPECT_EQ(s.exact->total(), 162'322'944);
  EXPECT_EQ(s.exact->lm_head, 38'633'472);
  EXPECT_EQ(s.exact->norms, 12 * 3'072 + 1'536);
  EXPECT_EQ(s.exact->biases, 12 * (2'304 + 768 + 3'072 + 768));
  ExpectConsistent(s);
  // pythia-1b: d 2048, ff 8192, L 16. Layer: 12 d^2 = 50,331,648 + biases 9d
  // = 18,432 + LayerNorms 4d = 8,192 -> 50,358,272; x 16 = 805,732,352;
  // + final 4,096 = 805,736,448; + 2 x 50304 x 2048 (206,045,184)
  // = 1,011,781,632 (published).
  EXPECT_EQ(LoadFixture("pythia-1b").exact->total(), 1'011'781'632);
  // attention_bias false drops query_key_value and dense biases (3d + d).
  auto r = Parse(R"({"model_type":"gpt_neox","hidden_size":768,"num_hidden_layers":12,
      "num_attention_heads":12,"intermediate_size":3072,"vocab_size":50304,
      "attention_bias":false})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exact->total(), 162'322'944 - 12 * (2'304 + 768));
}

TEST(HfConfigTest, Bloom560m) {
  // d 1024, L 24, V 250880, tied (PretrainedConfig default), ALiBi (buffer).
  // word_embeddings 250880 x 1024 = 256,901,120 + word_embeddings_layernorm
  // 2,048. Layer: query_key_value 3d^2 + 3d, dense d^2 + d, dense_h_to_4h
  // 4d^2 + 4d, dense_4h_to_h 4d^2 + d -> 12 d^2 + 9d = 12,582,912 + 9,216;
  // input/post_attention LayerNorm 4,096 -> 12,596,224; x 24 = 302,309,376.
  // ln_f 2,048. Total 559,214,592 (the model card's count).
  const ModelSpec m = LoadFixture("bloom-560m");
  EXPECT_EQ(m.exact->total(), 559'214'592);
  EXPECT_EQ(m.exact->lm_head, 0);
  EXPECT_EQ(m.exact->norms, 2'048 + 24 * 4'096 + 2'048);
  ExpectConsistent(m);
}

TEST(HfConfigTest, Phi3Mini4k) {
  // phi3: qkv_proj d -> (h + 2 kv) x d_head and gate_up_proj d -> 2 ff are fused
  // but hold the same weights as separate q/k/v and gate/up; no biases; two
  // RMSNorms per layer; untied. d 3072, L 32, h = kv = 32, ff 8192, V 32064.
  // Layer: qkv 3072 x 9216 = 28,311,552 + o_proj 9,437,184 + gate_up
  // 3072 x 16384 = 50,331,648 + down 25,165,824 + norms 6,144 = 113,252,352;
  // x 32 = 3,624,075,264; + final 3,072 + 2 x 32064 x 3072 (197,001,216)
  // = 3,821,079,552 (as published: "3.8B").
  const ModelSpec m = LoadFixture("Phi-3-mini-4k-instruct");
  EXPECT_EQ(m.exact->total(), 3'821'079'552);
  EXPECT_EQ(m.exact->biases, 0);
  EXPECT_EQ(m.n_swa, 2047);  // sliding_window passed to every layer
  EXPECT_EQ(m.n_swa_layers(), m.n_layer);  // every layer slides
  ExpectConsistent(m);
}

TEST(HfConfigTest, Olmo2_7B) {
  // olmo2: no input_layernorm; post_attention and post_feedforward RMSNorm(d);
  // q_norm RMSNorm(h x d_head) and k_norm RMSNorm(kv x d_head) over the whole
  // projection; no biases; untied. d 4096, L 32, h = kv = 32, ff 11008,
  // V 100352. Layer: 4 x 4096^2 = 67,108,864 + MLP 3 x 4096 x 11008 =
  // 135,266,304 + q_norm 4,096 + k_norm 4,096 + 2 x 4,096 = 202,391,552;
  // x 32 = 6,476,529,664; + final 4,096 + 2 x 100352 x 4096 (822,083,584)
  // = 7,298,617,344 (safetensors metadata agrees).
  const ModelSpec m = LoadFixture("OLMo-2-1124-7B");
  EXPECT_EQ(m.exact->total(), 7'298'617'344);
  EXPECT_EQ(m.exact->norms, 32 * 16'384 + 4'096);
  ExpectConsistent(m);
  // GQA narrows k_norm to kv x d_head: d 64, h 4, kv 2 (d_head 16):
  // q_norm 64 + k_norm 32 + 2 x 64 per layer + final 64 = 288.
  auto r = Parse(R"({"model_type":"olmo2","hidden_size":64,"num_hidden_layers":1,
      "num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":8,"vocab_size":10})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exact->norms, 288);
}

TEST(HfConfigTest, Qwen3_30B_A3B) {
  // qwen3_moe: every layer MoE (decoder_sparse_step 1, mlp_only_layers []),
  // 128 experts of width 768, top 8, router Linear(d, 128) without bias, no
  // shared expert; q_norm/k_norm RMSNorm(d_head); no biases; untied.
  // d 2048, L 48, h 32, kv 4, d_head 128, V 151936.
  // Layer: q 2048 x 4096 = 8,388,608 + k, v 2 x 2048 x 512 = 2,097,152 + o
  // 8,388,608 = 18,874,368; q/k norms 256; layer norms 4,096; experts 128 x
  // 3 x 2048 x 768 = 128 x 4,718,592 = 603,979,776; router 262,144
  // -> 623,120,640; x 48 = 29,909,790,720; + final 2,048 (29,909,792,768:
  // "29.9B non-embedding") + 2 x 151936 x 2048 (622,329,856)
  // = 30,532,122,624 (safetensors index metadata agrees).
  const ModelSpec m = LoadFixture("Qwen3-30B-A3B");
  EXPECT_EQ(m.exact->total(), 30'532'122'624);
  // Active: 120 idle experts x 48 layers x 4,718,592 = 27,179,089,920 fewer
  // -> 3,353,032,704 ("3.3B activated").
  EXPECT_EQ(m.exact->active(), 3'353'032'704);
  EXPECT_EQ(m.exact->router, 48 * 262'144);
  EXPECT_EQ(m.exact->mlp_dense, 0);
  EXPECT_EQ(m.exact->mlp_shared, 0);
  ExpectConsistent(m);
}

TEST(HfConfigTest, Qwen3MoeHeadDimDefaultsToHiddenOverHeads) {
  // Qwen3MoeConfig declares no head_dim (unlike Qwen3Config's 128):
  // Qwen3MoeAttention uses getattr(config, "head_dim", hidden // heads).
  // d 64, h 4 -> d_head 16, kv 2: q 64 x 64 + k, v 2 x 64 x 32 + o 64 x 64 =
  // 12,288; q_norm + k_norm 16 + 16; layer norms 128; final 64.
  auto r = Parse(R"({"model_type":"qwen3_moe","hidden_size":64,"num_hidden_layers":1,
      "num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":8,"vocab_size":10,
      "num_experts":2,"num_experts_per_tok":1,"moe_intermediate_size":8})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->n_embd_head, 16);
  EXPECT_EQ(r->exact->attention, 12'288);
  EXPECT_EQ(r->exact->norms, 32 + 128 + 64);
}

TEST(HfConfigTest, Qwen15MoeA27B) {
  // qwen2_moe: q/k/v biased (qkv_bias default true), o_proj not; 60 experts
  // of 1408, top 4; router (60 x d) without bias; one shared expert of 5632
  // plus shared_expert_gate Linear(d, 1) without bias; untied.
  // d 2048, L 24, h = kv = 16, V 151936.
  // Layer: attention 4 x 2048^2 = 16,777,216; q/k/v biases 3 x 2,048 = 6,144;
  // norms 4,096; experts 60 x 3 x 2048 x 1408 = 60 x 8,650,752 =
  // 519,045,120; router 122,880; shared 3 x 2048 x 5632 = 34,603,008 + gate
  // 2,048 -> 570,560,512; x 24 = 13,693,452,288; + final 2,048 + 2 x 151936
  // x 2048 (622,329,856) = 14,315,784,192 (safetensors metadata agrees).
  const ModelSpec m = LoadFixture("Qwen1.5-MoE-A2.7B");
  EXPECT_EQ(m.exact->total(), 14'315'784'192);
  EXPECT_EQ(m.exact->biases, 24 * 6'144);
  EXPECT_EQ(m.exact->mlp_shared, 24 * (34'603'008 + 2'048));
  // Active: 56 idle experts x 24 layers x 8,650,752 = 11,626,610,688 fewer ->
  // 2,689,173,504 ("2.7B activated"; minus embeddings 2,066,843,648: "2.0B").
  EXPECT_EQ(m.exact->active(), 2'689'173'504);
  ExpectConsistent(m);
}

TEST(HfConfigTest, QwenMoeWindowRefused) {
  // Which layers slide differs between qwen2_moe releases and from qwen2's rule.
  auto r = Parse(R"({"model_type":"qwen2_moe","hidden_size":16,"num_hidden_layers":2,
      "num_attention_heads":2,"num_key_value_heads":2,"intermediate_size":32,"vocab_size":10,
      "use_sliding_window":true})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("use_sliding_window"), std::string::npos);
}

TEST(HfConfigTest, Gemma2_2B) {
  // gemma2: d 2304, L 26, h 8, kv 4, d_head 256, ff 9216, V 256000, tied.
  // Layer: q 2304 x 2048 = 4,718,592; k, v 2 x 2304 x 1024 = 4,718,592;
  // o 4,718,592; MLP 3 x 2304 x 9216 = 63,700,992; four RMSNorms 9,216
  // -> 77,865,984; x 26 = 2,024,515,584; + final 2,304 = 2,024,517,888 (the
  // Gemma 2 report's non-embedding count); + 256000 x 2304 (589,824,000)
  // = 2,614,341,888.
  const ModelSpec m = LoadFixture("gemma-2-2b");
  EXPECT_EQ(m.exact->total(), 2'614'341'888);
  EXPECT_EQ(m.exact->lm_head, 0);
  EXPECT_EQ(m.exact->norms, 26 * 9'216 + 2'304);
  ExpectConsistent(m);
}

TEST(HfConfigTest, Falcon40bLegacyConfig) {
  // The original custom-code config: model_type "RefinedWeb", n_head 128,
  // n_head_kv 8, n_layer 60, no new_decoder_architecture key. transformers'
  // convert_custom_code_checkpoint.py turns n_head_kv into
  // new_decoder_architecture true. d 8192, d_head 64, ffn 4d, no Linear
  // biases, tied. Layer: query_key_value 8192 x (2 x 8 + 128) x 64 = 8192 x
  // 9216 = 75,497,472; dense 67,108,864; MLP 2 x 8192 x 32768 = 536,870,912;
  // ln_attn + ln_mlp 2 x 2 x 8192 = 32,768 -> 679,510,016; x 60 =
  // 40,770,600,960; + ln_f 16,384 + 65024 x 8192 (532,676,608)
  // = 41,303,293,952.
  const ModelSpec m = LoadFixture("falcon-40b");
  EXPECT_EQ(m.model_type, "falcon");
  EXPECT_EQ(m.n_head_kv, 8);
  EXPECT_EQ(m.exact->total(), 41'303'293'952);
  ExpectConsistent(m);
  // The converted hub file states the flag; same tensors, same count.
  auto r = Parse(R"({"model_type":"falcon","hidden_size":8192,"num_hidden_layers":60,
      "num_attention_heads":128,"num_kv_heads":8,"new_decoder_architecture":true,
      "parallel_attn":true,"bias":false,"vocab_size":65024})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exact->total(), 41'303'293'952);
}

TEST(HfConfigTest, DeepSeekV3AttentionBiasPlacement) {
  // modeling_deepseek_v3.py with attention_bias true: q_a_proj,
  // kv_a_proj_with_mqa and o_proj carry a bias; q_proj, q_b_proj and kv_b_proj
  // never do. d 16, h 2, q_lora 8, kv_lora 4, rope 2, nope 4, v 4, L 2 with
  // first_k_dense_replace 1, ff 32, 4 experts of 8, 1 shared, top 2, V 10.
  // Attention per layer: q_a 16 x 8 = 128, q_b 8 x 2 x 6 = 96, kv_a 16 x 6 =
  // 96, kv_b 4 x 2 x 8 = 64, o 2 x 4 x 16 = 128 -> 512; biases 8 + 6 + 16 = 30;
  // norms q_a 8 + kv_a 4 + 2 x 16 = 44. Dense layer 3 x 16 x 32 = 1,536; MoE
  // layer experts 4 x 384 = 1,536, shared 384, router 64. Embeddings and
  // lm_head 160 each; final norm 16.
  const std::string base = R"("model_type":"deepseek_v3","hidden_size":16,
      "num_hidden_layers":2,"num_attention_heads":2,"intermediate_size":32,"vocab_size":10,
      "kv_lora_rank":4,"qk_rope_head_dim":2,"qk_nope_head_dim":4,"v_head_dim":4,
      "n_routed_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":8,
      "n_shared_experts":1,"first_k_dense_replace":1,"attention_bias":true)";
  auto r = Parse("{" + base + R"(,"q_lora_rank":8})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exact->attention, 2 * 512);
  EXPECT_EQ(r->exact->biases, 2 * 30);
  EXPECT_EQ(r->exact->norms, 2 * 44 + 16);
  EXPECT_EQ(r->exact->total(), 160 + 160 + 1'024 + 60 + 104 + 1'536 + 1'536 + 384 + 64);
  EXPECT_EQ(r->exact->mlp_routed_active, 2 * 384);
  // q_lora_rank null: plain q_proj 16 x 2 x 6 = 192, unbiased; biases 6 + 16.
  auto p = Parse("{" + base + R"(,"q_lora_rank":null})");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->exact->attention, 2 * (192 + 96 + 64 + 128));
  EXPECT_EQ(p->exact->biases, 2 * 22);
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
  EXPECT_EQ(m.n_swa_layers(), m.n_layer);  // every layer slides
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

// A key the interpreter cannot place is refused by name, never counted by guess.
TEST(HfConfigTest, UnplacedKeyIsRefusedByName) {
  auto r = Parse(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,
      "intermediate_size":128,"vocab_size":100,"use_funky_gate":true})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("use_funky_gate: not placed"), std::string::npos) << r.status().message();
  // A key that builds nothing (a norm epsilon, a token id, a generation default) is placed.
  auto ok = Parse(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,
      "intermediate_size":128,"vocab_size":100,"rms_norm_eps":1e-6,"bos_token_id":1,"top_p":0.9})");
  EXPECT_TRUE(ok.ok()) << ok.status().message();
  // One that builds something at another value is refused there.
  auto cross = Parse(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,
      "intermediate_size":128,"vocab_size":100,"add_cross_attention":true})");
  ASSERT_FALSE(cross.ok());
  EXPECT_NE(cross.status().message().find("add_cross_attention"), std::string::npos);
}

// A per-layer list that disagrees with num_hidden_layers is refused naming both keys (a Nemotron-H
// pattern of 3 blocks against num_hidden_layers 4; layer_types of 2 entries against 3 layers).
TEST(HfConfigTest, PerLayerListsMustAgreeWithTheLayerCount) {
  auto r = Parse(R"({"model_type":"nemotron_h","num_hidden_layers":4,"hybrid_override_pattern":"M*-",
      "hidden_size":64,"num_attention_heads":4,"head_dim":16,"num_key_value_heads":2,"vocab_size":100,
      "intermediate_size":128,"mamba_num_heads":4,"mamba_head_dim":16,"n_groups":1,"ssm_state_size":8})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("hybrid_override_pattern"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("num_hidden_layers is 4"), std::string::npos) << r.status().message();
  auto t = Parse(R"({"model_type":"gpt_oss","hidden_size":64,"num_hidden_layers":3,"num_attention_heads":4,
      "intermediate_size":128,"vocab_size":100,"num_local_experts":4,"num_experts_per_tok":2,"num_key_value_heads":2,
      "layer_types":["sliding_attention","full_attention"]})");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("layer_types: lists 2 layers but num_hidden_layers is 3"), std::string::npos)
      << t.status().message();
}

// DeciLM's block_configs: a block the engines build differently (a linear replacement), KV heads that
// differ between layers, an unknown block key, and a list of the wrong length are refused naming the block.
TEST(HfConfigTest, BlockConfigsRefuseWhatTheyCannotPlace) {
  const std::string head = R"({"model_type":"nemotron-nas","architectures":["DeciLMForCausalLM"],"hidden_size":64,
      "num_hidden_layers":2,"num_attention_heads":4,"vocab_size":100,"intermediate_size":null,"block_configs":[)";
  const std::string ok_block = R"({"attention":{"n_heads_in_group":2,"no_op":false},"ffn":{"ffn_mult":1.0}})";
  auto good = Parse(head + ok_block + "," + R"({"attention":{"no_op":true},"ffn":{"no_op":true}}]})");
  ASSERT_TRUE(good.ok()) << good.status().message();
  // 2 x 100 x 64 embeddings and lm_head + 64 final norm; block 0: q and o 64 x 64, k and v 64 x (4 / 2) x 16,
  // input_layernorm 64, LlamaMLP 3 x 64 x 256 (int(2 x 1.0 x 64 / 3) = 42 -> 256), post norm 64; block 1 none.
  EXPECT_EQ(good.value().exact->total(), 2 * 100 * 64 + 64 + (2 * 64 * 64 + 2 * 64 * 32 + 64) + (3 * 64 * 256 + 64));
  struct Case {
    std::string blocks, says;
  };
  for (const Case& k : std::vector<Case>{
           {ok_block + R"(,{"attention":{"n_heads_in_group":4},"ffn":{"ffn_mult":1.0}}])",
            "[1].attention.n_heads_in_group: is 4 but layer 0's is 2"},
           {ok_block + R"(,{"attention":{"n_heads_in_group":2,"replace_with_linear":true},"ffn":{"ffn_mult":1.0}}])",
            "[1].attention.replace_with_linear"},
           {ok_block + R"(,{"attention":{"n_heads_in_group":2},"ffn":{"ffn_mult":1.0,"moe":{"num_experts":8}}}])",
            "[1].ffn.moe: not placed"},
           {ok_block + "]", "has 1 entries but num_hidden_layers is 2"},
       }) {
    auto r = Parse(head + k.blocks + "}");
    ASSERT_FALSE(r.ok()) << k.blocks;
    EXPECT_NE(r.status().message().find("block_configs"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(k.says), std::string::npos) << r.status().message();
  }
  // Another family does not read block_configs: the key is not placed.
  auto llama = Parse(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,
      "intermediate_size":128,"vocab_size":100,"block_configs":[]})");
  ASSERT_FALSE(llama.ok());
  EXPECT_NE(llama.status().message().find("block_configs: not placed"), std::string::npos) << llama.status().message();
}

// A wrapper the table does not hold reads its language model by that model's own row, and is refused
// naming a vision tower it cannot count rather than counted without it.
TEST(HfConfigTest, UnknownWrapperReadsItsTextModelAndRefusesAnUnknownTower) {
  const std::string text = R"("text_config":{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":128,"vocab_size":100})";
  auto r = Parse(R"({"model_type":"brand_new_vlm",)" + text + "}");
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Llama's rules on the text_config: 2 x 100 x 64 + 2 x (4 x 64 x 64 + 3 x 64 x 128 + 2 x 64) + 64.
  EXPECT_EQ(r.value().exact->total(), 2 * 100 * 64 + 2 * (4 * 64 * 64 + 3 * 64 * 128 + 2 * 64) + 64);
  auto v = Parse(R"({"model_type":"brand_new_vlm",)" + text + R"(,"vision_config":{"hidden_size":32}})");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("vision_config"), std::string::npos) << v.status().message();
  auto k = Parse(R"({"model_type":"brand_new_vlm",)" + text + R"(,"funky_projector":true})");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("funky_projector: not placed"), std::string::npos) << k.status().message();
}

// A model_type outside the family table is read by the generic rules when every key is placed, and
// says so; one a row marks unconfirmed says so too.
TEST(HfConfigTest, GenericReadingIsLabelled) {
  auto r = Parse(R"({"model_type":"brand_new_lm","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,
      "intermediate_size":128,"vocab_size":100})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Llama's rules: 2 x 100 x 64 embeddings and lm_head + 2 x (4 x 64 x 64 attention + 3 x 64 x 128 MLP
  // + 2 x 64 norms) + 64 final norm.
  EXPECT_EQ(r->exact->total(), 2 * 100 * 64 + 2 * (4 * 64 * 64 + 3 * 64 * 128 + 2 * 64) + 64);
  bool labelled = false;
  for (const auto& a : r->assumptions) labelled = labelled || a.find("not in the family table") != std::string::npos;
  EXPECT_TRUE(labelled);
  // The unknown model_type's refusal still lists the families.
  auto bad = Parse(R"({"model_type":"brand_new_lm","hidden_size":64})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("known: bloom"), std::string::npos) << bad.status().message();
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
  // A Hub id names the preset exactly (presets_test.cc tests the list); the spec is named by the id.
  EXPECT_EQ(Preset("meta-llama/Llama-3.1-8B").name, "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(Preset("meta-llama/llama-3.3-70b-instruct").name, "meta-llama/Llama-3.3-70B-Instruct");
  auto r = find_preset("llama-3.1-7b");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("model: ", 0), 0u);  // the field; the CLI says --model
  EXPECT_NE(r.status().message().find("did you mean"), std::string::npos);
  auto text = preset_config_text("gpt2");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("\"_modelcalc\""), std::string_view::npos);
}

}  // namespace
}  // namespace modelcalc
