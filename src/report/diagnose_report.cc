#include "diagnose_report.h"

#include <fmt/format.h>

#include "deployment_report.h"
#include "diagnose_text.h"
#include "format.h"

namespace modelcalc {

namespace {

using nlohmann::json;


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

// ---------------------------------------------------------------- evidence lines
// The computed evidence as a table: one row per line, in display order. A row
// names its JSON key and label, reads its value from DiagnosisNumbers, and
// gives its unit, formula and the terms substituted into that formula; `when`
// narrows the rows that share a key (the line shows only when its value is
// set and `when` holds).
struct Ctx {
  const Evidence& e;
  const Diagnosis& d;
  const DiagnosisNumbers& n;
  bool modeled;  // ceilings from the deployment engine
  // Term texts several rows share.
  std::string bw, peak, N, B, W, KV, T, kernels;
};

using Get = std::optional<double> (*)(const DiagnosisNumbers&);
using When = bool (*)(const Ctx&);
using Terms = std::vector<Term> (*)(const Ctx&);
using Comment = std::string (*)(const Ctx&);

struct EvidenceRow {
  const char* key;  // JSON key under "numbers."
  const char* label;
  Get value;
  Unit unit;
  const FormulaText* formula;
  When when;        // nullptr: whenever the value is set
  Terms terms;
  Comment comment;  // nullptr: none
};

#define MC_NUM(field) [](const DiagnosisNumbers& n) -> std::optional<double> { return n.field; }

std::string bytes_or_unknown(const std::optional<double>& b) { return b ? format_quantity(*b, Unit::kBytes) : "?"; }
std::string sec_or_unknown(const std::optional<double>& s) { return s ? format_quantity(*s, Unit::kSeconds) : "?"; }
std::string frac_or_unknown(const std::optional<double>& f) { return f ? format_value(*f, Unit::kFraction) : "?"; }
std::string bpp(const DiagnosisNumbers& n, double fallback) {
  return fmt_sig(n.bytes_per_param.value_or(fallback), 3) + " B";
}
std::string kv_b(const DiagnosisNumbers& n) { return fmt_sig(n.kv_bytes_per_elem.value_or(2), 3) + " B"; }
std::string us(double v) { return format_brief(v * 1e-6, Unit::kSeconds); }
Term share(const Ctx& c, const char* kind) {
  const auto it = c.e.profile.kernel_time_fraction.find(kind);
  return term(kind, it == c.e.profile.kernel_time_fraction.end() ? "0" : format_value(it->second, Unit::kFraction));
}
// The step and kernel times the no-idle speedups divide.
std::vector<Term> speedup_terms(const Ctx& c) {
  const DiagnosisNumbers& n = c.n;
  const double step = n.step_time_s && n.busy_share ? *n.step_time_s : *n.kernel_time_s + n.gap_time_s.value_or(0);
  return {term("step_time", format_quantity(step, Unit::kSeconds)),
          term("kernel_time", format_quantity(*n.kernel_time_s, Unit::kSeconds))};
}
std::vector<Term> quant_terms(const Ctx& c, Term extra) {
  return {term("B", c.B), term("bw", c.bw), term("N", c.N), term("KV", c.KV), term("peak", c.peak), std::move(extra)};
}
// The engine's aggregate for a varied scenario: the batch over its step.
std::vector<Term> varied_terms(const Ctx& c, const std::optional<double>& step) {
  const DeploymentAnalysis& a = *c.d.modeled;
  return {term("B", a.result.decode.batch), term("dp", a.prepared.split.dp), term("t_step", step.value_or(0))};
}
bool is_mla(const Ctx& c) { return c.e.model.spec && c.e.model.spec->is_mla(); }
// Layers of several kinds (chunks, layers without attention): the explained form names each.
bool is_layered(const Ctx& c) {
  if (is_mla(c) || !c.e.model.spec) return false;
  const LayerCounts lc = c.e.model.spec->count_layers();
  return lc.chunked > 0 || lc.no_attn > 0 || lc.shared_full + lc.shared_sliding > 0;
}
bool is_swa(const Ctx& c) {
  return !is_mla(c) && !is_layered(c) && c.e.model.spec && c.e.model.spec->n_swa_layers() > 0;
}

const EvidenceRow kEvidenceRows[] = {
    {"weight_bytes", "Weights", MC_NUM(weight_bytes), Unit::kBytes, &fx::kWeightBytes,
     [](const Ctx& c) { return !c.e.model.spec; },
     [](const Ctx& c) {
       return std::vector<Term>{term("N", c.N), term("b", bpp(c.n, 0))};
     },
     nullptr},
    // With a model: its weights as served (size's weights.bytes), each part in its dtype.
    {"weight_bytes", "Weights (as served)", MC_NUM(weight_bytes), Unit::kBytes, nullptr,
     [](const Ctx& c) { return c.e.model.spec.has_value(); }, [](const Ctx&) { return std::vector<Term>{}; },
     [](const Ctx&) -> std::string { return "(the checkpoint's bytes: 16-bit parts kept, scales counted)"; }},
    // MLA caches one latent (+ RoPE key) per token and layer, not per-head K and V.
    {"kv_bytes_per_sequence", "KV cache per sequence (MLA latent)", MC_NUM(kv_bytes_per_seq), Unit::kBytes,
     &fx::kDxKvPerSeqMla, is_mla,
     [](const Ctx& c) {
       const ModelSpec& s = *c.e.model.spec;
       return std::vector<Term>{term("L", s.count_layers().attention()),
                                term("d_c", s.n_lora_kv + s.n_rot + s.n_embd_head_index), term("b", kv_b(c.n)),
                                term("T", c.n.context)};
     },
     nullptr},
    // Hybrids: only attention layers keep KV; windows and chunks are capped.
    {"kv_bytes_per_sequence", "KV cache per sequence (attention layers)", MC_NUM(kv_bytes_per_seq), Unit::kBytes,
     &fx::kDxKvPerSeqLayers, is_layered,
     [](const Ctx& c) {
       const ModelSpec& s = *c.e.model.spec;
       const LayerCounts lc = s.count_layers();
       return std::vector<Term>{term("d_kv", c.n.d_kv),     term("b", kv_b(c.n)),
                                term("L_full", lc.full),     term("T", c.n.context),
                                term("L_swa", lc.sliding),   term("window", s.n_swa),
                                term("L_chunk", lc.chunked), term("chunk", s.n_chunk)};
     },
     nullptr},
    // Sliding-window layers keep the window.
    {"kv_bytes_per_sequence", "KV cache per sequence", MC_NUM(kv_bytes_per_seq), Unit::kBytes, &fx::kDxKvPerSeqSwa,
     is_swa,
     [](const Ctx& c) {
       const ModelSpec& s = *c.e.model.spec;
       return std::vector<Term>{term("d_kv", c.n.d_kv),
                                term("b", kv_b(c.n)),
                                term("L_full", s.n_layer - s.n_swa_layers()),
                                term("L_swa", s.n_swa_layers()),
                                term("T", c.n.context),
                                term("window", s.n_swa)};
     },
     nullptr},
    {"kv_bytes_per_sequence", "KV cache per sequence", MC_NUM(kv_bytes_per_seq), Unit::kBytes, &fx::kDxKvPerSeq,
     [](const Ctx& c) { return !is_mla(c) && !is_swa(c) && !is_layered(c); },
     [](const Ctx& c) {
       return std::vector<Term>{term("L", c.n.layers), term("d_kv", c.n.d_kv), term("b", kv_b(c.n)),
                                term("T", c.n.context)};
     },
     nullptr},
    // Decode.
    {"step_bytes", "Bytes read per decode step", MC_NUM(step_bytes), Unit::kBytes, &fx::kStepBytes,
     [](const Ctx& c) { return !c.modeled; },
     [](const Ctx& c) {
       return std::vector<Term>{term("W", c.W), term("B", c.B), term("KV", c.KV)};
     },
     nullptr},
    {"step_bytes", "Bytes read per decode step, per GPU (the engine)", MC_NUM(step_bytes), Unit::kBytes,
     &fx::kDepStepBytes, [](const Ctx& c) { return c.modeled && c.d.modeled->result.decode.bytes.state == 0; },
     [](const Ctx& c) {
       const DecodeBytes& b = c.d.modeled->result.decode.bytes;
       return std::vector<Term>{term("W_blocks", b.weights), term("W_experts", b.experts), term("W_lm_head", b.lm_head),
                                term("W_rows", b.embedding_rows), term("KV", b.kv)};
     },
     [](const Ctx&) -> std::string { return "(the experts the batch touches, not all of them)"; }},
    {"step_bytes", "Bytes read per decode step, per GPU (the engine)", MC_NUM(step_bytes), Unit::kBytes,
     &fx::kDepStepBytesState, [](const Ctx& c) { return c.modeled && c.d.modeled->result.decode.bytes.state > 0; },
     [](const Ctx& c) {
       const DecodeBytes& b = c.d.modeled->result.decode.bytes;
       return std::vector<Term>{term("W_blocks", b.weights), term("W_experts", b.experts), term("W_lm_head", b.lm_head),
                                term("W_rows", b.embedding_rows), term("KV", b.kv), term("S", b.state)};
     },
     [](const Ctx&) -> std::string { return "(the experts the batch touches, not all of them)"; }},
    {"bandwidth_ceiling_per_sequence", "Ceiling per sequence (modeled deployment)", MC_NUM(bw_ceiling_per_seq),
     Unit::kTokensPerS, &fx::kDepTpsSeq, [](const Ctx& c) { return c.modeled; },
     [](const Ctx& c) { return std::vector<Term>{term("t_step", c.n.ideal_step_time_s.value_or(0))}; }, nullptr},
    {"bandwidth_ceiling_aggregate", "Ceiling, aggregate (modeled deployment)", MC_NUM(bw_ceiling_aggregate),
     Unit::kTokensPerS, &fx::kDepTpsAgg, [](const Ctx& c) { return c.modeled && c.n.batch > 1; },
     [](const Ctx& c) {
       return std::vector<Term>{term("B", c.n.batch), term("dp", 1.0), term("t_step", c.n.ideal_step_time_s.value_or(0))};
     },
     nullptr},
    {"bandwidth_ceiling_per_sequence", "Bandwidth ceiling per sequence", MC_NUM(bw_ceiling_per_seq), Unit::kTokensPerS,
     &fx::kDxTpsPerSeq, [](const Ctx& c) { return !c.modeled; },
     [](const Ctx& c) {
       return std::vector<Term>{term("bw", c.bw), term("W", c.W), term("B", c.B), term("KV", c.KV)};
     },
     nullptr},
    {"bandwidth_ceiling_aggregate", "Bandwidth ceiling, aggregate", MC_NUM(bw_ceiling_aggregate), Unit::kTokensPerS,
     &fx::kTpsAggregate, [](const Ctx& c) { return !c.modeled && c.n.batch > 1; },
     [](const Ctx& c) {
       return std::vector<Term>{term("bw", c.bw), term("W", c.W), term("B", c.B), term("KV", c.KV)};
     },
     nullptr},
    {"compute_ceiling_aggregate", "Compute ceiling, aggregate", MC_NUM(compute_ceiling_aggregate), Unit::kTokensPerS,
     &fx::kDxComputeCeiling, [](const Ctx& c) { return !c.modeled; },
     [](const Ctx& c) {
       return std::vector<Term>{term("peak", c.peak), term("N", c.N)};
     },
     nullptr},
    {"compute_ceiling_aggregate", "Compute ceiling, aggregate (the engine's FLOPs)", MC_NUM(compute_ceiling_aggregate),
     Unit::kTokensPerS, &fx::kDxEngineComputeCeiling, [](const Ctx& c) { return c.modeled; },
     [](const Ctx& c) {
       const DeploymentAnalysis& a = *c.d.modeled;
       return std::vector<Term>{term("B", a.result.decode.batch), term("dp", a.prepared.split.dp),
                                term("t_compute", a.result.decode.compute_seconds)};
     },
     [](const Ctx&) -> std::string { return "(active parameters, attention and lm_head)"; }},
    {"step_intensity", "Decode step intensity", MC_NUM(step_intensity), Unit::kFlopPerByte, &fx::kIntensity,
     [](const Ctx& c) { return c.modeled; },
     [](const Ctx& c) {
       return std::vector<Term>{term("F", c.n.modeled_flops.value_or(0)), term("bytes", c.n.modeled_bytes.value_or(0))};
     },
     [](const Ctx& c) -> std::string {
       if (!(c.n.ridge > 0)) return "";
       return *c.n.step_intensity < c.n.ridge ? "(below the ridge: bandwidth-bound)" : "(past the ridge: compute-bound)";
     }},
    {"step_intensity", "Decode step intensity", MC_NUM(step_intensity), Unit::kFlopPerByte, &fx::kDxStepIntensity,
     [](const Ctx& c) { return !c.modeled; },
     [](const Ctx& c) {
       return std::vector<Term>{term("N", c.N), term("B", c.B), term("step_bytes", bytes_or_unknown(c.n.step_bytes))};
     },
     [](const Ctx& c) -> std::string {
       if (!(c.n.ridge > 0)) return "";
       return *c.n.step_intensity < c.n.ridge ? "(below the ridge: bandwidth-bound)" : "(past the ridge: compute-bound)";
     }},
    {"ridge", "Machine ridge point", MC_NUM(ridge), Unit::kFlopPerByte, &fx::kRidge,
     [](const Ctx& c) { return c.n.ridge > 0 && (c.n.step_intensity || c.d.phase != Phase::kDecode); },
     [](const Ctx& c) {
       return std::vector<Term>{term("peak", c.peak), term("bw", c.bw)};
     },
     nullptr},
    {"fraction_of_ceiling", "Measured ÷ ceiling", MC_NUM(fraction_of_ceiling), Unit::kFraction, &fx::kDxFraction,
     [](const Ctx& c) { return c.d.phase == Phase::kDecode && c.n.measured_aggregate && c.n.ceiling_aggregate; },
     [](const Ctx& c) {
       const bool per_seq = c.n.batch == 1;
       return std::vector<Term>{
           term("measured",
                format_value(per_seq ? *c.n.measured_per_seq : *c.n.measured_aggregate, Unit::kTokensPerS)),
           term("ceiling", format_value(*c.n.ceiling_aggregate, Unit::kTokensPerS))};
     },
     nullptr},
    {"implied_flop_utilization", "FLOP use the measured tokens imply", MC_NUM(implied_flop_utilization),
     Unit::kFraction, &fx::kDxEngineFlopUse, [](const Ctx& c) { return c.modeled; },
     [](const Ctx& c) {
       return std::vector<Term>{term("t_compute", c.d.modeled->result.decode.compute_seconds),
                                term("t_measured", c.n.step_time_s.value_or(0))};
     },
     nullptr},
    {"implied_flop_utilization", "FLOP use the measured tokens imply", MC_NUM(implied_flop_utilization),
     Unit::kFraction, &fx::kMfu, [](const Ctx& c) { return !c.modeled; },
     [](const Ctx& c) {
       return std::vector<Term>{
           term("tps", c.n.measured_aggregate ? format_value(*c.n.measured_aggregate, Unit::kTokensPerS) : "?"),
           term("k", int64_t{2}), term("N", c.N), term("peak", c.peak)};
     },
     nullptr},
    {"profiler_flop_excess", "Profiled ÷ implied FLOP use", MC_NUM(profiler_flop_excess), Unit::kFactor,
     &fx::kDxFlopExcess, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("profiled", frac_or_unknown(c.e.profile.flop_utilization)),
                                term("implied", frac_or_unknown(c.n.implied_flop_utilization))};
     },
     nullptr},
    {"int8_ceiling_aggregate", "Ceiling with int8 weights (aggregate, the engine at --dtype int8)",
     MC_NUM(int8_ceiling_aggregate), Unit::kTokensPerS, &fx::kDxEngineVaried, [](const Ctx& c) { return c.modeled; },
     [](const Ctx& c) { return varied_terms(c, c.n.int8_step_s); }, nullptr},
    {"int4_ceiling_aggregate", "Ceiling with int4 weights (aggregate, the engine at --dtype int4)",
     MC_NUM(int4_ceiling_aggregate), Unit::kTokensPerS, &fx::kDxEngineVaried, [](const Ctx& c) { return c.modeled; },
     [](const Ctx& c) { return varied_terms(c, c.n.int4_step_s); }, nullptr},
    {"fp8_ceiling_aggregate", "Ceiling with fp8 weights and compute (aggregate, the engine at --dtype fp8)",
     MC_NUM(fp8_ceiling_aggregate), Unit::kTokensPerS, &fx::kDxEngineVaried, [](const Ctx& c) { return c.modeled; },
     [](const Ctx& c) { return varied_terms(c, c.n.fp8_step_s); }, nullptr},
    {"int8_ceiling_aggregate", "Ceiling with int8 weights (aggregate)", MC_NUM(int8_ceiling_aggregate),
     Unit::kTokensPerS, &fx::kDxQuantCeiling, [](const Ctx& c) { return !c.modeled; },
     [](const Ctx& c) { return quant_terms(c, term("b_q", "1 B")); }, nullptr},
    {"int4_ceiling_aggregate", "Ceiling with int4 weights (aggregate)", MC_NUM(int4_ceiling_aggregate),
     Unit::kTokensPerS, &fx::kDxQuantCeiling, [](const Ctx& c) { return !c.modeled; },
     [](const Ctx& c) { return quant_terms(c, term("b_q", "0.5 B")); }, nullptr},
    {"fp8_ceiling_aggregate", "Ceiling with fp8 compute (aggregate)", MC_NUM(fp8_ceiling_aggregate), Unit::kTokensPerS,
     &fx::kDxFp8Ceiling, [](const Ctx& c) { return !c.modeled; },
     [](const Ctx& c) {
       return quant_terms(c, term("peak_fp8", c.n.fp8_peak_flops ? format_quantity(*c.n.fp8_peak_flops, Unit::kFlopPerS) : "?"));
     },
     nullptr},
    // Prefill.
    {"prefill_linear_flops", "Prefill linear FLOPs", MC_NUM(prefill_linear_flops), Unit::kFlop, &fx::kPrefillLinear,
     nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("N_blocks", c.N), term("T", c.T)};
     },
     nullptr},
    {"prefill_attention_flops", "Prefill attention FLOPs", MC_NUM(prefill_attention_flops), Unit::kFlop,
     &fx::kPrefillAttention, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("T", c.T), term("d_attn", c.n.d_attn), term("L", c.n.layers)};
     },
     nullptr},
    {"prefill_flops", "Prefill FLOPs", MC_NUM(prefill_flops), Unit::kFlop, &fx::kPrefillTotal,
     [](const Ctx& c) { return c.n.prefill_linear_flops && c.n.prefill_attention_flops; },
     [](const Ctx& c) {
       return std::vector<Term>{term("linear", fmt_sig(*c.n.prefill_linear_flops, 4)),
                                term("attention", fmt_sig(*c.n.prefill_attention_flops, 4))};
     },
     nullptr},
    {"ttft_floor_s", "TTFT floor at peak FLOP/s", MC_NUM(ttft_floor_s), Unit::kSeconds, &fx::kDxTtftFloor, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("F", c.n.prefill_flops ? fmt_sig(*c.n.prefill_flops, 4) : "?"),
                                term("peak", c.peak)};
     },
     nullptr},
    {"fraction_of_ceiling", "Floor ÷ measured TTFT", MC_NUM(fraction_of_ceiling), Unit::kFraction, &fx::kDxTtftFraction,
     [](const Ctx& c) { return c.d.phase == Phase::kPrefill; },
     [](const Ctx& c) {
       return std::vector<Term>{term("TTFT_floor", sec_or_unknown(c.n.ttft_floor_s)),
                                term("TTFT", sec_or_unknown(c.e.measured.ttft_s))};
     },
     nullptr},
    {"score_matrix_bytes", "Attention score matrix, one layer", MC_NUM(score_matrix_bytes), Unit::kBytes,
     &fx::kDxScoreBytes, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("h", c.n.heads), term("T", c.T), term("b", "2 B")};
     },
     [](const Ctx&) -> std::string { return "(what an unfused kernel materializes)"; }},
    {"transient_over_scores", "Peak transient ÷ score matrix", MC_NUM(transient_over_scores), Unit::kFactor,
     &fx::kDxTransientRatio, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("transient", bytes_or_unknown(c.e.profile.peak_transient_bytes)),
                                term("S", bytes_or_unknown(c.n.score_matrix_bytes))};
     },
     nullptr},
    {"score_traffic_s", "HBM time to stream the scores", MC_NUM(score_traffic_s), Unit::kSeconds, &fx::kDxScoreTraffic,
     nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("S", bytes_or_unknown(c.n.score_matrix_bytes)), term("L", c.n.layers),
                                term("bw", c.bw)};
     },
     [](const Ctx&) -> std::string { return "(QK^T write, softmax read + write, AV read)"; }},
    {"attention_time_s", "Attention kernel time", MC_NUM(attention_time_s), Unit::kSeconds, &fx::kDxAttentionTime,
     nullptr,
     [](const Ctx& c) {
       const auto& k = c.e.profile.kernel_time_fraction;
       const auto attn = k.find("attention");
       return std::vector<Term>{
           term("share", attn != k.end() ? format_value(attn->second, Unit::kFraction) : "?"),
           term("TTFT", sec_or_unknown(c.e.measured.ttft_s))};
     },
     nullptr},
    {"attention_floor_s", "Attention FLOPs at peak", MC_NUM(attention_floor_s), Unit::kSeconds, &fx::kDxAttentionFloor,
     nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{
           term("F_attn", c.n.prefill_attention_flops ? fmt_sig(*c.n.prefill_attention_flops, 4) : "?"),
           term("peak", c.peak)};
     },
     nullptr},
    {"ttft_fused_s", "TTFT with fused attention (bound)", MC_NUM(ttft_fused_s), Unit::kSeconds, &fx::kDxTtftFused,
     nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("TTFT", sec_or_unknown(c.e.measured.ttft_s)),
                                term("t_attn", sec_or_unknown(c.n.attention_time_s)),
                                term("t_floor", sec_or_unknown(c.n.attention_floor_s))};
     },
     nullptr},
    {"peak_memory_bytes", "Weights + peak transient", MC_NUM(peak_memory_bytes), Unit::kBytes, &fx::kDxPeakMemory,
     nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("W", c.W), term("transient", bytes_or_unknown(c.e.profile.peak_transient_bytes))};
     },
     [](const Ctx& c) -> std::string {
       return c.n.capacity > 0 ? "(of " + format_quantity(c.n.capacity, Unit::kBytes) + ")" : "";
     }},
    {"itl_floor_s", "ITL floor", MC_NUM(itl_floor_s), Unit::kSeconds, &fx::kDxItlFloor, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("W", c.W), term("B", c.B),
                                term("KV", format_quantity(c.n.kv_bytes_per_seq.value_or(0), Unit::kBytes)),
                                term("bw", c.bw)};
     },
     nullptr},
    {"itl_fraction", "ITL floor ÷ measured ITL", MC_NUM(itl_fraction), Unit::kFraction, &fx::kDxItlFraction, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("ITL_floor", sec_or_unknown(c.n.itl_floor_s)),
                                term("ITL", sec_or_unknown(c.e.measured.itl_s))};
     },
     nullptr},
    // Training.
    {"tokens_per_step", "Tokens per step", MC_NUM(tokens_per_step), Unit::kTokens, &fx::kDxTokensPerStep, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("B", c.B), term("T", c.n.context)};
     },
     nullptr},
    {"train_ceiling_tokens_per_s", "Training ceiling", MC_NUM(train_ceiling_tps), Unit::kTokensPerS,
     &fx::kDxTrainCeiling, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("peak", c.peak), term("N", c.N)};
     },
     nullptr},
    {"fraction_of_ceiling", "Measured ÷ ceiling", MC_NUM(fraction_of_ceiling), Unit::kFraction, &fx::kDxFraction,
     [](const Ctx& c) { return c.d.phase == Phase::kTraining && c.e.measured.tokens_per_s_aggregate.has_value(); },
     [](const Ctx& c) {
       return std::vector<Term>{
           term("measured", format_value(*c.e.measured.tokens_per_s_aggregate, Unit::kTokensPerS)),
           term("ceiling", c.n.train_ceiling_tps ? format_value(*c.n.train_ceiling_tps, Unit::kTokensPerS) : "?")};
     },
     nullptr},
    // Timeline.
    {"step_time_s", "Measured step time", MC_NUM(step_time_s), Unit::kSeconds, &fx::kDxStepTime, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{
           term("tps", c.n.measured_per_seq ? format_value(*c.n.measured_per_seq, Unit::kTokensPerS) : "?")};
     },
     [](const Ctx&) -> std::string { return "(one token per sequence)"; }},
    {"ideal_step_time_s", "Step time of the modeled deployment", MC_NUM(ideal_step_time_s), Unit::kSeconds,
     &fx::kDepStep, [](const Ctx& c) { return c.modeled; },
     [](const Ctx& c) {
       return std::vector<Term>{term("t_compute", c.n.modeled_compute_s.value_or(0)),
                                term("t_memory", c.n.modeled_memory_s.value_or(0)),
                                term("t_comm", c.n.modeled_comm_s.value_or(0))};
     },
     nullptr},
    {"ideal_step_time_s", "Step time at the bandwidth ceiling", MC_NUM(ideal_step_time_s), Unit::kSeconds,
     &fx::kDxIdealStep, [](const Ctx& c) { return !c.modeled; },
     [](const Ctx& c) {
       return std::vector<Term>{term("step_bytes", bytes_or_unknown(c.n.step_bytes)), term("bw", c.bw)};
     },
     nullptr},
    {"kernel_time_s", "Kernel time per step", MC_NUM(kernel_time_s), Unit::kSeconds, &fx::kDxKernelTime, nullptr,
     [](const Ctx& c) {
       const auto& k = c.e.profile.kernel_us;
       return std::vector<Term>{term("kernels", c.kernels), term("t_kernel", k ? us(k->mid()) : "?")};
     },
     [](const Ctx& c) -> std::string {
       const auto& k = c.e.profile.kernel_us;
       return k ? "(mid of " + fmt_sig(k->lo, 3) + "–" + fmt_sig(k->hi, 3) + " µs)" : "";
     }},
    {"gap_time_s", "Gap time per step", MC_NUM(gap_time_s), Unit::kSeconds, &fx::kDxGapTime, nullptr,
     [](const Ctx& c) {
       const auto& g = c.e.profile.gap_us;
       return std::vector<Term>{term("kernels", c.kernels), term("t_gap", g ? us(g->mid()) : "?")};
     },
     [](const Ctx& c) -> std::string {
       const auto& g = c.e.profile.gap_us;
       return g ? "(mid of " + fmt_sig(g->lo, 3) + "–" + fmt_sig(g->hi, 3) + " µs)" : "";
     }},
    {"gap_share", "Gap share of the timeline", MC_NUM(gap_share), Unit::kFraction, &fx::kDxGapShare, nullptr,
     [](const Ctx& c) {
       const auto& p = c.e.profile;
       return std::vector<Term>{term("t_gap", p.gap_us ? us(p.gap_us->mid()) : "?"),
                                term("t_kernel", p.kernel_us ? us(p.kernel_us->mid()) : "?")};
     },
     [](const Ctx& c) -> std::string {
       return c.n.gap_share_lo ? "(range " + format_value(*c.n.gap_share_lo, Unit::kFraction) + "–" +
                                     format_value(*c.n.gap_share_hi, Unit::kFraction) + ")"
                               : "";
     }},
    {"busy_share", "GPU busy share of the step", MC_NUM(busy_share), Unit::kFraction, &fx::kDxBusyShare, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("kernel_time", sec_or_unknown(c.n.kernel_time_s)),
                                term("step_time", sec_or_unknown(c.n.step_time_s))};
     },
     nullptr},
    {"idle_share", "Idle share of the step", MC_NUM(idle_share), Unit::kFraction, &fx::kDxIdleShare,
     [](const Ctx& c) { return c.n.busy_share.has_value(); },
     [](const Ctx& c) { return std::vector<Term>{term("busy", format_value(*c.n.busy_share, Unit::kFraction))}; },
     nullptr},
    {"speedup_no_idle", "Speedup if the GPU never idled", MC_NUM(speedup_no_idle), Unit::kFactor, &fx::kDxNoIdle,
     [](const Ctx& c) { return c.n.kernel_time_s && c.n.idle_share; }, speedup_terms, nullptr},
    {"speedup_infinite_gpu", "Speedup from an infinitely fast GPU", MC_NUM(speedup_infinite_gpu), Unit::kFactor,
     &fx::kDxInfiniteGpu, [](const Ctx& c) { return c.n.kernel_time_s && c.n.idle_share; }, speedup_terms, nullptr},
    // Kernel mix.
    {"compute_kernel_share", "GEMM + attention share of kernel time", MC_NUM(compute_kernel_share), Unit::kFraction,
     &fx::kDxComputeShare, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{share(c, "gemm"), share(c, "attention")};
     },
     nullptr},
    {"in_kernel_flop_rate", "FLOP rate while those kernels run (≥)", MC_NUM(in_kernel_flop_rate), Unit::kFraction,
     &fx::kDxInKernel, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{term("flop_util", frac_or_unknown(c.e.profile.flop_utilization)),
                                term("compute_share", frac_or_unknown(c.n.compute_kernel_share))};
     },
     nullptr},
    {"memory_bound_share", "Memory-bound share of kernel time", MC_NUM(memory_bound_share), Unit::kFraction,
     &fx::kDxMemShare, nullptr,
     [](const Ctx& c) {
       return std::vector<Term>{share(c, "norm"), share(c, "elementwise"), share(c, "cast"), share(c, "softmax"),
                                share(c, "copy")};
     },
     nullptr},
    {"amdahl_memory_bound", "Speedup if that work vanished", MC_NUM(amdahl_memory_bound), Unit::kFactor, &fx::kDxAmdahl,
     nullptr, [](const Ctx& c) { return std::vector<Term>{term("s", frac_or_unknown(c.n.memory_bound_share))}; },
     nullptr},
};

