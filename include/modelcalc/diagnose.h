// The `diagnose` analysis (drill 3): from profiler-style evidence to a regime,
// the computed numbers that settle it, fixes in priority order, one tempting
// optimization that would not help, and the measurements to ask for first.
//
// The rules reason from numbers only: the ceiling computed for this model,
// dtype, batch and GPU; the measurement as a fraction of it; utilizations;
// the share of the step the GPU sits idle; transient allocations rebuilt from
// the shapes. Free text in the evidence (`description`) is never read by them.
//
// Two views. With a Scenario (a model shape, a GPU, decode) every ceiling,
// regime and fix is the deployment engine's: a fix that changes the setup
// (quantize, shrink the KV, batch, shard, scale out, fp8) is the engine
// evaluated on the varied scenario (scenario.h), carried as Fix::variation.
// Without one (drill 3's evidence gives a parameter count, not a shape) the
// numbers are the seed's textbook formulas: the drill's teaching view.
#ifndef MODELCALC_DIAGNOSE_H_
#define MODELCALC_DIAGNOSE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/dtype.h"
#include "modelcalc/deployment.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/scenario.h"
#include "modelcalc/status.h"

namespace modelcalc {

// ---------------------------------------------------------------- formulas
// Pure formulas this analysis adds to the core (include/modelcalc/formulas.h).

// Bytes of one layer's materialized attention score matrix for a prompt of T
// tokens: heads x T^2 x b (what an unfused kernel writes before the softmax).
constexpr double attention_score_bytes(double heads, double tokens, double bytes_per_elem) {
  return heads * tokens * tokens * bytes_per_elem;
}
// Amdahl: the speedup from removing a share s of the time entirely: 1 / (1 - s).
// REQUIRES: 0 <= s < 1.
constexpr double amdahl_speedup(double removed_share) { return 1.0 / (1.0 - removed_share); }
// Share of a timeline that is idle gaps: gap / (kernel + gap).
constexpr double timeline_gap_share(double kernel_time, double gap_time) {
  return gap_time / (kernel_time + gap_time);
}

enum class Phase { kDecode, kPrefill, kTraining };
std::string_view phase_name(Phase p);  // "decode", "prefill", "training"

// A [lo, hi] range as profilers report it (e.g. kernel durations 6-30 us).
struct Range {
  double lo = 0;
  double hi = 0;
  double mid() const { return (lo + hi) / 2; }
};

// What the evidence says about the model. Every field optional; a full
// ModelSpec (preset or config.json) may stand in for the shape.
struct EvidenceModel {
  std::optional<double> params;   // N, total parameters
  std::optional<Dtype> dtype;     // weight dtype (also activations and KV)
  std::optional<int64_t> layers, hidden, heads, kv_heads, head_dim;
  std::optional<ModelSpec> spec;  // when set, the shape fields come from it
};

struct Measured {
  std::optional<double> tokens_per_s_per_sequence;  // decode speed one user sees
  std::optional<double> tokens_per_s_aggregate;     // all sequences together
  std::optional<double> ttft_s;                     // time to first token, s
  std::optional<double> itl_s;                      // inter-token latency, s
};

struct Profile {
  std::optional<double> flop_utilization;       // achieved FLOP/s / peak, 0..1
  std::optional<double> bandwidth_utilization;  // achieved HBM B/s / peak, 0..1
  // Share of kernel time by kind, each 0..1, summing to at most 1. Kinds:
  // gemm, attention (compute); norm, elementwise, cast, softmax, copy
  // (memory-bound); communication; other.
  std::map<std::string, double> kernel_time_fraction;
  std::optional<int64_t> kernels_per_step;
  std::optional<Range> kernel_us;  // duration of one kernel, microseconds
  std::optional<Range> gap_us;     // idle gap between kernels, microseconds
  std::optional<double> peak_transient_bytes;  // peak allocation above weights
};

struct Evidence {
  std::string description;  // free text; echoed, never read by the rules
  std::optional<Phase> phase;
  EvidenceModel model;
  std::optional<std::string> gpu;  // catalog name; resolving it is the caller's job
  std::optional<int64_t> gpus;     // GPUs the model runs on (default 1)
  std::optional<int64_t> batch;    // sequences per step (training: microbatch)
  std::optional<int64_t> context;  // tokens of context per sequence (training: sequence length)
  std::optional<int64_t> prompt_tokens;
  Measured measured;
  Profile profile;
};

// The kernel kinds Profile::kernel_time_fraction accepts.
const std::vector<std::string>& kernel_kinds();
// Kinds that move bytes and do next to no FLOPs.
bool is_memory_bound_kind(std::string_view kind);

// Refuses impossible evidence: a utilization or fraction outside 0..1, a
// negative or zero time, rate or count, a range with lo > hi, kernel-time
// fractions summing above 1 by more than rounding (0.01), KV heads not
// dividing heads. The Status names the evidence field (JSON path).
Status validate(const Evidence& e);

// Parses an evidence file (JSON; the schema of Evidence, `model` as an object).
// Unknown fields are errors naming them; `source` names the input in messages.
Result<Evidence> parse_evidence_json(std::string_view json_text, std::string_view source);

// The engine's four regimes (deployment.h DeploymentRegime, spelled the same)
// and one only a measurement reveals: overhead-bound, the GPU idle between
// kernels (drill 3 case E), which no ceiling predicts.
enum class Regime { kBandwidthBound, kComputeBound, kCapacityBound, kCommunicationBound, kOverheadBound };
std::string_view regime_name(Regime r);  // "bandwidth-bound", ..., "overhead-bound"

// Every number the rules computed; unset when the evidence did not allow it.
// Units: bytes, seconds, tokens/s, FLOP; fractions 0..1; factors are ratios.
struct DiagnosisNumbers {
  // The machine (per model instance: one GPU's figures × gpus).
  double bandwidth = 0, peak_flops = 0, capacity = 0, ridge = 0;
  double batch = 1, context = 0;  // as used (defaults applied)
  double layers = 0, heads = 0, d_kv = 0, d_attn = 0;  // the shape as used; 0 = not given
  std::optional<double> params, bytes_per_param;
  std::optional<double> kv_bytes_per_elem;  // the KV cache's bytes per element (the weights' dtype, or 16-bit)
  std::optional<double> weight_bytes;      // N × b
  std::optional<double> kv_bytes_per_seq;  // at `context` tokens
  // Sequences HBM can hold at `context`: the deployment engine's (reserve,
  // workspace, shards) when given, else floor((capacity - W) / KV). Advice
  // never proposes a larger batch.
  std::optional<double> max_sequences;
  // Set when the decode ceilings came from the deployment engine: its step per GPU.
  bool modeled = false;                                // the engine's view (a Scenario was given)
  std::optional<double> modeled_flops, modeled_bytes;  // per GPU, per stage
  std::optional<double> modeled_compute_s, modeled_memory_s, modeled_comm_s;

