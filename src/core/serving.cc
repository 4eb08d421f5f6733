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

namespace {

// Rows of the kernels' M tile: grouped GEMMs pad each expert's tokens to it
// (Hopper's wgmma, DeepGEMM's and CUTLASS's grouped kernels tile M by 64).
constexpr double kGemmTileRows = 64;
// Keys of attention's tile: a causal prefill of L tokens computes its diagonal
// tiles whole, (1 + 128 / L) x the triangle.
constexpr double kAttentionTileKeys = 128;

// One step's work for one column of ranks (every pipeline stage) of the
// busiest attention group, and the busiest EP rank's routed experts.
struct StepLoad {
  double n = 0;  // tokens through the group's dense layers
  double dense_flops = 0, dense_bytes = 0;
  MoeLoad load;
  double exp_flops = 0, exp_flops_padded = 0, exp_bytes = 0;
  double lm_flops = 0, lm_bytes = 0;
  double kv_read = 0, attn_dec_flops = 0;
  double attn_pf_flops = 0, attn_pf_flops_padded = 0, kv_written = 0;
  double draft_flops = 0, draft_bytes = 0, draft_ar = 0, draft_a2a = 0;
  double sequences = 0;  // sequences sampled on the group: decoding ones and prompts ending
};

StepLoad step_load(const PreparedDeployment& d, const StepWork& w, const StepTimeParams& q) {
  StepLoad l;
  const bool spec = d.spec_tokens > 0 && w.decode_sequences > 0;
  const double v = spec ? static_cast<double>(d.spec_tokens + 1) : 1.0;  // tokens verified per sequence
  const double B = w.decode_sequences, np = w.prefill_tokens;
  const double tokens = B * v + np;            // through the replica's MoE group
  const double g = d.attn_dp;                  // attention groups: the sequences dealt out whole over them
  const double pg = w.prefill_groups > 0 ? std::min(w.prefill_groups, g) : g;  // groups the prompts are on
  const double Bg = busiest_group_sequences(B, g);  // on the busiest group
  const double npg = np / pg;                  // prompt tokens on the busiest group
  l.n = Bg * v + npg;
  const double moe = static_cast<double>(d.n_moe_layers);
  l.dense_flops = l.n * d.linear_flops_per_token;
  l.dense_bytes = l.n > 0 ? d.dense_bytes + l.n * d.embedding_row_bytes : 0.0;  // no token, no GEMM
  l.load = moe > 0 ? moe_rank_load(d, tokens) : MoeLoad{};
  l.exp_flops = moe * l.load.routed * d.expert_flops_per_routed_token;
  // Each expert the rank reads gets routed / experts_read tokens on average, padded to whole tiles.
  const double per_expert = l.load.experts_read > 0 ? l.load.routed / l.load.experts_read : 0.0;
  const double padded = per_expert > 0 ? std::ceil(per_expert / kGemmTileRows) * kGemmTileRows : 0.0;
  l.exp_flops_padded = moe * l.load.experts_read * padded * d.expert_flops_per_routed_token;
  // The prompts' own expert reads are left out when they are amortized (the ideal machine's bound).
  const bool amortized = w.prefill_reads_amortized && np > 0;
  const MoeLoad read = amortized && moe > 0 ? moe_rank_load(d, B * v) : l.load;
  l.exp_bytes = moe * read.experts_read * d.expert_bytes;
  const double lm_rows = Bg * v + w.prefill_done / pg;
  l.sequences = Bg + w.prefill_done / pg;
  l.lm_flops = lm_rows * d.lm_head_flops_per_token;
  l.lm_bytes = lm_rows > 0 ? d.lm_head_bytes : 0.0;
  const double win = static_cast<double>(d.n_swa);
  const double T = w.decode_context;
  const double key_layers = static_cast<double>(d.n_full_layers) * T +
                            static_cast<double>(d.n_swa_layers) * (win > 0 && T > win ? win : T);
  const double kv_key_layer = static_cast<double>(d.kv_elems_per_layer) * static_cast<double>(d.kv_bits) / 8.0;
  l.kv_read = Bg * key_layers * kv_key_layer;  // once for the verified tokens
  l.attn_dec_flops = Bg * v * key_layers * d.attn_flops_per_key_decode;
  const double pf_keys = (static_cast<double>(d.n_full_layers) * w.prefill_keys_full +
                          static_cast<double>(d.n_swa_layers) * w.prefill_keys_window) / pg;
  l.attn_pf_flops = pf_keys * d.attn_flops_per_key_prefill;
  // A prompt of L tokens attends to ~L/2 keys per token: (1 + tile / L) = 1 + tile x tokens / (2 keys), keys
  // per layer the mean over the layers there are (not full + window keys: a model without sliding-window
  // layers has none of the latter).
  const double attn_layers = static_cast<double>(d.n_full_layers + d.n_swa_layers);
  const double pf_keys_per_layer = attn_layers > 0 ? pf_keys / attn_layers : 0.0;
  l.attn_pf_flops_padded =
      pf_keys_per_layer > 0 ? l.attn_pf_flops * (1 + kAttentionTileKeys * npg / (2 * pf_keys_per_layer)) : 0.0;
  l.kv_written = npg *
                 static_cast<double>(d.n_full_layers + d.n_swa_layers - d.n_shared_full_layers - d.n_shared_swa_layers) *
                 kv_key_layer;
  // Speculative decoding: K draft passes of one token per sequence.
  if (spec) {
    const DraftTerms& dr = d.draft;
    const double K = static_cast<double>(d.spec_tokens);
    const MoeLoad dl = dr.moe_layers > 0 ? moe_rank_load(d, B) : MoeLoad{};
    l.draft_bytes = K * (dr.weight_bytes + Bg * dr.row_bytes + Bg * T * dr.kv_layers * dr.kv_bytes_per_key +
                         dr.moe_layers * dl.experts_read * d.expert_bytes);
    l.draft_flops = K * (Bg * (dr.flops_per_token + T * dr.kv_layers * dr.attn_flops_per_key) +
                         dr.moe_layers * dl.routed * d.expert_flops_per_routed_token);
    if (d.split.tp > 1) {
      const double dmsg = Bg * static_cast<double>(d.n_embd) * d.act_bytes;
      l.draft_ar = K * dr.allreduces *
                   (d.ring_factor * dmsg / (d.tp_link_bytes_per_s * q.allreduce_efficiency) + d.tp_latency_s +
                    q.allreduce_latency_s);
    }
    l.draft_a2a = K * a2a_seconds(d, dr.moe_layers, B / static_cast<double>(d.split.moe_group()), dl.ratio,
                                  q.allreduce_efficiency, q.allreduce_latency_s);
  }
  if (d.spec_tokens > 0 && npg > 0) {  // the drafter reads the prompts too (builds its own cache)
    l.draft_flops += npg * d.draft.flops_per_token;
    l.draft_bytes += npg * static_cast<double>(d.draft.kv_per_token_memory);
  }
  return l;
}

// Communication: TP all-reduces of the group's activations, PP hand-offs, the all-to-all.
void step_comm(const PreparedDeployment& d, const StepLoad& l, const StepTimeParams& q, StepTime* t) {
  const double pp = static_cast<double>(d.split.pp);
  const double msg = l.n * static_cast<double>(d.n_embd) * d.act_bytes;
  const double n_ar = static_cast<double>(d.n_layer) * d.allreduces_per_layer;
  const double ar = d.split.tp == 1 || l.n == 0
                        ? 0.0
                        : n_ar * (d.ring_factor * msg / (d.tp_link_bytes_per_s * q.allreduce_efficiency) +
                                  d.tp_latency_s + q.allreduce_latency_s);
  const double handoff = d.split.pp == 1 || l.n == 0
                             ? 0.0
                             : (pp - 1) * (msg / (d.pp_link_bytes_per_s * q.allreduce_efficiency) + d.pp_latency_s);
  // The busiest group's tp GPUs send its tokens (= tokens / moe_group when the work is spread).
  t->a2a_s = a2a_seconds(d, static_cast<double>(d.n_moe_layers), l.n / static_cast<double>(d.split.tp),
                         l.load.ratio, q.allreduce_efficiency, q.allreduce_latency_s) +
             l.draft_a2a;
  t->comm_s = ar + handoff + l.draft_ar + t->a2a_s;
}

}  // namespace

