// Engine acceptance rules against the engines' documented refusals: one test
// per row of engine_rules(), each citing the refusal it reproduces. Every
// expected number is the checkpoint's config.json arithmetic, worked in the
// comments.
#include "modelcalc/engine_rules.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "modelcalc/deployment.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR

namespace modelcalc {
namespace {

std::string fixture_text(const std::string& rel) {
  std::ifstream in(std::string(MODELCALC_SOURCE_DIR) + "/tests/fixtures/" + rel);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A bf16 fixture with the FP8 block quantization_config its "-FP8" sibling on the Hub adds
// (Qwen/Qwen3-235B-A22B-FP8, Qwen/Qwen3-30B-A3B-FP8: fp8, e4m3, weight_block_size [128, 128]).
ModelSpec with_fp8_blocks(const std::string& rel) {
  std::string t = fixture_text(rel);
  const size_t end = t.rfind('}');
  t.insert(end, R"(, "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
               "weight_block_size": [128, 128]})");
  auto m = model_from_hf_json(t, rel);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return *m;
}

ModelSpec fixture(const std::string& rel) {
  auto m = load_hf_config(std::string(MODELCALC_SOURCE_DIR) + "/tests/fixtures/" + rel);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return *m;
}

PreparedDeployment prepared(const ModelSpec& m, const std::string& gpu, int64_t tp, int64_t ep,
                            Dtype w = Dtype::kFp8, Dtype kv = Dtype::kBf16) {
  DeploymentOptions o;
  o.split.tp = tp;
  o.split.ep = ep;
  o.weight_dtype = w;
  o.kv_dtype = kv;
  o.context = 4096;
  auto d = prepare_deployment(m, find_gpu(gpu).value(), o);
  EXPECT_TRUE(d.ok()) << d.status().message();
  return *d;
}

std::string rule_of(Engine e, const ModelSpec& m, const std::string& gpu, const PreparedDeployment& d) {
  const auto r = engine_refusal(e, m, find_gpu(gpu).value(), d);
  return r ? std::string(r->rule->name) : std::string();
}

const char kQwen235[] = "hf-configs-2026/Qwen--Qwen3-235B-A22B.config.json";
const char kQwen30[] = "hf-configs/Qwen3-30B-A3B.config.json";

// vllm-project/vllm#17569: Qwen3-235B-A22B-FP8 at TP8, "The output_size of gate's and up's weight = 192 is not
// divisible by weight quantization block_n = 128": moe_intermediate_size 1536 / 8 = 192 = 1.5 blocks.
TEST(EngineRulesTest, VllmRefusesFp8BlockExpertsSplitBelowABlock) {
  const ModelSpec m = with_fp8_blocks(kQwen235);
  const PreparedDeployment d = prepared(m, "h100", 8, 1);
  const auto r = engine_refusal(Engine::kVllm, m, find_gpu("h100").value(), d);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rule->name, "fp8-block-experts");
  EXPECT_EQ(r->size, 1536);
  EXPECT_EQ(r->ranks, 8);
  EXPECT_EQ(r->per_rank, 192);
  const Status s = check_engine_rules(Engine::kVllm, m, find_gpu("h100").value(), d);
  EXPECT_NE(s.message().find("ep: vLLM refuses"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("vllm-project/vllm#17569"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Fp8MoEMethod.create_weights"), std::string::npos) << s.message();
  // With EP over the TP group every expert is whole on its rank (1536 = 12 blocks): accepted (#17569's fix:
  // --enable-expert-parallel). TP4 gives 1536 / 4 = 384 = 3 blocks: accepted.
  EXPECT_EQ(rule_of(Engine::kVllm, m, "h100", prepared(m, "h100", 8, 8)), "");
  EXPECT_EQ(rule_of(Engine::kVllm, m, "h100", prepared(m, "h100", 4, 1)), "");
}

// vllm-project/vllm#25292: Qwen3-30B-A3B-FP8 at TP4: moe_intermediate_size 768 / 4 = 192. TP2: 384 = 3 blocks.
TEST(EngineRulesTest, VllmRefusesQwen30bFp8AtTp4) {
  const ModelSpec m = with_fp8_blocks(kQwen30);
  EXPECT_EQ(rule_of(Engine::kVllm, m, "h100", prepared(m, "h100", 4, 1)), "fp8-block-experts");
  EXPECT_EQ(rule_of(Engine::kVllm, m, "h100", prepared(m, "h100", 2, 1)), "");
}

// sgl-project/sglang#5858: "Qwen3-235B-A22B-FP8 --tp 4" and "--tp 8 --enable-ep-moe" launch; TP8 alone fails
// ("Qwen 3 FP8 uses block wise FP8"): the same Fp8MoEMethod check in SGLang.
TEST(EngineRulesTest, SglangRefusesFp8BlockExpertsAsItsTrackerSays) {
  const ModelSpec m = with_fp8_blocks(kQwen235);
  EXPECT_EQ(rule_of(Engine::kSglang, m, "h100", prepared(m, "h100", 8, 1)), "fp8-block-experts");
  EXPECT_EQ(rule_of(Engine::kSglang, m, "h100", prepared(m, "h100", 8, 8)), "");
  EXPECT_EQ(rule_of(Engine::kSglang, m, "h100", prepared(m, "h100", 4, 1)), "");
}

// TensorRT-LLM's FP8 block-scale MoE ceil-divides its scales (DeepSeekFP8BlockScalesFusedMoEMethod.create_weights:
// cell_div(intermediate_size_per_partition, 128)) instead of refusing: no row refuses TP8 on Hopper.
TEST(EngineRulesTest, TrtllmHasNoFp8BlockDivisibilityRow) {
  const ModelSpec m = with_fp8_blocks(kQwen235);
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "h100", prepared(m, "h100", 8, 1)), "");
}

// sgl-project/sglang#3345: DeepSeek-R1 at tensor_parallel_size 32 refused: "18432 (intermediate_size) / 32 (tp)
// = 576 which is not divisible by 128 (weight quantization block size)". The dense layers' MLP is a linear
// layer: validate_fp8_block_shape's column-parallel check, in vLLM and SGLang alike. At TP16: 1152 = 9 blocks.
TEST(EngineRulesTest, Fp8BlockLinearRefusesDeepSeekR1AtTp32) {
  const ModelSpec m = fixture("hf-configs-2026/deepseek-ai--DeepSeek-R1.config.json");
  ASSERT_TRUE(m.quant && m.quant->block_scales);
  const PreparedDeployment d32 = prepared(m, "h100", 32, 32);
  const auto r = engine_refusal(Engine::kSglang, m, find_gpu("h100").value(), d32);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rule->name, "fp8-block-linear");
  EXPECT_EQ(r->size, 18432);
  EXPECT_EQ(r->per_rank, 576);
  EXPECT_EQ(rule_of(Engine::kVllm, m, "h100", d32), "fp8-block-linear");
  EXPECT_EQ(rule_of(Engine::kVllm, m, "h100", prepared(m, "h100", 16, 16)), "");
}

// A bf16 checkpoint has no blocks: the same split passes.
TEST(EngineRulesTest, Fp8BlockRowsNeedABlockQuantizedCheckpoint) {
  const ModelSpec m = fixture(kQwen235);
  EXPECT_EQ(rule_of(Engine::kVllm, m, "h100", prepared(m, "h100", 8, 1, Dtype::kBf16)), "");
  // fp8 chosen for a bf16 checkpoint is vLLM's online per-tensor quantization (--quantization fp8): no blocks.
  EXPECT_EQ(rule_of(Engine::kVllm, m, "h100", prepared(m, "h100", 8, 1, Dtype::kFp8)), "");
}

// The heads rows: vLLM's "Total number of attention heads (32) must be divisible by tensor parallel size (3)".
// The deployment engine refuses the split first; the row is checked on a prepared split changed by hand.
TEST(EngineRulesTest, HeadsMustDivideTp) {
  const ModelSpec m = find_preset("llama-3.1-8b").value();
  PreparedDeployment d = prepared(m, "h100", 1, 1, Dtype::kBf16);
  d.split.tp = 3;  // 32 heads / 3
  for (Engine e : kAllEngines) EXPECT_EQ(rule_of(e, m, "h100", d), "tp-heads") << engine_name(e);
}

// QKVParallelLinear: 4 KV heads over tp 7 neither divide (4 % 7) nor replicate whole (7 % 4); Qwen2.5-7B's
// 28 query heads do divide by 7.
TEST(EngineRulesTest, KvHeadsDivideOrReplicate) {
  const ModelSpec m = fixture("hf-configs/Qwen2.5-7B.config.json");
  ASSERT_EQ(m.n_head, 28);
  ASSERT_EQ(m.n_head_kv, 4);
  PreparedDeployment d = prepared(m, "h100", 1, 1, Dtype::kBf16);
  d.split.tp = 7;
  for (Engine e : kAllEngines) EXPECT_EQ(rule_of(e, m, "h100", d), "tp-kv-heads") << engine_name(e);
  d.split.tp = 4;  // 4 % 4 == 0
  for (Engine e : kAllEngines) EXPECT_EQ(rule_of(e, m, "h100", d), "") << engine_name(e);
}

// TensorRT-LLM's support matrix lists NVIDIA Ampere and later only: MI300X and a TPU are refused.
TEST(EngineRulesTest, TrtllmRunsOnNvidiaOnly) {
  const ModelSpec m = find_preset("llama-3.1-8b").value();
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "mi300x", prepared(m, "mi300x", 1, 1, Dtype::kBf16)), "trtllm-nvidia");
  EXPECT_EQ(rule_of(Engine::kVllm, m, "mi300x", prepared(m, "mi300x", 1, 1, Dtype::kBf16)), "");
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "a100", prepared(m, "a100", 1, 1, Dtype::kBf16)), "");
}