#undef MC_NUM

void evidence_lines(const Evidence& e, const Diagnosis& d, std::vector<Line>* out) {
  const DiagnosisNumbers& n = d.n;
  const Profile& p = e.profile;
  const Ctx c{e,
              d,
              n,
              n.modeled_flops.has_value(),
              format_quantity(n.bandwidth, Unit::kBytesPerS),
              format_quantity(n.peak_flops, Unit::kFlopPerS),
              n.params ? fmt_si(*n.params, "", 4) : "?",
              fmt_fixed(n.batch, 0),
              n.weight_bytes ? format_quantity(*n.weight_bytes, Unit::kBytes) : "?",
              format_quantity(n.kv_bytes_per_seq.value_or(0), Unit::kBytes),
              n.prefill_tokens ? fmt_fixed(*n.prefill_tokens, 0) : "?",
              p.kernels_per_step ? group_digits(*p.kernels_per_step) : "?"};
  for (const EvidenceRow& row : kEvidenceRows) {
    const std::optional<double> v = row.value(n);
    if (!v || (row.when != nullptr && !row.when(c))) continue;
    Line l;
    l.key = std::string("numbers.") + row.key;
    l.label = row.label;
    l.value = *v;
    l.unit = row.unit;
    l.formula = row.formula;
    l.terms = row.terms(c);
    if (row.comment != nullptr) l.comment = row.comment(c);
    out->push_back(std::move(l));
  }
}

