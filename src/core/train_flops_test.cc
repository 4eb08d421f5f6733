// Training FLOPs per token against hand derivations and the literature's
// formulas (PaLM app. B, Narayanan et al. 2021 eq. 3), and their properties.
#include <gtest/gtest.h>

#include "modelcalc/hf_config.h"
#include "modelcalc/training.h"

namespace modelcalc {
namespace {

ModelSpec Preset(const char* name) {
  auto m = find_preset(name);
  EXPECT_TRUE(m.ok()) << name;
  return *m;
}

// Megatron's GPT as the 2021-22 papers build it, matrices only: MHA, a 4h
// GeLU MLP, tied embeddings, vocabulary 51,200.
ModelSpec Gpt(int64_t layers, int64_t hidden, int64_t heads) {
  ModelSpec m;
  m.n_layer = layers;
  m.n_embd = hidden;
  m.n_head = heads;
  m.n_head_kv = heads;
  m.n_embd_head = hidden / heads;
  m.n_ff = 4 * hidden;
  m.n_vocab = 51200;
  m.tied_embeddings = true;
  return m;
}

TEST(TrainFlops, Llama31_8BAttentionAdds27PercentAt8K) {
  const ModelSpec m = Preset("llama-3.1-8b");
  auto f = training_flops_per_token(m, 8192, Recompute::kNone);
  ASSERT_TRUE(f.ok()) << f.status().message();
  // 6 N = 6 x 8,030,261,248.
  EXPECT_DOUBLE_EQ(f->six_n, 6.0 * 8'030'261'248);
  // Matmuls per layer: q 4096^2 + k, v 2 x 4096 x 1024 + o 4096^2 = 41,943,040; FFN 3 x 4096 x 14336 =
  // 176,160,768; x 32 layers = 6,979,321,856; x 6.
  EXPECT_DOUBLE_EQ(f->linear, 6.0 * 32 * (41'943'040.0 + 176'160'768.0));
  // 12 L d s = 12 x 32 x 4096 x 8192 = 12,884,901,888 (h (d_k + d_v) = 32 x 256 = 2d).
  EXPECT_DOUBLE_EQ(f->attention, 12'884'901'888.0);
  EXPECT_NEAR(f->attention / f->six_n, 0.2674, 1e-4);  // the "adds 27 %"
  EXPECT_DOUBLE_EQ(f->lm_head, 6.0 * 128256 * 4096);  // 3,152,019,456
  EXPECT_DOUBLE_EQ(f->model, f->linear + f->attention + f->lm_head);
  EXPECT_DOUBLE_EQ(f->hardware, f->model);  // no recomputation
  // The causal half: (s + 1) / 2 keys per query.
  auto c = training_flops_per_token(m, 8192, Recompute::kNone, AttentionCount::kCausal);
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->attention, 12'884'901'888.0 * (8193.0 / 2.0) / 8192.0);
  EXPECT_NEAR(c->attention / c->six_n, 0.134, 1e-3);  // "13 % with causal masking"
}

TEST(TrainFlops, RecomputationAddsItsForward) {
  const ModelSpec m = Preset("llama-3.1-8b");
  auto none = training_flops_per_token(m, 4096, Recompute::kNone);
  auto sel = training_flops_per_token(m, 4096, Recompute::kSelective);
  auto full = training_flops_per_token(m, 4096, Recompute::kFull);
  ASSERT_TRUE(none.ok() && sel.ok() && full.ok());
  // Forward 2 of the 6: full recomputes every layer's forward (not the lm_head), selective the core attention.
  EXPECT_DOUBLE_EQ(full->recompute, (none->linear + none->attention) / 3);
  EXPECT_DOUBLE_EQ(sel->recompute, none->attention / 3);
  EXPECT_DOUBLE_EQ(full->model, none->model);  // model FLOPs do not change
  EXPECT_DOUBLE_EQ(full->hardware, none->model + full->recompute);
}

// Narayanan et al. 2021 eq. 3: F = 96 B s l h^2 (1 + s/6h + V/16lh) per
// iteration with full recomputation: per token 96 l h^2 (...). Korthikanti
// et al. 2022 app. A: model FLOPs 72 l h^2 (1 + s/6h + V/12lh) per token.
TEST(TrainFlops, MegatronsFormulasForTheGpt3Layer) {
  const ModelSpec m = Gpt(96, 12288, 96);
  const double l = 96, h = 12288, s = 2048, V = 51200;
  auto f = training_flops_per_token(m, 2048, Recompute::kFull);
  ASSERT_TRUE(f.ok());
  EXPECT_NEAR(f->hardware / (96 * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))), 1.0, 1e-12);
  EXPECT_NEAR(f->model / (72 * l * h * h * (1 + s / (6 * h) + V / (12 * l * h))), 1.0, 1e-12);
}

TEST(TrainFlops, MoeCountsTheExpertsATokenUses) {
  const ModelSpec m = Preset("mixtral-8x7b-v0.1");
  auto f = training_flops_per_token(m, 4096, Recompute::kNone);
  ASSERT_TRUE(f.ok());
  // Per layer: attention 4096 x (4096 + 2 x 1024 + 4096) = 41,943,040; top-2 of 8 experts of 3 x 4096 x 14336 =
  // 176,160,768 each; router 4096 x 8 = 32,768. 32 layers.
  EXPECT_DOUBLE_EQ(f->linear, 6.0 * 32 * (41'943'040.0 + 2 * 176'160'768.0 + 32'768.0));
}

TEST(TrainFlops, ALongerSequenceNeverLowersFlopsPerToken) {
  for (const char* name : {"llama-3.1-8b", "gemma-2-9b", "mixtral-8x7b-v0.1", "deepseek-v2-lite", "gpt2", "phi-2"}) {
    const ModelSpec m = Preset(name);
    for (AttentionCount count : {AttentionCount::kFull, AttentionCount::kCausal}) {
      for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
        double prev = 0;
        for (int64_t s = 1; s <= (int64_t{1} << 20); s = s * 3 + 1) {
          auto f = training_flops_per_token(m, s, rc, count);
          ASSERT_TRUE(f.ok()) << name;
          EXPECT_GE(f->model, prev) << name << " s " << s;
          EXPECT_GE(f->hardware, f->model) << name;
          prev = f->model;
        }
      }
    }
  }
}

TEST(TrainFlops, SlidingWindowLayersCapTheirKeys) {
  // gemma-2-9b: 42 layers, every other one local with a 4096-token window; 16 heads of 256.
  const ModelSpec m = Preset("gemma-2-9b");
  ASSERT_EQ(m.n_swa_layers(), 21);
  auto f = training_flops_per_token(m, 8192, Recompute::kNone);
  ASSERT_TRUE(f.ok());
  // 6 h (d_k + d_v) (21 x 8192 + 21 x 4096) = 6 x 16 x 512 x 258,048.
  EXPECT_DOUBLE_EQ(f->attention, 6.0 * 16 * 512 * (21.0 * 8192 + 21.0 * 4096));
}

TEST(TrainFlops, Utilization) {
  // 3000 tokens/s x 6e10 FLOP / 312e12 = 0.5769...
  EXPECT_DOUBLE_EQ(flops_utilization(3000, 6e10, 312e12), 3000 * 6e10 / 312e12);
}

TEST(TrainFlops, BadInput) {
  ModelSpec m = Preset("llama-3.1-8b");
  EXPECT_EQ(training_flops_per_token(m, 0, Recompute::kNone).status().message().rfind("seq: ", 0), 0u);
  m.n_layer = 0;
  EXPECT_FALSE(training_flops_per_token(m, 4096, Recompute::kNone).ok());
}

}  // namespace
}  // namespace modelcalc
