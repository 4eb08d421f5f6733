// The capacity formulas and analyses, checked against values derived by hand.
#include "modelcalc/capacity.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include <cmath>
#include <vector>

namespace modelcalc {
namespace {

// Llama-3-8B-like: L 32, d 4096, h 32, kv 8 (d_head 128, d_kv 1024), SwiGLU 14336, V 128256, untied.
// Params by hand: per layer q 4096² = 16,777,216; kv 2·4096·1024 = 8,388,608; o 16,777,216;
// ffn 3·4096·14336 = 176,160,768; sum 218,103,808; × 32 = 6,979,321,856;
// embeddings 2·128256·4096 = 1,050,673,152; total 8,029,995,008 → fp16 weights 16,059,990,016 B.
ModelSpec Llama3_8B() {
  ModelSpec m;
  m.n_layer = 32;
  m.n_embd = 4096;
  m.n_head = 32;
  m.n_head_kv = 8;
  m.n_embd_head = 128;
  m.n_ff = 14336;
  m.ffn_gated = true;
  m.n_vocab = 128256;
  return m;
}

GpuSpec Gpu80() {
  GpuSpec g;
  g.name = "80 GB test GPU";
  g.capacity_bytes = 80e9;
  g.bandwidth_bytes_per_s = 3.35e12;
  g.peak_bf16_flops = 989.4e12;
  return g;
}

TEST(PagedKvWaste, HandCountedBlocks) {
  // B = 16: 100 → 7 blocks = 112; 2000 → 125 blocks = 2000; 517 → 33 blocks = 528.
  const std::vector<int64_t> lens = {100, 2000, 517};
  auto w = paged_kv_waste(lens, 16);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->sequences, 3);
  EXPECT_EQ(w->used_tokens, 2617);       // 100 + 2000 + 517
  EXPECT_EQ(w->allocated_tokens, 2640);  // 112 + 2000 + 528
  EXPECT_EQ(w->waste_tokens, 23);        // 12 + 0 + 11
  EXPECT_DOUBLE_EQ(w->waste_fraction, 23.0 / 2640.0);
}

TEST(PagedKvWaste, BelowOneBlockPerSequence) {
  // Every length 1..300 at B = 16: each sequence wastes (-len mod B) <= B - 1 tokens.
  std::vector<int64_t> lens;
  int64_t expected_waste = 0;
  for (int64_t len = 1; len <= 300; ++len) {
    lens.push_back(len);
    expected_waste += (16 - len % 16) % 16;
  }
  auto w = paged_kv_waste(lens, 16);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->waste_tokens, expected_waste);
  EXPECT_LT(w->waste_tokens, w->sequences * 16);
  EXPECT_LE(w->waste_tokens, w->sequences * 15);
}

TEST(PagedKvWaste, BadInputs) {
  const std::vector<int64_t> lens = {10};
  EXPECT_EQ(paged_kv_waste(lens, 0).status().code(), Status::Code::kInvalidArgument);
  const std::vector<int64_t> negative = {10, -1};
  EXPECT_EQ(paged_kv_waste(negative, 16).status().code(), Status::Code::kInvalidArgument);
  auto none = paged_kv_waste({}, 16);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->allocated_tokens, 0);
  EXPECT_EQ(none->waste_fraction, 0.0);
}

