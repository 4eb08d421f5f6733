// The serving layouts of the deployment engine against numbers derived by
// hand (formula in each comment): attention DP x MoE EP and its all-to-all,
// EP as whole experts, speculative decoding, prefix caching.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "modelcalc/deployment.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/serving.h"
#include "typed_gpus.h"

namespace modelcalc {
namespace {

// One HGX H100 node's links as the catalog gives them (typed_gpus.h).
GpuSpec H100() { return typed_h100(); }

// A small MoE: 4 layers, d 1024, 8 heads (MHA of 128), 8 experts of 2048 (gated), top-2, V 1000.
// Seed counts: one expert 3 x 1024 x 2048 = 6,291,456 params.
ModelSpec TinyMoe() {
  ModelSpec m;
  m.n_layer = 4;
  m.n_embd = 1024;
  m.n_head = 8;
  m.n_head_kv = 8;
  m.n_embd_head = 128;
  m.n_ff = 2048;
  m.ffn_gated = true;
  m.n_vocab = 1000;
  m.n_expert = 8;
  m.n_expert_used = 2;
  m.n_ff_exp = 2048;
  return m;
}

// A dense 4-layer model and a 1-layer draft of it (same d, heads, vocabulary).
ModelSpec TinyDense(int64_t layers) {
  ModelSpec m;
  m.n_layer = layers;
  m.n_embd = 1024;
  m.n_head = 8;
  m.n_head_kv = 8;
  m.n_embd_head = 128;
  m.n_ff = 4096;
  m.ffn_gated = true;
  m.n_vocab = 32000;
  return m;
}

// Phi^-1(p) by bisection on erfc (independent of the engine's rational approximation).
double inverse_normal(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}
// Blom's expected largest of n standard normals.
double blom(int64_t n) { return inverse_normal((static_cast<double>(n) - 0.375) / (static_cast<double>(n) + 0.25)); }

DeploymentOptions DpAttention(int64_t gpus, int64_t ep) {
  DeploymentOptions o;
  o.split.dp_attention = true;
  o.split.attn_dp = gpus;
  o.split.ep = ep;
  return o;
}

TEST(LayoutsTest, AllToAllOfOneMoeLayerByHand) {
  // TinyMoe on 4 H100s of one node, DP attention (4 groups of 1), EP 4: 2 experts per rank.
  // A token's top-2 of 8 experts hit distinct EP ranks: 4 x (1 - C(6,2)/C(8,2)) = 4 x (1 - 15/28) = 13/7;
  // the sender's own share 1/4 stays: 13/7 x 3/4 = 39/28 copies over NVLink, none over the NIC.
  // bf16 matmuls: dispatch and combine 1024 x 2 B = 2,048 B per copy.
  DeploymentOptions o = DpAttention(4, 4);
  o.batch = 4096;
  o.context = 1024;
  auto a = analyze_deployment_full(TinyMoe(), H100(), o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  const PreparedDeployment& d = a->prepared;
  EXPECT_TRUE(d.a2a);
  EXPECT_NEAR(d.a2a_link_copies, 39.0 / 28.0, 1e-12);
  EXPECT_EQ(d.a2a_nic_copies, 0.0);
  EXPECT_EQ(d.a2a_dispatch_bytes, 2048.0);
  EXPECT_EQ(d.a2a_combine_bytes, 2048.0);
  // The step: 4,096 sequences, 1,024 tokens sent per GPU. Routed pairs 4096 x 2 = 8,192, mean per rank 2,048;
  // the busiest rank's share: 1 + z(4) x sqrt(8192 x 1/4 x 3/4) / 2048, z(4) Blom's.
  const double ratio = 1 + blom(4) * std::sqrt(8192 * 0.25 * 0.75) / 2048;
  // Per layer: 2 x (ratio x 1024 x 39/28 x 2048 B / 450 GB/s + 6 us); 4 MoE layers.
  const double layer = 2 * (ratio * 1024 * (39.0 / 28.0) * 2048 / 450e9 + 6e-6);
  EXPECT_NEAR(a->result.decode.a2a_seconds, 4 * layer, 4 * layer * 2e-4);  // Blom's approximation: 1e-9
  EXPECT_NEAR(a->result.decode.routed_per_rank, 2048 * ratio, 2048 * ratio * 2e-4);
  // Not overlapped: the step adds it.
  const DecodeStep& st = a->result.decode;
  EXPECT_DOUBLE_EQ(st.seconds, std::max(st.compute_seconds, st.memory_seconds) + st.comm_seconds);
}

TEST(LayoutsTest, AllToAllAcrossNodesCrossesTheNicOncePerRemoteDomain) {
  // DeepSeek-V3 (256 experts, top-8, d 7168) on 16 H100s = 2 nodes, fp8 matmuls: a token's 8 experts touch
  // 2 x (1 - C(128,8)/C(256,8)) domains; the remote ones: half of them. Dispatch 7168 x (1 + 4/128) B.
  const ModelSpec m = find_preset("deepseek-v3").value();
  DeploymentOptions o = DpAttention(16, 16);
  o.weight_dtype = Dtype::kFp8;
  auto d = prepare_deployment(m, H100(), o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  double miss = 1;
  for (int i = 0; i < 8; ++i) miss *= (128.0 - i) / (256.0 - i);
  EXPECT_NEAR(d->a2a_nic_copies, 2 * (1 - miss) * 0.5, 1e-12);
  double miss_rank = 1;  // 16 ranks of 16 experts
  for (int i = 0; i < 8; ++i) miss_rank *= (240.0 - i) / (256.0 - i);
  EXPECT_NEAR(d->a2a_link_copies, 16 * (1 - miss_rank) * (15.0 / 16.0), 1e-12);
  EXPECT_DOUBLE_EQ(d->a2a_dispatch_bytes, 7168 * (1 + 4.0 / 128));
  EXPECT_DOUBLE_EQ(d->a2a_combine_bytes, 7168 * 2.0);
  EXPECT_DOUBLE_EQ(d->a2a_nic_bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(d->a2a_latency_s, 20e-6);
}

TEST(LayoutsTest, TwoBatchOverlapHidesTheAllToAllBehindTheKernels) {
  DeploymentOptions o = DpAttention(4, 4);
  o.batch = 4096;
  o.context = 1024;
  auto plain = analyze_deployment(TinyMoe(), H100(), o);
  o.two_batch_overlap = true;
  auto hidden = analyze_deployment(TinyMoe(), H100(), o);
  ASSERT_TRUE(plain.ok() && hidden.ok());
  const DecodeStep& p = plain->decode;
  const DecodeStep& h = hidden->decode;
  EXPECT_DOUBLE_EQ(h.seconds, std::max({h.compute_seconds, h.memory_seconds, h.a2a_seconds}) + h.allreduce_seconds +
                                  h.handoff_seconds);
  EXPECT_LE(h.seconds, p.seconds);
}

TEST(LayoutsTest, DeepSeekV3OnEightGpusHoldsEachLatentOnce) {
  // DeepSeek-V3's checkpoint (fp8, 128 x 128 block scales) on 8 H200s at a 32K context. Under DP attention
  // (8 groups of 1) every GPU holds all non-routed weights and 256 / 8 experts: W = 2 x 2 B x V x d
  // (embedding, lm_head) + 1 B x (attention + dense + shared + routed / 8) + 2 B x (norms + routers + biases)
  // + 4 B per 16,384 fp8 weights; KV per sequence (512 + 64) x 61 x 2 B x T, held only by its own GPU:
  // max_sequences = 8 x floor((capacity - W) / KV_seq). Under TP 8 the latent is whole on every rank.
  const ModelSpec m = find_preset("deepseek-v3").value();
  const ParamBreakdown p = param_breakdown(m).value();
  const GpuSpec h200 = find_gpu("h200").value();
  DeploymentOptions o = DpAttention(8, 8);
  o.weight_dtype = Dtype::kFp8;
  o.context = 32768;
  auto dp = analyze_deployment(m, h200, o);
  ASSERT_TRUE(dp.ok()) << dp.status().message();
  const double fp8 = static_cast<double>(p.attention + p.mlp_dense + p.mlp_shared + p.mlp_routed / 8);
  const double w = 4.0 * static_cast<double>(p.embeddings) + fp8 + 2.0 * static_cast<double>(p.norms + p.router + p.biases) +
                   4.0 * std::ceil(fp8 / 16384);
  EXPECT_NEAR(static_cast<double>(dp->memory.weights.total()), w, w * 1e-6);
  const double kv_seq = 576.0 * 61 * 2 * 32768;
  EXPECT_EQ(dp->memory.kv_per_sequence, static_cast<int64_t>(kv_seq));
  const double cap = h200.usable_capacity_bytes();
  EXPECT_EQ(dp->memory.max_sequences, 8 * static_cast<int64_t>(std::floor((cap - w) / kv_seq)));
  // TP 8: one latent per sequence on each of the 8 ranks.
  DeploymentOptions t;
  t.split.tp = 8;
  t.weight_dtype = Dtype::kFp8;
  t.context = 32768;
  auto tp = analyze_deployment(m, h200, t);
  ASSERT_TRUE(tp.ok());
  EXPECT_EQ(tp->memory.kv_per_sequence, dp->memory.kv_per_sequence);
  EXPECT_GT(dp->memory.max_sequences, 5 * tp->memory.max_sequences);
}

TEST(LayoutsTest, ExpertParallelInsideTensorParallelReadsTheBusiestRank) {
  // TinyMoe at TP 4, batch 1: 2 experts touched per layer (E (1 - (1 - k/E)^1) = 2). Pure TP reads 2 slices of
  // 1/4; EP 4 holds whole experts (2 per rank): the busiest rank reads min(2, 2p + z(4) sqrt(2p(1-p))) with
  // p = 2/8 whole experts, and no all-to-all (the tokens are on every TP rank).
  DeploymentOptions o;
  o.split.tp = 4;
  auto tp = analyze_deployment_full(TinyMoe(), H100(), o);
  o.split.ep = 4;
  auto ep = analyze_deployment_full(TinyMoe(), H100(), o);
  ASSERT_TRUE(tp.ok() && ep.ok()) << ep.status().message();
  const double expert = 3.0 * 1024 * 2048;
  EXPECT_DOUBLE_EQ(tp->result.decode.bytes.experts, 4 * 2 * expert / 4 * 2);  // 4 layers, bf16
  const double p = 0.25;
  const double read = std::min(2.0, 2 * p + blom(4) * std::sqrt(2 * p * (1 - p)));
  EXPECT_NEAR(ep->result.decode.bytes.experts, 4 * read * expert * 2, 4 * read * expert * 2 * 1e-6);
  EXPECT_GT(ep->result.decode.bytes.experts, tp->result.decode.bytes.experts);
  EXPECT_EQ(ep->result.decode.a2a_seconds, 0.0);
  EXPECT_FALSE(ep->prepared.a2a);
  EXPECT_EQ(ep->result.memory.weights.experts, tp->result.memory.weights.experts);
  // The stated imbalance multiplies the busiest rank's routed tokens: its expert FLOPs.
  o.expert_imbalance = 1.5;
  auto skew = analyze_deployment(TinyMoe(), H100(), o);
  ASSERT_TRUE(skew.ok());
  EXPECT_NEAR(skew->decode.flops.experts, 1.5 * ep->result.decode.flops.experts, 1e-6 * skew->decode.flops.experts);
}

TEST(LayoutsTest, RedundantExpertsAddSlots) {
  // 8 experts + 4 redundant over EP 4: 3 slots per rank, each a whole expert at TP 4 / EP 4 = 1 slice.
  DeploymentOptions o;
  o.split.tp = 4;
  o.split.ep = 4;
  auto base = analyze_deployment(TinyMoe(), H100(), o);
  o.redundant_experts = 4;
  auto more = analyze_deployment(TinyMoe(), H100(), o);
  ASSERT_TRUE(base.ok() && more.ok()) << more.status().message();
  const int64_t expert = 3 * 1024 * 2048 * 2;  // bf16 bytes
  EXPECT_EQ(base->memory.weights.experts, 4 * 2 * expert);
  EXPECT_EQ(more->memory.weights.experts, 4 * 3 * expert);
  o.redundant_experts = 3;  // 11 slots do not split over 4 ranks
  auto bad = analyze_deployment(TinyMoe(), H100(), o);
  ASSERT_FALSE(bad.ok());
  // 8 experts split over ep 4; the 3 redundant slots added are what breaks it (issue #39): named, with the
  // multiple they must be.
  EXPECT_EQ(bad.status().message().rfind("redundant_experts: ", 0), 0u) << bad.status().message();
  EXPECT_NE(bad.status().message().find("a multiple of 4, got 3"), std::string::npos) << bad.status().message();

}

TEST(LayoutsTest, MoreExpertParallelismNeverRaisesExpertBytesPerGpu) {
  // Property: at a fixed MoE group, the expert weights one GPU holds do not grow with ep; a larger group
  // (more GPUs) holds fewer. Over DP attention (groups of 8, 16, 32) and TP (2, 4, 8) on two MoE presets.
  for (const char* name : {"deepseek-v3", "qwen3-30b-a3b"}) {
    const ModelSpec m = find_preset(name).value();
    int64_t last_group = -1;
    for (int64_t group : {8, 16, 32}) {
      int64_t prev = -1;
      for (int64_t ep = 1; ep <= group; ep *= 2) {
        if (m.n_expert % ep != 0) continue;
        DeploymentOptions o = DpAttention(group, ep);
        auto d = prepare_deployment(m, H100(), o);
        ASSERT_TRUE(d.ok()) << name << " " << group << " " << ep << ": " << d.status().message();
        if (prev >= 0) {
          EXPECT_LE(d->weights.experts, prev) << name << " group " << group << " ep " << ep;
        }
        prev = d->weights.experts;
      }
      if (last_group >= 0) {
        EXPECT_LT(prev, last_group) << name << " group " << group;
      }
      last_group = prev;
    }
    for (int64_t tp : {2, 4, 8}) {
      int64_t prev = -1;
      for (int64_t ep = 1; ep <= tp; ep *= 2) {
        DeploymentOptions o;
        o.split.tp = tp;
        o.split.ep = ep;
        auto d = prepare_deployment(m, H100(), o);
        ASSERT_TRUE(d.ok()) << d.status().message();
        if (prev >= 0) {
          EXPECT_LE(d->weights.experts, prev);
        }
        prev = d->weights.experts;
      }
    }
  }
}

TEST(LayoutsTest, SplitErrorsNameTheField) {
  auto field = [](const DeploymentOptions& o, const ModelSpec& m) {
    auto r = analyze_deployment(m, H100(), o);
    if (r.ok()) return std::string("ok");
    return r.status().message().substr(0, r.status().message().find(':'));
  };
  DeploymentOptions o = DpAttention(4, 3);
  EXPECT_EQ(field(o, TinyMoe()), "ep");  // 3 does not divide the 4 GPUs
  o = DpAttention(4, 4);
  o.split.pp = 2;
  EXPECT_EQ(field(o, TinyMoe()), "pp");
  DeploymentOptions t;
  t.split.attn_dp = 2;  // without the layout
  EXPECT_EQ(field(t, TinyMoe()), "attn_dp");
  t.split.attn_dp = 1;
  t.redundant_experts = 2;  // no EP
  EXPECT_EQ(field(t, TinyMoe()), "redundant_experts");
  t.redundant_experts = 0;
  t.expert_imbalance = 0.5;
  EXPECT_EQ(field(t, TinyMoe()), "expert_imbalance");
  t.expert_imbalance = 1;
  t.spec.method = SpecMethod::kMtp;
  t.spec.tokens = 1;
  t.spec.acceptance = 0.8;
  EXPECT_EQ(field(t, TinyMoe()), "spec_method");  // no MTP module
  t.spec = {};
  t.prefix.hit = 1.0;
  EXPECT_EQ(field(t, TinyMoe()), "prefix_hit");
}

TEST(LayoutsTest, AcceptedTokensPerStepIid) {
  // (1 - A^(K+1)) / (1 - A): K = 3, A = 0.5: (1 - 1/16) / (1/2) = 1.875; A = 1: K + 1; A = 0: 1.
  EXPECT_DOUBLE_EQ(accepted_tokens_per_step(3, 0.5), 1.875);
  EXPECT_DOUBLE_EQ(accepted_tokens_per_step(3, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(accepted_tokens_per_step(3, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(accepted_tokens_per_step(0, 0.9), 1.0);
}

TEST(LayoutsTest, SpeculativeDecodingAtAcceptanceZeroOnlyCosts) {
  // A 1-layer draft of a 32-layer dense model, K = 4, batch 1. At A = 0 every step yields one token and pays
  // the 4 draft passes and the 5-token verify: slower than without. The draft's weights and cache are held
  // beside the model's: its own deployment's weights, and its KV per token x the context.
  const ModelSpec target = TinyDense(32), draft = TinyDense(1);
  DeploymentOptions o;
  o.context = 2048;
  auto plain = analyze_deployment(target, H100(), o);
  auto alone = analyze_deployment(draft, H100(), o);
  o.spec.method = SpecMethod::kDraftModel;
  o.spec.draft = &draft;
  o.spec.tokens = 4;
  o.spec.acceptance = 0.0;
  auto spec = analyze_deployment(target, H100(), o);
  ASSERT_TRUE(plain.ok() && alone.ok() && spec.ok()) << spec.status().message();
  const DecodeStep& s = spec->decode;
  EXPECT_DOUBLE_EQ(s.accepted_tokens_per_step, 1.0);
  EXPECT_LT(s.tokens_per_s_per_sequence, plain->decode.tokens_per_s_per_sequence);
  EXPECT_DOUBLE_EQ(s.tokens_per_s_per_sequence_without_spec, plain->decode.tokens_per_s_per_sequence);
  // Memory: the draft's whole shard and its cache.
  EXPECT_EQ(spec->memory.weights.draft, alone->memory.weights.total());
  EXPECT_EQ(spec->memory.draft_kv_per_sequence, alone->memory.kv_per_sequence);
  EXPECT_LT(spec->memory.max_sequences, plain->memory.max_sequences);
  // The draft's cost: 4 passes of its own decode step's bytes (weights, lm_head, one row, its KV).
  const DecodeBytes& b = alone->decode.bytes;
  EXPECT_NEAR(s.bytes.draft, 4 * (b.weights + b.lm_head + b.embedding_rows + b.kv), 1e-6 * s.bytes.draft);
  // The verify reads the KV once and runs the matmuls for 5 tokens.
  EXPECT_DOUBLE_EQ(s.bytes.kv, plain->decode.bytes.kv);
  EXPECT_DOUBLE_EQ(s.flops.linear, 5 * plain->decode.flops.linear);
  EXPECT_DOUBLE_EQ(s.flops.lm_head, 5 * plain->decode.flops.lm_head);
}

TEST(LayoutsTest, SpeculativeDecodingAtAcceptanceOneYieldsKPlusOne) {
  // A = 1: K + 1 = 5 tokens per step; tokens/s per sequence = 5 / step, the speed-up 5 x t_plain / t_spec.
  const ModelSpec target = TinyDense(32), draft = TinyDense(1);
  DeploymentOptions o;
  o.context = 2048;
  auto plain = analyze_deployment(target, H100(), o);
  o.spec.method = SpecMethod::kDraftModel;
  o.spec.draft = &draft;
  o.spec.tokens = 4;
  o.spec.acceptance = 1.0;
  auto spec = analyze_deployment(target, H100(), o);
  ASSERT_TRUE(plain.ok() && spec.ok());
  const DecodeStep& s = spec->decode;
  EXPECT_DOUBLE_EQ(s.accepted_tokens_per_step, 5.0);
  EXPECT_DOUBLE_EQ(s.tokens_per_s_per_sequence, 5.0 / s.seconds);
  EXPECT_DOUBLE_EQ(s.tpot_seconds, s.seconds / 5.0);
  EXPECT_NEAR(s.tokens_per_s_per_sequence / s.tokens_per_s_per_sequence_without_spec,
              5.0 * plain->decode.seconds / s.seconds, 1e-12);
  // Bandwidth-bound at batch 1: the gain is large but below K + 1 (the drafts and 5 tokens of matmuls cost).
  EXPECT_GT(s.tokens_per_s_per_sequence, 2 * plain->decode.tokens_per_s_per_sequence);
  EXPECT_LT(s.tokens_per_s_per_sequence, 5 * plain->decode.tokens_per_s_per_sequence);
}

TEST(LayoutsTest, MtpModuleIsOneLayerOfTheModelBesideItsTotal) {
  // DeepSeek-V3's MTP module on 8 H200 at TP 8: one MoE layer (attention, shared and routed experts, router
  // and norms) plus its 2d x d projection, split over 8; embedding and lm_head shared. Its bytes per GPU are
  // the checkpoint's MTP count / 8 (params_mtp: the module without its embedding and head) at ~1 B each, plus
  // what is not split: MLA's down-projections on every rank (7168 x (1536 + 576) = 15.1 M, +1.0 % of the
  // share) and the 16-bit norms and router: above the share, within 2 %.
  const ModelSpec m = find_preset("deepseek-v3").value();
  DeploymentOptions o;
  o.split.tp = 8;
  o.weight_dtype = Dtype::kFp8;
  o.spec.method = SpecMethod::kMtp;
  o.spec.tokens = 1;
  o.spec.acceptance = 0.85;
  auto d = prepare_deployment(m, find_gpu("h200").value(), o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  const double per_gpu = static_cast<double>(*m.params_mtp) / 8;
  EXPECT_GT(static_cast<double>(d->weights.draft), per_gpu);
  EXPECT_LT(static_cast<double>(d->weights.draft), per_gpu * 1.02);
  EXPECT_DOUBLE_EQ(d->spec_accepted, 1.85);
}

TEST(LayoutsTest, PrefixHitRemovesPrefillWorkAndNeverRaisesTtft) {
  // Property over hit rates 0, 0.1, ..., 0.9 on three models: the ceiling's TTFT and the prediction's prefill
  // never rise, and at h = 0.5 the computed tokens are half the prompt.
  for (const char* name : {"llama-3.1-8b", "qwen3-30b-a3b", "gemma-3-12b"}) {
    const ModelSpec m = find_preset(name).value();
    const GpuSpec h100 = find_gpu("h100").value();
    double last = 1e30, last_pred = 1e30;
    for (int i = 0; i < 10; ++i) {
      DeploymentOptions o;
      o.context = 8192;
      o.prompt_tokens = 8000;
      o.prefix.hit = 0.1 * i;
      auto a = analyze_deployment_full(m, h100, o);
      ASSERT_TRUE(a.ok()) << a.status().message();
      EXPECT_LE(a->result.prefill.seconds, last) << name << " h " << o.prefix.hit;
      last = a->result.prefill.seconds;
      auto s = resolve_engine_settings(kDefaultEngine, EngineFlags{}, m, h100, a->prepared, EngineWorkload{});
      ASSERT_TRUE(s.ok());
      const StepTime t = predict_prefill(a->prepared, *s, engine_profile(kDefaultEngine).time, 8000);
      EXPECT_LE(t.seconds, last_pred * (1 + 1e-12)) << name << " h " << o.prefix.hit;
      last_pred = t.seconds;
      if (i == 5) {
        EXPECT_EQ(a->result.prefill.cached_tokens, 4000);
      }
    }
  }
}

TEST(LayoutsTest, SharedPrefixIsHeldOncePerAttentionGroup) {
  // Llama-3.1-8B-like dense at context 8192 with a 4096-token shared prefix: each sequence keeps
  // KV(8192) - KV(4096) on its full layers, the prefix once: fit = floor((free - KV(4096)) / KV(4096)).
  const ModelSpec m = find_preset("llama-3.1-8b").value();
  const GpuSpec h100 = find_gpu("h100").value();
  DeploymentOptions o;
  o.context = 8192;
  auto plain = analyze_deployment(m, h100, o);
  o.prefix.shared_tokens = 4096;
  auto shared = analyze_deployment(m, h100, o);
  ASSERT_TRUE(plain.ok() && shared.ok());
  const int64_t half = plain->memory.kv_per_sequence / 2;  // 32 layers x 8 x 128 x 2 x 2 B x 4096
  EXPECT_EQ(shared->memory.shared_prefix, half);
  EXPECT_EQ(shared->memory.kv_per_sequence, half);
  EXPECT_EQ(shared->memory.max_sequences,
            static_cast<int64_t>(std::floor((shared->memory.free_for_kv - static_cast<double>(half)) /
                                            static_cast<double>(half))));
  EXPECT_EQ(shared->prefill.cached_tokens, 4096);  // the prompt is the whole context here
}

}  // namespace
}  // namespace modelcalc