std::string title(const Evidence& e, const GpuSpec& gpu, const Diagnosis& d, const std::string& source) {
  std::string t = "modelcalc diagnose — " + source;
  if (!e.description.empty()) t += "\n  " + e.description;
  std::string setup = std::string(phase_name(d.phase)) + (d.phase_inferred ? " (inferred)" : "");
  if (d.n.params) {
    setup += fmt::format(", {} params in {}", fmt_si(*d.n.params, "", 4),
                         dtype_name(e.model.dtype.value_or(kDefaultWeightDtype)));
  }
  setup += fmt::format(", batch {}", fmt_fixed(d.n.batch, 0));
  if (d.n.context > 0) setup += fmt::format(", context {}", fmt_fixed(d.n.context, 0));
  if (gpu.bandwidth_bytes_per_s > 0) {
    setup += fmt::format(", on {}{} ({}, {}, {})", e.gpus.value_or(1) > 1 ? std::to_string(*e.gpus) + " × " : "",
                         gpu.name, format_quantity(gpu.bandwidth_bytes_per_s, Unit::kBytesPerS),
                         format_quantity(gpu.capacity_bytes, Unit::kBytes), format_quantity(gpu.peak_bf16_flops, Unit::kFlopPerS));
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
  const std::string detail = dx_text(d.detail, d), settled_by = dx_text(d.settled_by, d);
  verdict.lines.push_back(text("Detail", detail));
  verdict.lines.push_back(text("Settled by", settled_by));
  r.sections.push_back(std::move(verdict));

  Section evidence{"Evidence (computed)", {}, {}};
  evidence_lines(e, d, &evidence.lines);
  std::vector<std::string> findings;
  for (const DxStatement& f : d.findings) findings.push_back(dx_text(f, d));
  evidence.notes = findings;
  r.sections.push_back(std::move(evidence));

  Section fixes{"Fixes, in priority order", {}, {}};
  std::vector<DxWords> words;
  for (const Fix& f : d.fixes) words.push_back(fix_words(f.what, f.variation, d));
  for (size_t i = 0; i < words.size(); ++i) {
    fixes.notes.push_back(fmt::format("{}. {} — {}", i + 1, words[i].first, words[i].second));
  }
  if (!fixes.notes.empty()) r.sections.push_back(std::move(fixes));
  std::optional<DxWords> reject;
  if (d.reject) reject = fix_words(*d.reject, d.reject_variation, d);
  if (reject) r.sections.push_back({"Reject", {}, {reject->first + " — " + reject->second}});
  std::vector<DxWords> ask_words;
  for (const DxStatement& a : d.ask_first) ask_words.push_back(dx_words(a, d));
  if (!ask_words.empty()) {
    Section ask{"Ask first", {}, {}};
    for (const DxWords& a : ask_words) ask.notes.push_back(a.first + " — " + a.second);
    r.sections.push_back(std::move(ask));
  }
  for (const DxStatement& i : d.ignored) r.ignored.push_back(dx_text(i, d));
  if (e.model.spec) warn_model_assumptions(e.model.spec->assumptions, r);

  json ev = json::array();
  for (const Line& l : r.sections[1].lines) ev.push_back(line_json(l));
  json fx = json::array();
  for (size_t i = 0; i < d.fixes.size(); ++i) {
    json j = {{"action", words[i].first}, {"effect", words[i].second}};
    j["speedup"] = d.fixes[i].speedup ? json(*d.fixes[i].speedup) : json();
    // A change of the setup: the flags and the engine's figures for them (null otherwise).
    const json v = d.fixes[i].variation ? variation_json(*d.fixes[i].variation) : json();
    j["change"] = v.is_null() ? json() : v["change"];
    j["after"] = v.is_null() ? json() : v["after"];
    fx.push_back(j);
  }
  json reject_json;
  if (reject) {
    reject_json = {{"action", reject->first}, {"why", reject->second}, {"change", json()}, {"after", json()}};
    if (d.reject_variation) {
      const json v = variation_json(*d.reject_variation);
      reject_json["change"] = v["change"];
      reject_json["after"] = v["after"];
    }
  }
  json ask = json::array();
  for (const DxWords& a : ask_words) ask.push_back({{"measurement", a.first}, {"why", a.second}});
  r.extra_json = {{"regime", regime_name(d.regime)},
                  {"confirmed", d.confirmed},
                  {"detail", detail},
                  {"settled_by", settled_by},
                  {"phase", phase_name(d.phase)},
                  {"above_ceiling", d.above_ceiling},
                  {"evidence", ev},
                  {"findings", findings},
                  {"fixes", fx},
                  {"reject", reject ? reject_json : json()},
                  {"ask_first", ask}};
  if (!e.description.empty()) r.extra_json["description"] = e.description;
  return r;
}

}  // namespace modelcalc
