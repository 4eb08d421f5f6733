// The rules of `diagnose`: compute every number the evidence allows (ceilings
// first), then decide the regime from those numbers, then derive fixes, the
// rejected optimization and the questions to ask from the same numbers.
#include "modelcalc/diagnose.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "error_number.h"
#include "modelcalc/formulas.h"

namespace modelcalc {

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::kDecode: return "decode";
    case Phase::kPrefill: return "prefill";
    case Phase::kTraining: return "training";
  }
  return "?";
}

std::string_view regime_name(Regime r) {
  switch (r) {
    case Regime::kBandwidthBound: return "bandwidth-bound";
    case Regime::kComputeBound: return "compute-bound";
    case Regime::kCapacityBound: return "capacity-bound";
    case Regime::kOverheadBound: return "overhead-bound";
  }
  return "?";
}

const std::vector<std::string>& kernel_kinds() {
  static const std::vector<std::string> kKinds = {"gemm", "attention", "norm",          "elementwise", "cast",
                                                  "softmax", "copy",    "communication", "other"};
  return kKinds;
}

bool is_memory_bound_kind(std::string_view kind) {
  return kind == "norm" || kind == "elementwise" || kind == "cast" || kind == "softmax" || kind == "copy";
}

// ---------------------------------------------------------------- validation
namespace {

std::string num(double v) { return error_number_sig(v, 6); }

Status fraction(const std::optional<double>& v, std::string_view field) {
  if (v && !(*v >= 0 && *v <= 1)) {
    return Status::InvalidArgument(field, "must be a fraction between 0 and 1 (78 % is 0.78), got " + num(*v));
  }
  return Status::Ok();
}

Status positive(const std::optional<double>& v, std::string_view field) {
  if (v && !(*v > 0 && std::isfinite(*v))) {
    return Status::InvalidArgument(field, "must be a positive number, got " + num(*v));
  }
  return Status::Ok();
}

Status positive(const std::optional<int64_t>& v, std::string_view field) {
  if (v && *v <= 0) return Status::InvalidArgument(field, "must be a positive count, got " + std::to_string(*v));
  return Status::Ok();
}

Status range(const std::optional<Range>& r, std::string_view field) {
  if (!r) return Status::Ok();
  if (!(r->lo >= 0 && std::isfinite(r->hi))) {
    return Status::InvalidArgument(field, "durations must not be negative, got [" + num(r->lo) + ", " + num(r->hi) + "]");
  }
  if (r->lo > r->hi) {
    return Status::InvalidArgument(field, "must be [lo, hi] with lo <= hi, got [" + num(r->lo) + ", " + num(r->hi) + "]");
  }
  return Status::Ok();
}

}  // namespace

