// The 86 configs NVIDIA's aiconfigurator ships (tests/fixtures/hf-configs-aic, README there): each read with a
// total and an active count derived by hand from its family's modeling code, or refused naming a key. Every
// expected count below is a formula over the config's numbers, one term per module the modeling code builds
// (the file is named per family); the model card's rounded figure is quoted only as a cross-check.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "modelcalc/hf_config.h"
#include "modelcalc/model.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR

namespace modelcalc {
namespace {

std::string Dir(const std::string& name) {
  return std::string(MODELCALC_SOURCE_DIR) + "/tests/fixtures/hf-configs-aic/" + name;
}

ModelSpec Load(const std::string& name) {
  auto r = load_hf_config(Dir(name));
  EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.status().message());
  return r.ok() ? r.value() : ModelSpec{};
}

// The architecture of a config whose quantization scheme is read by issue #35's reader, not yet here:
// config.json without its quantization_config.
ModelSpec LoadArchitecture(const std::string& name) {
  std::ifstream in(Dir(name) + "/config.json");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str());
  j.erase("quantization_config");
  auto r = model_from_hf_json(j.dump(), name);
  EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.status().message());
  return r.ok() ? r.value() : ModelSpec{};
}

struct Expected {
  int64_t total, active;
  std::optional<int64_t> vision, mtp;
};

void ExpectCounts(const ModelSpec& m, const Expected& e, const std::string& name) {
  ASSERT_TRUE(m.exact.has_value()) << name;
  EXPECT_EQ(m.exact->total(), e.total) << name;
  EXPECT_EQ(m.exact->active(), e.active) << name;
  EXPECT_EQ(m.params_vision, e.vision) << name;
  EXPECT_EQ(m.params_mtp, e.mtp) << name;
  EXPECT_TRUE(validate(m).ok()) << name;
}

bool Says(const ModelSpec& m, const std::string& text) {
  for (const std::string& a : m.assumptions) {
    if (a.find(text) != std::string::npos) return true;
  }
  return false;
}

// --- GLM-5 (transformers modeling_glm_moe_dsa.py) -----------------------------------------------
// d = 6144, L = 78 (3 dense, then MoE), h = 64, V = 154880 untied; MLA: q_lora 2048, kv_lora 512,
// rope 64, nope 192, v 256; the DSA indexer: 32 heads x 128; 256 experts top-8 of 2048, one shared.
namespace glm5 {
constexpr int64_t d = 6144, L = 78, V = 154880;
// q_a_proj d x q_lora + q_a_layernorm(q_lora) + q_b_proj q_lora x h (nope + rope)
constexpr int64_t q = d * 2048 + 2048 + 2048 * 64 * (192 + 64);
// kv_a_proj_with_mqa d x (kv_lora + rope) + kv_a_layernorm(kv_lora) + kv_b_proj kv_lora x h (nope + v)
constexpr int64_t kv = d * (512 + 64) + 512 + 512 * 64 * (192 + 256);
constexpr int64_t o = 64 * 256 * d;  // o_proj h v x d
// GlmMoeDsaIndexer: wq_b q_lora x heads dim, wk d x dim, weights_proj d x heads, k_norm LayerNorm(dim)
constexpr int64_t indexer = 2048 * 32 * 128 + d * 128 + d * 32 + 2 * 128;
constexpr int64_t attention = q + kv + o + indexer;
constexpr int64_t expert = 3 * d * 2048;                        // gate_up_proj 2f x d + down_proj d x f
constexpr int64_t moe = 256 * d + 256 * expert + 3 * d * 2048;  // router weight, experts, shared_experts(f x 1)
constexpr int64_t dense = 3 * d * 12288;                        // GlmMoeDsaMLP(intermediate_size)
constexpr int64_t total = 2 * V * d + L * (attention + 2 * d) + 3 * dense + (L - 3) * moe + d;
constexpr int64_t active = total - (L - 3) * (256 - 8) * expert;
// One MTP layer (model.layers.78.*, ignored on load): the decoder layer with its MoE block, enorm,
// hnorm, eh_proj 2d x d, the shared head's norm.
constexpr int64_t mtp = attention + moe + 2 * d + d + d + 2 * d * d + d;
}  // namespace glm5

