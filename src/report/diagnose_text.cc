#include "diagnose_text.h"

#include <cmath>
#include <cstdint>
#include <fmt/format.h>

#include "deployment_report.h"
#include "format.h"
#include "report.h"

namespace modelcalc {

namespace {

// A whole count carried as a double, as its integer prints.
std::string whole(double v) {
  return std::fabs(v) < 9e15 ? fmt::format("{}", static_cast<int64_t>(v)) : fmt::format("{}", v);
}
bool known(double v) { return !std::isnan(v); }

// What a measurement above its ceiling probably leaves out (the numbers of
// kFindingAboveCeiling* / kFixReconcile*), as one "; "-separated list.
std::string leaves_out(Phase phase, const std::vector<double>& v) {
  std::vector<std::string> items;
  if (phase == Phase::kDecode) {
    if (known(v[0])) {
      items.push_back(
          fmt::format("quantized weights: the rate needs ≤ {} of weights per step, {} B per parameter "
                      "(the evidence says {} B)",
                      format_brief(v[0], Unit::kBytes), fmt_sig(v[1], 3), fmt_sig(v[2], 3)));
    }
    items.push_back(fmt::format("speculative decoding: ≥ {} tokens accepted per weight read", fmt_sig(v[3], 3)));
    items.push_back(fmt::format("a different GPU: the stated bytes need ≥ {}/s of bandwidth (given {}/s)",
                                fmt_si(v[4], "B"), fmt_si(v[5], "B")));
    items.push_back(fmt::format("batching: an aggregate over ≥ {} sequences reported as one", fmt_sig(v[6], 3)));
  } else if (phase == Phase::kPrefill) {
    items.push_back("prefix caching: only part of the prompt was computed");
    items.push_back(fmt::format("a different or larger machine: the FLOPs need ≥ {} (given {})",
                                fmt_si(v[0], "FLOP/s"), fmt_si(v[1], "FLOP/s")));
    items.push_back("fewer prompt tokens than stated");
  } else {
    items.push_back("fewer FLOPs per token than 6N: a MoE's active parameters, not its total");
    items.push_back("more GPUs than stated");
    items.push_back("a lower-precision peak (fp8) than the bf16 one assumed");
  }
  std::string list;
  for (const std::string& x : items) list += (list.empty() ? "" : "; ") + x;
  return list;
}

}  // namespace

DxWords dx_words(const DxStatement& s, const Diagnosis& d) {
  const std::vector<double>& v = s.v;
  const std::string phase(phase_name(d.phase));
  const std::string regime(regime_name(d.regime));
  switch (s.code) {
    // ------------------------------------------------------------ details
    case DxCode::kDetailWeightsDoNotFit:
      return {fmt::format("{}, capacity-bound: the {} of weights do not fit in {}", phase,
                          format_brief(v[0], Unit::kBytes), format_brief(v[1], Unit::kBytes))};
    case DxCode::kDetailTransientDoesNotFit:
      return {fmt::format("{}, capacity-bound: weights + transient = {} exceed {}", phase,
                          format_brief(v[0], Unit::kBytes), format_brief(v[1], Unit::kBytes))};
    case DxCode::kDetailKvDoesNotFit:
      return {fmt::format("decode, capacity-bound: only {} sequences' KV fit beside the weights, batch is {}",
                          whole(v[0]), v[1])};
    case DxCode::kDetailAboveCeilingDecode:
      return {
          fmt::format("decode at {} of its computed ceiling ({} vs {} per sequence): the evidence leaves "
                      "something out",
                      format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kTokensPerS),
                      format_brief(v[2], Unit::kTokensPerS))};
    case DxCode::kDetailAboveCeilingPrefill:
      return {fmt::format("prefill TTFT {} is below its floor {} at peak FLOP/s: the evidence leaves something out",
                          format_brief(v[0], Unit::kSeconds), format_brief(v[1], Unit::kSeconds))};
    case DxCode::kDetailAboveCeilingTraining:
      return {fmt::format("training at {} of its 6N FLOP ceiling: the evidence leaves something out",
                          format_brief(v[0], Unit::kFraction))};
    case DxCode::kDetailBandwidthBound:
      return {fmt::format("{}, {} at {} of its ceiling", phase, regime, format_brief(v[0], Unit::kFraction))};
    case DxCode::kDetailComputeBound:
      return {fmt::format("{}, compute-bound at {} of peak FLOP/s", phase, format_brief(v[0], Unit::kFraction))};
    case DxCode::kDetailOverhead:
      return {fmt::format("{}, overhead-bound: the GPU is idle {} of the step{}", phase,
                          format_brief(v[0], Unit::kFraction),
                          known(v[1]) ? ", at " + format_brief(v[1], Unit::kFraction) + " of its ceiling" : "")};
    case DxCode::kDetailSuspectedOverhead:
      return {
          fmt::format("{}, overhead-bound (suspected): at {} of the nearest roof, neither bytes nor FLOPs explain "
                      "the time; the timeline confirms it",
                      phase, format_brief(v[0], Unit::kFraction))};
    case DxCode::kDetailUnfusedAttention:
      return {
          fmt::format("prefill, compute-bound at only {} of peak: unfused attention materializes the {} score "
                      "matrix",
                      format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kBytes))};
    case DxCode::kDetailKernelsSlow:
      return {fmt::format("{}, {} by the shapes, but busy kernels reach only {} of the roof: the kernels are slow",
                          phase, regime, format_brief(v[0], Unit::kFraction))};
    case DxCode::kDetailNoMeasurement:
      return {fmt::format("{}: {} by the shapes; no measurement to compare with", phase, regime)};
    // ------------------------------------------------------------ settled by
    case DxCode::kSettledWeightsDoNotFit:
      return {fmt::format("weights N × b = {} > capacity {}", format_brief(v[0], Unit::kBytes),
                          format_brief(v[1], Unit::kBytes))};
    case DxCode::kSettledTransientDoesNotFit:
      return {fmt::format("W + peak transient = {} > capacity {}", format_brief(v[0], Unit::kBytes),
                          format_brief(v[1], Unit::kBytes))};
    case DxCode::kSettledKvDoesNotFit:
      return {fmt::format("floor((capacity − W) / KV) = floor(({} − {}) / {}) = {} < batch {}",
                          format_brief(v[0], Unit::kBytes), format_brief(v[1], Unit::kBytes),
                          format_brief(v[2], Unit::kBytes), whole(v[3]), v[4])};
    case DxCode::kSettledAboveCeiling:
      return {fmt::format("the measurement is {} the computed ceiling", format_brief(v[0], Unit::kFactor))};
    case DxCode::kSettledBandwidthMeasured:
      return {fmt::format("measured {} vs ceiling bw / (W + B × KV) = {} per sequence: {}; FLOP use {}",
                          format_brief(v[0], Unit::kTokensPerS), format_brief(v[1], Unit::kTokensPerS),
                          format_brief(v[2], Unit::kFraction), format_brief(v[3], Unit::kFraction))};
    case DxCode::kSettledBandwidthEngine:
      return {fmt::format("measured {} vs the deployment engine's {} per sequence: {}; the step's memory time is {} "
                          "of {}; FLOP use {}",
                          format_brief(v[0], Unit::kTokensPerS), format_brief(v[1], Unit::kTokensPerS),
                          format_brief(v[2], Unit::kFraction), format_brief(v[4], Unit::kSeconds),
                          format_brief(v[5], Unit::kSeconds), format_brief(v[3], Unit::kFraction))};
    case DxCode::kSettledBandwidthUtil:
      return {fmt::format("HBM bandwidth at {} of peak while FLOP use is {}", format_brief(v[0], Unit::kFraction),
                          format_brief(v[1], Unit::kFraction))};
    case DxCode::kSettledCompute: {
      std::string t = known(v[1])
                          ? fmt::format("FLOP use {} against bandwidth use {}", format_brief(v[0], Unit::kFraction),
                                        format_brief(v[1], Unit::kFraction))
                          : fmt::format("FLOP use {} of peak", format_brief(v[0], Unit::kFraction));
      if (known(v[3])) {
        t += fmt::format("; batch {} puts the step at {} FLOP/byte vs ridge {}", v[2], fmt_sig(v[3], 3),
                         fmt_sig(v[4], 3));
      }
      return {t};
    }
    case DxCode::kSettledOverheadBusy:
      return {fmt::format("{} kernels × {} µs = {} of kernel time in a measured {} step: busy {}, idle {}", whole(v[0]),
                          fmt_sig(v[1], 3), format_brief(v[2], Unit::kSeconds), format_brief(v[3], Unit::kSeconds),
                          format_brief(v[4], Unit::kFraction), format_brief(v[5], Unit::kFraction))};
    case DxCode::kSettledOverheadGaps:
      return {fmt::format("{} kernels with {}–{} µs gaps: gaps are {} of the timeline ({}–{})", whole(v[0]),
                          fmt_sig(v[1], 3), fmt_sig(v[2], 3), format_brief(v[3], Unit::kFraction),
                          format_brief(v[4], Unit::kFraction), format_brief(v[5], Unit::kFraction))};
    case DxCode::kSettledBothFarBelow:
      return {fmt::format("FLOP use {} and bandwidth use {}: both far below their roofs",
                          known(v[0]) ? format_brief(v[0], Unit::kFraction) : "unknown",
                          known(v[1]) ? format_brief(v[1], Unit::kFraction) : "unknown")};
    case DxCode::kSettledScoresMatch:
      return {fmt::format("heads × T² × b = {} matches the {} peak transient ({})", format_brief(v[0], Unit::kBytes),
                          format_brief(v[1], Unit::kBytes), format_brief(v[2], Unit::kFactor))};
    case DxCode::kSettledKernelsSlow:
      return {fmt::format("idle share {} is small, so the time is inside kernels running at {} of the roof",
                          format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kFraction))};
    case DxCode::kSettledIntensity:
      return {fmt::format("step intensity {} FLOP/byte vs ridge {}", fmt_sig(v[0], 3), fmt_sig(v[1], 3))};
    case DxCode::kSettledPhaseAlone: return {"the phase alone"};
    // ------------------------------------------------------------ findings
    case DxCode::kFindingAboveCeilingDecode:
    case DxCode::kFindingAboveCeilingPrefill:
    case DxCode::kFindingAboveCeilingTraining:
      return {"Measured above the computed ceiling. What the input probably leaves out: " + leaves_out(d.phase, v) +
              "."};
    case DxCode::kFindingInKernel:
      return {
          fmt::format("GEMM + attention kernels take {} of kernel time and carry the FLOPs, so while running they "
                      "reach ≥ {} / {} = {} of peak: little left in the GEMMs",
                      format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kFraction),
                      format_brief(v[0], Unit::kFraction), format_brief(v[2], Unit::kFraction))};
    case DxCode::kFindingMemoryBoundShare:
      return {
          fmt::format("Compute-bound overall, yet {} of kernel time is memory-bound work (norms, elementwise, "
                      "casts) doing next to no FLOPs: removing it is worth up to 1 / (1 − {}) = {} — real, and "
                      "bounded",
                      format_brief(v[0], Unit::kFraction), fmt_sig(v[0], 3), format_brief(v[1], Unit::kFactor))};
    case DxCode::kFindingProfilerExcess:
      return {fmt::format(
          "The profiler's FLOP rate ({}) is {} the {} the measured tokens need at 2N FLOP/token: the "
          "step does work 2N does not count (tile padding, long-context attention, prefill chunks) or "
          "the rate includes time outside the profiled steps",
          format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kFactor), format_brief(v[2], Unit::kFraction))};
    case DxCode::kFindingLaunchGaps:
      return {
          fmt::format("Launch gaps alone are {} of the kernel timeline ({}–{}); the rest of the idle time is host "
                      "work between steps",
                      format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kFraction),
                      format_brief(v[2], Unit::kFraction))};
    case DxCode::kFindingScoreTraffic: {
      std::string t = fmt::format(
          "Streaming the score matrix (QK^T writes it, softmax reads and writes it, AV reads "
          "it: 4 passes × {} × {} layers) takes {} of HBM time",
          format_brief(v[0], Unit::kBytes), v[1], format_brief(v[2], Unit::kSeconds));
      if (known(v[4])) {
        t += fmt::format(
            " of the {} attention kernels' {}, while their FLOPs need {} at peak: attention runs "
            "memory-bound, which is why a compute-bound prefill reaches {}",
            format_brief(v[3], Unit::kFraction), format_brief(v[4], Unit::kSeconds), format_brief(v[5], Unit::kSeconds),
            format_brief(v[6], Unit::kFraction));
      }
      return {t};
    }
    case DxCode::kFindingItlNearFloor:
      return {fmt::format(
          "ITL {} against a floor of (W + KV) / bw = {}: decode is at {} of its ceiling — leave it "
          "alone",
          format_brief(v[0], Unit::kSeconds), format_brief(v[1], Unit::kSeconds), format_brief(v[2], Unit::kFraction))};
    // ------------------------------------------------------------ fixes
    case DxCode::kFixShardWeights:
      return {"Shard the weights across more GPUs (tensor or pipeline parallel)",
              fmt::format("{} GPUs hold {} with 10 % left for activations", v[0], format_brief(v[1], Unit::kBytes))};
    case DxCode::kFixQuantizeToFit:
      return {"Quantize the weights", fmt::format("int4: {} ({} fits: {})", format_brief(v[0], Unit::kBytes),
                                                  format_brief(v[1], Unit::kBytes), v[2] != 0 ? "yes" : "no")};
    case DxCode::kFixFusedAttentionMemory:
      return {"Fused (FlashAttention-style) attention",
              fmt::format("never materializes the {} score matrix: peak memory {} → about {}",
                          format_brief(v[0], Unit::kBytes), format_brief(v[1], Unit::kBytes),
                          format_brief(v[2], Unit::kBytes))};
    case DxCode::kFixChunkedPrefill:
      return {"Chunked prefill", "bounds the transient by the chunk instead of the whole prompt"};
    case DxCode::kFixShrinkKvToFit:
      return {"Shrink the KV cache: int8/fp8 KV, fewer KV heads (GQA), paged allocation",
              fmt::format("int8 KV from {} halves it: about {} sequences fit", "fp16", whole(v[0]))};
    case DxCode::kFixCapBatch:
      return {"Cap the batch at what fits, or add GPUs for KV", fmt::format("batch ≤ {}", whole(v[0]))};
    case DxCode::kFixReconcileDecode:
    case DxCode::kFixReconcilePrefill:
    case DxCode::kFixReconcileTraining:
      return {"Reconcile the evidence with the setup before optimizing anything", "check " + leaves_out(d.phase, v)};
    case DxCode::kFixCutBytes:
      return {"Cut bytes moved: fuse memory-bound kernels, lower-precision activations",
              fmt::format("time scales with bytes at {} of peak bandwidth", format_brief(v[0], Unit::kFraction))};
    case DxCode::kFixQuantizeForSpeed: {
      std::string eff;
      if (known(v[1])) {
        eff += fmt::format("int8: ceiling {} → {} per sequence ({})", format_brief(v[0], Unit::kTokensPerS),
                           format_brief(v[1], Unit::kTokensPerS), format_brief(v[2], Unit::kFactor));
      }
      if (known(v[3]))
        eff += fmt::format("{}int4: {} ({})", eff.empty() ? "" : "; ", format_brief(v[3], Unit::kTokensPerS),
                           format_brief(v[4], Unit::kFactor));
      if (known(v[5]))
        eff += fmt::format("; at today's {} of ceiling ≈ {}", format_brief(v[5], Unit::kFraction),
                           format_brief(v[6], Unit::kTokensPerS));
      return {"Fewer bytes per token: quantize the weights (weight-only int8, then int4)", eff};
    }
    case DxCode::kFixShrinkKvRead:
      return {"Shrink the KV cache read each step (int8/fp8 KV)",
              fmt::format("KV is {} of the {} step; halving it: {}", format_brief(v[0], Unit::kBytes),
                          format_brief(v[1], Unit::kBytes), format_brief(v[2], Unit::kFactor))};
    case DxCode::kFixSpeculativeMtp:  // worded with its variation (fix_words); this is the fallback
    case DxCode::kFixSpeculative:
      return {"Speculative decoding: verify several drafted tokens per weight read",
              fmt::format("the step runs at {} FLOP/byte against a ridge of {}: verifying K tokens costs about the "
                          "same bytes, so per-sequence speed grows with the tokens accepted per step; give a drafter "
                          "(--draft-model NAME, --spec-tokens K, --spec-acceptance A) and size prices it",
                          fmt_sig(v[0], 3), fmt_sig(v[1], 3))};
    case DxCode::kFixBatch:
      return {"Batch concurrent requests, if traffic allows",
              fmt::format("batch {}{}: aggregate ceiling {} ({}); one weight read serves every sequence, while each "
                          "sequence's own KV read slows its step",
                          whole(v[0]), v[1] != 0 ? " (all that fit in HBM)" : "", format_brief(v[2], Unit::kTokensPerS),
                          format_brief(v[3], Unit::kFactor))};
    case DxCode::kFixFuseMemoryBound:
      return {"Fuse the memory-bound ops (norm + activation + residual add + casts) into neighbours",
              fmt::format("they are {} of kernel time: up to {} if they vanished, about {} if fusion halves them; try "
                          "an automatic fuser (torch.compile) before hand-written kernels",
                          format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kFactor),
                          format_brief(v[2], Unit::kFactor))};
    case DxCode::kFixRemoveCasts:
      return {"Remove dtype casts (keep tensors in the compute dtype, fold casts into GEMM epilogues)",
              fmt::format("{} of kernel time: up to {}", format_brief(v[0], Unit::kFraction),
                          format_brief(v[1], Unit::kFactor))};
    case DxCode::kFixFp8Compute:
      return {"fp8 compute (weights and activations, W8A8)",
              fmt::format("peak {} → {}: ceiling {} → {} ({})", fmt_si(v[0], "FLOP/s"), fmt_si(v[1], "FLOP/s"),
                          format_brief(v[2], Unit::kTokensPerS), format_brief(v[3], Unit::kTokensPerS),
                          format_brief(v[4], Unit::kFactor))};
    case DxCode::kFixFp8Gemms:
      return {"fp8 GEMMs, if the numerics allow",
              fmt::format("twice the dense peak on most current GPUs; GEMMs are {} of kernel time: up to {}",
                          format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kFactor))};
    case DxCode::kFixFindExtraFlops:
      return {"Find the FLOPs beyond 2N per token",
              fmt::format("the compute is busy at {} but the tokens need {}: closing that is worth up to {}",
                          format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kFraction),
                          format_brief(v[2], Unit::kFactor))};
    case DxCode::kFixScaleOut:
      return {"Scale out: more replicas (data parallel)",
              "throughput grows with replicas; a bigger batch does not help past the ridge — it adds FLOPs in "
              "proportion"};
    case DxCode::kFixSplitPrefillFloor:
      return {"Split the prefill across GPUs (tensor or context parallel)",
              known(v[0]) ? fmt::format("the TTFT floor at peak is {} per GPU; k GPUs divide it",
                                        format_brief(v[0], Unit::kSeconds))
                          : "k GPUs divide the FLOPs"};
    case DxCode::kFixCudaGraphs: {
      std::string eff = fmt::format("removes the idle {} of the step: up to {}", format_brief(v[0], Unit::kFraction),
                                    format_brief(v[1], Unit::kFactor));
      if (known(v[2]))
        eff += fmt::format(" ({} → {} per sequence)", format_brief(v[2], Unit::kTokensPerS),
                           format_brief(v[3], Unit::kTokensPerS));
      return {"CUDA graphs (capture the whole step; overlap host scheduling with the GPU)", eff};
    }
    case DxCode::kFixKernelFusion: {
      std::string eff = fmt::format("fewer than {} launches and fewer HBM round trips", whole(v[0]));
      if (known(v[1])) {
        eff += fmt::format(": kernel time {} → toward the {} the bytes need, another {}",
                           format_brief(v[1], Unit::kSeconds), format_brief(v[2], Unit::kSeconds),
                           format_brief(v[3], Unit::kFactor));
      }
      return {"Kernel fusion (norm + residual, QKV + RoPE, activation)", eff};
    }
    case DxCode::kFixTakeTimeline:
      return {"Take a timeline of one step before changing anything",
              fmt::format("{} of the step is unexplained by either roof; gaps between kernels, host time or "
                          "synchronization will show there",
                          format_brief(v[0], Unit::kFraction))};
    case DxCode::kFixGraphsThenFusion:
      return {"If it shows many short kernels with gaps: CUDA graphs, then kernel fusion",
              fmt::format("closing the gap to the ceiling is worth up to 1 / {} = {}", fmt_sig(v[0], 3),
                          format_brief(v[1], Unit::kFactor))};
    case DxCode::kFixFusedAttention: {
      std::string eff =
          fmt::format("never writes the {} score matrix; the transient goes", format_brief(v[0], Unit::kBytes));
      if (known(v[5])) {
        eff += fmt::format(
            "; attention {} → ≥ {} at peak FLOP/s: TTFT {} → ≥ {} ({} at most; a causal kernel also "
            "skips the masked half)",
            format_brief(v[1], Unit::kSeconds), format_brief(v[2], Unit::kSeconds), format_brief(v[3], Unit::kSeconds),
            format_brief(v[4], Unit::kSeconds), format_brief(v[5], Unit::kFactor));
      }
      return {"Fused (FlashAttention-style) attention", eff};
    }
    case DxCode::kFixProfileGemms:
      return {"Then the linear layers: profile the GEMMs",
              fmt::format("the other {} of TTFT carries {} FLOP, {} at peak: {} of peak",
                          format_brief(v[0], Unit::kSeconds), fmt_sig(v[1], 3), format_brief(v[2], Unit::kSeconds),
                          format_brief(v[3], Unit::kFraction))};
    case DxCode::kFixSplitPrefillWhole:
      return {"Split the prefill across GPUs (tensor or context parallel)",
              fmt::format("the whole prefill needs {} at peak on one GPU; k GPUs divide it",
                          format_brief(v[0], Unit::kSeconds))};
    case DxCode::kFixProfileKernels:
      return {"Profile the top kernels against their own roofline (bytes or FLOPs each should take)",
              fmt::format("the kernels could be up to {} faster", format_brief(v[0], Unit::kFactor))};
    // ------------------------------------------------------------ rejects
    case DxCode::kRejectFasterWhileNoFit:
      return {"Faster kernels or a higher-FLOP GPU of the same capacity",
              "nothing runs until the weights fit; speed is moot until memory is"};
    case DxCode::kRejectFasterWhileOom: return {"Faster kernels", "the allocation fails before speed matters"};
    case DxCode::kRejectFasterWhileKvCapped:
      return {"Faster kernels", "the batch is capped by memory; the KV must fit first"};
    case DxCode::kRejectAboveCeiling:
      return {"Any fix chosen by comparing against this ceiling",
              "a rate above the physical ceiling means an input is wrong, so every ratio to it is too"};
    case DxCode::kRejectComputeIdle:
      return {"Faster compute kernels or a higher-FLOP GPU",
              fmt::format("FLOP use is {}: compute is idle, bytes set the time", format_brief(v[0], Unit::kFraction))};
    case DxCode::kRejectComputeKernels:
      return {"Faster compute kernels (GEMM tuning, a higher-FLOP GPU)",
              fmt::format("FLOP use is {}{}; at {} of the bandwidth ceiling no kernel work can win more than 1 / {} "
                          "= {}",
                          format_brief(v[0], Unit::kFraction),
                          known(v[1]) ? fmt::format(" (the tokens need {})", format_brief(v[1], Unit::kFraction)) : "",
                          format_brief(v[2], Unit::kFraction), fmt_sig(v[2], 3), format_brief(v[3], Unit::kFactor))};
    case DxCode::kRejectInt4ForSpeed:
      return {"int4 weight-only quantization (\"4× smaller weights, so up to 4× the throughput\")",
              fmt::format("it shrinks bytes, and bytes are not the limit: {}the ceiling stays min(bandwidth {}, "
                          "compute {}) = {} ({}). Expect about 1× (dequantization can make it slower); what it does "
                          "give is {} of HBM back ({} → {}) for KV and longer contexts",
                          known(v[0]) ? "bandwidth is at " + format_brief(v[0], Unit::kFraction) +
                                            " while FLOPs are at " + format_brief(v[1], Unit::kFraction) + "; "
                                      : "",
                          format_brief(v[2], Unit::kTokensPerS), format_brief(v[3], Unit::kTokensPerS),
                          format_brief(v[4], Unit::kTokensPerS), format_brief(v[5], Unit::kFactor),
                          format_brief(v[6], Unit::kBytes), format_brief(v[7], Unit::kBytes),
                          format_brief(v[8], Unit::kBytes))};
    case DxCode::kRejectQuantForSpeed: return {"Weight quantization for speed", "it cuts bytes; FLOPs are the limit"};
    case DxCode::kRejectLargerMicrobatch:
      return {"A larger microbatch to raise arithmetic intensity",
              fmt::format("{}GEMMs are already far past the ridge ({} FLOP/byte) and run at ≥ {} of peak; the "
                          "memory-bound ops scale with tokens too, so their share stays",
                          known(v[0]) ? fmt::format("at {} tokens per step ", fmt_fixed(v[0], 0)) : "",
                          fmt_sig(v[1], 3), format_brief(v[2], Unit::kFraction))};
    case DxCode::kRejectQuantForPrefill:
      return {"Weight quantization or speculative decoding",
              fmt::format("they cut bytes per decode step; prefill is compute-bound (intensity ≈ T{} ≫ ridge {}), so "
                          "fewer weight bytes do not remove FLOPs",
                          known(v[0]) ? " = " + fmt_fixed(v[0], 0) : "", fmt_sig(v[1], 3))};
    case DxCode::kRejectBiggerGpu: {
      std::string why = fmt::format(
          "the kernels are busy {} of the step; even an infinitely fast GPU removes only "
          "that: ≤ {}",
          format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kFactor));
      if (known(v[2]))
        why += fmt::format("; 1.5× the bandwidth saves a third of kernel time: {}", format_brief(v[2], Unit::kFactor));
      return {"A bigger GPU (more bandwidth or FLOP/s)", why};
    }
    case DxCode::kRejectQuantFirst:
    case DxCode::kRejectFasterGemmsFirst:
      return {s.code == DxCode::kRejectQuantFirst ? "Weight quantization (fewer bytes per token) first"
                                                  : "A higher-FLOP GPU or faster GEMMs first",
              fmt::format("it speeds up the {} of the step that the roof accounts for; halving that saves ≤ {}: {}",
                          format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kFraction),
                          format_brief(v[2], Unit::kFactor))};
    case DxCode::kRejectSpecOrQuantPrefill:
      return {"Speculative decoding or weight quantization",
              fmt::format("{}TTFT is prefill, compute-bound at intensity ≈ T = {} ≫ ridge {}: fewer weight bytes do "
                          "not remove FLOPs, and the score matrix is activations, not weights",
                          known(v[0]) ? fmt::format("ITL is at {} of its floor and not the complaint; ",
                                                    format_brief(v[0], Unit::kFraction))
                                      : "",
                          fmt_fixed(v[1], 0), fmt_sig(v[2], 3))};
    // ------------------------------------------------------------ ask first
    case DxCode::kAskUtilizations:
      return {"Achieved FLOP/s and HBM bandwidth as fractions of peak (or a measured rate against the computed "
              "ceiling)",
              "they say which roof, if any, the workload touches; every optimization is right in one regime and "
              "useless in the other"};
    case DxCode::kAskTimeline:
      return {"A timeline of one step: kernel count, kernel durations and the gaps between them",
              fmt::format("at {} achieved, up to {} of the step is unaccounted for; idle time between kernels is "
                          "invisible to utilizations and untouched by kernel or byte optimizations",
                          format_brief(v[0], Unit::kFraction), format_brief(v[1], Unit::kFraction))};
    case DxCode::kAskTimelineNoUtilization:
      return {"A timeline of one step: kernel count, kernel durations and the gaps between them",
              "idle time between kernels is invisible to utilizations and untouched by kernel or byte optimizations"};
    // ------------------------------------------------------------ ignored
    case DxCode::kIgnoredDtypeAssumed: return {"No model.dtype given: bf16 weights assumed (2 B per parameter)."};
    case DxCode::kIgnoredGpusAsOne:
      return {fmt::format("{} GPUs are treated as one with {}× the bandwidth, capacity and FLOP/s: ideal tensor "
                          "parallelism, communication not counted.",
                          whole(v[0]), whole(v[0]))};
    case DxCode::kIgnoredModeledCeiling:
      return {"Decode ceiling from the deployment engine (the same as size): experts read under uniform routing, "
              "embedding rows, the lm_head, KV per GPU and communication counted."};
    case DxCode::kIgnoredKvNoShape:
      return {"KV cache not counted: the shape (layers, kv_heads, head dim) is not given; the ceiling is an upper "
              "bound."};
    case DxCode::kIgnoredKvNoContext:
      return {"KV cache not counted: no context length given; at short contexts it is small against the weights, so "
              "the ceiling is a slight upper bound."};
    case DxCode::kIgnoredMoe:
      return {"MoE: every expert's weights are counted as read each step (true at large batch); at small batch only "
              "the routed experts are, so the decode ceiling is a lower bound."};
    case DxCode::kIgnoredPrefillFlops:
      return {"Prefill FLOPs count every parameter as a matmul weight (embeddings slightly overcount) and all of "
              "4·T²·d attention (a causal kernel can skip the masked half)."};
    case DxCode::kIgnoredPhaseInferred: return {"No phase given: " + phase + " inferred from the measurements."};
    case DxCode::kIgnoredEngineNoOverheads:
      return {"The engine's ceiling counts no kernel launches, sampling or scheduling: a well-tuned serving engine "
              "reaches 60–80 % of it."};
  }
  return {"?"};
}