StepTime step_time(const PreparedDeployment& d, const StepWork& w, const StepTimeParams& p, bool ceiling) {
  const StepTimeParams& q = ceiling ? StepTimeParams{} : p;
  const StepLoad l = step_load(d, w, q);
  StepTime t;
  const double pp = static_cast<double>(d.split.pp);
  t.flops_per_gpu =
      (l.dense_flops + l.exp_flops + l.lm_flops + l.attn_dec_flops + l.attn_pf_flops + l.draft_flops) / pp;
  t.bytes_per_gpu = (l.dense_bytes + l.exp_bytes + l.lm_bytes + l.kv_read + l.kv_written + l.draft_bytes +
                     (ceiling ? 0.0 : l.n * d.elementwise_bytes_per_token)) / pp;
  step_comm(d, l, q, &t);
  const double other_comm = t.comm_s - t.a2a_s;
  if (ceiling) {  // every FLOP at the compute dtype's peak, every byte at the bandwidth, overlapped
    const double peak = d.peak_flops, bw = d.bandwidth;
    t.compute_s = (l.dense_flops + l.exp_flops + l.lm_flops + l.attn_dec_flops + l.attn_pf_flops + l.draft_flops) / peak;
    t.memory_s = (l.dense_bytes + l.exp_bytes + l.lm_bytes + l.kv_read + l.kv_written + l.draft_bytes) / bw;
    t.dense_s = std::max(l.dense_flops / peak, l.dense_bytes / bw);
    t.experts_s = std::max(l.exp_flops / peak, l.exp_bytes / bw);
    t.lm_head_s = std::max(l.lm_flops / peak, l.lm_bytes / bw);
    t.kv_read_s = std::max(l.attn_dec_flops / peak, l.kv_read / bw);
    t.prefill_attention_s = std::max(l.attn_pf_flops / peak, l.kv_written / bw);
    t.draft_s = std::max(l.draft_flops / peak, l.draft_bytes / bw);
    const double busy = std::max(t.compute_s, t.memory_s);
    t.seconds = (d.two_batch_overlap ? std::max(busy, t.a2a_s) : busy + t.a2a_s) + other_comm;
    return t;
  }
  // Each kernel at its own roof: the compute dtype's GEMM fraction, attention at the 16-bit peak, every
  // fraction times the architecture family's factor.
  const double af = q.arch_factor[static_cast<size_t>(factor_family(d.arch))];
  const auto frac = [af](double f) { return std::min(1.0, f * af); };  // never beyond the roof
  const double gemm = d.peak_flops * frac(gemm_fraction_for(q, d.compute_dtype));
  const double grouped = gemm * q.grouped_gemm_fraction;
  const double attn = std::min(d.peak_flops_16bit, d.peak_flops) * frac(q.attention_fraction);
  const double bw = d.bandwidth * frac(q.hbm_fraction), kvbw = d.bandwidth * frac(q.kv_read_fraction);
  const double c_dense = l.dense_flops / gemm, m_dense = l.dense_bytes / bw;
  const double c_exp = l.exp_flops_padded / grouped, m_exp = l.exp_bytes / bw;
  const double c_lm = l.lm_flops / gemm, m_lm = l.lm_bytes / bw;
  const double c_kv = l.attn_dec_flops / attn, m_kv = l.kv_read / kvbw;
  const double c_pf = l.attn_pf_flops_padded / attn, m_pf = l.kv_written / bw;
  const double c_dr = l.draft_flops / gemm, m_dr = l.draft_bytes / bw;
  // A GEMM near its ridge hides only part of its shorter roof behind the longer.
  const auto roof = [&](double c, double m) { return std::max(c, m) + q.overlap_loss * std::min(c, m); };
  t.dense_s = roof(c_dense, m_dense);
  t.experts_s = roof(c_exp, m_exp);
  t.lm_head_s = roof(c_lm, m_lm);
  t.kv_read_s = std::max(c_kv, m_kv);
  t.prefill_attention_s = std::max(c_pf, m_pf);
  t.draft_s = roof(c_dr, m_dr);
  // Non-GEMM kernels (norms, residual, activation): memory-bound, fused away on the ideal machine.
  t.elementwise_s = l.n * d.elementwise_bytes_per_token / bw;
  t.compute_s = c_dense + c_exp + c_lm + c_kv + c_pf + c_dr;
  t.memory_s = m_dense + m_exp + m_lm + m_kv + m_pf + m_dr + t.elementwise_s;
  // Fixed costs: the forward's layers (a CUDA graph's replay; each prefill forward launched eagerly adds its
  // own), the scheduler's step, each sequence sampled.
  const double layers = static_cast<double>(d.n_layer), moe_layers = static_cast<double>(d.n_moe_layers);
  const double forwards = l.n > 0 ? 1.0 : 0.0;
  t.overhead_s = forwards * (layers * q.layer_overhead_s + moe_layers * q.moe_layer_overhead_s) +
                 w.eager_forwards * layers * q.eager_layer_overhead_s + q.step_overhead_s +
                 q.sequence_overhead_s * l.sequences;
  const double kernels =
      t.dense_s + t.experts_s + t.lm_head_s + t.kv_read_s + t.prefill_attention_s + t.draft_s + t.elementwise_s;
  t.seconds = (d.two_batch_overlap ? std::max(kernels, t.a2a_s) : kernels + t.a2a_s) + other_comm + t.overhead_s;
  return t;
}
namespace {

// Keys the computed tokens of a prompt of `isl` tokens attend to per layer
// when its first `cached` tokens come from the prefix cache.
double prompt_keys(double isl, double cached, double window) {
  return causal_keys(isl, window) - causal_keys(cached, window);
}

// Forwards launched outside a CUDA graph in a step starting `prompts` prompts
// of `computed` tokens each, `budget` prompt tokens per forward (0: no limit):
// one per prompt while they arrive apart, one per budget's worth once they
// share forwards.
double eager_forwards(double prompts, double computed, double budget) {
  if (!(prompts > 0)) return 0;
  const double shared = budget > 0 ? prompts * computed / budget : 0.0;
  return std::min(prompts, std::max(1.0, shared));
}

// The steady-state step at B decoding sequences of a request shape: each
// sequence yields `tau` tokens a step and holds its slot for the osl_dec = osl
// - 1 tokens after its first, so B x tau / osl_dec requests finish (and start)
// per step; their prompts' computed tokens (isl less the cached ones) are
// prefilled beside the batch unless the replica only decodes, `budget` prompt
// tokens per forward.
StepWork steady_work(double B, double isl, double osl_dec, double osl, double window, double cached, double tau,
                     bool prefill, double budget) {
  StepWork w;
  w.decode_sequences = B;
  w.decode_context = isl + osl / 2;
  if (!prefill) return w;
  const double prompts = B * tau / osl_dec;  // requests finishing (and starting) per step
  w.prefill_tokens = prompts * (isl - cached);
  w.prefill_keys_full = prompts * prompt_keys(isl, cached, 0);
  w.prefill_keys_window = prompts * prompt_keys(isl, cached, window);
  w.prefill_done = prompts;
  w.eager_forwards = eager_forwards(prompts, isl - cached, budget);
  return w;
}

// The computed tokens of one request of `isl` tokens (its first `cached` from
// the cache) as steps carry them: `tokens` of them per step (all when tokens
// >= the computed ones), attending to the causal triangle's share of those
// steps; the last step samples its first token. Each step is one prefill
// forward.
StepWork prompt_work(double isl, double cached, double tokens, double window, double share) {
  StepWork w;
  w.prefill_tokens = std::min(isl - cached, tokens);
  w.prefill_keys_full = share * prompt_keys(isl, cached, 0);
  w.prefill_keys_window = share * prompt_keys(isl, cached, window);
  w.prefill_done = share;
  w.prefill_groups = 1;  // one prompt sits on one attention group
  w.eager_forwards = 1;
  return w;
}

// `n` whole prompts in one prefill forward.
StepWork prompts_work(double n, double isl, double cached, double window) {
  StepWork w;
  w.prefill_tokens = n * (isl - cached);
  w.prefill_keys_full = n * prompt_keys(isl, cached, 0);
  w.prefill_keys_window = n * prompt_keys(isl, cached, window);
  w.prefill_done = n;
  w.eager_forwards = n > 0 ? 1 : 0;
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
  const StepWork w = prompts_work(n, isl, cached, win);
  f.batch = n;
  f.prefill_tokens_per_step = w.prefill_tokens;
  f.step = step_time(d, w, p, ceiling);
  f.tpot_s = 0;
  f.requests_per_s = f.fits ? dp * n / f.step.seconds : 0;
  f.input_tokens_per_s = f.requests_per_s * isl;
  f.output_tokens_per_s = 0;  // the first token of each request is the prefill's; the rest are the decode pool's
  // TTFT: the ceiling's one prompt alone. The engine's, at a rate L per replica: the step that forms carries
  // the k = L x t(k) prompts arriving during it (a fixed point, at least one, at most the budget's n); half
  // a step of residual, an M/D/1 wait at utilization k / n, the step itself, and the frontend. Saturated, a
  // prompt waits for the full step that carries it.
  if (ceiling) {
    f.ttft_s = step_time(d, prompt_work(isl, cached, computed, win, 1), p, true).seconds;
  } else if (r.load == ServingLoad::kRequestsPerS) {
    const double L = r.value / dp;
    if (!(L < f.requests_per_s / dp)) {
      f.saturated = true;
      f.queue_s = f.ttft_s = kInf;
    } else {
      double k = 1, t = 0;
      for (int i = 0; i < 32; ++i) {
        t = step_time(d, prompts_work(k, isl, cached, win), p, false).seconds;
        const double next = std::clamp(L * t, 1.0, n);
        if (std::fabs(next - k) <= 1e-9 * k) break;
        k = next;
      }
      const double rho = std::min(L * t / n, 1 - 1e-9);
      f.queue_s = rho * t / (2 * (1 - rho));
      f.ttft_s = t / 2 + f.queue_s + t + p.request_overhead_s;
    }
  } else {
    f.ttft_s = f.step.seconds + p.request_overhead_s;
  }
  (void)osl;
  return f;
}

}  // namespace