  // Decode. The textbook forms below; with the engine (modeled) each is the
  // engine's: step_bytes per GPU, ceilings from its step, compute ceiling
  // from its FLOPs (active parameters, attention, lm_head), the int8/int4/fp8
  // ceilings from the varied scenarios.
  std::optional<double> step_bytes;                 // W + B × KV
  std::optional<double> bw_ceiling_aggregate;       // B × bw / (W + B × KV)
  std::optional<double> bw_ceiling_per_seq;         // bw / (W + B × KV)
  std::optional<double> compute_ceiling_aggregate;  // peak / 2N
  std::optional<double> step_intensity;             // 2 N B / step_bytes, FLOP/byte
  std::optional<double> ceiling_aggregate;          // min of the two ceilings
  std::optional<double> measured_aggregate, measured_per_seq;
  std::optional<double> implied_flop_utilization;   // mfu from the measured rate
  std::optional<double> profiler_flop_excess;       // profiled / implied FLOP utilization
  // Weight-only quantization and fp8 compute, aggregate decode ceilings.
  std::optional<double> int8_ceiling_aggregate, int4_ceiling_aggregate, fp8_ceiling_aggregate;
  std::optional<double> int8_step_s, int4_step_s, fp8_step_s;  // the engine's step of each (modeled)
  std::optional<double> fp8_peak_flops;

  // Prefill.
  std::optional<double> prefill_tokens;
  std::optional<double> prefill_linear_flops, prefill_attention_flops, prefill_flops;
  std::optional<double> ttft_floor_s;       // prefill FLOPs / peak
  std::optional<double> score_matrix_bytes; // h × T² × b, one layer
  std::optional<double> transient_over_scores;  // peak transient / score matrix
  std::optional<double> score_traffic_s;    // 4 passes × S × L / bw
  std::optional<double> attention_time_s;   // attention share × TTFT
  std::optional<double> attention_floor_s;  // attention FLOPs / peak
  std::optional<double> ttft_fused_s;       // TTFT − (attention time − floor)
  std::optional<double> peak_memory_bytes;  // W + transient
  std::optional<double> itl_floor_s;        // (W + KV(T)) / bw at batch 1
  std::optional<double> itl_fraction;       // floor / measured ITL

