#include "modelcalc/serving.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "modelcalc/formulas.h"

namespace modelcalc {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Keys a causal prefill of P tokens attends to in one layer: sum over t of
// min(t, window) (the whole triangle when there is no window).
double causal_keys(double P, double window) {
  if (window <= 0 || P <= window) return P * (P + 1) / 2;
  return window * (window + 1) / 2 + (P - window) * window;
}

// Bytes of one routed-expert parameter as stored (weights plus int group scales).
double weight_param_bytes(const PreparedDeployment& d) {
  const bool int_quant = d.weight_dtype == Dtype::kInt8 || d.weight_dtype == Dtype::kInt4;
  return dtype_bytes(d.weight_dtype) + (int_quant ? 2.0 / static_cast<double>(d.quant_group_size) : 0.0);
}

}  // namespace

const char* batch_limit_name(BatchLimit b) {
  switch (b) {
    case BatchLimit::kNone: return "none";
    case BatchLimit::kMemory: return "memory";
    case BatchLimit::kMaxNumSeqs: return "max_num_seqs";
    case BatchLimit::kStepTokens: return "max_num_batched_tokens";
  }
  return "?";
}

StepTime step_time(const PreparedDeployment& d, const StepWork& w, const StepTimeParams& p, bool ceiling) {
  const StepTimeParams& q = ceiling ? StepTimeParams{} : p;
  const double B = w.decode_sequences, np = w.prefill_tokens;
  const double n = B + np;
  const double peak = d.peak_flops, bw = d.bandwidth;
  const double moe = static_cast<double>(d.n_moe_layers);
  // The work, for one column of ranks (every pipeline stage).
  const double exp_flops_tok =
      moe > 0 ? 2.0 * d.expert_bytes / weight_param_bytes(d) * d.n_expert_used * moe : 0.0;
  const double dense_flops = n * (d.linear_flops_per_token - exp_flops_tok);
  const double dense_bytes = n > 0 ? d.dense_bytes + n * d.embedding_row_bytes : 0.0;  // no token, no GEMM
  const double exp_flops = n * exp_flops_tok;
  const double touched = moe > 0 && n > 0 ? expected_experts_touched(d.n_expert, d.n_expert_used, n) : 0.0;
  const double exp_bytes = moe * touched * d.expert_bytes;
  const double lm_rows = B + w.prefill_done;
  const double lm_flops = lm_rows * d.lm_head_flops_per_token;
  const double lm_bytes = lm_rows > 0 ? d.lm_head_bytes : 0.0;
  const double win = static_cast<double>(d.n_swa);
  const double T = w.decode_context;
  const double key_layers = static_cast<double>(d.n_full_layers) * T +
                            static_cast<double>(d.n_swa_layers) * (win > 0 && T > win ? win : T);
  const double kv_key_layer = static_cast<double>(d.kv_elems_per_layer) * static_cast<double>(d.kv_bits) / 8.0;
  const double kv_read = B * key_layers * kv_key_layer;
  const double attn_dec_flops = B * key_layers * d.attn_flops_per_key_decode;
  const double pf_keys = static_cast<double>(d.n_full_layers) * w.prefill_keys_full +
                         static_cast<double>(d.n_swa_layers) * w.prefill_keys_window;
  const double attn_pf_flops = pf_keys * d.attn_flops_per_key_prefill;
  const double kv_written = np * static_cast<double>(d.n_full_layers + d.n_swa_layers) * kv_key_layer;

  StepTime t;
  const double pp = static_cast<double>(d.split.pp);
  t.flops_per_gpu = (dense_flops + exp_flops + lm_flops + attn_dec_flops + attn_pf_flops) / pp;
  t.bytes_per_gpu = (dense_bytes + exp_bytes + lm_bytes + kv_read + kv_written +
                     (ceiling ? 0.0 : n * d.elementwise_bytes_per_token)) / pp;
  // Communication: TP all-reduces of the step's activations, PP hand-offs.
  const double msg = n * static_cast<double>(d.n_embd) * d.act_bytes;
  const double n_ar = static_cast<double>(d.n_layer) * d.allreduces_per_layer;
  const double ar = d.split.tp == 1 || n == 0
                        ? 0.0
                        : n_ar * (d.ring_factor * msg / (d.tp_link_bytes_per_s * q.allreduce_efficiency) +
                                  d.tp_latency_s + q.allreduce_latency_s);
  const double handoff = d.split.pp == 1 || n == 0
                             ? 0.0
                             : (pp - 1) * (msg / (d.pp_link_bytes_per_s * q.allreduce_efficiency) + d.pp_latency_s);
  t.comm_s = ar + handoff;
  // Each kernel at its own roof.
  const double c_dense = dense_flops / (peak * q.gemm_fraction), m_dense = dense_bytes / (bw * q.hbm_fraction);
  const double c_exp = exp_flops / (peak * q.moe_gemm_fraction), m_exp = exp_bytes / (bw * q.hbm_fraction);
  const double c_lm = lm_flops / (peak * q.gemm_fraction), m_lm = lm_bytes / (bw * q.hbm_fraction);
  const double c_kv = attn_dec_flops / (peak * q.attention_fraction), m_kv = kv_read / (bw * q.kv_read_fraction);
  const double c_pf = attn_pf_flops / (peak * q.attention_fraction), m_pf = kv_written / (bw * q.hbm_fraction);
  // A GEMM near its ridge hides only part of its shorter roof behind the longer.
  const auto roof = [&](double c, double m) { return std::max(c, m) + q.overlap_loss * std::min(c, m); };
  t.dense_s = roof(c_dense, m_dense);
  t.experts_s = roof(c_exp, m_exp);
  t.lm_head_s = roof(c_lm, m_lm);
  t.kv_read_s = std::max(c_kv, m_kv);
  t.prefill_attention_s = std::max(c_pf, m_pf);
  // Non-GEMM kernels (norms, residual, activation): memory-bound, fused away on the ideal machine.
  const double m_elem = ceiling ? 0.0 : n * d.elementwise_bytes_per_token / (bw * q.hbm_fraction);
  t.elementwise_s = m_elem;
  t.compute_s = c_dense + c_exp + c_lm + c_kv + c_pf;
  t.memory_s = m_dense + m_exp + m_lm + m_kv + m_pf + m_elem;
  if (ceiling) {
    t.overhead_s = 0;
    t.seconds = std::max(t.compute_s, t.memory_s) + t.comm_s;
  } else {
    t.overhead_s = q.step_overhead_s + q.sequence_overhead_s * (B + w.prefill_done);
    t.seconds = t.dense_s + t.experts_s + t.lm_head_s + t.kv_read_s + t.prefill_attention_s + t.elementwise_s +
                t.comm_s + t.overhead_s;
  }
  return t;
}