TEST(KvBudget, Llama3_8BOnOne80GbGpu) {
  const ModelSpec m = Llama3_8B();
  const GpuSpec g = Gpu80();
  KvBudgetOptions o;  // 1 GPU, T 8192, reserve 0.10, fp16
  auto r = analyze_kv_budget(m, &g, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->usable_bytes, 72'000'000'000);      // 80e9 × 0.9
  EXPECT_EQ(r->weight_bytes, 16'059'990'016);      // 8,029,995,008 × 2
  EXPECT_EQ(r->workspace_bytes, 642'777'088);      // 2048 × (2·14336 + 128256) × 2
  EXPECT_EQ(r->budget_bytes, 55'297'232'896);      // 72e9 − W − A
  EXPECT_EQ(r->kv_bytes_per_token, 131'072);       // 2 · 32 · 1024 · 2
  EXPECT_EQ(r->kv_bytes_per_sequence, 1'073'741'824);      // × 8192
  EXPECT_EQ(r->kv_bytes_per_sequence_mha, 4'294'967'296);  // 32 KV heads: × 4
  EXPECT_EQ(r->kv_ratio, 4.0);                             // heads / kv_heads, exact
  EXPECT_EQ(r->max_sequences, 51);      // 55,297,232,896 / 1,073,741,824 = 51.5
  EXPECT_EQ(r->max_sequences_mha, 12);  // / 4,294,967,296 = 12.87
  EXPECT_DOUBLE_EQ(r->gqa_sequence_gain, 51.0 / 12.0);  // 4.25: above the KV ratio of 4, from the floors
}

// The same GPU with fp8 tensor cores and NVLink-class links, so that fp8 weights and a second
// tensor rank are setups the engine can evaluate.
GpuSpec Gpu80Linked() {
  GpuSpec g = Gpu80();
  g.peak_fp8_flops = 1978.9e12;
  g.link_bytes_per_s = 450e9;
  g.domain_gpus = 8;
  g.scaleout_bytes_per_s = 50e9;
  g.link_latency_s = 6e-6;
  g.scaleout_latency_s = 20e-6;
  return g;
}

// kv-budget's proposals are the deployment engine on each changed setup: the ceiling, which keeps
// nothing back (deployment.h): 80e9 - W 16,059,990,016 = 63,940,009,984 B free, / 1,073,741,824 B per
// sequence = 59 sequences (drill 2's pooled view keeps a reserve and a workspace: 51). Every count below
// divides that way.
TEST(KvBudget, ProposalsAreTheEngineOnTheChangedSetup) {
  Scenario s{Llama3_8B(), Gpu80Linked(), {}, std::nullopt};
  s.options.context = 8192;
  auto r = propose_kv_changes(s, KvBudgetOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->max_sequences, 59);
  ASSERT_FALSE(r->proposals.empty());
  // The least disruptive change reaching 2 x 59 = 118: fp8 KV, 63,940,009,984 / 536,870,912 = 119.1.
  const KvProposal& first = r->proposals.front();
  EXPECT_EQ(first.kind, KvProposalKind::kKvDtype);
  EXPECT_EQ(first.dtype, Dtype::kFp8);
  EXPECT_EQ(first.max_sequences, 119);
  EXPECT_DOUBLE_EQ(first.factor, 119.0 / 59.0);
  EXPECT_EQ(first.variation.change.kv_dtype, Dtype::kFp8);
  std::set<KvProposalKind> seen;
  for (const KvProposal& p : r->proposals) {
    seen.insert(p.kind);
    EXPECT_EQ(p.max_sequences, p.variation.after.result.memory.max_sequences);
    switch (p.kind) {
      case KvProposalKind::kShorterContext:
        // Largest T with floor(free / (131,072 T)) >= 118: T <= 63,940,009,984 / (118 x 131,072) = 4134.1.
        EXPECT_EQ(p.value, 4134);
        EXPECT_EQ(p.variation.change.context, 4134);
        break;
      case KvProposalKind::kMoreGpus:
        // tp 2: each GPU holds half of every matrix, 8,029,995,008 B, and 4 of the 8 KV heads,
        // 536,870,912 B per sequence: (80e9 - 8,029,995,008) / 536,870,912 = 134.05.
        EXPECT_EQ(p.value, 2);
        EXPECT_EQ(p.max_sequences, 134);
        break;
      case KvProposalKind::kFewerKvHeads:
        // 4 KV heads: KV halves to 536,870,912 and K, V projections free 2 x 32 x 4096 x 128 x 4 params x 2 B
        // = 268,435,456 B; (63,940,009,984 + 268,435,456) / 536,870,912 = 119.6.
        EXPECT_EQ(p.value, 4);
        EXPECT_EQ(p.max_sequences, 119);
        break;
      case KvProposalKind::kWeightDtype:
        if (p.dtype == Dtype::kFp8) {
          // Block matrices in fp8, 8,029,995,008 - 2 x 128,256 x 4096 = 6,979,321,856 B; embedding and
          // lm_head stay 16-bit, 2,101,346,304 B: W = 9,080,668,160 B. (80e9 - W) / 1,073,741,824 = 66.05
          // (the drill's "all weights at 1 B" would hold 67).
          EXPECT_EQ(p.max_sequences, 66);
        }
        break;
      case KvProposalKind::kPagedAllocation:
        // Mean 4096 tokens (context / 2), a whole number of 16-token blocks: the engine at context 4096.
        EXPECT_EQ(p.value, 4096);
        EXPECT_EQ(p.variation.change.context, 4096);
        EXPECT_EQ(p.max_sequences, 119);
        break;
      case KvProposalKind::kKvDtype:
        break;
    }
  }
  EXPECT_EQ(seen.size(), 6u);  // every kind proposed
}

TEST(KvBudget, ProposalsRankedReachingTwoFirst) {
  Scenario s{Llama3_8B(), Gpu80Linked(), {}, std::nullopt};
  s.options.context = 8192;
  auto r = propose_kv_changes(s, KvBudgetOptions{});
  ASSERT_TRUE(r.ok());
  bool seen_short = false;
  int last_effort = 0;
  for (const KvProposal& p : r->proposals) {
    const bool reaches = p.max_sequences >= 2 * r->max_sequences;
    if (!reaches) seen_short = true;
    EXPECT_FALSE(reaches && seen_short) << "a ×2 change ranked after one short of it";
    if (reaches) {
      EXPECT_GE(p.effort, last_effort);
      last_effort = p.effort;
    }
  }
  EXPECT_TRUE(seen_short);  // fp8 weights alone: 66 / 59 = x1.12
}

TEST(KvBudget, EngineProposalsOfferOnlyKvDtypesAnEngineServes) {
  // No engine modelled serves int4 KV; int8 KV is TensorRT-LLM's alone. The ceiling alone (no engine)
  // proposes what every engine serves: fp8.
  for (const auto& [engine, int8] : {std::pair{std::optional<Engine>{}, false},
                                     std::pair{std::optional<Engine>{Engine::kVllm}, false},
                                     std::pair{std::optional<Engine>{Engine::kTrtllm}, true}}) {
    Scenario s{Llama3_8B(), Gpu80Linked(), {}, std::nullopt};
    s.options.context = 8192;
    if (engine) {
      ScenarioEngine e;
      e.engine.family = engine == Engine::kVllm ? EngineFamily::kVllmV1 : EngineFamily::kTrtllm;
      s.engine = e;
    }
    auto r = propose_kv_changes(s, KvBudgetOptions{});
    ASSERT_TRUE(r.ok()) << r.status().message();
    std::set<Dtype> kv;
    for (const KvProposal& p : r->proposals) {
      if (p.kind == KvProposalKind::kKvDtype) kv.insert(p.dtype);
    }
    EXPECT_EQ(kv.count(Dtype::kFp8), 1u);
    EXPECT_EQ(kv.count(Dtype::kInt4), 0u);
    EXPECT_EQ(kv.count(Dtype::kInt8), int8 ? 1u : 0u);
  }
}

// Drill 2 under a 40 GB budget and no GPU: Llama-3-8B's shape at T = 8192, bf16 KV.
// KV per token 2 x 32 x 8 x 128 x 2 B = 131,072 B; a sequence 131,072 x 8192 = 1,073,741,824 B;
// floor(40e9 / 1,073,741,824) = 37 (37.25).
TEST(KvBudget, BudgetProposalsAreTheCapacityFunctionOnTheChangedModel) {
  KvBudgetOptions o;
  o.context = 8192;
  o.budget = 40e9;
  auto r = propose_budget_changes(Llama3_8B(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->max_sequences, 37);
  std::map<BudgetChangeKind, const BudgetProposal*> by;
  for (const BudgetProposal& p : r->proposals) {
    if (p.change.kind != BudgetChangeKind::kKvDtype || p.change.kv_dtype == Dtype::kFp8) by[p.change.kind] = &p;
  }
  ASSERT_EQ(by.size(), 5u);
  // fp8 KV: 536,870,912 B a sequence -> floor(40e9 / 536,870,912) = 74 (74.5): x2, a serving flag, first.
  EXPECT_EQ(r->proposals.front().change.kind, BudgetChangeKind::kKvDtype);
  EXPECT_EQ(r->proposals.front().change.kv_dtype, Dtype::kFp8);
  EXPECT_EQ(r->proposals.front().after.max_sequences, 74);
  EXPECT_EQ(r->proposals.front().effort, 1);
  EXPECT_FALSE(r->proposals.front().needs_retraining);
  // The longest context that doubles: 74 x 131,072 T <= 40e9 -> T <= 4124.06; at T = 4124, 74 sequences
  // need 74 x 540,540,928 = 40,000,028,672 B > 40e9, so T = 4123 (74 x 540,409,856 = 39,990,329,344).
  EXPECT_EQ(by[BudgetChangeKind::kShorterContext]->change.context, 4123);
  EXPECT_EQ(by[BudgetChangeKind::kShorterContext]->after.max_sequences, 74);
  // The most KV heads that double: 4 (KV halves: 74).
  EXPECT_EQ(by[BudgetChangeKind::kFewerKvHeads]->change.kv_heads, 4);
  EXPECT_EQ(by[BudgetChangeKind::kFewerKvHeads]->after.max_sequences, 74);
  EXPECT_TRUE(by[BudgetChangeKind::kFewerKvHeads]->needs_retraining);
  // A 512 + 64 latent: 576 x 2 B x 32 layers = 36,864 B a token; x 8192 = 301,989,888 B a sequence;
  // floor(40e9 / 301,989,888) = 132 (132.45).
  EXPECT_EQ(by[BudgetChangeKind::kLatent]->after.kv_bytes_per_sequence, 301'989'888);
  EXPECT_EQ(by[BudgetChangeKind::kLatent]->after.max_sequences, 132);
  // A 4,096-token window on 5 layers of 6: of 32 layers, 5, 11, 17, 23, 29 stay full and 27 slide;
  // (5 x 8192 + 27 x 4096) x 4096 B a layer-token = 620,756,992 B; floor(40e9 / 620,756,992) = 64: short of x2.
  EXPECT_EQ(by[BudgetChangeKind::kSlidingWindow]->after.kv_bytes_per_sequence, 620'756'992);
  EXPECT_EQ(by[BudgetChangeKind::kSlidingWindow]->change.sliding_layers, 27);
  EXPECT_EQ(by[BudgetChangeKind::kSlidingWindow]->after.max_sequences, 64);
  // Ranked: every x2 change before the window (short of x2), the last.
  EXPECT_EQ(r->proposals.back().change.kind, BudgetChangeKind::kSlidingWindow);
  int last_effort = 0;
  for (const BudgetProposal& p : r->proposals) {
    if (p.after.max_sequences < 74) continue;
    EXPECT_GE(p.effort, last_effort);
    last_effort = p.effort;
    // Each after is analyze_kv_budget on the changed model and options.
    const auto [m, opt] = apply_budget_change(Llama3_8B(), o, p.change);
    auto again = analyze_kv_budget(m, nullptr, opt);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->max_sequences, p.after.max_sequences);
  }
}

// On a hybrid the window counts attention layers, not layer indices: attention at 5, 15, 25 and 35 of 40
// (Granite 4.0 H's layout), the 4th... none is a 6th, so all 4 slide (by index, only 2 would: 5 % 6 = 5 and
// 35 % 6 = 5 stay full).
TEST(KvBudget, BudgetWindowCountsTheAttentionLayersInOrder) {
  ModelSpec m = Llama3_8B();
  m.n_layer = 40;
  m.recurrent = Recurrent::kMamba2;
  m.n_ssm_state = 128;
  m.n_ssm_inner = 8192;
  m.n_ssm_head = 128;
  m.n_ssm_conv = 4;
  m.n_ssm_conv_dim = 8448;
  m.layer_kinds.assign(40, LayerKind{.attn = Attn::kNone, .recurrent = true, .ffn = Ffn::kDense});
  for (const int il : {5, 15, 25, 35}) m.layer_kinds[static_cast<size_t>(il)] = LayerKind{};
  ASSERT_TRUE(validate(m).ok()) << validate(m).message();
  KvBudgetOptions o;
  o.context = 8192;
  o.budget = 40e9;
  auto r = propose_budget_changes(m, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const BudgetProposal* w = nullptr;
  for (const BudgetProposal& p : r->proposals) {
    if (p.change.kind == BudgetChangeKind::kSlidingWindow) w = &p;
  }
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->change.sliding_layers, 4);  // 4 - floor(4 / 6)
  // KV: 4 layers x 4096 tokens x 4096 B a layer-token = 67,108,864 B (from 4 x 8192 x 4096 = 134,217,728).
  EXPECT_EQ(w->after.kv_bytes_per_sequence, 67'108'864);
}

TEST(KvBudget, BudgetProposalsSkipWhatTheModelHas) {
  // MQA and a latent already: no fewer KV heads and no latent; windows already sliding: no window.
  ModelSpec m = Llama3_8B();
  m.n_head_kv = 1;
  m.n_swa = 4096;
  m.set_swa_pattern(2);
  KvBudgetOptions o;
  o.context = 8192;
  o.budget = 40e9;
  auto r = propose_budget_changes(m, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const BudgetProposal& p : r->proposals) {
    EXPECT_NE(p.change.kind, BudgetChangeKind::kFewerKvHeads);
    EXPECT_NE(p.change.kind, BudgetChangeKind::kSlidingWindow);
    // MQA's 2 x 128 = 256 elements a layer-token are already below the latent's 576.
    EXPECT_NE(p.change.kind, BudgetChangeKind::kLatent);
  }
  EXPECT_FALSE(propose_budget_changes(m, KvBudgetOptions{}).ok());  // no budget
}

TEST(KvBudget, TensorParallelBeyondKvHeadsReplicates) {
  EXPECT_EQ(kv_heads_stored(8, 1), 8);
  EXPECT_EQ(kv_heads_stored(8, 2), 8);
  EXPECT_EQ(kv_heads_stored(8, 3), 9);    // 3 GPUs × ceil(8/3) = 3 × 3
  EXPECT_EQ(kv_heads_stored(8, 16), 16);  // each of 16 GPUs holds one whole head
  const ModelSpec m = Llama3_8B();
  const GpuSpec g = Gpu80();
  KvBudgetOptions o;
  o.gpus = 16;
  auto r = analyze_kv_budget(m, &g, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kv_bytes_per_sequence, 2 * 1'073'741'824LL);
}

TEST(KvBudget, BadInputs) {
  const ModelSpec m = Llama3_8B();
  const GpuSpec g = Gpu80();
  auto field = [&](KvBudgetOptions o, const GpuSpec* gpu) {
    auto r = analyze_kv_budget(m, gpu, o);
    EXPECT_FALSE(r.ok());
    const std::string& msg = r.status().message();
    return msg.substr(0, msg.find(':'));
  };
  KvBudgetOptions o;
  o.reserve = 1.0;
  EXPECT_EQ(field(o, &g), "reserve");
  o.reserve = -0.1;
  EXPECT_EQ(field(o, &g), "reserve");
  o = {};
  o.budget = 81e9;  // more than one 80 GB GPU
  EXPECT_EQ(field(o, &g), "budget");
  o = {};
  EXPECT_EQ(field(o, nullptr), "gpu");
  o.budget = 40e9;  // a budget needs no GPU
  EXPECT_TRUE(analyze_kv_budget(m, nullptr, o).ok());
}

TEST(PagedKv, BytesAndFractions) {
  const std::vector<int64_t> lens = {100, 2000, 517};
  auto r = analyze_paged_kv(lens, 16, 4096, 131'072);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->used_bytes, 2617LL * 131'072);
  EXPECT_EQ(r->contiguous_reserved_bytes, 3LL * 4096 * 131'072);
  EXPECT_EQ(r->paged_allocated_bytes, 2640LL * 131'072);
  EXPECT_DOUBLE_EQ(r->contiguous_waste_fraction, (12288.0 - 2617.0) / 12288.0);
  EXPECT_DOUBLE_EQ(r->paged_waste_fraction, 23.0 / 2640.0);
  EXPECT_DOUBLE_EQ(r->paging_gain, 12288.0 / 2640.0);  // 3 × 4096 reserved over 2,640 allocated tokens
  EXPECT_FALSE(analyze_paged_kv({}, 16, 4096, 1).ok());
  const std::vector<int64_t> too_long = {5000};
  EXPECT_FALSE(analyze_paged_kv(too_long, 16, 4096, 1).ok());
}

}  // namespace
}  // namespace modelcalc