// The support matrix's precision row: Ampere (SM80, SM86) FP32, FP16, BF16, INT8, INT4 -- an FP8 KV cache is
// refused on the A100 (the catalog gives it no fp8 peak, so fp8 weights are refused by the deployment first).
TEST(EngineRulesTest, TrtllmNoFp8OnAmpere) {
  const ModelSpec m = find_preset("llama-3.1-8b").value();
  const PreparedDeployment d = prepared(m, "a100", 1, 1, Dtype::kBf16, Dtype::kFp8);
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "a100", d), "trtllm-fp8-kv");
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "l40s", prepared(m, "l40s", 1, 1, Dtype::kBf16, Dtype::kFp8)), "");
  // fp8 weights on the A100 as weight-only (bf16 matmuls), were they asked for: still FP8 weights.
  DeploymentOptions o;
  o.weight_dtype = Dtype::kFp8;
  o.compute_dtype = Dtype::kBf16;
  const auto w = prepare_deployment(m, find_gpu("a100").value(), o);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "a100", *w), "trtllm-fp8-weights");
}

// NVIDIA/TensorRT-LLM#6805: Qwen3 MoE FP8 on an L40 (SM89) fails: "FP8 block-scale MoE still requires SM90 or
// SM120" (MOE_DEVELOPER_GUIDE.md). On the H100 it loads.
TEST(EngineRulesTest, TrtllmFp8BlockMoeNeedsSm90) {
  const ModelSpec m = with_fp8_blocks(kQwen30);
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "l40s", prepared(m, "l40s", 2, 1)), "trtllm-fp8-block-moe");
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "h100", prepared(m, "h100", 2, 1)), "");
  EXPECT_EQ(rule_of(Engine::kVllm, m, "l40s", prepared(m, "l40s", 2, 1)), "");
}