namespace {

// The steady-state step at B decoding sequences of a request shape.
StepWork steady_work(double B, double isl, double osl, double window) {
  StepWork w;
  w.decode_sequences = B;
  w.decode_context = isl + osl / 2;
  const double prompts = B / osl;  // requests finishing (and starting) per step
  w.prefill_tokens = prompts * isl;
  w.prefill_keys_full = prompts * causal_keys(isl, 0);
  w.prefill_keys_window = prompts * causal_keys(isl, window);
  w.prefill_done = prompts;
  return w;
}

// The prompt tokens of one request of `isl` tokens as steps carry them:
// `tokens` of it per step (all of it when tokens >= isl), attending to the
// causal triangle's share of those steps; the last step samples its first token.
StepWork prompt_work(double isl, double tokens, double window, double share) {
  StepWork w;
  w.prefill_tokens = std::min(isl, tokens);
  w.prefill_keys_full = share * causal_keys(isl, 0);
  w.prefill_keys_window = share * causal_keys(isl, window);
  w.prefill_done = share;
  return w;
}

}  // namespace

ServingFigures serve(const PreparedDeployment& d, const ServingCapacity& cap, const StepTimeParams& p, bool ceiling,
                     const ServingRequest& r) {
  ServingFigures f;
  const double isl = static_cast<double>(r.isl), osl = static_cast<double>(r.osl);
  const double dp = static_cast<double>(d.split.dp);
  const double win = static_cast<double>(d.n_swa);
  f.mean_context = isl + osl / 2;
  // Capacity: the smallest of the limits.
  double capacity = cap.sequences;
  f.limit = BatchLimit::kMemory;
  if (cap.max_num_seqs > 0 && cap.max_num_seqs < capacity) {
    capacity = cap.max_num_seqs;
    f.limit = BatchLimit::kMaxNumSeqs;
  }
  if (cap.step_tokens > 0) {
    const double by_tokens = cap.step_tokens / (1 + isl / osl);
    if (by_tokens < capacity) {
      capacity = by_tokens;
      f.limit = BatchLimit::kStepTokens;
    }
  }
  f.capacity_sequences = capacity;
  f.fits = capacity >= 1;
  // Time to first token at batch B. The ceiling: the prompt's prefill alone
  // (no engine does less). The prediction: half a step of residual, an M/D/1
  // wait for the step's prompt budget (budget = the step's tokens less its
  // decode tokens), then the steps carrying the prompt's chunks beside the B
  // decoding sequences.
  const auto ttft = [&](double B, double t, double np) {
    f.queue_s = 0;
    if (ceiling) return step_time(d, prompt_work(isl, isl, win, 1), p, true).seconds;
    const double budget = cap.step_tokens > 0 ? std::max(1.0, cap.step_tokens - B) : isl;
    const double chunks = std::ceil(isl / budget);
    const double rho = np / budget;
    if (rho >= 1) {
      f.queue_s = kInf;
      return kInf;
    }
    const double service = chunks * t;  // the steps one prompt's prefill occupies
    f.queue_s = rho * service / (2 * (1 - rho));
    StepWork w = prompt_work(isl, budget, win, 1 / chunks);
    w.decode_sequences = B;
    w.decode_context = isl + osl / 2;
    return t / 2 + f.queue_s + chunks * step_time(d, w, p, false).seconds;
  };
  const auto at = [&](double B) {
    f.batch = B;
    const StepWork w = steady_work(B, isl, osl, win);
    f.prefill_tokens_per_step = w.prefill_tokens;
    f.step = step_time(d, w, p, ceiling);
    f.tpot_s = f.step.seconds;
    f.tokens_per_s_per_user = 1 / f.tpot_s;
    f.ttft_s = ttft(B, f.tpot_s, w.prefill_tokens);
    f.output_tokens_per_s = dp * B / f.tpot_s;
    f.requests_per_s = f.output_tokens_per_s / osl;
  };
  if (!f.fits) {
    at(1);  // the step of one sequence, for the record; nothing is served
    f.output_tokens_per_s = f.requests_per_s = 0;
    f.saturated = r.load == ServingLoad::kRequestsPerS || r.load == ServingLoad::kConcurrency;
    return f;
  }
  switch (r.load) {
    case ServingLoad::kSaturated: at(capacity); break;
    case ServingLoad::kBatch: {
      at(std::min(r.value, capacity));
      break;
    }
    case ServingLoad::kConcurrency: {
      const double users = r.value / dp;
      if (users <= capacity) {
        at(users);
      } else {  // the rest wait for a slot: (users - capacity) requests ahead at the replica's request rate
        at(capacity);
        f.saturated = true;
        const double wait = (users - capacity) / (f.requests_per_s / dp);
        f.queue_s += wait;
        f.ttft_s += wait;
      }
      break;
    }
    case ServingLoad::kRequestsPerS: {
      // Little's law as a fixed point of the step time: B = L x osl x t, with L x isl x t prompt tokens
      // per step. g(t) = step(B(t)) - t is positive near t = 0 and the step grows slower than t when the
      // load is stable: the root lies below t_cap, where B reaches capacity. Regula falsi (Illinois) on
      // [0, t_cap]: the step is nearly affine in t, so a few evaluations reach it.
      const double L = r.value / dp;
      const auto g = [&](double t) { return step_time(d, steady_work(L * osl * t, isl, osl, win), p, ceiling).seconds - t; };
      double hi = capacity / (L * osl);
      double lo = 1e-9 * hi;  // not 0: a step of no token takes no time, a trivial root
      double glo = g(lo), ghi = g(hi);
      if (!(ghi < 0)) {  // even at capacity the step outlasts what the rate allows: saturated
        at(capacity);
        f.saturated = true;
        f.queue_s = f.ttft_s = kInf;
        break;
      }
      double t = lo;
      int side = 0;
      for (int i = 0; i < 60; ++i) {
        t = (lo * ghi - hi * glo) / (ghi - glo);
        const double gt = g(t);
        if (std::fabs(gt) <= 1e-12 * t || hi - lo <= 1e-12 * hi) break;
        if (gt > 0) {
          lo = t, glo = gt;
          if (side == 1) ghi /= 2;
          side = 1;
        } else {
          hi = t, ghi = gt;
          if (side == -1) glo /= 2;
          side = -1;
        }
      }
      at(L * osl * t);
      if (std::isinf(f.ttft_s)) f.saturated = true;
      break;
    }
  }
  return f;
}