namespace {

// (1 - f) a + f b, part by part: the mean of two kinds of step.
StepTime blend(const StepTime& a, const StepTime& b, double f) {
  const auto mix = [f](double x, double y) { return (1 - f) * x + f * y; };
  StepTime t;
  t.dense_s = mix(a.dense_s, b.dense_s);
  t.experts_s = mix(a.experts_s, b.experts_s);
  t.lm_head_s = mix(a.lm_head_s, b.lm_head_s);
  t.kv_read_s = mix(a.kv_read_s, b.kv_read_s);
  t.prefill_attention_s = mix(a.prefill_attention_s, b.prefill_attention_s);
  t.elementwise_s = mix(a.elementwise_s, b.elementwise_s);
  t.draft_s = mix(a.draft_s, b.draft_s);
  t.comm_s = mix(a.comm_s, b.comm_s);
  t.overhead_s = mix(a.overhead_s, b.overhead_s);
  t.a2a_s = mix(a.a2a_s, b.a2a_s);
  t.compute_s = mix(a.compute_s, b.compute_s);
  t.memory_s = mix(a.memory_s, b.memory_s);
  t.seconds = mix(a.seconds, b.seconds);
  t.bytes_per_gpu = mix(a.bytes_per_gpu, b.bytes_per_gpu);
  t.flops_per_gpu = mix(a.flops_per_gpu, b.flops_per_gpu);
  return t;
}

// The steady state of one replica (serve() below): the batch B a load holds,
// the step at B, TPOT, TTFT and the rates. One request holds a decode slot for
// the osl - 1 tokens after its first (the prefill's), osl_dec / tau steps, so at
// batch B a step starts B x tau / osl_dec prompts and the replica serves
// lambda(B) = B x tau / (osl_dec x t(B)) requests/s. With pp pipeline stages
// the batch runs as pp micro-batches in flight (TensorRT-LLM, vLLM and SGLang
// alike): every B / pp of them cross all stages in one step, so t(B) is the
// whole column's time at B / pp sequences (the ideal machine's too).
class SteadyState {
 public:
  SteadyState(const PreparedDeployment& d, const ServingCapacity& cap, const StepTimeParams& p, bool ceiling,
              const ServingRequest& r)
      : d_(d), cap_(cap), p_(p), ceiling_(ceiling), r_(r) {
    prefill_ = r.phase == ServingPhase::kAggregated;
    isl_ = static_cast<double>(r.isl), osl_ = static_cast<double>(r.osl);
    dec_ = std::max(osl_ - 1, 1.0);
    dp_ = static_cast<double>(d.split.dp);
    pp_ = static_cast<double>(d.split.pp);
    g_ = d.attn_dp;  // the capacity's figures are one attention group's
    win_ = static_cast<double>(d.n_swa);
    cached_ = static_cast<double>(prefill_cached_tokens(d, r.isl));
    computed_ = isl_ - cached_;
    tau_ = d.spec_tokens > 0 ? d.spec_accepted : 1.0;
    v_ = d.spec_tokens > 0 ? static_cast<double>(d.spec_tokens + 1) : 1.0;
    f_.mean_context = isl_ + osl_ / 2;
    f_.cached_tokens = cached_;
    f_.accepted_tokens_per_step = tau_;
    set_capacity();
  }