// MOE_DEVELOPER_GUIDE.md: W4A16 MXFP4 on SM90 (Cutlass, Triton), W4A8 MXFP4 on SM100/103: gpt-oss's MXFP4
// experts are refused on an L40S (SM89) and an RTX PRO 6000 (SM120), accepted on an H100 and a B200.
TEST(EngineRulesTest, TrtllmMxfp4MoeArchitectures) {
  const ModelSpec m = fixture("hf-configs-2026/openai--gpt-oss-20b.config.json");
  ASSERT_TRUE(m.quant && m.quant->dtype == Dtype::kMxfp4);
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "l40s", prepared(m, "l40s", 1, 1, Dtype::kMxfp4)), "trtllm-mxfp4-moe");
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "rtx-pro-6000", prepared(m, "rtx-pro-6000", 1, 1, Dtype::kMxfp4)),
            "trtllm-mxfp4-moe");
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "h100", prepared(m, "h100", 1, 1, Dtype::kMxfp4)), "");
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "b200", prepared(m, "b200", 1, 1, Dtype::kMxfp4)), "");
}

// MOE_DEVELOPER_GUIDE.md: NVFP4 MoE on Marlin SM89-99 and Cutlass SM100+: none on Ampere.
TEST(EngineRulesTest, TrtllmNvfp4MoeNotOnAmpere) {
  const ModelSpec m = fixture("hf-configs-2026/nvidia--DeepSeek-V3.1-NVFP4.config.json");
  PreparedDeployment d = prepared(m, "b200", 8, 8, Dtype::kNvfp4);
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "b200", d), "");
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "a100", d), "trtllm-nvfp4-moe");  // the same shards, read on an A100
}

