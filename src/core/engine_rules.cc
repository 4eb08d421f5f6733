#include "modelcalc/engine_rules.h"

#include <algorithm>
#include <array>
#include <string>

#include "modelcalc/deployment.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"

namespace modelcalc {

namespace {

constexpr std::string_view kNvidiaCc = "developer.nvidia.com/cuda-gpus (compute capability)";
constexpr std::string_view kAmdGfx = "rocm.docs.amd.com reference/gpu-arch-specs (LLVM target)";

// Every catalog GPU (data/gpus.tsv) by key; a test holds the two lists equal.
constexpr std::array<GpuArchRow, 30> kGpuArch = {{
    {"a100-40gb-sxm", GpuArch::kAmpere, kNvidiaCc},
    {"a100-80gb-sxm", GpuArch::kAmpere, kNvidiaCc},
    {"a100-80gb-pcie", GpuArch::kAmpere, kNvidiaCc},
    {"a10g", GpuArch::kAmpere, kNvidiaCc},  // sm_86
    {"l4", GpuArch::kAda, kNvidiaCc},
    {"l40s", GpuArch::kAda, kNvidiaCc},
    {"h100-sxm", GpuArch::kHopper, kNvidiaCc},
    {"h800-sxm", GpuArch::kHopper, kNvidiaCc},
    {"h100-pcie", GpuArch::kHopper, kNvidiaCc},
    {"h100-nvl", GpuArch::kHopper, kNvidiaCc},
    {"h200-sxm", GpuArch::kHopper, kNvidiaCc},
    {"h20", GpuArch::kHopper, kNvidiaCc},
    {"gh200", GpuArch::kHopper, kNvidiaCc},
    {"b200", GpuArch::kBlackwell, kNvidiaCc},
    {"gb200", GpuArch::kBlackwell, kNvidiaCc},
    {"b300", GpuArch::kBlackwellUltra, kNvidiaCc},
    {"gb300", GpuArch::kBlackwellUltra, kNvidiaCc},
    {"rtx-4090", GpuArch::kAda, kNvidiaCc},
    {"rtx-5090", GpuArch::kBlackwellRtx, kNvidiaCc},
    {"rtx-pro-6000", GpuArch::kBlackwellRtx, kNvidiaCc},
    {"mi250x", GpuArch::kCdna2, kAmdGfx},
    {"mi300x", GpuArch::kCdna3, kAmdGfx},
    {"mi325x", GpuArch::kCdna3, kAmdGfx},
    {"mi355x", GpuArch::kCdna4, kAmdGfx},
    {"gaudi-2", GpuArch::kGaudi, "intel.com Gaudi 2 / Gaudi 3 product pages"},
    {"gaudi-3", GpuArch::kGaudi, "intel.com Gaudi 2 / Gaudi 3 product pages"},
    {"tpu-v4", GpuArch::kTpu, "cloud.google.com/tpu/docs/system-architecture-tpu-vm"},
    {"tpu-v5e", GpuArch::kTpu, "cloud.google.com/tpu/docs/system-architecture-tpu-vm"},
    {"tpu-v5p", GpuArch::kTpu, "cloud.google.com/tpu/docs/system-architecture-tpu-vm"},
    {"tpu-v6e", GpuArch::kTpu, "cloud.google.com/tpu/docs/system-architecture-tpu-vm"},
}};

constexpr ArchMask kNvAmperePlus = arch_bit(GpuArch::kAmpere) | arch_bit(GpuArch::kAda) | arch_bit(GpuArch::kHopper) |
                                   arch_bit(GpuArch::kBlackwell) | arch_bit(GpuArch::kBlackwellUltra) |
                                   arch_bit(GpuArch::kBlackwellRtx);
constexpr ArchMask kNvAdaPlus = kNvAmperePlus & ~arch_bit(GpuArch::kAmpere);
constexpr ArchMask kHopperBlackwellDc =
    arch_bit(GpuArch::kHopper) | arch_bit(GpuArch::kBlackwell) | arch_bit(GpuArch::kBlackwellUltra);

constexpr std::string_view kVllmHeads =
    "vllm/config/model.py ModelConfig.verify_with_parallel_config (total_num_attention_heads % "
    "tensor_parallel_size)";
constexpr std::string_view kVllmKvHeads =
    "vllm/model_executor/layers/linear.py QKVParallelLinear (num_kv_head_replicas = divide(tp_size, "
    "total_num_kv_heads) when tp_size >= total_num_kv_heads)";
constexpr std::string_view kSglangHeads =
    "python/sglang/srt/models/llama.py LlamaAttention.__init__ (assert total_num_heads % tp_size == 0; KV heads "
    "divided, or replicated when tp_size % total_num_kv_heads == 0), as every SGLang attention";
constexpr std::string_view kTrtllmHeads =
    "tensorrt_llm/_torch/modules/attention.py Attention.__init__ (num_heads // tp_size; KV heads replicated "
    "over tp_size) (recalled, verify)";
constexpr std::string_view kVllmFp8Linear =
    "vllm/model_executor/layers/quantization/utils/fp8_utils.py validate_fp8_block_shape (row-parallel "
    "input_size_per_partition % block_k; column-parallel and merged output partitions % block_n)";
constexpr std::string_view kSglangFp8Linear =
    "python/sglang/srt/layers/quantization/fp8_utils.py validate_fp8_block_shape (the same checks as vLLM's)";
constexpr std::string_view kVllmFp8Moe =
    "vllm/model_executor/layers/quantization/fp8.py Fp8MoEMethod.create_weights (\"The output_size of gate's "
    "and up's weight = 192 is not divisible by weight quantization block_n = 128\"); vllm-project/vllm#17569 "
    "(Qwen3-235B-A22B-FP8 at TP8), vllm-project/vllm#25292 (Qwen3-30B-A3B-FP8 at TP4)";
constexpr std::string_view kSglangFp8Moe =
    "python/sglang/srt/layers/quantization/fp8.py Fp8MoEMethod.create_weights (the same check); "
    "sgl-project/sglang#5858 (Qwen3-235B-A22B-FP8: TP4, or TP8 with expert parallelism)";
constexpr std::string_view kTrtSupport =
    "docs/source/reference/support-matrix.md (TensorRT-LLM: Hardware: NVIDIA Blackwell, Grace Hopper, Hopper, "
    "Ada Lovelace, Ampere)";
constexpr std::string_view kTrtPrecision =
    "docs/source/reference/support-matrix.md (TensorRT-LLM: Precision: Ampere (SM80, SM86) FP32, FP16, BF16, "
    "INT8, INT4 -- no FP8)";
constexpr std::string_view kTrtMoeMatrix =
    "tensorrt_llm/_torch/modules/fused_moe/MOE_DEVELOPER_GUIDE.md (Backend Capability Matrix)";

constexpr std::array<EngineRule, 19> kRules = {{
    // Attention heads over the tensor-parallel group.
    {"tp-heads", Engine::kVllm, RuleCheck::kHeadsDivideTp, Dtype::kBf16, false, 0, 0, "tp",
     "the attention heads divided evenly over the tensor-parallel ranks", kVllmHeads, "a tp that divides the heads"},
    {"tp-heads", Engine::kSglang, RuleCheck::kHeadsDivideTp, Dtype::kBf16, false, 0, 0, "tp",
     "the attention heads divided evenly over the tensor-parallel ranks", kSglangHeads, "a tp that divides the heads"},
    {"tp-heads", Engine::kTrtllm, RuleCheck::kHeadsDivideTp, Dtype::kBf16, false, 0, 0, "tp",
     "the attention heads divided evenly over the tensor-parallel ranks", kTrtllmHeads, "a tp that divides the heads"},
    {"tp-kv-heads", Engine::kVllm, RuleCheck::kKvHeadsOverTp, Dtype::kBf16, false, 0, 0, "tp",
     "the KV heads divided over the tensor-parallel ranks, or each replicated over a whole number of them",
     kVllmKvHeads, "a tp that divides the KV heads or is a multiple of them"},
    {"tp-kv-heads", Engine::kSglang, RuleCheck::kKvHeadsOverTp, Dtype::kBf16, false, 0, 0, "tp",
     "the KV heads divided over the tensor-parallel ranks, or each replicated over a whole number of them",
     kSglangHeads, "a tp that divides the KV heads or is a multiple of them"},
    {"tp-kv-heads", Engine::kTrtllm, RuleCheck::kKvHeadsOverTp, Dtype::kBf16, false, 0, 0, "tp",
     "the KV heads divided over the tensor-parallel ranks, or each replicated over a whole number of them",
     kTrtllmHeads, "a tp that divides the KV heads or is a multiple of them"},
    // FP8 block quantization (weight_block_size 128 x 128).
    {"fp8-block-linear", Engine::kVllm, RuleCheck::kFp8BlockLinear, Dtype::kFp8, true, 128, 0, "tp",
     "each tensor-parallel shard of a block-quantized linear layer a whole number of 128-wide blocks",
     kVllmFp8Linear, "a smaller tp"},
    {"fp8-block-linear", Engine::kSglang, RuleCheck::kFp8BlockLinear, Dtype::kFp8, true, 128, 0, "tp",
     "each tensor-parallel shard of a block-quantized linear layer a whole number of 128-wide blocks",
     kSglangFp8Linear, "a smaller tp"},
    {"fp8-block-experts", Engine::kVllm, RuleCheck::kFp8BlockExperts, Dtype::kFp8, true, 128, 0, "ep",
     "each routed expert's intermediate size per rank a whole number of 128-wide blocks", kVllmFp8Moe,
     "expert parallelism over the whole group (--ep equal to the GPUs the experts spread over: whole experts, "
     "vLLM's --enable-expert-parallel), or a smaller tp"},
    {"fp8-block-experts", Engine::kSglang, RuleCheck::kFp8BlockExperts, Dtype::kFp8, true, 128, 0, "ep",
     "each routed expert's intermediate size per rank a whole number of 128-wide blocks", kSglangFp8Moe,
     "expert parallelism over the whole group (--ep equal to the GPUs the experts spread over: whole experts, "
     "SGLang's --ep-size), or a smaller tp"},
    // Where TensorRT-LLM runs, and in which dtypes.
    {"trtllm-nvidia", Engine::kTrtllm, RuleCheck::kRunsOn, Dtype::kBf16, false, 0, kNvAmperePlus, "gpu",
     "an NVIDIA GPU of the Ampere architecture or later", kTrtSupport, "vLLM or SGLang (--engine)"},
    {"trtllm-fp8-weights", Engine::kTrtllm, RuleCheck::kWeightsDtypeOn, Dtype::kFp8, false, 0, kNvAdaPlus, "math_dtype",
     "Ada Lovelace or later for FP8 weights", kTrtPrecision, "bf16 or int8/int4 weights, or an Ada or later GPU"},
    {"trtllm-fp8-kv", Engine::kTrtllm, RuleCheck::kKvDtypeOn, Dtype::kFp8, false, 0, kNvAdaPlus, "kv_dtype",
     "Ada Lovelace or later for an FP8 KV cache", kTrtPrecision, "a bf16 (or int8) KV cache"},
    {"trtllm-fp8-block-moe", Engine::kTrtllm, RuleCheck::kExpertsDtypeOn, Dtype::kFp8, true, 0,
     arch_bit(GpuArch::kHopper) | arch_bit(GpuArch::kBlackwell) | arch_bit(GpuArch::kBlackwellUltra) |
         arch_bit(GpuArch::kBlackwellRtx),
     "math_dtype", "SM90, SM100/103 or SM120 for FP8 block-scale routed experts (Cutlass SM90/SM120, TRTLLMGen and "
     "DeepGemm SM100/103)",
     "tensorrt_llm/_torch/modules/fused_moe/MOE_DEVELOPER_GUIDE.md (Backend Capability Matrix: FP8 Block "
     "Scales); NVIDIA/TensorRT-LLM#6805 (Qwen3 MoE FP8 on L40, SM89)",
     "a per-tensor FP8 or bf16 checkpoint, or a Hopper or Blackwell GPU"},
    {"trtllm-mxfp4-moe", Engine::kTrtllm, RuleCheck::kExpertsDtypeOn, Dtype::kMxfp4, false, 0, kHopperBlackwellDc,
     "math_dtype", "SM90 or SM100/103 for MXFP4 routed experts (W4A16 Cutlass and Triton SM90, TRTLLMGen SM100/103)",
     kTrtMoeMatrix, "a Hopper or Blackwell data-center GPU"},
    {"trtllm-nvfp4-moe", Engine::kTrtllm, RuleCheck::kExpertsDtypeOn, Dtype::kNvfp4, false, 0, kNvAdaPlus, "math_dtype",
     "SM89 or later for NVFP4 routed experts (Marlin W4A16 SM89-99, Cutlass SM100/103/120/121)", kTrtMoeMatrix,
     "an Ada or later GPU"},
    // DeepSeek Sparse Attention.
    {"dsa-arch", Engine::kVllm, RuleCheck::kDsaOn, Dtype::kBf16, false, 0, kHopperBlackwellDc, "gpu",
     "a Hopper or Blackwell data-center GPU for DeepSeek Sparse Attention",
     "vllm-project/recipes DeepSeek/DeepSeek-V3_2.md (\"Only Hopper and Blackwell data center GPUs are supported "
     "for now\")",
     "a Hopper or Blackwell data-center GPU"},
    {"dsa-arch", Engine::kSglang, RuleCheck::kDsaOn, Dtype::kBf16, false, 0,
     kHopperBlackwellDc | arch_bit(GpuArch::kCdna3) | arch_bit(GpuArch::kCdna4), "gpu",
     "a Hopper, Blackwell, MI300 or MI350 GPU for DeepSeek Sparse Attention",
     "docs.sglang.io basic_usage/deepseek_v32 (images for H200/B200, MI350/MI355, MI300)",
     "a Hopper, Blackwell, MI300 or MI350 GPU"},
    {"dsa-arch", Engine::kTrtllm, RuleCheck::kDsaOn, Dtype::kBf16, false, 0, kHopperBlackwellDc, "gpu",
     "a Hopper or Blackwell data-center GPU for DeepSeek Sparse Attention",
     "examples/models/core/deepseek_v3/README.md (DeepSeek-V3.2-Exp on the PyTorch backend; its sparse "
     "kernels are DeepGEMM's and FlashMLA's, built for SM90 and SM100) (recalled, verify)",
     "a Hopper or Blackwell data-center GPU"},
}};

// The part of a layer a divisibility row cites, and whether it splits.
struct Shard {
  std::string_view part;
  int64_t size = 0, ranks = 1;
};

// A shard a multiple of `block` per rank (and a whole number per rank).
bool shard_fits(const Shard& s, int64_t block) {
  if (s.ranks < 1 || s.size % s.ranks != 0) return false;
  return (s.size / s.ranks) % block == 0;
}

std::optional<EngineRefusal> refuse(const EngineRule& r, const Shard& s) {
  EngineRefusal out;
  out.rule = &r;
  out.part = s.part;
  out.size = s.size;
  out.ranks = s.ranks;
  out.per_rank = s.ranks > 0 ? s.size / s.ranks : 0;
  return out;
}

bool block_fp8(const PreparedDeployment& d, Dtype part) { return d.fp8_block_scales && part == Dtype::kFp8; }

// vLLM's validate_fp8_block_shape over every tensor-parallel linear layer of the block-quantized parts:
// a column-parallel (or merged) output shard and a row-parallel input shard, each a multiple of the block.
// Merged matrices at tp 1 are checked but for their last (vLLM's allowance).
std::optional<EngineRefusal> fp8_linear(const EngineRule& r, const ModelSpec& m, const PreparedDeployment& d) {
  const int64_t tp = d.split.tp, b = r.block;
  const auto check = [&](const Shard& s, bool checked) { return checked && !shard_fits(s, b); };
  if (block_fp8(d, d.attention_dtype) && m.n_head > 0) {
    if (m.is_mla()) {
      const int64_t qk = m.n_embd_head_k, v = m.n_embd_head_v, nope = m.n_embd_head_k - m.n_rot;
      const Shard qa{"the q_a projection's output (q_lora_rank, merged with the KV latent)", m.n_lora_q, 1};
      if (check(qa, m.n_lora_q > 0)) return refuse(r, qa);
      const Shard qb{"the query projection's output (n_head x qk_head_dim)", m.n_head * qk, tp};
      if (check(qb, tp > 1)) return refuse(r, qb);
      const Shard kvb{"the kv_b projection's output (n_head x (qk_nope_head_dim + v_head_dim))",
                      m.n_head * (nope + v), tp};
      if (check(kvb, tp > 1)) return refuse(r, kvb);
      const Shard o{"the output projection's input (n_head x v_head_dim)", m.n_head * v, tp};
      if (check(o, tp > 1)) return refuse(r, o);
    } else {
      const int64_t hd = m.n_embd_head;
      const Shard q{"the query projection's output (n_head x head_dim)", m.n_head * hd, tp};
      if (check(q, true)) return refuse(r, q);  // merged with K and V
      const int64_t kv_ranks = std::min(tp, std::max<int64_t>(1, m.n_head_kv));
      const Shard k{"the key projection's output (n_head_kv x head_dim)", m.n_head_kv * hd, kv_ranks};
      if (check(k, true)) return refuse(r, k);
      const Shard o{"the output projection's input (n_head x head_dim)", m.n_head * hd, tp};
      if (check(o, tp > 1)) return refuse(r, o);
    }
  }
  if (block_fp8(d, d.mlp_dtype)) {
    const Shard mlp{"the dense MLP's intermediate size", m.n_ff, tp};
    if (m.count_layers().dense > 0 && m.n_ff > 0 && check(mlp, tp > 1 || m.ffn_gated)) return refuse(r, mlp);
    const Shard sh{"the shared experts' intermediate size", m.n_ff_shexp * m.n_expert_shared, tp};
    if (m.n_expert_shared > 0 && m.n_ff_shexp > 0 && check(sh, tp > 1 || m.expert_gated)) return refuse(r, sh);
  }
  return std::nullopt;
}

// Fp8MoEMethod.create_weights: intermediate_size_per_partition % block_n, for the experts' own TP
// (the MoE group over EP: 1 when EP holds whole experts).
std::optional<EngineRefusal> fp8_experts(const EngineRule& r, const ModelSpec& m, const PreparedDeployment& d) {
  if (m.n_expert == 0 || m.n_ff_exp == 0 || !block_fp8(d, d.experts_dtype)) return std::nullopt;
  const int64_t expert_tp = d.split.moe_group() / std::max<int64_t>(1, d.split.ep);
  const Shard s{"the routed experts' intermediate size (moe_intermediate_size)", m.n_ff_exp, expert_tp};
  if (!shard_fits(s, r.block)) return refuse(r, s);
  return std::nullopt;
}

bool any_part_in(const PreparedDeployment& d, Dtype t) {
  return d.weight_dtype == t || d.attention_dtype == t || d.mlp_dtype == t || d.experts_dtype == t ||
         d.recurrent_dtype == t;
}

std::optional<EngineRefusal> evaluate(const EngineRule& r, const ModelSpec& m, GpuArch arch,
                                      const PreparedDeployment& d) {
  const int64_t tp = d.split.tp;
  const bool arch_ok = arch == GpuArch::kUnknown || (r.archs & arch_bit(arch)) != 0;
  EngineRefusal out;
  out.rule = &r;
  out.arch = arch;
  switch (r.check) {
    case RuleCheck::kHeadsDivideTp:
      if (m.n_head > 0 && m.n_head % tp != 0) return refuse(r, {"the attention heads (n_head)", m.n_head, tp});
      return std::nullopt;
    case RuleCheck::kKvHeadsOverTp:
      if (m.is_mla() || m.n_head_kv < 1 || m.n_head_kv % tp == 0 || tp % m.n_head_kv == 0) return std::nullopt;
      return refuse(r, {"the KV heads (n_head_kv)", m.n_head_kv, tp});
    case RuleCheck::kFp8BlockLinear: return fp8_linear(r, m, d);
    case RuleCheck::kFp8BlockExperts: return fp8_experts(r, m, d);
    case RuleCheck::kRunsOn: return arch_ok ? std::nullopt : std::optional(out);
    case RuleCheck::kWeightsDtypeOn: return arch_ok || !any_part_in(d, r.dtype) ? std::nullopt : std::optional(out);
    case RuleCheck::kExpertsDtypeOn: {
      const bool applies = m.n_expert > 0 && d.experts_dtype == r.dtype && (!r.block_scales || d.fp8_block_scales);
      return arch_ok || !applies ? std::nullopt : std::optional(out);
    }
    case RuleCheck::kKvDtypeOn: return arch_ok || d.kv_dtype != r.dtype ? std::nullopt : std::optional(out);
    case RuleCheck::kDsaOn: return arch_ok || !m.is_dsa() ? std::nullopt : std::optional(out);
  }
  return std::nullopt;
}

}  // namespace

std::string_view gpu_arch_name(GpuArch a) {
  switch (a) {
    case GpuArch::kUnknown: return "an unknown architecture";
    case GpuArch::kAmpere: return "Ampere (sm_80/sm_86)";
    case GpuArch::kAda: return "Ada Lovelace (sm_89)";
    case GpuArch::kHopper: return "Hopper (sm_90)";
    case GpuArch::kBlackwell: return "Blackwell (sm_100)";
    case GpuArch::kBlackwellUltra: return "Blackwell Ultra (sm_103)";
    case GpuArch::kBlackwellRtx: return "Blackwell RTX (sm_120)";
    case GpuArch::kCdna2: return "CDNA2 (gfx90a)";
    case GpuArch::kCdna3: return "CDNA3 (gfx942)";
    case GpuArch::kCdna4: return "CDNA4 (gfx950)";
    case GpuArch::kGaudi: return "Intel Gaudi";
    case GpuArch::kTpu: return "Google TPU";
  }
  return "?";
}

std::span<const GpuArchRow> gpu_arch_table() { return kGpuArch; }

namespace {

// What each vendor's own published serving runs use (the shared rows' sources, ../shared/reference).
constexpr std::array<VendorEngine, 5> kVendorEngines = {{
    {GpuVendor::kNvidia, kDefaultEngine,
     "the default on NVIDIA GPUs: TensorRT-LLM, NVIDIA's engine, whose performance overview "
     "(NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md) and MLPerf submissions are the most "
     "published rows"},
    {GpuVendor::kAmd, EngineRelease{EngineFamily::kVllmV1, std::nullopt},
     "the default on AMD GPUs: vLLM, which AMD's ROCm performance results (rocm/vllm images, "
     "amd.com/en/developer/resources/rocm-hub/dev-ai/performance-results.html) and AMD's MLPerf Inference v5.1 "
     "submission (closed/AMD) run; InferenceX serves DeepSeek-R1 on MI300X and MI325X with SGLang (--engine "
     "sglang); TensorRT-LLM does not run on AMD"},
    {GpuVendor::kIntel, std::nullopt,
     "no engine profile runs on Intel Gaudi (vLLM's Gaudi plugin and Optimum Habana are not profiled): the "
     "figures are the ceiling alone; --engine names a profile to apply anyway (unvalidated)"},
    {GpuVendor::kGoogle, std::nullopt,
     "no engine profile runs on Google TPUs (vLLM TPU and JetStream are not profiled): the figures are the "
     "ceiling alone; --engine names a profile to apply anyway (unvalidated)"},
    {GpuVendor::kUnknown, kDefaultEngine,
     "the default for a GPU not in the catalog (its vendor is not known): TensorRT-LLM, the profile the most "
     "published rows fit"},
}};

}  // namespace

std::span<const VendorEngine> vendor_engines() { return kVendorEngines; }

const VendorEngine& default_engine_for(const GpuSpec& g) {
  const GpuVendor v = gpu_vendor(gpu_arch(g));
  for (const VendorEngine& e : kVendorEngines) {
    if (e.vendor == v) return e;
  }
  return kVendorEngines.back();
}

std::optional<EngineRelease> engine_for(const std::optional<EngineRelease>& given, const GpuSpec& g) {
  return given ? given : default_engine_for(g).release;
}

EngineFlags engine_flags_for(const std::optional<EngineRelease>& given, const EngineFlags& f, Engine e) {
  return given ? f : flags_for(f, e);
}

Status check_engine_flags_over(const std::optional<EngineRelease>& given, const EngineFlags& f, const ModelSpec& m,
                               std::span<const GpuSpec* const> gpus) {
  const auto own = first_own_flag(f);
  const GpuSpec* first = nullptr;
  std::optional<EngineRelease> first_engine;
  bool own_reached = false;
  for (const GpuSpec* g : gpus) {
    const std::optional<EngineRelease> e = engine_for(given, *g);
    if (!e) continue;
    MC_RETURN_IF_ERROR(check_engine_flags(*e, engine_flags_for(given, f, e->engine()), m));
    if (first == nullptr) first = g, first_engine = e;
    own_reached = own_reached || (own && own->second == e->engine());
  }
  if (first == nullptr) {
    const char* flag = first_engine_flag(f);
    if (flag == nullptr) return Status::Ok();
    return Status::InvalidArgument(flag, "configures a serving engine, and " +
                                             (gpus.size() == 1 ? gpus[0]->name + " has none by default (no engine "
                                                                                 "profile runs on it)"
                                                               : std::string("no engine profile runs on the GPUs "
                                                                             "given")) +
                                             "; give --engine to predict with one anyway");
  }
  if (own && !own_reached) {
    if (given) return check_engine_flags(*given, f, m);  // the named engine does not take it
    const std::string owner(engine_name(own->second));
    return Status::InvalidArgument(own->first, "applies to --engine " + owner + ", and without --engine " +
                                                   first->name + " is predicted with " +
                                                   std::string(engine_profile(*first_engine).display) +
                                                   " (its vendor's default engine); give --engine " + owner);
  }
  return Status::Ok();
}

GpuArch gpu_arch(const GpuSpec& g) {
  for (const GpuArchRow& r : kGpuArch) {
    if (r.gpu == g.key) return r.arch;
  }
  return GpuArch::kUnknown;
}

std::span<const EngineRule> engine_rules() { return kRules; }

std::optional<EngineRefusal> engine_refusal(Engine e, const ModelSpec& m, const GpuSpec& gpu,
                                            const PreparedDeployment& d) {
  const GpuArch arch = gpu_arch(gpu);
  for (const EngineRule& r : kRules) {
    if (r.engine != e) continue;
    if (auto x = evaluate(r, m, arch, d)) {
      x->arch = arch;
      return x;
    }
  }
  return std::nullopt;
}

std::string engine_refusal_message(Engine e, const EngineRefusal& x) {
  const EngineRule& r = *x.rule;
  std::string what;
  if (!x.part.empty()) {
    const bool whole = x.ranks > 0 && x.size % x.ranks == 0;
    what = std::string(x.part) + ", " + std::to_string(x.size) + " over " + std::to_string(x.ranks) +
           (x.ranks == 1 ? " rank" : " ranks") +
           (whole ? " = " + std::to_string(x.per_rank) + " per rank" : ", does not divide");
    if (r.block > 0 && whole) what += ", is not a multiple of the FP8 block " + std::to_string(r.block);
  } else {
    what = std::string("the GPU is ") + std::string(gpu_arch_name(x.arch));
  }
  std::string msg = std::string(engine_display(e)) + " refuses this layout: " + what + "; it needs " +
                    std::string(r.requirement) + " (rule " + std::string(r.name) + "; " + std::string(r.source) + ")";
  if (!r.fix.empty()) msg += "; what it accepts: " + std::string(r.fix);
  return msg;
}

Status check_engine_rules(Engine e, const ModelSpec& m, const GpuSpec& gpu, const PreparedDeployment& d) {
  const auto x = engine_refusal(e, m, gpu, d);
  if (!x) return Status::Ok();
  return Status::InvalidArgument(x->rule->field, engine_refusal_message(e, *x));
}

}  // namespace modelcalc
