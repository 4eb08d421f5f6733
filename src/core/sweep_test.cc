// The library's sweep(): its order, row count and rows (`modelcalc sweep` is
// tested in src/cli/cmd_sweep_test.cc).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "drills.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/scenario.h"
#include "modelcalc/sweep.h"

namespace modelcalc {
namespace {

GpuSpec Gpu(const char* name) { return find_gpu(name).value(); }

// ---- Library ---------------------------------------------------------------

TEST(SweepLib, RowCountIsTheProductOfTheListSizes) {
  SweepSpec s;
  s.models = {drill1_model(), find_preset("llama-3.1-8b").value()};
  s.gpus = {Gpu("h100"), Gpu("mi300x"), Gpu("a100")};
  s.contexts = {2048, 8192};
  s.batches = {1, 8, 64};
  s.dtypes = {Dtype::kFp16, Dtype::kInt8};
  s.kv_dtypes = {Dtype::kFp16, Dtype::kFp8};
  int64_t calls = 0;
  ASSERT_TRUE(sweep(s, [&](const SweepRow& r) { EXPECT_EQ(r.index, calls++); }).ok());
  EXPECT_EQ(calls, 2 * 3 * 2 * 3 * 2 * 2);  // 144
  EXPECT_EQ(sweep_row_count(s).value(), 144);
}

TEST(SweepLib, OrderIsModelsGpuSeqBatchDtypeKvDtype) {
  SweepSpec s;
  s.models = {drill1_model(), find_preset("llama-3.1-8b").value()};
  s.gpus = {Gpu("h100"), Gpu("mi300x")};
  s.contexts = {2048, 8192};
  s.batches = {1, 8};
  s.dtypes = {Dtype::kFp16, Dtype::kInt8};
  s.kv_dtypes = {Dtype::kFp16, Dtype::kFp8};
  using Key = std::tuple<size_t, size_t, int64_t, int64_t, Dtype, Dtype>;
  std::vector<Key> got;
  ASSERT_TRUE(sweep(s, [&](const SweepRow& r) {
                got.emplace_back(r.model, r.gpu, r.options.context, r.options.batch, r.options.weight_dtype,
                                 r.options.kv_dtype);
                EXPECT_EQ(r.model_spec, &s.models[r.model]);
                EXPECT_EQ(r.gpu_spec, &s.gpus[r.gpu]);
              }).ok());
  std::vector<Key> want;  // the documented nesting, last list fastest
  for (size_t m = 0; m < 2; ++m)
    for (size_t g = 0; g < 2; ++g)
      for (int64_t seq : {2048, 8192})
        for (int64_t b : {1, 8})
          for (Dtype d : {Dtype::kFp16, Dtype::kInt8})
            for (Dtype kv : {Dtype::kFp16, Dtype::kFp8}) want.emplace_back(m, g, seq, b, d, kv);
  EXPECT_EQ(got, want);
}

TEST(SweepLib, EmptySeqAndKvListsFollowTheModelAndTheWeightDtype) {
  SweepSpec s;
  ModelSpec m = drill1_model();
  m.n_ctx_train = 2048;  // max_position_embeddings, below the default 8,192
  s.models = {m, drill1_model()};
  s.gpus = {Gpu("mi300x")};
  s.dtypes = {Dtype::kFp16, Dtype::kInt4};
  std::vector<std::tuple<int64_t, Dtype>> got;
  ASSERT_TRUE(sweep(s, [&](const SweepRow& r) { got.emplace_back(r.options.context, r.options.kv_dtype); }).ok());
  // 8,192 tokens, or the model's own limit when smaller (defaults.h); the KV cache 16-bit
  // (default_kv_dtype): fp16 with fp16 weights, bf16 with int4 weights -- quantized weights do not
  // quantize the cache.
  const std::vector<std::tuple<int64_t, Dtype>> want = {
      {2048, Dtype::kFp16}, {2048, Dtype::kBf16}, {8192, Dtype::kFp16}, {8192, Dtype::kBf16}};
  EXPECT_EQ(got, want);
}

TEST(SweepLib, RowsAreWhatAnalyzeSizeGives) {
  SweepSpec s;
  s.models = {drill1_model(), find_preset("mixtral-8x7b-v0.1").value()};
  s.gpus = {Gpu("h100"), Gpu("mi300x")};
  s.contexts = {1024, 32768};
  s.batches = {1, 16};
  s.dtypes = {Dtype::kBf16, Dtype::kInt4};
  s.kv_dtypes = {Dtype::kFp8};
  int64_t rows = 0;
  ASSERT_TRUE(sweep(s, [&](const SweepRow& r) {
                const SizeResult want = analyze_size(*r.model_spec, *r.gpu_spec, r.options).value();
                EXPECT_EQ(r.result.weight_bytes, want.weight_bytes);
                EXPECT_EQ(r.result.kv_per_seq, want.kv_per_seq);
                EXPECT_EQ(r.result.tokens_per_s_aggregate, want.tokens_per_s_aggregate);  // bitwise: the same computation
                EXPECT_EQ(r.result.max_batch_by_capacity, want.max_batch_by_capacity);
                if (r.has_deployment) {  // the serving regime is the engine's at the largest batch that fits
                  Scenario sc{*r.model_spec, *r.gpu_spec, {}};
                  sc.options.weight_dtype = r.options.weight_dtype;
                  sc.options.kv_dtype = r.options.kv_dtype;
                  sc.options.context = r.options.context;
                  sc.options.batch = r.options.batch;
                  EXPECT_EQ(r.serving_regime, serving_regime(sc).value().regime);
                }
                // The hoisted model part and the per-row part leave nothing stale between rows.
                EXPECT_EQ(r.result.total, want.total);
                EXPECT_EQ(r.result.weight_bytes_by_dtype, want.weight_bytes_by_dtype);
                EXPECT_EQ(r.result.kv_mha_per_seq, want.kv_mha_per_seq);
                EXPECT_EQ(r.result.prefill_total, want.prefill_total);
                EXPECT_EQ(r.result.decode_per_token, want.decode_per_token);
                EXPECT_EQ(r.result.crossover_mlp_tokens, want.crossover_mlp_tokens);
                EXPECT_EQ(r.result.tokens_per_s_with_kv, want.tokens_per_s_with_kv);
                EXPECT_EQ(r.result.step_bytes_aggregate, want.step_bytes_aggregate);
                EXPECT_EQ(r.result.decode_weight_bytes, want.decode_weight_bytes);
                EXPECT_EQ(r.result.kv_room_bytes, want.kv_room_bytes);
                EXPECT_EQ(r.result.compute_bound_batch, want.compute_bound_batch);
                EXPECT_EQ(r.result.intensity_full_prompt, want.intensity_full_prompt);
                EXPECT_EQ(r.result.has_layer_matrices, want.has_layer_matrices);
                EXPECT_EQ(r.result.layer.total(), want.layer.total());
                ++rows;
              }).ok());
  EXPECT_EQ(rows, 32);
}

TEST(SweepLib, WithoutPredictRowsAreTheSameAndCarryNoPrediction) {
  SweepSpec s;
  s.models = {find_preset("llama-3.1-8b").value(), find_preset("mixtral-8x7b-v0.1").value()};
  s.gpus = {Gpu("h100")};
  s.contexts = {1024, 8192};
  s.batches = {1, 2, 64};
  std::vector<SweepRow> with;
  ASSERT_TRUE(sweep(s, [&](const SweepRow& r) { with.push_back(r); }).ok());
  s.predict = false;
  size_t i = 0;
  ASSERT_TRUE(sweep(s, [&](const SweepRow& r) {
                ASSERT_LT(i, with.size());
                const SweepRow& w = with[i++];
                EXPECT_TRUE(w.has_prediction);   // the default computes it
                EXPECT_FALSE(r.has_prediction);  // asked not to
                EXPECT_EQ(r.result.tokens_per_s_aggregate, w.result.tokens_per_s_aggregate);
                EXPECT_EQ(r.deployment.decode.seconds, w.deployment.decode.seconds);
                EXPECT_EQ(r.deployment.memory.max_sequences, w.deployment.memory.max_sequences);
              }).ok());
  EXPECT_EQ(i, with.size());
}

TEST(SweepLib, InvalidInputIsRefusedBeforeAnyRow) {
  int calls = 0;
  auto count = [&](const SweepRow&) { ++calls; };
  SweepSpec s;
  s.models = {drill1_model()};
  s.gpus = {Gpu("h100")};
  s.batches = {1, 0};
  EXPECT_FALSE(sweep(s, count).ok());
  s.batches = {1};
  s.contexts = {4096, int64_t{1} << 60};  // KV bytes per sequence overflow int64
  EXPECT_FALSE(sweep(s, count).ok());
  s.contexts = {4096};
  s.gpus.push_back(GpuSpec{});  // no capacity or bandwidth
  EXPECT_FALSE(sweep(s, count).ok());
  s.gpus.pop_back();
  s.models.push_back(ModelSpec{});  // invalid shape
  EXPECT_FALSE(sweep(s, count).ok());
  s.models.clear();
  EXPECT_FALSE(sweep(s, count).ok());
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace modelcalc
