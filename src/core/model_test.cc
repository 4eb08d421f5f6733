#include "drills.h"
#include "modelcalc/model.h"

#include <gtest/gtest.h>

#include "modelcalc/formulas.h"

namespace modelcalc {
namespace {


TEST(ModelTest, Drill1LayerMatrices) {
  auto r = seed_layer_matrices(drill1_model());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->q, 37'748'736);     // 6144 x 6144
  EXPECT_EQ(r->kv, 12'582'912);    // 2 x 6144 x (8 x 128 = 1024)
  EXPECT_EQ(r->o, 37'748'736);     // 6144 x 6144
  EXPECT_EQ(r->ffn, 301'989'888);  // 3 x 6144 x 16384
  EXPECT_EQ(r->total(), 390'070'272);
}

TEST(ModelTest, Drill1Totals) {
  auto p = seed_param_breakdown(drill1_model());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->blocks(), 18'723'373'056);  // 48 x 390,070,272
  EXPECT_EQ(p->embeddings + p->lm_head, 786'432'000);  // 2 x 64000 x 6144
  EXPECT_EQ(p->total(), 19'509'805'056);
  EXPECT_EQ(p->active(), p->total());
}

TEST(ModelTest, KvBytesDrill1) {
  // 2 x 48 layers x 1024 x 2 B = 196,608 B per token; x 8192 = 1,610,612,736 B.
  EXPECT_EQ(kv_bytes_per_token(drill1_model(), Dtype::kFp16).value(), 196'608);
  EXPECT_EQ(kv_bytes_per_sequence(drill1_model(), 8192, Dtype::kFp16).value(), 1'610'612'736);
  // MHA: 48 KV heads, 6x the cache.
  EXPECT_EQ(kv_bytes_per_sequence(as_mha(drill1_model()), 8192, Dtype::kFp16).value(),
            6 * 1'610'612'736LL);
}

TEST(ModelTest, AlternatingSlidingWindowLayers) {
  // Gemma-2 style: pattern 2, even layers local. With 3 layers: 0 and 2 local, 1 global.
  ModelSpec m = drill1_model();
  m.n_layer = 3;
  m.n_swa = 4096;
  m.set_swa_pattern(2);
  EXPECT_TRUE(m.is_swa_layer(0));
  EXPECT_FALSE(m.is_swa_layer(1));
  EXPECT_TRUE(m.is_swa_layer(2));
  EXPECT_EQ(m.n_swa_layers(), 2);
  // Per layer per token: 2 x 1024 x 2 B = 4096 B. At 8192 tokens:
  // 2 local layers x 4096 tokens + 1 global layer x 8192 tokens = 16,384 layer-tokens x 4096 B.
  EXPECT_EQ(kv_bytes_per_sequence(m, 8192, Dtype::kFp16).value(), 16'384LL * 4096);
  // Below the window every layer keeps everything: 3 x 1000 x 4096 B.
  EXPECT_EQ(kv_bytes_per_sequence(m, 1000, Dtype::kFp16).value(), 3LL * 1000 * 4096);
}

TEST(ModelTest, MhaLayoutCountsWhatAsMhaBuilds) {
  // MLA toy: 2 layers, 4 heads, K head 96 (64 nope + 32 rope), V head 64, latent 128.
  ModelSpec m = drill1_model();
  m.n_layer = 2;
  m.n_head = 4;
  m.n_head_kv = 4;
  m.n_lora_kv = 128;
  m.n_rot = 32;
  m.n_embd_head_k = 96;
  m.n_embd_head_v = 64;
  // As configured: 2 layers x (128 + 32) x 2 B = 640 B per token.
  EXPECT_EQ(kv_bytes_per_token(m, Dtype::kFp16).value(), 640);
  // MHA: 2 layers x 4 heads x (96 + 64) x 2 B = 2,560 B per token.
  EXPECT_EQ(kv_bytes_per_token(m, Dtype::kFp16, KvLayout::kMha).value(), 2560);
  EXPECT_EQ(kv_bytes_per_token(as_mha(m), Dtype::kFp16).value(), 2560);
  EXPECT_EQ(kv_bytes_per_sequence(m, 100, Dtype::kFp16, KvLayout::kMha).value(), 256'000);  // x 100 tokens
}

TEST(ModelTest, OverflowIsReported) {
  ModelSpec m = drill1_model();
  m.n_vocab = 4'000'000'000'000'000LL;  // 4e18 x 6144 overflows int64
  auto p = seed_param_breakdown(m);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), Status::Code::kOverflow);
}

}  // namespace
}  // namespace modelcalc