TEST(HfAicTest, Glm5FamilyIsDeepSeekSparseAttentionWithMoe) {
  static_assert(glm5::total == 743'911'199'232);  // GLM-5 card: 744B
  static_assert(glm5::active == 41'784'709'632);  // card: 40B active (without embeddings and lm_head)
  for (const char* name : {"zai-org--GLM-5", "zai-org--GLM-5-FP8", "zai-org--GLM-5.1", "zai-org--GLM-5.1-FP8",
                           "zai-org--GLM-5.2", "zai-org--GLM-5.2-FP8", "nvidia--GLM-5-NVFP4", "nvidia--GLM-5.1-NVFP4",
                           "nvidia--GLM-5.2-NVFP4"}) {
    const ModelSpec m = Load(name);
    ExpectCounts(m, {glm5::total, glm5::active, std::nullopt, glm5::mtp}, name);
    EXPECT_EQ(m.n_index_topk, 2048) << name;
    EXPECT_EQ(m.n_layer_dense_lead, 3) << name;
  }
  // GLM-5.2's indexer_types: 3 of 4 layers reuse the previous layer's top-k, and it is said.
  EXPECT_TRUE(Says(Load("zai-org--GLM-5.2"), "reuse the previous layer's top-k"));
  EXPECT_FALSE(Says(Load("zai-org--GLM-5"), "reuse the previous layer's top-k"));
}

// --- Qwen3-VL (transformers modeling_qwen3_vl.py, modeling_qwen3_vl_moe.py) --------------------------
// The language model is Qwen3's: q/k/v/o, q_norm and k_norm RMSNorm(head_dim), a gated MLP, two norms a
// layer. Qwen3VLVisionModel: h, I, depth blocks, patch 16, temporal patch 2, merge 2, 2304 positions,
// out_hidden_size = the text width, deepstack mergers as listed (2B/4B: h 1024, I 4096, 24 blocks; the
// others: h 1152, I 4304, 27 blocks; 3 deepstack mergers, none in Qwen3.5).
namespace qwen3vl {
constexpr int64_t vision(int64_t H, int64_t I, int64_t depth, int64_t out, int64_t deepstack) {
  const int64_t M = H * 2 * 2;
  const int64_t patch = 3 * 2 * 16 * 16 * H + H;  // Conv3d(3, h, [2, 16, 16]) with bias
  const int64_t pos = 2304 * H;                    // pos_embed
  // norm1, norm2 LayerNorm; attn.qkv h -> 3h biased; attn.proj biased; mlp.linear_fc1/fc2 biased
  const int64_t block = 2 * 2 * H + (3 * H * H + 3 * H) + (H * H + H) + (H * I + I) + (I * H + H);
  // The merger: LayerNorm(h), linear_fc1 M -> M, linear_fc2 M -> out (biased); a deepstack merger: LayerNorm(M).
  return patch + pos + depth * block + (2 * H + (M * M + M) + (M * out + out)) +
         deepstack * (2 * M + (M * M + M) + (M * out + out));
}
constexpr int64_t big(int64_t out, int64_t deepstack) { return vision(1152, 4304, 27, out, deepstack); }
constexpr int64_t small(int64_t out) { return vision(1024, 4096, 24, out, 3); }
// Qwen3 layers: q h hd, k and v kv hd, o; q_norm, k_norm hd; two norms d; MLP 3 d ff.
constexpr int64_t dense_total(int64_t d, int64_t L, int64_t h, int64_t kv, int64_t hd, int64_t ff, int64_t V,
                              bool tied) {
  return V * d * (tied ? 1 : 2) + L * (d * h * hd + 2 * d * kv * hd + h * hd * d + 2 * hd + 2 * d + 3 * d * ff) + d;
}
}  // namespace qwen3vl

TEST(HfAicTest, Qwen3VlDenseCountsTheTextModelAndTheTowerApart) {
  using namespace qwen3vl;
  struct Case {
    const char* name;
    int64_t total, vision;
  };
  // 2B: d 2048, 28 layers, 16 heads, 8 kv, hd 128, ff 6144, tied. 4B: d 2560, 36, 32, 8, ff 9728, tied.
  // 8B: d 4096, 36, 32, 8, ff 12288. 32B: d 5120, 64, 64, 8, ff 25600. V = 151936.
  for (const Case& c : {Case{"Qwen--Qwen3-VL-2B-Instruct", dense_total(2048, 28, 16, 8, 128, 6144, 151936, true),
                             small(2048)},
                        Case{"Qwen--Qwen3-VL-4B-Instruct", dense_total(2560, 36, 32, 8, 128, 9728, 151936, true),
                             small(2560)},
                        Case{"Qwen--Qwen3-VL-8B-Instruct", dense_total(4096, 36, 32, 8, 128, 12288, 151936, false),
                             big(4096, 3)},
                        Case{"Qwen--Qwen3-VL-32B-Instruct", dense_total(5120, 64, 64, 8, 128, 25600, 151936, false),
                             big(5120, 3)},
                        Case{"Qwen--Qwen3-VL-32B-Thinking", dense_total(5120, 64, 64, 8, 128, 25600, 151936, false),
                             big(5120, 3)}}) {
    ExpectCounts(Load(c.name), {c.total, c.total, c.vision, std::nullopt}, c.name);
  }
  // Cross-checks with the cards (text + vision): 2B 2.13B, 8B 8.77B.
  static_assert(dense_total(2048, 28, 16, 8, 128, 6144, 151936, true) + small(2048) == 2'127'532'032);
  static_assert(dense_total(4096, 36, 32, 8, 128, 12288, 151936, false) + big(4096, 3) == 8'767'123'696);
}

TEST(HfAicTest, Qwen3VlMoeIsQwen3MoeWithTheTower) {
  using namespace qwen3vl;
  // Qwen3-MoE layers: attention as above, a router E x d, E experts of 3 d f, no shared expert, on every
  // layer (decoder_sparse_step 1, mlp_only_layers []).
  constexpr auto moe_total = [](int64_t d, int64_t L, int64_t h, int64_t kv, int64_t E, int64_t f, int64_t V) {
    return 2 * V * d + L * (d * h * 128 + 2 * d * kv * 128 + h * 128 * d + 2 * 128 + 2 * d + E * d + E * 3 * d * f) + d;
  };
  // 30B-A3B: d 2048, 48 layers, 32 heads, 4 kv, 128 experts top-8 of 768. 235B-A22B: d 4096, 94, 64, 4, f 1536.
  constexpr int64_t t30 = moe_total(2048, 48, 32, 4, 128, 768, 151936), a30 = t30 - int64_t{48} * 120 * 3 * 2048 * 768;
  constexpr int64_t t235 = moe_total(4096, 94, 64, 4, 128, 1536, 151936), a235 = t235 - int64_t{94} * 120 * 3 * 4096 * 1536;
  ExpectCounts(Load("Qwen--Qwen3-VL-30B-A3B-Instruct"), {t30, a30, big(2048, 3), std::nullopt}, "30B");
  ExpectCounts(Load("Qwen--Qwen3-VL-235B-A22B-Instruct"), {t235, a235, big(4096, 3), std::nullopt}, "235B");
  static_assert(t30 == 30'532'122'624 && a30 == 3'353'032'704);  // the text model of Qwen3-30B-A3B
}

// --- Qwen3.5 / 3.6 (transformers modeling_qwen3_5.py, modeling_qwen3_5_moe.py) ------------------------
// Qwen3-Next's layers: full attention every 4th layer (layer_types), Gated DeltaNet elsewhere; the tower is
// Qwen3-VL's without deepstack mergers (deepstack_visual_indexes []).
namespace qwen35 {
// Qwen3NextAttention: q_proj d -> 2 h hd (query and its output gate), k, v d -> kv hd, o, q/k norms hd.
constexpr int64_t attention(int64_t d, int64_t h, int64_t kv) {
  return d * 2 * h * 256 + 2 * d * kv * 256 + h * 256 * d + 2 * 256;
}
// Qwen3_5GatedDeltaNet: in_proj_qkv d -> 2 kd + vd, in_proj_z d -> vd, in_proj_b and in_proj_a d -> vh,
// conv1d (2 kd + vd) x 4 without bias, dt_bias and A_log vh, the gated norm RMSNorm(128), out_proj vd -> d;
// kd = 16 x 128 key heads, vd = vh x 128.
constexpr int64_t deltanet(int64_t d, int64_t vh) {
  const int64_t kd = 16 * 128, vd = vh * 128;
  return d * (2 * kd + vd) + d * vd + 2 * d * vh + (2 * kd + vd) * 4 + 2 * vh + 128 + vd * d;
}
// The Qwen3-Next MoE block: router E x d, E experts 3 d f, shared_expert 3 d fs, shared_expert_gate d x 1.
constexpr int64_t moe(int64_t d, int64_t E, int64_t f, int64_t fs) { return E * d + E * 3 * d * f + 3 * d * fs + d; }
constexpr int64_t total(int64_t d, int64_t L, int64_t h, int64_t kv, int64_t vh, int64_t ffn, int64_t V) {
  return 2 * V * d + (L / 4) * attention(d, h, kv) + (L - L / 4) * deltanet(d, vh) + L * (2 * d + ffn) + d;
}
}  // namespace qwen35

TEST(HfAicTest, Qwen35HybridsWithTheTower) {
  using namespace qwen35;
  constexpr int64_t V = 248320;
  // 27B: d 5120, 64 layers, 24 heads, 4 kv, 48 value heads, dense MLP 3 d 17408.
  constexpr int64_t t27 = total(5120, 64, 24, 4, 48, 3 * 5120 * 17408, V);
  // 35B-A3B: d 2048, 40, 16 heads, 2 kv, 32 v heads, 256 experts top-8 of 512, shared 512.
  constexpr int64_t t35 = total(2048, 40, 16, 2, 32, moe(2048, 256, 512, 512), V);
  constexpr int64_t a35 = t35 - int64_t{40} * 248 * 3 * 2048 * 512;
  // 122B-A10B: d 3072, 48, 32 heads, 2 kv, 64 v heads, 256 experts top-8 of 1024, shared 1024.
  constexpr int64_t t122 = total(3072, 48, 32, 2, 64, moe(3072, 256, 1024, 1024), V);
  constexpr int64_t a122 = t122 - int64_t{48} * 248 * 3 * 3072 * 1024;
  // 397B-A17B: d 4096, 60, 32 heads, 2 kv, 64 v heads, 512 experts top-10 of 1024, shared 1024.
  constexpr int64_t t397 = total(4096, 60, 32, 2, 64, moe(4096, 512, 1024, 1024), V);
  constexpr int64_t a397 = t397 - int64_t{60} * 502 * 3 * 4096 * 1024;
  static_assert(deltanet(5120, 48) == 115'876'064 && attention(5120, 24, 4) == 104'858'112);
  // The towers: out_hidden_size = d, no deepstack.
  const Expected e27{t27, t27, qwen3vl::big(5120, 0), std::nullopt};
  const Expected e35{t35, a35, qwen3vl::big(2048, 0), std::nullopt};
  const Expected e122{t122, a122, qwen3vl::big(3072, 0), std::nullopt};
  const Expected e397{t397, a397, qwen3vl::big(4096, 0), std::nullopt};
  ExpectCounts(Load("Qwen--Qwen3.5-27B"), e27, "3.5-27B");
  ExpectCounts(Load("Qwen--Qwen3.5-35B-A3B"), e35, "3.5-35B");
  ExpectCounts(Load("Qwen--Qwen3.5-122B-A10B"), e122, "3.5-122B");
  ExpectCounts(Load("Qwen--Qwen3.5-397B-A17B"), e397, "3.5-397B");
  ExpectCounts(Load("nvidia--Qwen3.5-122B-A10B-NVFP4"), e122, "3.5-122B-NVFP4");
  ExpectCounts(Load("nvidia--Qwen3.5-397B-A17B-NVFP4"), e397, "3.5-397B-NVFP4");
  // Qwen3.6's NVFP4 checkpoints: ModelOpt MIXED_PRECISION (issue #35); the architecture is Qwen3.5's.
  ExpectCounts(LoadArchitecture("nvidia--Qwen3.6-27B-NVFP4"), e27, "3.6-27B");
  ExpectCounts(LoadArchitecture("nvidia--Qwen3.6-35B-A3B-NVFP4"), e35, "3.6-35B");
  // The MTP layer (mtp_num_hidden_layers) is not built by transformers and is said to be uncounted.
  EXPECT_TRUE(Says(Load("Qwen--Qwen3.5-27B"), "multi-token-prediction"));
}

// --- DeepSeek-V3 (transformers modeling_deepseek_v3.py; V3.2 adds modeling_deepseek_v32.py's indexer) --------
namespace dsv3 {
struct Shape {
  int64_t h, E, dense_lead, V;
  bool indexer;  // DSA (V3.2)
};
constexpr int64_t d = 7168, L = 61, q_lora = 1536, kv_lora = 512, rope = 64, nope = 128, v = 128, f = 2048;
// MLA: q_a_proj d x q_lora, q_a_layernorm, q_b_proj q_lora x h (nope + rope), kv_a_proj_with_mqa
// d x (kv_lora + rope), kv_a_layernorm, kv_b_proj kv_lora x h (nope + v), o_proj h v x d. V3.2's indexer:
// wq_b q_lora x 64 x 128, wk d x 128, k_norm LayerNorm(128), weights_proj d x 64.
constexpr int64_t attention(const Shape& s) {
  return d * q_lora + q_lora + q_lora * s.h * (nope + rope) + d * (kv_lora + rope) + kv_lora +
         kv_lora * s.h * (nope + v) + s.h * v * d +
         (s.indexer ? q_lora * 64 * 128 + d * 128 + 2 * 128 + d * 64 : 0);
}
// The MoE block: gate E x d (e_score_correction_bias a buffer), E experts 3 d f, shared_experts (1 x f).
constexpr int64_t moe(const Shape& s) { return s.E * d + s.E * 3 * d * f + 3 * d * f; }
constexpr int64_t total(const Shape& s) {
  return 2 * s.V * d + d + L * (attention(s) + 2 * d) + s.dense_lead * 3 * d * 18432 + (L - s.dense_lead) * moe(s);
}
constexpr int64_t active(const Shape& s) { return total(s) - (L - s.dense_lead) * (s.E - 8) * 3 * d * f; }
// One MTP layer (model.layers.61.*, not built): the decoder layer, enorm, hnorm, eh_proj 2d x d, the shared
// head's norm.
constexpr int64_t mtp(const Shape& s) { return attention(s) + moe(s) + 2 * d + d + d + 2 * d * d + d; }
constexpr Shape kV3{128, 256, 3, 129280, false}, kV32{128, 256, 3, 129280, true}, kKimiK2{64, 384, 1, 163840, false};
}  // namespace dsv3

// --- Kimi-K2.5 / K2.6 / K2.7 (vLLM kimi_k25.py + kimi_k25_vit.py; the text model is Kimi-K2's) ---------
TEST(HfAicTest, KimiK25IsKimiK2WithMoonViT) {
  // The text model: Kimi-K2's DeepSeek-V3 tensors (dsv3 below): 64 heads, 384 experts, 1 dense layer.
  constexpr int64_t text_total = dsv3::total(dsv3::kKimiK2), text_active = dsv3::active(dsv3::kKimiK2);
  // MoonViT: h 1152, I 4304, 27 blocks, patch 14, positions 64 x 64; projector "patchmerger" to d 7168.
  constexpr int64_t H = 1152, I = 4304, M = 4 * H, T = 7168;
  constexpr int64_t patch = 3 * 14 * 14 * H + H;  // Conv2d(3, h, 14) with bias (patch_embed_proj_bias)
  constexpr int64_t pos = 64 * 64 * H;            // pos_emb.weight (its time table is a buffer)
  // norm0, norm1 LayerNorm; wqkv h -> 3h biased (attn_bias); wo biased; mlp fc0/fc1 biased (linear_bias)
  constexpr int64_t block = 2 * 2 * H + (3 * H * H + 3 * H) + (H * H + H) + (H * I + I) + (I * H + H);
  // final_layernorm; projector pre_norm LayerNorm(h), linear_1 M -> M, linear_2 M -> T, biased.
  constexpr int64_t vision = patch + pos + 27 * block + 2 * H + (2 * H + (M * M + M) + (M * T + T));
  static_assert(vision == 471'143'920);
  for (const char* name : {"moonshotai--Kimi-K2.5", "nvidia--Kimi-K2.5-NVFP4", "nvidia--Kimi-K2.6-NVFP4",
                           "nvidia--Kimi-K2.7-Code-NVFP4"}) {
    ExpectCounts(Load(name), {text_total, text_active, vision, std::nullopt}, name);
  }
}

// --- MiniMax-M2.5 / M2.7 (transformers modeling_minimax_m2.py) ------------------------------------------
TEST(HfAicTest, MiniMaxM2IsMixtralExpertsWithWholeWidthQkNorms) {
  constexpr int64_t d = 3072, L = 62, V = 200064, E = 256, f = 1536;
  // MiniMaxM2Attention (FlexOlmo's): q d -> 48 x 128, k and v d -> 8 x 128, o, no biases; q_norm over
  // 48 x 128 and k_norm over 8 x 128 (qk_norm_type "per_layer").
  constexpr int64_t attention = d * 6144 + 2 * d * 1024 + 6144 * d + 6144 + 1024;
  constexpr int64_t expert = 3 * d * f;  // MixtralExperts: gate_up_proj 2f x d, down_proj d x f
  // Two norms, the router E x d (e_score_correction_bias is a buffer), the experts; untied.
  constexpr int64_t total = 2 * V * d + L * (attention + 2 * d + E * d + E * expert) + d;
  constexpr int64_t active = total - L * (E - 8) * expert;
  static_assert(total == 228'689'748'992 && active == 11'030'537'216);  // card: 230B, 10B active
  for (const char* name : {"MiniMaxAI--MiniMax-M2.5", "MiniMaxAI--MiniMax-M2.7", "nvidia--MiniMax-M2.5-NVFP4",
                           "nvidia--MiniMax-M2.7-NVFP4"}) {
    const ModelSpec m = Load(name);
    ExpectCounts(m, {total, active, std::nullopt, std::nullopt}, name);
    EXPECT_TRUE(m.router_score_bias) << name;
    EXPECT_TRUE(Says(m, "multi-token-prediction")) << name;  // its 3 MTP modules are not built
  }
}

// --- MiMo-7B (vLLM mimo.py: Qwen2Model) --------------------------------------------------------------
TEST(HfAicTest, MiMo7BIsQwen2Layers) {
  constexpr int64_t d = 4096, L = 36, V = 151680;
  // Qwen2Attention: q d -> 32 x 128, k and v d -> 8 x 128 with biases on q, k, v; o without.
  constexpr int64_t attention = d * 4096 + 2 * d * 1024 + 4096 * d + (4096 + 2 * 1024);
  constexpr int64_t total = 2 * V * d + L * (attention + 2 * d + 3 * d * 11008) + d;
  static_assert(total == 7'622'619'136);
  const ModelSpec m = Load("XiaomiMiMo--MiMo-7B-Base");
  ExpectCounts(m, {total, total, std::nullopt, std::nullopt}, "MiMo-7B");
  EXPECT_TRUE(Says(m, "multi-token-prediction"));
}

// --- Nemotron-3 (vLLM nemotron_h.py NemotronHMoE for the latent MoE; transformers modeling_nemotron_h.py) --
namespace nemotron3 {
// A Mamba-2 block: in_proj d -> I + C + heads, conv1d C x 4 with bias, dt_bias, A_log, D (heads), the gated
// norm over I, out_proj I -> d; I = heads x 64, C = I + 2 x 8 groups x state.
constexpr int64_t mamba(int64_t d, int64_t heads, int64_t state = 128) {
  const int64_t I = heads * 64, C = I + 2 * 8 * state;
  return d * (I + C + heads) + C * 4 + C + 3 * heads + I + I * d;
}
constexpr int64_t attention(int64_t d, int64_t h, int64_t kv = 2) {
  return d * h * 128 + 2 * d * kv * 128 + h * 128 * d;
}
// The MoE block: router E x d, E up/down experts over the latent width w (2 w f), the shared MLP 2 d fs,
// fc1_latent_proj d -> w and fc2_latent_proj w -> d (no bias: mlp_bias false; absent without a latent).
constexpr int64_t moe(int64_t d, int64_t E, int64_t w, int64_t f, int64_t fs, bool latent) {
  return E * d + E * 2 * w * f + 2 * d * fs + (latent ? 2 * d * w : 0);
}
}  // namespace nemotron3

TEST(HfAicTest, Nemotron3LatentMoe) {
  using namespace nemotron3;
  constexpr int64_t V = 131072;
  // Super-120B-A12B: d 4096, pattern of 88 blocks: 40 M, 8 *, 40 E; 512 experts top-22 of 2688 over latent
  // 1024, shared 5376; one RMSNorm a block, final norm, untied.
  constexpr int64_t ts = 2 * V * 4096 + 88 * 4096 + 4096 + 40 * mamba(4096, 128) + 8 * attention(4096, 32) +
                         40 * moe(4096, 512, 1024, 2688, 5376, true);
  constexpr int64_t as = ts - int64_t{40} * (512 - 22) * 2 * 1024 * 2688;
  static_assert(ts == 120'668'687'360 && as == 12'770'216'960);  // card: 120B, 12B active
  // Ultra-550B-A55B: d 8192, 108 blocks (layers_block_type): 48 M, 12 *, 48 E; 256 Mamba heads, 64 heads,
  // 512 experts top-22 of 5120 over latent 2048, shared 10240.
  constexpr int64_t tu = 2 * V * 8192 + 108 * 8192 + 8192 + 48 * mamba(8192, 256) + 12 * attention(8192, 64) +
                         48 * moe(8192, 512, 2048, 5120, 10240, true);
  constexpr int64_t au = tu - int64_t{48} * (512 - 22) * 2 * 2048 * 5120;
  static_assert(tu == 549'308'968'960 && au == 56'058'818'560);  // card: 550B, 55B active
  // Nano-30B-A3B (and 3.5-Lightning): d 2688, 52 blocks: 23 M, 6 *, 23 E; 64 Mamba heads, 32 heads, 128
  // experts top-6 of 1856 over d (no latent), shared 3712.
  constexpr int64_t tn = 2 * V * 2688 + 52 * 2688 + 2688 + 23 * mamba(2688, 64) + 6 * attention(2688, 32) +
                         23 * moe(2688, 128, 2688, 1856, 3712, false);
  constexpr int64_t an = tn - int64_t{23} * (128 - 6) * 2 * 2688 * 1856;
  static_assert(tn == 31'577'937'344 && an == 3'580'073'408);  // card: 31.6B, 3.6B active with embeddings
  for (const char* name : {"nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8", "nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"}) {
    ExpectCounts(Load(name), {ts, as, std::nullopt, std::nullopt}, name);
  }
  for (const char* name : {"nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16", "nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8",
                           "nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4"}) {
    ExpectCounts(Load(name), {tu, au, std::nullopt, std::nullopt}, name);
  }
  for (const char* name : {"nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"}) {
    ExpectCounts(Load(name), {tn, an, std::nullopt, std::nullopt}, name);
  }
  // Lightning's sidecar is ModelOpt MIXED_PRECISION (issue #35); the architecture is Nano's.
  ExpectCounts(LoadArchitecture("nvidia--NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4"), {tn, an, std::nullopt, std::nullopt},
               "Lightning");
}


// --- MiMo-V2-Flash (transformers modeling_mimo_v2_flash.py) ---------------------------------------------
TEST(HfAicTest, MiMoV2FlashSlidingLayersHoldTheirOwnKvHeadsAndSinks) {
  constexpr int64_t d = 4096, L = 48, V = 152576, E = 256, f = 2048;
  // MiMoV2FlashAttention: q d -> 64 x 192, k d -> kv x 192, v d -> kv x 128 (v_head_dim), o 64 x 128 -> d,
  // no biases; a sliding layer has 8 KV heads and sinks (64, an nn.Parameter), a full layer 4 and none.
  constexpr int64_t full = d * 64 * 192 + d * 4 * 192 + d * 4 * 128 + 64 * 128 * d;
  constexpr int64_t sliding = d * 64 * 192 + d * 8 * 192 + d * 8 * 128 + 64 * 128 * d + 64;
  // hybrid_layer_pattern: 0 (full) at layers 0, 5, 11, 17, 23, 29, 35, 41, 47; the other 39 slide.
  constexpr int64_t expert = 3 * d * f;          // gate_up_proj 2f x d + down_proj d x f
  constexpr int64_t moe = E * d + E * expert;    // router E x d (e_score_correction_bias a buffer), no shared
  constexpr int64_t dense = 3 * d * 16384;       // layer 0 (moe_layer_freq 0): MiMoV2FlashMLP(intermediate_size)
  constexpr int64_t total = 2 * V * d + d + 9 * full + 39 * sliding + L * 2 * d + dense + (L - 1) * moe;
  constexpr int64_t active = total - (L - 1) * (E - 8) * expert;
  static_assert(total == 308'778'768'832 && active == 15'445'924'288);  // card: 309B, 15B active
  const ModelSpec m = Load("XiaomiMiMo--MiMo-V2-Flash");
  ExpectCounts(m, {total, active, std::nullopt, std::nullopt}, "MiMo-V2-Flash");
  EXPECT_EQ(m.n_swa_layers(), 39);
  EXPECT_EQ(m.n_swa, 128);
  EXPECT_EQ(m.n_moe_layers(), 47);
  // The KV cache models one geometry (the full layers'); the sliding layers' own is said.
  EXPECT_TRUE(Says(m, "sliding-attention layers have their own attention shape"));
}

// --- Gemma 4 (transformers modeling_gemma4.py) ------------------------------------------------------------
namespace gemma4 {
constexpr int64_t V = 262144;
// Gemma4TextAttention: a sliding layer q d -> h x 256, k and v d -> kv x 256, o; q_norm and k_norm (256;
// v_norm has no weight). A full layer (attention_k_eq_v): head_dim 512, k d -> gkv x 512 and no v_proj.
constexpr int64_t sliding(int64_t d, int64_t h, int64_t kv) { return d * h * 256 + 2 * d * kv * 256 + h * 256 * d + 2 * 256; }
constexpr int64_t full(int64_t d, int64_t h, int64_t gkv) { return d * h * 512 + d * gkv * 512 + h * 512 * d + 2 * 512; }
// Gemma4VisionModel (h 1152, I 4304, 27 layers, 16 heads of 72): patch_embedder.input_proj 3 x 16 x 16 -> h
// and position_embedding_table 2 x 10240 x h; a layer q/k/v/o h x h, q_norm and k_norm (72), a gated MLP,
// four norms; embed_vision.embedding_projection h -> the text width (its norm has no weight).
constexpr int64_t vision(int64_t text_d) {
  constexpr int64_t h = 1152, I = 4304;
  return 3 * 16 * 16 * h + 2 * 10240 * h + 27 * (4 * h * h + 2 * 72 + 3 * h * I + 4 * h) + h * text_d;
}
}  // namespace gemma4

TEST(HfAicTest, Gemma4HasGlobalLayersOfTheirOwnShapeAndExpertsBesideTheMlp) {
  using namespace gemma4;
  // 26B-A4B: d 2816, 30 layers (5 full, 25 sliding), 16 heads, kv 8, global kv 2; a dense MLP of 2112 in every
  // layer plus the MoE block: the router (proj E x d, scale d, per_expert_scale E; its norm has no weight),
  // 128 experts of 704 (gate_up_proj + down_proj), three more norms; four norms a layer; tied embeddings.
  constexpr int64_t d = 2816, E = 128, f = 704;
  constexpr int64_t layer = 4 * d + 3 * d * 2112 + (E * d + d + E) + E * 3 * d * f + 3 * d;
  constexpr int64_t t26 = V * d + d + 25 * sliding(d, 16, 8) + 5 * full(d, 16, 2) + 30 * layer;
  constexpr int64_t a26 = t26 - 30 * (E - 8) * 3 * d * f;
  static_assert(t26 == 25'233'141'760 && a26 == 3'822'530'560);  // card: 25.2B, 3.8B active
  for (const char* name : {"google--gemma-4-26B-A4B", "nvidia--Gemma-4-26B-A4B-NVFP4"}) {
    const ModelSpec m = Load(name);
    ExpectCounts(m, {t26, a26, vision(d), std::nullopt}, name);
    EXPECT_EQ(m.n_swa_layers(), 25) << name;
    EXPECT_EQ(m.n_swa, 1024) << name;
  }
  // 31B: d 5376, 60 layers (10 full), 32 heads, kv 16, global kv 4, dense MLP 21504, no MoE block.
  constexpr int64_t d31 = 5376;
  constexpr int64_t t31 = V * d31 + d31 + 50 * sliding(d31, 32, 16) + 10 * full(d31, 32, 4) +
                          60 * (4 * d31 + 3 * d31 * 21504);
  static_assert(t31 == 30'697'345'280);  // card: 30.7B
  ExpectCounts(Load("nvidia--Gemma-4-31B-IT-NVFP4"), {t31, t31, vision(d31), std::nullopt}, "Gemma-4-31B");
}

// --- Step-3.7-Flash (transformers modeling_step3p7.py: Step3p7TextModel + lm_head) -------------------------
TEST(HfAicTest, Step37FlashGatesEachHeadAndSharesOneExpert) {
  constexpr int64_t d = 4096, L = 45, V = 128896, E = 288, f = 1280;
  // Step3p7Attention: q d -> 64 x 128, k and v d -> 8 x 128, o, no biases; q_norm and k_norm (128); g_proj
  // d -> 64 (one gate a head). Two norms a layer.
  constexpr int64_t attention = d * 64 * 128 + 2 * d * 8 * 128 + 64 * 128 * d + 2 * 128 + d * 64;
  constexpr int64_t dense = 3 * d * 11264;  // layers 0-2: Step3p7MLP(intermediate_size)
  // Layers 3-44: the router E x d (e_score_correction_bias a buffer), E experts, shared_experts (1280).
  constexpr int64_t moe = E * d + E * 3 * d * f + 3 * d * 1280;
  constexpr int64_t total = 2 * V * d + d + L * (attention + 2 * d) + 3 * dense + (L - 3) * moe;
  constexpr int64_t active = total - (L - 3) * (E - 8) * 3 * d * f;
  static_assert(total == 195'844'496'640 && active == 10'875'690'240);  // Step-3.5-Flash card: 196B, 11B active
  for (const char* name : {"stepfun-ai--Step-3.7-Flash", "stepfun-ai--Step-3.7-Flash-FP8"}) {
    const ModelSpec m = Load(name);
    ExpectCounts(m, {total, active, std::nullopt, std::nullopt}, name);
    EXPECT_EQ(m.n_swa_layers(), 33) << name;  // layer_types: full every 4th layer from 0
    EXPECT_EQ(m.n_layer_dense_lead, 3) << name;
  }
}

// --- DeepSeek-V4 (transformers modeling_deepseek_v4.py) ------------------------------------------------------
namespace dsv4 {
struct Shape {
  int64_t d, L, h, q_lora, groups, E, f;
  int64_t csa, hca;  // layers whose compress_ratios entry is 4 / 128 (the rest only slide)
};
constexpr int64_t V = 129280, hd = 512, o_lora = 1024, N = 4, ih = 64, ihd = 128;
constexpr int64_t total(const Shape& s) {
  const int64_t d = s.d;
  // DeepseekV4Attention: q_a_proj d x q_lora, q_a_norm q_lora, q_b_proj q_lora x h hd (q_b_norm unweighted),
  // kv_proj d x hd, kv_norm hd, o_a_proj (groups o_lora) x (h hd / groups), o_b_proj groups o_lora x d, sinks h.
  const int64_t attention = d * s.q_lora + s.q_lora + s.q_lora * s.h * hd + d * hd + hd +
                            s.groups * o_lora * (s.h * hd / s.groups) + s.groups * o_lora * d + s.h;
  // HCA compressor: kv_proj and gate_proj d x hd, position_bias 128 x hd, kv_norm hd.
  const int64_t hca = 2 * d * hd + 128 * hd + hd;
  // CSA compressor: kv_proj and gate_proj d x 2 hd, position_bias 4 x 2 hd, kv_norm hd; its indexer: kv_proj
  // and gate_proj d x 2 ihd, position_bias 4 x 2 ihd, kv_norm ihd, q_b_proj q_lora x ih ihd, weights_proj d x ih.
  const int64_t csa = 2 * d * 2 * hd + 4 * 2 * hd + hd +
                      (2 * d * 2 * ihd + 4 * 2 * ihd + ihd + s.q_lora * ih * ihd + d * ih);
  // The MoE block: router E x d (hash or top-k; tid2eid and e_score_correction_bias buffers), E experts,
  // shared_experts DeepseekV4MLP(moe_intermediate_size).
  const int64_t moe = s.E * d + s.E * 3 * d * s.f + 3 * d * s.f;
  // attn_hc and ffn_hc: fn (2 + N) N x N d, base (2 + N) N, scale 3; two norms.
  const int64_t hc = (2 + N) * N * N * d + (2 + N) * N + 3;
  // Embeddings and lm_head (untied), the final norm, hc_head (hc_fn N x N d, hc_base N, hc_scale 1).
  return 2 * V * d + d + (N * N * d + N + 1) + s.L * (attention + moe + 2 * d + 2 * hc) + s.csa * csa +
         s.hca * hca;
}
constexpr int64_t active(const Shape& s) { return total(s) - s.L * (s.E - 6) * 3 * s.d * s.f; }
// Flash: compress_ratios [0, 0, then 4 and 128 alternating, ...] over 43 layers: 2 slide, 21 CSA, 20 HCA.
constexpr Shape kFlash{4096, 43, 64, 1024, 8, 256, 2048, 21, 20};
// Pro: 61 layers: 30 CSA, 31 HCA.
constexpr Shape kPro{7168, 61, 128, 1536, 16, 384, 3072, 30, 31};
}  // namespace dsv4

TEST(HfAicTest, DeepSeekV4CompressorsHyperConnectionsAndGroupedOutput) {
  using namespace dsv4;
  static_assert(total(kFlash) == 284'332'230'231 && active(kFlash) == 13'799'622'231);  // card: 284B, 13B
  static_assert(total(kPro) == 1'572'997'179'491 && active(kPro) == 49'779'058'787);    // card: 1.6T, 49B
  for (const char* name : {"deepseek-ai--DeepSeek-V4-Flash", "sgl-project--DeepSeek-V4-Flash-FP8"}) {
    const ModelSpec m = Load(name);
    ExpectCounts(m, {total(kFlash), active(kFlash), std::nullopt, std::nullopt}, name);
    EXPECT_EQ(m.n_swa_layers(), 43) << name;  // every layer keeps a sliding window of 128
    EXPECT_TRUE(Says(m, "multi-token-prediction")) << name;
  }
  for (const char* name : {"deepseek-ai--DeepSeek-V4-Pro", "sgl-project--DeepSeek-V4-Pro-FP8"}) {
    ExpectCounts(Load(name), {total(kPro), active(kPro), std::nullopt, std::nullopt}, name);
  }
  // NVIDIA's NVFP4 releases carry a ModelOpt MIXED_PRECISION sidecar (issue #35); the architecture is V4's.
  ExpectCounts(LoadArchitecture("nvidia--DeepSeek-V4-Flash-NVFP4"), {total(kFlash), active(kFlash), std::nullopt,
                                                                      std::nullopt}, "V4-Flash-NVFP4");
  ExpectCounts(LoadArchitecture("nvidia--DeepSeek-V4-Pro-NVFP4"), {total(kPro), active(kPro), std::nullopt,
                                                                    std::nullopt}, "V4-Pro-NVFP4");
}

// --- Llama-3.3-Nemotron-Super-49B (DeciLM: sglang nemotron_nas.py, the checkpoint's modeling_decilm.py) -----
TEST(HfAicTest, NemotronNasLayersFromBlockConfigs) {
  constexpr int64_t d = 8192, V = 128256;
  // An attention block: LlamaAttention, q d -> 64 x 128, k and v d -> (64 / n_heads_in_group 8) x 128, o, no
  // biases, with its input_layernorm; 49 blocks have one, 31 are no_op (neither).
  constexpr int64_t attention = d * 8192 + 2 * d * 1024 + 8192 * d + d;
  // An FFN block: LlamaMLP 3 d w, w the multiple of 256 at or above int(2 ffn_mult d / 3), with its
  // post_attention_layernorm. block_configs' 80 multipliers: 5.25 (49 blocks) -> 28672, 2.625 (6) -> 14336,
  // 1.3125 (10) -> 7168, 1.0 (8) -> int(5461.3) = 5461 -> 5632, 0.5 (6) -> 2730 -> 2816, 3.28125 (1) -> 17920.
  constexpr int64_t widths = 49 * 28672 + 6 * 14336 + 10 * 7168 + 8 * 5632 + 6 * 2816 + 1 * 17920;
  constexpr int64_t total = 2 * V * d + d + 49 * attention + 3 * d * widths + 80 * d;
  static_assert(total == 49'867'145'216);  // card: 49B
  const ModelSpec m = Load("nvidia--Llama-3_3-Nemotron-Super-49B-v1");
  ExpectCounts(m, {total, total, std::nullopt, std::nullopt}, "Nemotron-Super-49B");
  EXPECT_EQ(m.n_head_kv, 8);
  EXPECT_EQ(m.count_layers().no_attn, 31);  // no KV cache there
  EXPECT_EQ(m.n_ff, 28672);                 // the widest, and it is said
  EXPECT_TRUE(Says(m, "MLP widths differ per layer"));
}

// --- The families read before this issue, as aiconfigurator ships their configs ----------------------------
namespace older {
// Llama-style attention (modeling_llama.py, modeling_mixtral.py): q d -> h hd, k and v d -> kv hd, o; no biases.
constexpr int64_t gqa(int64_t d, int64_t h, int64_t kv, int64_t hd) { return d * h * hd + 2 * d * kv * hd + h * hd * d; }
// modeling_llama.py: embeddings and lm_head (untied), L x (attention + 3 d ff MLP + 2 norms), the final norm.
constexpr int64_t llama(int64_t d, int64_t L, int64_t h, int64_t ff) {
  return 2 * 128256 * d + L * (gqa(d, h, 8, 128) + 3 * d * ff + 2 * d) + d;
}
// modeling_mixtral.py: block_sparse_moe gate E x d and 8 experts w1/w2/w3 of 3 d f on every layer.
constexpr int64_t mixtral(int64_t d, int64_t L, int64_t h, int64_t f) {
  return 2 * 32000 * d + L * (gqa(d, h, 8, d / h) + 8 * d + 8 * 3 * d * f + 2 * d) + d;
}
// modeling_qwen3_moe.py: Qwen3 attention with q_norm and k_norm (128), on every layer the router E x d and E
// experts 3 d f, no shared expert.
constexpr int64_t qwen3_moe(int64_t d, int64_t L, int64_t h, int64_t kv, int64_t E, int64_t f) {
  return 2 * 151936 * d + L * (gqa(d, h, kv, 128) + 2 * 128 + 2 * d + E * d + E * 3 * d * f) + d;
}
// modeling_llama4.py (Llama4ForCausalLM's text model): attention without biases (its qk_norm has no weight);
// an MoE layer: experts gate_up_proj E x d x 2f and down_proj E x f x d, router d x E, shared_expert 3 d f;
// a dense layer Llama4TextMLP(intermediate_size_mlp 16384); two norms a layer.
constexpr int64_t llama4(int64_t E, int64_t moe_layers) {
  constexpr int64_t d = 5120, L = 48, f = 8192;
  return 2 * 202048 * d + d + L * (gqa(d, 40, 8, 128) + 2 * d) + moe_layers * (E * 3 * d * f + E * d + 3 * d * f) +
         (L - moe_layers) * 3 * d * 16384;
}
// modeling_gpt_oss.py: attention d -> 64 x 64, kv 8 x 64, biased (q, k, v, o), 64 sinks; experts gate_up_proj
// d x 2f + its bias 2f, down_proj f x d + its bias d; the router E x d with its bias; two norms; V 201088.
constexpr int64_t gpt_oss_expert = 2880 * 5760 + 5760 + 2880 * 2880 + 2880;
constexpr int64_t gpt_oss(int64_t L, int64_t E) {
  constexpr int64_t d = 2880;
  const int64_t attention = gqa(d, 64, 8, 64) + 64 + (4096 + 2 * 512 + d);
  return 2 * 201088 * d + d + L * (attention + E * gpt_oss_expert + E * d + E + 2 * d);
}
}  // namespace older

TEST(HfAicTest, TheFamiliesReadBeforeAsShipped) {
  using namespace older;
  using qwen3vl::dense_total;  // Qwen3's layers (modeling_qwen3.py)
  struct Case {
    const char* name;
    Expected e;
    bool architecture_only = false;  // the quantization scheme is issue #35's
  };
  // A text model without tower or MTP; active 0: dense (all of it).
  const auto E = [](int64_t total, int64_t active) { return Expected{total, active, std::nullopt, std::nullopt}; };
  const int64_t q235 = qwen3_moe(4096, 94, 64, 4, 128, 1536), q30 = qwen3_moe(2048, 48, 32, 4, 128, 768),
                q480 = qwen3_moe(6144, 62, 96, 8, 160, 2560);
  const int64_t q32 = dense_total(5120, 64, 64, 8, 128, 25600, 151936, false);
  const int64_t l70 = llama(8192, 80, 64, 28672);
  const int64_t m7 = mixtral(4096, 32, 32, 14336), m22 = mixtral(6144, 56, 48, 16384);
  const int64_t scout = llama4(16, 48), maverick = llama4(128, 24);  // interleave_moe_layer_step 1 / 2
  const int64_t oss20 = gpt_oss(24, 32), oss120 = gpt_oss(36, 128);
  using dsv3::kV3, dsv3::kV32, dsv3::kKimiK2;
  const Expected v3{dsv3::total(kV3), dsv3::active(kV3), std::nullopt, dsv3::mtp(kV3)};
  const Expected v32{dsv3::total(kV32), dsv3::active(kV32), std::nullopt, dsv3::mtp(kV32)};
  // Nemotron-H-56B (modeling_nemotron_h.py): pattern of 118 blocks, 54 Mamba-2 (256 heads, state 256),
  // 10 attention (64 heads, 8 kv), 54 relu2 MLPs (up and down, 32768); one norm a block.
  const int64_t h56 = int64_t{2} * 131072 * 8192 + 118 * 8192 + 8192 + 54 * nemotron3::mamba(8192, 256, 256) +
                      10 * nemotron3::attention(8192, 64, 8) + int64_t{54} * 2 * 8192 * 32768;
  const std::vector<Case> cases = {
      {"Qwen--Qwen3-0.6B", E(dense_total(1024, 28, 16, 8, 128, 3072, 151936, true), 0)},
      {"Qwen--Qwen3-1.7B", E(dense_total(2048, 28, 16, 8, 128, 6144, 151936, true), 0)},
      {"Qwen--Qwen3-8B", E(dense_total(4096, 36, 32, 8, 128, 12288, 151936, false), 0)},
      {"Qwen--Qwen3-32B", E(q32, 0)},
      {"Qwen--Qwen3-32B-FP8", E(q32, 0)},
      {"Qwen--Qwen3-32B-FP8-Static-PerTensor", E(q32, 0), true},
      {"Qwen--Qwen3-235B-A22B", E(q235, q235 - int64_t{94} * 120 * 3 * 4096 * 1536)},
      {"Qwen--Qwen3-235B-A22B-FP8", E(q235, q235 - int64_t{94} * 120 * 3 * 4096 * 1536)},
      {"nvidia--Qwen3-235B-A22B-NVFP4", E(q235, q235 - int64_t{94} * 120 * 3 * 4096 * 1536)},
      {"Qwen--Qwen3-30B-A3B", E(q30, q30 - int64_t{48} * 120 * 3 * 2048 * 768)},
      {"Qwen--Qwen3-30B-A3B-FP8", E(q30, q30 - int64_t{48} * 120 * 3 * 2048 * 768)},
      {"Qwen--Qwen3-Coder-480B-A35B-Instruct", E(q480, q480 - int64_t{62} * 152 * 3 * 6144 * 2560)},
      {"meta-llama--Meta-Llama-3.1-8B", E(llama(4096, 32, 32, 14336), 0)},
      {"meta-llama--Meta-Llama-3.1-70B", E(l70, 0)},
      {"nvidia--Llama-3.1-70B-Instruct-FP8", E(l70, 0)},
      {"meta-llama--Meta-Llama-3.1-405B", E(llama(16384, 126, 128, 53248), 0)},
      {"mistralai--Mixtral-8x7B-v0.1", E(m7, m7 - int64_t{32} * 6 * 3 * 4096 * 14336)},
      {"mistralai--Mixtral-8x22B-v0.1", E(m22, m22 - int64_t{56} * 6 * 3 * 6144 * 16384)},
      {"meta-llama--Llama-4-Scout-17B-16E-Instruct", E(scout, scout - int64_t{48} * 15 * 3 * 5120 * 8192)},
      {"meta-llama--Llama-4-Maverick-17B-128E-Instruct", E(maverick, maverick - int64_t{24} * 127 * 3 * 5120 * 8192)},
      {"openai--gpt-oss-20b", E(oss20, oss20 - 24 * 28 * gpt_oss_expert)},
      {"openai--gpt-oss-120b", E(oss120, oss120 - 36 * 124 * gpt_oss_expert)},
      {"deepseek-ai--DeepSeek-V3", v3},
      {"deepseek-ai--DeepSeek-R1", v3},
      {"nvidia--DeepSeek-V3.1-NVFP4", v3},
      {"deepseek-ai--DeepSeek-V3.2", v32},
      {"nvidia--DeepSeek-V3.2-NVFP4", v32},
      {"moonshotai--Kimi-K2-Instruct", E(dsv3::total(kKimiK2), dsv3::active(kKimiK2))},
      {"nvidia--Nemotron-H-56B-Base-8K", E(h56, 0)},
  };
  for (const Case& k : cases) {
    Expected e = k.e;
    if (e.active == 0) e.active = e.total;  // dense
    ExpectCounts(k.architecture_only ? LoadArchitecture(k.name) : Load(k.name), e, k.name);
  }
  // Cross-checks with the cards: Llama-3.1-405B 405.9B, Qwen3-235B-A22B 235.1B (22.2B active), DeepSeek-V3
  // 671.0B (+ 11.6B MTP), gpt-oss-120b 116.8B, Llama-4-Maverick 400.7B (without the tower).
  static_assert(older::llama(16384, 126, 128, 53248) == 405'853'388'800);
  static_assert(dsv3::total(dsv3::kV3) == 671'026'404'352);  // hf_config_test.cc's DeepSeek-V3 derivation
}

// --- The tally over the 86 configs ------------------------------------------------------------------------
// Every folder is read, or refused naming the key it cannot place; the read ones are all held to a count
// above (their names appear in this file's count tests). Six are read as architectures only: their
// quantization scheme (ModelOpt MIXED_PRECISION; a quantization_config without quant_method) is issue #35's.
TEST(HfAicTest, TallyReadOrRefusedNamingTheKey) {
  const std::map<std::string, std::string> refused = {
      {"MiniMaxAI--MiniMax-M3", "dense_intermediate_size: not placed"},  // MiniMax-M3's sparse attention
      {"nvidia--MiniMax-M3-NVFP4", "vision_config"},                      // minimax_m3_vl: no row, no tower
      {"moonshotai--Kimi-K3", "vision_config"},                           // kimi_k3 (Kimi Linear text): no row
  };
  const std::set<std::string> quantization = {
      "Qwen--Qwen3-32B-FP8-Static-PerTensor", "nvidia--DeepSeek-V4-Flash-NVFP4", "nvidia--DeepSeek-V4-Pro-NVFP4",
      "nvidia--NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4", "nvidia--Qwen3.6-27B-NVFP4",
      "nvidia--Qwen3.6-35B-A3B-NVFP4"};
  std::ifstream self(std::string(MODELCALC_SOURCE_DIR) + "/src/core/hf_config_aic_test.cc");
  std::stringstream text;
  text << self.rdbuf();
  // This test's own lists name every folder too; the count tests are the part before it.
  const std::string counted = text.str().substr(0, text.str().find("// --- The tally over the 86 configs"));
  int folders = 0, read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(Dir(""))) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    ++folders;
    auto r = load_hf_config(entry.path().string());
    if (const auto it = refused.find(name); it != refused.end()) {
      ASSERT_FALSE(r.ok()) << name;
      EXPECT_NE(r.status().message().find(it->second), std::string::npos) << name << ": " << r.status().message();
      continue;
    }
    ++read;
    if (quantization.count(name) > 0) {  // read whole once issue #35 reads the scheme; until then refused by it
      if (!r.ok()) {
        EXPECT_NE(r.status().message().find("quant"), std::string::npos) << name << ": " << r.status().message();
      }
    } else {
      EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.status().message());
    }
    EXPECT_NE(counted.find('"' + name + '"'), std::string::npos) << name << " has no count test";
  }
  EXPECT_EQ(folders, 86);
  EXPECT_EQ(read, 83);  // 96.5 %
}

}  // namespace
}  // namespace modelcalc