  // Training.
  std::optional<double> tokens_per_step;    // batch × context
  std::optional<double> train_ceiling_tps;  // peak / 6N

  // The measurement against its ceiling: decode rate / ceiling, TTFT floor /
  // TTFT, training rate / ceiling. May exceed 1 (a finding, not an error).
  std::optional<double> fraction_of_ceiling;
  // Utilizations as used (given, else derived from the measurement).
  std::optional<double> compute_fraction, bandwidth_fraction;

  // Timeline of one step.
  std::optional<double> kernel_time_s, gap_time_s;  // kernels × mid duration
  std::optional<double> gap_share, gap_share_lo, gap_share_hi;  // gaps / (kernels + gaps)
  std::optional<double> step_time_s;       // measured: 1 / per-sequence tokens/s
  std::optional<double> busy_share;        // kernel time / step time
  std::optional<double> idle_share;        // 1 − busy (or the timeline gap share)
  std::optional<double> ideal_step_time_s; // step bytes / bw
  std::optional<double> speedup_no_idle;   // step / kernel time
  std::optional<double> speedup_infinite_gpu;  // step / (step − kernel time)

  // Kernel mix.
  std::optional<double> memory_bound_share;   // norm + elementwise + cast + softmax + copy
  std::optional<double> compute_kernel_share; // gemm + attention
  std::optional<double> amdahl_memory_bound;  // 1 / (1 − memory-bound share)
  std::optional<double> in_kernel_flop_rate;  // FLOP utilization / compute kernel share

