// Engine acceptance rules: the layouts a serving engine refuses to load, as
// rows of one table (engine_rules()), each with the engine code path, document
// or issue it comes from. A rule reads the model, the GPU and the prepared
// deployment (its split and the dtypes each part is stored in) and nothing
// else; plan never proposes a layout a row refuses, and the deployment
// commands refuse one given explicitly with --engine (exit 2), naming the row.
//
// What the rows cover (docs/planning.md, "What the engines accept"):
//   * attention heads and KV heads over the tensor-parallel group (KV heads
//     replicated when the group is wider than them), as all three engines
//     shard their attention;
//   * FP8 block quantization (checkpoints with weight_block_size 128 x 128):
//     vLLM and SGLang refuse a tensor-parallel shard whose dimension is not a
//     multiple of the block, in the linear layers and in the routed experts
//     (whole experts under EP pass, whatever the width);
//   * where an engine runs: TensorRT-LLM on NVIDIA Ampere and later only, FP8
//     there from Ada on, its FP8 block-scale and MXFP4 MoE kernels on the
//     architectures its MoE backends list; DeepSeek Sparse Attention on the
//     architectures vLLM's and SGLang's kernels build for.
// What is not a rule here (the engine accepts it, or no source was found):
// TensorRT-LLM's FP8 block-scale MoE ceil-divides its scales instead of
// refusing; vLLM spreads experts unevenly when EP does not divide them (the
// deployment engine still requires it); recurrent mixers' FP8 blocks.
#ifndef MODELCALC_ENGINE_RULES_H_
#define MODELCALC_ENGINE_RULES_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "modelcalc/dtype.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/gpu.h"
#include "modelcalc/status.h"

namespace modelcalc {

struct ModelSpec;
struct GpuSpec;
struct PreparedDeployment;

// "Hopper (sm_90)", "CDNA3 (gfx942)", ...
std::string_view gpu_arch_name(GpuArch a);

using ArchMask = uint32_t;
constexpr ArchMask arch_bit(GpuArch a) { return ArchMask{1} << static_cast<unsigned>(a); }

// One catalog GPU's architecture (data/gpus.tsv keys).
struct GpuArchRow {
  std::string_view gpu;  // catalog key
  GpuArch arch;
  std::string_view source;
};
std::span<const GpuArchRow> gpu_arch_table();
// The architecture of a catalog GPU (by key); kUnknown for any other.
GpuArch gpu_arch(const GpuSpec& g);

// The engine a GPU's prediction uses when --engine names none: its vendor's
// (one sourced row per vendor, vendor_engines()). A vendor no profile runs on
// (Intel Gaudi, Google TPU) has none: the prediction is absent and says why.
struct VendorEngine {
  GpuVendor vendor;
  std::optional<EngineRelease> release;  // unset: no engine profile runs on it
  std::string_view why;                  // one clause with its source, for the engine section
};
std::span<const VendorEngine> vendor_engines();
// The row of `g`'s vendor (gpu_arch(g)); a GPU not in the catalog's table (typed by hand) takes the
// unknown vendor's row: TensorRT-LLM, the profile the most published rows fit.
const VendorEngine& default_engine_for(const GpuSpec& g);
// The release the prediction on `g` uses: `given` when set, else default_engine_for(g).release.
std::optional<EngineRelease> engine_for(const std::optional<EngineRelease>& given, const GpuSpec& g);
// The flags a GPU running `e` takes: all of them when --engine named one (`given`), else less the other
// engines' own (flags_for): each engine's own flag reaches the GPUs that run it.
EngineFlags engine_flags_for(const std::optional<EngineRelease>& given, const EngineFlags& f, Engine e);
// The flags of a command over `gpus` (one or several), before any is evaluated: each GPU's engine checks what
// it takes (check_engine_flags); an engine's own flag must reach a GPU that runs its engine (else refused,
// naming the engine the first GPU runs); where no engine runs on any GPU, every engine flag is refused.
Status check_engine_flags_over(const std::optional<EngineRelease>& given, const EngineFlags& f, const ModelSpec& m,
                               std::span<const GpuSpec* const> gpus);

// What a row checks.
enum class RuleCheck {
  kHeadsDivideTp,     // n_head % tp == 0
  kKvHeadsOverTp,     // n_head_kv % tp == 0, or tp % n_head_kv == 0 (KV heads replicated); not MLA
  kFp8BlockLinear,    // FP8 block checkpoint: each tensor-parallel shard of a linear layer a multiple of `block`
  kFp8BlockExperts,   // FP8 block checkpoint: a routed expert's intermediate size per rank a multiple of `block`
  kRunsOn,            // the GPU's architecture is in `archs`
  kWeightsDtypeOn,    // a part stored in `dtype` needs an architecture in `archs`
  kExpertsDtypeOn,    // routed experts stored in `dtype` (block-scaled when `block_scales`) need `archs`
  kKvDtypeOn,         // a KV cache in `dtype` needs `archs`
  kDsaOn,             // DeepSeek Sparse Attention needs `archs`
};

// One row of the table.
struct EngineRule {
  std::string_view name;       // "fp8-block-experts": what a refusal and the docs cite
  Engine engine;
  RuleCheck check;
  Dtype dtype = Dtype::kBf16;  // k*DtypeOn: the dtype the row is about
  bool block_scales = false;   // kExpertsDtypeOn: only fp8 with 128 x 128 block scales
  int64_t block = 0;           // kFp8Block*: the quantization block (weight_block_size)
  ArchMask archs = 0;          // k*On: the architectures the engine accepts it on
  std::string_view field;      // the field a refusal names: "tp", "ep", "gpu", "kv_dtype", "math_dtype" (weights)
  std::string_view requirement;  // what the engine requires, one clause
  std::string_view source;     // the engine code path, document or issue
  std::string_view fix;        // what lifts it ("" when nothing but another engine or GPU does)
};
std::span<const EngineRule> engine_rules();

// A refusal: the row and the figures it cites (divisibility rows: the part,
// its size, the ranks it is split over and the size per rank).
struct EngineRefusal {
  const EngineRule* rule = nullptr;  // into engine_rules()
  std::string_view part;             // "the routed experts' intermediate size", "" for the others
  int64_t size = 0, ranks = 0, per_rank = 0;
  GpuArch arch = GpuArch::kUnknown;  // the GPU's (architecture rows)
};

// The first row of `e` that refuses the deployment, in table order; nullopt
// when the engine accepts it. Pure, no allocation.
std::optional<EngineRefusal> engine_refusal(Engine e, const ModelSpec& m, const GpuSpec& gpu,
                                            const PreparedDeployment& d);
// The same as a Status: InvalidArgument naming the row's field, the engine,
// the figures, the rule's name and its source.
Status check_engine_rules(Engine e, const ModelSpec& m, const GpuSpec& gpu, const PreparedDeployment& d);
// The message check_engine_rules gives for `r`.
std::string engine_refusal_message(Engine e, const EngineRefusal& r);

}  // namespace modelcalc

#endif  // MODELCALC_ENGINE_RULES_H_
