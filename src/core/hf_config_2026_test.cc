// The readers of 2025-26 families, one config per model_type from
// tests/fixtures/hf-configs-2026 (README there: provenance, keys the fixtures
// lack). Every expected count is derived by hand from transformers'
// modeling_<type>.py, formula by formula in the comments; the model card's
// rounded total is quoted only as a cross-check.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "modelcalc/hf_config.h"
#include "modelcalc/model.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR, MODELCALC_BINARY

namespace modelcalc {
namespace {

ModelSpec Load(const std::string& name) {
  auto r = load_hf_config(std::string(MODELCALC_SOURCE_DIR) + "/tests/fixtures/hf-configs-2026/" + name +
                          ".config.json");
  EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.status().message());
  return r.ok() ? r.value() : ModelSpec{};
}

Result<ModelSpec> Parse(const std::string& text) { return model_from_hf_json(text, "test.json"); }

// The text of a fixture of tests/fixtures/hf-configs-2026.
std::string FixtureText(const std::string& name) {
  std::ifstream in(std::string(MODELCALC_SOURCE_DIR) + "/tests/fixtures/hf-configs-2026/" + name + ".config.json");
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// `text` with its first `from` replaced by `to`.
std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Every parameter in exactly one field, and a valid spec.
void ExpectConsistent(const ModelSpec& m) {
  ASSERT_TRUE(m.exact.has_value()) << m.name;
  const ParamBreakdown& p = *m.exact;
  EXPECT_EQ(p.total(), p.embeddings + p.position + p.lm_head + p.attention + p.recurrent + p.mlp_dense +
                           p.mlp_routed + p.mlp_shared + p.router + p.norms + p.biases);
  EXPECT_TRUE(validate(m).ok()) << m.name;
}

TEST(Hf2026Test, GptOss120bAlternatesSlidingAndFullWithSinksAndExpertBiases) {
  const ModelSpec m = Load("openai--gpt-oss-120b");
  ExpectConsistent(m);
  // d = 2880, L = 36, h = 64, kv = 8, d_head = 64, E = 128 (top-4), f = 2880, V = 201088, untied.
  // Embedding and lm_head: 2 x 201088 x 2880 = 1,158,266,880.
  EXPECT_EQ(m.exact->embeddings + m.exact->lm_head, 1'158'266'880);
  // Attention per layer: q 2880 x 4096 + k, v 2880 x 512 each + o 4096 x 2880 = 26,542,080,
  // plus the 64 sinks: 26,542,144; x 36 = 955,517,184.
  EXPECT_EQ(m.exact->attention, 955'517'184);
  // Attention biases: 4096 + 512 + 512 + 2880 = 8,000 a layer; x 36 = 288,000.
  EXPECT_EQ(m.exact->biases, 288'000);
  // One expert: gate_up 2880 x 5760 + its bias 5760 + down 2880 x 2880 + its bias 2880 = 24,891,840;
  // x 128 experts x 36 layers = 114,701,598,720.
  EXPECT_EQ(m.exact->mlp_routed, 114'701'598'720);
  // Router: (128 x 2880 + 128 bias) x 36 = 13,275,648.
  EXPECT_EQ(m.exact->router, 13'275'648);
  // Norms: 2 x 2880 x 36 + 2880 = 210,240.
  EXPECT_EQ(m.exact->norms, 210'240);
  // Total: 1,158,266,880 + 955,517,184 + 288,000 + 114,701,598,720 + 13,275,648 + 210,240.
  EXPECT_EQ(m.exact->total(), 116'829'156'672);  // model card: 117B
  // Active: everything but 124 of 128 experts a layer: 116,829,156,672 - 36 x 124 x 24,891,840.
  // (OpenAI's "5.1B active" counts one of the two vocabulary matrices: 5.71B - 0.58B.)
  EXPECT_EQ(m.exact->active(), 5'711'982'912);
  // layer_types: even layers slide over 128 tokens.
  EXPECT_EQ(m.n_swa, 128);
  EXPECT_EQ(m.n_swa_layers(), 18);
  EXPECT_TRUE(m.is_swa_layer(0));
  EXPECT_FALSE(m.is_swa_layer(1));
  EXPECT_TRUE(m.attn_sinks);
  // KV at 8192 tokens: 2 x 8 x 64 x 2 B = 2048 B a layer-token; 18 full layers keep 8192 tokens,
  // 18 sliding keep 128: (18 x 8192 + 18 x 128) x 2048 = 306,708,480.
  EXPECT_EQ(kv_bytes_per_sequence(m, 8192, Dtype::kBf16).value(), 306'708'480);
}

TEST(Hf2026Test, Gemma3_27bTextAndSiglipVisionTower) {
  const ModelSpec m = Load("google--gemma-3-27b-it");
  ExpectConsistent(m);
  // text_config: d = 5376, L = 62, h = 32, kv = 16, d_head = 128, f = 21504; absent keys take
  // Gemma3TextConfig's defaults: vocab 262208, tied, sliding_window_pattern 6.
  // Embedding (tied, once): 262208 x 5376 = 1,409,630,208.
  EXPECT_EQ(m.exact->embeddings, 1'409'630'208);
  EXPECT_EQ(m.exact->lm_head, 0);
  // Attention: q 5376 x 4096 + k, v 5376 x 2048 + o 4096 x 5376 = 66,060,288; x 62 = 4,095,737,856.
  EXPECT_EQ(m.exact->attention, 4'095'737'856);
  // MLP: 3 x 5376 x 21504 = 346,816,512; x 62 = 21,502,623,744.
  EXPECT_EQ(m.exact->mlp_dense, 21'502'623'744);
  // Norms: (4 x 5376 + q_norm 128 + k_norm 128) x 62 + 5376 = 1,354,496.

  EXPECT_EQ(m.exact->total(), 27'009'346'304);
  // SigLIP (h 1152, I 4304, 27 layers, patch 14, image 896, no head): patch 3 x 14 x 14 x 1152 + 1152
  // = 678,528; positions 64^2 x 1152 = 4,718,592; a layer 2 x 2304 + 4 x (1152^2 + 1152) + (1152 x 4304
  // + 4304) + (4304 x 1152 + 1152) = 15,239,504, x 27 = 411,466,608; post_layernorm 2304: 416,866,032.
  // Projector: 1152 x 5376 + 1152 = 6,194,304. Vision: 423,060,336.
  ASSERT_TRUE(m.params_vision.has_value());
  EXPECT_EQ(*m.params_vision, 423'060'336);
  // Cross-check: language model + vision = 27,432,406,640 (model card: 27B).
  EXPECT_EQ(m.exact->total() + *m.params_vision, 27'432'406'640);
  // Layer il is global iff (il + 1) % 6 == 0: 10 of 62; 52 slide over 1024 tokens.
  EXPECT_EQ(m.n_swa_layers(), 52);
  EXPECT_FALSE(m.is_swa_layer(5));
  EXPECT_TRUE(m.is_swa_layer(6));
  // KV at 8192: 2 x 16 x 128 x 2 B = 8192 B a layer-token: (10 x 8192 + 52 x 1024) x 8192.
  EXPECT_EQ(kv_bytes_per_sequence(m, 8192, Dtype::kBf16).value(), 1'107'296'256);
}

TEST(Hf2026Test, Gemma3TextOneB) {
  const ModelSpec m = Load("google--gemma-3-1b-it");
  ExpectConsistent(m);
  // d = 1152, L = 26, h = 4, kv = 1, d_head 256, f = 6912, V = 262144 tied.
  // Embedding 301,989,888; a layer: q 1152 x 1024 + k, v 1152 x 256 + o 1024 x 1152 = 2,949,120,
  // MLP 3 x 1152 x 6912 = 23,887,872, norms 4 x 1152 + 512 = 5,120: 26,842,112; x 26 = 697,894,912; final 1152.
  EXPECT_EQ(m.exact->total(), 999'885'952);  // model card: 1B
  EXPECT_FALSE(m.params_vision.has_value());
  EXPECT_EQ(m.n_swa, 512);
}

TEST(Hf2026Test, Llama4ScoutChunkedAttentionAllMoe) {
  const ModelSpec m = Load("meta-llama--Llama-4-Scout-17B-16E-Instruct");
  ExpectConsistent(m);
  // d = 5120, L = 48, h = 40, kv = 8, d_head = 128, E = 16 top-1, expert f = 8192, shared f = 8192,
  // interleave_moe_layer_step 1 (every layer MoE), V = 202048, untied.
  // Embedding + lm_head: 2 x 202048 x 5120 = 2,068,971,520.
  // Attention: 5120 x 5120 + 2 x 5120 x 1024 + 5120 x 5120 = 62,914,560; x 48 = 3,019,898,880.
  EXPECT_EQ(m.exact->attention, 3'019'898'880);
  // Experts: 16 x 3 x 5120 x 8192 = 2,013,265,920 a layer; x 48 = 96,636,764,160.
  EXPECT_EQ(m.exact->mlp_routed, 96'636'764'160);
  // Shared expert 125,829,120 and router 16 x 5120 a layer.
  EXPECT_EQ(m.exact->mlp_shared, 6'039'797'760);
  EXPECT_EQ(m.exact->router, 3'932'160);
  // Norms 2 x 5120 x 48 + 5120 (qk_norm is a weightless L2 norm).
  EXPECT_EQ(m.exact->norms, 496'640);
  EXPECT_EQ(m.exact->total(), 107'769'861'120);
  // Active: total - 15 of 16 experts a layer = 107,769,861,120 - 48 x 15 x 125,829,120 (card: 17B active).
  EXPECT_EQ(m.exact->active(), 17'172'894'720);
  // The fixture has no vision_config (the real config does): the tower is not counted, and said so.
  EXPECT_FALSE(m.params_vision.has_value());
  EXPECT_FALSE(m.assumptions.empty());
  // NoPE layers (every 4th) attend to everything; the other 36 are chunked at 8192.
  const LayerCounts c = m.count_layers();
  EXPECT_EQ(c.full, 12);
  EXPECT_EQ(c.chunked, 36);
  EXPECT_EQ(m.n_chunk, 8192);
  EXPECT_TRUE(m.is_chunked_layer(0));
  EXPECT_FALSE(m.is_chunked_layer(3));
  // KV at 16384: 2 x 8 x 128 x 2 = 4096 B a layer-token; (12 x 16384 + 36 x 8192) x 4096.
  EXPECT_EQ(kv_bytes_per_sequence(m, 16384, Dtype::kBf16).value(), 2'013'265'920);
}

TEST(Hf2026Test, Llama4ScoutVisionTowerFromTheFullConfig) {
  // The vision_config of meta-llama/Llama-4-Scout-17B-16E-Instruct's config.json (absent from the fixture),
  // as NVIDIA TensorRT-LLM's and AWS neuronx-distributed-inference's Llama 4 tests reproduce it.
  const std::string cfg = R"({"model_type": "llama4", "architectures": ["Llama4ForConditionalGeneration"],
    "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "num_hidden_layers": 48,
      "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 8192,
      "intermediate_size_mlp": 16384, "num_local_experts": 16, "num_experts_per_tok": 1,
      "interleave_moe_layer_step": 1, "vocab_size": 202048, "attention_chunk_size": 8192},
    "vision_config": {"hidden_size": 1408, "image_size": 336, "intermediate_size": 5632, "num_attention_heads": 16,
      "num_channels": 3, "num_hidden_layers": 34, "patch_size": 14, "pixel_shuffle_ratio": 0.5,
      "projector_input_dim": 4096, "projector_output_dim": 4096, "vision_output_dim": 4096}})";
  auto m = Parse(cfg);
  ASSERT_TRUE(m.ok()) << m.status().message();
  // patch_embedding 3 x 14 x 14 x 1408 = 827,904; class_embedding 1408; positions (24^2 + 1) x 1408 = 812,416;
  // layernorm_pre/post 4 x 1408 = 5,632; a layer 4 x (1408^2 + 1408) + (1408 x 5632 + 5632) + (5632 x 1408
  // + 1408) + 4 x 1408 = 23,807,872, x 34 = 809,467,648; adapter 5632 x 4096 + 4096 x 4096 = 39,845,888;
  // projector 4096 x 5120 = 20,971,520. Sum: 871,932,416.
  ASSERT_TRUE(m->params_vision.has_value());
  EXPECT_EQ(*m->params_vision, 871'932'416);
  // Cross-check: 107,769,861,120 + 871,932,416 = 108.64B (Meta: 109B total).
}

TEST(Hf2026Test, Llama4MaverickInterleavesDenseAndMoe) {
  const ModelSpec m = Load("meta-llama--Llama-4-Maverick-17B-128E-Instruct");
  ExpectConsistent(m);
  // interleave_moe_layer_step 2: layers 1, 3, ..., 47 are MoE (24), the others dense of 16384.
  EXPECT_EQ(m.n_moe_layers(), 24);
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_TRUE(m.is_moe_layer(1));
  // MoE layer: 128 x 125,829,120 + shared 125,829,120 + router 128 x 5120 = 16,232,611,840; x 24 =
  // 389,582,684,160. Dense: 3 x 5120 x 16384 x 24 = 6,039,797,760. Attention 3,019,898,880; norms 496,640;
  // vocabulary 2,068,971,520.
  EXPECT_EQ(m.exact->total(), 400'711'848'960);  // Meta: 400B total (with vision)
}

TEST(Hf2026Test, Mistral3TextAndPixtral) {
  const ModelSpec m = Load("mistralai--Mistral-Small-3.2-24B-Instruct-2506");
  ExpectConsistent(m);
  // text_config (mistral): d = 5120, L = 40, h = 32, kv = 8, d_head = 128, f = 32768, V = 131072, untied.
  // 2 x 131072 x 5120 + 40 x (52,428,800 + 503,316,480 + 10,240) + 5120 = 23,572,403,200: the same as
  // Mistral-Small-24B-2501, whose config is the text model alone.
  EXPECT_EQ(m.exact->total(), 23'572'403'200);
  EXPECT_EQ(m.exact->total(), Load("mistralai--Mistral-Small-24B-Instruct-2501").exact->total());
  // Pixtral (h 1024, I 4096, 24 layers, patch 14): patch_conv 3 x 14 x 14 x 1024 = 602,112, ln_pre 1024, a
  // layer 2 x 1024 + 4 x 1024^2 + 3 x 1024 x 4096 = 16,779,264 (x 24 = 402,702,336); projector: norm 1024,
  // merging_layer 4096 x 1024, linear_1 1024 x 5120, linear_2 5120^2 = 35,652,608. Sum: 438,958,080.
  ASSERT_TRUE(m.params_vision.has_value());
  EXPECT_EQ(*m.params_vision, 438'958'080);  // + text = 24.01B (card: 24B)
}

TEST(Hf2026Test, Glm45WithMtpBesideTheTotal) {
  const ModelSpec m = Load("zai-org--GLM-4.5");
  ExpectConsistent(m);
  // d = 5120, L = 92 (3 dense), h = 96, kv = 8, d_head = 128, attention_bias (q/k/v; o_proj never),
  // E = 160 top-8 of 1536, 1 shared, dense f = 12288, V = 151552, untied.
  // Attention 5120 x 12288 + 2 x 5120 x 1024 + 12288 x 5120 = 136,314,880 (x 92 = 12,540,968,960);
  // biases 12288 + 2 x 1024 = 14,336 (x 92 = 1,318,912).
  EXPECT_EQ(m.exact->attention, 12'540'968'960);
  EXPECT_EQ(m.exact->biases, 1'318'912);
  // MoE layer: 160 x 3 x 5120 x 1536 + 3 x 5120 x 1536 + 160 x 5120 = 3,799,285,760 (x 89); dense
  // 3 x 5120 x 12288 x 3 = 566,231,040; norms 2 x 5120 x 92 + 5120; vocabulary 2 x 151552 x 5120.
  EXPECT_EQ(m.exact->total(), 352'797'791'232);  // Z.ai: 355B total
  EXPECT_TRUE(m.router_score_bias);
  // One MTP layer: attention 136,314,880 + 14,336, MoE 3,799,285,760, two norms 10,240, enorm + hnorm
  // 10,240, eh_proj 2 x 5120^2 = 52,428,800, shared_head.norm 5120: 3,988,069,376.
  ASSERT_TRUE(m.params_mtp.has_value());
  EXPECT_EQ(*m.params_mtp, 3'988'069'376);
}

TEST(Hf2026Test, Glm47FixtureLacksAttentionBias) {
  // The GLM-4.7-FP8 fixture omits attention_bias (GLM-4.5's config says true) and the FP8 checkpoint's
  // quantization_config: read with Glm4MoeConfig's default (no bias), it counts GLM-4.5 without its 1,318,912
  // attention biases.
  const ModelSpec m = Load("zai-org--GLM-4.7-FP8");
  EXPECT_EQ(m.exact->total(), 352'797'791'232 - 1'318'912);
}

TEST(Hf2026Test, KimiK2IsDeepSeekV3ByItsArchitecture) {
  const ModelSpec m = Load("moonshotai--Kimi-K2-Instruct");
  ExpectConsistent(m);
  EXPECT_EQ(m.model_type, "kimi_k2");
  EXPECT_TRUE(m.is_mla());
  // d = 7168, L = 61 (1 dense), h = 64, q_lora 1536, kv_lora 512, rope 64, nope 128, v 128, E = 384 top-8 of
  // 2048, 1 shared, dense f = 18432, V = 163840.
  // MLA: q_a 7168 x 1536 + q_b 1536 x 64 x 192 + kv_a 7168 x 576 + kv_b 512 x 64 x 256 + o 64 x 128 x 7168
  // = 101,122,048 (x 61 = 6,168,444,928); its norms 1536 + 512.
  EXPECT_EQ(m.exact->attention, 6'168'444'928);
  // MoE layer: 384 x 44,040,192 + 44,040,192 + 384 x 7168 = 16,958,226,432, x 60 = 1,017,493,585,920;
  // dense 3 x 7168 x 18432 = 396,361,728; norms 61 x (2048 + 14336) + 7168 = 1,006,592; vocabulary
  // 2 x 163840 x 7168 = 2,348,810,240.
  EXPECT_EQ(m.exact->total(), 1'026'408'209'408);  // Moonshot: 1T total
  EXPECT_EQ(m.exact->active(), 32'861'477'888);    // 32B activated
  EXPECT_FALSE(m.params_mtp.has_value());          // num_nextn_predict_layers 0
  // Another architecture under kimi_k2 is refused, naming the key.
  auto bad = Parse(R"({"model_type": "kimi_k2", "architectures": ["KimiLinearForCausalLM"], "hidden_size": 8})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("architectures"), std::string::npos);
}

TEST(Hf2026Test, DeepSeekV32AddsTheIndexerAndItsCachedKeys) {
  const ModelSpec v3 = Load("deepseek-ai--DeepSeek-V3");
  const ModelSpec m = Load("deepseek-ai--DeepSeek-V3.2");
  ExpectConsistent(m);
  // The indexer of one layer: wq_b 1536 x 64 x 128 = 12,582,912, wk 7168 x 128 = 917,504, weights_proj
  // 7168 x 64 = 458,752 (attention) and k_norm LayerNorm(128) = 256 (norms); x 61 = 851,524,864.
  EXPECT_EQ(m.exact->total() - v3.exact->total(), 851'524'864);
  EXPECT_EQ(m.exact->attention - v3.exact->attention, 61 * (12'582'912 + 917'504 + 458'752));
  EXPECT_TRUE(m.is_dsa());
  EXPECT_EQ(m.n_index_topk, 2048);
  // Cached per token: the latent 512 + 64 and the indexer key 128, over 61 layers: 61 x 704 x 2 B.
  EXPECT_EQ(kv_bytes_per_token(m, Dtype::kBf16).value(), 85'888);
  // DeepSeek-V3's MTP layer: MLA 187,105,280 + norms 2048, MoE 256 x 44,040,192 + router 256 x 7168 + shared
  // 44,040,192, layer norms 14,336, enorm + hnorm 14,336, eh_proj 2 x 7168^2, shared_head.norm 7168:
  // 11,610,067,968 (with the stored copies of the embedding and head, 2 x 129280 x 7168, that is the
  // card's 685B - 671B); V3.2's adds its indexer, 13,959,424.
  EXPECT_EQ(*v3.params_mtp, 11'610'067'968);
  EXPECT_EQ(*m.params_mtp, 11'610'067'968 + 13'959'424);
}

TEST(Hf2026Test, Qwen3NextGatedDeltaNetEveryThreeOfFour) {
  const ModelSpec m = Load("Qwen--Qwen3-Next-80B-A3B-Thinking");
  ExpectConsistent(m);
  // d = 2048, L = 48, full_attention_interval 4 (12 attention, 36 Gated DeltaNet), h = 16, kv = 2,
  // d_head = 256, E = 512 top-10 of 512, shared 512, V = 151936, untied.
  const LayerCounts c = m.count_layers();
  EXPECT_EQ(c.full, 12);
  EXPECT_EQ(c.recurrent, 36);
  EXPECT_EQ(c.no_attn, 36);
  // Attention: q_proj with its gate 2048 x 8192 + k, v 2048 x 512 + o 4096 x 2048 = 27,262,976 (x 12).
  EXPECT_EQ(m.exact->attention, 12 * 27'262'976);
  // Gated DeltaNet: in_proj_qkvz 2048 x 12288 + in_proj_ba 2048 x 64 + conv1d 8192 x 4 + dt_bias, A_log 64
  // + out_proj 4096 x 2048 = 33,718,336 (x 36); its gated norm 128 goes to norms.
  EXPECT_EQ(m.exact->recurrent, 36 * 33'718'336);
  // MoE layer: 512 x 3 x 2048 x 512 + router 512 x 2048 + shared 3 x 2048 x 512 + shared gate 2048 (x 48).
  EXPECT_EQ(m.exact->mlp_routed + m.exact->router + m.exact->mlp_shared,
            48LL * (1'610'612'736 + 1'048'576 + 3'145'728 + 2048));
  // Norms: 48 x 2 x 2048 + 12 x (256 + 256) + 36 x 128 + 2048.
  EXPECT_EQ(m.exact->norms, 196'608 + 6'144 + 4'608 + 2'048);
  EXPECT_EQ(m.exact->total(), 79'674'391'296);  // card: 80B total, 3B activated
  // State per sequence and layer: 32 v heads x 128 x 128 = 524,288 plus the conv window 3 x 8192 = 24,576;
  // over 36 layers at 2 B: 39,518,208 B whatever the length.
  EXPECT_EQ(m.n_embd_s(), 524'288);
  EXPECT_EQ(m.n_embd_r(), 24'576);
  EXPECT_EQ(state_bytes_per_sequence(m, Dtype::kBf16).value(), 39'518'208);
  // KV only on the 12 attention layers: 12 x 2 x 2 x 256 x 2 B = 24,576 B a token.
  EXPECT_EQ(kv_bytes_per_token(m, Dtype::kBf16).value(), 24'576);
}

TEST(Hf2026Test, NemotronHPatternAndInfinity) {
  // The fixture's "time_step_limit": [0.0, Infinity] is JSON as Python writes it.
  const ModelSpec m = Load("nvidia--Nemotron-H-56B-Base-8K");
  ExpectConsistent(m);
  // hybrid_override_pattern: 118 blocks, 54 Mamba-2 (M), 10 attention (*), 54 MLP (-).
  const LayerCounts c = m.count_layers();
  EXPECT_EQ(m.n_layer, 118);
  EXPECT_EQ(c.recurrent, 54);
  EXPECT_EQ(c.full, 10);
  EXPECT_EQ(c.dense, 54);
  // Mamba-2 (heads 256 x 64 = 16384, groups 8, state 256, conv 4): in_proj 8192 x (16384 + 20480 + 256) +
  // conv1d 20480 x 4 + bias 20480 + dt_bias, A_log, D 768 + out_proj 16384 x 8192 = 438,407,936; its norm 16384.
  EXPECT_EQ(m.exact->recurrent, 54LL * 438'407'936);
  // Attention 8192^2 + 2 x 8192 x 1024 + 8192^2 = 150,994,944 (x 10); MLP (relu2) 2 x 8192 x 32768 (x 54);
  // one norm a block, norm_f, vocabulary 2 x 131072 x 8192.
  EXPECT_EQ(m.exact->attention, 10LL * 150'994'944);
  EXPECT_EQ(m.exact->mlp_dense, 54LL * 536'870'912);
  EXPECT_EQ(m.exact->total(), 56'324'350'464);  // NVIDIA: 56B
  // State: 256 x 64 x 256 + 3 x 20480 = 4,255,744 elements a Mamba layer; x 54 x 2 B.
  EXPECT_EQ(state_bytes_per_sequence(m, Dtype::kBf16).value(), 459'620'352);
}

TEST(Hf2026Test, FalconH1RunsMambaAndAttentionInEveryLayer) {
  const ModelSpec m = Load("tiiuae--Falcon-H1-7B-Instruct");
  ExpectConsistent(m);
  const LayerCounts c = m.count_layers();
  EXPECT_EQ(c.full, 44);
  EXPECT_EQ(c.recurrent, 44);
  // Attention (head_dim 128 from the config, not 3072 / 12): 3072 x 1536 + 2 x 3072 x 256 + 1536 x 3072 =
  // 11,010,048 (x 44). Mamba-2 (modeling_falcon_h1.py FalconH1Mixer; d_ssm 3072 = 24 heads x 128, 1 group,
  // state 256, conv 4): in_proj 3072 x (3072 + 3584 + 24) = 20,520,960 (conv_dim 3072 + 2 x 256 = 3584, no
  // bias); conv1d 3584 x 4 + bias 3584 = 17,920; dt_bias, A_log, D 3 x 24 = 72; out_proj 3072 x 3072 =
  // 9,437,184 -> 29,976,136 (x 44); its RMSNorm 3072.
  EXPECT_EQ(m.exact->attention, 44LL * 11'010'048);
  EXPECT_EQ(m.exact->recurrent, 44LL * 29'976'136);
  // MLP 3 x 3072 x 12288 = 113,246,208 (x 44) = 4,982,833,152; norms 44 x (2 x 3072 + 3072) + 3072 = 408,576;
  // vocabulary 2 x 130049 x 3072 = 799,021,056. Sum with 484,442,112 attention and 1,318,949,984 Mamba:
  EXPECT_EQ(m.exact->total(), 7'585'654'880);
  // About 7.59B, as the 4-bit checkpoint's size says (shared fixture README, correction of 2026-12-01; the
  // earlier copy's mistyped 48 heads and d_ssm 6144 gave 8,835,421,376).
  // State: 24 x 128 x 256 + 3 x 3584 = 797,184 elements a layer; x 44 x 2 B.
  EXPECT_EQ(state_bytes_per_sequence(m, Dtype::kBf16).value(), 70'152'192);
}

TEST(Hf2026Test, JambaMamba1WithAttentionAndMoePeriods) {
  const ModelSpec m = Load("ai21labs--AI21-Jamba-Mini-1.6");
  ExpectConsistent(m);
  // attn period 8 offset 4: layers 4, 12, 20, 28 attend; the other 28 are Mamba-1. Expert period 2 offset 1:
  // odd layers MoE (16 of 32).
  const LayerCounts c = m.count_layers();
  EXPECT_EQ(c.full, 4);
  EXPECT_EQ(c.recurrent, 28);
  EXPECT_EQ(c.moe, 16);
  EXPECT_TRUE(m.is_moe_layer(1));
  EXPECT_TRUE(m.has_attention(4));
  // Mamba-1 (inner 8192, state 16, dt_rank 256, conv 4): in_proj 4096 x 16384 + conv 8192 x 4 + 8192 + x_proj
  // 8192 x 288 + dt_proj 256 x 8192 + 8192 + A_log 8192 x 16 + D 8192 + out_proj 8192 x 4096 = 105,308,160;
  // its norms 256 + 16 + 16.
  EXPECT_EQ(m.exact->recurrent, 28LL * 105'308'160);
  // Attention 2 x 4096^2 + 2 x 4096 x 1024 (x 4); MLP 3 x 4096 x 14336 = 176,160,768 (16 dense, 16 x 16
  // experts); routers 16 x 16 x 4096; norms 32 x 8192 + 28 x 288 + 4096; vocabulary 2 x 65536 x 4096.
  EXPECT_EQ(m.exact->total(), 51'570'323'328);   // AI21: 52B total
  EXPECT_EQ(m.exact->active(), 12'110'311'296);  // 12B active
  // State: 8192 x 16 + 3 x 8192 = 155,648 elements a layer; x 28 x 2 B.
  EXPECT_EQ(state_bytes_per_sequence(m, Dtype::kBf16).value(), 8'716'288);
}

TEST(Hf2026Test, PythonJsonConstantsOnlyWhereAValueStands) {
  // Accepted as values (and then read as strings where a number was wanted), here under keys that
  // build nothing (Nemotron-H's time_step_limit, a norm epsilon).
  auto ok = Parse(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 100, "time_step_limit": [0.0, Infinity, -Infinity, NaN],
    "rms_norm_eps": NaN})");
  EXPECT_TRUE(ok.ok()) << ok.status().message();
  auto bad_value = Parse(R"({"model_type": "llama", "hidden_size": Infinity})");
  ASSERT_FALSE(bad_value.ok());
  EXPECT_NE(bad_value.status().message().find("hidden_size"), std::string::npos);
  // Garbage stays malformed: other spellings, inside words, in key position.
  for (const char* text : {R"({"a": inf})", R"({"a": Infinityx})", R"({"a": +Infinity})", R"({NaN: 1})",
                           R"({"a": nan})", R"({"a": -NaN})"}) {
    auto r = Parse(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find("malformed JSON"), std::string::npos) << text << r.status().message();
  }
  // Inside a string the constant is text, untouched.
  auto s = Parse(R"({"model_type": "Infinity"})");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("model_type 'Infinity' is not in the family table"), std::string::npos);
}

TEST(Hf2026Test, EveryFixtureReads) {
  for (const char* name :
       {"Qwen--Qwen3-235B-A22B", "Qwen--Qwen3-32B", "deepseek-ai--DeepSeek-R1", "google--gemma-3-12b-it",
        "meta-llama--Meta-Llama-3.1-70B", "microsoft--phi-4", "nvidia--DeepSeek-V3.1-NVFP4"}) {
    ExpectConsistent(Load(name));
  }
}

TEST(Hf2026Test, SmolLM3ThreeBLlamaLayersWithNoPeEveryFourthLayer) {
  const ModelSpec m = Load("HuggingFaceTB--SmolLM3-3B");
  ExpectConsistent(m);
  // modeling_smollm3.py: d = 2048, L = 36, h = 16, kv = 4, d_head = 128, f = 11008, V = 128256, tied, no biases.
  // Embedding (tied, no lm_head): 128256 x 2048 = 262,668,288.
  EXPECT_EQ(m.exact->embeddings + m.exact->lm_head, 262'668'288);
  // Attention per layer: q, o 2048 x 2048 each + k, v 2048 x 512 each = 10,485,760; x 36 = 377,487,360
  // (the 9 NoPE layers of no_rope_layers hold the same projections).
  EXPECT_EQ(m.exact->attention, 377'487'360);
  // MLP: 3 x 2048 x 11008 = 67,633,152 a layer; x 36 = 2,434,793,472.
  EXPECT_EQ(m.exact->mlp_dense, 2'434'793'472);
  // Norms: 2 x 2048 x 36 + 2048 = 149,504.
  EXPECT_EQ(m.exact->norms, 149'504);
  EXPECT_EQ(m.exact->biases, 0);
  // Total: 262,668,288 + 377,487,360 + 2,434,793,472 + 149,504 (model card: 3B).
  EXPECT_EQ(m.exact->total(), 3'075'098'624);
  EXPECT_EQ(m.n_swa_layers(), 0);
}

TEST(Hf2026Test, Granite33EightBLlamaLayersWithMultipliersThatHoldNoParameters) {
  const ModelSpec m = Load("ibm-granite--granite-3.3-8b-instruct");
  ExpectConsistent(m);
  // modeling_granite.py (Llama's modules): d = 4096, L = 40, h = 32, kv = 8, d_head = 4096 / 32 = 128,
  // f = 12800, V = 49159, tied, no biases; the four multipliers are scalars of the forward pass.
  constexpr int64_t d = 4096, L = 40, kvw = 8 * 128, f = 12800, V = 49159;
  // Embedding (tied, no lm_head): 49159 x 4096 = 201,355,264.
  EXPECT_EQ(m.exact->embeddings + m.exact->lm_head, V * d);
  EXPECT_EQ(V * d, 201'355'264);
  // Attention per layer: q, o 4096 x 4096 each + k, v 4096 x 1024 each = 41,943,040; x 40 = 1,677,721,600.
  EXPECT_EQ(m.exact->attention, L * (2 * d * d + 2 * d * kvw));
  EXPECT_EQ(m.exact->attention, 1'677'721'600);
  // MLP: gate, up, down 3 x 4096 x 12800 = 157,286,400 a layer; x 40 = 6,291,456,000.
  EXPECT_EQ(m.exact->mlp_dense, L * 3 * d * f);
  EXPECT_EQ(m.exact->mlp_dense, 6'291'456'000);
  // Norms: input and post-attention RMSNorm a layer, 2 x 4096 x 40, + the final 4096 = 331,776.
  EXPECT_EQ(m.exact->norms, 2 * d * L + d);
  EXPECT_EQ(m.exact->biases, 0);
  // Total: 201,355,264 + 1,677,721,600 + 6,291,456,000 + 331,776 (model card: 8B; the 8.17B of the
  // Granite 3.3 release).
  EXPECT_EQ(m.exact->total(), 8'170'864'640);
  EXPECT_EQ(m.n_swa_layers(), 0);
}

TEST(Hf2026Test, CommandR7bParallelBlockWithBiaslessLayerNormAndThreeSlidingLayersOfFour) {
  const ModelSpec m = Load("CohereLabs--c4ai-command-r7b-12-2024");
  ExpectConsistent(m);
  // modeling_cohere2.py: d = 4096, L = 32, h = 32, kv = 8, d_head = 4096 / 32 = 128, f = 14336, V = 256000,
  // tied, attention_bias false, the MLP never biased.
  constexpr int64_t d = 4096, L = 32, kvw = 8 * 128, f = 14336, V = 256000;
  // Embedding (tied, no lm_head): 256000 x 4096 = 1,048,576,000.
  EXPECT_EQ(m.exact->embeddings + m.exact->lm_head, V * d);
  EXPECT_EQ(V * d, 1'048'576'000);
  // Attention per layer: q, o 4096 x 4096 each + k, v 4096 x 1024 each = 41,943,040; x 32 = 1,342,177,280.
  EXPECT_EQ(m.exact->attention, L * (2 * d * d + 2 * d * kvw));
  EXPECT_EQ(m.exact->attention, 1'342'177'280);
  // MLP: gate, up, down 3 x 4096 x 14336 = 176,160,768 a layer; x 32 = 5,637,144,576.
  EXPECT_EQ(m.exact->mlp_dense, L * 3 * d * f);
  EXPECT_EQ(m.exact->mlp_dense, 5'637'144'576);
  // Norms: one Cohere2LayerNorm a layer (weight, no bias) feeding attention and MLP in parallel, 4096 x 32,
  // + the final one 4096 = 135,168.
  EXPECT_EQ(m.exact->norms, d * L + d);
  EXPECT_EQ(m.exact->norms, 135'168);
  EXPECT_EQ(m.exact->biases, 0);
  // Total: 1,048,576,000 + 1,342,177,280 + 5,637,144,576 + 135,168 (model card: 7B; 8.03B on the Hub).
  EXPECT_EQ(m.exact->total(), 8'028'033'024);
  // sliding_window_pattern 4: layer i slides unless (i + 1) % 4 == 0, so 24 of 32 over 4096 tokens.
  EXPECT_EQ(m.n_swa, 4096);
  EXPECT_EQ(m.n_swa_layers(), 24);
}

TEST(Hf2026Test, Olmo3SevenBOlmo2LayersWithThreeSlidingLayersOfFour) {
  const ModelSpec m = Load("allenai--Olmo-3-1025-7B");
  ExpectConsistent(m);
  // modeling_olmo3.py (OLMo 2's modules): d = 4096, L = 32, h = kv = 32, d_head = 128, f = 11008, V = 100278,
  // untied, no biases.
  constexpr int64_t d = 4096, L = 32, f = 11008, V = 100278;
  // Embedding and lm_head: 2 x 100278 x 4096 = 821,477,376.
  EXPECT_EQ(m.exact->embeddings + m.exact->lm_head, 2 * V * d);
  EXPECT_EQ(2 * V * d, 821'477'376);
  // Attention per layer: q, k, v, o 4096 x 4096 each = 67,108,864; x 32 = 2,147,483,648.
  EXPECT_EQ(m.exact->attention, L * 4 * d * d);
  // MLP: 3 x 4096 x 11008 = 135,266,304 a layer; x 32 = 4,328,521,728.
  EXPECT_EQ(m.exact->mlp_dense, L * 3 * d * f);
  // Norms: q_norm RMSNorm(32 x 128) + k_norm RMSNorm(32 x 128) + post_attention and post_feedforward
  // RMSNorm(4096) = 16,384 a layer; x 32, + the final 4096 = 528,384.
  EXPECT_EQ(m.exact->norms, L * (2 * 32 * 128 + 2 * d) + d);
  EXPECT_EQ(m.exact->biases, 0);
  // Total: 821,477,376 + 2,147,483,648 + 4,328,521,728 + 528,384 (model card: 7B).
  EXPECT_EQ(m.exact->total(), 7'298'011'136);
  // layer_types: 3 sliding (4096) : 1 full, 24 of 32.
  EXPECT_EQ(m.n_swa, 4096);
  EXPECT_EQ(m.n_swa_layers(), 24);
}

TEST(Hf2026Test, SeedOss36bLlamaLayersWithQkvBiasAndAnUnbiasedOutput) {
  const ModelSpec m = Load("ByteDance-Seed--Seed-OSS-36B-Instruct");
  ExpectConsistent(m);
  // modular_seed_oss.py: d = 5120, L = 64, h = 80, kv = 8, d_head = 128, f = 27648, V = 155136, untied;
  // q, k, v biased (attention_bias true), o not (attention_out_bias false), no MLP bias.
  constexpr int64_t d = 5120, L = 64, h = 80, kv = 8, dh = 128, f = 27648, V = 155136;
  // Embedding and lm_head: 2 x 155136 x 5120 = 1,588,592,640.
  EXPECT_EQ(m.exact->embeddings + m.exact->lm_head, 2 * V * d);
  EXPECT_EQ(2 * V * d, 1'588'592'640);
  // Attention per layer: q 5120 x 10240 + k, v 5120 x 1024 each + o 10240 x 5120 = 115,343,360; x 64.
  EXPECT_EQ(m.exact->attention, L * (2 * d * h * dh + 2 * d * kv * dh));
  EXPECT_EQ(m.exact->attention, 7'381'975'040);
  // Biases: q 10240 + k 1024 + v 1024 = 12,288 a layer (none on o); x 64 = 786,432.
  EXPECT_EQ(m.exact->biases, L * (h * dh + 2 * kv * dh));
  EXPECT_EQ(m.exact->biases, 786'432);
  // MLP: 3 x 5120 x 27648 = 424,673,280 a layer; x 64 = 27,179,089,920.
  EXPECT_EQ(m.exact->mlp_dense, L * 3 * d * f);
  // Norms: input and post-attention RMSNorm(5120) a layer, x 64, + the final 5120 = 660,480.
  EXPECT_EQ(m.exact->norms, L * 2 * d + d);
  // Total: 1,588,592,640 + 7,381,975,040 + 786,432 + 27,179,089,920 + 660,480 (model card: 36B).
  EXPECT_EQ(m.exact->total(), 36'151'104'512);
  EXPECT_EQ(m.n_swa_layers(), 0);
}

TEST(Hf2026Test, SeedOssOutputBiasFollowsItsOwnKey) {
  // attention_out_bias true adds o's bias, 5120 a layer, and nothing else; attention_bias false drops q, k, v's.
  const ModelSpec base = Load("ByteDance-Seed--Seed-OSS-36B-Instruct");
  const std::string text = FixtureText("ByteDance-Seed--Seed-OSS-36B-Instruct");
  auto with = [&](const std::string& from, const std::string& to) { return Replaced(text, from, to); };
  auto o = Parse(with("\"attention_out_bias\": false", "\"attention_out_bias\": true"));
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->exact->biases - base.exact->biases, 64 * 5120);
  auto none = Parse(with("\"attention_bias\": true", "\"attention_bias\": false"));
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->exact->biases, 0);
}

TEST(Hf2026Test, Granite4HTinyMamba2AndAttentionWithMoeAndASharedMlp) {
  const ModelSpec m = Load("ibm-granite--granite-4.0-h-tiny");
  ExpectConsistent(m);
  // modeling_granitemoehybrid.py: d = 1536, L = 40 (attention at 5, 15, 25, 35; 36 Mamba-2), h = 12, kv = 4,
  // d_head = 1536 / 12 = 128; E = 64 (top-6) of f = 512, shared_mlp fs = 1024 on every layer; V = 100352, tied.
  constexpr int64_t d = 1536, L = 40, La = 4, Lm = 36, h = 12, kv = 4, dh = 128, E = 64, f = 512, fs = 1024;
  constexpr int64_t V = 100352;
  EXPECT_EQ(m.count_layers().recurrent, Lm);
  EXPECT_EQ(m.count_layers().full, La);
  EXPECT_FALSE(m.has_attention(0));
  EXPECT_TRUE(m.has_attention(5));
  EXPECT_EQ(m.exact->embeddings, V * d);  // 154,140,672
  EXPECT_EQ(m.exact->lm_head, 0);
  // Attention: q, o 1536 x 1536 + k, v 1536 x 512 = 6,291,456 a layer, x 4.
  EXPECT_EQ(m.exact->attention, La * (2 * d * h * dh + 2 * d * kv * dh));
  // Mamba-2: inner 2 x 1536 = 48 x 64 = 3072, conv_dim 3072 + 2 x 1 x 128 = 3328, in_proj 1536 x (3072 + 3328
  // + 48) = 9,904,128; conv 3328 x 4 + bias 3328; dt_bias, A_log, D 3 x 48; out_proj 3072 x 1536 = 4,718,592:
  // 14,639,504 a layer, x 36 = 527,022,144.
  EXPECT_EQ(m.exact->recurrent, 527'022'144);
  // Experts: input_linear (64, 1024, 1536) + output_linear (64, 1536, 512) = 150,994,944 a layer, x 40.
  EXPECT_EQ(m.exact->mlp_routed, L * E * 3 * d * f);
  EXPECT_EQ(m.exact->router, L * E * d);  // 3,932,160
  // shared_mlp: input_linear 1536 x 2048 + output_linear 1024 x 1536 = 4,718,592 a layer, x 40.
  EXPECT_EQ(m.exact->mlp_shared, L * 3 * d * fs);
  // Norms: 2 x 1536 a layer, x 40, + the Mamba gated norm 3072 x 36 + the final 1536 = 235,008.
  EXPECT_EQ(m.exact->norms, L * 2 * d + Lm * 3072 + d);
  EXPECT_EQ(m.exact->biases, 0);
  EXPECT_EQ(m.exact->total(), 6'939'037'248);  // model card: 7B
  // Active: all but 58 of 64 experts a layer: 6,939,037,248 - 40 x 58 x 2,359,296 (card: "1B activated").
  EXPECT_EQ(m.exact->active(), 1'465'470'528);
  // Recurrent state a sequence (16-bit): SSM 3072 x 128 + conv window (4 - 1) x 3328 = 403,200 elements a
  // layer, x 36 x 2 B = 29,030,400 B.
  EXPECT_EQ(state_bytes_per_sequence(m, Dtype::kBf16, Dtype::kBf16).value(), 29'030'400);
}

TEST(Hf2026Test, Granite4HWithoutExpertsIsADenseHybridOfTheSharedMlp) {
  // num_local_experts 0 (Granite 4.0 H-1B's layout): no MoE block; each layer's MLP is shared_mlp of
  // shared_intermediate_size, whatever intermediate_size says.
  std::string t = FixtureText("ibm-granite--granite-4.0-h-tiny");
  auto set = [&](const std::string& from, const std::string& to) { t = Replaced(t, from, to); };
  set("\"num_local_experts\": 64", "\"num_local_experts\": 0");
  set("\"num_experts_per_tok\": 6", "\"num_experts_per_tok\": 0");
  set("\"shared_intermediate_size\": 1024", "\"shared_intermediate_size\": 4096");
  auto m = Parse(t);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->n_expert, 0);
  // Dense: 3 x 1536 x 4096 = 18,874,368 a layer, x 40 = 754,974,720 (intermediate_size 512 builds nothing).
  EXPECT_EQ(m->exact->mlp_dense, 754'974'720);
  EXPECT_EQ(m->exact->mlp_routed + m->exact->router + m->exact->mlp_shared, 0);
  // 154,140,672 + 25,165,824 + 527,022,144 + 754,974,720 + 235,008 (Granite 4.0 H-1B: 1.5B).
  EXPECT_EQ(m->exact->total(), 1'461'538'368);
  // An absent mamba_n_groups takes the class's 1: the same count.
  std::string no_groups = t;
  no_groups.erase(no_groups.find("\"mamba_n_groups\": 1,"), std::string("\"mamba_n_groups\": 1,").size());
  auto groups = Parse(no_groups);
  ASSERT_TRUE(groups.ok()) << groups.status().message();
  EXPECT_EQ(groups->exact->total(), 1'461'538'368);
  // Without layer_types the class would build every layer as Mamba, no released layout: refused.
  const size_t from = t.find("\"layer_types\"");
  std::string no_types = t;
  no_types.erase(from, t.find("],", from) + 2 - from);
  auto refused = Parse(no_types);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("layer_types"), std::string::npos) << refused.status().message();
}

TEST(Hf2026Test, Lfm2_350mShortConvolutionsAndAttentionAtTheListedLayers) {
  const ModelSpec m = Load("LiquidAI--LFM2-350M");
  ExpectConsistent(m);
  // modeling_lfm2.py: d = 1024, L = 16, attention at full_attn_idxs 2, 5, 8, 10, 12, 14 (6 layers), short
  // convolutions elsewhere (10); h = 16, kv = 8, d_head = 1024 / 16 = 64; conv_L_cache K = 3, no bias;
  // V = 65536, tied (the class default).
  constexpr int64_t d = 1024, L = 16, La = 6, Lc = 10, h = 16, kv = 8, dh = 64, K = 3, V = 65536;
  EXPECT_EQ(m.count_layers().full, La);
  EXPECT_EQ(m.count_layers().recurrent, Lc);
  EXPECT_TRUE(m.has_attention(2));
  EXPECT_FALSE(m.has_attention(3));
  EXPECT_EQ(m.recurrent, Recurrent::kShortConv);
  EXPECT_EQ(m.exact->embeddings, V * d);  // 67,108,864
  EXPECT_EQ(m.exact->lm_head, 0);
  // Attention: q, out_proj 1024 x 1024 + k, v 1024 x 512 = 3,145,728 a layer, x 6 = 18,874,368.
  EXPECT_EQ(m.exact->attention, La * (2 * d * h * dh + 2 * d * kv * dh));
  // Short conv: in_proj 1024 x 3072 + conv (1024, 1, 3) + out_proj 1024 x 1024 = 4,197,376 a layer, x 10.
  EXPECT_EQ(m.exact->recurrent, Lc * (4 * d * d + d * K));
  // MLP width: block_ff_dim 6656 -> int(2 x 6656 / 3) = 4437 -> x 1.0 -> up to a multiple of 256: 4608.
  EXPECT_EQ(m.n_ff, 4608);
  EXPECT_EQ(m.exact->mlp_dense, L * 3 * d * 4608);  // 226,492,416
  // Norms: operator_norm + ffn_norm 2 x 1024 a layer, q/k layernorms 2 x 64 on the 6 attention layers,
  // embedding_norm (the final norm) 1024: 32,768 + 768 + 1024 = 34,560.
  EXPECT_EQ(m.exact->norms, L * 2 * d + La * 2 * dh + d);
  // Total: 67,108,864 + 18,874,368 + 41,973,760 + 226,492,416 + 34,560 (model card: 354,483,968).
  EXPECT_EQ(m.exact->total(), 354'483'968);
  // KV: 2 x 8 x 64 x 2 B = 2048 B a layer-token on the 6 attention layers: 12,288 B a token.
  EXPECT_EQ(kv_bytes_per_sequence(m, 1, Dtype::kBf16).value(), 12'288);
  // State: the conv window, (3 - 1) x 1024 elements a conv layer, x 10 x 2 B = 40,960 B; no state matrix.
  EXPECT_EQ(m.n_embd_s(), 0);
  EXPECT_EQ(state_bytes_per_sequence(m, Dtype::kBf16, Dtype::kBf16).value(), 40'960);
}

TEST(Hf2026Test, Lfm2LayerTypesAndTheWidthRuleKeys) {
  const std::string text = FixtureText("LiquidAI--LFM2-350M");
  auto with = [&](const std::string& from, const std::string& to) { return Replaced(text, from, to); };
  // The newer form: layer_types listing the same layers, full_attn_idxs null.
  std::string types = "\"layer_types\": [";
  for (int il = 0; il < 16; ++il) {
    const bool attn = il == 2 || il == 5 || il == 8 || il == 10 || il == 12 || il == 14;
    types += std::string(il ? ", " : "") + (attn ? "\"full_attention\"" : "\"conv\"");
  }
  types += "], \"full_attn_idxs\": null,";
  const std::string idxs = text.substr(text.find("\"full_attn_idxs\""),
                                       text.find("],", text.find("\"full_attn_idxs\"")) + 2 -
                                           text.find("\"full_attn_idxs\""));
  auto listed = Parse(with(idxs, types));
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  EXPECT_EQ(listed->exact->total(), 354'483'968);
  // block_auto_adjust_ff_dim false keeps 6656: 16 x 3 x 1024 x (6656 - 4608) = 100,663,296 more.
  auto raw = Parse(with("\"block_auto_adjust_ff_dim\": true", "\"block_auto_adjust_ff_dim\": false"));
  ASSERT_TRUE(raw.ok()) << raw.status().message();
  EXPECT_EQ(raw->exact->total(), 354'483'968 + 100'663'296);
  // A multiplier of null skips the multiple: int(2 x 6656 / 3) = 4437, 16 x 3 x 1024 x (4437 - 4608).
  auto no_mult = Parse(with("\"block_ffn_dim_multiplier\": 1.0", "\"block_ffn_dim_multiplier\": null"));
  ASSERT_TRUE(no_mult.ok()) << no_mult.status().message();
  EXPECT_EQ(no_mult->n_ff, 4437);
  // conv_bias true: in_proj 3072 + conv 1024 + out_proj 1024 = 5120 a conv layer, x 10.
  auto biased = Parse(with("\"conv_bias\": false", "\"conv_bias\": true"));
  ASSERT_TRUE(biased.ok()) << biased.status().message();
  EXPECT_EQ(biased->exact->total() - 354'483'968, 51'200);
  // Both spellings, as Lfm2Config saves them: read when they agree, refused naming both when not.
  auto both = Parse(with("\"block_ff_dim\": 6656,", "\"block_ff_dim\": 6656, \"intermediate_size\": 6656,"));
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_EQ(both->exact->total(), 354'483'968);
  auto differ = Parse(with("\"block_ff_dim\": 6656,", "\"block_ff_dim\": 6656, \"intermediate_size\": 4608,"));
  ASSERT_FALSE(differ.ok());
  EXPECT_NE(differ.status().message().find("block_ff_dim"), std::string::npos) << differ.status().message();
  EXPECT_NE(differ.status().message().find("intermediate_size"), std::string::npos);
  // An index past the layers is refused naming both keys.
  auto bad = Parse(with("14\n  ]", "16\n  ]"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("full_attn_idxs"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("num_hidden_layers"), std::string::npos);
}

TEST(Hf2026Test, Gemma3nE2bPerLayerInputsAltUpLaurelAndKvSharing) {
  const ModelSpec m = Load("unsloth--gemma-3n-E2B-it");
  ExpectConsistent(m);
  // modeling_gemma3n.py (after PR #45489), text_config: d = 2048, L = 30, h = 8, kv = 2, d_head = 256,
  // intermediate_size [8192] x 30, V = 262400, tied; per-layer inputs p = 256 over Vp = 262144; AltUp A = 4;
  // Laurel r = 64; num_kv_shared_layers S = 10; full attention at 4, 9, ..., 29, a 512-token window elsewhere.
  constexpr int64_t d = 2048, L = 30, h = 8, kv = 2, dh = 256, f = 8192, V = 262400, Vp = 262144, p = 256;
  constexpr int64_t A = 4, r = 64, S = 10;
  // Embeddings: embed_tokens 262400 x 2048 = 537,395,200 + embed_tokens_per_layer 262144 x 30 x 256
  // = 2,013,265,920.
  EXPECT_EQ(m.exact->embeddings, V * d + Vp * L * p);
  EXPECT_EQ(m.exact->lm_head, 0);
  // Attention: q and o 2048 x 2048 on every layer, k and v 2048 x 512 on the 20 that keep KV:
  // 30 x 8,388,608 + 20 x 2,097,152 = 293,601,280.
  EXPECT_EQ(m.exact->attention, L * 2 * d * h * dh + (L - S) * 2 * d * kv * dh);
  // Dense weights: the MLPs 30 x 3 x 2048 x 8192 = 1,509,949,440; per_layer_model_projection 2048 x 7680
  // = 15,728,640; altup_projections and altup_unembed_projections 2 x 3 x 2048^2 = 25,165,824; a layer's
  // AltUp coefficients 4^2 + 4^3, its router 2048 x 4, Laurel 2 x 2048 x 64 and the per-layer gate and
  // projection 2 x 2048 x 256: 1,318,992, x 30 = 39,569,760.
  EXPECT_EQ(m.exact->mlp_dense, L * 3 * d * f + d * L * p + 2 * (A - 1) * d * d +
                                    L * (A * A + A * A * A + d * A + 2 * d * r + 2 * d * p));
  EXPECT_EQ(m.exact->mlp_dense, 1'590'413'664);
  // Norms: 4 x 2048 a layer; q_norm 256 on 30 layers, k_norm 256 on 20; the final 2048;
  // per_layer_projection_norm 256; AltUp's correct_output_scale and router_norm, post_laurel_norm and
  // post_per_layer_input_norm, 4 x 2048 a layer.
  EXPECT_EQ(m.exact->norms, L * 4 * d + L * dh + (L - S) * dh + d + p + L * 4 * d);
  EXPECT_EQ(m.exact->total(), 4'435'182'688);
  EXPECT_EQ(m.exact->active(), m.exact->total());
  // The towers beside the total. Audio: the subsample convs 1 x 128 x 9 + 128 and 128 x 32 x 9 + 32, and
  // input_proj_linear 32 channels x 32 frequencies (128 -> 64 -> 32) x 1536: 1,611,040; a conformer layer
  // of D = 1536: two feed-forwards 2 x (2D + 8D^2), attention 5D^2 + 2D + 192, light conv 3D^2 + 7D,
  // block norm D: 56,644,800, x 12; embed_audio 128 x 1536 + 2 x 1536 + 1536 x 2048 = 3,345,408.
  constexpr int64_t D = 1536;
  const int64_t audio = (1 * 128 * 9 + 128) + (128 * 32 * 9 + 32) + 32 * 32 * D +
                        12 * (2 * (2 * D + 8 * D * D) + 5 * D * D + 2 * D + D / 8 + 3 * D * D + 7 * D + D) +
                        128 * D + 2 * D + D * d;
  ASSERT_TRUE(m.params_audio.has_value());
  EXPECT_EQ(*m.params_audio, audio);
  EXPECT_EQ(*m.params_audio, 684'694'048);
  // Vision: timm's mobilenetv5_300m_enc (294,126,912) and embed_vision 128 x 2048 + 2 x 2048 + 2048 x 2048.
  ASSERT_TRUE(m.params_vision.has_value());
  EXPECT_EQ(*m.params_vision, 294'126'912 + 128 * 2048 + 2 * 2048 + 2048 * d);
  // The checkpoint (model.safetensors.index.json: total_size 10,878,876,544 B of bf16 = 5,439,438,272) holds
  // these and the shared layers' unused k_proj, v_proj and k_norm, 10 x (2 x 2048 x 512 + 256) = 20,974,080:
  // the sum checks the vision encoder's figure, the one part not derived here from keys.
  EXPECT_EQ(m.exact->total() + S * (2 * d * kv * dh + dh) + *m.params_audio + *m.params_vision,
            10'878'876'544 / 2);
  // KV: the first 20 layers keep it (16 sliding over 512, 4 full), 2 x 2 x 256 = 1024 elements a layer-token;
  // at T = 32768 in bf16: 2 B x 1024 x (4 x 32768 + 16 x 512) = 285,212,672 B.
  EXPECT_EQ(m.count_layers().full, 4);
  EXPECT_EQ(m.count_layers().sliding, 16);
  // Layers 20-29 attend (full at 24 and 29, sliding elsewhere) over layers 19's and 18's caches, holding none.
  EXPECT_TRUE(m.has_attention(20));
  EXPECT_EQ(m.kv_elems_per_token(20), 0);
  EXPECT_EQ(m.kv_elems_per_token(19), 1024);
  EXPECT_EQ(m.count_layers().shared_full, 2);
  EXPECT_EQ(m.count_layers().shared_sliding, 8);
  EXPECT_EQ(kv_bytes_per_sequence(m, 32768, Dtype::kBf16).value(), 285'212'672);
  bool said = false;
  for (const std::string& a : m.assumptions) said = said || a.find("num_kv_shared_layers") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Hf2026Test, Gemma3nRefusesWhatItCannotCount) {
  const std::string text = FixtureText("unsloth--gemma-3n-E2B-it");
  auto with = [&](const std::string& from, const std::string& to) { return Replaced(text, from, to); };
  auto arch = Parse(with("\"mobilenetv5_300m_enc\"", "\"mobilenetv5_base\""));
  ASSERT_FALSE(arch.ok());
  EXPECT_NE(arch.status().message().find("architecture"), std::string::npos) << arch.status().message();
  auto shared = Parse(with("\"num_kv_shared_layers\": 10", "\"num_kv_shared_layers\": 30"));
  ASSERT_FALSE(shared.ok());
  EXPECT_NE(shared.status().message().find("num_kv_shared_layers"), std::string::npos);
  // No sharing: k_proj, v_proj and k_norm on every layer, 10 x 2,097,408 more, and every layer keeps KV.
  auto none = Parse(with("\"num_kv_shared_layers\": 10", "\"num_kv_shared_layers\": 0"));
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->exact->total(), 4'435'182'688 + 20'974'080);
  EXPECT_EQ(none->count_layers().attention(), 30);
}

TEST(Hf2026Test, Hunyuan7bLlamaLayersWithHeadQkNormsTied) {
  const ModelSpec m = Load("tencent--Hy-MT2-7B");
  ExpectConsistent(m);
  // modular_hunyuan_v1_dense.py: d = 4096, L = 32, h = 32, kv = 8, d_head = 128, f = 14336, V = 128167, tied;
  // attention_bias false; query_layernorm and key_layernorm RMSNorm(128) a layer.
  constexpr int64_t d = 4096, L = 32, h = 32, kv = 8, dh = 128, f = 14336, V = 128167;
  // Embedding, tied: 128167 x 4096 = 524,972,032.
  EXPECT_EQ(m.exact->embeddings, V * d);
  EXPECT_EQ(m.exact->lm_head, 0);
  // Attention per layer: q 4096 x 4096 + k, v 4096 x 1024 each + o 4096 x 4096 = 41,943,040; x 32.
  EXPECT_EQ(m.exact->attention, L * (2 * d * h * dh + 2 * d * kv * dh));
  EXPECT_EQ(m.exact->biases, 0);
  // MLP: 3 x 4096 x 14336 = 176,160,768 a layer; x 32.
  EXPECT_EQ(m.exact->mlp_dense, L * 3 * d * f);
  // Norms: 2 x 4096 + q, k norms 2 x 128 = 8,448 a layer, x 32, + the final 4096 = 274,432.
  EXPECT_EQ(m.exact->norms, L * (2 * d + 2 * dh) + d);
  EXPECT_EQ(m.exact->norms, 274'432);
  // Total: 524,972,032 + 32 x 218,112,256 + 4096 (218,112,256 = 41,943,040 + 176,160,768 + 8,448).
  EXPECT_EQ(m.exact->total(), 7'504'568'320);  // the Hub's "8B" tag; 15.01 GB of bf16 shards
  EXPECT_EQ(m.exact->active(), m.exact->total());
  // KV: 2 x 32 x 8 x 128 x 2 B = 131,072 B a token.
  EXPECT_EQ(kv_bytes_per_sequence(m, 1, Dtype::kBf16).value(), 131'072);
}

TEST(Hf2026Test, HunyuanCrossLayerAttentionIsRefusedAndTheClassUnties) {
  const std::string text = FixtureText("tencent--Hy-MT2-7B");
  auto with = [&](const std::string& from, const std::string& to) { return Replaced(text, from, to); };
  // use_cla true: transformers builds k and v on every layer, vLLM shares them; not guessed.
  auto cla = Parse(with("\"use_cla\": false", "\"use_cla\": true"));
  ASSERT_FALSE(cla.ok());
  EXPECT_NE(cla.status().message().find("use_cla"), std::string::npos) << cla.status().message();
  // Without head_dim the class keeps None and transformers builds nothing: refused, never hidden / heads.
  auto no_hd = Parse(with("\"head_dim\": 128,", ""));
  ASSERT_FALSE(no_hd.ok());
  EXPECT_NE(no_hd.status().message().find("head_dim"), std::string::npos) << no_hd.status().message();
  // Without tie_word_embeddings the class default (false) adds an lm_head of 128167 x 4096 = 524,972,032.
  auto untied = Parse(with("\"tie_word_embeddings\": true,", ""));
  ASSERT_TRUE(untied.ok()) << untied.status().message();
  EXPECT_EQ(untied->exact->total(), 7'504'568'320 + 524'972'032);
}

TEST(Hf2026Test, Ernie45PointThreeBLlamaLayersTied) {
  const ModelSpec m = Load("baidu--ERNIE-4.5-0.3B-PT");
  ExpectConsistent(m);
  // modular_ernie4_5.py: d = 1024, L = 18, h = 16, kv = 2, d_head = 128, f = 3072, V = 103424, tied,
  // use_bias false (no bias anywhere).
  constexpr int64_t d = 1024, L = 18, h = 16, kv = 2, dh = 128, f = 3072, V = 103424;
  // Embedding: 103424 x 1024 = 105,906,176; tied, so no lm_head.
  EXPECT_EQ(m.exact->embeddings, V * d);
  EXPECT_EQ(m.exact->lm_head, 0);
  // Attention per layer: q 1024 x 2048 + k, v 1024 x 256 each + o 2048 x 1024 = 4,718,592; x 18 = 84,934,656.
  EXPECT_EQ(m.exact->attention, L * (2 * d * h * dh + 2 * d * kv * dh));
  EXPECT_EQ(m.exact->attention, 84'934'656);
  // MLP: 3 x 1024 x 3072 = 9,437,184 a layer; x 18 = 169,869,312.
  EXPECT_EQ(m.exact->mlp_dense, L * 3 * d * f);
  // Norms: two RMSNorm(1024) a layer, + the final = 37,888.
  EXPECT_EQ(m.exact->norms, L * 2 * d + d);
  EXPECT_EQ(m.exact->biases, 0);
  // Total: 105,906,176 + 84,934,656 + 169,869,312 + 37,888 (model card: 0.36B).
  EXPECT_EQ(m.exact->total(), 360'748'032);
}

TEST(Hf2026Test, Ernie45UseBiasBiasesEveryProjection) {
  // use_bias true: q 2048 + k 256 + v 256 + o 1024 + gate 3072 + up 3072 + down 1024 = 10,752 a layer, x 18.
  auto m = Parse(R"({"model_type": "ernie4_5", "use_bias": true})");  // the class defaults: ERNIE-4.5-0.3B's shape
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->exact->biases, 18 * (2048 + 256 + 256 + 1024 + 3072 + 3072 + 1024));
  EXPECT_EQ(m->exact->total(), 360'748'032 + 18 * 10'752);
}

TEST(Hf2026Test, Exaone4ThirtyTwoBOlmo2LayersWithHeadQkNormsAndLetterPattern) {
  const ModelSpec m = Load("LGAI-EXAONE--EXAONE-4.0-32B");
  ExpectConsistent(m);
  // modular_exaone4.py: d = 5120, L = 64, h = 40, kv = 8, d_head = 128, f = 27392, V = 102400, untied, no biases.
  constexpr int64_t d = 5120, L = 64, h = 40, kv = 8, dh = 128, f = 27392, V = 102400;
  // Embedding and lm_head: 2 x 102400 x 5120 = 1,048,576,000.
  EXPECT_EQ(m.exact->embeddings + m.exact->lm_head, 2 * V * d);
  EXPECT_EQ(2 * V * d, 1'048'576'000);
  // Attention per layer: q, o 5120 x 5120 each + k, v 5120 x 1024 each = 62,914,560; x 64 = 4,026,531,840.
  EXPECT_EQ(m.exact->attention, L * (2 * d * h * dh + 2 * d * kv * dh));
  EXPECT_EQ(m.exact->attention, 4'026'531'840);
  // MLP: 3 x 5120 x 27392 = 420,741,120 a layer; x 64 = 26,927,431,680.
  EXPECT_EQ(m.exact->mlp_dense, L * 3 * d * f);
  // Norms: q_norm and k_norm RMSNorm(128), post-attention and post-feedforward RMSNorm(5120) = 10,496 a layer;
  // x 64, + the final 5120 = 676,864.
  EXPECT_EQ(m.exact->norms, L * (2 * dh + 2 * d) + d);
  EXPECT_EQ(m.exact->norms, 676'864);
  EXPECT_EQ(m.exact->biases, 0);
  // Total: 1,048,576,000 + 4,026,531,840 + 26,927,431,680 + 676,864 (model card: 32B).
  EXPECT_EQ(m.exact->total(), 32'003'216'384);
  // "LLLG" over 64 layers: layers 3, 7, ..., 63 global (16), the other 48 slide over 4096.
  EXPECT_EQ(m.n_swa, 4096);
  EXPECT_EQ(m.n_swa_layers(), 48);
}

TEST(Hf2026Test, Exaone4PatternsByLetterIntegerOrNone) {
  // 30 layers (EXAONE-4.0-1.2B's count). Letters "LLLG": global at 3, 7, ..., 27 (7) and the final layer 29
  // (configuration_exaone4.py: the final layer always global) = 8, so 22 slide. The integer 4: global where
  // (i + 1) % 4 == 0, the same 7, and layer 29 slides: 23.
  const std::string shape = R"("model_type": "exaone4", "hidden_size": 2048, "intermediate_size": 4096,
      "num_hidden_layers": 30, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 102400,
      "sliding_window": 4096)";
  auto letters = Parse("{" + shape + R"(, "sliding_window_pattern": "LLLG"})");
  ASSERT_TRUE(letters.ok()) << letters.status().message();
  EXPECT_EQ(letters->n_swa_layers(), 22);
  auto number = Parse("{" + shape + R"(, "sliding_window_pattern": 4})");
  ASSERT_TRUE(number.ok()) << number.status().message();
  EXPECT_EQ(number->n_swa_layers(), 23);
  EXPECT_EQ(letters->exact->total(), number->exact->total());  // a window holds no weights
  auto bad = Parse("{" + shape + R"(, "sliding_window_pattern": "LLXG"})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sliding_window_pattern"), std::string::npos) << bad.status().message();
  // sliding_window null: no layer slides (EXAONE-4.0-1.2B's global-only release).
  std::string none = shape;
  const std::string window = "\"sliding_window\": 4096";
  none.replace(none.find(window), window.size(), "\"sliding_window\": null");
  auto global = Parse("{" + none + R"(, "sliding_window_pattern": "LLLG"})");
  ASSERT_TRUE(global.ok()) << global.status().message();
  EXPECT_EQ(global->n_swa_layers(), 0);
}

TEST(Hf2026Test, Ernie45MoeTwentyOneBRoutesFromLayerOneWithACountedScoreBias) {
  const ModelSpec m = Load("baidu--ERNIE-4.5-21B-A3B-PT");
  ExpectConsistent(m);
  // modeling_ernie4_5_moe.py: d = 2560, L = 28, h = 20, kv = 4, d_head = 128, dense f = 12288, E = 64 experts of
  // 1536, top 6, 2 shared (one MLP of 3072), MoE on layers 1..27, V = 103424, tied, no biases.
  constexpr int64_t d = 2560, L = 28, h = 20, kv = 4, dh = 128, f = 12288, E = 64, fe = 1536, V = 103424;
  constexpr int64_t moe_layers = 27;
  // Embedding: 103424 x 2560 = 264,765,440; tied.
  EXPECT_EQ(m.exact->embeddings, V * d);
  EXPECT_EQ(m.exact->lm_head, 0);
  // Attention per layer: q, o 2560 x 2560 each + k, v 2560 x 512 each = 15,728,640; x 28 = 440,401,920.
  EXPECT_EQ(m.exact->attention, L * (2 * d * h * dh + 2 * d * kv * dh));
  EXPECT_EQ(m.exact->attention, 440'401'920);
  // Layer 0 dense: 3 x 2560 x 12288 = 94,371,840.
  EXPECT_EQ(m.exact->mlp_dense, 3 * d * f);
  // Routed: 64 x 3 x 2560 x 1536 = 754,974,720 a MoE layer; x 27 = 20,384,317,440.
  EXPECT_EQ(m.exact->mlp_routed, moe_layers * E * 3 * d * fe);
  EXPECT_EQ(m.exact->mlp_routed, 20'384'317'440);
  // Shared: one MLP of 2 x 1536 = 3072: 3 x 2560 x 3072 = 23,592,960 a MoE layer; x 27 = 637,009,920.
  EXPECT_EQ(m.exact->mlp_shared, moe_layers * 3 * d * 2 * fe);
  // Router: gate 2560 x 64 + moe_statics' 64 (an nn.Parameter) = 163,904 a MoE layer; x 27 = 4,425,408.
  EXPECT_EQ(m.exact->router, moe_layers * (d * E + E));
  EXPECT_EQ(m.exact->router, 4'425'408);
  // Norms: two RMSNorm(2560) a layer, + the final = 145,920.
  EXPECT_EQ(m.exact->norms, L * 2 * d + d);
  EXPECT_EQ(m.exact->biases, 0);
  // Total: 264,765,440 + 440,401,920 + 94,371,840 + 20,384,317,440 + 637,009,920 + 4,425,408 + 145,920
  // (model card: 21B total, 3B activated).
  EXPECT_EQ(m.exact->total(), 21'825'437'888);
  // Active: the routed experts not chosen left out: 6 of 64, 6 x 11,796,480 x 27 = 1,911,029,760 kept.
  EXPECT_EQ(m.exact->active(), 21'825'437'888 - 20'384'317'440 + 1'911'029'760);
}

TEST(Hf2026Test, Ernie45MoePlacementByStartEndAndInterval) {
  // The class defaults (ERNIE-4.5-21B-A3B's shape) with the MoE span and step moved: layers i with
  // (i + 1) % 2 == 0 and 1 <= i <= 20 are MoE: 1, 3, ..., 19, ten of 28; the other 18 dense.
  auto m = Parse(R"({"model_type": "ernie4_5_moe", "moe_layer_interval": 2, "moe_layer_end_index": 20})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  constexpr int64_t d = 2560, f = 12288, E = 64, fe = 1536;
  EXPECT_EQ(m->exact->mlp_routed, 10 * E * 3 * d * fe);
  EXPECT_EQ(m->exact->mlp_dense, 18 * 3 * d * f);
  auto biased = Parse(R"({"model_type": "ernie4_5_moe", "use_bias": true})");
  ASSERT_FALSE(biased.ok());  // lm_head's bias is not modelled: refused, not miscounted
  EXPECT_NE(biased.status().message().find("use_bias"), std::string::npos) << biased.status().message();
  auto past = Parse(R"({"model_type": "ernie4_5_moe", "moe_layer_end_index": 28})");
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("moe_layer_end_index"), std::string::npos) << past.status().message();
}

}  // namespace
}  // namespace modelcalc
