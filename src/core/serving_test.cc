// Engine profiles (memory as each engine accounts it) and the step model,
// derived by hand; properties over a grid; bad inputs.
#include "modelcalc/serving.h"

#include <gtest/gtest.h>

#include <cmath>

#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "typed_gpus.h"

namespace modelcalc {
namespace {

constexpr double kGiB = 1073741824.0;

// An H100 SXM typed out (so the test does not move with the catalog) with the driver-exposed
// 81,559 MiB = 85,520,809,984 B nvidia-smi reports.
GpuSpec H100() {
  GpuSpec g = typed_h100();
  g.key = "h100-sxm";
  g.exposed_bytes = 81559.0 * 1048576.0;
  return g;
}

ModelSpec Llama8b() { return *find_preset("llama-3.1-8b"); }

// The releases --engine trtllm, vllm and sglang select.
const EngineRelease kTrt = kDefaultEngine;
const EngineRelease kVllm = default_release(Engine::kVllm);
const EngineRelease kSgl = default_release(Engine::kSglang);

struct Predicted {
  DeploymentAnalysis a;
  DeploymentPrediction p;
};

Predicted predict(const EngineRelease& e, int64_t tp, EngineFlags f = {}, const ModelSpec& m = Llama8b(), int64_t context = 4096,
              int64_t batch = 1) {
  DeploymentOptions o;
  o.split.tp = tp;
  o.weight_dtype = Dtype::kBf16;
  o.context = context;
  o.batch = batch;
  Predicted s;
  auto a = analyze_deployment_full(m, H100(), o);
  EXPECT_TRUE(a.ok()) << a.status().message();
  s.a = *a;
  auto p = predict_deployment(m, H100(), s.a, e, f, EngineWorkload{});
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (p.ok()) s.p = *p;
  return s;
}

// Shared by the hand cases: llama-3.1-8b in bf16. TP 1: 8,030,261,248 params x 2 B = 16,060,522,496 B.
// TP 2: per layer attention q + o = 2 x 4096^2 and k, v = 2 x 4096 x 1024, halved = 20,971,520; MLP
// 3 x 4096 x 14336 / 2 = 88,080,384; norms 2 x 4096 (whole on each rank); x 32 layers + the final norm
// 4096 + vocab-parallel embedding and lm_head 2 x 128,256 x 4096 / 2 = 525,336,576 -> 4,015,263,744
// params = 8,030,527,488 B. KV per token: 32 layers x 8 heads x 256 x 2 B = 131,072 B (TP 1),
// 65,536 B (TP 2: 4 heads per rank). Activation per step token: (3 x 4096 + 1.5 x 28,672 / tp) x 2 B
// = 110,592 B (TP 1), 67,584 B (TP 2); logits per sequence: 128,256 x 4 B x 2 = 1,026,048 B.
// Non-torch: 1 GiB + 1 GiB x 2 (tp - 1) / tp = 1 GiB (TP 1), 2 GiB (TP 2).
constexpr double kTotal = 85'520'809'984.0;
constexpr double kW1 = 16'060'522'496.0, kW2 = 8'030'527'488.0;

TEST(EngineMemoryTest, VllmDenseAtTp1AndTp2) {
  // vLLM on an H100 (>= 70 GiB, not an A100): max_num_batched_tokens 8192, max_num_seqs 1024; block 16.
  // TP 1: activation 8192 x 110,592 + 1024 x 1,026,048 = 1,956,642,816 B; KV = 0.9 x 85,520,809,984
  // - 16,060,522,496 - 1 GiB - 1,956,642,816 = 57,877,821,849.6 B; blocks floor(KV / (16 x 131,072))
  // = 27,598; tokens 441,568; concurrency for 131,072 tokens = 441,568 / 131,072 = 3.3689.
  Predicted s = predict(kVllm, 1);
  const EngineMemory& m = s.p.memory;
  EXPECT_EQ(s.p.settings.max_num_batched_tokens, 8192);
  EXPECT_EQ(s.p.settings.max_num_seqs, 1024);
  EXPECT_DOUBLE_EQ(m.usable_bytes, 0.9 * kTotal);
  EXPECT_DOUBLE_EQ(m.weights_bytes, kW1);
  EXPECT_DOUBLE_EQ(m.non_torch_bytes, kGiB);
  EXPECT_DOUBLE_EQ(m.activation_peak_bytes, 1'956'642'816.0);
  EXPECT_NEAR(m.kv_cache_bytes_per_gpu, 57'877'821'849.6, 1e-3);
  EXPECT_EQ(m.kv_bytes_per_token, 131'072);
  EXPECT_EQ(m.gpu_blocks, 27'598);
  EXPECT_EQ(m.kv_cache_tokens, 441'568);
  EXPECT_DOUBLE_EQ(m.max_concurrency, 441'568.0 / 131'072.0);
  // TP 2: activation 8192 x 67,584 + 1024 x 1,026,048 = 1,604,321,280; KV = 0.9 x total - 8,030,527,488
  // - 2 GiB - 1,604,321,280 = 65,186,396,569.6 B; blocks floor(KV / (16 x 65,536)) = 62,166.
  Predicted t = predict(kVllm, 2);
  EXPECT_DOUBLE_EQ(t.p.memory.weights_bytes, kW2);
  EXPECT_DOUBLE_EQ(t.p.memory.non_torch_bytes, 2 * kGiB);
  EXPECT_DOUBLE_EQ(t.p.memory.activation_peak_bytes, 1'604'321'280.0);
  EXPECT_NEAR(t.p.memory.kv_cache_bytes_per_gpu, 65'186'396'569.6, 1e-3);
  EXPECT_EQ(t.p.memory.gpu_blocks, 62'166);
}

TEST(EngineMemoryTest, TrtllmDenseAtTp1AndTp2) {
  // TensorRT-LLM without a request shape: trtllm-build's max_batch_size 2048 and max_num_tokens 8192;
  // block 64; fraction 0.95 of what is free. TP 1: activation 8192 x 110,592 + 2048 x 1,026,048 =
  // 3,007,315,968; KV = 0.95 x (85,520,809,984 - 16,060,522,496 - 1 GiB - 3,007,315,968) =
  // 62,110,268,211.2 B; blocks floor(KV / (64 x 131,072)) = 7,404.
  Predicted s = predict(kTrt, 1);
  EXPECT_DOUBLE_EQ(s.p.memory.usable_bytes, kTotal);
  EXPECT_DOUBLE_EQ(s.p.memory.activation_peak_bytes, 3'007'315'968.0);
  EXPECT_NEAR(s.p.memory.kv_cache_bytes_per_gpu, 62'110'268'211.2, 1e-3);
  EXPECT_EQ(s.p.memory.gpu_blocks, 7'404);
  EXPECT_EQ(s.p.memory.kv_cache_tokens, 7'404 * 64);
  // TP 2: activation 8192 x 67,584 + 2048 x 1,026,048 = 2,654,994,432; KV = 0.95 x (total - 8,030,527,488
  // - 2 GiB - 2,654,994,432) = 69,053,414,195.2 B; blocks floor(KV / (64 x 65,536)) = 16,463.
  Predicted t = predict(kTrt, 2);
  EXPECT_NEAR(t.p.memory.kv_cache_bytes_per_gpu, 69'053'414'195.2, 1e-3);
  EXPECT_EQ(t.p.memory.gpu_blocks, 16'463);
}

TEST(EngineMemoryTest, SglangDenseAtTp1AndTp2) {
  // SGLang: pool = mem_fraction_static x total - weights - non-torch (what is free after loading, less
  // total x (1 - f)), pages of 1 token; 0.88 at TP 1, 0.87 at TP 2; non-torch 1 GiB x (1 + 2 (tp - 1) / tp).
  // TP 1: 0.88 x 85,520,809,984 - 16,060,522,496 - 1,073,741,824 = 58,124,048,465.92 B
  //       -> floor(/ 131,072) = 443,451 tokens.
  // TP 2: 0.87 x total - 8,030,527,488 - 2,147,483,648 = 64,225,093,550.08 B -> floor(/ 65,536) = 979,997.
  Predicted s = predict(kSgl, 1);
  EXPECT_DOUBLE_EQ(s.p.settings.memory_fraction, 0.88);
  EXPECT_NEAR(s.p.memory.kv_cache_bytes_per_gpu, 58'124'048'465.92, 1e-3);
  EXPECT_EQ(s.p.memory.kv_cache_tokens, 443'451);
  Predicted t = predict(kSgl, 2);
  EXPECT_DOUBLE_EQ(t.p.settings.memory_fraction, 0.87);
  EXPECT_EQ(t.p.memory.kv_cache_tokens, 979'997);
}

TEST(EngineMemoryTest, KvHeadsReplicatedPastTheirCount) {
  // Llama-3.1-70B has 8 KV heads; at TP 16 every rank keeps one whole head: 80 layers x 1 head x
  // (128 + 128) x 2 B = 40,960 B per token per GPU (not 327,680 / 16 = 20,480), for every engine.
  const ModelSpec m70 = *find_preset("llama-3.1-70b");
  for (EngineFamily fam : kAllEngineFamilies) {
    const EngineRelease e{fam, std::nullopt};
    Predicted s = predict(e, 16, {}, m70);
    EXPECT_EQ(s.p.memory.kv_bytes_per_token, 40'960) << engine_release_key(e);
    // Whole blocks: blocks x block_size tokens, each of 40,960 B, within the engine's KV bytes.
    EXPECT_LE(static_cast<double>(s.p.memory.kv_cache_tokens) * 40'960.0, s.p.memory.kv_cache_bytes_per_gpu);
  }
}

TEST(EngineMemoryTest, FlagsOverTheDefaultsAndReserve) {
  EngineFlags f;
  f.gpu_memory_utilization = 0.8;
  f.block_size = 32;
  f.max_num_batched_tokens = 2048;
  f.max_num_seqs = 64;
  Predicted s = predict(kVllm, 1, f);
  EXPECT_DOUBLE_EQ(s.p.memory.usable_bytes, 0.8 * kTotal);
  // activation 2048 x 110,592 + 64 x 1,026,048 = 292,159,488 B
  EXPECT_DOUBLE_EQ(s.p.memory.activation_peak_bytes, 292'159'488.0);
  EXPECT_EQ(s.p.settings.block_size, 32);
  // --reserve 0.2 without an engine flag: the fraction 1 - 0.2; with one, the engine flag wins.
  EngineFlags r;
  r.reserve = 0.2;
  EXPECT_DOUBLE_EQ(predict(kVllm, 1, r).p.settings.memory_fraction, 0.8);
  EXPECT_TRUE(predict(kVllm, 1, r).p.settings.fraction_from_reserve);
  r.gpu_memory_utilization = 0.7;
  EXPECT_DOUBLE_EQ(predict(kVllm, 1, r).p.settings.memory_fraction, 0.7);
}

TEST(EngineMemoryTest, TrtllmBenchSizesItsLimitsFromTheRequestShape) {
  // tuning.py on llama-3.1-8b bf16, one H100, 1000/1000: available = 85,520,809,984 - 16,060,522,496
  // = 69,460,287,488 B; x 0.95 / (131,072 B x 2,000 tokens) = 251.7 requests -> raw_bs 251.7 < 256:
  // max(64, 32 x ceil(251.7 / 32)) = 256; tokens 251.7 x (1 + 1) = 503.4 < 4096 -> max(2048, ...) = 2048.
  DeploymentOptions o;
  o.weight_dtype = Dtype::kBf16;
  o.context = 2000;
  auto a = analyze_deployment_full(Llama8b(), H100(), o);
  ASSERT_TRUE(a.ok());
  auto s = resolve_engine_settings(kTrt, {}, Llama8b(), H100(), a->prepared, EngineWorkload{1000, 1000});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->limits_from_workload);
  EXPECT_EQ(s->max_num_seqs, 256);
  EXPECT_EQ(s->max_num_batched_tokens, 2048);
  // 128/128: 69,460,287,488 x 0.95 / (131,072 x 256) = 1,966.3 -> 256 x ceil(1,966.3 / 256) = 2048;
  // tokens 1,966.3 x 2 = 3,932.7 < 4096 -> 256 x ceil(3,932.7 / 256) = 4096.
  auto t = resolve_engine_settings(kTrt, {}, Llama8b(), H100(), a->prepared, EngineWorkload{128, 128});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->max_num_seqs, 2048);
  EXPECT_EQ(t->max_num_batched_tokens, 4096);
}

TEST(EngineMemoryTest, BadInputNamesTheField) {
  DeploymentOptions o;
  o.weight_dtype = Dtype::kBf16;
  auto a = analyze_deployment_full(Llama8b(), H100(), o);
  ASSERT_TRUE(a.ok());
  auto field = [&](const EngineRelease& e, EngineFlags f) {
    auto r = resolve_engine_settings(e, f, Llama8b(), H100(), a->prepared, {});
    if (r.ok()) return std::string("ok");
    const std::string& msg = r.status().message();
    return msg.substr(0, msg.find(':'));
  };
  EngineFlags f;
  f.gpu_memory_utilization = 0;
  EXPECT_EQ(field(kVllm, f), "gpu_memory_utilization");
  f.gpu_memory_utilization = 1.01;
  EXPECT_EQ(field(kVllm, f), "gpu_memory_utilization");
  f.gpu_memory_utilization = 0.9;
  EXPECT_EQ(field(kTrt, f), "gpu_memory_utilization");  // another engine's flag
  EngineFlags b;
  b.block_size = 0;
  EXPECT_EQ(field(kVllm, b), "block_size");
  EngineFlags l;
  l.max_model_len = 131'073;  // llama-3.1-8b's max_position_embeddings is 131,072
  EXPECT_EQ(field(kVllm, l), "max_model_len");
  l.allow_long_max_model_len = true;
  EXPECT_EQ(field(kVllm, l), "ok");
  EXPECT_FALSE(parse_engine("tgi").ok());
  EXPECT_EQ(parse_engine("tgi").status().message().substr(0, 6), "engine");
  EXPECT_EQ(*parse_engine("TensorRT-LLM"), kDefaultEngine);
}

// The step model at two batches, llama-3.1-8b bf16 on one H100 at context 1000, decode only, with
// round parameters: GEMM 0.5, HBM 0.8, KV read 0.8, attention 0.5, overlap loss 0.5, 1 ms per step,
// 10 us per sequence. The deployment's constants: non-routed weights 6,979,588,096 params x 2 B =
// 13,959,176,192 B; an embedding row 8,192 B; lm_head 1,050,673,152 B; 2 x 6,979,321,856 =
// 13,958,643,712 FLOPs per token in the blocks; 2 x 128,256 x 4096 = 1,050,673,152 in the lm_head;
// 2 x 32 heads x 256 = 16,384 attention FLOPs per key per layer; 4,096 B of KV per key per layer;
// 32 x (6 x 4096 + 1.5 x 28,672) x 2 B = 4,325,376 B of activation traffic per token.
// dense = max(c, m) + 0.5 min(c, m), c = B x 13,958,643,712 / (989.4e12 x 0.5), m = (13,959,176,192 +
// B x 8,192) / (3.35e12 x 0.8); lm_head alike; kv = B x 32 x 1000 x 4,096 / (3.35e12 x 0.8) (its FLOPs
// are less); elementwise = B x 4,325,376 / (3.35e12 x 0.8); overhead = 1 ms + B x 10 us.
TEST(StepModelTest, TwoBatchesByHand) {
  DeploymentOptions o;
  o.weight_dtype = Dtype::kBf16;
  auto d = prepare_deployment(Llama8b(), H100(), o);
  ASSERT_TRUE(d.ok());
  StepTimeParams p;
  p.gemm_fraction = 0.5;
  p.grouped_gemm_fraction = 0.5;
  p.hbm_fraction = 0.8;
  p.kv_read_fraction = 0.8;
  p.attention_fraction = 0.5;
  p.overlap_loss = 0.5;
  p.step_overhead_s = 1e-3;
  p.sequence_overhead_s = 1e-5;
  StepWork w;
  w.decode_context = 1000;
  w.decode_sequences = 1;
  // B = 1: dense 5.2227591e-3, lm_head 3.9310415e-4, kv 4.8907463e-5, elementwise 1.6139463e-6,
  // overhead 1.01e-3: 6.6763846e-3 s.
  StepTime t1 = step_time(*d, w, p, false);
  EXPECT_NEAR(t1.dense_s, 5.2227591e-3, 1e-9);
  EXPECT_NEAR(t1.lm_head_s, 3.9310415e-4, 1e-10);
  EXPECT_NEAR(t1.kv_read_s, 4.8907463e-5, 1e-11);
  EXPECT_NEAR(t1.elementwise_s, 1.6139463e-6, 1e-12);
  EXPECT_NEAR(t1.overhead_s, 1.01e-3, 1e-15);
  EXPECT_NEAR(t1.seconds, 6.6763846e-3, 1e-9);
  // B = 64: dense 6.1117677e-3, lm_head 4.6000572e-4, kv 3.1300776e-3, elementwise 1.0329256e-4,
  // overhead 1.64e-3: 1.1445144e-2 s.
  w.decode_sequences = 64;
  StepTime t64 = step_time(*d, w, p, false);
  EXPECT_NEAR(t64.dense_s, 6.1117677e-3, 1e-9);
  EXPECT_NEAR(t64.kv_read_s, 3.1300776e-3, 1e-9);
  EXPECT_NEAR(t64.seconds, 1.1445144e-2, 1e-8);
  // The ceiling of the same step: max(FLOPs / peak, bytes / bw) + no communication, no overhead:
  // bytes = 13,959,176,192 + 64 x 8,192 + 1,050,673,152 + 64 x 32 x 1000 x 4,096 = 23,398,981,632 B
  // -> 6.9847706e-3 s, above the FLOPs' 64 x (13,958,643,712 + 1,050,673,152 + 32 x 1000 x 16,384) /
  // 989.4e12 = 1.0248e-3 s.
  StepTime c64 = step_time(*d, w, p, true);
  EXPECT_NEAR(c64.seconds, 6.9847706e-3, 1e-9);
  EXPECT_LE(c64.seconds, t64.seconds);
}

// ---------------------------------------------------------------- properties

TEST(ServingPropertyTest, MoreMemoryNeverFewerSequences) {
  for (EngineFamily fam : kAllEngineFamilies) {
    const EngineRelease e{fam, std::nullopt};
    int64_t last = -1;
    for (double mib : {40000.0, 60000.0, 81559.0, 100000.0, 143771.0, 200000.0}) {
      GpuSpec g = H100();
      g.exposed_bytes = mib * 1048576.0;
      DeploymentOptions o;
      o.weight_dtype = Dtype::kBf16;
      o.context = 8192;
      auto a = analyze_deployment_full(Llama8b(), g, o);
      ASSERT_TRUE(a.ok());
      auto p = predict_deployment(Llama8b(), g, *a, e, {}, {});
      ASSERT_TRUE(p.ok());
      EXPECT_GE(p->decode.max_sequences, last) << engine_release_key(e) << " " << mib;
      EXPECT_GE(a->result.memory.max_sequences, p->decode.max_sequences) << "the ceiling holds at least as many";
      last = p->decode.max_sequences;
    }
  }
}

TEST(ServingPropertyTest, ALargerPrefillShareNeverAShorterStep) {
  DeploymentOptions o;
  o.weight_dtype = Dtype::kFp8;
  o.kv_dtype = Dtype::kFp8;
  o.split.tp = 2;
  const ModelSpec mix = *find_preset("mixtral-8x7b-v0.1");
  auto d = prepare_deployment(mix, H100(), o);
  ASSERT_TRUE(d.ok());
  const StepTimeParams& p = engine_profile(kTrt).time;
  for (bool ceiling : {false, true}) {
    double last = 0;
    for (double share : {0.0, 0.1, 0.5, 1.0, 4.0, 16.0}) {  // prompt tokens per decoding sequence
      StepWork w;
      w.decode_sequences = 256;
      w.decode_context = 1500;
      w.prefill_tokens = 256 * share;
      w.prefill_keys_full = w.prefill_tokens * 500;
      w.prefill_done = w.prefill_tokens / 1000;
      const double t = step_time(*d, w, p, ceiling).seconds;
      EXPECT_GE(t, last) << share;
      last = t;
    }
  }
}

TEST(ServingPropertyTest, ThePredictionNeverBeatsItsCeiling) {
  // Over models, splits, dtypes, request shapes and loads: the predicted throughput at most the
  // ceiling's, and at the same batch the predicted step and TTFT at least the ceiling's.
  const char* models[] = {"llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b-v0.1", "mistral-7b-v0.1", "gemma-2-9b"};
  const StepTimeParams& p = engine_profile(kTrt).time;
  int checked = 0;
  for (const char* name : models) {
    const ModelSpec m = *find_preset(name);
    for (int64_t tp : {1, 2, 8}) {
      for (Dtype w : {Dtype::kBf16, Dtype::kFp8}) {
        DeploymentOptions o;
        o.split.tp = tp;
        o.weight_dtype = w;
        o.kv_dtype = w;
        o.context = 2048;
        auto a = analyze_deployment_full(m, H100(), o);
        if (!a.ok()) continue;
        for (EngineFamily fam : kAllEngineFamilies) {
    const EngineRelease e{fam, std::nullopt};
          for (auto [isl, osl] : {std::pair<int64_t, int64_t>{128, 128}, {2048, 128}, {1000, 1000}, {128, 4096},
                                  {20000, 2000}}) {
            auto s = resolve_engine_settings(e, {}, m, H100(), a->prepared, EngineWorkload{isl, osl});
            ASSERT_TRUE(s.ok());
            const EngineMemory em = engine_memory(engine_view(a->prepared, *s), *s);
            const DeploymentMemory cm = evaluate_deployment(a->prepared, 1, isl + osl, isl).memory;
            for (ServingRequest r : {ServingRequest{isl, osl, ServingLoad::kSaturated, 0},
                                     ServingRequest{isl, osl, ServingLoad::kRequestsPerS, 1},
                                     ServingRequest{isl, osl, ServingLoad::kConcurrency, 16},
                                     ServingRequest{isl, osl, ServingLoad::kBatch, 8}}) {
              const ServingPair pair = serve_both(a->prepared, cm, em, *s, p, r);
              if (!pair.predicted.fits) continue;
              ++checked;
              EXPECT_LE(pair.predicted.output_tokens_per_s, pair.ceiling.output_tokens_per_s * (1 + 1e-12))
                  << name << " tp " << tp << " " << isl << "/" << osl;
              if (pair.ceiling.batch == pair.predicted.batch) {
                EXPECT_GE(pair.predicted.tpot_s, pair.ceiling.tpot_s) << name;
                EXPECT_GE(pair.predicted.ttft_s, pair.ceiling.ttft_s) << name;
              }
            }
          }
        }
        // The deployment engine's own questions too: a decode step and a prefill.
        auto pd = predict_deployment(m, H100(), *a, kTrt, {}, {});
        ASSERT_TRUE(pd.ok());
        EXPECT_GE(pd->decode.step.seconds, a->result.decode.seconds) << name;
        EXPECT_GE(pd->prefill.seconds, a->result.prefill.seconds) << name;
      }
    }
  }
  EXPECT_GT(checked, 300);
}

TEST(ServingTest, LittlesLawAtARate) {
  // At a rate L a replica holds B = L x (osl - 1) x TPOT decoding sequences (a request decodes the
  // osl - 1 tokens after the prefill's first): the fixed point.
  DeploymentOptions o;
  o.weight_dtype = Dtype::kBf16;
  auto a = analyze_deployment_full(Llama8b(), H100(), o);
  ASSERT_TRUE(a.ok());
  auto s = resolve_engine_settings(kTrt, {}, Llama8b(), H100(), a->prepared, EngineWorkload{500, 200});
  ASSERT_TRUE(s.ok());
  const EngineMemory em = engine_memory(a->prepared, *s);
  const ServingFigures f = serve(a->prepared, engine_capacity(em, *s, 500, 200), engine_profile(kTrt).time,
                                 false, ServingRequest{500, 200, ServingLoad::kRequestsPerS, 4});
  ASSERT_FALSE(f.saturated);
  EXPECT_NEAR(f.batch, 4 * 199 * f.tpot_s, 1e-9 * f.batch);
  EXPECT_NEAR(f.output_tokens_per_s, 4 * 200, 1e-6);
  EXPECT_GT(f.ttft_s, f.tpot_s);  // at least the step carrying the prompt
  // Far above capacity: saturated, TTFT unbounded.
  const ServingFigures g = serve(a->prepared, engine_capacity(em, *s, 500, 200), engine_profile(kTrt).time,
                                 false, ServingRequest{500, 200, ServingLoad::kRequestsPerS, 1e6});
  EXPECT_TRUE(g.saturated);
  EXPECT_TRUE(std::isinf(g.ttft_s));
}

// The prompt's KV from a prefill replica to a decode replica, by hand: Llama-3.1-8B keeps 32 layers x K and V x
// 8 KV heads x 128 x 2 B = 131,072 B per token, so 1,000 prompt tokens move 131,072,000 B. The slower side is
// the TP-1 prefill replica's one NIC (H100: 50 GB/s; the decode replica at TP 2 has two): 2.62144 ms, plus the
// 20 us scale-out latency once. Streamed layer by layer, only the last layer's share waits: 2.62144 ms / 32 =
// 81.92 us, plus the latency.
TEST(ServingTest, KvTransferByHand) {
  const ModelSpec m = find_preset("llama-3.1-8b").value();
  const GpuSpec g = find_gpu("h100").value();
  DeploymentOptions po, dop;
  dop.split.tp = 2;
  const PreparedDeployment p = prepare_deployment(m, g, po).value();
  const PreparedDeployment d = prepare_deployment(m, g, dop).value();
  const KvTransfer t = kv_transfer(p, d, 1000, false);
  EXPECT_DOUBLE_EQ(t.bytes, 131072000.0);
  EXPECT_DOUBLE_EQ(t.link_bytes_per_s, 50e9);
  EXPECT_NEAR(t.seconds, 2.62144e-3 + 20e-6, 1e-12);
  EXPECT_DOUBLE_EQ(t.ttft_seconds, t.seconds);
  const KvTransfer o = kv_transfer(p, d, 1000, true);
  EXPECT_NEAR(o.ttft_seconds, 2.62144e-3 / 32 + 20e-6, 1e-12);
  EXPECT_TRUE(o.overlapped);
}

// A closed loop of C users (benchmark_serving --max-concurrency C): each request lives TTFT + (osl - 1) x
// TPOT, so C = rate x (TTFT + (osl - 1) x TPOT) -- Little's law, with the users waiting on their prompts
// counted, not only those decoding. The case: gpt-oss-120b on 2 H100 under vLLM, 2000 in / 100 out,
// 390 users: the batch decoding is then far below 390, and a request lives C / rate.
TEST(ServingTest, LittlesLawInAClosedLoop) {
  const ModelSpec m = *find_preset("gpt-oss-120b");
  DeploymentOptions o;
  o.split.tp = 2;
  o.weight_dtype = Dtype::kMxfp4;
  auto a = analyze_deployment_full(m, H100(), o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  auto s = resolve_engine_settings(kVllm, {}, m, H100(), a->prepared, EngineWorkload{2000, 100});
  ASSERT_TRUE(s.ok());
  const PreparedDeployment d = engine_view(a->prepared, *s);
  const EngineMemory em = engine_memory(d, *s);
  const StepTimeParams& p = engine_profile(kVllm).time;
  for (double users : {1.0, 16.0, 390.0}) {
    const ServingFigures f =
        serve(d, engine_capacity(em, *s, 2000, 100), p, false, ServingRequest{2000, 100, ServingLoad::kConcurrency, users});
    ASSERT_TRUE(f.fits);
    const double lives = f.ttft_s + 99 * f.tpot_s;
    if (!f.saturated) {
      EXPECT_NEAR(f.requests_per_s * lives, users, 1e-6 * users) << users;
      EXPECT_LT(f.batch, users) << users;  // some of the users wait on their prompts
    } else {
      EXPECT_GE(f.requests_per_s * lives, users * (1 - 1e-9)) << users;  // the rest queue for a slot
    }
    EXPECT_NEAR(f.output_tokens_per_s, f.requests_per_s * 100, 1e-9 * f.output_tokens_per_s);
  }
}

// The first wave of a closed-loop run: benchmark_serving starts its C users together, so of W requests per
// user one wave's prompts arrive at once. Its mean TTFT is one burst wave in W, and the run lasts the burst's
// extra wait longer: TTFT_W = TTFT + extra / W and the rate x W e2e / (W e2e + extra), e2e = TTFT + (osl - 1)
// TPOT at the steady state, extra >= 0.
TEST(ServingTest, TheFirstWaveOfAClosedLoopArrivesAtOnce) {
  const Predicted s = predict(kDefaultEngine, 1);
  const PreparedDeployment& d = s.p.engine_d;
  const ServingCapacity cap = engine_capacity(s.p.memory, s.p.settings, 1000, 500);
  const StepTimeParams& p = engine_profile(kDefaultEngine).time;
  ServingRequest r{1000, 500, ServingLoad::kConcurrency, 64};
  const ServingFigures steady = serve(d, cap, p, false, r);
  r.prompts_per_user = 10;
  const ServingFigures run = serve(d, cap, p, false, r);
  const double extra = 10 * (run.ttft_s - steady.ttft_s);
  EXPECT_GT(extra, 0);  // 64 prompts at once wait longer than one arriving alone
  const double e2e = steady.ttft_s + 499 * steady.tpot_s;
  EXPECT_NEAR(run.requests_per_s, steady.requests_per_s * 10 * e2e / (10 * e2e + extra), 1e-9 * steady.requests_per_s);
  EXPECT_DOUBLE_EQ(run.tpot_s, steady.tpot_s);
  // The ceiling keeps a prompt alone: no burst.
  const ServingRequest plain{1000, 500, ServingLoad::kConcurrency, 64};
  EXPECT_DOUBLE_EQ(serve(s.a.prepared, cap, p, true, r).ttft_s, serve(s.a.prepared, cap, p, true, plain).ttft_s);
}

// The routed experts' grouped GEMMs pad each expert's tokens to the kernels' 64-row tile. Mixtral-8x7B in bf16
// on one H100, 4 sequences decoding: 4 x 2 = 8 (token, expert) pairs over E (1 - (1 - 2/8)^4) = 8 x (1 -
// 0.31640625) = 5.46875 experts touched per layer, 8 / 5.46875 = 1.463 tokens each, padded to 64: 32 layers x
// 5.46875 x 64 rows x 2 x 3 x 4096 x 14336 FLOPs = 3.946001e12 per step, at 989.4e12 x 0.5 (gemm) x 0.5
// (grouped) FLOP/s = 15.953 ms; the bytes 32 x 5.46875 x 352,321,536 B / (3.35e12 x 0.8) = 23.006 ms. With
// overlap_loss 1 the experts take c + m = 38.958 ms.
TEST(StepModelTest, GroupedGemmsPadEachExpertsTokensToTheTile) {
  DeploymentOptions o;
  o.weight_dtype = Dtype::kBf16;
  auto d = prepare_deployment(*find_preset("mixtral-8x7b-v0.1"), H100(), o);
  ASSERT_TRUE(d.ok());
  StepTimeParams p;
  p.gemm_fraction = 0.5;
  p.grouped_gemm_fraction = 0.5;
  p.hbm_fraction = 0.8;
  p.overlap_loss = 1;
  StepWork w;
  w.decode_sequences = 4;
  w.decode_context = 1000;
  const StepTime t = step_time(*d, w, p, false);
  const double touched = 8 * (1 - std::pow(0.75, 4));
  const double c = 32 * touched * 64 * 2 * 3 * 4096.0 * 14336 / (989.4e12 * 0.25);
  const double m = 32 * touched * (3 * 4096.0 * 14336 * 2) / (3.35e12 * 0.8);
  EXPECT_NEAR(t.experts_s, c + m, 1e-9 * (c + m));
  EXPECT_NEAR(c, 15.953e-3, 1e-6);
  EXPECT_NEAR(m, 23.006e-3, 1e-6);
  // The ceiling computes only the routed pairs' FLOPs: 8 per layer, no tile.
  const StepTime ceil = step_time(*d, w, p, true);
  EXPECT_NEAR(ceil.experts_s, m * 0.8, 1e-9 * m);  // memory-bound at the full bandwidth
}

// A causal prefill computes its diagonal attention tiles whole: 1,000 tokens attend to 500,500 keys, the
// kernel to 500,500 x (1 + 128 x 1,000 / (2 x 500,500)) = 564,500 (1 + 128/1001 ~ 1 + 128 / L).
// Llama-3.1-8B: 32 layers x 2 x 32 heads x 128 x 2 = 524,288 FLOPs per key... per layer 16,384 per key over
// the heads (QK and PV), at 989.4e12 x 0.5: 32 x 564,500 x 16,384 / 494.7e12 = 0.59826 ms.
TEST(StepModelTest, CausalPrefillPadsItsDiagonalTiles) {
  DeploymentOptions o;
  o.weight_dtype = Dtype::kBf16;
  auto d = prepare_deployment(Llama8b(), H100(), o);
  ASSERT_TRUE(d.ok());
  StepTimeParams p;
  p.attention_fraction = 0.5;
  StepWork w;
  w.prefill_tokens = 1000;
  w.prefill_keys_full = 1000.0 * 1001 / 2;
  w.prefill_done = 1;
  w.prefill_groups = 1;
  const StepTime t = step_time(*d, w, p, false);
  EXPECT_NEAR(t.prefill_attention_s, 32 * 564500.0 * 16384 / (989.4e12 * 0.5), 1e-12);
  EXPECT_NEAR(t.prefill_attention_s, 0.59826e-3, 1e-8);
}

// An architecture family's factor multiplies every fraction of its GPUs (never beyond the roof); a GPU of
// another family does not see it. The MI300X at a CDNA3 factor of 0.5: a bandwidth-bound decode step's
// weight stream takes twice as long.
TEST(StepModelTest, AnArchitectureFactorScalesItsFamilyOnly) {
  GpuSpec mi = typed_mi300x();
  mi.key = "mi300x";  // the engine rules' table knows it as CDNA3
  DeploymentOptions o;
  o.weight_dtype = Dtype::kBf16;
  auto d = prepare_deployment(Llama8b(), mi, o);
  auto h = prepare_deployment(Llama8b(), H100(), o);
  ASSERT_TRUE(d.ok() && h.ok());
  EXPECT_EQ(d->arch, GpuArch::kCdna3);
  EXPECT_EQ(h->arch, GpuArch::kHopper);
  StepTimeParams p;
  p.hbm_fraction = 0.8;
  StepTimeParams q = p;
  q.arch_factor[static_cast<size_t>(GpuArch::kCdna3)] = 0.5;
  StepWork w;
  w.decode_sequences = 1;
  w.decode_context = 100;
  EXPECT_NEAR(step_time(*d, w, q, false).dense_s, 2 * step_time(*d, w, p, false).dense_s, 1e-15);
  EXPECT_DOUBLE_EQ(step_time(*h, w, q, false).dense_s, step_time(*h, w, p, false).dense_s);
  q.arch_factor[static_cast<size_t>(GpuArch::kCdna3)] = 2;  // 0.8 x 2 capped at the roof
  EXPECT_NEAR(step_time(*d, w, q, false).dense_s, 0.8 * step_time(*d, w, p, false).dense_s, 1e-15);
}

// Under pipeline parallelism the batch runs as pp micro-batches in flight: the steady state's step at B on
// pp = 2 is the column's step at B / 2 sequences (the decode-only pool: no prompts to place).
TEST(ServingTest, PipelineStagesRunMicroBatchesInFlight) {
  DeploymentOptions o;
  o.weight_dtype = Dtype::kBf16;
  o.split.pp = 2;
  auto d = prepare_deployment(*find_preset("llama-3.1-70b"), H100(), o);
  ASSERT_TRUE(d.ok());
  const StepTimeParams& p = engine_profile(kDefaultEngine).time;
  ServingCapacity cap;
  cap.sequences = 1000;
  const ServingFigures f = serve(*d, cap, p, false, ServingRequest{1000, 1000, ServingLoad::kBatch, 64, ServingPhase::kDecodeOnly});
  StepWork w;
  w.decode_sequences = 32;
  w.decode_context = 1500;
  EXPECT_DOUBLE_EQ(f.step.seconds, step_time(*d, w, p, false).seconds);
  EXPECT_NEAR(f.output_tokens_per_s, 64 / f.tpot_s * 1000 / 999, 1e-9 * f.output_tokens_per_s);
}

// Prompts are not spread thinly over every step: where the prompt tokens a step must average (P) fall short
// of a chunk (here the whole prompt: no step budget), a fraction P / prompt of the steps carry one beside the
// batch and the rest decode alone.
TEST(ServingTest, ThePromptsRideSomeStepsWhole) {
  DeploymentOptions o;
  o.weight_dtype = Dtype::kFp8;
  o.kv_dtype = Dtype::kFp8;
  o.split.tp = 2;
  auto d = prepare_deployment(*find_preset("mixtral-8x7b-v0.1"), H100(), o);
  ASSERT_TRUE(d.ok());
  const StepTimeParams& p = engine_profile(kDefaultEngine).time;
  ServingCapacity cap;
  cap.sequences = 1000;  // no step budget: a prompt is one chunk
  const ServingFigures f = serve(*d, cap, p, false, ServingRequest{2000, 501, ServingLoad::kBatch, 8});
  // 8 sequences finish 8 / 500 prompts a step: 32 of the 2000 tokens; f = 32 / 2000 = 0.016.
  StepWork dec;
  dec.decode_sequences = 8;
  dec.decode_context = 2000 + 501 / 2.0;
  StepWork mix = dec;
  mix.prefill_tokens = 2000;
  mix.prefill_keys_full = 2000.0 * 2001 / 2;
  mix.prefill_done = 1;
  mix.eager_forwards = 1;
  const double f_share = 8.0 / 500 * 2000 / 2000;
  const double want = (1 - f_share) * step_time(*d, dec, p, false).seconds + f_share * step_time(*d, mix, p, false).seconds;
  EXPECT_NEAR(f.step.seconds, want, 1e-12);
  EXPECT_NEAR(f.prefill_tokens_per_step, 32, 1e-9);
}

}  // namespace
}  // namespace modelcalc