  // The evidence as the rules read it (they never read Evidence itself).
  double gpus = 1;                                  // GPUs the model runs on
  std::optional<double> ttft_s, itl_s;              // measured
  std::optional<double> flop_utilization_profiled;  // profile.flop_utilization as given
  std::optional<double> peak_transient_bytes;
  std::optional<int64_t> kernels_per_step;
  std::optional<double> kernel_us_mid, gap_us_lo, gap_us_hi;   // microseconds
  std::optional<double> attention_share, gemm_share, cast_share;  // of kernel time, as given
};

// What the rules conclude, as codes: the core says WHAT (a code) and cites the
// numbers; src/report/diagnose_text.cc words it. One enum for every kind of
// statement; the prefix says where it goes (detail, settled-by, finding, fix,
// reject, ask-first, ignored).
enum class DxCode {
  // Detail: the one-line verdict.
  kDetailWeightsDoNotFit, kDetailTransientDoesNotFit, kDetailKvDoesNotFit, kDetailAboveCeilingDecode,
  kDetailAboveCeilingPrefill, kDetailAboveCeilingTraining, kDetailBandwidthBound, kDetailComputeBound,
  kDetailOverhead, kDetailSuspectedOverhead, kDetailUnfusedAttention, kDetailKernelsSlow, kDetailNoMeasurement,
  // Settled by: the observation that settles it.
  kSettledWeightsDoNotFit, kSettledTransientDoesNotFit, kSettledKvDoesNotFit, kSettledAboveCeiling,
  kSettledBandwidthMeasured, kSettledBandwidthEngine, kSettledBandwidthUtil, kSettledCompute, kSettledOverheadBusy, kSettledOverheadGaps,
  kSettledBothFarBelow, kSettledScoresMatch, kSettledKernelsSlow, kSettledIntensity, kSettledPhaseAlone,
  // Findings.
  kFindingAboveCeilingDecode, kFindingAboveCeilingPrefill, kFindingAboveCeilingTraining, kFindingInKernel,
  kFindingMemoryBoundShare, kFindingProfilerExcess, kFindingLaunchGaps, kFindingScoreTraffic, kFindingItlNearFloor,
  // Fixes.
  kFixShardWeights, kFixQuantizeToFit, kFixFusedAttentionMemory, kFixChunkedPrefill, kFixShrinkKvToFit,
  kFixCapBatch, kFixReconcileDecode, kFixReconcilePrefill, kFixReconcileTraining, kFixCutBytes,
  kFixQuantizeForSpeed, kFixShrinkKvRead, kFixSpeculative, kFixSpeculativeMtp, kFixBatch, kFixFuseMemoryBound, kFixRemoveCasts,
  kFixFp8Compute, kFixFp8Gemms, kFixFindExtraFlops, kFixScaleOut, kFixSplitPrefillFloor, kFixCudaGraphs,
  kFixKernelFusion, kFixTakeTimeline, kFixGraphsThenFusion, kFixFusedAttention, kFixProfileGemms,
  kFixSplitPrefillWhole, kFixProfileKernels,
  // Reject: the tempting optimization that would not help.
  kRejectFasterWhileNoFit, kRejectFasterWhileOom, kRejectFasterWhileKvCapped, kRejectAboveCeiling,
  kRejectComputeIdle, kRejectComputeKernels, kRejectInt4ForSpeed, kRejectQuantForSpeed, kRejectLargerMicrobatch,
  kRejectQuantForPrefill, kRejectBiggerGpu, kRejectQuantFirst, kRejectFasterGemmsFirst, kRejectSpecOrQuantPrefill,
  // Ask first: a measurement the evidence lacks.
  kAskUtilizations, kAskTimeline, kAskTimelineNoUtilization,
  // Ignored: simplifications, and why they are safe.
  kIgnoredDtypeAssumed, kIgnoredGpusAsOne, kIgnoredModeledCeiling, kIgnoredKvNoShape, kIgnoredKvNoContext,
  kIgnoredMoe, kIgnoredPrefillFlops, kIgnoredPhaseInferred, kIgnoredEngineNoOverheads,
};

// A code and the numbers its sentence cites, in the order it cites them; NaN
// marks a number the evidence did not allow (the sentence then leaves that
// clause out). Which numbers each code cites: diagnose.cc, where it is made.
struct DxStatement {
  DxCode code = DxCode::kDetailNoMeasurement;
  std::vector<double> v;
  // Same code, same numbers; a NaN ("not known") equals a NaN.
  bool operator==(const DxStatement& o) const {
    if (code != o.code || v.size() != o.v.size()) return false;
    for (size_t i = 0; i < v.size(); ++i) {
      const bool both_unknown = v[i] != v[i] && o.v[i] != o.v[i];
      if (!(v[i] == o.v[i]) && !both_unknown) return false;
    }
    return true;
  }
};

struct Fix {
  DxStatement what;               // the action and its expected effect
  std::optional<double> speedup;  // upper bound or estimate of the gain, when computed
  // With the engine: the change the fix makes and the engine's figures for the
  // varied scenario (what `size` gives for the change's flags). Unset for a
  // fix that is no change of the setup (fusion, CUDA graphs, speculative
  // decoding, profiling) or in the textbook view.
  std::optional<Variation> variation = std::nullopt;
};

struct Diagnosis {
  Regime regime = Regime::kBandwidthBound;
  bool confirmed = true;    // false: inferred without the measurement that settles it
  DxStatement detail;       // one line, e.g. "decode, bandwidth-bound at 78 % of its ceiling"
  DxStatement settled_by;   // the observation that settles it
  Phase phase = Phase::kDecode;
  bool phase_inferred = false;
  bool above_ceiling = false;  // the measurement beats the computed ceiling
  DiagnosisNumbers n;
  std::vector<DxStatement> findings;  // computed observations, in order of weight
  std::vector<Fix> fixes;             // priority order
  std::optional<DxStatement> reject;
  std::optional<Variation> reject_variation;  // the rejected change, evaluated (engine view)
  std::vector<DxStatement> ask_first;  // only what the evidence lacks
  std::vector<DxStatement> ignored;    // simplifications, and why they are safe
  // The engine's view, when a Scenario was given: the scenario and the engine on it.
  std::optional<Scenario> scenario;
  std::optional<DeploymentAnalysis> modeled;
};

// The acceptance rate diagnose assumes when it prices the model's own MTP
// drafter (one draft token): below the 85-90 % the DeepSeek-V3 report measured
// for its second token, so the gain is not overstated.
inline constexpr double kAssumedMtpAcceptance = 0.8;

// Thresholds the rules use (fractions of a ceiling or of a step).
inline constexpr double kNearCeiling = 0.5;    // at or above: that roof binds
inline constexpr double kAboveCeiling = 1.05;  // measured above ceiling by more than rounding
inline constexpr double kIdleBound = 0.3;      // idle share of a step that makes it overhead-bound
inline constexpr double kRoomForOverhead = 0.7;  // below this, ask for the timeline

// REQUIRES: validate(e).ok(). `gpu` may be empty (zero bandwidth and peak):
// then no ceiling is computed and the diagnosis leans on the utilizations.
// `scenario`, when given, is the same setup for the deployment engine (its
// model, GPU, split, dtypes, context and batch): for a decode diagnosis the
// ceilings the evidence is compared with, the regime's numbers and every fix
// that changes the setup are then the engine's (experts actually read,
// embedding rows, lm_head, replication, communication), the same figures
// `size` reports. The engine refusing the scenario leaves the textbook view.
Diagnosis diagnose(const Evidence& e, const GpuSpec& gpu, const Scenario* scenario = nullptr);

}  // namespace modelcalc

#endif  // MODELCALC_DIAGNOSE_H_
