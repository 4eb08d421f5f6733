// The rules of `diagnose`: compute every number the evidence allows (ceilings
// first), then decide the regime from those numbers, then derive fixes, the
// rejected optimization and the questions to ask from the same numbers.
#include "modelcalc/diagnose.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>

#include "format.h"
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

std::string num(double v) { return fmt_sig(v, 6); }

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

std::string pct(double f) { return fmt_sig(f * 100, 2) + " %"; }
std::string tps(double v) { return fmt_fixed(v, v < 100 ? 1 : 0) + " tokens/s"; }
std::string gb(double b) { return fmt_sig(b / 1e9, 3) + " GB"; }
std::string secs(double s) { return s < 0.1 ? fmt_sig(s * 1e3, 3) + " ms" : fmt_sig(s, 3) + " s"; }
std::string times(double f) { return fmt_sig(f, 3) + "×"; }

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

// Dtype whose peak the FLOP ceiling uses: weight-only int8/int4 still compute in bf16.
Dtype compute_dtype(Dtype weights) {
  return weights == Dtype::kInt8 || weights == Dtype::kInt4 ? Dtype::kBf16 : weights;
}

double activation_bytes(Dtype weights) {
  return weights == Dtype::kFp32 ? 4.0 : 2.0;  // int/fp8 weights still run fp16/bf16 activations
}

double weight_bytes_of(double params, Dtype t) {
  return static_cast<double>(weight_memory_bytes(Exact(std::llround(params)), t).value());
}

