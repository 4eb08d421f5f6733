// The deployment engine on per-layer kinds (recurrent, chunked, sliding,
// DSA) and on quantized checkpoints, against numbers derived by hand (formula
// in each comment). The hybrid shapes are small and hand-typed with exact
// counts given, so that every expectation can be redone on paper.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "modelcalc/deployment.h"
#include "modelcalc/hf_config.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR, MODELCALC_BINARY

namespace modelcalc {
namespace {

GpuSpec Gpu() {
  GpuSpec g;
  g.name = "test";
  g.capacity_bytes = 100e9;
  g.bandwidth_bytes_per_s = 1e12;
  g.peak_bf16_flops = 1e15;
  g.peak_fp8_flops = 2e15;
  g.link_bytes_per_s = 100e9;
  g.domain_gpus = 8;
  g.scaleout_bytes_per_s = 10e9;
  return g;
}

// 4 layers, d 1024: layers 0 and 2 are Mamba-2 (no attention, no FFN), 1 and 3
// full attention + dense FFN; 8 heads, 2 KV heads of 128. Mamba: 16 heads x 64
// = inner 1024, state 32, conv 4 over 1024 + 2 x 1 x 32 = 1088 channels.
// Exact counts: attention 2 x 2,621,440 (q 1024^2 + kv 2 x 1024 x 256 + o
// 1024^2), recurrent 2 x 3,000,000 (given), dense 2 x 6,291,456 (3 x 1024 x 2048).
ModelSpec Hybrid() {
  ModelSpec m;
  m.n_layer = 4;
  m.n_embd = 1024;
  m.n_head = 8;
  m.n_head_kv = 2;
  m.n_embd_head = 128;
  m.n_ff = 2048;
  m.ffn_gated = true;
  m.n_vocab = 1000;
  const LayerKind mamba{Attn::kNone, true, Ffn::kNone}, attn{Attn::kFull, false, Ffn::kDense};
  m.layer_kinds = {mamba, attn, mamba, attn};
  m.recurrent = Recurrent::kMamba2;
  m.n_ssm_state = 32;
  m.n_ssm_inner = 1024;
  m.n_ssm_head = 16;
  m.n_ssm_conv = 4;
  m.n_ssm_conv_dim = 1088;
  ParamBreakdown p;
  p.embeddings = 1'024'000;
  p.lm_head = 1'024'000;
  p.attention = 2 * 2'621'440;
  p.recurrent = 2 * 3'000'000;
  p.mlp_dense = 2 * 6'291'456;
  m.exact = p;
  return m;
}

TEST(DeploymentLayers, RecurrentStateIsPerSequenceAndReadTwicePerStep) {
  const ModelSpec m = Hybrid();
  ASSERT_TRUE(validate(m).ok());
  DeploymentOptions o;
  o.context = 1000;
  o.batch = 4;
  o.workspace_bytes = 0;
  o.reserve_fraction = 0;
  auto r = analyze_deployment(m, Gpu(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // KV only on the 2 attention layers: 2 x 2 heads x (128 + 128) x 2 B = 2048 B a token; x 1000 tokens.
  EXPECT_EQ(r->memory.kv_per_token, 2048);
  EXPECT_EQ(r->memory.kv_per_sequence, 2'048'000);
  // State: n_embd_s 1024 x 32 = 32,768 + n_embd_r 3 x 1088 = 3,264 -> 36,032 elements a layer, x 2 layers x 2 B.
  EXPECT_EQ(r->memory.state_per_sequence, 144'128);
  // Weights (bf16): (1,024,000 x 2 + 5,242,880 + 6,000,000 + 12,582,912) x 2 B; norms 0.
  EXPECT_EQ(r->memory.weights.total(), 51'747'584);
  EXPECT_EQ(r->memory.weights.recurrent, 12'000'000);
  // Sequences: floor((100e9 - 51,747,584) / (2,048,000 + 144,128)) = floor(99,948,252,416 / 2,192,128) = 45,594.
  EXPECT_EQ(r->memory.max_sequences, 45'594);
  // Decode: each sequence reads and writes back its state: 4 x 2 x 144,128 B.
  EXPECT_DOUBLE_EQ(r->decode.bytes.state, 4.0 * 2 * 144'128);
  // KV read: 4 sequences x 2 layers x 1000 keys x 1024 B.
  EXPECT_DOUBLE_EQ(r->decode.bytes.kv, 4.0 * 2 * 1000 * 1024);
  // Recurrent FLOPs: (5 x 32,768 + 2 x 4 x 1088) = 172,544 a layer-token; x 2 layers x 4 sequences.
  EXPECT_DOUBLE_EQ(r->decode.flops.recurrent, 4.0 * 2 * 172'544);
  // Attention FLOPs: 2 x 8 heads x (128 + 128) = 4096 a key; 2 layers x 1000 keys x 4 sequences.
  EXPECT_DOUBLE_EQ(r->decode.flops.attention, 4.0 * 2 * 1000 * 4096);
  // One all-reduce per sublayer: 4 mixers + 2 FFNs over 4 layers = 1.5 a layer (tp > 1 only).
  DeploymentOptions o2 = o;
  o2.split.tp = 2;
  auto r2 = prepare_deployment(m, Gpu(), o2);
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_DOUBLE_EQ(r2->allreduces_per_layer, 1.5);
  // The state is split by heads: 36,032 / 2 = 18,016 elements a rank.
  EXPECT_EQ(r2->state_elems_per_layer, 18'016);
  // A tensor-parallel degree that does not divide the 16 Mamba heads is refused, naming tp.
  o2.split.tp = 32;
  ModelSpec wide = m;
  wide.n_head = 32;
  wide.n_head_kv = 32;
  auto bad = prepare_deployment(wide, Gpu(), o2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("recurrent"), std::string::npos);
}

TEST(DeploymentLayers, ChunkedLayersHoldAChunkAndPrefillWithinChunks) {
  ModelSpec m = Hybrid();
  m.layer_kinds = {LayerKind{Attn::kChunked}, LayerKind{Attn::kFull}, LayerKind{Attn::kChunked},
                   LayerKind{Attn::kFull}};
  m.recurrent = Recurrent::kNone;
  m.n_chunk = 300;
  m.exact->attention = 4 * 2'621'440;
  m.exact->recurrent = 0;
  m.exact->mlp_dense = 4 * 6'291'456;
  ASSERT_TRUE(validate(m).ok());
  DeploymentOptions o;
  o.context = 1000;
  o.prompt_tokens = 700;
  auto r = analyze_deployment(m, Gpu(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // KV: 2 full layers x 1000 + 2 chunked x 300 tokens, 1024 B a layer-token.
  EXPECT_EQ(r->memory.kv_per_sequence, (2 * 1000 + 2 * 300) * 1024);
  // Prefill of 700 = 2 chunks of 300 + 100: a chunked layer attends 2 x 300 x 301 / 2 + 100 x 101 / 2 = 95,350
  // keys, a full layer 700 x 701 / 2 = 245,350; x 4096 FLOPs a key.
  EXPECT_DOUBLE_EQ(r->prefill.attention_flops, (2.0 * 95'350 + 2.0 * 245'350) * 4096);
}

TEST(DeploymentLayers, SparseIndexerReadsEveryKeyAttendsTopK) {
  // DeepSeek-V3.2: MLA latent 576 + indexer key 128 a token and layer; top-2048 attended.
  auto m = find_preset("deepseek-v3.2");
  ASSERT_TRUE(m.ok()) << m.status().message();
  DeploymentOptions o;
  o.split.tp = 8;
  o.weight_dtype = Dtype::kFp8;
  o.context = 8192;
  auto d = prepare_deployment(*m, Gpu(), o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  const DeploymentResult r = evaluate_deployment(*d, 1, 8192, 0);
  // Memory: 61 layers x 8192 tokens x (576 + 128) x 2 B (the latent is whole on every rank).
  EXPECT_EQ(r.memory.kv_per_sequence, 61LL * 8192 * 704 * 2);
  // Decode reads 2048 latents and all 8192 indexer keys a layer: 61 x (2048 x 576 + 8192 x 128) x 2 B.
  EXPECT_DOUBLE_EQ(r.decode.bytes.kv, 61.0 * (2048 * 576 * 2.0) + 61.0 * 8192 * 128 * 2.0);
  // Attention FLOPs: 16 heads a rank x 2 x (2 x 512 + 64) a latent key, and 2 x 64 x 128 / 8 an indexer key.
  EXPECT_DOUBLE_EQ(r.decode.flops.attention, 61.0 * 2048 * (2.0 * 16 * 1088) + 61.0 * 8192 * (2.0 * 64 * 128 / 8));
}

// gpt-oss-120b as its checkpoint stores it: MXFP4 expert matrices (4 bits, one E8M0 byte per 32), 16-bit
// attention, embeddings, lm_head, norms, router and the experts' biases (the checkpoint's
// *_proj_bias tensors are BF16).
TEST(DeploymentLayers, GptOssServesItsMxfp4ExpertsAnd16BitAttention) {
  auto m = find_preset("gpt-oss-120b");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(m->quant.has_value());
  EXPECT_EQ(m->quant->dtype, Dtype::kMxfp4);
  EXPECT_FALSE(m->quant->attention);
  EXPECT_TRUE(m->quant->experts);
  EXPECT_EQ(default_weight_dtype(*m, Dtype::kFp16), Dtype::kMxfp4);
  DeploymentOptions o;
  o.weight_dtype = Dtype::kMxfp4;
  auto d = prepare_deployment(*m, Gpu(), o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  const WeightShard& w = d->weights;
  EXPECT_EQ(w.embeddings, 1'158'266'880);  // 201088 x 2880 at 2 B
  EXPECT_EQ(w.lm_head, 1'158'266'880);
  EXPECT_EQ(w.attention, 955'517'184LL * 2);        // attention and sinks, bf16
  // The experts' biases: 128 experts x (gate_up 2 x 2880 + down 2880) x 36 layers = 39,813,120,
  // of the 114,701,598,720 routed parameters; the other 114,661,785,600 are the matrices.
  EXPECT_EQ(m->n_expert_bias, 2 * 2880 + 2880);
  const int64_t bias = 128LL * 8640 * 36, matrices = 114'701'598'720LL - bias;
  EXPECT_EQ(matrices, 114'661'785'600LL);
  EXPECT_EQ(w.experts, matrices / 2);  // 4 bits each
  EXPECT_EQ(w.scales, matrices / 32);  // one byte per 32
  // other: (norms 5840 + biases 8000 + router 368,768) a layer x 36 and the experts' biases, at 2 B.
  EXPECT_EQ(w.other, (5840LL + 8000 + 368'768) * 36 * 2 + bias * 2);
  // 65,248,815,744 B: the checkpoint's model.safetensors.index.json metadata.total_size (openai/gpt-oss-120b),
  // the 65 GB checkpoint that fits one 80 GB GPU.
  EXPECT_EQ(w.total(), 65'248'815'744);
  EXPECT_EQ(d->attention_dtype, Dtype::kBf16);
  EXPECT_EQ(d->experts_dtype, Dtype::kMxfp4);
  // --dtype fp8 changes what the checkpoint quantizes, not what it keeps in 16 bits.
  o.weight_dtype = Dtype::kFp8;
  auto d8 = prepare_deployment(*m, Gpu(), o);
  ASSERT_TRUE(d8.ok()) << d8.status().message();
  EXPECT_EQ(d8->weights.experts, matrices);
  EXPECT_EQ(d8->weights.attention, 955'517'184LL * 2);
  EXPECT_EQ(d8->weights.scales, 0);  // the mxfp4 checkpoint states no fp8 block scales
}

TEST(DeploymentLayers, DeepSeekV3Fp8CheckpointFitsEightH200s) {
  auto m = find_preset("deepseek-v3");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(m->quant.has_value());
  EXPECT_TRUE(m->quant->block_scales);
  GpuSpec h200 = Gpu();
  h200.capacity_bytes = 141e9;
  DeploymentOptions o;
  o.split.tp = 8;
  o.context = 4096;
  o.weight_dtype = default_weight_dtype(*m, Dtype::kBf16);
  auto r = analyze_deployment(*m, h200, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->memory.max_sequences, 0);
  // Scales: one fp32 per 128 x 128 block of the fp8 parts: ceil(params / 16384) x 4 B on one GPU.
  o.split.tp = 1;
  auto d1 = prepare_deployment(*m, h200, o);
  ASSERT_TRUE(d1.ok());
  const ParamBreakdown& p = *m->exact;
  const int64_t fp8 = p.attention + p.mlp_dense + p.mlp_shared + p.mlp_routed;
  EXPECT_EQ(d1->weights.scales, (fp8 + 16383) / 16384 * 4);
  EXPECT_EQ(d1->weights.attention + d1->weights.mlp + d1->weights.experts, fp8);
  // The same split in bf16 does not fit: 1.34 TB / 8 is above 141 GB.
  o.split.tp = 8;
  o.weight_dtype = Dtype::kBf16;
  auto bf = analyze_deployment(*m, h200, o);
  ASSERT_TRUE(bf.ok());
  EXPECT_EQ(bf->memory.max_sequences, 0);
}

std::string TempDir(const std::string& name) {
  const auto dir = std::filesystem::path(testing::TempDir()) / name;
  std::filesystem::create_directories(dir);
  return dir.string();
}

TEST(DeploymentLayers, ModelOptHfQuantConfigBesideConfigJson) {
  // A ModelOpt NVFP4 export as its hf_quant_config.json is laid out ({"producer", "quantization": {quant_algo,
  // kv_cache_quant_algo, group_size, exclude_modules}}), with every layer's attention excluded by number.
  const std::string dir = TempDir("modelopt_nvfp4");
  std::ifstream src(std::string(MODELCALC_SOURCE_DIR) +
                    "/tests/fixtures/hf-configs-2026/nvidia--DeepSeek-V3.1-NVFP4.config.json");
  std::ofstream(dir + "/config.json") << src.rdbuf();
  std::string exclude = R"("lm_head")";
  for (int il = 0; il < 61; ++il) exclude += ", \"model.layers." + std::to_string(il) + ".self_attn*\"";
  std::ofstream(dir + "/hf_quant_config.json")
      << R"({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8",
         "group_size": 16, "exclude_modules": [)" + exclude + "]}}";
  auto m = load_hf_config(dir);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(m->quant.has_value());
  EXPECT_EQ(m->quant->source, "hf_quant_config.json");
  EXPECT_EQ(m->quant->dtype, Dtype::kNvfp4);
  EXPECT_FALSE(m->quant->attention);  // all 61 layers excluded
  EXPECT_TRUE(m->quant->experts);
  EXPECT_EQ(default_kv_dtype(*m, Dtype::kNvfp4), Dtype::kFp8);  // the KV follows the checkpoint
  // Excluding only some layers' attention keeps it quantized, and says so.
  std::ofstream(dir + "/hf_quant_config.json")
      << R"({"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["model.layers.0.self_attn*"]}})";
  auto partial = load_hf_config(dir);
  ASSERT_TRUE(partial.ok()) << partial.status().message();
  EXPECT_TRUE(partial->quant->attention);
  ASSERT_FALSE(partial->assumptions.empty());
  EXPECT_NE(partial->assumptions.back().find("1 of 61"), std::string::npos);
  // A scheme it does not model is refused, naming the key and the file.
  std::ofstream(dir + "/hf_quant_config.json") << R"({"quantization": {"quant_algo": "MIXED_PRECISION"}})";
  auto mixed = load_hf_config(dir);
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("quantization.quantized_layers"), std::string::npos);
  EXPECT_NE(mixed.status().message().find("hf_quant_config.json"), std::string::npos);
}

Result<ModelSpec> Quantized(const std::string& quantization_config) {
  return model_from_hf_json(
      R"({"model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 8,
          "intermediate_size": 4096, "vocab_size": 1000, "quantization_config": )" +
          quantization_config + "}",
      "test.json");
}

TEST(DeploymentLayers, QuantizationConfigMethods) {
  auto awq = Quantized(R"({"quant_method": "awq", "bits": 4, "group_size": 64})");
  ASSERT_TRUE(awq.ok()) << awq.status().message();
  EXPECT_EQ(awq->quant->dtype, Dtype::kInt4);
  EXPECT_EQ(awq->quant->group_size, 64);
  auto gptq = Quantized(R"({"quant_method": "gptq", "bits": 8, "group_size": -1})");
  ASSERT_TRUE(gptq.ok()) << gptq.status().message();
  EXPECT_EQ(gptq->quant->dtype, Dtype::kInt8);
  EXPECT_EQ(gptq->quant->group_size, 1024);  // per channel: one scale per d = 1024 inputs
  auto ct = Quantized(R"({"quant_method": "compressed-tensors", "format": "float-quantized",
      "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float",
      "strategy": "block", "block_structure": [128, 128]}}}, "ignore": ["lm_head", "re:.*self_attn.*"],
      "kv_cache_scheme": {"num_bits": 8, "type": "float"}})");
  ASSERT_TRUE(ct.ok()) << ct.status().message();
  EXPECT_EQ(ct->quant->dtype, Dtype::kFp8);
  EXPECT_TRUE(ct->quant->block_scales);
  EXPECT_FALSE(ct->quant->attention);
  EXPECT_TRUE(ct->quant->mlp);
  EXPECT_EQ(ct->quant->kv, Dtype::kFp8);
  auto nv = Quantized(R"({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
      "config_groups": {"g": {"weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group",
      "group_size": 16}}}})");
  ASSERT_TRUE(nv.ok()) << nv.status().message();
  EXPECT_EQ(nv->quant->dtype, Dtype::kNvfp4);
  auto mo = Quantized(R"({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"})");
  ASSERT_TRUE(mo.ok()) << mo.status().message();
  EXPECT_EQ(mo->quant->dtype, Dtype::kFp8);
  EXPECT_FALSE(mo->quant->block_scales);
  // Unknown methods are refused, naming the key; nothing is approximated.
  auto bnb = Quantized(R"({"quant_method": "bitsandbytes", "load_in_4bit": true})");
  ASSERT_FALSE(bnb.ok());
  EXPECT_NE(bnb.status().message().find("quantization_config.quant_method"), std::string::npos);
  auto notobj = Quantized(R"("fp8")");
  ASSERT_FALSE(notobj.ok());
  EXPECT_NE(notobj.status().message().find("quantization_config"), std::string::npos);
}

// A vision-language model's tower is loaded with the language model (vLLM's gemma3_mm.py builds
// vision_tower and multi_modal_projector): its parameters are in the weight shard, 16-bit, split by TP,
// though not in params.total. Gemma 3 27B: vision 423,060,336 (hf_config_2026_test.cc derives it).
TEST(DeploymentLayers, VisionTowerIsInTheWeightShard) {
  auto m = load_hf_config(std::string(MODELCALC_SOURCE_DIR) +
                          "/tests/fixtures/hf-configs-2026/google--gemma-3-27b-it.config.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->params_vision.value_or(0), 423'060'336);
  DeploymentOptions o;
  o.split.tp = 2;
  o.weight_dtype = Dtype::kFp8;  // the tower stays 16-bit in a quantized checkpoint
  auto d = prepare_deployment(*m, Gpu(), o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  // ceil(423,060,336 / 2) = 211,530,168 parameters a GPU, at 2 B.
  EXPECT_EQ(d->weights.vision, 211'530'168LL * 2);
  ModelSpec text = *m;
  text.params_vision.reset();
  auto t = prepare_deployment(text, Gpu(), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->weights.vision, 0);
  EXPECT_EQ(d->weights.total(), t->weights.total() + 211'530'168LL * 2);
}

// Gemma 3n's towers are held whole on every GPU (vLLM's gemma3n_mm.py builds vision_tower and audio_tower
// with transformers' AutoModel.from_config): at tp 2 each GPU holds vision 298,587,456 and audio 684,694,048
// parameters (hf_config_2026_test.cc derives them), 16-bit, in their own terms.
TEST(DeploymentLayers, Gemma3nTowersAreWholeOnEveryGpu) {
  auto m = load_hf_config(std::string(MODELCALC_SOURCE_DIR) +
                          "/tests/fixtures/hf-configs-2026/unsloth--gemma-3n-E2B-it.config.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(m->towers_whole);
  DeploymentOptions o;
  o.split.tp = 2;
  auto d = prepare_deployment(*m, Gpu(), o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->weights.vision, 298'587'456LL * 2);
  EXPECT_EQ(d->weights.audio, 684'694'048LL * 2);
}

// Gemma 3n's 10 KV-shared layers attend but hold no cache: at T = 32768 in bf16, one GPU, a sequence holds the
// 20 caching layers' 2 B x 1024 x (4 x 32768 + 16 x 512) = 285,212,672 B, while a decode step reads the shared
// layers' keys again: full 4 + 2, sliding 16 + 8, 2 B x 1024 x (6 x 32768 + 24 x 512) = 427,819,008 B a sequence.
TEST(DeploymentLayers, Gemma3nSharedLayersReadKvTheyDoNotHold) {
  auto m = load_hf_config(std::string(MODELCALC_SOURCE_DIR) +
                          "/tests/fixtures/hf-configs-2026/unsloth--gemma-3n-E2B-it.config.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  DeploymentOptions o;
  o.context = 32768;
  auto d = prepare_deployment(*m, Gpu(), o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  const DeploymentResult r = evaluate_deployment(*d, 1, 32768, 0);
  EXPECT_EQ(r.memory.kv_per_sequence, 285'212'672);
  EXPECT_DOUBLE_EQ(r.decode.bytes.kv, 427'819'008.0);
}

}  // namespace
}  // namespace modelcalc