// vllm-project/recipes DeepSeek-V3_2.md: "Only Hopper and Blackwell data center GPUs are supported"; SGLang's
// DeepSeek V3.2 page ships images for H200/B200 and MI300/MI350. An A100 is refused by both, an MI300X by vLLM
// only.
TEST(EngineRulesTest, DsaArchitectures) {
  const ModelSpec m = fixture("hf-configs-2026/deepseek-ai--DeepSeek-V3.2.config.json");
  ASSERT_TRUE(m.is_dsa());
  const PreparedDeployment d = prepared(m, "h200", 8, 8);
  EXPECT_EQ(rule_of(Engine::kVllm, m, "h200", d), "");
  EXPECT_EQ(rule_of(Engine::kVllm, m, "a100", d), "dsa-arch");
  EXPECT_EQ(rule_of(Engine::kSglang, m, "a100", d), "dsa-arch");
  EXPECT_EQ(rule_of(Engine::kVllm, m, "mi300x", d), "dsa-arch");
  EXPECT_EQ(rule_of(Engine::kSglang, m, "mi300x", d), "");
  // TensorRT-LLM on an A100 stops at the FP8 weights first (the rows are checked in table order).
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "a100", d), "trtllm-fp8-weights");
  EXPECT_EQ(rule_of(Engine::kTrtllm, m, "h200", d), "");
}

// Every row names a source and a field a refusal can cite; every catalog GPU has an architecture.
TEST(EngineRulesTest, EveryRowIsSourcedAndEveryCatalogGpuHasAnArchitecture) {
  for (const EngineRule& r : engine_rules()) {
    EXPECT_FALSE(r.source.empty()) << r.name;
    EXPECT_FALSE(r.requirement.empty()) << r.name;
    EXPECT_FALSE(r.field.empty()) << r.name;
  }
  std::set<std::string> table;
  for (const GpuArchRow& a : gpu_arch_table()) table.insert(std::string(a.gpu));
  for (const GpuSpec& g : gpu_catalog()) EXPECT_TRUE(table.count(g.key)) << g.key << " has no architecture row";
  EXPECT_EQ(table.size(), gpu_catalog().size());
}

// docs/planning.md lists every row by name ("What the engines accept").
TEST(EngineRulesTest, TheDocsListEveryRule) {
  const std::string doc = [] {
    std::ifstream in(std::string(MODELCALC_SOURCE_DIR) + "/docs/planning.md");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  for (const EngineRule& r : engine_rules()) {
    EXPECT_NE(doc.find("`" + std::string(r.name) + "`"), std::string::npos) << r.name;
  }
}

}  // namespace

// The engine a GPU's prediction uses without --engine: its vendor's. Every catalog GPU of NVIDIA's runs
// TensorRT-LLM (the trtllm-nvidia row accepts it), every AMD one vLLM (TensorRT-LLM refuses CDNA), and
// Gaudi and TPU none (no profile runs on them); a GPU typed by hand takes TensorRT-LLM.
TEST(EngineRulesTest, EachGpuRunsItsVendorsEngineWhenNoneIsNamed) {
  int64_t nvidia = 0, amd = 0, none = 0;
  for (const GpuArchRow& row : gpu_arch_table()) {
    const GpuSpec g = find_gpu(std::string(row.gpu)).value();
    const std::optional<EngineRelease> e = engine_for(std::nullopt, g);
    const VendorEngine& v = default_engine_for(g);
    EXPECT_FALSE(v.why.empty()) << row.gpu;
    switch (gpu_vendor(row.arch)) {
      case GpuVendor::kNvidia:
        ASSERT_TRUE(e) << row.gpu;
        EXPECT_EQ(e->family, EngineFamily::kTrtllm) << row.gpu;
        ++nvidia;
        break;
      case GpuVendor::kAmd:
        ASSERT_TRUE(e) << row.gpu;
        EXPECT_EQ(e->family, EngineFamily::kVllmV1) << row.gpu;
        EXPECT_FALSE(e->version) << row.gpu;  // the current release
        ++amd;
        break;
      default:
        EXPECT_FALSE(e) << row.gpu;
        EXPECT_NE(v.why.find("no engine profile"), std::string_view::npos) << row.gpu;
        ++none;
    }
    // A release named wins on every GPU.
    EXPECT_EQ(engine_for(default_release(Engine::kSglang), g), default_release(Engine::kSglang)) << row.gpu;
  }
  // data/gpus.tsv: 20 NVIDIA parts, 4 AMD (MI250X, MI300X, MI325X, MI355X), 2 Gaudi and 4 TPUs.
  EXPECT_EQ(nvidia, 20);
  EXPECT_EQ(amd, 4);
  EXPECT_EQ(none, 6);
  GpuSpec typed;
  typed.key = "my-gpu";
  EXPECT_EQ(engine_for(std::nullopt, typed), kDefaultEngine);
}

}  // namespace modelcalc
