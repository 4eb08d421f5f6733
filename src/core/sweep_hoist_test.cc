// The sweep hoists everything a row shares with its neighbours (the model
// part, the deployment engine's constants, the whole row at the first batch)
// and recomputes per row only what the batch changes. These tests hold it to
// "exactly the same numbers": every field of every row, bit for bit, equals
// the un-hoisted evaluation of that row alone -- analyze_size and
// analyze_deployment, each validating and computing from scratch. (The
// numbers those give are pinned by hand-derived tests: size_test,
// deployment_test, sweep_test's Drill1RowsByHand.)
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>

#include "drills.h"
#include "modelcalc/deployment.h"
#include "modelcalc/formulas.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/sweep.h"
#include "sweep_kernels.h"

namespace modelcalc {
namespace {

// Bitwise for reals (so 0.0 vs -0.0 or two NaNs with different payloads
// would count as different); == for everything else.
template <typename T>
bool same(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
  } else {
    return a == b;
  }
}

#define EXPECT_SAME(got, want, field) \
  EXPECT_TRUE(same((got).field, (want).field)) << #field << ": " << (got).field << " vs " << (want).field << " at " << where
#define EXPECT_SAME_ENUM(got, want, field) \
  EXPECT_TRUE((got).field == (want).field) << #field << " at " << where

void expect_same_size(const SizeResult& g, const SizeResult& w, const std::string& where) {
  EXPECT_SAME(g, w, d_head);
  EXPECT_SAME(g, w, d_kv);
  EXPECT_SAME(g, w, layer.q);
  EXPECT_SAME(g, w, layer.kv);
  EXPECT_SAME(g, w, layer.o);
  EXPECT_SAME(g, w, layer.ffn);
  EXPECT_SAME(g, w, has_layer_matrices);
  EXPECT_SAME(g, w, layer_over_d2);
  EXPECT_SAME(g, w, shortcut_layer);
  EXPECT_SAME(g, w, shortcut_error);
  EXPECT_SAME(g, w, params.embeddings);
  EXPECT_SAME(g, w, params.position);
  EXPECT_SAME(g, w, params.lm_head);
  EXPECT_SAME(g, w, params.attention);
  EXPECT_SAME(g, w, params.mlp_dense);
  EXPECT_SAME(g, w, params.mlp_routed);
  EXPECT_SAME(g, w, params.mlp_shared);
  EXPECT_SAME(g, w, params.router);
  EXPECT_SAME(g, w, params.norms);
  EXPECT_SAME(g, w, params.biases);
  EXPECT_SAME(g, w, params.mlp_routed_active);
  EXPECT_SAME(g, w, total);
  EXPECT_SAME(g, w, active);
  EXPECT_SAME(g, w, blocks);
  EXPECT_SAME(g, w, blocks_active);
  EXPECT_SAME(g, w, embeddings);
  EXPECT_SAME(g, w, exact);
  for (size_t i = 0; i < w.weight_bytes_by_dtype.size(); ++i) EXPECT_SAME(g, w, weight_bytes_by_dtype[i]);
  EXPECT_SAME(g, w, weight_bytes);
  EXPECT_SAME(g, w, fits);
  EXPECT_SAME(g, w, kv_room_bytes);
  EXPECT_SAME(g, w, forward_per_token);
  EXPECT_SAME(g, w, train_flops);
  EXPECT_SAME(g, w, prefill_linear);
  EXPECT_SAME(g, w, prefill_attention);
  EXPECT_SAME(g, w, prefill_total);
  EXPECT_SAME(g, w, attention_fraction);
  EXPECT_SAME(g, w, prefill_per_token);
  EXPECT_SAME(g, w, decode_per_token);
  EXPECT_SAME(g, w, crossover_tokens);
  EXPECT_SAME(g, w, crossover_mlp_tokens);
  EXPECT_SAME(g, w, d_attn);
  EXPECT_SAME(g, w, kv_per_token);
  EXPECT_SAME(g, w, kv_per_seq);
  EXPECT_SAME(g, w, kv_mha_per_token);
  EXPECT_SAME(g, w, kv_mha_per_seq);
  EXPECT_SAME(g, w, kv_mha_ratio);
  EXPECT_SAME(g, w, decode_weight_bytes);
  EXPECT_SAME(g, w, tokens_per_s_weights_only);
  EXPECT_SAME(g, w, tokens_per_s_with_kv);
  EXPECT_SAME(g, w, tokens_per_s_aggregate);
  EXPECT_SAME(g, w, step_bytes_aggregate);
  EXPECT_SAME(g, w, ridge);
  EXPECT_SAME(g, w, intensity_one_token);
  EXPECT_SAME(g, w, intensity_full_prompt);
  EXPECT_SAME(g, w, compute_bound_batch);
  EXPECT_SAME(g, w, compute_bound_batch_approx);
  EXPECT_SAME(g, w, max_batch_by_capacity);
}

void expect_same_decode(const DecodeStep& g, const DecodeStep& w, const std::string& where) {
  EXPECT_SAME(g, w, batch);
  EXPECT_SAME(g, w, context);
  EXPECT_SAME(g, w, experts_touched);
  EXPECT_SAME(g, w, bytes.weights);
  EXPECT_SAME(g, w, bytes.experts);
  EXPECT_SAME(g, w, bytes.lm_head);
  EXPECT_SAME(g, w, bytes.embedding_rows);
  EXPECT_SAME(g, w, bytes.kv);
  EXPECT_SAME(g, w, flops.linear);
  EXPECT_SAME(g, w, flops.attention);
  EXPECT_SAME(g, w, flops.lm_head);
  EXPECT_SAME(g, w, bytes_per_gpu);
  EXPECT_SAME(g, w, flops_per_gpu);
  EXPECT_SAME(g, w, intensity);
  EXPECT_SAME(g, w, ridge);
  EXPECT_SAME(g, w, compute_seconds);
  EXPECT_SAME(g, w, memory_seconds);
  EXPECT_SAME(g, w, allreduce_seconds);
  EXPECT_SAME(g, w, handoff_seconds);
  EXPECT_SAME(g, w, comm_seconds);
  EXPECT_SAME(g, w, seconds);
  EXPECT_SAME(g, w, tokens_per_s_per_sequence);
  EXPECT_SAME(g, w, tokens_per_s_aggregate);
  EXPECT_SAME(g, w, fits);
  EXPECT_SAME_ENUM(g, w, regime);
}

void expect_same_deployment(const DeploymentResult& g, const DeploymentResult& w, const std::string& where) {
  EXPECT_SAME(g, w, memory.capacity);
  EXPECT_SAME(g, w, memory.reserve);
  EXPECT_SAME(g, w, memory.workspace);
  EXPECT_SAME(g, w, memory.weights.embeddings);
  EXPECT_SAME(g, w, memory.weights.lm_head);
  EXPECT_SAME(g, w, memory.weights.attention);
  EXPECT_SAME(g, w, memory.weights.mlp);
  EXPECT_SAME(g, w, memory.weights.experts);
  EXPECT_SAME(g, w, memory.weights.other);
  EXPECT_SAME(g, w, memory.weights.scales);
  EXPECT_SAME(g, w, memory.kv_per_token);
  EXPECT_SAME(g, w, memory.kv_per_sequence);
  EXPECT_SAME(g, w, memory.free_for_kv);
  EXPECT_SAME(g, w, memory.max_sequences);
  expect_same_decode(g.decode, w.decode, where);
  EXPECT_SAME(g, w, prefill.prompt_tokens);
  EXPECT_SAME(g, w, prefill.flops);
  EXPECT_SAME(g, w, prefill.attention_flops);
  EXPECT_SAME(g, w, prefill.bytes);
  EXPECT_SAME(g, w, prefill.compute_seconds);
  EXPECT_SAME(g, w, prefill.memory_seconds);
  EXPECT_SAME(g, w, prefill.comm_seconds);
  EXPECT_SAME(g, w, prefill.seconds);
  EXPECT_SAME(g, w, overflow);
}

std::string where_of(const SweepRow& r) {
  return r.model_spec->name + " on " + r.gpu_spec->key + " seq " + std::to_string(r.options.context) + " batch " +
         std::to_string(r.options.batch) + " " + std::string(dtype_name(r.options.weight_dtype)) + "/" +
         std::string(dtype_name(r.options.kv_dtype));
}

// Every row of `s` against analyze_size and analyze_deployment of that row alone.
int64_t expect_rows_equal_unhoisted(const SweepSpec& s) {
  int64_t rows = 0;
  const Status st = sweep(s, [&](const SweepRow& r) {
    const std::string where = where_of(r);
    const auto want = analyze_size(*r.model_spec, *r.gpu_spec, r.options);
    EXPECT_TRUE(want.ok()) << where;
    if (want.ok()) expect_same_size(r.result, *want, where);
    DeploymentOptions o;
    o.weight_dtype = r.options.weight_dtype;
    o.kv_dtype = r.options.kv_dtype;
    o.context = r.options.context;
    o.batch = r.options.batch;
    const auto dep = analyze_deployment(*r.model_spec, *r.gpu_spec, o);
    EXPECT_EQ(r.has_deployment, dep.ok()) << where;
    if (dep.ok() && r.has_deployment) expect_same_deployment(r.deployment, *dep, where);
    ++rows;
  });
  EXPECT_TRUE(st.ok()) << st.message();
  return rows;
}

// Dense, GQA, MoE (the expected-experts pow), sliding windows (gemma-2 alternates),
// MLA, learned positions and biases (gpt2), tied embeddings; GPUs from 24 GB
// (weights that do not fit) to 192 GB; every weight dtype with the default KV
// dtype; batches with repeats out of order (the first batch of the list is the
// one evaluated in full); contexts from one token past the window to 128k.
TEST(SweepHoist, EveryFieldOfEveryRowEqualsTheUnhoistedEvaluation) {
  SweepSpec s;
  s.models = {drill1_model()};
  for (const char* name : {"mixtral-8x7b-v0.1", "gemma-2-9b", "deepseek-v2-lite", "gpt2", "llama-3.2-1b"}) {
    s.models.push_back(find_preset(name).value());
  }
  for (const char* g : {"h100", "mi300x", "l4", "rtx-4090"}) s.gpus.push_back(find_gpu(g).value());
  s.contexts = {1, 4097, 131072};
  s.batches = {7, 1, 2, 64, 7, 4096};
  s.dtypes = {Dtype::kFp32, Dtype::kBf16, Dtype::kFp8, Dtype::kInt4};
  const int64_t rows = expect_rows_equal_unhoisted(s);
  EXPECT_EQ(rows, 6 * 4 * 3 * 6 * 4);  // 1,728: the product of the list sizes
}

// An explicit KV-dtype list (the innermost loop: several dtype pairs share a
// batch) and each model's own default context (an empty seq list).
TEST(SweepHoist, KvDtypeListAndDefaultContextRowsEqualTheUnhoistedEvaluation) {
  SweepSpec s;
  s.models = {find_preset("qwen3-8b").value(), find_preset("mixtral-8x22b-v0.1").value()};
  s.gpus = {find_gpu("h200").value(), find_gpu("a100").value()};
  s.batches = {1, 3, 1000};
  s.dtypes = {Dtype::kFp16, Dtype::kInt8};
  s.kv_dtypes = {Dtype::kFp8, Dtype::kFp32, Dtype::kBf16};
  const int64_t rows = expect_rows_equal_unhoisted(s);
  EXPECT_EQ(rows, 2 * 2 * 1 * 3 * 2 * 3);  // 72
}

// compute_size's out-parameter form sets every field: a result reused from a
// different case (the fields that case set and this one does not use: the
// layer matrices of a dense model for MLA, sections 5 and 6 with a GPU for no
// GPU, and back) equals the by-value result, which starts from a fresh one.
TEST(SweepHoist, ComputeSizeIntoAReusedResultEqualsTheByValueResult) {
  const ModelSpec dense = drill1_model();
  const ModelSpec mla = find_preset("deepseek-v2-lite").value();
  const GpuSpec g = find_gpu("h100").value();
  SizeOptions with_gpu;
  with_gpu.context = 4096;
  with_gpu.batch = 8;
  SizeOptions no_gpu = with_gpu;
  no_gpu.has_gpu = false;
  no_gpu.weight_dtype = Dtype::kInt4;
  struct Case {
    const ModelSpec* m;
    const SizeOptions* o;
    std::string where;
  };
  const Case cases[] = {{&dense, &with_gpu, "dense with a GPU"}, {&mla, &no_gpu, "MLA without a GPU"},
                        {&dense, &with_gpu, "dense with a GPU again"}, {&dense, &no_gpu, "dense without a GPU"},
                        {&mla, &with_gpu, "MLA with a GPU"}};
  SizeResult reused;
  for (const Case& c : cases) {
    const ParamBreakdown p = param_breakdown(*c.m).value();
    compute_size(*c.m, p, g, *c.o, &reused);
    expect_same_size(reused, compute_size(*c.m, p, g, *c.o), c.where);
  }
  // The by-value results of the two models differ where the reuse could leak.
  EXPECT_TRUE(compute_size(dense, param_breakdown(dense).value(), g, with_gpu).has_layer_matrices);
  EXPECT_EQ(compute_size(mla, param_breakdown(mla).value(), g, no_gpu).layer.q, 0);
  EXPECT_EQ(compute_size(mla, param_breakdown(mla).value(), g, no_gpu).tokens_per_s_aggregate, 0);
}

// The batch-only update of the deployment engine on splits a sweep does not
// use (pipeline stages and tensor ranks): a result evaluated at one batch,
// moved to another, equals a full evaluation at the other.
TEST(SweepHoist, DecodeStepUpdateEqualsFullEvaluationOnSplits) {
  const ModelSpec m = find_preset("mixtral-8x7b-v0.1").value();
  const GpuSpec g = find_gpu("h100").value();
  for (const Parallelism split : {Parallelism{1, 1, 1, 1}, Parallelism{2, 2, 1, 1}, Parallelism{8, 4, 8, 2},
                                  Parallelism{4, 1, 2, 3}}) {
    DeploymentOptions o;
    o.split = split;
    o.weight_dtype = Dtype::kFp8;
    const auto d = prepare_deployment(m, g, o);
    ASSERT_TRUE(d.ok()) << d.status().message();
    for (int64_t context : {int64_t{1}, int64_t{4096}, int64_t{32768}}) {
      DeploymentResult r = evaluate_deployment(*d, 5, context, 0);
      for (int64_t batch : {int64_t{1}, int64_t{2}, int64_t{100}, int64_t{5}}) {
        const double touched = expected_experts_touched(d->n_expert, d->n_expert_used, static_cast<double>(batch));
        evaluate_decode_step(*d, batch, touched, &r);
        const DeploymentResult want = evaluate_deployment(*d, batch, context, 0);
        const std::string where = "tp " + std::to_string(split.tp) + " pp " + std::to_string(split.pp) +
                                  " context " + std::to_string(context) + " batch " + std::to_string(batch);
        expect_same_deployment(r, want, where);
      }
    }
  }
}

}  // namespace
}  // namespace modelcalc
