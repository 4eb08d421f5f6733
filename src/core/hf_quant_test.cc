// Quantization configs read as the engines read them (hf_quant.cc, hf_modules.cc), on the real configs and
// ModelOpt sidecars of tests/fixtures/hf-configs-aic (ai-dynamo/aiconfigurator@095f58a5, its README), and the
// recurrent state's dtype from the config.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "hf_modules.h"
#include "modelcalc/deployment.h"
#include "modelcalc/hf_config.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR

namespace modelcalc {
namespace {

namespace fs = std::filesystem;

fs::path aic(const std::string& repo) { return fs::path(MODELCALC_SOURCE_DIR) / "tests/fixtures/hf-configs-aic" / repo; }

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / ("hf_quant_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool any_note(const ModelSpec& m, const std::string& text) {
  for (const std::string& a : m.assumptions) {
    if (a.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(HfQuant, ModuleNamesMatchAsVllmMatchesThem) {
  using hf::module_excluded;
  // Exact, contained, or an fnmatch wildcard (vLLM's ModelOptQuantConfigBase.is_layer_excluded).
  EXPECT_TRUE(module_excluded("lm_head", "lm_head"));
  EXPECT_TRUE(module_excluded("model.layers.3.self_attn.q_proj", "model.layers.3.self_attn"));
  EXPECT_FALSE(module_excluded("model.layers.13.self_attn.q_proj", "model.layers.3.self_attn"));
  EXPECT_TRUE(module_excluded("model.layers.3.self_attn.q_proj", "model.layers.*.self_attn*"));
  EXPECT_TRUE(module_excluded("backbone.layers.5.mixer.q_proj", "*.mixer.*"));
  EXPECT_TRUE(module_excluded("model.layers.61.mlp.experts.0.up_proj", "model.layers.61*"));
  EXPECT_FALSE(module_excluded("model.layers.6.mlp.experts.0.up_proj", "model.layers.61*"));
  EXPECT_TRUE(module_excluded("model.layers.2.mlp.gate_proj", "model.layers.[0-2].mlp*"));
  EXPECT_FALSE(module_excluded("model.layers.3.mlp.gate_proj", "model.layers.[!3].mlp*"));
  EXPECT_TRUE(module_excluded("model.layers.0.self_attn.o_proj", "model.layers.?.self_attn.o_proj"));
  // compressed-tensors' "re:" regexes, read as wildcards.
  EXPECT_TRUE(module_excluded("model.layers.7.self_attn.k_proj", "re:.*self_attn.*"));
  EXPECT_TRUE(module_excluded("model.layers.17.mlp.gate", "re:model\\.layers\\.\\d+\\.mlp\\.gate$"));
  EXPECT_FALSE(module_excluded("model.layers.17.mlp.up_proj", "re:^model\\.layers\\.\\d+\\.mlp\\.gate$"));
  EXPECT_FALSE(module_excluded("anything", ""));
  // fnmatch: stars cross dots; many stars stay linear.
  EXPECT_TRUE(hf::fnmatch_case("a.b.c", "a*c"));
  EXPECT_FALSE(hf::fnmatch_case(std::string(2000, 'a') + "b", std::string(50, '*') + "c"));
}

TEST(HfQuant, NemotronNvfp4ExclusionsAreReadByTheModulesTheyName) {
  // nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4: exclude_modules names backbone.layers.N.mixer.{q,k,v,o}_proj of
  // all 6 attention layers (5, 12, 19, 26, 33, 42 in "MEMEM*EMEMEM*..."), mixer.{in,out}_proj of 6 of the 23
  // Mamba layers (4, 11, 18, 25, 32, 41), and conv1d of every Mamba layer (not a Linear: never quantized).
  auto m = load_hf_config(aic("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4").string());
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(m->quant.has_value());
  EXPECT_EQ(m->quant->dtype, Dtype::kNvfp4);
  EXPECT_FALSE(m->quant->attention);  // every attention layer kept in 16 bits
  EXPECT_TRUE(m->quant->recurrent);   // the Mamba projections are NVFP4 in 17 of 23 layers
  EXPECT_TRUE(m->quant->experts);
  EXPECT_TRUE(any_note(*m, "recurrent-mixer weights of 6 of 23 layers")) << m->assumptions.size();
  EXPECT_EQ(m->quant->kv, Dtype::kFp8);  // kv_cache_quant_algo FP8
  // Its config's mamba_ssm_cache_dtype: the SSM state in float32.
  EXPECT_EQ(m->ssm_state_dtype, Dtype::kFp32);
}

TEST(HfQuant, MixedPrecisionTakesEachModulesOwnFormat) {
  // nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4: quantized_layers gives every routed and shared expert's
  // up/down W4A16_NVFP4 and every Mamba in/out_proj FP8; attention is excluded, and listed nowhere.
  auto m = load_hf_config(aic("nvidia--NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4").string());
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(m->quant.has_value());
  EXPECT_EQ(m->quant->dtype, Dtype::kNvfp4);  // the experts'
  EXPECT_EQ(m->quant->experts_dtype, Dtype::kNvfp4);
  EXPECT_EQ(m->quant->recurrent_dtype, Dtype::kFp8);
  EXPECT_EQ(m->quant->mlp_dtype, Dtype::kNvfp4);  // the shared experts
  EXPECT_FALSE(m->quant->attention);
  EXPECT_EQ(m->quant->kv, Dtype::kFp8);
  // Served as stored, the deployment keeps each part's format.
  DeploymentOptions o;
  o.weight_dtype = default_weight_dtype(*m, Dtype::kBf16);
  GpuSpec g;
  g.name = "test";
  g.capacity_bytes = 1e12;
  g.bandwidth_bytes_per_s = 1e12;
  g.peak_bf16_flops = 1e15;
  g.peak_fp8_flops = 2e15;
  g.peak_fp4_flops = 4e15;
  auto d = prepare_deployment(*m, g, o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->experts_dtype, Dtype::kNvfp4);
  EXPECT_EQ(d->recurrent_dtype, Dtype::kFp8);
  EXPECT_EQ(d->attention_dtype, Dtype::kBf16);
}

TEST(HfQuant, AModelOptConfigWithoutQuantMethodIsModelOpt) {
  // Qwen3-32B-FP8-Static-PerTensor: quantization_config {"quant_algo": "FP8", "producer": {"name": "modelopt"}}
  // and no quant_method; hf_quant_config.json beside it (FP8, KV FP8, lm_head kept).
  auto with = load_hf_config(aic("Qwen--Qwen3-32B-FP8-Static-PerTensor").string());
  ASSERT_TRUE(with.ok()) << with.status().message();
  EXPECT_EQ(with->quant->source, "hf_quant_config.json");
  EXPECT_EQ(with->quant->dtype, Dtype::kFp8);
  EXPECT_EQ(with->quant->kv, Dtype::kFp8);
  // The config alone is read as ModelOpt too.
  const fs::path dir = fresh_dir("static_alone");
  fs::copy_file(aic("Qwen--Qwen3-32B-FP8-Static-PerTensor") / "config.json", dir / "config.json");
  auto alone = load_hf_config(dir.string());
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  EXPECT_EQ(alone->quant->method, "modelopt");
  EXPECT_EQ(alone->quant->dtype, Dtype::kFp8);
  EXPECT_EQ(alone->quant->kv, Dtype::kFp8);  // its kv_cache_scheme "FP8"
}

fs::path sidecar_dir(const std::string& name) {
  const fs::path dir = fresh_dir(name);
  fs::copy_file(aic("nvidia--Llama-3.1-70B-Instruct-FP8") / "config.json", dir / "config.json");
  return dir;
}

TEST(HfQuant, TheSidecarIsResolvedThroughLinksThenMustBeARegularFile) {
  // A link to a regular file (a Hugging Face cache snapshot) is read.
  const fs::path linked = sidecar_dir("linked");
  fs::copy_file(aic("nvidia--Llama-3.1-70B-Instruct-FP8") / "hf_quant_config.json", linked / "blob");
  fs::create_symlink(linked / "blob", linked / "hf_quant_config.json");
  auto ok = load_hf_config(linked.string());
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->quant->dtype, Dtype::kFp8);
  EXPECT_EQ(ok->quant->kv, Dtype::kFp8);
  // A FIFO, a folder and a link to nothing are refused, naming the path, in one line.
  const fs::path fifo = sidecar_dir("fifo");
  ASSERT_EQ(::mkfifo((fifo / "hf_quant_config.json").c_str(), 0600), 0);
  const fs::path folder = sidecar_dir("folder");
  fs::create_directory(folder / "hf_quant_config.json");
  const fs::path dangling = sidecar_dir("dangling");
  fs::create_symlink(dangling / "missing", dangling / "hf_quant_config.json");
  for (const auto& [dir, says] : {std::pair{fifo, "is a FIFO"}, std::pair{folder, "is a folder"},
                                  std::pair{dangling, "is a link to nothing"}}) {
    auto r = load_hf_config(dir.string());
    ASSERT_FALSE(r.ok()) << dir;
    EXPECT_NE(r.status().message().find("hf_quant_config.json"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(says), std::string::npos) << r.status().message();
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  }
}

TEST(HfQuant, UnknownWeightAndKvSchemesAreRefusedNamingTheKey) {
  const struct {
    const char* quantization;
    const char* key;
  } cases[] = {
      {R"({"quant_algo": "FP8", "kv_cache_quant_algo": "INT4"})", "quantization.kv_cache_quant_algo"},
      {R"({"quant_algo": "FP8", "kv_cache_quant_algo": "NVFP4"})", "quantization.kv_cache_quant_algo"},
      {R"({"quant_algo": "W8A8_SQ_PER_CHANNEL"})", "quantization.quant_algo"},
      {R"({"quant_algo": "MIXED_PRECISION"})", "quantization.quantized_layers"},
      {R"({"quant_algo": "MIXED_PRECISION", "quantized_layers": {"model.layers.0.self_attn.q_proj": {"quant_algo": "INT3"}}})",
       "quantization.quantized_layers"},
  };
  for (const auto& c : cases) {
    const fs::path dir = sidecar_dir("unknown");
    std::ofstream(dir / "hf_quant_config.json") << std::string(R"({"quantization": )") + c.quantization + "}";
    auto r = load_hf_config(dir.string());
    ASSERT_FALSE(r.ok()) << c.quantization;
    EXPECT_NE(r.status().message().find(c.key), std::string::npos) << r.status().message();
  }
  // A config.json scheme alike: AMD's fp8 with a KV scheme it does not name.
  auto kv = model_from_hf_json(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
      "quantization_config": {"quant_method": "fp8", "kv_cache_scheme": "int2"}})", "t.json");
  ASSERT_FALSE(kv.ok());
  EXPECT_NE(kv.status().message().find("quantization_config.kv_cache_scheme"), std::string::npos);
}

TEST(HfQuant, TheSsmStateDtypeComesFromTheConfig) {
  // Nemotron-H-56B (tests/fixtures/hf-configs-2026) with mamba_ssm_cache_dtype float32: the SSM matrix (heads 256
  // x head_dim 64 x state 256 = 4,194,304 a layer) in 4 bytes, the conv window (3 x 20480 = 61,440) in the
  // weights' 2: 54 x (16,777,216 + 122,880) = 912,605,184 bytes a sequence (bf16 throughout: 459,620,352).
  std::ifstream in(fs::path(MODELCALC_SOURCE_DIR) / "tests/fixtures/hf-configs-2026/nvidia--Nemotron-H-56B-Base-8K.config.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The file is Python's JSON (Infinity): the key goes in as text.
  auto with = [&](const std::string& value) {
    return "{\"mamba_ssm_cache_dtype\": \"" + value + "\", " + text.substr(text.find('{') + 1);
  };
  auto m = model_from_hf_json(with("float32"), "nemotron.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->ssm_state_dtype, Dtype::kFp32);
  EXPECT_EQ(state_bytes_per_sequence(*m, default_state_dtype(Dtype::kBf16), default_ssm_state_dtype(*m, Dtype::kBf16))
                .value(),
            912'605'184);
  auto bad = model_from_hf_json(with("fp6"), "nemotron.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("mamba_ssm_cache_dtype"), std::string::npos);
  // Qwen3.5's mamba_ssm_dtype sits in its text_config.
  auto q = load_hf_config(aic("Qwen--Qwen3.5-27B").string());
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->ssm_state_dtype, Dtype::kFp32);
}

}  // namespace
}  // namespace modelcalc
