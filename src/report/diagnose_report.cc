#include "diagnose_report.h"

#include <fmt/format.h>

#include "format.h"

namespace modelcalc {

namespace {

using nlohmann::json;

std::string gbs(double b) { return fmt_sig(b / 1e9, 4) + " GB"; }
std::string rate(double bps) { return fmt_si(bps, "B/s"); }
std::string flops(double f) { return fmt_si(f, "FLOP/s", 5); }
std::string sec(double s) { return format_value(s, Unit::kSeconds); }

std::string unit_name(Unit u) {
  switch (u) {
    case Unit::kBytes: return "B";
    case Unit::kFlop: return "FLOP";
    case Unit::kFlopPerS: return "FLOP/s";
    case Unit::kBytesPerS: return "B/s";
    case Unit::kTokens: return "tokens";
    case Unit::kTokensPerS: return "tokens/s";
    case Unit::kFlopPerByte: return "FLOP/byte";
    case Unit::kSequences: return "sequences";
    case Unit::kFraction: return "fraction";
    case Unit::kFactor: return "factor";
    case Unit::kSeconds: return "s";
    default: return "";
  }
}

// Adds a computed evidence line when `v` is set.
struct Lines {
  std::vector<Line>* out;
  void add(const std::optional<double>& v, std::string key, std::string label, Unit u, const FormulaText& f,
           std::vector<Term> terms, std::string comment = "") {
    if (!v) return;
    Line l;
    l.key = "numbers." + std::move(key);
    l.label = std::move(label);
    l.value = *v;
    l.unit = u;
    l.formula = &f;
    l.terms = std::move(terms);
    l.comment = std::move(comment);
    out->push_back(std::move(l));
  }
};

void evidence_lines(const Evidence& e, const Diagnosis& d, std::vector<Line>* out) {
  const DiagnosisNumbers& n = d.n;
  Lines L{out};
  const std::string bw = rate(n.bandwidth), peak = flops(n.peak_flops);
  const std::string N = n.params ? fmt_si(*n.params, "", 4) : "?";
  const std::string B = fmt_fixed(n.batch, 0);
  const std::string W = n.weight_bytes ? gbs(*n.weight_bytes) : "?";
  const std::string KV = gbs(n.kv_bytes_per_seq.value_or(0));
  L.add(n.weight_bytes, "weight_bytes", "Weights", Unit::kBytes, fx::kWeightBytes,
        {term("N", N), term("b", fmt_sig(n.bytes_per_param.value_or(0), 3) + " B")});
  if (e.model.spec && e.model.spec->is_mla()) {
    // MLA caches one latent (+ RoPE key) per token and layer, not per-head K and V.
    const ModelSpec& s = *e.model.spec;
    L.add(n.kv_bytes_per_seq, "kv_bytes_per_sequence", "KV cache per sequence (MLA latent)", Unit::kBytes,
          fx::kDxKvPerSeqMla,
          {term("L", n.layers), term("d_c", s.n_lora_kv + s.n_rot),
           term("b", fmt_sig(n.bytes_per_param.value_or(2), 3) + " B"), term("T", n.context)});
  } else if (e.model.spec && e.model.spec->n_swa_layers() > 0) {  // sliding-window layers keep the window
    const ModelSpec& s = *e.model.spec;
    L.add(n.kv_bytes_per_seq, "kv_bytes_per_sequence", "KV cache per sequence", Unit::kBytes, fx::kDxKvPerSeqSwa,
          {term("d_kv", n.d_kv), term("b", fmt_sig(n.bytes_per_param.value_or(2), 3) + " B"),
           term("L_full", s.n_layer - s.n_swa_layers()), term("L_swa", s.n_swa_layers()), term("T", n.context),
           term("window", s.n_swa)});
  } else {
    L.add(n.kv_bytes_per_seq, "kv_bytes_per_sequence", "KV cache per sequence", Unit::kBytes, fx::kDxKvPerSeq,
          {term("L", n.layers), term("d_kv", n.d_kv), term("b", fmt_sig(n.bytes_per_param.value_or(2), 3) + " B"),
           term("T", n.context)});
  }
  // Decode.
  L.add(n.step_bytes, "step_bytes", "Bytes read per decode step", Unit::kBytes, fx::kStepBytes,
        {term("W", W), term("B", B), term("KV", KV)});
  const bool modeled = n.modeled_flops.has_value();  // ceilings from the deployment engine
  if (modeled) {
    const double t = n.ideal_step_time_s.value_or(0);
    L.add(n.bw_ceiling_per_seq, "bandwidth_ceiling_per_sequence", "Ceiling per sequence (modeled deployment)",
          Unit::kTokensPerS, fx::kDepTpsSeq, {term("t_step", t)});
    if (n.batch > 1) {
      L.add(n.bw_ceiling_aggregate, "bandwidth_ceiling_aggregate", "Ceiling, aggregate (modeled deployment)",
            Unit::kTokensPerS, fx::kDepTpsAgg, {term("B", n.batch), term("dp", 1.0), term("t_step", t)});
    }
  } else {
    L.add(n.bw_ceiling_per_seq, "bandwidth_ceiling_per_sequence", "Bandwidth ceiling per sequence", Unit::kTokensPerS,
          fx::kDxTpsPerSeq, {term("bw", bw), term("W", W), term("B", B), term("KV", KV)});
    if (n.batch > 1) {
      L.add(n.bw_ceiling_aggregate, "bandwidth_ceiling_aggregate", "Bandwidth ceiling, aggregate", Unit::kTokensPerS,
            fx::kTpsAggregate, {term("bw", bw), term("W", W), term("B", B), term("KV", KV)});
    }
  }
  L.add(n.compute_ceiling_aggregate, "compute_ceiling_aggregate", "Compute ceiling, aggregate", Unit::kTokensPerS,
        fx::kDxComputeCeiling, {term("peak", peak), term("N", N)});
  L.add(n.step_intensity, "step_intensity", "Decode step intensity", Unit::kFlopPerByte,
        modeled ? fx::kIntensity : fx::kDxStepIntensity,
        modeled ? std::vector<Term>{term("F", n.modeled_flops.value_or(0)), term("bytes", n.modeled_bytes.value_or(0))}
                : std::vector<Term>{term("N", N), term("B", B),
                                    term("step_bytes", n.step_bytes ? gbs(*n.step_bytes) : "?")},
        n.ridge > 0 && n.step_intensity ? (*n.step_intensity < n.ridge ? "(below the ridge: bandwidth-bound)"
                                                                       : "(past the ridge: compute-bound)")
                                        : "");
  if (n.ridge > 0 && (n.step_intensity || d.phase != Phase::kDecode)) {
    L.add(n.ridge, "ridge", "Machine ridge point", Unit::kFlopPerByte, fx::kRidge, {term("peak", peak), term("bw", bw)});
  }
  if (d.phase == Phase::kDecode && n.measured_aggregate && n.ceiling_aggregate) {
    const bool per_seq = n.batch == 1;
    L.add(n.fraction_of_ceiling, "fraction_of_ceiling", "Measured ÷ ceiling", Unit::kFraction, fx::kDxFraction,
          {term("measured", format_value(per_seq ? *n.measured_per_seq : *n.measured_aggregate, Unit::kTokensPerS)),
           term("ceiling", format_value(per_seq ? *n.ceiling_aggregate : *n.ceiling_aggregate, Unit::kTokensPerS))});
  }
  L.add(n.implied_flop_utilization, "implied_flop_utilization", "FLOP use the measured tokens imply", Unit::kFraction,
        fx::kMfu,
        {term("tps", n.measured_aggregate ? format_value(*n.measured_aggregate, Unit::kTokensPerS) : "?"),
         term("k", int64_t{2}), term("N", N), term("peak", peak)});
  L.add(n.profiler_flop_excess, "profiler_flop_excess", "Profiled ÷ implied FLOP use", Unit::kFactor, fx::kDxFlopExcess,
        {term("profiled", e.profile.flop_utilization ? format_value(*e.profile.flop_utilization, Unit::kFraction) : "?"),
         term("implied", n.implied_flop_utilization ? format_value(*n.implied_flop_utilization, Unit::kFraction) : "?")});
  const std::vector<Term> q_common = {term("B", B), term("bw", bw), term("N", N), term("KV", KV), term("peak", peak)};
  auto with = [&](std::vector<Term> t, Term extra) {
    t.push_back(std::move(extra));
    return t;
  };
  L.add(n.int8_ceiling_aggregate, "int8_ceiling_aggregate", "Ceiling with int8 weights (aggregate)", Unit::kTokensPerS,
        fx::kDxQuantCeiling, with(q_common, term("b_q", "1 B")));
  L.add(n.int4_ceiling_aggregate, "int4_ceiling_aggregate", "Ceiling with int4 weights (aggregate)", Unit::kTokensPerS,
        fx::kDxQuantCeiling, with(q_common, term("b_q", "0.5 B")));
  L.add(n.fp8_ceiling_aggregate, "fp8_ceiling_aggregate", "Ceiling with fp8 compute (aggregate)", Unit::kTokensPerS,
        fx::kDxFp8Ceiling, with(q_common, term("peak_fp8", n.fp8_peak_flops ? flops(*n.fp8_peak_flops) : "?")));
  // Prefill.
  const std::string T = n.prefill_tokens ? fmt_fixed(*n.prefill_tokens, 0) : "?";
  L.add(n.prefill_linear_flops, "prefill_linear_flops", "Prefill linear FLOPs", Unit::kFlop, fx::kPrefillLinear,
        {term("N_blocks", N), term("T", T)});
  L.add(n.prefill_attention_flops, "prefill_attention_flops", "Prefill attention FLOPs", Unit::kFlop,
        fx::kPrefillAttention, {term("T", T), term("d_attn", n.d_attn),
                                term("L", n.layers)});
  if (n.prefill_linear_flops && n.prefill_attention_flops) {
    L.add(n.prefill_flops, "prefill_flops", "Prefill FLOPs", Unit::kFlop, fx::kPrefillTotal,
          {term("linear", fmt_sig(*n.prefill_linear_flops, 4)), term("attention", fmt_sig(*n.prefill_attention_flops, 4))});
  }
  L.add(n.ttft_floor_s, "ttft_floor_s", "TTFT floor at peak FLOP/s", Unit::kSeconds, fx::kDxTtftFloor,
        {term("F", n.prefill_flops ? fmt_sig(*n.prefill_flops, 4) : "?"), term("peak", peak)});
  if (d.phase == Phase::kPrefill) {
    L.add(n.fraction_of_ceiling, "fraction_of_ceiling", "Floor ÷ measured TTFT", Unit::kFraction, fx::kDxTtftFraction,
          {term("TTFT_floor", n.ttft_floor_s ? sec(*n.ttft_floor_s) : "?"),
           term("TTFT", e.measured.ttft_s ? sec(*e.measured.ttft_s) : "?")});
  }
  L.add(n.score_matrix_bytes, "score_matrix_bytes", "Attention score matrix, one layer", Unit::kBytes, fx::kDxScoreBytes,
        {term("h", n.heads), term("T", T), term("b", "2 B")}, "(what an unfused kernel materializes)");
  L.add(n.transient_over_scores, "transient_over_scores", "Peak transient ÷ score matrix", Unit::kFactor,
        fx::kDxTransientRatio,
        {term("transient", e.profile.peak_transient_bytes ? gbs(*e.profile.peak_transient_bytes) : "?"),
         term("S", n.score_matrix_bytes ? gbs(*n.score_matrix_bytes) : "?")});
  L.add(n.score_traffic_s, "score_traffic_s", "HBM time to stream the scores", Unit::kSeconds, fx::kDxScoreTraffic,
        {term("S", n.score_matrix_bytes ? gbs(*n.score_matrix_bytes) : "?"), term("L", n.layers), term("bw", bw)},
        "(QK^T write, softmax read + write, AV read)");
  const auto attn = e.profile.kernel_time_fraction.find("attention");
  L.add(n.attention_time_s, "attention_time_s", "Attention kernel time", Unit::kSeconds, fx::kDxAttentionTime,
        {term("share", attn != e.profile.kernel_time_fraction.end() ? format_value(attn->second, Unit::kFraction) : "?"),
         term("TTFT", e.measured.ttft_s ? sec(*e.measured.ttft_s) : "?")});
  L.add(n.attention_floor_s, "attention_floor_s", "Attention FLOPs at peak", Unit::kSeconds, fx::kDxAttentionFloor,
        {term("F_attn", n.prefill_attention_flops ? fmt_sig(*n.prefill_attention_flops, 4) : "?"), term("peak", peak)});
  L.add(n.ttft_fused_s, "ttft_fused_s", "TTFT with fused attention (bound)", Unit::kSeconds, fx::kDxTtftFused,
        {term("TTFT", e.measured.ttft_s ? sec(*e.measured.ttft_s) : "?"),
         term("t_attn", n.attention_time_s ? sec(*n.attention_time_s) : "?"),
         term("t_floor", n.attention_floor_s ? sec(*n.attention_floor_s) : "?")});
  L.add(n.peak_memory_bytes, "peak_memory_bytes", "Weights + peak transient", Unit::kBytes, fx::kDxPeakMemory,
        {term("W", W), term("transient", e.profile.peak_transient_bytes ? gbs(*e.profile.peak_transient_bytes) : "?")},
        n.capacity > 0 ? "(of " + gbs(n.capacity) + ")" : "");
  L.add(n.itl_floor_s, "itl_floor_s", "ITL floor", Unit::kSeconds, fx::kDxItlFloor,
        {term("W", W), term("B", B), term("KV", gbs(n.kv_bytes_per_seq.value_or(0))), term("bw", bw)});
  L.add(n.itl_fraction, "itl_fraction", "ITL floor ÷ measured ITL", Unit::kFraction, fx::kDxItlFraction,
        {term("ITL_floor", n.itl_floor_s ? sec(*n.itl_floor_s) : "?"),
         term("ITL", e.measured.itl_s ? sec(*e.measured.itl_s) : "?")});
  // Training.
  L.add(n.tokens_per_step, "tokens_per_step", "Tokens per step", Unit::kTokens, fx::kDxTokensPerStep,
        {term("B", B), term("T", n.context)});
  L.add(n.train_ceiling_tps, "train_ceiling_tokens_per_s", "Training ceiling", Unit::kTokensPerS, fx::kDxTrainCeiling,
        {term("peak", peak), term("N", N)});
  if (d.phase == Phase::kTraining && e.measured.tokens_per_s_aggregate) {
    L.add(n.fraction_of_ceiling, "fraction_of_ceiling", "Measured ÷ ceiling", Unit::kFraction, fx::kDxFraction,
          {term("measured", format_value(*e.measured.tokens_per_s_aggregate, Unit::kTokensPerS)),
           term("ceiling", n.train_ceiling_tps ? format_value(*n.train_ceiling_tps, Unit::kTokensPerS) : "?")});
  }
  // Timeline.
  const Profile& p = e.profile;
  const std::string kernels = p.kernels_per_step ? group_digits(*p.kernels_per_step) : "?";
  L.add(n.step_time_s, "step_time_s", "Measured step time", Unit::kSeconds, fx::kDxStepTime,
        {term("tps", n.measured_per_seq ? format_value(*n.measured_per_seq, Unit::kTokensPerS) : "?")},
        "(one token per sequence)");
  if (modeled) {
    L.add(n.ideal_step_time_s, "ideal_step_time_s", "Step time of the modeled deployment", Unit::kSeconds, fx::kDepStep,
          {term("t_compute", n.modeled_compute_s.value_or(0)), term("t_memory", n.modeled_memory_s.value_or(0)),
           term("t_comm", n.modeled_comm_s.value_or(0))});
  } else {
    L.add(n.ideal_step_time_s, "ideal_step_time_s", "Step time at the bandwidth ceiling", Unit::kSeconds,
          fx::kDxIdealStep, {term("step_bytes", n.step_bytes ? gbs(*n.step_bytes) : "?"), term("bw", bw)});
  }
  L.add(n.kernel_time_s, "kernel_time_s", "Kernel time per step", Unit::kSeconds, fx::kDxKernelTime,
        {term("kernels", kernels), term("t_kernel", p.kernel_us ? fmt_sig(p.kernel_us->mid(), 4) + " µs" : "?")},
        p.kernel_us ? "(mid of " + fmt_sig(p.kernel_us->lo, 3) + "–" + fmt_sig(p.kernel_us->hi, 3) + " µs)" : "");
  L.add(n.gap_time_s, "gap_time_s", "Gap time per step", Unit::kSeconds, fx::kDxGapTime,
        {term("kernels", kernels), term("t_gap", p.gap_us ? fmt_sig(p.gap_us->mid(), 4) + " µs" : "?")},
        p.gap_us ? "(mid of " + fmt_sig(p.gap_us->lo, 3) + "–" + fmt_sig(p.gap_us->hi, 3) + " µs)" : "");
  L.add(n.gap_share, "gap_share", "Gap share of the timeline", Unit::kFraction, fx::kDxGapShare,
        {term("t_gap", p.gap_us ? fmt_sig(p.gap_us->mid(), 4) + " µs" : "?"),
         term("t_kernel", p.kernel_us ? fmt_sig(p.kernel_us->mid(), 4) + " µs" : "?")},
        n.gap_share_lo ? "(range " + format_value(*n.gap_share_lo, Unit::kFraction) + "–" +
                             format_value(*n.gap_share_hi, Unit::kFraction) + ")"
                       : "");
  L.add(n.busy_share, "busy_share", "GPU busy share of the step", Unit::kFraction, fx::kDxBusyShare,
        {term("kernel_time", n.kernel_time_s ? sec(*n.kernel_time_s) : "?"),
         term("step_time", n.step_time_s ? sec(*n.step_time_s) : "?")});
  if (n.busy_share) {
    L.add(n.idle_share, "idle_share", "Idle share of the step", Unit::kFraction, fx::kDxIdleShare,
          {term("busy", format_value(*n.busy_share, Unit::kFraction))});
  }
  if (n.kernel_time_s && n.idle_share) {
    L.add(n.speedup_no_idle, "speedup_no_idle", "Speedup if the GPU never idled", Unit::kFactor, fx::kDxNoIdle,
          {term("step_time", n.step_time_s && n.busy_share ? sec(*n.step_time_s)
                                                           : sec(*n.kernel_time_s + n.gap_time_s.value_or(0))),
           term("kernel_time", sec(*n.kernel_time_s))});
    L.add(n.speedup_infinite_gpu, "speedup_infinite_gpu", "Speedup from an infinitely fast GPU", Unit::kFactor,
          fx::kDxInfiniteGpu,
          {term("step_time", n.step_time_s && n.busy_share ? sec(*n.step_time_s)
                                                           : sec(*n.kernel_time_s + n.gap_time_s.value_or(0))),
           term("kernel_time", sec(*n.kernel_time_s))});
  }
  // Kernel mix.
  auto share = [&](const char* kind) {
    const auto it = p.kernel_time_fraction.find(kind);
    return term(kind, it == p.kernel_time_fraction.end() ? "0" : format_value(it->second, Unit::kFraction));
  };
  L.add(n.compute_kernel_share, "compute_kernel_share", "GEMM + attention share of kernel time", Unit::kFraction,
        fx::kDxComputeShare, {share("gemm"), share("attention")});
  L.add(n.in_kernel_flop_rate, "in_kernel_flop_rate", "FLOP rate while those kernels run (≥)", Unit::kFraction,
        fx::kDxInKernel,
        {term("flop_util", p.flop_utilization ? format_value(*p.flop_utilization, Unit::kFraction) : "?"),
         term("compute_share", n.compute_kernel_share ? format_value(*n.compute_kernel_share, Unit::kFraction) : "?")});
  L.add(n.memory_bound_share, "memory_bound_share", "Memory-bound share of kernel time", Unit::kFraction, fx::kDxMemShare,
        {share("norm"), share("elementwise"), share("cast"), share("softmax"), share("copy")});
  L.add(n.amdahl_memory_bound, "amdahl_memory_bound", "Speedup if that work vanished", Unit::kFactor, fx::kDxAmdahl,
        {term("s", n.memory_bound_share ? format_value(*n.memory_bound_share, Unit::kFraction) : "?")});
}

std::string title(const Evidence& e, const GpuSpec& gpu, const Diagnosis& d, const std::string& source) {
  std::string t = "modelcalc diagnose — " + source;
  if (!e.description.empty()) t += "\n  " + e.description;
  std::string setup = std::string(phase_name(d.phase)) + (d.phase_inferred ? " (inferred)" : "");
  if (d.n.params) {
    setup += fmt::format(", {} params in {}", fmt_si(*d.n.params, "", 4),
                         dtype_name(e.model.dtype.value_or(Dtype::kFp16)));
  }
  setup += fmt::format(", batch {}", fmt_fixed(d.n.batch, 0));
  if (d.n.context > 0) setup += fmt::format(", context {}", fmt_fixed(d.n.context, 0));
  if (gpu.bandwidth_bytes_per_s > 0) {
    setup += fmt::format(", on {}{} ({}, {}, {})", e.gpus.value_or(1) > 1 ? std::to_string(*e.gpus) + " × " : "",
                         gpu.name, rate(gpu.bandwidth_bytes_per_s), gbs(gpu.capacity_bytes),
                         flops(gpu.peak_bf16_flops));
  } else {
    setup += ", no GPU given";
  }
  return t + "\n  " + setup;
}

json line_json(const Line& l) {
  json j;
  j["key"] = l.key.substr(l.key.find('.') + 1);
  j["label"] = l.label;
  j["value"] = std::get<double>(l.value);
  j["unit"] = unit_name(l.unit);
  j["text"] = format_value(l.value, l.unit);
  if (l.formula) {
    j["function"] = std::string(l.formula->name);
    j["formula"] = std::string(l.formula->expr);
    j["substituted"] = substitute(l.formula->expr, l.terms);
  }
  if (!l.comment.empty()) j["comment"] = l.comment;
  return j;
}

}  // namespace

Report build_diagnose_report(const Evidence& e, const GpuSpec& gpu, const Diagnosis& d, const std::string& source) {
  Report r;
  r.title = title(e, gpu, d, source);
  Section verdict{"Regime", {}, {}};
  auto text = [](std::string label, std::string value) {
    Line l;
    l.label = std::move(label);
    l.value = std::move(value);
    return l;
  };
  verdict.lines.push_back(text("Regime", std::string(regime_name(d.regime)) + (d.confirmed ? "" : " (not settled)")));
  verdict.lines.push_back(text("Detail", d.detail));
  verdict.lines.push_back(text("Settled by", d.settled_by));
  r.sections.push_back(std::move(verdict));

  Section evidence{"Evidence (computed)", {}, {}};
  evidence_lines(e, d, &evidence.lines);
  evidence.notes = d.findings;
  r.sections.push_back(std::move(evidence));

  Section fixes{"Fixes, in priority order", {}, {}};
  for (size_t i = 0; i < d.fixes.size(); ++i) {
    fixes.notes.push_back(fmt::format("{}. {} — {}", i + 1, d.fixes[i].action, d.fixes[i].effect));
  }
  if (!fixes.notes.empty()) r.sections.push_back(std::move(fixes));
  if (d.reject) {
    r.sections.push_back({"Reject", {}, {d.reject->action + " — " + d.reject->why}});
  }
  if (!d.ask_first.empty()) {
    Section ask{"Ask first", {}, {}};
    for (const AskFirst& a : d.ask_first) ask.notes.push_back(a.measurement + " — " + a.why);
    r.sections.push_back(std::move(ask));
  }
  r.ignored = d.ignored;

  json ev = json::array();
  for (const Line& l : r.sections[1].lines) ev.push_back(line_json(l));
  json fx = json::array();
  for (const Fix& f : d.fixes) {
    json j = {{"action", f.action}, {"effect", f.effect}};
    j["speedup"] = f.speedup ? json(*f.speedup) : json();
    fx.push_back(j);
  }
  json ask = json::array();
  for (const AskFirst& a : d.ask_first) ask.push_back({{"measurement", a.measurement}, {"why", a.why}});
  r.extra_json = {{"regime", regime_name(d.regime)},
                  {"confirmed", d.confirmed},
                  {"detail", d.detail},
                  {"settled_by", d.settled_by},
                  {"phase", phase_name(d.phase)},
                  {"above_ceiling", d.above_ceiling},
                  {"evidence", ev},
                  {"findings", d.findings},
                  {"fixes", fx},
                  {"reject", d.reject ? json{{"action", d.reject->action}, {"why", d.reject->why}} : json()},
                  {"ask_first", ask}};
  if (!e.description.empty()) r.extra_json["description"] = e.description;
  return r;
}

}  // namespace modelcalc