  ServingFigures run();

 private:
  void set_capacity();
  StepTime step_at(double B, double* prompt_tokens);
  double ttft(double B, double t, double np);
  void at(double B);
  double users_at(double B);  // B + lambda(B) x TTFT(B): the users a batch of B implies (Little's law)
  void closed_loop();
  void open_loop();
  double burst_ttft();

  const PreparedDeployment& d_;
  const ServingCapacity& cap_;
  const StepTimeParams& p_;
  const bool ceiling_;
  const ServingRequest& r_;
  bool prefill_ = true;
  double isl_ = 0, osl_ = 0, dec_ = 1, dp_ = 1, pp_ = 1, g_ = 1, win_ = 0, cached_ = 0, computed_ = 0, tau_ = 1, v_ = 1;
  double capacity_ = 0;
  ServingFigures f_;
};

void SteadyState::set_capacity() {
  // Capacity: the smallest of the limits, per replica.
  capacity_ = cap_.sequences * g_;
  f_.limit = BatchLimit::kMemory;
  if (cap_.max_num_seqs > 0 && cap_.max_num_seqs * g_ < capacity_) {
    capacity_ = cap_.max_num_seqs * g_;
    f_.limit = BatchLimit::kMaxNumSeqs;
  }
  if (cap_.step_tokens > 0) {
    // Tokens a sequence brings to a step: its verified tokens, plus its share of a replacement's prompt.
    const double by_tokens = cap_.step_tokens * g_ / (v_ + (prefill_ ? tau_ * computed_ / dec_ : 0.0));
    if (by_tokens < capacity_) {
      capacity_ = by_tokens;
      f_.limit = BatchLimit::kStepTokens;
    }
  }
  f_.capacity_sequences = capacity_;
  f_.fits = capacity_ >= 1;
}

// Time to first token at batch B. The ceiling: the prompt's prefill alone (no
// engine does less). The prediction: half a step of residual, an M/D/1 wait for
// the step's prompt budget (budget = the step's tokens less its decode tokens),
// then the steps carrying the prompt's chunks beside the B decoding sequences.
// A decode pool's requests arrive prefilled: 0 here.
double SteadyState::ttft(double B, double t, double np) {
  f_.queue_s = 0;
  if (!prefill_) return 0.0;
  if (ceiling_) return step_time(d_, prompt_work(isl_, cached_, computed_, win_, 1), p_, true).seconds;
  const double budget = cap_.step_tokens > 0 ? std::max(1.0, cap_.step_tokens * g_ - B * v_) : computed_;
  const double chunks = std::ceil(computed_ / budget);
  const double rho = np / budget;
  if (rho >= 1) {
    f_.queue_s = kInf;
    return kInf;
  }
  const double service = chunks * t;  // the steps one prompt's prefill occupies
  f_.queue_s = rho * service / (2 * (1 - rho));
  StepWork w = prompt_work(isl_, cached_, budget, win_, 1 / chunks);
  w.decode_sequences = B;
  w.decode_context = isl_ + osl_ / 2;
  return std::max(1.0, cap_.poll_steps) * t / 2 + f_.queue_s + chunks * step_time(d_, w, p_, false).seconds +
         p_.request_overhead_s;
}

// The mean step of the steady state at B decoding sequences (per micro-batch
// of B / pp under pipelining), and the prompt tokens it carries on average.
// Prompts are not spread thinly over every step: a step carries a chunk of
// the step budget (the whole prompt when it fits) or only decodes, so where
// the prompt tokens per step P fall short of the chunk c, a fraction f = P / c
// of the steps carry one and the rest decode alone -- a prompt touches an
// MoE's experts once, in its own forward. Where P fills the budget every step
// carries P. The ceiling: every step carries P, the prompts' weight and
// expert reads amortized (a schedule batching prompts without limit reads
// them once for all), a bound on any engine's mean step.
StepTime SteadyState::step_at(double B, double* prompt_tokens) {
  const double mb = B / pp_;
  const double budget = cap_.step_tokens * g_;
  StepWork w = steady_work(mb, isl_, dec_, osl_, win_, cached_, tau_, prefill_, budget);
  *prompt_tokens = w.prefill_tokens;
  if (ceiling_ || !prefill_ || !(w.prefill_tokens > 0)) {
    w.prefill_reads_amortized = ceiling_;
    return step_time(d_, w, p_, ceiling_);
  }
  const double chunk = std::min(computed_, budget > 0 ? std::max(1.0, budget - mb * v_) : computed_);
  const double f = w.prefill_tokens / chunk;
  if (f >= 1) return step_time(d_, w, p_, false);
  StepWork dec = steady_work(mb, isl_, dec_, osl_, win_, cached_, tau_, false, budget);
  StepWork mix = prompt_work(isl_, cached_, chunk, win_, chunk / computed_);
  mix.decode_sequences = dec.decode_sequences;
  mix.decode_context = dec.decode_context;
  mix.prefill_groups = 0;  // the prompts are spread over the groups
  return blend(step_time(d_, dec, p_, false), step_time(d_, mix, p_, false), f);
}

void SteadyState::at(double B) {
  f_.batch = B;
  double prompt_tokens = 0;
  f_.step = step_at(B, &prompt_tokens);
  f_.prefill_tokens_per_step = prompt_tokens;
  f_.tpot_s = f_.step.seconds / tau_;
  f_.tokens_per_s_per_user = 1 / f_.tpot_s;
  f_.ttft_s = ttft(B, f_.step.seconds, prompt_tokens);
  const double lambda = B * tau_ / (dec_ * f_.step.seconds);  // requests/s per replica
  f_.requests_per_s = dp_ * lambda;
  f_.output_tokens_per_s = f_.requests_per_s * osl_;
  f_.input_tokens_per_s = f_.requests_per_s * isl_;
}

double SteadyState::users_at(double B) {
  at(B);
  return B + f_.requests_per_s / dp_ * f_.ttft_s;
}

// The first prompts of a closed-loop run arrive at once (benchmark_serving
// starts its max-concurrency users together): min(users, capacity) prompts
// prefilled in steps of the engine's token budget, nothing decoding yet; the
// k-th step's prompts see their first token after k steps, so the mean is
// (steps + 1) / 2 steps.
double SteadyState::burst_ttft() {
  const double users = std::min(r_.value / dp_, capacity_);
  const double budget = cap_.step_tokens > 0 ? cap_.step_tokens * g_ : computed_ * users;
  const double tokens = std::min(budget, users * computed_);
  const double prompts = tokens / computed_;  // per step
  const StepWork w = prompts_work(prompts, isl_, cached_, win_);
  const double steps = std::ceil(users * computed_ / tokens);
  return (steps + 1) / 2 * step_time(d_, w, p_, false).seconds + p_.request_overhead_s;
}

// Users in a closed loop (benchmark_serving --max-concurrency C): each sends
// its next request when the last one ends, so by Little's law C = lambda x
// (TTFT + (osl - 1) x TPOT) = B + lambda x TTFT. users_at(B) grows with B: the
// batch is its root on (0, min(C, capacity)] (TTFT may be infinite where the
// prompts outrun the step budget). Beyond capacity the rest
// wait for a slot at the replica's rate. The ceiling holds every user in a
// slot (a bound on the rate; its TTFT is a prompt alone).
void SteadyState::closed_loop() {
  const double users = r_.value / dp_;
  const double top = std::min(users, capacity_);
  if (ceiling_) {
    // The rate's bound holds every user in a slot; TPOT's bound is one sequence's step (a user decodes
    // beside at least itself; the others may all wait on their prompts).
    at(std::min(1.0, top));
    const double tpot = f_.tpot_s;
    at(top);
    f_.tpot_s = tpot;
    f_.tokens_per_s_per_user = 1 / tpot;
  } else if (!prefill_) {
    at(top);
  } else if (const double g_top = users_at(top) - users; g_top > 0) {
    // users_at(B) - users: negative at 0, positive (or infinite) at top. Regula falsi (Illinois) where both
    // ends are finite, bisection where the top end is not. (Else every user holds a slot at top: done.)
    double lo = 0, hi = top, glo = -users, ghi = g_top;
    int side = 0;
    for (int i = 0; i < 60; ++i) {
      const double mid = std::isfinite(ghi) ? (lo * ghi - hi * glo) / (ghi - glo) : (lo + hi) / 2;
      const double gm = users_at(mid) - users;
      if (std::fabs(gm) <= 1e-9 * users || hi - lo <= 1e-9 * hi) break;
      if (gm > 0) {
        hi = mid, ghi = gm;
        if (side == -1) glo /= 2;
        side = -1;
      } else {
        lo = mid, glo = gm;
        if (side == 1 && std::isfinite(ghi)) ghi /= 2;
        side = 1;
      }
    }
  }
  const double held = f_.batch + (ceiling_ ? 0.0 : f_.requests_per_s / dp_ * f_.ttft_s);
  if (users > held * (1 + 1e-9) && f_.batch >= capacity_ * (1 - 1e-12)) {
    f_.saturated = true;  // the rest wait for a slot: (users - held) requests ahead at the replica's rate
    if (!ceiling_ && prefill_) {
      const double wait = (users - held) / (f_.requests_per_s / dp_);
      f_.queue_s += wait;
      f_.ttft_s += wait;
    }
  }
  // The run's first wave: its prompts arrive together; a run of W requests per user averages one burst wave
  // with W - 1 steady ones and is longer by the burst's extra wait.
  const double W = r_.prompts_per_user;
  if (ceiling_ || !prefill_ || !(W > 1) || !std::isfinite(f_.ttft_s)) return;
  const double extra = std::max(0.0, burst_ttft() - f_.ttft_s);
  const double e2e = f_.ttft_s + dec_ * f_.tpot_s;
  f_.ttft_s += extra / W;
  const double slowdown = W * e2e / (W * e2e + extra);
  f_.requests_per_s *= slowdown;
  f_.output_tokens_per_s *= slowdown;
  f_.input_tokens_per_s *= slowdown;
}

// Poisson arrivals at L requests/s: Little's law as a fixed point of the step
// time, B = L x osl_dec x t / tau. g(t) = step(B(t)) - t is positive near t = 0
// and the step grows slower than t when the load is stable: the root lies below
// t_cap, where B reaches capacity. Regula falsi (Illinois) on [0, t_cap]: the
// step is nearly affine in t, so a few evaluations reach it.
void SteadyState::open_loop() {
  const double L = r_.value / dp_;
  const double per_t = L * dec_ / tau_;  // sequences per second of step
  const auto gfun = [&](double t) {
    double prompt_tokens = 0;
    return step_at(per_t * t, &prompt_tokens).seconds - t;
  };
  double hi = capacity_ / per_t;
  double lo = 1e-9 * hi;  // not 0: a step of no token takes no time, a trivial root
  double glo = gfun(lo), ghi = gfun(hi);
  if (!(ghi < 0)) {  // even at capacity the step outlasts what the rate allows: saturated
    at(capacity_);
    f_.saturated = true;
    f_.queue_s = f_.ttft_s = kInf;
    return;
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
  if (std::isinf(f_.ttft_s)) f_.saturated = true;
}

ServingFigures SteadyState::run() {
  if (!f_.fits) {
    at(1);  // the step of one sequence, for the record; nothing is served
    f_.output_tokens_per_s = f_.requests_per_s = f_.input_tokens_per_s = 0;
    f_.saturated = r_.load == ServingLoad::kRequestsPerS || r_.load == ServingLoad::kConcurrency;
    return f_;
  }
  switch (r_.load) {
    case ServingLoad::kSaturated: at(capacity_); break;
    case ServingLoad::kBatch: at(std::min(r_.value, capacity_)); break;
    case ServingLoad::kConcurrency: closed_loop(); break;
    case ServingLoad::kRequestsPerS: open_loop(); break;
  }
  return f_;
}

}  // namespace

ServingFigures serve(const PreparedDeployment& d, const ServingCapacity& cap, const StepTimeParams& p, bool ceiling,
                     const ServingRequest& r) {
  if (r.phase == ServingPhase::kPrefillOnly) return serve_prefill(d, cap, p, ceiling, r);
  return SteadyState(d, cap, p, ceiling, r).run();
}

KvTransfer kv_transfer(const PreparedDeployment& prefill, const PreparedDeployment& decode, int64_t isl,
                       bool overlapped) {
  KvTransfer t;
  const PreparedDeployment& d = prefill;
  const double P = static_cast<double>(isl);
  const double win = static_cast<double>(d.n_swa), ch = static_cast<double>(d.n_chunk);
  // The KV the layers that hold one wrote (not the layers reading another's).
  const double token_layers = static_cast<double>(d.n_full_layers - d.n_shared_full_layers) * P +
                              static_cast<double>(d.n_swa_layers - d.n_shared_swa_layers) * (win > 0 && P > win ? win : P) +
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

namespace {

// The pools serving ServingRequest `r`; with `decode_batch` > 0 the decode pool
// runs that batch per replica and the prefill pool serves its rate (Poisson),
// the closed loop's inner evaluation.
DisaggregatedFigures disaggregated_at(const DisaggregatedPool& prefill, const DisaggregatedPool& decode,
                                      const StepTimeParams& p, bool ceiling, const ServingRequest& r,
                                      bool overlapped_transfer, double decode_batch) {
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
  if (decode_batch > 0) {
    rd.load = ServingLoad::kBatch;
    rd.value = decode_batch;
  } else if (r.load == ServingLoad::kRequestsPerS) {
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

// The closed loop over both pools (the prediction): C users = y x B_decode +
// lambda x TTFT (the prefill pool's queue and prefill and the transfer), by
// bisection on the decode batch B_decode; beyond the decode pool's capacity
// the rest wait for a slot. The first wave's C prompts reach the prefill pool
// together (as in serve()'s closed loop).
DisaggregatedFigures disaggregated_closed_loop(const DisaggregatedPool& prefill, const DisaggregatedPool& decode,
                                               const StepTimeParams& p, const ServingRequest& r, bool overlapped) {
  const double y = decode.replicas, users = r.value;
  const auto at = [&](double b) { return disaggregated_at(prefill, decode, p, false, r, overlapped, b); };
  const auto held = [&](const DisaggregatedFigures& f) {
    return y * f.decode.batch + f.requests_per_s * f.ttft_s;  // inf when the prefill pool saturates
  };
  DisaggregatedFigures f = at(users / y);  // capped at the decode pool's capacity inside serve()
  const double top = f.decode.batch;
  if (held(f) > users) {
    double lo = 0, hi = top;
    for (int i = 0; i < 48 && hi - lo > 1e-6 * hi; ++i) {
      const double mid = (lo + hi) / 2;
      (held(at(mid)) > users ? hi : lo) = mid;
    }
    // The side that holds at most `users`: where the prefill pool saturates between lo and hi, held() jumps
    // to infinity there and the users it does not hold wait for the prefill pool at its rate (Little's law),
    // so the figures move continuously with the parameters instead of jumping to an infinite TTFT.
    f = at(lo);
    const double h = held(f);
    if (std::isfinite(h) && users > h && f.requests_per_s > 0) {
      f.saturated = f.saturated || !std::isfinite(held(at(hi)));
      f.ttft_s += (users - h) / f.requests_per_s;
    }
  } else if (users > held(f) * (1 + 1e-9)) {
    f.saturated = true;
    f.ttft_s += (users - held(f)) / f.requests_per_s;
  }
  const double W = r.prompts_per_user;
  if (!(W > 1) || !std::isfinite(f.ttft_s) || !f.fits) return f;
  // The first wave: users / x prompts per prefill replica, prompts_per_step of them a step.
  const double per_replica = std::min(users, y * f.decode.capacity_sequences) / prefill.replicas;
  const double steps = std::ceil(per_replica / std::max(1.0, f.prefill.batch));
  const double burst = (steps + 1) / 2 * f.prefill.step.seconds + f.transfer.ttft_seconds;
  const double extra = std::max(0.0, burst - f.ttft_s);
  const double e2e = f.ttft_s + std::max(static_cast<double>(r.osl) - 1, 1.0) * f.tpot_s;
  const double slowdown = W * e2e / (W * e2e + extra);
  f.ttft_s += extra / W;
  f.requests_per_s *= slowdown;
  f.output_tokens_per_s *= slowdown;
  f.input_tokens_per_s *= slowdown;
  return f;
}

}  // namespace

DisaggregatedFigures serve_disaggregated(const DisaggregatedPool& prefill, const DisaggregatedPool& decode,
                                         const StepTimeParams& p, bool ceiling, const ServingRequest& r,
                                         bool overlapped_transfer) {
  if (r.load == ServingLoad::kConcurrency && !ceiling) {
    return disaggregated_closed_loop(prefill, decode, p, r, overlapped_transfer);
  }
  return disaggregated_at(prefill, decode, p, ceiling, r, overlapped_transfer, 0);
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

ServingFigures serve_ceiling(const PreparedDeployment& d, const DeploymentMemory& ceiling_memory,
                             const StepTimeParams& p, const ServingRequest& r) {
  return serve(d, ceiling_capacity(d, ceiling_memory, r.isl, r.osl), p, true, r);
}

ServingPair serve_both(const PreparedDeployment& d, const DeploymentMemory& ceiling_memory, const EngineMemory& em,
                       const EngineSettings& s, const StepTimeParams& p, const ServingRequest& r) {
  ServingPair out;
  out.ceiling = serve_ceiling(d, ceiling_memory, p, r);
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
  w.eager_forwards = 1;
  StepTime one = step_time(d, w, p, false);  // a full chunk without its attention
  StepWork wl;
  wl.prefill_tokens = last > 0 ? last : chunk;
  wl.prefill_done = 1;
  wl.prefill_groups = 1;
  wl.eager_forwards = 1;
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
  const double kvseq = engine_sequence_kv_bytes(out.memory, out.settings, static_cast<double>(context));
  out.kv_bytes_per_sequence = kvseq < 9e18 ? static_cast<int64_t>(kvseq) : std::numeric_limits<int64_t>::max();
  out.reserve_bytes = out.memory.total_bytes - out.memory.weights_bytes - out.memory.non_torch_bytes -
                      out.memory.activation_peak_bytes - std::max(0.0, out.memory.kv_cache_bytes_per_gpu);
  return out;
}

}  // namespace modelcalc