PreparedDeployment engine_view(const PreparedDeployment& d, const EngineSettings& s) {
  PreparedDeployment e = d;
  if (!s.sliding_window && d.n_swa > 0) {
    e.n_full_layers += e.n_swa_layers;
    e.n_swa_layers = 0;
    e.stage_full_layers += e.stage_swa_layers;
    e.stage_swa_layers = 0;
    e.n_swa = 0;
  }
  return e;
}

ServingCapacity ceiling_capacity(const PreparedDeployment& d, const DeploymentMemory& m, int64_t isl, int64_t osl) {
  ServingCapacity c;
  const double mean = static_cast<double>(isl) + static_cast<double>(osl) / 2;
  const double win = static_cast<double>(d.n_swa);
  const double token_layers = static_cast<double>(d.stage_full_layers) * mean +
                              static_cast<double>(d.stage_swa_layers) * (win > 0 && mean > win ? win : mean);
  const double per_seq = static_cast<double>(d.kv_elems_per_layer) * token_layers * static_cast<double>(d.kv_bits) / 8;
  c.sequences = m.free_for_kv > 0 && per_seq > 0 ? m.free_for_kv / per_seq : 0.0;
  return c;
}

ServingCapacity engine_capacity(const EngineMemory& m, const EngineSettings& s, int64_t isl, int64_t osl) {
  ServingCapacity c;
  const double last = static_cast<double>(isl + osl);
  const double mean = static_cast<double>(isl) + static_cast<double>(osl) / 2;
  c.sequences = static_cast<double>(engine_admitted_sequences(m, s, last, mean));
  c.max_num_seqs = static_cast<double>(s.max_num_seqs);
  c.step_tokens = static_cast<double>(s.max_num_batched_tokens);
  return c;
}