Status validate(const Evidence& e) {
  const EvidenceModel& m = e.model;
  MC_RETURN_IF_ERROR(positive(m.params, "model.params"));
  if (m.params && *m.params > 1e15) return Status::InvalidArgument("model.params", "must be at most 1e15");
  MC_RETURN_IF_ERROR(positive(m.layers, "model.layers"));
  MC_RETURN_IF_ERROR(positive(m.hidden, "model.hidden"));
  MC_RETURN_IF_ERROR(positive(m.heads, "model.heads"));
  MC_RETURN_IF_ERROR(positive(m.kv_heads, "model.kv_heads"));
  MC_RETURN_IF_ERROR(positive(m.head_dim, "model.head_dim"));
  if (m.heads && m.kv_heads && (*m.kv_heads > *m.heads || *m.heads % *m.kv_heads != 0)) {
    return Status::InvalidArgument("model.kv_heads", "must divide model.heads (" + std::to_string(*m.heads) +
                                                         "), got " + std::to_string(*m.kv_heads));
  }
  if (m.hidden && m.heads && !m.head_dim && *m.hidden % *m.heads != 0) {
    return Status::InvalidArgument("model.heads", "must divide model.hidden (" + std::to_string(*m.hidden) +
                                                      "), or give model.head_dim");
  }
  MC_RETURN_IF_ERROR(positive(e.gpus, "gpus"));
  MC_RETURN_IF_ERROR(positive(e.batch, "batch"));
  MC_RETURN_IF_ERROR(positive(e.context, "context"));
  MC_RETURN_IF_ERROR(positive(e.prompt_tokens, "prompt_tokens"));
  MC_RETURN_IF_ERROR(positive(e.measured.tokens_per_s_per_sequence, "measured.tokens_per_s_per_sequence"));
  MC_RETURN_IF_ERROR(positive(e.measured.tokens_per_s_aggregate, "measured.tokens_per_s_aggregate"));
  MC_RETURN_IF_ERROR(positive(e.measured.ttft_s, "measured.ttft_s"));
  MC_RETURN_IF_ERROR(positive(e.measured.itl_s, "measured.itl_s"));
  const Profile& p = e.profile;
  MC_RETURN_IF_ERROR(fraction(p.flop_utilization, "profile.flop_utilization"));
  MC_RETURN_IF_ERROR(fraction(p.bandwidth_utilization, "profile.bandwidth_utilization"));
  double sum = 0;
  for (const auto& [kind, share] : p.kernel_time_fraction) {
    const std::string field = "profile.kernel_time_fraction." + kind;
    if (std::find(kernel_kinds().begin(), kernel_kinds().end(), kind) == kernel_kinds().end()) {
      return Status::InvalidArgument(field, "unknown kernel kind; allowed: gemm, attention, norm, elementwise, "
                                            "cast, softmax, copy, communication, other");
    }
    MC_RETURN_IF_ERROR(fraction(share, field));
    sum += share;
  }
  if (sum > 1.01) {
    return Status::InvalidArgument("profile.kernel_time_fraction",
                                   "shares of kernel time must sum to at most 1, got " + num(sum));
  }
  MC_RETURN_IF_ERROR(positive(p.kernels_per_step, "profile.kernels_per_step"));
  MC_RETURN_IF_ERROR(range(p.kernel_us, "profile.kernel_us"));
  MC_RETURN_IF_ERROR(range(p.gap_us, "profile.gap_us"));
  if (p.kernel_us && p.kernel_us->hi <= 0) {
    return Status::InvalidArgument("profile.kernel_us", "a kernel must take some time, got [0, 0]");
  }
  if (p.peak_transient_bytes && !(*p.peak_transient_bytes >= 0 && std::isfinite(*p.peak_transient_bytes))) {
    return Status::InvalidArgument("profile.peak_transient_bytes", "must not be negative, got " +
                                                                       num(*p.peak_transient_bytes));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- numbers
namespace {

// The shape the evidence gives, with the spec's fields filling in.
struct Shape {
  std::optional<double> params;
  std::optional<int64_t> layers, hidden, heads, kv_heads, head_dim;
  const ModelSpec* spec = nullptr;
};

Shape resolve_shape(const EvidenceModel& m) {
  Shape s;
  s.params = m.params;
  s.layers = m.layers;
  s.hidden = m.hidden;
  s.heads = m.heads;
  s.kv_heads = m.kv_heads;
  s.head_dim = m.head_dim;
  if (m.spec) {
    const ModelSpec& spec = *m.spec;
    s.spec = &spec;
    if (!s.params) {
      auto p = param_breakdown(spec);
      if (p.ok()) s.params = static_cast<double>(p->total());
    }
    s.layers = spec.n_layer;
    s.hidden = spec.n_embd;
    s.heads = spec.n_head;
    s.kv_heads = spec.n_head_kv;
    s.head_dim = spec.n_embd_head;
  }
  if (s.heads && !s.kv_heads) s.kv_heads = s.heads;
  if (s.hidden && s.heads && !s.head_dim) s.head_dim = *s.hidden / *s.heads;
  return s;
}

Phase infer_phase(const Evidence& e, bool* inferred) {
  *inferred = !e.phase.has_value();
  if (e.phase) return *e.phase;
  const Measured& m = e.measured;
  if (m.ttft_s && !m.tokens_per_s_per_sequence && !m.tokens_per_s_aggregate && !m.itl_s) return Phase::kPrefill;
  return Phase::kDecode;
}

double activation_bytes(Dtype weights) {
  return dtype_bits(weights) >= 32 ? 4.0 : 2.0;  // int/fp8/fp4 weights still run fp16/bf16 activations
}

// The KV cache dtype diagnose assumes: the weights' (as the evidence states
// one dtype), except a weight-only format the KV formulas do not count
// (nvfp4/mxfp4), whose cache stays 16-bit as the engine's default.
Dtype evidence_kv_dtype(Dtype weights) {
  return dtype_info(weights).kv_cache ? weights : default_kv_dtype(weights);
}

double weight_bytes_of(double params, Dtype t) {
  const Exact n = Exact::from_double(std::round(params));
  const Exact w = weight_memory_bytes(n, t);
  if (w.overflow()) return params * dtype_bytes(t);  // beyond int64: the double product is the answer
  return static_cast<double>(w.value());
}

std::optional<double> kv_per_seq(const Shape& s, double ctx, Dtype t) {
  if (ctx <= 0) return std::nullopt;
  if (s.spec) {
    const Exact c = Exact::from_double(ctx);
    if (c.overflow()) return std::nullopt;
    auto kv = kv_bytes_per_sequence(*s.spec, c.value(), t);
    if (kv.ok()) return static_cast<double>(*kv);
    return std::nullopt;
  }
  if (!s.layers || !s.kv_heads || !s.head_dim) return std::nullopt;
  const Exact per_token = kv_bytes_per_token(Exact(*s.layers), Exact(*s.kv_heads * *s.head_dim), t);
  if (per_token.overflow()) return std::nullopt;
  return static_cast<double>(per_token.value()) * ctx;
}

void decode_numbers(const Evidence& e, const GpuSpec& gpu, Dtype dt, const DeploymentResult* modeled, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double B = n.batch;
  const Measured& m = e.measured;
  // The measurement, normalized to both views.
  if (m.tokens_per_s_aggregate) {
    n.measured_aggregate = *m.tokens_per_s_aggregate;
  } else if (m.tokens_per_s_per_sequence) {
    n.measured_aggregate = *m.tokens_per_s_per_sequence * B;
  } else if (m.itl_s) {
    n.measured_aggregate = B / *m.itl_s;
  }
  if (m.tokens_per_s_per_sequence) {
    n.measured_per_seq = *m.tokens_per_s_per_sequence;
  } else if (m.itl_s) {
    n.measured_per_seq = 1.0 / *m.itl_s;
  } else if (n.measured_aggregate) {
    n.measured_per_seq = *n.measured_aggregate / B;
  }
  if (n.measured_per_seq) n.step_time_s = 1.0 / *n.measured_per_seq;
  if (!n.weight_bytes || n.bandwidth <= 0) return;

  const double W = *n.weight_bytes;
  const double kv = n.kv_bytes_per_seq.value_or(0);
  n.step_bytes = decode_step_bytes(W, kv, B);
  n.ideal_step_time_s = *n.step_bytes / n.bandwidth;
  n.bw_ceiling_aggregate = decode_tokens_per_sec(n.bandwidth, W, kv, B);
  n.bw_ceiling_per_seq = *n.bw_ceiling_aggregate / B;
  n.ceiling_aggregate = n.bw_ceiling_aggregate;
  const double flop_per_token = forward_flops_per_token(*n.params);
  if (n.peak_flops > 0) {
    n.compute_ceiling_aggregate = n.peak_flops / flop_per_token;
    n.step_intensity = arithmetic_intensity(flop_per_token * B, *n.step_bytes);
    n.ceiling_aggregate = std::min(*n.bw_ceiling_aggregate, *n.compute_ceiling_aggregate);
  }
  if (modeled != nullptr) {
    // The deployment engine's ceiling for this setup replaces the textbook W + B x KV one.
    const DecodeStep& st = modeled->decode;
    n.ideal_step_time_s = st.seconds;
    n.bw_ceiling_per_seq = st.tokens_per_s_per_sequence;
    n.bw_ceiling_aggregate = st.tokens_per_s_aggregate;
    n.ceiling_aggregate = st.tokens_per_s_aggregate;
    n.step_intensity = st.intensity;
    n.modeled_flops = st.flops_per_gpu;
    n.modeled_bytes = st.bytes_per_gpu;
    n.modeled_compute_s = st.compute_seconds;
    n.modeled_memory_s = st.memory_seconds;
    n.modeled_comm_s = st.comm_seconds;
    d->ignored.push_back({DxCode::kIgnoredModeledCeiling, {}});
  }
  auto ceiling_with = [&](double weights, double peak) {
    const double bw_c = decode_tokens_per_sec(n.bandwidth, weights, kv, B);
    return peak > 0 ? std::min(bw_c, peak / flop_per_token) : bw_c;
  };
  if (dtype_bits(dt) > 8) n.int8_ceiling_aggregate = ceiling_with(weight_bytes_of(*n.params, Dtype::kInt8), n.peak_flops);
  if (dtype_bits(dt) > 4) n.int4_ceiling_aggregate = ceiling_with(weight_bytes_of(*n.params, Dtype::kInt4), n.peak_flops);
  const double gpus = static_cast<double>(e.gpus.value_or(1));
  if (dtype_bits(dt) == 16 && gpu.peak_fp8_flops > gpu.peak_bf16_flops) {
    n.fp8_peak_flops = gpu.peak_fp8_flops * gpus;
    n.fp8_ceiling_aggregate = ceiling_with(weight_bytes_of(*n.params, Dtype::kFp8), *n.fp8_peak_flops);
  }
  if (n.measured_aggregate) {
    n.fraction_of_ceiling = *n.measured_aggregate / *n.ceiling_aggregate;
    n.bandwidth_fraction = *n.measured_aggregate / *n.bw_ceiling_aggregate;
    if (n.peak_flops > 0) {
      n.implied_flop_utilization = mfu(*n.measured_aggregate, *n.params, n.peak_flops, MfuMode::kInference);
      n.compute_fraction = n.implied_flop_utilization;
      if (e.profile.flop_utilization && *n.implied_flop_utilization > 0) {
        n.profiler_flop_excess = *e.profile.flop_utilization / *n.implied_flop_utilization;
      }
    }
  }
}

void prefill_numbers(const Evidence& e, Dtype dt, const Shape& s, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const std::optional<int64_t> T = e.prompt_tokens ? e.prompt_tokens : e.context;
  if (!T) return;
  const double t = static_cast<double>(*T);
  n.prefill_tokens = t;
  if (n.params) {
    n.prefill_linear_flops = prefill_linear_flops(*n.params, t);
    n.prefill_flops = n.prefill_linear_flops;
  }
  if (s.layers && s.heads && s.head_dim) {
    const double d_attn = static_cast<double>(*s.heads * *s.head_dim);
    const double L = static_cast<double>(*s.layers);
    n.prefill_attention_flops = prefill_attention_flops(L, t, d_attn);
    if (n.prefill_flops) *n.prefill_flops += *n.prefill_attention_flops;
    n.score_matrix_bytes = attention_score_bytes(static_cast<double>(*s.heads), t, activation_bytes(dt));
    if (e.profile.peak_transient_bytes) n.transient_over_scores = *e.profile.peak_transient_bytes / *n.score_matrix_bytes;
    if (n.bandwidth > 0) n.score_traffic_s = 4.0 * *n.score_matrix_bytes * L / n.bandwidth;
    if (n.peak_flops > 0) n.attention_floor_s = *n.prefill_attention_flops / n.peak_flops;
  }
  const auto attn = e.profile.kernel_time_fraction.find("attention");
  if (attn != e.profile.kernel_time_fraction.end() && e.measured.ttft_s) {
    n.attention_time_s = attn->second * *e.measured.ttft_s;
    if (n.attention_floor_s) {
      n.ttft_fused_s = *e.measured.ttft_s - std::max(0.0, *n.attention_time_s - *n.attention_floor_s);
    }
  }
  if (n.prefill_flops && n.peak_flops > 0 && n.prefill_attention_flops) {
    n.ttft_floor_s = *n.prefill_flops / n.peak_flops;
    if (e.measured.ttft_s) {
      n.fraction_of_ceiling = *n.ttft_floor_s / *e.measured.ttft_s;
      n.compute_fraction = n.fraction_of_ceiling;
    }
  }
  if (n.weight_bytes && e.profile.peak_transient_bytes) {
    n.peak_memory_bytes = *n.weight_bytes + *e.profile.peak_transient_bytes;
  }
  // The decode side of the same request: ITL against its floor at this context.
  if (e.measured.itl_s && n.weight_bytes && n.bandwidth > 0) {
    const double kv = kv_per_seq(s, t, evidence_kv_dtype(dt)).value_or(0);
    n.itl_floor_s = decode_step_bytes(*n.weight_bytes, kv, n.batch) / n.bandwidth;
    n.itl_fraction = *n.itl_floor_s / *e.measured.itl_s;
  }
}

void training_numbers(const Evidence& e, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  if (e.batch && e.context) n.tokens_per_step = static_cast<double>(*e.batch) * static_cast<double>(*e.context);
  if (n.params && n.peak_flops > 0) {
    n.train_ceiling_tps = n.peak_flops / training_flops(*n.params, 1.0);
    if (e.measured.tokens_per_s_aggregate) {
      n.fraction_of_ceiling = *e.measured.tokens_per_s_aggregate / *n.train_ceiling_tps;
      n.compute_fraction = n.fraction_of_ceiling;
    }
  }
}

void timeline_numbers(const Evidence& e, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const Profile& p = e.profile;
  if (p.kernels_per_step && p.kernel_us) {
    const double k = static_cast<double>(*p.kernels_per_step);
    n.kernel_time_s = k * p.kernel_us->mid() * 1e-6;
    if (p.gap_us) {
      n.gap_time_s = k * p.gap_us->mid() * 1e-6;
      n.gap_share = timeline_gap_share(p.kernel_us->mid(), p.gap_us->mid());
      n.gap_share_lo = timeline_gap_share(p.kernel_us->hi, p.gap_us->lo);
      n.gap_share_hi = timeline_gap_share(p.kernel_us->lo, p.gap_us->hi);
      n.idle_share = n.gap_share;
      n.speedup_no_idle = (*n.kernel_time_s + *n.gap_time_s) / *n.kernel_time_s;
      if (*n.gap_time_s > 0) n.speedup_infinite_gpu = (*n.kernel_time_s + *n.gap_time_s) / *n.gap_time_s;
    }
    if (n.step_time_s && *n.step_time_s > *n.kernel_time_s) {
      // The measured step is the truth; the timeline's kernels are what is busy in it.
      n.busy_share = *n.kernel_time_s / *n.step_time_s;
      n.idle_share = 1.0 - *n.busy_share;
      n.speedup_no_idle = *n.step_time_s / *n.kernel_time_s;
      n.speedup_infinite_gpu = *n.step_time_s / (*n.step_time_s - *n.kernel_time_s);
    }
  }
  double mem = 0, compute = 0;
  bool any_mem = false, any_compute = false;
  for (const auto& [kind, share] : p.kernel_time_fraction) {
    if (is_memory_bound_kind(kind)) mem += share, any_mem = true;
    if (kind == "gemm" || kind == "attention") compute += share, any_compute = true;
  }
  if (any_mem) {
    n.memory_bound_share = mem;
    if (mem < 1) n.amdahl_memory_bound = amdahl_speedup(mem);
  }
  if (any_compute) {
    n.compute_kernel_share = compute;
    if (p.flop_utilization && compute > 0 && p.kernel_time_fraction.count("gemm")) n.in_kernel_flop_rate = *p.flop_utilization / compute;
  }
}

// The evidence the rules cite, copied so that they read the numbers only.
void given_numbers(const Evidence& e, DiagnosisNumbers* n) {
  const Profile& p = e.profile;
  n->gpus = static_cast<double>(e.gpus.value_or(1));
  n->ttft_s = e.measured.ttft_s;
  n->itl_s = e.measured.itl_s;
  n->flop_utilization_profiled = p.flop_utilization;
  n->peak_transient_bytes = p.peak_transient_bytes;
  n->kernels_per_step = p.kernels_per_step;
  if (p.kernel_us) n->kernel_us_mid = p.kernel_us->mid();
  if (p.gap_us) n->gap_us_lo = p.gap_us->lo, n->gap_us_hi = p.gap_us->hi;
  auto share = [&](const char* kind) -> std::optional<double> {
    const auto it = p.kernel_time_fraction.find(kind);
    if (it == p.kernel_time_fraction.end()) return std::nullopt;
    return it->second;
  };
  n->attention_share = share("attention");
  n->gemm_share = share("gemm");
  n->cast_share = share("cast");
}

void compute_numbers(const Evidence& e, const GpuSpec& gpu, const DeploymentResult* modeled, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const Shape s = resolve_shape(e.model);
  const Dtype dt = e.model.dtype.value_or(Dtype::kFp16);
  if (!e.model.dtype && s.params) d->ignored.push_back({DxCode::kIgnoredDtypeAssumed, {}});
  const double gpus = static_cast<double>(e.gpus.value_or(1));
  n.bandwidth = gpu.bandwidth_bytes_per_s * gpus;
  n.capacity = gpu.capacity_bytes * gpus;
  n.peak_flops = gpu.peak_flops(default_compute_dtype(dt, gpu)) * gpus;
  if (n.bandwidth > 0 && n.peak_flops > 0) n.ridge = roofline_ridge_intensity(n.peak_flops, n.bandwidth);
  if (gpus > 1) {
    d->ignored.push_back({DxCode::kIgnoredGpusAsOne, {gpus}});
  }
  n.batch = static_cast<double>(e.batch.value_or(1));
  n.params = s.params;
  if (s.layers) n.layers = static_cast<double>(*s.layers);
  if (s.heads) n.heads = static_cast<double>(*s.heads);
  if (s.heads && s.head_dim) n.d_attn = static_cast<double>(*s.heads * *s.head_dim);
  if (s.kv_heads && s.head_dim) n.d_kv = static_cast<double>(*s.kv_heads * *s.head_dim);
  n.bytes_per_param = dtype_bytes(dt);
  n.kv_bytes_per_elem = dtype_bytes(evidence_kv_dtype(dt));
  if (s.params) n.weight_bytes = weight_bytes_of(*s.params, dt);
  const std::optional<int64_t> ctx = e.context ? e.context : e.prompt_tokens;
  n.context = ctx ? static_cast<double>(*ctx) : 0;
  n.kv_bytes_per_seq = kv_per_seq(s, n.context, evidence_kv_dtype(dt));
  if (modeled != nullptr) {
    n.max_sequences = static_cast<double>(modeled->memory.max_sequences);
  } else if (n.weight_bytes && n.kv_bytes_per_seq && *n.kv_bytes_per_seq > 0 && n.capacity > 0) {
    // A count beyond int64 leaves it unset: memory does not limit the batch.
    const Exact fit = max_batch_by_capacity(n.capacity, *n.weight_bytes, *n.kv_bytes_per_seq);
    if (!fit.overflow()) n.max_sequences = static_cast<double>(fit.value());
  }
  n.compute_fraction = e.profile.flop_utilization;
  n.bandwidth_fraction = e.profile.bandwidth_utilization;
  given_numbers(e, &n);

  switch (d->phase) {
    case Phase::kDecode:
      decode_numbers(e, gpu, dt, modeled, d);
      if (n.step_bytes && !n.kv_bytes_per_seq) {
        d->ignored.push_back({ctx ? DxCode::kIgnoredKvNoShape : DxCode::kIgnoredKvNoContext, {}});
      }
      break;
    case Phase::kPrefill: prefill_numbers(e, dt, s, d); break;
    case Phase::kTraining: training_numbers(e, d); break;
  }
  // Given utilizations win over the ones derived from the measurement.
  if (e.profile.flop_utilization) n.compute_fraction = e.profile.flop_utilization;
  if (e.profile.bandwidth_utilization) n.bandwidth_fraction = e.profile.bandwidth_utilization;
  timeline_numbers(e, d);
  if (s.spec && s.spec->n_expert > 0) {
    d->ignored.push_back({DxCode::kIgnoredMoe, {}});
  }
  if (n.prefill_flops) {
    d->ignored.push_back({DxCode::kIgnoredPrefillFlops, {}});
  }
}

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
  d->fixes.push_back({{code, std::move(v)}, speedup});
}

bool check_capacity(Diagnosis* d) {
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
    const double b2 = std::min(std::max(4.0, std::min(n.ridge / 2, n.batch * 8)),
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
  if (d->phase == Phase::kDecode && n.fp8_ceiling_aggregate && n.ceiling_aggregate) {
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
  if (d->phase == Phase::kDecode) {
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

Diagnosis diagnose(const Evidence& e, const GpuSpec& gpu, const DeploymentResult* modeled) {
  Diagnosis d;
  d.phase = infer_phase(e, &d.phase_inferred);
  compute_numbers(e, gpu, modeled, &d);  // every number first; the rules below read d.n only
  const DiagnosisNumbers& n = d.n;
  const double fc = n.compute_fraction.value_or(0), fb = n.bandwidth_fraction.value_or(0);
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
