// The rules of `diagnose`: decide the regime from the numbers
// (diagnose_numbers.cc computes them, ceilings first), then derive fixes, the
// rejected optimization and the questions to ask from the same numbers.
#include <algorithm>
#include <cmath>
#include <limits>

#include "diagnose_internal.h"
#include "modelcalc/diagnose.h"
#include "modelcalc/formulas.h"

namespace modelcalc {

namespace {

// ---------------------------------------------------------------- rules
double achieved(const DiagnosisNumbers& n) {
  return std::max({n.compute_fraction.value_or(0), n.bandwidth_fraction.value_or(0),
                   std::min(1.0, n.fraction_of_ceiling.value_or(0))});
}

// The roof the shapes predict when no measurement decides: decode below the
// ridge is bandwidth-bound; prefill and training are compute-bound.
Regime roofline_regime(const Diagnosis& d) {
  if (d.phase != Phase::kDecode) return Regime::kComputeBound;
  if (d.n.step_intensity && d.n.ridge > 0 && *d.n.step_intensity >= d.n.ridge) return Regime::kComputeBound;
  return Regime::kBandwidthBound;
}

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();  // a clause the numbers do not allow
double or_none(const std::optional<double>& v) { return v.value_or(kNone); }

void say(std::vector<DxStatement>* out, DxCode code, std::vector<double> v = {}) {
  out->push_back({code, std::move(v)});
}
void fix(Diagnosis* d, DxCode code, std::vector<double> v, std::optional<double> speedup = std::nullopt) {
  d->fixes.push_back({{code, std::move(v)}, speedup, std::nullopt});
}

// ---------------------------------------------------------------- the engine's fixes
// Every fix that changes the setup is the engine on the varied scenario; none
// is priced by arithmetic of its own.

// The engine on the diagnosis' scenario varied by `c`; nullopt without the
// engine's view or when the engine refuses the varied setup.
std::optional<Variation> vary_engine(const Diagnosis& d, const ScenarioChange& c) {
  if (!d.scenario) return std::nullopt;
  auto v = evaluate_variation(*d.scenario, c);
  if (!v.ok()) return std::nullopt;
  return *std::move(v);
}
ScenarioChange weights_to(Dtype t) {
  ScenarioChange c;
  c.weight_dtype = t;
  return c;
}
ScenarioChange kv_to(Dtype t) {
  ScenarioChange c;
  c.kv_dtype = t;
  return c;
}
ScenarioChange batch_to(int64_t b) {
  ScenarioChange c;
  c.batch = b;
  return c;
}
void fix_with(Diagnosis* d, DxCode code, std::vector<double> v, std::optional<double> speedup, Variation var) {
  d->fixes.push_back({{code, std::move(v)}, speedup, std::move(var)});
}
double per_seq(const Variation& v) { return v.after.result.decode.tokens_per_s_per_sequence; }
double aggregate(const Variation& v) { return v.after.result.decode.tokens_per_s_aggregate; }

// The largest tensor-parallel degree a "shard the weights" proposal searches.
constexpr int64_t kMaxShardTp = 1024;

// capacity-bound by the engine: the weights leave no room, or the batch's KV
// does not fit beside them (per GPU: capacity less reserve and workspace).
bool check_capacity_engine(Diagnosis* d) {
  const DeploymentResult& r = d->modeled->result;
  const DeploymentMemory& m = r.memory;
  const Scenario& s = *d->scenario;
  const double W = static_cast<double>(m.weights.total());
  const double room = m.capacity - m.reserve - m.workspace;
  const int64_t batch = r.decode.batch;
  const Dtype w = d->modeled->prepared.weight_dtype, kv = d->modeled->prepared.kv_dtype;
  auto capacity_bound = [&](DxStatement detail, DxStatement settled) {
    d->regime = Regime::kCapacityBound;
    d->detail = std::move(detail);
    d->settled_by = std::move(settled);
  };
  if (m.free_for_kv < 0) {
    capacity_bound({DxCode::kDetailWeightsDoNotFit, {W, room}}, {DxCode::kSettledWeightsDoNotFit, {W, room}});
    // The fewest tensor ranks that hold the weights and the batch.
    for (int64_t tp = s.options.split.tp + 1; tp <= kMaxShardTp; ++tp) {
      ScenarioChange c;
      c.split = s.options.split;
      c.split->tp = tp;
      auto v = vary_engine(*d, c);
      if (!v || v->after.result.memory.max_sequences < std::max<int64_t>(1, batch)) continue;
      const DeploymentMemory& a = v->after.result.memory;
      fix_with(d, DxCode::kFixShardWeights,
               {static_cast<double>(c.split->gpus()), static_cast<double>(a.weights.total()),
                static_cast<double>(a.max_sequences)},
               std::nullopt, *std::move(v));
      break;
    }
    for (Dtype t : {Dtype::kInt8, Dtype::kInt4}) {
      if (dtype_bits(t) >= dtype_bits(w)) continue;
      auto v = vary_engine(*d, weights_to(t));
      if (!v) continue;
      const DeploymentMemory& a = v->after.result.memory;
      const bool fits = a.max_sequences >= 1;
      fix_with(d, DxCode::kFixQuantizeToFit,
               {static_cast<double>(a.weights.total()), a.capacity - a.reserve - a.workspace, fits ? 1.0 : 0.0,
                static_cast<double>(a.max_sequences)},
               std::nullopt, *std::move(v));
      if (fits) break;
    }
    d->reject = DxStatement{DxCode::kRejectFasterWhileNoFit, {}};
    return true;
  }
  if (batch > m.max_sequences) {
    const double fit = static_cast<double>(m.max_sequences);
    capacity_bound({DxCode::kDetailKvDoesNotFit, {fit, static_cast<double>(batch)}},
                   {DxCode::kSettledKvDoesNotFit,
                    {room, W, static_cast<double>(m.kv_per_sequence), fit, static_cast<double>(batch)}});
    if (dtype_bits(kv) > 8) {
      if (auto v = vary_engine(*d, kv_to(Dtype::kFp8))) {
        const double after = static_cast<double>(v->after.result.memory.max_sequences);
        fix_with(d, DxCode::kFixShrinkKvToFit, {after}, std::nullopt, *std::move(v));
      }
    }
    if (m.max_sequences > 0) {
      if (auto v = vary_engine(*d, batch_to(m.max_sequences))) {
        fix_with(d, DxCode::kFixCapBatch, {fit}, std::nullopt, *std::move(v));
      }
    }
    d->reject = DxStatement{DxCode::kRejectFasterWhileKvCapped, {}};
    return true;
  }
  return false;
}

// Bandwidth-bound decode by the engine: fewer weight bytes, fewer KV bytes,
// more sequences per weight read, each the engine on the changed setup.
void engine_bandwidth_fixes(Diagnosis* d, double frac) {
  const DiagnosisNumbers& n = d->n;
  const DeploymentResult& base = d->modeled->result;
  const DecodeStep& st = base.decode;
  const double now = st.tokens_per_s_per_sequence;
  const Dtype w = d->modeled->prepared.weight_dtype, kv = d->modeled->prepared.kv_dtype;
  for (Dtype t : {Dtype::kInt8, Dtype::kInt4}) {
    if (dtype_bits(t) >= dtype_bits(w)) continue;
    auto v = vary_engine(*d, weights_to(t));
    if (!v) continue;
    const double g = per_seq(*v) / now;
    if (!(g > 1.0)) continue;  // no faster: not a fix here
    // {ceiling now, after, gain, fraction of ceiling, at today's fraction}
    const bool measured = n.measured_per_seq.has_value();
    fix_with(d, DxCode::kFixQuantizeForSpeed,
             {now, per_seq(*v), g, measured ? frac : kNone, measured ? frac * per_seq(*v) : kNone}, g, *std::move(v));
  }
  const double kv_bytes = st.bytes.kv, rest = st.bytes.total() - st.bytes.kv;
  if (dtype_bits(kv) > 8 && kv_bytes > 0.5 * rest) {
    if (auto v = vary_engine(*d, kv_to(Dtype::kFp8))) {
      const double g = per_seq(*v) / now;
      fix_with(d, DxCode::kFixShrinkKvRead, {kv_bytes, st.bytes.total(), g}, g, *std::move(v));
    }
  }
  if (n.step_intensity && n.ridge > 0 && *n.step_intensity * 2 < n.ridge && !d->scenario->options.spec.on()) {
    // The model's own MTP module is a drafter the engine can price; without one the fix stays a direction.
    const ModelSpec& model = d->scenario->model;
    std::optional<Variation> v;
    if (model.params_mtp && *model.params_mtp > 0) {
      ScenarioChange c;
      c.spec = SpeculativeDecoding{SpecMethod::kMtp, 1, kAssumedMtpAcceptance, nullptr};
      v = vary_engine(*d, c);
    }
    if (v && per_seq(*v) > now) {
      const double g = per_seq(*v) / now;
      fix_with(d, DxCode::kFixSpeculativeMtp, {*n.step_intensity, n.ridge, g, kAssumedMtpAcceptance}, g, *std::move(v));
    } else if (!v) {
      fix(d, DxCode::kFixSpeculative, {*n.step_intensity, n.ridge});
    }
  }
  if (n.ridge > 0 && n.step_intensity && *n.step_intensity * 4 < n.ridge) {
    // A whole batch, and never one HBM cannot hold.
    const double held = static_cast<double>(base.memory.max_sequences);
    const double want = std::floor(std::max(4.0, std::min(n.ridge / 2, n.batch * 8)));
    const double b2 = std::min(want, held);
    if (b2 > n.batch) {
      if (auto v = vary_engine(*d, batch_to(static_cast<int64_t>(b2)))) {
        const double g = aggregate(*v) / st.tokens_per_s_aggregate;
        // {batch, all that fit, aggregate after, gain, per sequence now, per sequence after}
        fix_with(d, DxCode::kFixBatch, {b2, b2 == held ? 1.0 : 0.0, aggregate(*v), g, now, per_seq(*v)}, g,
                 *std::move(v));
      }
    }
  }
}

bool check_capacity(Diagnosis* d) {
  if (d->modeled) return check_capacity_engine(d);
  const DiagnosisNumbers& n = d->n;
  if (n.capacity <= 0 || !n.weight_bytes) return false;
  const double W = *n.weight_bytes;
  auto capacity_bound = [&](DxStatement detail, DxStatement settled) {
    d->regime = Regime::kCapacityBound;
    d->detail = std::move(detail);
    d->settled_by = std::move(settled);
  };
  if (W > n.capacity) {
    capacity_bound({DxCode::kDetailWeightsDoNotFit, {W, n.capacity}}, {DxCode::kSettledWeightsDoNotFit, {W, n.capacity}});
    const double need = std::ceil(W / (0.9 * n.capacity / n.gpus));
    fix(d, DxCode::kFixShardWeights, {need, W});
    if (n.bytes_per_param && *n.bytes_per_param > 0.5) {
      const double w4 = *n.params * 0.5;
      fix(d, DxCode::kFixQuantizeToFit, {w4, n.capacity, w4 < n.capacity ? 1.0 : 0.0});
    }
    d->reject = DxStatement{DxCode::kRejectFasterWhileNoFit, {}};
    return true;
  }
  if (n.peak_memory_bytes && *n.peak_memory_bytes > n.capacity) {
    capacity_bound({DxCode::kDetailTransientDoesNotFit, {*n.peak_memory_bytes, n.capacity}},
                   {DxCode::kSettledTransientDoesNotFit, {*n.peak_memory_bytes, n.capacity}});
    if (n.transient_over_scores && *n.transient_over_scores >= 0.5 && *n.transient_over_scores <= 2) {
      fix(d, DxCode::kFixFusedAttentionMemory, {*n.score_matrix_bytes, *n.peak_memory_bytes, W});
    }
    fix(d, DxCode::kFixChunkedPrefill, {});
    d->reject = DxStatement{DxCode::kRejectFasterWhileOom, {}};
    return true;
  }
  if (d->phase == Phase::kDecode && n.kv_bytes_per_seq && *n.kv_bytes_per_seq > 0) {
    const Exact fit_count = max_batch_by_capacity(n.capacity, W, *n.kv_bytes_per_seq);
    const int64_t fit = fit_count.value();
    if (!fit_count.overflow() && static_cast<double>(fit) < n.batch) {
      const double f = static_cast<double>(fit);
      capacity_bound({DxCode::kDetailKvDoesNotFit, {f, n.batch}},
                     {DxCode::kSettledKvDoesNotFit, {n.capacity, W, *n.kv_bytes_per_seq, f, n.batch}});
      fix(d, DxCode::kFixShrinkKvToFit,
          {static_cast<double>(max_batch_by_capacity(n.capacity, W, *n.kv_bytes_per_seq / 2).value())});
      fix(d, DxCode::kFixCapBatch, {f});
      d->reject = DxStatement{DxCode::kRejectFasterWhileKvCapped, {}};
      return true;
    }
  }
  return false;
}

void above_ceiling(Diagnosis* d) {
  const DiagnosisNumbers& n = d->n;
  const double k = *n.fraction_of_ceiling;
  d->above_ceiling = true;
  d->confirmed = false;
  d->regime = roofline_regime(*d);
  d->settled_by = {DxCode::kSettledAboveCeiling, {k}};
  // What the input probably leaves out: one list, cited by the finding and the fix.
  std::vector<double> leaves_out;
  DxCode finding = DxCode::kFindingAboveCeilingTraining, reconcile = DxCode::kFixReconcileTraining;
  if (d->phase == Phase::kDecode) {
    const double per_seq = *n.measured_per_seq;
    d->detail = {DxCode::kDetailAboveCeilingDecode, {k, per_seq, *n.bw_ceiling_per_seq}};
    const double kv_total = n.batch * n.kv_bytes_per_seq.value_or(0);
    const double w_needed = n.bandwidth / per_seq - kv_total;
    // {weights the rate allows (NaN: none), B per parameter, as stated, tokens per read,
    //  bandwidth the stated bytes need, bandwidth given, sequences}
    leaves_out = {w_needed > 0 ? w_needed : kNone, w_needed > 0 ? w_needed / *n.params : kNone, *n.bytes_per_param,
                  k, per_seq * *n.step_bytes, n.bandwidth, std::ceil(per_seq / *n.bw_ceiling_per_seq)};
    finding = DxCode::kFindingAboveCeilingDecode;
    reconcile = DxCode::kFixReconcileDecode;
  } else if (d->phase == Phase::kPrefill) {
    d->detail = {DxCode::kDetailAboveCeilingPrefill, {*n.ttft_s, *n.ttft_floor_s}};
    leaves_out = {*n.prefill_flops / *n.ttft_s, n.peak_flops};  // FLOP/s needed, given
    finding = DxCode::kFindingAboveCeilingPrefill;
    reconcile = DxCode::kFixReconcilePrefill;
  } else {
    d->detail = {DxCode::kDetailAboveCeilingTraining, {k}};
  }
  say(&d->findings, finding, leaves_out);
  fix(d, reconcile, leaves_out);
  d->reject = DxStatement{DxCode::kRejectAboveCeiling, {}};
}

void bandwidth_near(Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double frac = n.fraction_of_ceiling.value_or(*n.bandwidth_fraction);
  const double fc = n.compute_fraction.value_or(0);
  d->regime = Regime::kBandwidthBound;
  d->detail = {DxCode::kDetailBandwidthBound, {frac}};
  if (n.bw_ceiling_per_seq && n.measured_per_seq) {
    d->settled_by = {DxCode::kSettledBandwidthMeasured, {*n.measured_per_seq, *n.bw_ceiling_per_seq, frac, fc}};
  } else {
    d->settled_by = {DxCode::kSettledBandwidthUtil, {*n.bandwidth_fraction, fc}};
  }
  if (d->phase != Phase::kDecode) {
    fix(d, DxCode::kFixCutBytes, {*n.bandwidth_fraction});
    d->reject = DxStatement{DxCode::kRejectComputeIdle, {fc}};
    return;
  }
  if (d->modeled) {
    if (d->modeled->result.decode.regime == DeploymentRegime::kCommunicationBound) {
      d->regime = Regime::kCommunicationBound;
    }
    if (n.measured_per_seq) {
      d->settled_by = {DxCode::kSettledBandwidthEngine,
                       {*n.measured_per_seq, *n.bw_ceiling_per_seq, frac, fc, *n.modeled_memory_s,
                        *n.ideal_step_time_s}};
    }
    engine_bandwidth_fixes(d, frac);
    d->reject = DxStatement{DxCode::kRejectComputeKernels, {fc, or_none(n.implied_flop_utilization), frac, 1 / frac}};
    return;
  }
  const double base = n.ceiling_aggregate.value_or(0);
  const double kv_total = n.batch * n.kv_bytes_per_seq.value_or(0);
  if (n.int8_ceiling_aggregate || n.int4_ceiling_aggregate) {
    std::optional<double> gain;
    // {ceiling now, int8 ceiling, int8 gain, int4 ceiling, int4 gain, fraction of ceiling, at today's fraction}
    std::vector<double> v(7, kNone);
    v[0] = base / n.batch;
    if (n.int8_ceiling_aggregate) {
      gain = *n.int8_ceiling_aggregate / base;
      v[1] = *n.int8_ceiling_aggregate / n.batch;
      v[2] = *gain;
    }
    if (n.int4_ceiling_aggregate) {
      const double g4 = *n.int4_ceiling_aggregate / base;
      if (!gain) gain = g4;
      v[3] = *n.int4_ceiling_aggregate / n.batch;
      v[4] = g4;
    }
    if (n.measured_per_seq) {
      v[5] = frac;
      v[6] = frac * base / n.batch * *gain;
    }
    fix(d, DxCode::kFixQuantizeForSpeed, std::move(v), gain);
  }
  if (n.weight_bytes && kv_total > 0.5 * *n.weight_bytes) {
    const double g = decode_tokens_per_sec(n.bandwidth, *n.weight_bytes, n.kv_bytes_per_seq.value_or(0) / 2, n.batch) /
                     *n.bw_ceiling_aggregate;
    fix(d, DxCode::kFixShrinkKvRead, {kv_total, *n.step_bytes, g}, g);
  }
  if (n.step_intensity && n.ridge > 0 && *n.step_intensity * 2 < n.ridge) {
    fix(d, DxCode::kFixSpeculative, {*n.step_intensity, n.ridge});
  }
  if (n.ridge > 0 && n.step_intensity && *n.step_intensity * 4 < n.ridge) {
    // Never a batch HBM cannot hold: capped at the sequences that fit at this context.
    const double b2 = std::min(std::floor(std::max(4.0, std::min(n.ridge / 2, n.batch * 8))),
                               n.max_sequences.value_or(std::numeric_limits<double>::infinity()));
    if (b2 > n.batch) {
      double agg = decode_tokens_per_sec(n.bandwidth, *n.weight_bytes, n.kv_bytes_per_seq.value_or(0), b2);
      if (n.compute_ceiling_aggregate) agg = std::min(agg, *n.compute_ceiling_aggregate);
      const bool all_fit = n.max_sequences && b2 == *n.max_sequences;
      fix(d, DxCode::kFixBatch, {b2, all_fit ? 1.0 : 0.0, agg, agg / base}, agg / base);
    }
  }
  d->reject = DxStatement{DxCode::kRejectComputeKernels, {fc, or_none(n.implied_flop_utilization), frac, 1 / frac}};
}

void compute_near(Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double fc = *n.compute_fraction;
  d->regime = Regime::kComputeBound;
  d->detail = {DxCode::kDetailComputeBound, {fc}};
  // {FLOP use, bandwidth use, batch, step intensity, ridge}; the last three only with a ridge.
  std::vector<double> settled = {fc, or_none(n.bandwidth_fraction), kNone, kNone, kNone};
  if (n.step_intensity && n.ridge > 0) settled = {settled[0], settled[1], n.batch, *n.step_intensity, n.ridge};
  d->settled_by = {DxCode::kSettledCompute, std::move(settled)};
  if (n.in_kernel_flop_rate) {
    say(&d->findings, DxCode::kFindingInKernel, {*n.compute_kernel_share, fc, *n.in_kernel_flop_rate});
  }
  if (n.memory_bound_share && *n.memory_bound_share >= 0.05 && n.amdahl_memory_bound) {
    const double m = *n.memory_bound_share;
    say(&d->findings, DxCode::kFindingMemoryBoundShare, {m, *n.amdahl_memory_bound});
    fix(d, DxCode::kFixFuseMemoryBound, {m, *n.amdahl_memory_bound, amdahl_speedup(m / 2)}, amdahl_speedup(m / 2));
  }
  if (n.cast_share && *n.cast_share >= 0.03) {
    fix(d, DxCode::kFixRemoveCasts, {*n.cast_share, amdahl_speedup(*n.cast_share)}, amdahl_speedup(*n.cast_share));
  }
  if (d->modeled && d->phase == Phase::kDecode) {
    if (n.fp8_ceiling_aggregate) {
      if (auto v = vary_engine(*d, weights_to(Dtype::kFp8))) {
        const double g = aggregate(*v) / *n.ceiling_aggregate;
        fix_with(d, DxCode::kFixFp8Compute,
                 {d->modeled->prepared.peak_flops, v->after.prepared.peak_flops, *n.ceiling_aggregate, aggregate(*v), g},
                 g, *std::move(v));
      }
    }
  } else if (d->phase == Phase::kDecode && n.fp8_ceiling_aggregate && n.ceiling_aggregate) {
    const double g = *n.fp8_ceiling_aggregate / *n.ceiling_aggregate;
    fix(d, DxCode::kFixFp8Compute,
        {n.peak_flops, *n.fp8_peak_flops, *n.ceiling_aggregate, *n.fp8_ceiling_aggregate, g}, g);
  } else if (d->phase != Phase::kDecode && n.compute_kernel_share && n.gemm_share) {
    const double gemm = *n.gemm_share;
    fix(d, DxCode::kFixFp8Gemms, {gemm, amdahl_speedup(gemm / 2)}, amdahl_speedup(gemm / 2));
  }
  if (n.profiler_flop_excess && *n.profiler_flop_excess > 1.5) {
    const std::vector<double> v = {*n.flop_utilization_profiled, *n.profiler_flop_excess, *n.implied_flop_utilization};
    say(&d->findings, DxCode::kFindingProfilerExcess, v);
    // {profiled, implied, excess}
    fix(d, DxCode::kFixFindExtraFlops, {v[0], v[2], v[1]}, *n.profiler_flop_excess);
  }
  if (d->phase == Phase::kDecode && d->modeled) {
    // More replicas: the same split twice over (dp x 2), each replica at the same batch.
    ScenarioChange more;
    more.split = d->scenario->options.split;
    more.split->dp *= 2;
    if (auto v = vary_engine(*d, more)) {
      const double g = aggregate(*v) / *n.ceiling_aggregate;
      fix_with(d, DxCode::kFixScaleOut, {g}, g, *std::move(v));
    } else {
      fix(d, DxCode::kFixScaleOut, {});
    }
    const auto v4 = dtype_bits(d->modeled->prepared.weight_dtype) > 4 ? vary_engine(*d, weights_to(Dtype::kInt4))
                                                                      : std::nullopt;
    if (v4) {
      const DecodeStep& a = v4->after.result.decode;
      const double rows = static_cast<double>(a.batch) * static_cast<double>(v4->after.prepared.split.dp);
      const double W = static_cast<double>(d->modeled->result.memory.weights.total());
      const double w4 = static_cast<double>(v4->after.result.memory.weights.total());
      // {bandwidth use, FLOP use, bandwidth ceiling at int4, compute ceiling, int4 ceiling, gain,
      //  HBM back, W, W at int4}: the engine's step at int4, per GPU.
      d->reject = DxStatement{DxCode::kRejectInt4ForSpeed,
                              {or_none(n.bandwidth_fraction), fc, rows / a.memory_seconds, rows / a.compute_seconds,
                               a.tokens_per_s_aggregate, a.tokens_per_s_aggregate / *n.ceiling_aggregate, W - w4, W,
                               w4}};
      d->reject_variation = *v4;
    } else {
      d->reject = DxStatement{DxCode::kRejectQuantForSpeed, {}};
    }
  } else if (d->phase == Phase::kDecode) {
    fix(d, DxCode::kFixScaleOut, {});
    if (n.int4_ceiling_aggregate && n.ceiling_aggregate) {
      const double g = *n.int4_ceiling_aggregate / *n.ceiling_aggregate;
      const double w4 = *n.params * 0.5;
      // {bandwidth use, FLOP use, bandwidth ceiling at int4, compute ceiling, int4 ceiling, gain,
      //  HBM back, W, W at int4}
      d->reject = DxStatement{
          DxCode::kRejectInt4ForSpeed,
          {or_none(n.bandwidth_fraction), fc,
           decode_tokens_per_sec(n.bandwidth, w4, n.kv_bytes_per_seq.value_or(0), n.batch),
           *n.compute_ceiling_aggregate, *n.int4_ceiling_aggregate, g, *n.weight_bytes - w4, *n.weight_bytes, w4}};
    } else {
      d->reject = DxStatement{DxCode::kRejectQuantForSpeed, {}};
    }
  } else {
    if (d->phase == Phase::kPrefill) fix(d, DxCode::kFixSplitPrefillFloor, {or_none(n.ttft_floor_s)});
    const double T = d->phase == Phase::kTraining ? n.tokens_per_step.value_or(0) : n.prefill_tokens.value_or(0);
    if (d->phase == Phase::kTraining) {
      d->reject = DxStatement{DxCode::kRejectLargerMicrobatch,
                              {T > 0 ? T : kNone, n.ridge, n.in_kernel_flop_rate.value_or(fc)}};
    } else {
      d->reject = DxStatement{DxCode::kRejectQuantForPrefill, {T > 0 ? T : kNone, n.ridge}};
    }
  }
}

void overhead(Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double idle = *n.idle_share;
  d->regime = Regime::kOverheadBound;
  const double frac = n.fraction_of_ceiling.value_or(achieved(n));
  d->detail = {DxCode::kDetailOverhead, {idle, n.fraction_of_ceiling ? frac : kNone}};
  const double kernels = static_cast<double>(*n.kernels_per_step);
  if (n.busy_share) {
    d->settled_by = {DxCode::kSettledOverheadBusy,
                     {kernels, *n.kernel_us_mid, *n.kernel_time_s, *n.step_time_s, *n.busy_share, idle}};
  } else {
    d->settled_by = {DxCode::kSettledOverheadGaps,
                     {kernels, *n.gap_us_lo, *n.gap_us_hi, *n.gap_share, *n.gap_share_lo, *n.gap_share_hi}};
  }
  if (n.gap_share && n.busy_share) {
    say(&d->findings, DxCode::kFindingLaunchGaps, {*n.gap_share, *n.gap_share_lo, *n.gap_share_hi});
  }
  // {idle, speedup, per-sequence now, per-sequence after}
  fix(d, DxCode::kFixCudaGraphs,
      {idle, *n.speedup_no_idle, or_none(n.measured_per_seq),
       n.measured_per_seq ? *n.measured_per_seq * *n.speedup_no_idle : kNone},
      *n.speedup_no_idle);
  std::optional<double> fuse_gain;
  // {kernels, kernel time, ideal step time, gain}; the last three only when fusion can gain.
  std::vector<double> fuse = {kernels, kNone, kNone, kNone};
  if (n.ideal_step_time_s && n.kernel_time_s && *n.kernel_time_s > *n.ideal_step_time_s) {
    fuse_gain = *n.kernel_time_s / *n.ideal_step_time_s;
    fuse = {kernels, *n.kernel_time_s, *n.ideal_step_time_s, *fuse_gain};
  }
  fix(d, DxCode::kFixKernelFusion, std::move(fuse), fuse_gain);
  if (n.speedup_infinite_gpu) {
    double bw15 = kNone;  // 1.5× the bandwidth saves a third of kernel time
    if (n.step_time_s && n.kernel_time_s) bw15 = *n.step_time_s / (*n.step_time_s - *n.kernel_time_s / 3);
    d->reject = DxStatement{DxCode::kRejectBiggerGpu, {1 - idle, *n.speedup_infinite_gpu, bw15}};
  }
}

void far_below_unexplained(Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double a = achieved(n);
  d->regime = Regime::kOverheadBound;
  d->confirmed = false;
  d->detail = {DxCode::kDetailSuspectedOverhead, {a}};
  d->settled_by = {DxCode::kSettledBothFarBelow, {or_none(n.compute_fraction), or_none(n.bandwidth_fraction)}};
  fix(d, DxCode::kFixTakeTimeline, {1 - a});
  fix(d, DxCode::kFixGraphsThenFusion, {a, 1 / std::max(a, 1e-9)}, 1 / std::max(a, 1e-9));
  const bool bw = roofline_regime(*d) == Regime::kBandwidthBound;
  const double roof = bw ? n.bandwidth_fraction.value_or(a) : n.compute_fraction.value_or(a);
  d->reject = DxStatement{bw ? DxCode::kRejectQuantFirst : DxCode::kRejectFasterGemmsFirst,
                          {roof, roof / 2, amdahl_speedup(roof / 2)}};
}

void prefill_scores(Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double fc = n.compute_fraction.value_or(0);
  d->regime = Regime::kComputeBound;
  d->detail = {DxCode::kDetailUnfusedAttention, {fc, *n.score_matrix_bytes}};
  d->settled_by = {DxCode::kSettledScoresMatch,
                   {*n.score_matrix_bytes, *n.peak_transient_bytes, *n.transient_over_scores}};
  if (n.score_traffic_s) {
    // {S, layers, HBM time; then attention share, attention time, its floor, FLOP use, when measured}
    std::vector<double> v = {*n.score_matrix_bytes, n.layers, *n.score_traffic_s, kNone, kNone, kNone, kNone};
    if (n.attention_time_s) {
      v[3] = *n.attention_share;
      v[4] = *n.attention_time_s;
      v[5] = or_none(n.attention_floor_s);
      v[6] = fc;
    }
    say(&d->findings, DxCode::kFindingScoreTraffic, std::move(v));
  }
  std::optional<double> gain;
  // {S; then attention time, its floor, TTFT, fused TTFT, gain when the fused bound is known}
  std::vector<double> eff = {*n.score_matrix_bytes, kNone, kNone, kNone, kNone, kNone};
  if (n.ttft_fused_s) {
    gain = *n.ttft_s / *n.ttft_fused_s;
    eff = {*n.score_matrix_bytes, *n.attention_time_s, *n.attention_floor_s, *n.ttft_s, *n.ttft_fused_s, *gain};
  }
  fix(d, DxCode::kFixFusedAttention, std::move(eff), gain);
  if (n.ttft_fused_s && n.prefill_linear_flops && n.attention_time_s) {
    const double rest = *n.ttft_s - *n.attention_time_s;
    const double floor = *n.prefill_linear_flops / n.peak_flops;
    fix(d, DxCode::kFixProfileGemms, {rest, *n.prefill_linear_flops, floor, floor / rest}, rest / floor);
  }
  if (n.ttft_floor_s) fix(d, DxCode::kFixSplitPrefillWhole, {*n.ttft_floor_s});
  if (n.itl_fraction && *n.itl_fraction >= kNearCeiling) {
    say(&d->findings, DxCode::kFindingItlNearFloor, {*n.itl_s, *n.itl_floor_s, *n.itl_fraction});
  }
  d->reject = DxStatement{DxCode::kRejectSpecOrQuantPrefill, {or_none(n.itl_fraction), *n.prefill_tokens, n.ridge}};
}

void kernels_slow(Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double a = achieved(n);
  d->regime = roofline_regime(*d);
  d->detail = {DxCode::kDetailKernelsSlow, {a}};
  d->settled_by = {DxCode::kSettledKernelsSlow, {*n.idle_share, a}};
  fix(d, DxCode::kFixProfileKernels, {1 / std::max(a, 1e-9)});
}

void no_measurement(Diagnosis* d) {
  d->regime = roofline_regime(*d);
  d->confirmed = false;
  d->detail = {DxCode::kDetailNoMeasurement, {}};
  d->settled_by = d->n.step_intensity ? DxStatement{DxCode::kSettledIntensity, {*d->n.step_intensity, d->n.ridge}}
                                      : DxStatement{DxCode::kSettledPhaseAlone, {}};
}

void ask_first(Diagnosis* d) {
  const DiagnosisNumbers& n = d->n;
  const bool have_util = n.compute_fraction || n.bandwidth_fraction || n.fraction_of_ceiling;
  if (!have_util) say(&d->ask_first, DxCode::kAskUtilizations);
  const double a = achieved(n);
  if (!n.idle_share && (!have_util || a < kRoomForOverhead)) {
    if (have_util) {
      say(&d->ask_first, DxCode::kAskTimeline, {a, 1 - a});
    } else {
      say(&d->ask_first, DxCode::kAskTimelineNoUtilization);
    }
  }
}

}  // namespace

Diagnosis diagnose(const Evidence& e, const GpuSpec& gpu, const Scenario* scenario) {
  Diagnosis d;
  d.phase = diagnose_internal::infer_phase(e, &d.phase_inferred);
  if (scenario != nullptr && d.phase == Phase::kDecode) {
    if (auto a = evaluate_scenario(*scenario); a.ok()) {
      d.scenario = *scenario;
      d.modeled = *std::move(a);
    }
  }
  diagnose_internal::compute_numbers(e, gpu, &d);  // every number first; the rules below read d.n only
  const DiagnosisNumbers& n = d.n;
  const double fc = n.compute_fraction.value_or(0), fb = n.bandwidth_fraction.value_or(0);
  const bool engine_near = d.modeled && !e.profile.flop_utilization && !e.profile.bandwidth_utilization &&
                           n.fraction_of_ceiling && *n.fraction_of_ceiling >= kNearCeiling;
  const bool scores_explain = n.transient_over_scores && *n.transient_over_scores >= 0.5 &&
                              *n.transient_over_scores <= 2 && n.peak_transient_bytes;
  if (check_capacity(&d)) {
    // decided
  } else if (n.fraction_of_ceiling && *n.fraction_of_ceiling > kAboveCeiling) {
    above_ceiling(&d);
  } else if (fc >= kNearCeiling || fb >= kNearCeiling) {
    if (fc >= fb) {
      compute_near(&d);
    } else {
      bandwidth_near(&d);
    }
  } else if (engine_near) {
    // Near the engine's ceiling with neither roof at half: the step's other terms
    // (communication, the compute/memory split) decide, as the engine says.
    if (d.modeled->result.decode.regime == DeploymentRegime::kComputeBound) {
      compute_near(&d);
    } else {
      bandwidth_near(&d);
    }
  } else if (n.idle_share && *n.idle_share >= kIdleBound) {
    overhead(&d);
  } else if (d.phase == Phase::kPrefill && scores_explain) {
    prefill_scores(&d);
  } else if (n.idle_share) {
    kernels_slow(&d);
  } else if (n.compute_fraction || n.bandwidth_fraction) {
    far_below_unexplained(&d);
  } else {
    no_measurement(&d);
  }
  if (d.phase_inferred) say(&d.ignored, DxCode::kIgnoredPhaseInferred);
  ask_first(&d);
  return d;
}

}  // namespace modelcalc