std::optional<double> kv_per_seq(const Shape& s, double ctx, Dtype t) {
  if (ctx <= 0) return std::nullopt;
  if (s.spec) {
    auto kv = kv_bytes_per_sequence(*s.spec, static_cast<int64_t>(ctx), t);
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
    d->ignored.push_back("Decode ceiling from the deployment engine (the same as size): experts read under uniform "
                         "routing, embedding rows, the lm_head, KV per GPU and communication counted.");
  }
  auto ceiling_with = [&](double weights, double peak) {
    const double bw_c = decode_tokens_per_sec(n.bandwidth, weights, kv, B);
    return peak > 0 ? std::min(bw_c, peak / flop_per_token) : bw_c;
  };
  if (dtype_bytes(dt) > 1) n.int8_ceiling_aggregate = ceiling_with(weight_bytes_of(*n.params, Dtype::kInt8), n.peak_flops);
  if (dtype_bytes(dt) > 0.5) n.int4_ceiling_aggregate = ceiling_with(weight_bytes_of(*n.params, Dtype::kInt4), n.peak_flops);
  const double gpus = static_cast<double>(e.gpus.value_or(1));
  if ((dt == Dtype::kFp16 || dt == Dtype::kBf16) && gpu.peak_fp8_flops > gpu.peak_bf16_flops) {
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
    const double kv = kv_per_seq(s, t, dt).value_or(0);
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

void compute_numbers(const Evidence& e, const GpuSpec& gpu, const DeploymentResult* modeled, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const Shape s = resolve_shape(e.model);
  const Dtype dt = e.model.dtype.value_or(Dtype::kFp16);
  if (!e.model.dtype && s.params) d->ignored.push_back("No model.dtype given: fp16 weights assumed (2 B per parameter).");
  const double gpus = static_cast<double>(e.gpus.value_or(1));
  n.bandwidth = gpu.bandwidth_bytes_per_s * gpus;
  n.capacity = gpu.capacity_bytes * gpus;
  n.peak_flops = gpu.peak_flops(compute_dtype(dt)) * gpus;
  if (n.bandwidth > 0 && n.peak_flops > 0) n.ridge = roofline_ridge_intensity(n.peak_flops, n.bandwidth);
  if (gpus > 1) {
    d->ignored.push_back(fmt::format("{} GPUs are treated as one with {}× the bandwidth, capacity and FLOP/s: "
                                     "ideal tensor parallelism, communication not counted.",
                                     e.gpus.value_or(1), e.gpus.value_or(1)));
  }
  n.batch = static_cast<double>(e.batch.value_or(1));
  n.params = s.params;
  if (s.layers) n.layers = static_cast<double>(*s.layers);
  if (s.heads) n.heads = static_cast<double>(*s.heads);
  if (s.heads && s.head_dim) n.d_attn = static_cast<double>(*s.heads * *s.head_dim);
  if (s.kv_heads && s.head_dim) n.d_kv = static_cast<double>(*s.kv_heads * *s.head_dim);
  n.bytes_per_param = dtype_bytes(dt);
  if (s.params) n.weight_bytes = weight_bytes_of(*s.params, dt);
  const std::optional<int64_t> ctx = e.context ? e.context : e.prompt_tokens;
  n.context = ctx ? static_cast<double>(*ctx) : 0;
  n.kv_bytes_per_seq = kv_per_seq(s, n.context, dt);
  if (modeled != nullptr) {
    n.max_sequences = static_cast<double>(modeled->memory.max_sequences);
  } else if (n.weight_bytes && n.kv_bytes_per_seq && *n.kv_bytes_per_seq > 0 && n.capacity > 0) {
    n.max_sequences =
        static_cast<double>(max_batch_by_capacity(n.capacity, *n.weight_bytes, *n.kv_bytes_per_seq));
  }
  n.compute_fraction = e.profile.flop_utilization;
  n.bandwidth_fraction = e.profile.bandwidth_utilization;

  switch (d->phase) {
    case Phase::kDecode:
      decode_numbers(e, gpu, dt, modeled, d);
      if (n.step_bytes && !n.kv_bytes_per_seq) {
        d->ignored.push_back(ctx ? "KV cache not counted: the shape (layers, kv_heads, head dim) is not given; "
                                   "the ceiling is an upper bound."
                                 : "KV cache not counted: no context length given; at short contexts it is "
                                   "small against the weights, so the ceiling is a slight upper bound.");
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
    d->ignored.push_back("MoE: every expert's weights are counted as read each step (true at large batch); at "
                         "small batch only the routed experts are, so the decode ceiling is a lower bound.");
  }
  if (n.prefill_flops) {
    d->ignored.push_back("Prefill FLOPs count every parameter as a matmul weight (embeddings slightly overcount) "
                         "and all of 4·T²·d attention (a causal kernel can skip the masked half).");
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

bool check_capacity(const Evidence& e, Diagnosis* d) {
  const DiagnosisNumbers& n = d->n;
  if (n.capacity <= 0 || !n.weight_bytes) return false;
  const double W = *n.weight_bytes;
  auto capacity_bound = [&](std::string detail, std::string settled) {
    d->regime = Regime::kCapacityBound;
    d->detail = std::move(detail);
    d->settled_by = std::move(settled);
    return true;
  };
  if (W > n.capacity) {
    capacity_bound(fmt::format("{}, capacity-bound: the {} of weights do not fit in {}", phase_name(d->phase), gb(W),
                               gb(n.capacity)),
                   fmt::format("weights N × b = {} > capacity {}", gb(W), gb(n.capacity)));
    const double need = std::ceil(W / (0.9 * n.capacity / static_cast<double>(e.gpus.value_or(1))));
    d->fixes.push_back({"Shard the weights across more GPUs (tensor or pipeline parallel)",
                        fmt::format("{} GPUs hold {} with 10 % left for activations", need, gb(W)), std::nullopt});
    if (n.bytes_per_param && *n.bytes_per_param > 0.5) {
      const double w4 = *n.params * 0.5;
      d->fixes.push_back({"Quantize the weights", fmt::format("int4: {} ({} fits: {})", gb(w4), gb(n.capacity),
                                                              w4 < n.capacity ? "yes" : "no"),
                          std::nullopt});
    }
    d->reject = Reject{"Faster kernels or a higher-FLOP GPU of the same capacity",
                       "nothing runs until the weights fit; speed is moot until memory is"};
    return true;
  }
  if (n.peak_memory_bytes && *n.peak_memory_bytes > n.capacity) {
    capacity_bound(fmt::format("{}, capacity-bound: weights + transient = {} exceed {}", phase_name(d->phase),
                               gb(*n.peak_memory_bytes), gb(n.capacity)),
                   fmt::format("W + peak transient = {} > capacity {}", gb(*n.peak_memory_bytes), gb(n.capacity)));
    if (n.transient_over_scores && *n.transient_over_scores >= 0.5 && *n.transient_over_scores <= 2) {
      d->fixes.push_back({"Fused (FlashAttention-style) attention",
                          fmt::format("never materializes the {} score matrix: peak memory {} → about {}",
                                      gb(*n.score_matrix_bytes), gb(*n.peak_memory_bytes), gb(W)),
                          std::nullopt});
    }
    d->fixes.push_back({"Chunked prefill", "bounds the transient by the chunk instead of the whole prompt",
                        std::nullopt});
    d->reject = Reject{"Faster kernels", "the allocation fails before speed matters"};
    return true;
  }
  if (d->phase == Phase::kDecode && n.kv_bytes_per_seq && *n.kv_bytes_per_seq > 0) {
    const int64_t fit = max_batch_by_capacity(n.capacity, W, *n.kv_bytes_per_seq);
    if (static_cast<double>(fit) < n.batch) {
      capacity_bound(fmt::format("decode, capacity-bound: only {} sequences' KV fit beside the weights, batch is {}",
                                 fit, n.batch),
                     fmt::format("floor((capacity − W) / KV) = floor(({} − {}) / {}) = {} < batch {}", gb(n.capacity),
                                 gb(W), gb(*n.kv_bytes_per_seq), fit, n.batch));
      d->fixes.push_back({"Shrink the KV cache: int8/fp8 KV, fewer KV heads (GQA), paged allocation",
                          fmt::format("int8 KV from {} halves it: about {} sequences fit", "fp16",
                                      max_batch_by_capacity(n.capacity, W, *n.kv_bytes_per_seq / 2)),
                          std::nullopt});
      d->fixes.push_back({"Cap the batch at what fits, or add GPUs for KV", fmt::format("batch ≤ {}", fit),
                          std::nullopt});
      d->reject = Reject{"Faster kernels", "the batch is capped by memory; the KV must fit first"};
      return true;
    }
  }
  return false;
}

void above_ceiling(const Evidence& e, Diagnosis* d) {
  const DiagnosisNumbers& n = d->n;
  const double k = *n.fraction_of_ceiling;
  d->above_ceiling = true;
  d->confirmed = false;
  d->regime = roofline_regime(*d);
  d->settled_by = fmt::format("the measurement is {} the computed ceiling", times(k));
  std::vector<std::string> explain;
  if (d->phase == Phase::kDecode) {
    const double per_seq = *n.measured_per_seq;
    d->detail = fmt::format("decode at {} of its computed ceiling ({} vs {} per sequence): the evidence leaves "
                            "something out",
                            pct(k), tps(per_seq), tps(*n.bw_ceiling_per_seq));
    const double kv_total = n.batch * n.kv_bytes_per_seq.value_or(0);
    const double w_needed = n.bandwidth / per_seq - kv_total;
    if (w_needed > 0) {
      explain.push_back(fmt::format("quantized weights: the rate needs ≤ {} of weights per step, {} B per parameter "
                                    "(the evidence says {} B)",
                                    gb(w_needed), fmt_sig(w_needed / *n.params, 3), fmt_sig(*n.bytes_per_param, 3)));
    }
    explain.push_back(fmt::format("speculative decoding: ≥ {} tokens accepted per weight read", fmt_sig(k, 3)));
    explain.push_back(fmt::format("a different GPU: the stated bytes need ≥ {}/s of bandwidth (given {}/s)",
                                  fmt_si(per_seq * *n.step_bytes, "B"), fmt_si(n.bandwidth, "B")));
    explain.push_back(fmt::format("batching: an aggregate over ≥ {} sequences reported as one",
                                  fmt_sig(std::ceil(per_seq / *n.bw_ceiling_per_seq), 3)));
  } else if (d->phase == Phase::kPrefill) {
    d->detail = fmt::format("prefill TTFT {} is below its floor {} at peak FLOP/s: the evidence leaves something out",
                            secs(*e.measured.ttft_s), secs(*n.ttft_floor_s));
    explain.push_back("prefix caching: only part of the prompt was computed");
    explain.push_back(fmt::format("a different or larger machine: the FLOPs need ≥ {} (given {})",
                                  fmt_si(*n.prefill_flops / *e.measured.ttft_s, "FLOP/s"),
                                  fmt_si(n.peak_flops, "FLOP/s")));
    explain.push_back("fewer prompt tokens than stated");
  } else {
    d->detail = fmt::format("training at {} of its 6N FLOP ceiling: the evidence leaves something out", pct(k));
    explain.push_back("fewer FLOPs per token than 6N: a MoE's active parameters, not its total");
    explain.push_back("more GPUs than stated");
    explain.push_back("a lower-precision peak (fp8) than the bf16 one assumed");
  }
  std::string list;
  for (const std::string& x : explain) list += (list.empty() ? "" : "; ") + x;
  d->findings.push_back("Measured above the computed ceiling. What the input probably leaves out: " + list + ".");
  d->fixes.push_back({"Reconcile the evidence with the setup before optimizing anything",
                      "check " + list, std::nullopt});
  d->reject = Reject{"Any fix chosen by comparing against this ceiling",
                     "a rate above the physical ceiling means an input is wrong, so every ratio to it is too"};
}

void bandwidth_near(Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double frac = n.fraction_of_ceiling.value_or(*n.bandwidth_fraction);
  d->regime = Regime::kBandwidthBound;
  d->detail = fmt::format("{}, bandwidth-bound at {} of its ceiling", phase_name(d->phase), pct(frac));
  if (n.bw_ceiling_per_seq && n.measured_per_seq) {
    d->settled_by = fmt::format("measured {} vs ceiling bw / (W + B × KV) = {} per sequence: {}; FLOP use {}",
                                tps(*n.measured_per_seq), tps(*n.bw_ceiling_per_seq), pct(frac),
                                pct(n.compute_fraction.value_or(0)));
  } else {
    d->settled_by = fmt::format("HBM bandwidth at {} of peak while FLOP use is {}", pct(*n.bandwidth_fraction),
                                pct(n.compute_fraction.value_or(0)));
  }
  if (d->phase != Phase::kDecode) {
    d->fixes.push_back({"Cut bytes moved: fuse memory-bound kernels, lower-precision activations",
                        fmt::format("time scales with bytes at {} of peak bandwidth", pct(*n.bandwidth_fraction)),
                        std::nullopt});
    d->reject = Reject{"Faster compute kernels or a higher-FLOP GPU",
                       fmt::format("FLOP use is {}: compute is idle, bytes set the time",
                                   pct(n.compute_fraction.value_or(0)))};
    return;
  }
  const double base = n.ceiling_aggregate.value_or(0);
  const double kv_total = n.batch * n.kv_bytes_per_seq.value_or(0);
  if (n.int8_ceiling_aggregate || n.int4_ceiling_aggregate) {
    std::string eff;
    std::optional<double> gain;
    if (n.int8_ceiling_aggregate) {
      gain = *n.int8_ceiling_aggregate / base;
      eff += fmt::format("int8: ceiling {} → {} per sequence ({})", tps(base / n.batch),
                         tps(*n.int8_ceiling_aggregate / n.batch), times(*gain));
    }
    if (n.int4_ceiling_aggregate) {
      const double g4 = *n.int4_ceiling_aggregate / base;
      if (!gain) gain = g4;
      eff += fmt::format("{}int4: {} ({})", eff.empty() ? "" : "; ", tps(*n.int4_ceiling_aggregate / n.batch), times(g4));
    }
    if (n.measured_per_seq) {
      eff += fmt::format("; at today's {} of ceiling ≈ {}", pct(frac), tps(frac * base / n.batch * *gain));
    }
    d->fixes.push_back({"Fewer bytes per token: quantize the weights (weight-only int8, then int4)", eff, gain});
  }
  if (n.weight_bytes && kv_total > 0.5 * *n.weight_bytes) {
    const double g = decode_tokens_per_sec(n.bandwidth, *n.weight_bytes, n.kv_bytes_per_seq.value_or(0) / 2, n.batch) /
                     *n.bw_ceiling_aggregate;
    d->fixes.push_back({"Shrink the KV cache read each step (int8/fp8 KV)",
                        fmt::format("KV is {} of the {} step; halving it: {}", gb(kv_total), gb(*n.step_bytes), times(g)),
                        g});
  }
  if (n.step_intensity && n.ridge > 0 && *n.step_intensity * 2 < n.ridge) {
    d->fixes.push_back({"Speculative decoding: verify several drafted tokens per weight read",
                        fmt::format("the step runs at {} FLOP/byte against a ridge of {}: verifying k tokens costs "
                                    "about the same bytes, so per-sequence speed scales with the tokens accepted per "
                                    "step (typically 2–3×)",
                                    fmt_sig(*n.step_intensity, 3), fmt_sig(n.ridge, 3)),
                        std::nullopt});
  }
  if (n.ridge > 0 && n.step_intensity && *n.step_intensity * 4 < n.ridge) {
    // Never a batch HBM cannot hold: capped at the sequences that fit at this context.
    const double b2 = std::min(std::max(4.0, std::min(n.ridge / 2, n.batch * 8)),
                               n.max_sequences.value_or(std::numeric_limits<double>::infinity()));
    if (b2 > n.batch) {
      double agg = decode_tokens_per_sec(n.bandwidth, *n.weight_bytes, n.kv_bytes_per_seq.value_or(0), b2);
      if (n.compute_ceiling_aggregate) agg = std::min(agg, *n.compute_ceiling_aggregate);
      d->fixes.push_back({"Batch concurrent requests, if traffic allows",
                          fmt::format("batch {}{}: aggregate ceiling {} ({}) at the same per-sequence speed; one "
                                      "weight read serves every sequence",
                                      b2, n.max_sequences && b2 == *n.max_sequences ? " (all that fit in HBM)" : "",
                                      tps(agg), times(agg / base)),
                          agg / base});
    }
  }
  d->reject = Reject{"Faster compute kernels (GEMM tuning, a higher-FLOP GPU)",
                     fmt::format("FLOP use is {}{}; at {} of the bandwidth ceiling no kernel work can win more "
                                 "than 1 / {} = {}",
                                 pct(n.compute_fraction.value_or(0)),
                                 n.implied_flop_utilization
                                     ? fmt::format(" (the tokens need {})", pct(*n.implied_flop_utilization))
                                     : "",
                                 pct(frac), fmt_sig(frac, 3), times(1 / frac))};
}

void compute_near(const Evidence& e, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double fc = *n.compute_fraction;
  d->regime = Regime::kComputeBound;
  d->detail = fmt::format("{}, compute-bound at {} of peak FLOP/s", phase_name(d->phase), pct(fc));
  d->settled_by = n.bandwidth_fraction
                      ? fmt::format("FLOP use {} against bandwidth use {}", pct(fc), pct(*n.bandwidth_fraction))
                      : fmt::format("FLOP use {} of peak", pct(fc));
  if (n.step_intensity && n.ridge > 0) {
    d->settled_by += fmt::format("; batch {} puts the step at {} FLOP/byte vs ridge {}", n.batch,
                                 fmt_sig(*n.step_intensity, 3), fmt_sig(n.ridge, 3));
  }
  if (n.in_kernel_flop_rate) {
    d->findings.push_back(fmt::format("GEMM + attention kernels take {} of kernel time and carry the FLOPs, so "
                                      "while running they reach ≥ {} / {} = {} of peak: little left in the GEMMs",
                                      pct(*n.compute_kernel_share), pct(fc), pct(*n.compute_kernel_share),
                                      pct(*n.in_kernel_flop_rate)));
  }
  if (n.memory_bound_share && *n.memory_bound_share >= 0.05 && n.amdahl_memory_bound) {
    const double m = *n.memory_bound_share;
    d->findings.push_back(fmt::format(
        "Compute-bound overall, yet {} of kernel time is memory-bound work (norms, elementwise, casts) doing next "
        "to no FLOPs: removing it is worth up to 1 / (1 − {}) = {} — real, and bounded",
        pct(m), fmt_sig(m, 3), times(*n.amdahl_memory_bound)));
    d->fixes.push_back({"Fuse the memory-bound ops (norm + activation + residual add + casts) into neighbours",
                        fmt::format("they are {} of kernel time: up to {} if they vanished, about {} if fusion "
                                    "halves them; try an automatic fuser (torch.compile) before hand-written kernels",
                                    pct(m), times(*n.amdahl_memory_bound), times(amdahl_speedup(m / 2))),
                        amdahl_speedup(m / 2)});
  }
  const auto cast = e.profile.kernel_time_fraction.find("cast");
  if (cast != e.profile.kernel_time_fraction.end() && cast->second >= 0.03) {
    d->fixes.push_back({"Remove dtype casts (keep tensors in the compute dtype, fold casts into GEMM epilogues)",
                        fmt::format("{} of kernel time: up to {}", pct(cast->second), times(amdahl_speedup(cast->second))),
                        amdahl_speedup(cast->second)});
  }
  if (d->phase == Phase::kDecode && n.fp8_ceiling_aggregate && n.ceiling_aggregate) {
    const double g = *n.fp8_ceiling_aggregate / *n.ceiling_aggregate;
    d->fixes.push_back({"fp8 compute (weights and activations, W8A8)",
                        fmt::format("peak {} → {}: ceiling {} → {} ({})", fmt_si(n.peak_flops, "FLOP/s"),
                                    fmt_si(*n.fp8_peak_flops, "FLOP/s"), tps(*n.ceiling_aggregate),
                                    tps(*n.fp8_ceiling_aggregate), times(g)),
                        g});
  } else if (d->phase != Phase::kDecode && n.compute_kernel_share && e.profile.kernel_time_fraction.count("gemm")) {
    const double gemm = e.profile.kernel_time_fraction.at("gemm");
    d->fixes.push_back({"fp8 GEMMs, if the numerics allow",
                        fmt::format("twice the dense peak on most current GPUs; GEMMs are {} of kernel time: up to {}",
                                    pct(gemm), times(amdahl_speedup(gemm / 2))),
                        amdahl_speedup(gemm / 2)});
  }
  if (n.profiler_flop_excess && *n.profiler_flop_excess > 1.5) {
    d->findings.push_back(fmt::format(
        "The profiler's FLOP rate ({}) is {} the {} the measured tokens need at 2N FLOP/token: the step does work "
        "2N does not count (tile padding, long-context attention, prefill chunks) or the rate includes time outside "
        "the profiled steps",
        pct(*e.profile.flop_utilization), times(*n.profiler_flop_excess), pct(*n.implied_flop_utilization)));
    d->fixes.push_back({"Find the FLOPs beyond 2N per token",
                        fmt::format("the compute is busy at {} but the tokens need {}: closing that is worth up to {}",
                                    pct(*e.profile.flop_utilization), pct(*n.implied_flop_utilization),
                                    times(*n.profiler_flop_excess)),
                        *n.profiler_flop_excess});
  }
  if (d->phase == Phase::kDecode) {
    d->fixes.push_back({"Scale out: more replicas (data parallel)",
                        "throughput grows with replicas; a bigger batch does not help past the ridge — it adds "
                        "FLOPs in proportion",
                        std::nullopt});
    if (n.int4_ceiling_aggregate && n.ceiling_aggregate) {
      const double g = *n.int4_ceiling_aggregate / *n.ceiling_aggregate;
      d->reject = Reject{
          "int4 weight-only quantization (\"4× smaller weights, so up to 4× the throughput\")",
          fmt::format("it shrinks bytes, and bytes are not the limit: {}the ceiling stays min(bandwidth {}, compute "
                      "{}) = {} ({}). Expect about 1× (dequantization can make it slower); what it does give is "
                      "{} of HBM back ({} → {}) for KV and longer contexts",
                      n.bandwidth_fraction ? "bandwidth is at " + pct(*n.bandwidth_fraction) + " while FLOPs are at " +
                                                 pct(fc) + "; "
                                           : "",
                      tps(decode_tokens_per_sec(n.bandwidth, *n.params * 0.5, n.kv_bytes_per_seq.value_or(0), n.batch)),
                      tps(*n.compute_ceiling_aggregate), tps(*n.int4_ceiling_aggregate), times(g),
                      gb(*n.weight_bytes - *n.params * 0.5), gb(*n.weight_bytes), gb(*n.params * 0.5))};
    } else {
      d->reject = Reject{"Weight quantization for speed", "it cuts bytes; FLOPs are the limit"};
    }
  } else {
    if (d->phase == Phase::kPrefill) {
      d->fixes.push_back({"Split the prefill across GPUs (tensor or context parallel)",
                          n.ttft_floor_s ? fmt::format("the TTFT floor at peak is {} per GPU; k GPUs divide it",
                                                       secs(*n.ttft_floor_s))
                                         : "k GPUs divide the FLOPs",
                          std::nullopt});
    }
    const double T = d->phase == Phase::kTraining ? n.tokens_per_step.value_or(0) : n.prefill_tokens.value_or(0);
    d->reject = Reject{
        d->phase == Phase::kTraining ? "A larger microbatch to raise arithmetic intensity"
                                     : "Weight quantization or speculative decoding",
        d->phase == Phase::kTraining
            ? fmt::format("{}GEMMs are already far past the ridge ({} FLOP/byte) and run at ≥ {} of peak; the "
                          "memory-bound ops scale with tokens too, so their share stays",
                          T > 0 ? fmt::format("at {} tokens per step ", fmt_fixed(T, 0)) : "",
                          fmt_sig(n.ridge, 3), pct(n.in_kernel_flop_rate.value_or(fc)))
            : fmt::format("they cut bytes per decode step; prefill is compute-bound (intensity ≈ T{} ≫ ridge {}), so "
                          "fewer weight bytes do not remove FLOPs",
                          T > 0 ? " = " + fmt_fixed(T, 0) : "", fmt_sig(n.ridge, 3))};
  }
}

void overhead(const Evidence& e, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double idle = *n.idle_share;
  d->regime = Regime::kOverheadBound;
  const double frac = n.fraction_of_ceiling.value_or(achieved(n));
  d->detail = fmt::format("{}, overhead-bound: the GPU is idle {} of the step{}", phase_name(d->phase), pct(idle),
                          n.fraction_of_ceiling ? ", at " + pct(frac) + " of its ceiling" : "");
  if (n.busy_share) {
    d->settled_by = fmt::format("{} kernels × {} µs = {} of kernel time in a measured {} step: busy {}, idle {}",
                                *e.profile.kernels_per_step, fmt_sig(e.profile.kernel_us->mid(), 3),
                                secs(*n.kernel_time_s), secs(*n.step_time_s), pct(*n.busy_share), pct(idle));
  } else {
    d->settled_by = fmt::format("{} kernels with {}–{} µs gaps: gaps are {} of the timeline ({}–{})",
                                *e.profile.kernels_per_step, fmt_sig(e.profile.gap_us->lo, 3),
                                fmt_sig(e.profile.gap_us->hi, 3), pct(*n.gap_share), pct(*n.gap_share_lo),
                                pct(*n.gap_share_hi));
  }
  if (n.gap_share && n.busy_share) {
    d->findings.push_back(fmt::format("Launch gaps alone are {} of the kernel timeline ({}–{}); the rest of the idle "
                                      "time is host work between steps",
                                      pct(*n.gap_share), pct(*n.gap_share_lo), pct(*n.gap_share_hi)));
  }
  std::string graph_effect = fmt::format("removes the idle {} of the step: up to {}", pct(idle),
                                         times(*n.speedup_no_idle));
  if (n.measured_per_seq) graph_effect += fmt::format(" ({} → {} per sequence)", tps(*n.measured_per_seq),
                                                      tps(*n.measured_per_seq * *n.speedup_no_idle));
  d->fixes.push_back({"CUDA graphs (capture the whole step; overlap host scheduling with the GPU)", graph_effect,
                      *n.speedup_no_idle});
  std::string fuse = fmt::format("fewer than {} launches and fewer HBM round trips", *e.profile.kernels_per_step);
  std::optional<double> fuse_gain;
  if (n.ideal_step_time_s && n.kernel_time_s && *n.kernel_time_s > *n.ideal_step_time_s) {
    fuse_gain = *n.kernel_time_s / *n.ideal_step_time_s;
    fuse += fmt::format(": kernel time {} → toward the {} the bytes need, another {}", secs(*n.kernel_time_s),
                        secs(*n.ideal_step_time_s), times(*fuse_gain));
  }
  d->fixes.push_back({"Kernel fusion (norm + residual, QKV + RoPE, activation)", fuse, fuse_gain});
  if (n.speedup_infinite_gpu) {
    std::string why = fmt::format("the kernels are busy {} of the step; even an infinitely fast GPU removes only "
                                  "that: ≤ {}",
                                  pct(1 - idle), times(*n.speedup_infinite_gpu));
    if (n.step_time_s && n.kernel_time_s) {
      const double step = *n.step_time_s;
      why += fmt::format("; 1.5× the bandwidth saves a third of kernel time: {}",
                         times(step / (step - *n.kernel_time_s / 3)));
    }
    d->reject = Reject{"A bigger GPU (more bandwidth or FLOP/s)", why};
  }
}

void far_below_unexplained(Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double a = achieved(n);
  d->regime = Regime::kOverheadBound;
  d->confirmed = false;
  d->detail = fmt::format("{}, overhead-bound (suspected): at {} of the nearest roof, neither bytes nor FLOPs explain "
                          "the time; the timeline confirms it",
                          phase_name(d->phase), pct(a));
  d->settled_by = fmt::format("FLOP use {} and bandwidth use {}: both far below their roofs",
                              n.compute_fraction ? pct(*n.compute_fraction) : "unknown",
                              n.bandwidth_fraction ? pct(*n.bandwidth_fraction) : "unknown");
  d->fixes.push_back({"Take a timeline of one step before changing anything",
                      fmt::format("{} of the step is unexplained by either roof; gaps between kernels, host time or "
                                  "synchronization will show there",
                                  pct(1 - a)),
                      std::nullopt});
  d->fixes.push_back({"If it shows many short kernels with gaps: CUDA graphs, then kernel fusion",
                      fmt::format("closing the gap to the ceiling is worth up to 1 / {} = {}", fmt_sig(a, 3),
                                  times(1 / std::max(a, 1e-9))),
                      1 / std::max(a, 1e-9)});
  const double roof = roofline_regime(*d) == Regime::kBandwidthBound ? n.bandwidth_fraction.value_or(a)
                                                                      : n.compute_fraction.value_or(a);
  d->reject = Reject{
      roofline_regime(*d) == Regime::kBandwidthBound ? "Weight quantization (fewer bytes per token) first"
                                                     : "A higher-FLOP GPU or faster GEMMs first",
      fmt::format("it speeds up the {} of the step that the roof accounts for; halving that saves ≤ {}: {}", pct(roof),
                  pct(roof / 2), times(amdahl_speedup(roof / 2)))};
}

void prefill_scores(const Evidence& e, Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double fc = n.compute_fraction.value_or(0);
  d->regime = Regime::kComputeBound;
  d->detail = fmt::format("prefill, compute-bound at only {} of peak: unfused attention materializes the {} score "
                          "matrix",
                          pct(fc), gb(*n.score_matrix_bytes));
  d->settled_by = fmt::format("heads × T² × b = {} matches the {} peak transient ({})", gb(*n.score_matrix_bytes),
                              gb(*e.profile.peak_transient_bytes), times(*n.transient_over_scores));
  if (n.score_traffic_s) {
    std::string s = fmt::format("Streaming the score matrix (QK^T writes it, softmax reads and writes it, AV reads "
                                "it: 4 passes × {} × {} layers) takes {} of HBM time",
                                gb(*n.score_matrix_bytes), n.layers,
                                secs(*n.score_traffic_s));
    if (n.attention_time_s) {
      s += fmt::format(" of the {} attention kernels' {}, while their FLOPs need {} at peak: attention runs "
                       "memory-bound, which is why a compute-bound prefill reaches {}",
                       pct(e.profile.kernel_time_fraction.at("attention")), secs(*n.attention_time_s),
                       secs(*n.attention_floor_s), pct(fc));
    }
    d->findings.push_back(s);
  }
  std::optional<double> gain;
  std::string eff = fmt::format("never writes the {} score matrix; the transient goes", gb(*n.score_matrix_bytes));
  if (n.ttft_fused_s) {
    gain = *e.measured.ttft_s / *n.ttft_fused_s;
    eff += fmt::format("; attention {} → ≥ {} at peak FLOP/s: TTFT {} → ≥ {} ({} at most; a causal kernel also "
                       "skips the masked half)",
                       secs(*n.attention_time_s), secs(*n.attention_floor_s), secs(*e.measured.ttft_s),
                       secs(*n.ttft_fused_s), times(*gain));
  }
  d->fixes.push_back({"Fused (FlashAttention-style) attention", eff, gain});
  if (n.ttft_fused_s && n.prefill_linear_flops && n.attention_time_s) {
    const double rest = *e.measured.ttft_s - *n.attention_time_s;
    const double floor = *n.prefill_linear_flops / n.peak_flops;
    d->fixes.push_back({"Then the linear layers: profile the GEMMs",
                        fmt::format("the other {} of TTFT carries {} FLOP, {} at peak: {} of peak", secs(rest),
                                    fmt_sig(*n.prefill_linear_flops, 3), secs(floor), pct(floor / rest)),
                        rest / floor});
  }
  if (n.ttft_floor_s) {
    d->fixes.push_back({"Split the prefill across GPUs (tensor or context parallel)",
                        fmt::format("the whole prefill needs {} at peak on one GPU; k GPUs divide it",
                                    secs(*n.ttft_floor_s)),
                        std::nullopt});
  }
  if (n.itl_fraction && *n.itl_fraction >= kNearCeiling) {
    d->findings.push_back(fmt::format("ITL {} against a floor of (W + KV) / bw = {}: decode is at {} of its "
                                      "ceiling — leave it alone",
                                      secs(*e.measured.itl_s), secs(*n.itl_floor_s), pct(*n.itl_fraction)));
  }
  const std::string itl = n.itl_fraction ? fmt::format("ITL is at {} of its floor and not the complaint; ",
                                                       pct(*n.itl_fraction))
                                         : "";
  d->reject = Reject{"Speculative decoding or weight quantization",
                     fmt::format("{}TTFT is prefill, compute-bound at intensity ≈ T = {} ≫ ridge {}: fewer weight "
                                 "bytes do not remove FLOPs, and the score matrix is activations, not weights",
                                 itl, fmt_fixed(*n.prefill_tokens, 0), fmt_sig(n.ridge, 3))};
}

void kernels_slow(Diagnosis* d) {
  DiagnosisNumbers& n = d->n;
  const double a = achieved(n);
  d->regime = roofline_regime(*d);
  d->detail = fmt::format("{}, {} by the shapes, but busy kernels reach only {} of the roof: the kernels are slow",
                          phase_name(d->phase), regime_name(d->regime), pct(a));
  d->settled_by = fmt::format("idle share {} is small, so the time is inside kernels running at {} of the roof",
                              pct(*n.idle_share), pct(a));
  d->fixes.push_back({"Profile the top kernels against their own roofline (bytes or FLOPs each should take)",
                      fmt::format("the kernels could be up to {} faster", times(1 / std::max(a, 1e-9))),
                      std::nullopt});
}

void no_measurement(Diagnosis* d) {
  d->regime = roofline_regime(*d);
  d->confirmed = false;
  d->detail = fmt::format("{}: {} by the shapes; no measurement to compare with", phase_name(d->phase),
                          regime_name(d->regime));
  d->settled_by = d->n.step_intensity ? fmt::format("step intensity {} FLOP/byte vs ridge {}",
                                                    fmt_sig(*d->n.step_intensity, 3), fmt_sig(d->n.ridge, 3))
                                      : "the phase alone";
}

void ask_first(Diagnosis* d) {
  const DiagnosisNumbers& n = d->n;
  const bool have_util = n.compute_fraction || n.bandwidth_fraction || n.fraction_of_ceiling;
  if (!have_util) {
    d->ask_first.push_back(
        {"Achieved FLOP/s and HBM bandwidth as fractions of peak (or a measured rate against the computed ceiling)",
         "they say which roof, if any, the workload touches; every optimization is right in one regime and useless "
         "in the other"});
  }
  const double a = achieved(n);
  if (!n.idle_share && (!have_util || a < kRoomForOverhead)) {
    d->ask_first.push_back(
        {"A timeline of one step: kernel count, kernel durations and the gaps between them",
         have_util ? fmt::format("at {} achieved, up to {} of the step is unaccounted for; idle time between kernels "
                                 "is invisible to utilizations and untouched by kernel or byte optimizations",
                                 pct(a), pct(1 - a))
                   : "idle time between kernels is invisible to utilizations and untouched by kernel or byte "
                     "optimizations"});
  }
}

}  // namespace

Diagnosis diagnose(const Evidence& e, const GpuSpec& gpu, const DeploymentResult* modeled) {
  Diagnosis d;
  d.phase = infer_phase(e, &d.phase_inferred);
  compute_numbers(e, gpu, modeled, &d);
  const DiagnosisNumbers& n = d.n;
  const double fc = n.compute_fraction.value_or(0), fb = n.bandwidth_fraction.value_or(0);
  const bool scores_explain = n.transient_over_scores && *n.transient_over_scores >= 0.5 &&
                              *n.transient_over_scores <= 2 && e.profile.peak_transient_bytes;
  if (check_capacity(e, &d)) {
    // decided
  } else if (n.fraction_of_ceiling && *n.fraction_of_ceiling > kAboveCeiling) {
    above_ceiling(e, &d);
  } else if (fc >= kNearCeiling || fb >= kNearCeiling) {
    if (fc >= fb) {
      compute_near(e, &d);
    } else {
      bandwidth_near(&d);
    }
  } else if (n.idle_share && *n.idle_share >= kIdleBound) {
    overhead(e, &d);
  } else if (d.phase == Phase::kPrefill && scores_explain) {
    prefill_scores(e, &d);
  } else if (n.idle_share) {
    kernels_slow(&d);
  } else if (n.compute_fraction || n.bandwidth_fraction) {
    far_below_unexplained(&d);
  } else {
    no_measurement(&d);
  }
  if (d.phase_inferred) d.ignored.push_back("No phase given: " + std::string(phase_name(d.phase)) + " inferred from the measurements.");
  ask_first(&d);
  return d;
}

}  // namespace modelcalc