ServingPair serve_both(const PreparedDeployment& d, const DeploymentMemory& ceiling_memory, const EngineMemory& em,
                       const EngineSettings& s, const StepTimeParams& p, const ServingRequest& r) {
  ServingPair out;
  out.ceiling = serve(d, ceiling_capacity(d, ceiling_memory, r.isl, r.osl), p, true, r);
  out.predicted = serve(engine_view(d, s), engine_capacity(em, s, r.isl, r.osl), p, false, r);
  return out;
}

PredictedDecode predict_decode(const PreparedDeployment& d, const EngineMemory& em, const EngineSettings& s,
                               const StepTimeParams& p, int64_t batch, int64_t context) {
  PredictedDecode out;
  StepWork w;
  w.decode_sequences = static_cast<double>(batch);
  w.decode_context = static_cast<double>(context);
  out.step = step_time(d, w, p, false);
  out.tokens_per_s_per_sequence = 1 / out.step.seconds;
  out.tokens_per_s_aggregate = static_cast<double>(batch) * static_cast<double>(d.split.dp) / out.step.seconds;
  const double ctx = static_cast<double>(context);
  out.max_sequences = engine_admitted_sequences(em, s, ctx, ctx);
  out.fits = batch <= out.max_sequences;
  return out;
}

StepTime predict_prefill(const PreparedDeployment& d, const EngineSettings& s, const StepTimeParams& p,
                         int64_t prompt) {
  // Chunks of the step budget, each its own step (the weights read once per
  // chunk); the attention over the whole causal triangle, once.
  const double P = static_cast<double>(prompt);
  const double chunk = s.max_num_batched_tokens > 0 ? std::min(P, static_cast<double>(s.max_num_batched_tokens)) : P;
  const double full = std::floor(P / chunk);
  const double last = P - full * chunk;
  const double win = static_cast<double>(d.n_swa);
  StepWork w;
  w.prefill_tokens = chunk;
  StepTime one = step_time(d, w, p, false);  // a full chunk without its attention
  StepWork wl;
  wl.prefill_tokens = last > 0 ? last : chunk;
  wl.prefill_done = 1;
  const StepTime end = step_time(d, wl, p, false);  // the last chunk, with the first token's lm_head
  StepWork wa;
  wa.prefill_keys_full = causal_keys(P, 0);
  wa.prefill_keys_window = causal_keys(P, win);
  wa.prefill_tokens = 0;
  StepTime attn = step_time(d, wa, p, false);
  const double k = last > 0 ? full : full - 1;  // full chunks before the last one
  StepTime t;
  t.dense_s = k * one.dense_s + end.dense_s;
  t.experts_s = k * one.experts_s + end.experts_s;
  t.lm_head_s = k * one.lm_head_s + end.lm_head_s;
  t.prefill_attention_s = attn.prefill_attention_s + k * one.prefill_attention_s + end.prefill_attention_s;
  t.elementwise_s = k * one.elementwise_s + end.elementwise_s;
  t.comm_s = k * one.comm_s + end.comm_s;
  t.overhead_s = k * one.overhead_s + end.overhead_s;
  t.compute_s = k * one.compute_s + end.compute_s + attn.compute_s;
  t.memory_s = k * one.memory_s + end.memory_s + attn.memory_s;
  t.seconds = t.dense_s + t.experts_s + t.lm_head_s + t.prefill_attention_s + t.elementwise_s + t.comm_s +
              t.overhead_s;
  t.bytes_per_gpu = k * one.bytes_per_gpu + end.bytes_per_gpu + attn.bytes_per_gpu;
  t.flops_per_gpu = k * one.flops_per_gpu + end.flops_per_gpu + attn.flops_per_gpu;
  return t;
}