std::string dx_text(const DxStatement& s, const Diagnosis& d) { return dx_words(s, d).first; }

DxWords fix_words(const DxStatement& what, const std::optional<Variation>& variation, const Diagnosis& d) {
  if (!variation || !d.modeled) return dx_words(what, d);
  const Variation& var = *variation;
  const DeploymentResult& before = d.modeled->result;
  const DeploymentResult& after = var.after.result;
  const DeploymentMemory& m = after.memory;
  const std::string flags = change_flags(var.change);
  const std::string dtype = var.change.weight_dtype ? std::string(dtype_name(*var.change.weight_dtype)) : "";
  const std::string speed =
      fmt::format("{} per sequence, {} aggregate ({} decides)",
                  format_brief(after.decode.tokens_per_s_per_sequence, Unit::kTokensPerS),
                  format_brief(after.decode.tokens_per_s_aggregate, Unit::kTokensPerS), deciding_term(after));
  const std::string fit = m.max_sequences > 0
                              ? fmt::format("{} sequences fit beside a {} weight shard per GPU",
                                            group_digits(m.max_sequences), format_brief(static_cast<double>(m.weights.total()), Unit::kBytes))
                              : fmt::format("still no room: a {} weight shard per GPU leaves none for the KV",
                                            format_brief(static_cast<double>(m.weights.total()), Unit::kBytes));
  switch (what.code) {
    case DxCode::kFixShardWeights:
      return {"Shard the weights across more GPUs (" + flags + ")",
              fmt::format("{} GPUs: {}; {}", var.scenario.options.split.gpus(), fit, speed)};
    case DxCode::kFixQuantizeToFit:
      return {"Quantize the weights to " + dtype + " (" + flags + ")", m.max_sequences > 0 ? fit + "; " + speed : fit};
    case DxCode::kFixShrinkKvToFit:
      return {"Store the KV cache in " + std::string(dtype_name(var.after.prepared.kv_dtype)) + " (" + flags + ")",
              fmt::format("{} → {} sequences fit", group_digits(before.memory.max_sequences),
                          group_digits(m.max_sequences))};
    case DxCode::kFixCapBatch:
      return {"Cap the batch at what fits, or add GPUs for KV (" + flags + ")", speed};
    case DxCode::kFixQuantizeForSpeed:
      return {"Fewer bytes per token: quantize the weights to " + dtype + ", weight-only (" + flags + ")",
              before_after(before, after)};
    case DxCode::kFixShrinkKvRead:
      return {"Shrink the KV cache read each step (" + flags + ")", before_after(before, after)};
    case DxCode::kFixSpeculativeMtp:
      return {"Speculative decoding with the model's MTP module, one draft token at an assumed acceptance of " +
                  fmt_sig(what.v[3], 2) + " (" + flags + ")",
              before_after(before, after) + "; the draft pass reads the module and the lm_head again, the verify "
                                            "step reads the weights once for 1 + A tokens"};
    case DxCode::kFixBatch:
      return {"Batch concurrent requests, if traffic allows (" + flags + ")",
              before_after(before, after) +
                  (what.v.size() > 1 && what.v[1] != 0 ? "; all the sequences HBM holds" : "") +
                  "; one weight read serves every sequence, each sequence's own KV read slows its step"};
    case DxCode::kFixFp8Compute:
      return {"fp8 weights and compute, W8A8 (" + flags + ")",
              fmt::format("peak {} → {}: ", fmt_si(what.v[0], "FLOP/s"), fmt_si(what.v[1], "FLOP/s")) +
                  before_after(before, after)};
    case DxCode::kFixScaleOut:
      return {"Scale out: more replicas, data parallel (" + flags + ")",
              before_after(before, after) + "; a bigger batch does not help past the ridge"};
    case DxCode::kRejectInt4ForSpeed: {
      DxWords w = dx_words(what, d);
      return {w.first, w.second + " (the engine at " + flags + ": " + before_after(before, after) + ")"};
    }
    default:
      return dx_words(what, d);
  }
}

}  // namespace modelcalc
