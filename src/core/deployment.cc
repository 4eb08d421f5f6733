#include "modelcalc/deployment.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "modelcalc/capacity.h"
#include "modelcalc/exact.h"
#include "modelcalc/formulas.h"
#include "sweep_kernels.h"

namespace modelcalc {

Dtype default_compute_dtype(Dtype weight, const GpuSpec& gpu) {
  const DtypeInfo& i = dtype_info(weight);
  if (i.weight_only) return Dtype::kBf16;  // int8/int4: dequantized, 16-bit matmuls
  if (i.falls_back_to_16bit && !(gpu.peak_flops(weight) > 0)) return Dtype::kBf16;  // fp4 without an fp4 rate
  return weight;  // fp8 -> fp8 (W8A8); nvfp4/mxfp4 -> fp4 where the GPU has it; 16/32-bit -> themselves
}

Dtype default_kv_dtype(Dtype weight) {
  // fp32 -> fp32, fp16 -> fp16; bf16 and every quantized format: a bf16 cache.
  return dtype_bits(weight) >= 16 ? weight : Dtype::kBf16;
}

std::string_view regime_name(DeploymentRegime r) {
  switch (r) {
    case DeploymentRegime::kBandwidthBound: return "bandwidth-bound";
    case DeploymentRegime::kComputeBound: return "compute-bound";
    case DeploymentRegime::kCapacityBound: return "capacity-bound";
    case DeploymentRegime::kCommunicationBound: return "communication-bound";
  }
  return "?";
}

namespace {

constexpr int64_t kMaxSplit = int64_t{1} << 20;
constexpr int64_t kMaxWorkload = int64_t{1} << 40;

std::string num(int64_t v) { return std::to_string(v); }

// Parameters of one pipeline stage held by one rank, by part.
struct StageParams {
  Exact emb, lm_head, attn, mlp, experts, other;  // other: norms, routers, biases, positions
};

// Bytes of the values of `params` stored in `t` (their scales are the shard's `scales`).
Exact bytes_of(Exact params, Dtype t) { return element_bytes(params, t); }

Status check_split(const ModelSpec& m, const Parallelism& s) {
  const struct {
    int64_t v;
    const char* field;
  } parts[] = {{s.tp, "tp"}, {s.pp, "pp"}, {s.ep, "ep"}, {s.dp, "dp"}};
  for (const auto& p : parts) {
    if (p.v < 1 || p.v > kMaxSplit) {
      return Status::InvalidArgument(p.field, "must be a whole number of GPUs from 1 to " + num(kMaxSplit) +
                                                  ", got " + num(p.v));
    }
  }
  if ((Exact(s.tp) * Exact(s.pp) * Exact(s.dp)).overflow() || s.tp * s.pp * s.dp > kMaxSplit) {
    return Status::InvalidArgument("gpus", "tp x pp x dp must be at most " + num(kMaxSplit));
  }
  if (m.n_head % s.tp != 0) {
    return Status::InvalidArgument("tp", "must divide the " + num(m.n_head) + " attention heads (n_head), got " +
                                             num(s.tp));
  }
  if (!m.is_mla() && m.n_head_kv % s.tp != 0 && s.tp % m.n_head_kv != 0) {
    return Status::InvalidArgument("tp", "must divide the " + num(m.n_head_kv) +
                                             " KV heads (n_head_kv) or be a multiple of them, got " + num(s.tp));
  }
  if (m.n_layer % s.pp != 0) {
    return Status::InvalidArgument("pp", "must divide the " + num(m.n_layer) + " layers (n_layer), got " +
                                             num(s.pp));
  }
  if (s.ep > 1) {
    if (m.n_expert == 0) {
      return Status::InvalidArgument("ep", "must be 1: the model has no routed experts, got " + num(s.ep));
    }
    if (s.tp % s.ep != 0) {
      return Status::InvalidArgument("ep", "must divide tp (" + num(s.tp) +
                                               "): experts are spread inside the tensor-parallel group, got " +
                                               num(s.ep));
    }
    if (m.n_expert % s.ep != 0) {
      return Status::InvalidArgument("ep", "must divide the " + num(m.n_expert) + " routed experts (n_expert), got " +
                                               num(s.ep));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<PreparedDeployment> prepare_deployment(const ModelSpec& m, const GpuSpec& gpu,
                                              const DeploymentOptions& o) {
  MC_RETURN_IF_ERROR(validate(m));
  MC_RETURN_IF_ERROR(check_split(m, o.split));
  if (o.quant_group_size < 1) {
    return Status::InvalidArgument("quant_group_size", "must be a positive number of weights per scale, got " +
                                                           num(o.quant_group_size));
  }
  if (!(o.reserve_fraction >= 0 && o.reserve_fraction < 1)) {
    return Status::InvalidArgument("reserve_fraction", "must be a fraction in [0, 1) of HBM kept back");
  }
  double workspace = 0;
  if (o.workspace_bytes) {
    workspace = *o.workspace_bytes;
  } else if (o.workspace_allowance) {
    // kv-budget's allowance on this GPU's share: chunk x (w_ffn / tp + V / tp) x 2 B, where
    // w_ffn is the widest FFN intermediate (d_ff, or top-k + shared experts; x2 when gated).
    const int64_t k = m.ffn_gated ? 2 : 1;
    const int64_t moe_w =
        m.n_expert > 0 ? (m.n_expert_used * m.n_ff_exp + m.n_expert_shared * m.n_ff_shexp) * k : 0;
    const int64_t w_ffn = std::max(m.n_ff * k, moe_w);
    const Exact a = workspace_allowance_bytes(kWorkspaceChunkTokens, ceil_div(w_ffn, o.split.tp),
                                              ceil_div(m.n_vocab, o.split.tp));
    if (a.overflow()) return Status::Overflow("model shape");
    workspace = static_cast<double>(a.value());
  }
  if (!(workspace >= 0 && workspace < 1e18)) {
    return Status::InvalidArgument("workspace_bytes", "must be a finite number of bytes >= 0");
  }
  if (!(gpu.capacity_bytes > 0) || !(gpu.bandwidth_bytes_per_s > 0)) {
    return Status::InvalidArgument("gpu", "'" + gpu.name + "' needs a positive capacity and bandwidth");
  }
  PreparedDeployment d;
  d.split = o.split;
  d.weight_dtype = o.weight_dtype;
  d.compute_dtype = o.compute_dtype.value_or(default_compute_dtype(o.weight_dtype, gpu));
  d.kv_dtype = o.kv_dtype.value_or(default_kv_dtype(o.weight_dtype));
  MC_RETURN_IF_ERROR(check_kv_dtype(d.kv_dtype, "kv_dtype"));
  d.quant_group_size = o.quant_group_size;
  d.fp8_block_scales = o.fp8_block_scales;
  d.reserve_fraction = o.reserve_fraction;
  d.workspace_bytes = workspace;
  d.peak_flops = gpu.peak_flops(d.compute_dtype);
  if (!(d.peak_flops > 0)) {
    return Status::InvalidArgument(
        "compute_dtype", "'" + gpu.name + "' has no " + std::string(dtype_name(d.compute_dtype)) +
                             " peak in the catalog; choose a compute dtype it runs (bf16, fp8, int8, nvfp4 where listed)");
  }
  const int64_t tp = o.split.tp, pp = o.split.pp;
  if ((tp > 1 || pp > 1) && !(gpu.link_bytes_per_s > 0 && gpu.scaleout_bytes_per_s > 0)) {
    return Status::InvalidArgument("gpu", "'" + gpu.name + "' has no interconnect figures; a split needs them");
  }
  d.capacity_bytes = gpu.usable_capacity_bytes();
  d.bandwidth = gpu.bandwidth_bytes_per_s;
  const int64_t domain = std::max<int64_t>(1, gpu.domain_gpus);
  d.tp_crosses_domain = tp > domain;
  d.pp_crosses_domain = tp * pp > domain;
  d.tp_link_bytes_per_s = d.tp_crosses_domain ? gpu.scaleout_bytes_per_s : gpu.link_bytes_per_s;
  d.tp_latency_s = d.tp_crosses_domain ? gpu.scaleout_latency_s : gpu.link_latency_s;
  d.pp_link_bytes_per_s = d.pp_crosses_domain ? gpu.scaleout_bytes_per_s : gpu.link_bytes_per_s;
  d.pp_latency_s = d.pp_crosses_domain ? gpu.scaleout_latency_s : gpu.link_latency_s;
  d.memory_budget = d.capacity_bytes * (1 - o.reserve_fraction) - workspace;

  auto pr = param_breakdown(m);
  if (!pr.ok()) return pr.status();
  const ParamBreakdown& p = *pr;

  // ---- per-layer parameter classes, per rank
  const int64_t L = m.n_layer, d_model = m.n_embd;
  const int64_t n_moe = m.n_moe_layers(), n_dense = L - n_moe;
  const int64_t dk = m.n_embd_head_k > 0 ? m.n_embd_head_k : m.n_embd_head;
  const int64_t dv = m.n_embd_head_v > 0 ? m.n_embd_head_v : m.n_embd_head;
  const Exact attn_layer = ceil_div(Exact(p.attention), L);
  Exact attn_repl, attn_kv_struct;  // replicated part of a layer; the k/v projections
  int64_t kv_heads_rank = 0;
  if (m.is_mla()) {
    attn_repl = Exact(d_model) * Exact(m.n_lora_kv + m.n_rot) +
                (m.n_lora_q > 0 ? Exact(d_model) * Exact(m.n_lora_q) : Exact(0));
    d.kv_elems_per_layer = m.n_lora_kv + m.n_rot;  // the latent, whole on every TP rank
  } else {
    attn_kv_struct = Exact(d_model) * Exact(m.n_head_kv) * Exact(dk + dv);
    if (tp <= m.n_head_kv) {
      kv_heads_rank = m.n_head_kv / tp;
      attn_repl = ceil_div(attn_kv_struct, tp);
    } else {  // each rank keeps one whole KV head: tp / n_head_kv copies of each
      kv_heads_rank = 1;
      attn_repl = ceil_div(attn_kv_struct, m.n_head_kv);
    }
    d.kv_elems_per_layer = kv_heads_rank * (dk + dv);
  }
  const Exact sharded_struct = m.is_mla() ? attn_repl : attn_kv_struct;
  const Exact attn_sharded =
      attn_layer.value() > sharded_struct.value() ? attn_layer - sharded_struct : Exact(0);
  const Exact attn_rank = ceil_div(attn_sharded, tp) + attn_repl;  // per layer per rank
  const Exact dense_ffn_rank = n_dense > 0 ? ceil_div(Exact(p.mlp_dense / n_dense), tp) : Exact(0);
  const Exact shared_rank = n_moe > 0 ? ceil_div(Exact(p.mlp_shared / n_moe), tp) : Exact(0);
  const Exact routed_rank = n_moe > 0 ? ceil_div(Exact(p.mlp_routed / n_moe), tp) : Exact(0);
  const Exact router_layer = n_moe > 0 ? Exact(p.router / n_moe) : Exact(0);
  const Exact norms_layer = ceil_div(Exact(p.norms), L);
  const Exact biases_rank = ceil_div(ceil_div(Exact(p.biases), L), tp);
  const Exact emb_rank = ceil_div(Exact(p.embeddings), tp);
  const Exact lm_rank_untied = ceil_div(Exact(p.lm_head), tp);

  // ---- the worst pipeline stage
  const Dtype q = o.weight_dtype;
  const Dtype keep = dtype_bits(q) >= 16 ? q : Dtype::kBf16;  // 16-bit parts of a quantized checkpoint
  const int64_t Ls = L / pp;
  auto scales = [&](Exact params) { return group_scale_bytes(params, q, o.quant_group_size, o.fp8_block_scales); };
  WeightShard worst;
  bool overflow = false;
  for (int64_t s = 0; s < pp; ++s) {
    int64_t dense_s = 0, moe_s = 0, swa_s = 0;
    for (int64_t il = s * Ls; il < (s + 1) * Ls; ++il) {
      (m.is_moe_layer(il) ? moe_s : dense_s) += 1;
      swa_s += m.is_swa_layer(il) ? 1 : 0;
    }
    d.stage_swa_layers = std::max(d.stage_swa_layers, swa_s);
    d.stage_full_layers = std::max(d.stage_full_layers, Ls - swa_s);
    StageParams sp;
    sp.attn = attn_rank * Exact(Ls);
    sp.mlp = dense_ffn_rank * Exact(dense_s) + shared_rank * Exact(moe_s);
    sp.experts = routed_rank * Exact(moe_s);
    sp.other = (norms_layer + biases_rank) * Exact(Ls) + router_layer * Exact(moe_s);
    if (s == 0) sp.emb = emb_rank + Exact(p.position);
    if (s == pp - 1) {
      sp.lm_head = lm_rank_untied;
      if (m.tied_embeddings && pp > 1) sp.lm_head += emb_rank;  // the last stage's copy of the table
    }
    WeightShard w;
    const Exact e = bytes_of(sp.emb, keep), lm = bytes_of(sp.lm_head, keep), a = bytes_of(sp.attn, q),
                f = bytes_of(sp.mlp, q), x = bytes_of(sp.experts, q), ot = bytes_of(sp.other, keep),
                sc = scales(sp.attn + sp.mlp + sp.experts);
    if ((e + lm + a + f + x + ot + sc).overflow()) overflow = true;
    w = {e.value(), lm.value(), a.value(), f.value(), x.value(), ot.value(), sc.value()};
    if (s == 0 || w.total() > worst.total()) worst = w;
  }
  if (overflow) return Status::Overflow("model shape");
  d.weights = worst;
  d.kv_bits = dtype_bits(d.kv_dtype);
  d.n_swa = m.n_swa;

  // ---- decode/prefill constants for one column of ranks (all pp stages)
  d.n_layer = L;
  d.n_swa_layers = m.n_swa_layers();
  d.n_full_layers = L - d.n_swa_layers;
  d.n_moe_layers = n_moe;
  d.n_embd = d_model;
  const double qb = static_cast<double>(dtype_bits(q)) / 8.0, kb = dtype_bytes(keep);
  const int64_t group = scale_group_elements(q, o.quant_group_size, o.fp8_block_scales);
  const double scale_per_param =  // one scale_bits scale per group (int4/int8: 16 bits per quant_group_size)
      group > 0 ? static_cast<double>(dtype_info(q).scale_bits) / 8.0 / static_cast<double>(group) : 0.0;
  const double Ld = static_cast<double>(L);
  const double q_params = static_cast<double>(attn_rank.value()) * Ld +
                          static_cast<double>(dense_ffn_rank.value()) * static_cast<double>(n_dense) +
                          static_cast<double>(shared_rank.value()) * static_cast<double>(n_moe);
  const double keep_params = static_cast<double>((norms_layer + biases_rank).value()) * Ld +
                             static_cast<double>(router_layer.value()) * static_cast<double>(n_moe);
  d.dense_bytes = q_params * (qb + scale_per_param) + keep_params * kb;
  d.n_expert = static_cast<double>(m.n_expert);
  d.n_expert_used = static_cast<double>(m.n_expert_used);
  const double expert_params_rank =
      n_moe > 0 ? static_cast<double>(p.mlp_routed) / static_cast<double>(n_moe) / d.n_expert / static_cast<double>(tp)
                : 0.0;
  d.expert_bytes = expert_params_rank * (qb + scale_per_param);
  const double lm_matrix = static_cast<double>(m.n_vocab) * static_cast<double>(d_model);
  d.lm_head_bytes = lm_matrix / static_cast<double>(tp) * kb;
  d.embedding_row_bytes = static_cast<double>(d_model) * kb / static_cast<double>(tp);
  const double router_flop_params = static_cast<double>(router_layer.value()) * static_cast<double>(n_moe);
  d.linear_flops_per_token =
      2.0 * (q_params + router_flop_params + expert_params_rank * d.n_expert_used * static_cast<double>(n_moe));
  d.lm_head_flops_per_token = 2.0 * lm_matrix / static_cast<double>(tp);
  const double h_rank = static_cast<double>(m.n_head / tp);
  if (m.is_mla()) {
    // Absorbed (decode kernels): scores over latent + rope key, weighted sum in the latent.
    d.attn_flops_per_key_decode = 2.0 * h_rank * static_cast<double>(2 * m.n_lora_kv + m.n_rot);
    // Prefill kernels run the decompressed form: q.k over d_k (nope + rope), a.v over d_v.
    d.attn_flops_per_key_prefill = 2.0 * h_rank * static_cast<double>(dk + dv);
  } else {
    d.attn_flops_per_key_decode = 2.0 * h_rank * static_cast<double>(dk + dv);
    d.attn_flops_per_key_prefill = d.attn_flops_per_key_decode;
  }
  d.act_bytes = dtype_bits(q) >= 32 ? 4.0 : 2.0;
  {
    const int64_t gk = m.ffn_gated ? 2 : 1;
    const int64_t moe_w = m.n_expert > 0 ? (m.n_expert_used * m.n_ff_exp + m.n_expert_shared * m.n_ff_shexp) * gk : 0;
    const double w_ffn = static_cast<double>(std::max(m.n_ff * gk, moe_w)) / static_cast<double>(tp);
    d.elementwise_bytes_per_token = Ld * (6.0 * static_cast<double>(d_model) + 1.5 * w_ffn) * d.act_bytes;
  }
  d.allreduces_per_layer = tp > 1 ? 2.0 : 0.0;
  d.ring_factor = 2.0 * static_cast<double>(tp - 1) / static_cast<double>(tp);
  return d;
}

namespace {

// KV tokens held over `full` whole-context layers and `swa` window layers.
Exact kv_tokens(int64_t full, int64_t swa, int64_t window, int64_t ctx) {
  return Exact(full) * Exact(ctx) + Exact(swa) * Exact(window > 0 && ctx > window ? window : ctx);
}

// Keys a causal prefill of P tokens attends to in one layer: sum over t of
// min(t, window) (the whole triangle when there is no window).
double causal_keys(double P, double window) {
  if (window <= 0 || P <= window) return P * (P + 1) / 2;
  return window * (window + 1) / 2 + (P - window) * window;
}

}  // namespace

DeploymentResult evaluate_deployment(const PreparedDeployment& d, int64_t batch, int64_t context,
                                     int64_t prompt) {
  DeploymentResult r;
  const double B = static_cast<double>(batch);
  const double pp = static_cast<double>(d.split.pp);

  // ---- memory per GPU (worst stage)
  DeploymentMemory& mem = r.memory;
  mem.capacity = d.capacity_bytes;
  mem.reserve = d.capacity_bytes * d.reserve_fraction;
  mem.workspace = d.workspace_bytes;
  mem.weights = d.weights;
  const Exact per_tok = ceil_div(Exact(d.kv_elems_per_layer) * Exact(d.stage_full_layers + d.stage_swa_layers) *
                                     Exact(d.kv_bits), 8);
  const Exact per_seq = ceil_div(Exact(d.kv_elems_per_layer) *
                                     kv_tokens(d.stage_full_layers, d.stage_swa_layers, d.n_swa, context) *
                                     Exact(d.kv_bits), 8);
  r.overflow = per_tok.overflow() || per_seq.overflow();
  mem.kv_per_token = per_tok.value();
  mem.kv_per_sequence = per_seq.value();
  mem.free_for_kv = d.memory_budget - static_cast<double>(d.weights.total());
  const Exact fit = max_batch_by_capacity(mem.free_for_kv, 0, static_cast<double>(mem.kv_per_sequence));
  r.overflow = r.overflow || fit.overflow();  // a count beyond int64 is an error, never a wrapped number
  mem.max_sequences = fit.value();

  // ---- decode step: the one function a sweep's batch loop calls too
  r.decode.context = context;
  r.decode.ridge = d.peak_flops / d.bandwidth;
  evaluate_decode_step(d, batch, expected_experts_touched(d.n_expert, d.n_expert_used, B), &r);

  // ---- prefill of one prompt
  Prefill& pf = r.prefill;
  const int64_t P = prompt > 0 ? prompt : context;
  const double Pd = static_cast<double>(P);
  pf.prompt_tokens = P;
  const double kv_bytes_per_key_layer = static_cast<double>(d.kv_elems_per_layer) * static_cast<double>(d.kv_bits) / 8.0;
  const double moe = static_cast<double>(d.n_moe_layers);
  const double n_ar = static_cast<double>(d.n_layer) * d.allreduces_per_layer;
  const double keys = static_cast<double>(d.n_full_layers) * causal_keys(Pd, 0) +
                      static_cast<double>(d.n_swa_layers) * causal_keys(Pd, static_cast<double>(d.n_swa));
  pf.attention_flops = keys * d.attn_flops_per_key_prefill / pp;
  pf.flops = (Pd * d.linear_flops_per_token + d.lm_head_flops_per_token) / pp + pf.attention_flops;
  const double p_window = static_cast<double>(d.n_swa > 0 && P > d.n_swa ? d.n_swa : P);
  const double kv_written =
      (static_cast<double>(d.n_full_layers) * Pd + static_cast<double>(d.n_swa_layers) * p_window) *
      kv_bytes_per_key_layer;
  pf.bytes = (d.dense_bytes + moe * expected_experts_touched(d.n_expert, d.n_expert_used, Pd) * d.expert_bytes +
              d.lm_head_bytes + Pd * d.embedding_row_bytes + kv_written) / pp;
  pf.compute_seconds = pp * pf.flops / d.peak_flops;
  pf.memory_seconds = pp * pf.bytes / d.bandwidth;
  const double pmsg = Pd * static_cast<double>(d.n_embd) * d.act_bytes;
  pf.comm_seconds = (d.split.tp > 1 ? n_ar * (d.ring_factor * pmsg / d.tp_link_bytes_per_s + d.tp_latency_s) : 0) +
                    (d.split.pp > 1 ? (pp - 1) * (pmsg / d.pp_link_bytes_per_s + d.pp_latency_s) : 0);
  pf.seconds = std::max(pf.compute_seconds, pf.memory_seconds) + pf.comm_seconds;
  return r;
}

Status check_workload(const PreparedDeployment& d, int64_t batch, int64_t context, int64_t prompt) {
  if (batch < 1 || batch > kMaxWorkload) {
    return Status::InvalidArgument("batch", "must be a whole number of sequences from 1 to " + num(kMaxWorkload));
  }
  if (context < 1 || context > kMaxWorkload) {
    return Status::InvalidArgument("context", "must be a whole number of tokens from 1 to " + num(kMaxWorkload));
  }
  if (prompt < 0 || prompt > context) {
    return Status::InvalidArgument("prompt_tokens", "must be between 0 (= the context) and the context (" +
                                                        num(context) + " tokens)");
  }
  const Exact per_seq = Exact(d.kv_elems_per_layer) *
                        kv_tokens(d.stage_full_layers, d.stage_swa_layers, d.n_swa, context) * Exact(d.kv_bits);
  if (per_seq.overflow()) return Status::Overflow("context");
  return Status::Ok();
}

int64_t compute_bound_batch(const PreparedDeployment& d, int64_t context) {
  auto compute_bound = [&](int64_t b) {
    const DeploymentResult r = evaluate_deployment(d, b, context, 1);
    return r.decode.compute_seconds >= r.decode.memory_seconds;
  };
  constexpr int64_t kLimit = int64_t{1} << 30;
  int64_t hi = 1;
  while (hi <= kLimit && !compute_bound(hi)) hi *= 2;
  if (hi > kLimit) return 0;
  int64_t lo = hi / 2;  // not compute-bound (or 0)
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (compute_bound(mid) ? hi : lo) = mid;
  }
  return hi;
}

Result<DeploymentResult> analyze_deployment(const ModelSpec& m, const GpuSpec& gpu, const DeploymentOptions& o) {
  MC_ASSIGN_OR_RETURN(const PreparedDeployment d, prepare_deployment(m, gpu, o));
  MC_RETURN_IF_ERROR(check_workload(d, o.batch, o.context, o.prompt_tokens));
  DeploymentResult r = evaluate_deployment(d, o.batch, o.context, o.prompt_tokens);
  if (r.overflow) return Status::Overflow("capacity");  // e.g. sequences that fit in 1e15 GPUs
  return r;
}

Result<DeploymentAnalysis> analyze_deployment_full(const ModelSpec& m, const GpuSpec& gpu,
                                                   const DeploymentOptions& o) {
  DeploymentAnalysis a;
  MC_ASSIGN_OR_RETURN(a.prepared, prepare_deployment(m, gpu, o));
  MC_RETURN_IF_ERROR(check_workload(a.prepared, o.batch, o.context, o.prompt_tokens));
  a.result = evaluate_deployment(a.prepared, o.batch, o.context, o.prompt_tokens);
  if (a.result.overflow) return Status::Overflow("capacity");
  a.compute_bound_batch = compute_bound_batch(a.prepared, o.context);
  return a;
}

}  // namespace modelcalc