Result<DeploymentPrediction> predict_deployment(const ModelSpec& m, const GpuSpec& gpu, const DeploymentAnalysis& a,
                                                Engine e, const EngineFlags& flags, const EngineWorkload& w) {
  DeploymentPrediction out;
  out.profile = &engine_profile(e);
  MC_ASSIGN_OR_RETURN(out.settings, resolve_engine_settings(e, flags, m, gpu, a.prepared, w));
  out.engine_d = engine_view(a.prepared, out.settings);
  out.windows_dropped = a.prepared.n_swa > 0 && out.engine_d.n_swa == 0;
  out.memory = engine_memory(out.engine_d, out.settings);
  const int64_t batch = a.result.decode.batch, context = a.result.decode.context;
  out.decode = predict_decode(out.engine_d, out.memory, out.settings, out.profile->time, batch, context);
  out.prompt_tokens = a.result.prefill.prompt_tokens;
  out.prefill = predict_prefill(out.engine_d, out.settings, out.profile->time, out.prompt_tokens);
  const int64_t bs = out.settings.block_size;
  const int64_t blocks = (context + bs - 1) / bs;
  const double kvseq = static_cast<double>(blocks) * static_cast<double>(bs) *
                       static_cast<double>(out.memory.kv_bytes_per_token);
  out.kv_bytes_per_sequence = kvseq < 9e18 ? static_cast<int64_t>(kvseq) : std::numeric_limits<int64_t>::max();
  out.reserve_bytes = out.memory.total_bytes - out.memory.weights_bytes - out.memory.non_torch_bytes -
                      out.memory.activation_peak_bytes - std::max(0.0, out.memory.kv_cache_bytes_per_gpu);
  return out;
}

}  // namespace modelcalc
