#include "modelcalc/serving.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "modelcalc/formulas.h"
#include "sweep_kernels.h"

namespace modelcalc {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Keys a causal prefill of P tokens attends to in one layer: sum over t of
// min(t, window) (the whole triangle when there is no window).
double causal_keys(double P, double window) {
  if (window <= 0 || P <= window) return P * (P + 1) / 2;
  return window * (window + 1) / 2 + (P - window) * window;
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
  const bool spec = d.spec_tokens > 0 && w.decode_sequences > 0;
  const double v = spec ? static_cast<double>(d.spec_tokens + 1) : 1.0;  // tokens verified per sequence
  const double B = w.decode_sequences, np = w.prefill_tokens;
  const double tokens = B * v + np;            // through the replica's MoE group
  const double g = d.attn_dp;                  // attention groups: the sequences dealt out whole over them
  const double pg = w.prefill_groups > 0 ? std::min(w.prefill_groups, g) : g;  // groups the prompts are on
  const double Bg = busiest_group_sequences(B, g);  // on the busiest group
  const double npg = np / pg;                  // prompt tokens on the busiest group
  const double n = Bg * v + npg;               // through the busiest group's dense layers
  const double peak = d.peak_flops, bw = d.bandwidth;
  const double moe = static_cast<double>(d.n_moe_layers);
  // The work, for one column of ranks (every pipeline stage) of one attention group.
  const double dense_flops = n * d.linear_flops_per_token;
  const double dense_bytes = n > 0 ? d.dense_bytes + n * d.embedding_row_bytes : 0.0;  // no token, no GEMM
  const MoeLoad load = moe > 0 ? moe_rank_load(d, tokens) : MoeLoad{};
  const double exp_flops = moe * load.routed * d.expert_flops_per_routed_token;
  const double exp_bytes = moe * load.experts_read * d.expert_bytes;
  const double lm_rows = Bg * v + w.prefill_done / pg;
  const double lm_flops = lm_rows * d.lm_head_flops_per_token;
  const double lm_bytes = lm_rows > 0 ? d.lm_head_bytes : 0.0;
  const double win = static_cast<double>(d.n_swa);
  const double T = w.decode_context;
  const double key_layers = static_cast<double>(d.n_full_layers) * T +
                            static_cast<double>(d.n_swa_layers) * (win > 0 && T > win ? win : T);
  const double kv_key_layer = static_cast<double>(d.kv_elems_per_layer) * static_cast<double>(d.kv_bits) / 8.0;
  const double kv_read = Bg * key_layers * kv_key_layer;  // once for the verified tokens
  const double attn_dec_flops = Bg * v * key_layers * d.attn_flops_per_key_decode;
  const double pf_keys = (static_cast<double>(d.n_full_layers) * w.prefill_keys_full +
                          static_cast<double>(d.n_swa_layers) * w.prefill_keys_window) / pg;
  const double attn_pf_flops = pf_keys * d.attn_flops_per_key_prefill;
  const double kv_written = npg * static_cast<double>(d.n_full_layers + d.n_swa_layers) * kv_key_layer;
  // Speculative decoding: K draft passes of one token per sequence.
  double draft_flops = 0, draft_bytes = 0, draft_ar = 0, draft_a2a = 0;
  if (spec) {
    const DraftTerms& dr = d.draft;
    const double K = static_cast<double>(d.spec_tokens);
    const MoeLoad dl = dr.moe_layers > 0 ? moe_rank_load(d, B) : MoeLoad{};
    draft_bytes = K * (dr.weight_bytes + Bg * dr.row_bytes + Bg * T * dr.kv_layers * dr.kv_bytes_per_key +
                       dr.moe_layers * dl.experts_read * d.expert_bytes);
    draft_flops = K * (Bg * (dr.flops_per_token + T * dr.kv_layers * dr.attn_flops_per_key) +
                       dr.moe_layers * dl.routed * d.expert_flops_per_routed_token);
    if (d.split.tp > 1) {
      const double dmsg = Bg * static_cast<double>(d.n_embd) * d.act_bytes;
      draft_ar = K * dr.allreduces *
                 (d.ring_factor * dmsg / (d.tp_link_bytes_per_s * q.allreduce_efficiency) + d.tp_latency_s +
                  q.allreduce_latency_s);
    }
    draft_a2a = K * a2a_seconds(d, dr.moe_layers, B / static_cast<double>(d.split.moe_group()), dl.ratio,
                                q.allreduce_efficiency, q.allreduce_latency_s);
  }

  if (d.spec_tokens > 0 && npg > 0) {  // the drafter reads the prompts too (builds its own cache)
    draft_flops += npg * d.draft.flops_per_token;
    draft_bytes += npg * static_cast<double>(d.draft.kv_per_token_memory);
  }

  StepTime t;
  const double pp = static_cast<double>(d.split.pp);
  t.flops_per_gpu = (dense_flops + exp_flops + lm_flops + attn_dec_flops + attn_pf_flops + draft_flops) / pp;
  t.bytes_per_gpu = (dense_bytes + exp_bytes + lm_bytes + kv_read + kv_written + draft_bytes +
                     (ceiling ? 0.0 : n * d.elementwise_bytes_per_token)) / pp;
  // Communication: TP all-reduces of the group's activations, PP hand-offs, the all-to-all.
  const double msg = n * static_cast<double>(d.n_embd) * d.act_bytes;
  const double n_ar = static_cast<double>(d.n_layer) * d.allreduces_per_layer;
  const double ar = d.split.tp == 1 || n == 0
                        ? 0.0
                        : n_ar * (d.ring_factor * msg / (d.tp_link_bytes_per_s * q.allreduce_efficiency) +
                                  d.tp_latency_s + q.allreduce_latency_s);
  const double handoff = d.split.pp == 1 || n == 0
                             ? 0.0
                             : (pp - 1) * (msg / (d.pp_link_bytes_per_s * q.allreduce_efficiency) + d.pp_latency_s);
  // The busiest group's tp GPUs send its tokens (= tokens / moe_group when the work is spread).
  t.a2a_s = a2a_seconds(d, moe, n / static_cast<double>(d.split.tp), load.ratio, q.allreduce_efficiency,
                        q.allreduce_latency_s) +
            draft_a2a;
  t.comm_s = ar + handoff + draft_ar + t.a2a_s;
  // Each kernel at its own roof.
  const double c_dense = dense_flops / (peak * q.gemm_fraction), m_dense = dense_bytes / (bw * q.hbm_fraction);
  const double c_exp = exp_flops / (peak * q.moe_gemm_fraction), m_exp = exp_bytes / (bw * q.hbm_fraction);
  const double c_lm = lm_flops / (peak * q.gemm_fraction), m_lm = lm_bytes / (bw * q.hbm_fraction);
  const double c_kv = attn_dec_flops / (peak * q.attention_fraction), m_kv = kv_read / (bw * q.kv_read_fraction);
  const double c_pf = attn_pf_flops / (peak * q.attention_fraction), m_pf = kv_written / (bw * q.hbm_fraction);
  const double c_dr = draft_flops / (peak * q.gemm_fraction), m_dr = draft_bytes / (bw * q.hbm_fraction);
  // A GEMM near its ridge hides only part of its shorter roof behind the longer.
  const auto roof = [&](double c, double m) { return std::max(c, m) + q.overlap_loss * std::min(c, m); };
  t.dense_s = roof(c_dense, m_dense);
  t.experts_s = roof(c_exp, m_exp);
  t.lm_head_s = roof(c_lm, m_lm);
  t.kv_read_s = std::max(c_kv, m_kv);
  t.prefill_attention_s = std::max(c_pf, m_pf);
  t.draft_s = roof(c_dr, m_dr);
  // Non-GEMM kernels (norms, residual, activation): memory-bound, fused away on the ideal machine.
  const double m_elem = ceiling ? 0.0 : n * d.elementwise_bytes_per_token / (bw * q.hbm_fraction);
  t.elementwise_s = m_elem;
  t.compute_s = c_dense + c_exp + c_lm + c_kv + c_pf + c_dr;
  t.memory_s = m_dense + m_exp + m_lm + m_kv + m_pf + m_dr + m_elem;
  const double other_comm = t.comm_s - t.a2a_s;
  if (ceiling) {
    t.overhead_s = 0;
    const double busy = std::max(t.compute_s, t.memory_s);
    t.seconds = (d.two_batch_overlap ? std::max(busy, t.a2a_s) : busy + t.a2a_s) + other_comm;
  } else {
    t.overhead_s = q.step_overhead_s + q.sequence_overhead_s * (Bg + w.prefill_done / pg);
    const double kernels = t.dense_s + t.experts_s + t.lm_head_s + t.kv_read_s + t.prefill_attention_s + t.draft_s +
                           t.elementwise_s;
    t.seconds = (d.two_batch_overlap ? std::max(kernels, t.a2a_s) : kernels + t.a2a_s) + other_comm + t.overhead_s;
  }
  return t;
}

namespace {

// Keys the computed tokens of a prompt of `isl` tokens attend to per layer
// when its first `cached` tokens come from the prefix cache.
double prompt_keys(double isl, double cached, double window) {
  return causal_keys(isl, window) - causal_keys(cached, window);
}

// The steady-state step at B decoding sequences of a request shape: each
// sequence yields `tau` tokens a step, so B x tau / osl requests finish (and
// start) per step; their prompts' computed tokens (isl less the cached ones)
// are prefilled beside the batch unless the replica only decodes.
StepWork steady_work(double B, double isl, double osl, double window, double cached, double tau, bool prefill) {
  StepWork w;
  w.decode_sequences = B;
  w.decode_context = isl + osl / 2;
  if (!prefill) return w;
  const double prompts = B * tau / osl;  // requests finishing (and starting) per step
  w.prefill_tokens = prompts * (isl - cached);
  w.prefill_keys_full = prompts * prompt_keys(isl, cached, 0);
  w.prefill_keys_window = prompts * prompt_keys(isl, cached, window);
  w.prefill_done = prompts;
  return w;
}

// The computed tokens of one request of `isl` tokens (its first `cached` from
// the cache) as steps carry them: `tokens` of them per step (all when tokens
// >= the computed ones), attending to the causal triangle's share of those
// steps; the last step samples its first token.
StepWork prompt_work(double isl, double cached, double tokens, double window, double share) {
  StepWork w;
  w.prefill_tokens = std::min(isl - cached, tokens);
  w.prefill_keys_full = share * prompt_keys(isl, cached, 0);
  w.prefill_keys_window = share * prompt_keys(isl, cached, window);
  w.prefill_done = share;
  w.prefill_groups = 1;  // one prompt sits on one attention group
  return w;
}

}  // namespace

const char* serving_phase_name(ServingPhase p) {
  switch (p) {
    case ServingPhase::kAggregated: return "aggregated";
    case ServingPhase::kPrefillOnly: return "prefill";
    case ServingPhase::kDecodeOnly: return "decode";
  }
  return "?";
}

namespace {

// A prefill pool: every step carries `prompts` whole prompts (their computed
// tokens), nothing decodes; the replica serves prompts / step requests a step.
ServingFigures serve_prefill(const PreparedDeployment& d, const ServingCapacity& cap, const StepTimeParams& p,
                             bool ceiling, const ServingRequest& r) {
  ServingFigures f;
  const double isl = static_cast<double>(r.isl), osl = static_cast<double>(r.osl);
  const double g = d.attn_dp, dp = static_cast<double>(d.split.dp);
  const double win = static_cast<double>(d.n_swa);
  const double cached = static_cast<double>(prefill_cached_tokens(d, r.isl));
  const double computed = isl - cached;
  f.cached_tokens = cached;
  f.mean_context = isl;
  // Prompts a step carries: the ceiling's as many as memory holds at the prompt's length (their KV is
  // written before it leaves); the engine's its step budget of computed tokens, at least one prompt.
  double prompts = cap.sequences * g;
  f.limit = BatchLimit::kMemory;
  if (!ceiling && cap.step_tokens > 0) {
    const double by_tokens = std::max(1.0, std::floor(cap.step_tokens * g / computed));
    if (by_tokens < prompts) {
      prompts = by_tokens;
      f.limit = BatchLimit::kStepTokens;
    }
  }
  f.capacity_sequences = prompts;
  f.fits = prompts >= 1;
  // The step carries the prompts asked for, at most the limits' (a fitting step at least one).
  const double asked = r.prompts_per_step > 0 ? std::min(r.prompts_per_step, prompts) : prompts;
  const double n = f.fits ? std::max(1.0, asked) : 1;
  StepWork w;
  w.prefill_tokens = n * computed;
  w.prefill_keys_full = n * prompt_keys(isl, cached, 0);
  w.prefill_keys_window = n * prompt_keys(isl, cached, win);
  w.prefill_done = n;
  f.batch = n;
  f.prefill_tokens_per_step = w.prefill_tokens;
  f.step = step_time(d, w, p, ceiling);
  f.tpot_s = 0;
  f.requests_per_s = f.fits ? dp * n / f.step.seconds : 0;
  f.input_tokens_per_s = f.requests_per_s * isl;
  f.output_tokens_per_s = 0;  // the first token of each request is the prefill's; the rest are the decode pool's
  // TTFT: the ceiling's one prompt alone; the engine's half a step of residual, an M/D/1 wait for a step at the
  // offered rate, and the step carrying it.
  const double one = step_time(d, prompt_work(isl, cached, computed, win, 1), p, ceiling).seconds;
  if (ceiling) {
    f.ttft_s = one;
  } else if (r.load == ServingLoad::kRequestsPerS) {
    const double rho = r.value / f.requests_per_s;
    if (!(rho < 1)) {
      f.saturated = true;
      f.queue_s = f.ttft_s = kInf;
    } else {
      f.queue_s = rho * f.step.seconds / (2 * (1 - rho));
      f.ttft_s = f.step.seconds / 2 + f.queue_s + f.step.seconds;
    }
  } else {
    f.ttft_s = f.step.seconds;  // saturated: a prompt waits for the step that carries it
  }
  (void)osl;
  return f;
}

}  // namespace

ServingFigures serve(const PreparedDeployment& d, const ServingCapacity& cap, const StepTimeParams& p, bool ceiling,
                     const ServingRequest& r) {
  if (r.phase == ServingPhase::kPrefillOnly) return serve_prefill(d, cap, p, ceiling, r);
  ServingFigures f;
  const bool prefill = r.phase == ServingPhase::kAggregated;
  const double isl = static_cast<double>(r.isl), osl = static_cast<double>(r.osl);
  const double dp = static_cast<double>(d.split.dp);
  const double g = d.attn_dp;  // the capacity's figures are one attention group's
  const double win = static_cast<double>(d.n_swa);
  const double cached = static_cast<double>(prefill_cached_tokens(d, r.isl));
  const double computed = isl - cached;
  const double tau = d.spec_tokens > 0 ? d.spec_accepted : 1.0;
  const double v = d.spec_tokens > 0 ? static_cast<double>(d.spec_tokens + 1) : 1.0;
  f.mean_context = isl + osl / 2;
  f.cached_tokens = cached;
  f.accepted_tokens_per_step = tau;
  // Capacity: the smallest of the limits, per replica.
  double capacity = cap.sequences * g;
  f.limit = BatchLimit::kMemory;
  if (cap.max_num_seqs > 0 && cap.max_num_seqs * g < capacity) {
    capacity = cap.max_num_seqs * g;
    f.limit = BatchLimit::kMaxNumSeqs;
  }
  if (cap.step_tokens > 0) {
    // Tokens a sequence brings to a step: its verified tokens, plus its share of a replacement's prompt.
    const double by_tokens = cap.step_tokens * g / (v + (prefill ? tau * computed / osl : 0.0));
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
  // decoding sequences. A decode pool's requests arrive prefilled: 0 here.
  const auto ttft = [&](double B, double t, double np) {
    f.queue_s = 0;
    if (!prefill) return 0.0;
    if (ceiling) return step_time(d, prompt_work(isl, cached, computed, win, 1), p, true).seconds;
    const double budget = cap.step_tokens > 0 ? std::max(1.0, cap.step_tokens * g - B * v) : computed;
    const double chunks = std::ceil(computed / budget);
    const double rho = np / budget;
    if (rho >= 1) {
      f.queue_s = kInf;
      return kInf;
    }
    const double service = chunks * t;  // the steps one prompt's prefill occupies
    f.queue_s = rho * service / (2 * (1 - rho));
    StepWork w = prompt_work(isl, cached, budget, win, 1 / chunks);
    w.decode_sequences = B;
    w.decode_context = isl + osl / 2;
    return t / 2 + f.queue_s + chunks * step_time(d, w, p, false).seconds;
  };
  const auto at = [&](double B) {
    f.batch = B;
    const StepWork w = steady_work(B, isl, osl, win, cached, tau, prefill);
    f.prefill_tokens_per_step = w.prefill_tokens;
    f.step = step_time(d, w, p, ceiling);
    f.tpot_s = f.step.seconds / tau;
    f.tokens_per_s_per_user = 1 / f.tpot_s;
    f.ttft_s = ttft(B, f.step.seconds, w.prefill_tokens);
    f.output_tokens_per_s = dp * B / f.tpot_s;
    f.requests_per_s = f.output_tokens_per_s / osl;
    f.input_tokens_per_s = f.requests_per_s * isl;
  };
  if (!f.fits) {
    at(1);  // the step of one sequence, for the record; nothing is served
    f.output_tokens_per_s = f.requests_per_s = f.input_tokens_per_s = 0;
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
      // Little's law as a fixed point of the step time: B = L x osl x t / tau, with L x isl x t prompt
      // tokens per step. g(t) = step(B(t)) - t is positive near t = 0 and the step grows slower than t when
      // the load is stable: the root lies below t_cap, where B reaches capacity. Regula falsi (Illinois) on
      // [0, t_cap]: the step is nearly affine in t, so a few evaluations reach it.
      const double L = r.value / dp;
      const double per_t = L * osl / tau;  // sequences per second of step
      const auto gfun = [&](double t) {
        return step_time(d, steady_work(per_t * t, isl, osl, win, cached, tau, prefill), p, ceiling).seconds - t;
      };
      double hi = capacity / per_t;
      double lo = 1e-9 * hi;  // not 0: a step of no token takes no time, a trivial root
      double glo = gfun(lo), ghi = gfun(hi);
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
        const double gt = gfun(t);
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
      at(per_t * t);
      if (std::isinf(f.ttft_s)) f.saturated = true;
      break;
    }
  }
  return f;
}

KvTransfer kv_transfer(const PreparedDeployment& prefill, const PreparedDeployment& decode, int64_t isl,
                       bool overlapped) {
  KvTransfer t;
  const PreparedDeployment& d = prefill;
  const double P = static_cast<double>(isl);
  const double win = static_cast<double>(d.n_swa), ch = static_cast<double>(d.n_chunk);
  const double token_layers = static_cast<double>(d.n_full_layers) * P +
                              static_cast<double>(d.n_swa_layers) * (win > 0 && P > win ? win : P) +
                              static_cast<double>(d.n_chunked_layers) * (ch > 0 && P > ch ? ch : P);
  t.bytes = (static_cast<double>(d.kv_unique_elems_per_layer) * token_layers +
             static_cast<double>(d.index_elems_per_layer) * static_cast<double>(d.n_full_layers) * P) *
            static_cast<double>(d.kv_bits) / 8.0;
  const auto side = [](const PreparedDeployment& x) {
    return static_cast<double>(x.split.tp * x.split.pp) * x.scaleout_bytes_per_s;
  };
  t.link_bytes_per_s = std::min(side(prefill), side(decode));
  t.seconds = t.link_bytes_per_s > 0 ? t.bytes / t.link_bytes_per_s + std::max(prefill.scaleout_latency_s,
                                                                               decode.scaleout_latency_s)
                                     : kInf;
  t.overlapped = overlapped;
  // Streamed layer by layer behind the prefill: the last layer's share of the bytes, and the hand-off's latency
  // once.
  const double latency = std::max(prefill.scaleout_latency_s, decode.scaleout_latency_s);
  t.ttft_seconds = overlapped && t.link_bytes_per_s > 0
                       ? t.bytes / t.link_bytes_per_s / static_cast<double>(std::max<int64_t>(1, d.n_layer)) + latency
                       : t.seconds;
  return t;
}

double prefill_nic_requests_per_s(const PreparedDeployment& prefill, int64_t isl) {
  const double bytes = kv_transfer(prefill, prefill, isl, false).bytes;
  if (!(bytes > 0)) return kInf;
  return static_cast<double>(prefill.split.replica_gpus()) * prefill.scaleout_bytes_per_s / bytes;
}

DisaggregatedFigures serve_disaggregated(const DisaggregatedPool& prefill, const DisaggregatedPool& decode,
                                         const StepTimeParams& p, bool ceiling, const ServingRequest& r,
                                         bool overlapped_transfer) {
  DisaggregatedFigures f;
  f.prefill_replicas = prefill.replicas;
  f.decode_replicas = decode.replicas;
  PreparedDeployment pd = *prefill.d, dd = *decode.d;  // per replica
  pd.split.dp = 1;
  dd.split.dp = 1;
  f.transfer = kv_transfer(pd, dd, r.isl, overlapped_transfer);
  ServingRequest rp = r, rd = r;
  rp.phase = ServingPhase::kPrefillOnly;
  rd.phase = ServingPhase::kDecodeOnly;
  if (r.load == ServingLoad::kRequestsPerS) {
    rp.value = r.value / prefill.replicas;
    rd.value = r.value / decode.replicas;
  } else if (r.load == ServingLoad::kConcurrency) {
    rd.value = r.value / decode.replicas;
    rp.load = ServingLoad::kSaturated;
  }
  f.decode = serve(dd, decode.cap, p, ceiling, rd);
  if (r.load == ServingLoad::kConcurrency) {  // the prompts arrive as fast as the decode pool finishes requests
    rp.load = ServingLoad::kRequestsPerS;
    rp.value = f.decode.requests_per_s * decode.replicas / prefill.replicas;
  }
  f.prefill = serve(pd, prefill.cap, p, ceiling, rp);
  // A prefill replica's NICs carry its requests' KV: a cap on its rate. Offered more, its queue grows.
  const double prefill_rate = std::min(f.prefill.requests_per_s, prefill_nic_requests_per_s(pd, r.isl));
  const double prefill_total = prefill_rate * prefill.replicas;
  if (r.load == ServingLoad::kRequestsPerS && !(rp.value < prefill_rate) && !ceiling) {
    f.prefill.saturated = true;
    f.prefill.queue_s = f.prefill.ttft_s = kInf;
  }
  const double decode_total = f.decode.requests_per_s * decode.replicas;
  f.fits = f.prefill.fits && f.decode.fits;
  switch (r.load) {
    case ServingLoad::kRequestsPerS:
      f.requests_per_s = std::min({r.value, prefill_total, decode_total});
      f.saturated = r.value > prefill_total * (1 + 1e-12) || f.decode.saturated || f.prefill.saturated;
      break;
    default:
      f.requests_per_s = std::min(prefill_total, decode_total);
      f.saturated = f.decode.saturated;
      break;
  }
  f.ttft_s = f.prefill.ttft_s + f.transfer.ttft_seconds;
  f.tpot_s = f.decode.tpot_s;
  f.output_tokens_per_s = f.requests_per_s * static_cast<double>(r.osl);
  f.input_tokens_per_s = f.requests_per_s * static_cast<double>(r.isl);
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
  // A shared prefix is held once; each sequence keeps the rest of its full layers' context.
  const double shared = std::min(static_cast<double>(d.prefix_shared_tokens), mean);
  const double token_layers = static_cast<double>(d.stage_full_layers) * (mean - shared) +
                              static_cast<double>(d.stage_swa_layers) * (win > 0 && mean > win ? win : mean);
  const double per_seq = static_cast<double>(d.kv_elems_per_layer) * token_layers * static_cast<double>(d.kv_bits) / 8 +
                         static_cast<double>(d.draft.kv_per_token_memory) * mean;
  const double shared_bytes = static_cast<double>(d.kv_elems_per_layer) * static_cast<double>(d.stage_full_layers) *
                              shared * static_cast<double>(d.kv_bits) / 8;
  const double free = m.free_for_kv - shared_bytes;
  c.sequences = free > 0 && per_seq > 0 ? free / per_seq : 0.0;
  return c;
}

ServingCapacity engine_capacity(const EngineMemory& m, const EngineSettings& s, int64_t isl, int64_t osl,
                                int64_t shared_prefix) {
  ServingCapacity c;
  // A shared prefix: its blocks held once (the radix / prefix cache), each sequence the rest.
  const double shared = static_cast<double>(std::min(shared_prefix, isl));
  const double last = static_cast<double>(isl + osl) - shared;
  const double mean = static_cast<double>(isl) + static_cast<double>(osl) / 2 - shared;
  EngineMemory left = m;
  if (shared > 0) {
    left.gpu_blocks = std::max<int64_t>(0, m.gpu_blocks - static_cast<int64_t>(std::ceil(shared / static_cast<double>(s.block_size))));
  }
  c.sequences = static_cast<double>(engine_admitted_sequences(left, s, last, mean));
  c.max_num_seqs = static_cast<double>(s.max_num_seqs);
  c.step_tokens = static_cast<double>(s.max_num_batched_tokens);
  return c;
}

ServingPair serve_both(const PreparedDeployment& d, const DeploymentMemory& ceiling_memory, const EngineMemory& em,
                       const EngineSettings& s, const StepTimeParams& p, const ServingRequest& r) {
  ServingPair out;
  out.ceiling = serve(d, ceiling_capacity(d, ceiling_memory, r.isl, r.osl), p, true, r);
  out.predicted =
      serve(engine_view(d, s), engine_capacity(em, s, r.isl, r.osl, d.prefix_shared_tokens), p, false, r);
  return out;
}

PredictedDecode predict_decode(const PreparedDeployment& d, const EngineMemory& em, const EngineSettings& s,
                               const StepTimeParams& p, int64_t batch, int64_t context) {
  PredictedDecode out;
  StepWork w;
  w.decode_sequences = static_cast<double>(batch);
  w.decode_context = static_cast<double>(context);
  out.step = step_time(d, w, p, false);
  const double tau = d.spec_tokens > 0 ? d.spec_accepted : 1.0;
  out.accepted_tokens_per_step = tau;
  out.tokens_per_s_per_sequence = tau / out.step.seconds;
  out.tokens_per_s_aggregate = static_cast<double>(batch) * static_cast<double>(d.split.dp) * tau / out.step.seconds;
  const double ctx = static_cast<double>(context);
  out.max_sequences = engine_admitted_sequences(em, s, ctx, ctx) * static_cast<int64_t>(d.attn_dp);
  out.fits = batch <= out.max_sequences;
  return out;
}

StepTime predict_prefill(const PreparedDeployment& d, const EngineSettings& s, const StepTimeParams& p,
                         int64_t prompt) {
  // Chunks of the step budget, each its own step (the weights read once per
  // chunk); the attention over the whole causal triangle, once. Tokens found
  // in the prefix cache are not computed; one prompt sits on one attention group.
  const double P = static_cast<double>(prompt);
  const double cached = static_cast<double>(prefill_cached_tokens(d, prompt));
  const double C = P - cached;
  const double chunk = s.max_num_batched_tokens > 0 ? std::min(C, static_cast<double>(s.max_num_batched_tokens)) : C;
  const double full = std::floor(C / chunk);
  const double last = C - full * chunk;
  const double win = static_cast<double>(d.n_swa);
  StepWork w;
  w.prefill_tokens = chunk;
  w.prefill_groups = 1;
  StepTime one = step_time(d, w, p, false);  // a full chunk without its attention
  StepWork wl;
  wl.prefill_tokens = last > 0 ? last : chunk;
  wl.prefill_done = 1;
  wl.prefill_groups = 1;
  const StepTime end = step_time(d, wl, p, false);  // the last chunk, with the first token's lm_head
  StepWork wa;
  wa.prefill_keys_full = prompt_keys(P, cached, 0);
  wa.prefill_keys_window = prompt_keys(P, cached, win);
  wa.prefill_tokens = 0;
  wa.prefill_groups = 1;
  StepTime attn = step_time(d, wa, p, false);
  const double k = last > 0 ? full : full - 1;  // full chunks before the last one
  StepTime t;
  t.dense_s = k * one.dense_s + end.dense_s;
  t.experts_s = k * one.experts_s + end.experts_s;
  t.lm_head_s = k * one.lm_head_s + end.lm_head_s;
  t.prefill_attention_s = attn.prefill_attention_s + k * one.prefill_attention_s + end.prefill_attention_s;
  t.elementwise_s = k * one.elementwise_s + end.elementwise_s;
  t.draft_s = k * one.draft_s + end.draft_s;
  t.a2a_s = k * one.a2a_s + end.a2a_s;
  t.comm_s = k * one.comm_s + end.comm_s;
  t.overhead_s = k * one.overhead_s + end.overhead_s;
  t.compute_s = k * one.compute_s + end.compute_s + attn.compute_s;
  t.memory_s = k * one.memory_s + end.memory_s + attn.memory_s;
  t.seconds = t.dense_s + t.experts_s + t.lm_head_s + t.prefill_attention_s + t.draft_s + t.elementwise_s + t.comm_s +
              t.overhead_s;  // the chunks one after another, their a2a not overlapped
  t.bytes_per_gpu = k * one.bytes_per_gpu + end.bytes_per_gpu + attn.bytes_per_gpu;
  t.flops_per_gpu = k * one.flops_per_gpu + end.flops_per_gpu + attn.flops_per_gpu;
  return t;
}

Result<DeploymentPrediction> predict_deployment(const ModelSpec& m, const GpuSpec& gpu, const DeploymentAnalysis& a,
                                                const EngineRelease& e, const EngineFlags& flags,
                                                const EngineWorkload& w) {
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
