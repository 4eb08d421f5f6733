// From the shared deployment flags (inputs.h DeploymentFlags) to the deployment
// engine's options (modelcalc/deployment.h), the same way in every command.
#ifndef MODELCALC_DEPLOYMENT_OPTIONS_H_
#define MODELCALC_DEPLOYMENT_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "inputs.h"
#include "modelcalc/deployment.h"
#include "modelcalc/scenario.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/serving.h"
#include "modelcalc/status.h"

namespace modelcalc {

// --help defaults of the split and engine flags, shared by every command.
inline constexpr const char* kTpDefault = "--gpus / (pp x dp); must divide the heads";
inline constexpr const char* kPpDefault = "1; must divide the layers";
inline constexpr const char* kEpDefault =
    "1; experts spread inside the TP group (divides --tp and the experts); with --dp-attention all of the replica's "
    "GPUs (divides --gpus)";
inline constexpr const char* kDpDefault = "1; replicas of the tp x pp group, --gpus = tp x pp x dp";
inline constexpr const char* kComputeDtypeDefault = "fp8 weights -> fp8, int8/int4 weight-only -> bf16, else --dtype";
inline constexpr const char* kKvDtypeDefault =
    "the KV dtype a quantized checkpoint states, else 16-bit as the weights (bf16; fp16 or fp32 with such weights), "
    "not following int8/int4/fp8";
inline constexpr const char* kReserveDefault =
    "0 for the ceiling (driver-exposed memory less the weights); given, it also sets the engine's fraction "
    "(1 - reserve) unless an engine flag does";
inline constexpr const char* kPromptDefault = "the context";
inline constexpr const char* kContextDefault = "8,192 tokens, or the model's max positions if smaller";
inline constexpr const char* kDtypeDefault = "a quantized checkpoint's own (quantization_config), else bf16";

// The split and engine flags every deployment command shares, with the same
// defaults: --tp --pp --ep --dp --compute-dtype --kv-dtype, and the layout
// flags (add_layout_flags) into d->layout.
void add_engine_flags(FlagSet& flags, DeploymentFlags* d);

// The engine's options: split from --gpus/--tp/--pp/--ep/--dp (tp defaults to
// gpus / (pp x dp); tp x pp x dp must equal --gpus), --compute-dtype,
// --reserve (default 10 %), --prompt; weights, KV, context and batch as the
// command resolved them. Errors name the flag.
Result<DeploymentOptions> deployment_options(const DeploymentFlags& d, Dtype weights, Dtype kv, int64_t context,
                                             int64_t batch);

// The engine flags: --engine and each engine's own spellings.
struct EngineCliFlags {
  std::string engine;  // empty: trtllm
  EngineFlags flags;
};
// The engines' memory fractions: in (0, 1], "0.9" or "90%"; errors name `flag`.
Result<double> engine_fraction(std::string_view text, std::string_view flag);
// --engine --gpu-memory-utilization --kv-cache-free-gpu-mem-fraction
// --mem-fraction-static --max-model-len --max-num-batched-tokens --max-num-seqs
// --allow-long-max-model-len, and --block-size unless the command declares its own.
void add_engine_profile_flags(FlagSet& flags, EngineCliFlags* e, bool block_size = true);
// The engine --engine names (default trtllm); the error names --engine.
Result<EngineRelease> cli_engine(const EngineCliFlags& e);
// The flags with --reserve folded in (it sets the engine's fraction when no engine flag does).
EngineFlags cli_engine_flags(const EngineCliFlags& e, const DeploymentFlags& d);
// The prediction beside `a` through the flags; errors name the flag.
Result<DeploymentPrediction> predict_flags_deployment(const ModelSpec& m, const GpuSpec& gpu,
                                                      const DeploymentAnalysis& a, const EngineCliFlags& e,
                                                      const DeploymentFlags& d, const EngineWorkload& w = {});

// plan: without --dp-attention and --redundant-experts (plan searches the
// layout itself), with --disaggregated and --kv-transfer-overlap.
void add_layout_flags(FlagSet& flags, LayoutCliFlags* f, bool for_plan = false);
// One replica of the DP-attention layout: `replica` GPUs in replica / tp
// attention groups of tp GPUs, experts over `ep` ranks, dp whole replicas.
// Errors name --gpus (replica not a multiple of tp).
Result<Parallelism> dp_attention_split(int64_t replica, int64_t tp, int64_t ep, int64_t dp);

// The first layout flag given, as typed ("--dp-attention", ...); REQUIRES: l.any().
const char* first_layout_flag(const LayoutCliFlags& l);
// Applies the layout flags to `o` (deployment_options' result) for model `m`.
// Under --dp-attention the split is re-read: --gpus is the replica's GPU
// count, --tp the tensor ranks inside each attention group (default 1),
// attn_dp = gpus / tp, --ep defaults to the replica's GPUs for a model with
// routed experts, --dp whole replicas. `draft` receives a --draft-model's shape
// (it must outlive the analysis: o->spec.draft points at it). Errors name the flag.
Status apply_layout_flags(const LayoutCliFlags& l, const DeploymentFlags& d, const ModelSpec& m, DeploymentOptions* o,
                          ModelSpec* draft);
// deployment_options, then d.layout applied for model `m` (apply_layout_flags).
Result<DeploymentOptions> deployment_options(const DeploymentFlags& d, const ModelSpec& m, Dtype weights, Dtype kv,
                                             int64_t context, int64_t batch, ModelSpec* draft);
// The serving engine a scenario carries (scenario.h) from the flags: its
// prediction then stands beside every varied scenario's ceiling. Errors name --engine.
Result<ScenarioEngine> scenario_engine(const EngineCliFlags& e, const DeploymentFlags& d,
                                       const EngineWorkload& w = {});

// prepare + evaluate through the flags: as analyze_deployment_full, errors naming flags.
Result<DeploymentAnalysis> analyze_flags_deployment(const ModelSpec& m, const GpuSpec& gpu,
                                                    const DeploymentOptions& o,
                                                    std::string_view context_flag = "--seq");

}  // namespace modelcalc

#endif  // MODELCALC_DEPLOYMENT_OPTIONS_H_
