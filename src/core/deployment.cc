#include "modelcalc/deployment.h"

#include "modelcalc/engine_rules.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "error_number.h"
#include "modelcalc/capacity.h"
#include "modelcalc/eplb.h"
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

Dtype default_weight_dtype(const ModelSpec& m, Dtype fallback) { return m.quant ? m.quant->dtype : fallback; }

Dtype default_kv_dtype(const ModelSpec& m, Dtype weight) {
  return m.quant && m.quant->kv ? *m.quant->kv : default_kv_dtype(weight);
}

Dtype default_state_dtype(Dtype weight) { return default_kv_dtype(weight); }

Dtype default_ssm_state_dtype(const ModelSpec& m, Dtype weight) {
  return m.ssm_state_dtype.value_or(default_state_dtype(weight));
}

std::string_view spec_method_name(SpecMethod m) {
  switch (m) {
    case SpecMethod::kNone: return "none";
    case SpecMethod::kMtp: return "mtp";
    case SpecMethod::kDraftModel: return "draft";
  }
  return "?";
}

double accepted_tokens_per_step(int64_t k, double a) {
  if (k <= 0) return 1.0;
  if (a >= 1) return static_cast<double>(k + 1);
  return (1 - std::pow(a, static_cast<double>(k + 1))) / (1 - a);
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
  Exact emb, lm_head, attn, rec, mlp, experts, other;  // other: norms, routers, biases (experts' too)
};

// The dtype each part of the weights is stored in. A quantized checkpoint: weight_dtype applies to the
// parts it quantizes, the parts it keeps in 16 bits stay so, and served as stored (weight_dtype is the
// checkpoint's dtype) a MIXED_PRECISION part keeps its own dtype; its block scales and group size apply
// to its own dtype. Elsewhere every block matrix is in weight_dtype and the rest (embeddings, lm_head,
// norms, routers, biases) stays 16-bit, as the engines load a 16-bit checkpoint they quantize.
struct PartDtypes {
  Dtype q = Dtype::kBf16, keep = Dtype::kBf16, attention = Dtype::kBf16, mlp = Dtype::kBf16,
        experts = Dtype::kBf16, recurrent = Dtype::kBf16;
  bool uniform = true;  // every block matrix in q
  bool blocks = false;  // fp8 block scales
  int64_t group_size = 0;
};

PartDtypes part_dtypes(const ModelSpec& m, const DeploymentOptions& o) {
  PartDtypes t;
  t.q = o.weight_dtype;
  t.keep = dtype_bits(t.q) >= 16 ? t.q : Dtype::kBf16;  // 16-bit parts of a quantized checkpoint
  const std::optional<CheckpointQuant>& cq = m.quant;
  auto part = [&](bool quantized, const std::optional<Dtype>& own) {
    if (!cq || !quantized) return cq ? t.keep : t.q;
    return own && t.q == cq->dtype ? *own : t.q;
  };
  if (cq) {
    t.attention = part(cq->attention, cq->attention_dtype);
    t.mlp = part(cq->mlp, cq->mlp_dtype);
    t.experts = part(cq->experts, cq->experts_dtype);
    t.recurrent = part(cq->recurrent, cq->recurrent_dtype);
  } else {
    t.attention = t.mlp = t.experts = t.recurrent = t.q;
  }
  t.uniform = t.attention == t.q && t.mlp == t.q && t.experts == t.q && t.recurrent == t.q;
  t.blocks = o.fp8_block_scales || (cq && cq->block_scales && t.q == Dtype::kFp8);
  t.group_size = cq && cq->group_size > 0 && t.q == cq->dtype ? cq->group_size : o.quant_group_size;
  return t;
}

// Bytes of one stage's parameters stored as `t` says, the block matrices' group scales included (the
// towers and a draft apart). Sets *overflow when a sum does not fit.
WeightShard stage_bytes(const StageParams& sp, const PartDtypes& t, bool* overflow) {
  auto scales_in = [&](Exact params, Dtype d) { return group_scale_bytes(params, d, t.group_size, t.blocks); };
  const Exact e = element_bytes(sp.emb, t.keep), lm = element_bytes(sp.lm_head, t.keep),
              a = element_bytes(sp.attn, t.attention), f = element_bytes(sp.mlp, t.mlp),
              x = element_bytes(sp.experts, t.experts), ot = element_bytes(sp.other, t.keep),
              r = element_bytes(sp.rec, t.recurrent),
              sc = t.uniform ? scales_in(sp.attn + sp.mlp + sp.experts + sp.rec, t.q)
                             : scales_in(sp.attn, t.attention) + scales_in(sp.mlp, t.mlp) +
                                   scales_in(sp.experts, t.experts) + scales_in(sp.rec, t.recurrent);
  if ((e + lm + a + f + x + ot + r + sc).overflow()) *overflow = true;
  WeightShard w;
  w = {e.value(), lm.value(), a.value(), f.value(), x.value(), ot.value(), sc.value(), r.value()};
  return w;
}

// Bytes of the values of `params` stored in `t` (their scales are the shard's `scales`).
Exact bytes_of(Exact params, Dtype t) { return element_bytes(params, t); }

Status check_split(const ModelSpec& m, const Parallelism& s, int64_t redundant) {
  const struct {
    int64_t v;
    const char* field;
  } parts[] = {{s.tp, "tp"}, {s.pp, "pp"}, {s.ep, "ep"}, {s.dp, "dp"}, {s.attn_dp, "attn_dp"}};
  for (const auto& p : parts) {
    if (p.v < 1 || p.v > kMaxSplit) {
      return Status::InvalidArgument(p.field, "must be a whole number of GPUs from 1 to " + num(kMaxSplit) +
                                                  ", got " + num(p.v));
    }
  }
  if ((Exact(s.tp) * Exact(s.pp) * Exact(s.dp) * Exact(s.attn_dp)).overflow() || s.gpus() > kMaxSplit) {
    return Status::InvalidArgument("gpus", "tp x attn_dp x pp x dp must be at most " + num(kMaxSplit));
  }
  if (!s.dp_attention && s.attn_dp != 1) {
    return Status::InvalidArgument("attn_dp", "must be 1 unless dp_attention selects the layout, got " +
                                                  num(s.attn_dp));
  }
  if (s.dp_attention && s.pp != 1) {
    return Status::InvalidArgument("pp", "must be 1 under dp_attention (attention data-parallel, experts over the "
                                         "replica), got " + num(s.pp));
  }
  if (m.n_head % s.tp != 0) {
    return Status::InvalidArgument("tp", "must divide the " + num(m.n_head) + " attention heads (n_head), got " +
                                             num(s.tp));
  }
  if (!m.is_mla() && m.n_head_kv % s.tp != 0 && s.tp % m.n_head_kv != 0) {
    return Status::InvalidArgument("tp", "must divide the " + num(m.n_head_kv) +
                                             " KV heads (n_head_kv) or be a multiple of them, got " + num(s.tp));
  }
  if (m.count_layers().recurrent > 0 && m.n_ssm_head % s.tp != 0) {
    return Status::InvalidArgument("tp", "must divide the " + num(m.n_ssm_head) +
                                             " recurrent-mixer heads (n_ssm_head), got " + num(s.tp));
  }
  if (m.n_layer % s.pp != 0) {
    return Status::InvalidArgument("pp", "must divide the " + num(m.n_layer) + " layers (n_layer), got " +
                                             num(s.pp));
  }
  if (redundant < 0 || redundant > kMaxSplit) {
    return Status::InvalidArgument("redundant_experts", "must be a whole number of expert slots from 0 to " +
                                                            num(kMaxSplit) + ", got " + num(redundant));
  }
  if (redundant > 0 && s.ep == 1) {
    return Status::InvalidArgument("redundant_experts", "needs expert parallelism (ep > 1): replicas of hot experts "
                                                        "balance EP ranks");
  }
  if (s.ep > 1) {
    if (m.n_expert == 0) {
      return Status::InvalidArgument("ep", "must be 1: the model has no routed experts, got " + num(s.ep));
    }
    const int64_t group = s.moe_group();
    if (group % s.ep != 0) {
      return Status::InvalidArgument(
          "ep", "must divide the " + num(group) +
                    (s.dp_attention ? " GPUs of the replica (experts are spread over all of them), got "
                                    : " GPUs of the tensor-parallel group (tp: experts are spread inside it), got ") +
                    num(s.ep));
    }
    if (redundant > 0 && m.n_expert % s.ep == 0 && redundant % s.ep != 0) {  // the slots added are at fault
      return Status::InvalidArgument("redundant_experts", "must keep the expert slots (" + num(m.n_expert) + " + " +
                                                              num(redundant) + ") a multiple of ep (" + num(s.ep) +
                                                              "): a multiple of " + num(s.ep) + ", got " +
                                                              num(redundant));
    }
    if ((m.n_expert + redundant) % s.ep != 0) {
      return Status::InvalidArgument("ep", "must divide the " + num(m.n_expert + redundant) +
                                               " expert slots (n_expert" +
                                               (redundant > 0 ? " + " + num(redundant) + " redundant" : "") +
                                               "), got " + num(s.ep));
    }
  }
  return Status::Ok();
}

// Expected largest of n independent standard normals, by Blom's approximation
// Phi^-1((n - 0.375) / (n + 0.25)) (within 5 % of the exact value for n >= 2;
// 0 for n = 1). Phi^-1 by Acklam's rational approximation (relative error
// below 1.2e-9).
double expected_max_normal(int64_t n) {
  if (n <= 1) return 0.0;
  const double p = (static_cast<double>(n) - 0.375) / (static_cast<double>(n) + 0.25);
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549671010114782e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double kHigh = 1 - 0.02425;
  if (p <= kHigh) {  // p >= 0.5 here: the central region
    const double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double q = std::sqrt(-2 * std::log(1 - p));
  return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
         ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
}

// Expected distinct groups hit when k of E experts are drawn without
// replacement and the experts sit in `groups` equal groups:
// groups x (1 - C(E - E/groups, k) / C(E, k)).
double expected_groups_hit(double experts, double k, double groups) {
  if (groups <= 1) return 1.0;
  const double per = experts / groups;
  double miss = 1.0;  // P(a given group is missed) = prod_{i<k} (E - per - i) / (E - i)
  for (int64_t i = 0; i < static_cast<int64_t>(k); ++i) {
    const double num_left = experts - per - static_cast<double>(i);
    if (num_left <= 0) {
      miss = 0;
      break;
    }
    miss *= num_left / (experts - static_cast<double>(i));
  }
  return groups * (1 - miss);
}

}  // namespace

Status check_layout_options(const ModelSpec& m, const DeploymentOptions& o) {
  if (!(o.expert_imbalance >= 1 && o.expert_imbalance <= 64)) {
    return Status::InvalidArgument("expert_imbalance",
                                   "must be a factor from 1 (balanced) to 64: the busiest EP rank's routed tokens "
                                   "over the mean");
  }
  const SpeculativeDecoding& sp = o.spec;
  if (sp.method != SpecMethod::kNone || sp.tokens != 0) {
    if (sp.method == SpecMethod::kNone) {
      return Status::InvalidArgument("spec_method", "speculative decoding needs a drafter: the model's MTP module "
                                                    "(mtp) or a draft model");
    }
    if (sp.tokens < 1 || sp.tokens > 64) {
      return Status::InvalidArgument("spec_tokens", "must be a whole number of draft tokens from 1 to 64, got " +
                                                        num(sp.tokens));
    }
    if (!(sp.acceptance >= 0 && sp.acceptance <= 1)) {
      return Status::InvalidArgument("spec_acceptance", "must be a probability in [0, 1]");
    }
    if (sp.method == SpecMethod::kMtp && !(m.params_mtp && *m.params_mtp > 0)) {
      return Status::InvalidArgument("spec_method", "mtp needs the model's multi-token-prediction module; " + m.name +
                                                        " has none (num_nextn_predict_layers)");
    }
    if (sp.method == SpecMethod::kDraftModel) {
      if (sp.draft == nullptr) return Status::InvalidArgument("draft_model", "no draft model given");
      MC_RETURN_IF_ERROR(validate(*sp.draft));
      if (sp.draft->n_expert > 0) {
        return Status::InvalidArgument("draft_model", "a draft with routed experts is not modelled; use a dense draft");
      }
      if (sp.draft->is_hybrid() || sp.draft->is_mla()) {
        return Status::InvalidArgument("draft_model", "the draft must be a plain attention model (no MLA, windows "
                                                      "or recurrent layers)");
      }
      if (sp.draft->n_vocab != m.n_vocab) {
        return Status::InvalidArgument("draft_model", "the draft's vocabulary (" + num(sp.draft->n_vocab) +
                                                          ") must be the model's (" + num(m.n_vocab) + ")");
      }
      if (sp.draft->n_head % o.split.tp != 0 ||
          (sp.draft->n_head_kv % o.split.tp != 0 && o.split.tp % sp.draft->n_head_kv != 0)) {
        return Status::InvalidArgument("draft_model", "its heads must split over tp " + num(o.split.tp) +
                                                          " as the model's do");
      }
    }
  }
  if (!(o.prefix.hit >= 0 && o.prefix.hit < 1)) {
    return Status::InvalidArgument("prefix_hit", "must be a fraction in [0, 1) of each prompt found cached");
  }
  if (o.prefix.shared_tokens < 0 || o.prefix.shared_tokens > kMaxWorkload) {
    return Status::InvalidArgument("prefix_tokens", "must be a whole number of tokens from 0 to " +
                                                        num(kMaxWorkload));
  }
  return Status::Ok();
}

Result<WeightShard> model_weights(const ModelSpec& m, const DeploymentOptions& o) {
  MC_RETURN_IF_ERROR(validate(m));
  if (o.quant_group_size < 1) {
    return Status::InvalidArgument("quant_group_size", "must be a positive number of weights per scale, got " +
                                                           num(o.quant_group_size));
  }
  MC_ASSIGN_OR_RETURN(const ParamBreakdown p, param_breakdown(m));
  const PartDtypes wt = part_dtypes(m, o);
  const Exact expert_biases = Exact(m.n_expert_bias) * Exact(m.n_expert) * Exact(m.count_layers().moe);
  StageParams sp;
  sp.emb = Exact(p.embeddings) + Exact(p.position);
  sp.lm_head = Exact(p.lm_head);
  sp.attn = Exact(p.attention);
  sp.rec = Exact(p.recurrent);
  sp.mlp = Exact(p.mlp_dense) + Exact(p.mlp_shared);
  sp.experts = Exact(p.mlp_routed) - expert_biases;
  sp.other = Exact(p.norms) + Exact(p.biases) + Exact(p.router) + expert_biases;
  bool overflow = false;
  WeightShard w = stage_bytes(sp, wt, &overflow);
  const Exact vision = bytes_of(Exact(m.params_vision.value_or(0)), wt.keep),
              audio = bytes_of(Exact(m.params_audio.value_or(0)), wt.keep);
  if (overflow || (Exact(w.total()) + vision + audio).overflow()) {  // w.total(): stage_bytes checked its sum
    return Status::Overflow("model shape");
  }
  w.vision = vision.value();
  w.audio = audio.value();
  return w;
}

Result<PreparedDeployment> prepare_deployment(const ModelSpec& m, const GpuSpec& gpu,
                                              const DeploymentOptions& o) {
  MC_RETURN_IF_ERROR(validate(m));
  MC_RETURN_IF_ERROR(check_split(m, o.split, o.redundant_experts));
  MC_RETURN_IF_ERROR(check_layout_options(m, o));
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
  if (o.workspace_bytes && !(*o.workspace_bytes < gpu.capacity_bytes)) {
    return Status::InvalidArgument("workspace_bytes", "must be less than one GPU's capacity (" +
                                                          error_number(gpu.capacity_bytes) + " B), got " +
                                                          error_number(*o.workspace_bytes) + " B");
  }
  PreparedDeployment d;
  d.split = o.split;
  d.weight_dtype = o.weight_dtype;
  d.compute_dtype = o.compute_dtype.value_or(default_compute_dtype(o.weight_dtype, gpu));
  d.kv_dtype = o.kv_dtype.value_or(default_kv_dtype(m, o.weight_dtype));
  d.state_dtype = o.state_dtype.value_or(default_state_dtype(o.weight_dtype));
  d.ssm_state_dtype = o.state_dtype.value_or(default_ssm_state_dtype(m, o.weight_dtype));
  MC_RETURN_IF_ERROR(check_kv_dtype(d.kv_dtype, "kv_dtype"));
  d.quant_group_size = o.quant_group_size;
  d.fp8_block_scales = o.fp8_block_scales;
  d.reserve_fraction = o.reserve_fraction;
  d.workspace_bytes = workspace;
  d.peak_flops = gpu.peak_flops(d.compute_dtype);
  d.peak_flops_16bit = gpu.peak_bf16_flops > 0 ? gpu.peak_bf16_flops : d.peak_flops;
  d.arch = gpu_arch(gpu);
  if (!(d.peak_flops > 0)) {
    return Status::InvalidArgument(
        "compute_dtype", "'" + gpu.name + "' has no " + std::string(dtype_name(d.compute_dtype)) +
                             " peak in the catalog; choose a compute dtype it runs (bf16, fp8, int8, nvfp4 where listed)");
  }
  const int64_t tp = o.split.tp, pp = o.split.pp, moe_group = o.split.moe_group();
  if ((tp > 1 || pp > 1 || moe_group > 1) && !(gpu.link_bytes_per_s > 0 && gpu.scaleout_bytes_per_s > 0)) {
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
  d.scaleout_bytes_per_s = gpu.scaleout_bytes_per_s;
  d.scaleout_latency_s = gpu.scaleout_latency_s;
  d.memory_budget = d.capacity_bytes * (1 - o.reserve_fraction) - workspace;

  auto pr = param_breakdown(m);
  if (!pr.ok()) return pr.status();
  const ParamBreakdown& p = *pr;

  // ---- per-layer parameter classes, per rank
  const int64_t L = m.n_layer, d_model = m.n_embd;
  const LayerCounts all = m.count_layers();
  const int64_t n_moe = all.moe, n_dense = all.dense, n_attn = all.attending(), n_rec = all.recurrent;
  const int64_t dk = m.n_embd_head_k > 0 ? m.n_embd_head_k : m.n_embd_head;
  const int64_t dv = m.n_embd_head_v > 0 ? m.n_embd_head_v : m.n_embd_head;
  const Exact attn_layer = n_attn > 0 ? ceil_div(Exact(p.attention), n_attn) : Exact(0);
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
  d.kv_unique_elems_per_layer = m.is_mla() ? d.kv_elems_per_layer : m.n_head_kv * (dk + dv);
  d.index_elems_per_layer = m.n_embd_head_index;  // one key per token, whole on every rank
  d.index_topk = m.n_index_topk;
  const Exact sharded_struct = m.is_mla() ? attn_repl : attn_kv_struct;
  const Exact attn_sharded =
      attn_layer.value() > sharded_struct.value() ? attn_layer - sharded_struct : Exact(0);
  const Exact attn_rank = n_attn > 0 ? ceil_div(attn_sharded, tp) + attn_repl : Exact(0);  // per attention layer
  const Exact rec_rank = n_rec > 0 ? ceil_div(ceil_div(Exact(p.recurrent), n_rec), tp) : Exact(0);
  const Exact dense_ffn_rank = n_dense > 0 ? ceil_div(Exact(p.mlp_dense / n_dense), tp) : Exact(0);
  const Exact shared_rank = n_moe > 0 ? ceil_div(Exact(p.mlp_shared / n_moe), tp) : Exact(0);
  // Routed experts: (n_expert + redundant) slots per MoE layer over the MoE group's GPUs (ep ranks of
  // whole experts, each split expert_tp ways), so a GPU holds slots / moe_group experts' worth.
  const int64_t slots = m.n_expert + o.redundant_experts;
  const bool even_experts = n_moe > 0 && m.n_expert > 0 && (p.mlp_routed / n_moe) % m.n_expert == 0;
  const Exact routed_rank =
      n_moe == 0 ? Exact(0)
      : even_experts ? ceil_div(Exact(p.mlp_routed / n_moe / m.n_expert) * Exact(slots), moe_group)
                     : ceil_div(Exact(p.mlp_routed / n_moe), moe_group);
  // The experts' bias parameters a GPU holds per MoE layer (inside routed_rank).
  const Exact routed_bias_rank =
      n_moe == 0 || m.n_expert_bias == 0 ? Exact(0)
      : even_experts ? ceil_div(Exact(m.n_expert_bias) * Exact(slots), moe_group)
                     : ceil_div(Exact(m.n_expert_bias) * Exact(m.n_expert), moe_group);
  const Exact router_layer = n_moe > 0 ? Exact(p.router / n_moe) : Exact(0);
  const Exact norms_layer = ceil_div(Exact(p.norms), L);
  const Exact biases_rank = ceil_div(ceil_div(Exact(p.biases), L), tp);
  const Exact emb_rank = ceil_div(Exact(p.embeddings), tp);
  const Exact lm_rank_untied = ceil_div(Exact(p.lm_head), tp);

  // ---- the worst pipeline stage
  const PartDtypes wt = part_dtypes(m, o);
  const Dtype q = wt.q, keep = wt.keep, qa = wt.attention, qm = wt.mlp, qx = wt.experts, qr = wt.recurrent;
  const bool uniform = wt.uniform, blocks = wt.blocks;
  const int64_t group_size = wt.group_size;
  // The vision tower and projector: vLLM builds them with the language model (llama4's
  // Llama4ForConditionalGeneration.vision_model and multi_modal_projector, gemma3_mm.py's vision_tower,
  // mistral3.py's vision_tower and multi_modal_projector, qwen3_vl.py's visual) unless the model is served
  // language-model-only; their linears are tensor-parallel, they sit on the first stage, and quantized
  // checkpoints keep them 16-bit (ModelOpt and compressed-tensors exclude them).
  // The audio tower and embedder likewise (vLLM's gemma3n_mm.py builds audio_tower and embed_audio beside
  // the vision tower). Gemma 3n's towers are held whole on every GPU (ModelSpec::towers_whole).
  const int64_t tower_split = m.towers_whole ? 1 : tp;
  const Exact vision_bytes = bytes_of(ceil_div(Exact(m.params_vision.value_or(0)), tower_split), keep);
  const Exact audio_bytes = bytes_of(ceil_div(Exact(m.params_audio.value_or(0)), tower_split), keep);
  if (vision_bytes.overflow() || audio_bytes.overflow()) return Status::Overflow("model shape");
  const int64_t vision_rank = vision_bytes.value(), audio_rank = audio_bytes.value();
  d.fp8_block_scales = blocks;
  d.quant_group_size = group_size;
  d.checkpoint_quant = m.quant.has_value();
  d.attention_dtype = qa;
  d.mlp_dtype = qm;
  d.experts_dtype = qx;
  d.recurrent_dtype = qr;
  const int64_t Ls = L / pp;
  WeightShard worst;
  bool overflow = false;
  for (int64_t s = 0; s < pp; ++s) {
    const LayerCounts c = m.count_layers(s * Ls, (s + 1) * Ls);
    d.stage_swa_layers = std::max(d.stage_swa_layers, c.sliding);
    d.stage_full_layers = std::max(d.stage_full_layers, c.full);
    d.stage_chunked_layers = std::max(d.stage_chunked_layers, c.chunked);
    d.stage_recurrent_layers = std::max(d.stage_recurrent_layers, c.recurrent);
    StageParams sp;
    sp.attn = attn_rank * Exact(c.attending());
    sp.rec = rec_rank * Exact(c.recurrent);
    sp.mlp = dense_ffn_rank * Exact(c.dense) + shared_rank * Exact(c.moe);
    // The experts' biases (gpt-oss) are stored 16-bit beside their quantized matrices.
    sp.experts = (routed_rank - routed_bias_rank) * Exact(c.moe);
    sp.other = (norms_layer + biases_rank) * Exact(Ls) + (router_layer + routed_bias_rank) * Exact(c.moe);
    if (s == 0) sp.emb = emb_rank + Exact(p.position);
    if (s == pp - 1) {
      sp.lm_head = lm_rank_untied;
      // The last stage's copy of the tied table: the vocabulary's V x d (Gemma 3n's per-layer table stays).
      if (m.tied_embeddings && pp > 1) sp.lm_head += ceil_div(Exact(m.n_vocab) * Exact(m.n_embd), tp);
    }
    WeightShard w = stage_bytes(sp, wt, &overflow);
    if (s == 0) w.vision = vision_rank;
    if (s == 0) w.audio = audio_rank;
    if (s == 0 || w.total() > worst.total()) worst = w;
  }
  if (overflow) return Status::Overflow("model shape");
  d.weights = worst;
  d.kv_bits = dtype_bits(d.kv_dtype);
  d.n_swa = m.n_swa;
  d.n_chunk = m.n_chunk;
  d.state_bits = dtype_bits(d.state_dtype);
  d.ssm_state_bits = dtype_bits(d.ssm_state_dtype);
  const Exact state_rank = ceil_div(Exact(m.n_embd_s()) + Exact(m.n_embd_r()), tp);  // heads split over tp
  const Exact ssm_rank = ceil_div(Exact(m.n_embd_s()), tp);
  if (state_rank.overflow() || ssm_rank.overflow()) return Status::Overflow("model shape");
  d.state_elems_per_layer = n_rec > 0 ? state_rank.value() : 0;
  d.ssm_state_elems_per_layer = n_rec > 0 ? std::min(ssm_rank.value(), d.state_elems_per_layer) : 0;

  // ---- decode/prefill constants for one column of ranks (all pp stages)
  d.n_layer = L;
  d.n_swa_layers = all.sliding + all.shared_sliding;
  d.n_full_layers = all.full + all.shared_full;
  d.n_shared_full_layers = all.shared_full;
  d.n_shared_swa_layers = all.shared_sliding;
  d.n_chunked_layers = all.chunked;
  d.n_recurrent_layers = n_rec;
  d.n_moe_layers = n_moe;
  d.n_embd = d_model;
  const double kb = dtype_bytes(keep);
  // Bytes per parameter of a part in `t`: its bits, plus one scale_bits scale per group
  // (int4/int8: 16 bits per quant_group_size).
  const auto per_param = [&](Dtype t) {
    const double bits = static_cast<double>(dtype_bits(t)) / 8.0;
    const int64_t group = scale_group_elements(t, group_size, blocks);
    return bits + (group > 0 ? static_cast<double>(dtype_info(t).scale_bits) / 8.0 / static_cast<double>(group) : 0.0);
  };
  const double Ld = static_cast<double>(L);
  const double q_params = static_cast<double>(attn_rank.value()) * static_cast<double>(n_attn) +
                          static_cast<double>(rec_rank.value()) * static_cast<double>(n_rec) +
                          static_cast<double>(dense_ffn_rank.value()) * static_cast<double>(n_dense) +
                          static_cast<double>(shared_rank.value()) * static_cast<double>(n_moe);
  const double keep_params = static_cast<double>((norms_layer + biases_rank).value()) * Ld +
                             static_cast<double>(router_layer.value()) * static_cast<double>(n_moe);
  if (uniform) {
    d.dense_bytes = q_params * per_param(q) + keep_params * kb;
  } else {
    d.dense_bytes = static_cast<double>(attn_rank.value()) * static_cast<double>(n_attn) * per_param(qa) +
                    static_cast<double>(rec_rank.value()) * static_cast<double>(n_rec) * per_param(qr) +
                    (static_cast<double>(dense_ffn_rank.value()) * static_cast<double>(n_dense) +
                     static_cast<double>(shared_rank.value()) * static_cast<double>(n_moe)) *
                        per_param(qm) +
                    keep_params * kb;
  }
  d.n_expert = static_cast<double>(m.n_expert);
  d.n_expert_used = static_cast<double>(m.n_expert_used);
  const int64_t ep = o.split.ep;
  d.attn_dp = static_cast<double>(o.split.attn_dp);
  d.expert_slots = static_cast<double>(slots);
  d.expert_slots_per_rank = static_cast<double>(slots) / static_cast<double>(ep);
  d.expert_tp = static_cast<double>(moe_group / ep);
  d.redundant_experts = o.redundant_experts;
  // EPLB's redundant slots rebalance the stated imbalance (eplb.h); without them it stands as stated.
  d.expert_imbalance = ep > 1 ? eplb_imbalance(m.n_expert, o.redundant_experts, ep, o.expert_imbalance) : 1.0;
  d.ep_spread = expected_max_normal(ep);
  // One expert of one layer: its params, and the slice one GPU holds.
  const double expert_params =
      n_moe > 0 ? static_cast<double>(p.mlp_routed) / static_cast<double>(n_moe) / d.n_expert : 0.0;
  // Its matrices in the experts' dtype, its biases (gpt-oss) 16-bit.
  const double expert_bias = static_cast<double>(m.n_expert_bias);
  d.expert_bytes = ((expert_params - expert_bias) * per_param(qx) + expert_bias * kb) / d.expert_tp;
  d.expert_flops_per_routed_token = 2.0 * expert_params / d.expert_tp;
  const double lm_matrix = static_cast<double>(m.n_vocab) * static_cast<double>(d_model);
  d.lm_head_bytes = lm_matrix / static_cast<double>(tp) * kb;
  d.embedding_row_bytes = static_cast<double>(d_model) * kb / static_cast<double>(tp);
  const double router_flop_params = static_cast<double>(router_layer.value()) * static_cast<double>(n_moe);
  d.linear_flops_per_token = 2.0 * (q_params + router_flop_params);  // the routed experts: moe_rank_load
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
  // DSA: every index head scores every cached key (q.k over index_head_dim), split over tp.
  d.index_flops_per_key = 2.0 * static_cast<double>(m.n_index_head) * static_cast<double>(m.n_embd_head_index) /
                          static_cast<double>(tp);
  // Recurrent: the recurrence over the state plus the causal conv (one multiply-add per tap and channel).
  d.state_flops_per_token =
      n_rec > 0 ? (static_cast<double>(recurrent_flops_per_state_elem(m.recurrent)) * static_cast<double>(m.n_embd_s()) +
                   2.0 * static_cast<double>(m.n_ssm_conv) * static_cast<double>(m.n_ssm_conv_dim)) /
                      static_cast<double>(tp)
                : 0.0;
  d.act_bytes = dtype_bits(q) >= 32 ? 4.0 : 2.0;
  {
    const int64_t gk = m.ffn_gated ? 2 : 1;
    const int64_t moe_w = m.n_expert > 0 ? (m.n_expert_used * m.n_ff_exp + m.n_expert_shared * m.n_ff_shexp) * gk : 0;
    const double w_ffn = static_cast<double>(std::max(m.n_ff * gk, moe_w)) / static_cast<double>(tp);
    d.elementwise_bytes_per_token = Ld * (6.0 * static_cast<double>(d_model) + 1.5 * w_ffn) * d.act_bytes;
  }
  // One all-reduce per TP-sharded sublayer: the token mixer (attention and a parallel
  // recurrent mixer share one) and the FFN.
  const double sublayers = static_cast<double>((L - all.no_mixer) + (L - all.no_ffn));
  d.allreduces_per_layer = tp > 1 ? sublayers / Ld : 0.0;
  d.ring_factor = 2.0 * static_cast<double>(tp - 1) / static_cast<double>(tp);

  // ---- the all-to-all of the DP-attention layout: tokens live on their attention group, experts on the
  // whole replica. Per token a GPU sends (the group's tp GPUs share its tokens), one copy to each distinct
  // destination GPU (its k experts' EP ranks, each expert_tp slices wide), the sender's own excluded;
  // across fast domains one copy per distinct remote domain crosses the NIC (forwarded inside the domain
  // over the fast links, as DeepEP does). Dispatch in fp8 (+ one fp32 scale per 128) when the matmuls run
  // in fp8, combine in 16 bits (DeepSeek's inference overview).
  d.two_batch_overlap = o.two_batch_overlap;
  if (o.split.dp_attention && o.split.attn_dp > 1 && n_moe > 0) {
    d.a2a = true;
    const double G = static_cast<double>(moe_group);
    const double k = d.n_expert_used, E = d.n_expert;
    const double dest = expected_groups_hit(E, k, static_cast<double>(ep)) * d.expert_tp * (1 - 1 / G);
    const bool cross = moe_group > domain;
    d.a2a_link_copies = dest;
    if (cross) {
      const double domains = std::ceil(G / static_cast<double>(domain));
      d.a2a_nic_copies = expected_groups_hit(E, k, domains) * (1 - 1 / domains);
    }
    const double dm = static_cast<double>(d_model);
    d.a2a_dispatch_bytes = d.compute_dtype == Dtype::kFp8 ? dm * (1.0 + 4.0 / 128.0) : dm * d.act_bytes;
    d.a2a_combine_bytes = dm * d.act_bytes;
    d.a2a_link_bytes_per_s = gpu.link_bytes_per_s;
    d.a2a_nic_bytes_per_s = gpu.scaleout_bytes_per_s;
    d.a2a_latency_s = cross ? gpu.scaleout_latency_s : gpu.link_latency_s;
  }

  // ---- speculative decoding: the drafter's weights, cache and passes
  if (o.spec.on()) {
    d.spec_method = o.spec.method;
    d.spec_tokens = o.spec.tokens;
    d.spec_acceptance = o.spec.acceptance;
    d.spec_accepted = accepted_tokens_per_step(o.spec.tokens, o.spec.acceptance);
    DraftTerms& dr = d.draft;
    if (o.spec.method == SpecMethod::kMtp) {
      // One module of the model's last layer kind (attention, MoE or dense FFN as that layer has), sharing
      // the embedding and the lm_head (read again by each pass, held once), plus its projection of the
      // concatenated [embedding; hidden] (2d x d, split over tp) and its two input norms.
      const LayerKind last = m.layer(L - 1);
      const bool moe_last = last.ffn == Ffn::kMoe;
      const Exact eh = ceil_div(Exact(2 * d_model) * Exact(d_model), tp);
      auto scales_in = [&](Exact params, Dtype t) { return group_scale_bytes(params, t, group_size, blocks); };
      const Exact keep_parts = norms_layer + biases_rank + (moe_last ? router_layer : Exact(0)) + Exact(2 * d_model);
      const Exact held = bytes_of(attn_rank, qa) + bytes_of(moe_last ? shared_rank : dense_ffn_rank, qm) +
                         bytes_of(moe_last ? routed_rank : Exact(0), qx) + bytes_of(eh, qm) +
                         bytes_of(keep_parts, keep) + scales_in(attn_rank, qa) +
                         scales_in(moe_last ? shared_rank : dense_ffn_rank, qm) +
                         scales_in(moe_last ? routed_rank : Exact(0), qx) + scales_in(eh, qm);
      if (held.overflow()) return Status::Overflow("model shape");
      d.weights.draft = held.value();
      const double dense_params = static_cast<double>((attn_rank + (moe_last ? shared_rank : dense_ffn_rank) + eh).value());
      dr.weight_bytes = dense_params * per_param(qm) + static_cast<double>(keep_parts.value()) * kb + d.lm_head_bytes;
      dr.row_bytes = d.embedding_row_bytes;
      dr.flops_per_token = 2.0 * (dense_params + (moe_last ? static_cast<double>(router_layer.value()) : 0.0)) +
                           d.lm_head_flops_per_token;
      dr.moe_layers = moe_last ? 1.0 : 0.0;
      dr.kv_layers = last.attn == Attn::kNone ? 0.0 : 1.0;
      dr.kv_bytes_per_key = static_cast<double>(d.kv_elems_per_layer + d.index_elems_per_layer) *
                            static_cast<double>(d.kv_bits) / 8.0;
      dr.attn_flops_per_key = d.attn_flops_per_key_decode;
      dr.allreduces = tp > 1 ? 2.0 : 0.0;
      dr.kv_per_token_memory = static_cast<int64_t>(
          ceil_div(Exact(dr.kv_layers > 0 ? d.kv_elems_per_layer + d.index_elems_per_layer : 0) * Exact(d.kv_bits), 8)
              .value());
    } else {
      // A dense draft model on the same GPUs, split over the same tp, in its own checkpoint's dtype (else
      // the model's), its cache in the model's KV dtype.
      const ModelSpec& dm = *o.spec.draft;
      DeploymentOptions q_opt;
      q_opt.split.tp = tp;
      q_opt.weight_dtype = default_weight_dtype(dm, o.weight_dtype);
      q_opt.kv_dtype = d.kv_dtype;
      q_opt.compute_dtype = d.compute_dtype;
      q_opt.quant_group_size = o.quant_group_size;
      auto qd = prepare_deployment(dm, gpu, q_opt);
      if (!qd.ok()) return Status::InvalidArgument("draft_model", qd.status().message());
      d.weights.draft = qd->weights.total();
      dr.weight_bytes = qd->dense_bytes + qd->lm_head_bytes;
      dr.row_bytes = qd->embedding_row_bytes;
      dr.flops_per_token = qd->linear_flops_per_token + qd->lm_head_flops_per_token;
      dr.kv_layers = static_cast<double>(qd->n_full_layers + qd->n_swa_layers + qd->n_chunked_layers);
      dr.kv_bytes_per_key = static_cast<double>(qd->kv_elems_per_layer) * static_cast<double>(qd->kv_bits) / 8.0;
      dr.attn_flops_per_key = qd->attn_flops_per_key_decode;
      dr.allreduces = static_cast<double>(qd->n_layer) * qd->allreduces_per_layer;
      dr.kv_per_token_memory = static_cast<int64_t>(
          ceil_div(Exact(qd->kv_elems_per_layer) * Exact(qd->n_full_layers + qd->n_swa_layers + qd->n_chunked_layers) *
                       Exact(qd->kv_bits),
                   8)
              .value());
    }
  }
  d.prefix_hit = o.prefix.hit;
  d.prefix_shared_tokens = o.prefix.shared_tokens;
  return d;
}

namespace {

// Token-layers of KV held at a context of `ctx` over full, sliding and chunked
// layers (a window or a chunk holds at most its length: kv_kept_tokens, exact).
Exact kv_tokens(int64_t full, int64_t swa, int64_t window, int64_t chunked, int64_t chunk, int64_t ctx) {
  const double c = static_cast<double>(ctx);
  const Exact held = Exact(full) * Exact(ctx) + Exact(swa) * Exact(static_cast<int64_t>(kv_kept_tokens(c, window, 1)));
  if (chunked == 0) return held;
  return held + Exact(chunked) * Exact(static_cast<int64_t>(kv_kept_tokens(c, chunk, 1)));
}

// KV bytes one sequence of `ctx` tokens holds on one rank of the worst stage:
// the attention latents or K/V, plus a DSA indexer's keys on the full layers.
Exact kv_stage_bytes(const PreparedDeployment& d, int64_t ctx) {
  const Exact kv = Exact(d.kv_elems_per_layer) * kv_tokens(d.stage_full_layers, d.stage_swa_layers, d.n_swa,
                                                           d.stage_chunked_layers, d.n_chunk, ctx);
  if (d.index_elems_per_layer == 0) return ceil_div(kv * Exact(d.kv_bits), 8);
  const Exact index = Exact(d.index_elems_per_layer) * Exact(d.stage_full_layers) * Exact(ctx);
  return ceil_div((kv + index) * Exact(d.kv_bits), 8);
}

// Keys a causal prefill of P tokens attends to in one layer: sum over t of
// min(t, window) (the whole triangle when there is no window).
double causal_keys(double P, double window) {
  if (window <= 0 || P <= window) return P * (P + 1) / 2;
  return window * (window + 1) / 2 + (P - window) * window;
}

// The same within chunks of c tokens: token t attends to the ((t-1) mod c) + 1
// tokens of its chunk so far. P = n c + r: n c(c+1)/2 + r(r+1)/2.
double chunked_keys(double P, double c) {
  if (c <= 0 || P <= c) return P * (P + 1) / 2;
  const double n = std::floor(P / c), r = P - n * c;
  return n * c * (c + 1) / 2 + r * (r + 1) / 2;
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
  const int64_t stage_attn = d.stage_full_layers + d.stage_swa_layers + d.stage_chunked_layers;
  const Exact per_tok =
      d.index_elems_per_layer == 0
          ? ceil_div(Exact(d.kv_elems_per_layer) * Exact(stage_attn) * Exact(d.kv_bits), 8)
          : ceil_div((Exact(d.kv_elems_per_layer) * Exact(stage_attn) +
                      Exact(d.index_elems_per_layer) * Exact(d.stage_full_layers)) *
                         Exact(d.kv_bits),
                     8);
  // A shared prefix of S tokens: its full-layer KV (and indexer keys) held once per attention group;
  // each sequence keeps only the rest of its context there (windows and chunks keep their own tokens).
  const int64_t shared = std::min(d.prefix_shared_tokens, context);
  const Exact shared_bytes =
      shared == 0 ? Exact(0)
                  : ceil_div((Exact(d.kv_elems_per_layer) + Exact(d.index_elems_per_layer)) *
                                 Exact(d.stage_full_layers) * Exact(shared) * Exact(d.kv_bits),
                             8);
  const Exact per_seq_all = kv_stage_bytes(d, context);
  const Exact per_seq = shared == 0 ? per_seq_all
                        : per_seq_all.value() > shared_bytes.value() ? per_seq_all - shared_bytes
                                                                      : Exact(0);
  const Exact state_seq =
      d.stage_recurrent_layers == 0
          ? Exact(0)
          : ceil_div(state_bits_per_layer(d) * Exact(d.stage_recurrent_layers), 8);
  const Exact draft_seq = Exact(d.draft.kv_per_token_memory) * Exact(context);
  r.overflow = per_tok.overflow() || per_seq.overflow() || state_seq.overflow() || shared_bytes.overflow() ||
               draft_seq.overflow();
  mem.kv_per_token = per_tok.value();
  mem.kv_per_sequence = per_seq.value();
  mem.state_per_sequence = state_seq.value();
  mem.draft_kv_per_sequence = draft_seq.value();
  mem.shared_prefix = shared_bytes.value();
  mem.free_for_kv = d.memory_budget - static_cast<double>(d.weights.total());
  const Exact fit = max_batch_by_capacity(mem.free_for_kv, static_cast<double>(mem.shared_prefix),
                                          static_cast<double>(mem.kv_per_sequence) +
                                              static_cast<double>(mem.state_per_sequence) +
                                              static_cast<double>(mem.draft_kv_per_sequence));
  const Exact groups = fit * Exact(static_cast<int64_t>(d.attn_dp));
  r.overflow = r.overflow || groups.overflow();  // a count beyond int64 is an error, never a wrapped number
  mem.max_sequences = groups.value();

  // ---- decode step: the one function a sweep's batch loop calls too
  r.decode.context = context;
  r.decode.ridge = d.peak_flops / d.bandwidth;
  evaluate_decode_step(d, batch, expected_experts_touched(d.n_expert, d.n_expert_used, B), &r);

  // ---- prefill of one prompt (on one attention group; its routed experts over the whole MoE group).
  // Cached prompt tokens (prefix caching: the hit share, or a shared prefix) are not computed; the
  // computed ones still attend to them.
  Prefill& pf = r.prefill;
  const int64_t P = prompt > 0 ? prompt : context;
  const int64_t cached = prefill_cached_tokens(d, P);
  const double Pd = static_cast<double>(P), Cd = static_cast<double>(P - cached), cd = static_cast<double>(cached);
  pf.prompt_tokens = P;
  pf.cached_tokens = cached;
  const double kv_bytes_per_key_layer = static_cast<double>(d.kv_elems_per_layer) * static_cast<double>(d.kv_bits) / 8.0;
  const double index_bytes_per_key_layer =
      static_cast<double>(d.index_elems_per_layer) * static_cast<double>(d.kv_bits) / 8.0;
  const double moe = static_cast<double>(d.n_moe_layers);
  const double full = static_cast<double>(d.n_full_layers);
  const double n_ar = static_cast<double>(d.n_layer) * d.allreduces_per_layer;
  const double topk = static_cast<double>(d.index_topk), win = static_cast<double>(d.n_swa);
  double keys = full * (causal_keys(Pd, topk) - causal_keys(cd, topk)) +
                static_cast<double>(d.n_swa_layers) * (causal_keys(Pd, win) - causal_keys(cd, win));
  if (d.n_chunked_layers > 0) {
    const double ch = static_cast<double>(d.n_chunk);
    keys += static_cast<double>(d.n_chunked_layers) * (chunked_keys(Pd, ch) - chunked_keys(cd, ch));
  }
  const double index_keys = d.index_elems_per_layer > 0 ? full * (causal_keys(Pd, 0) - causal_keys(cd, 0)) : 0.0;
  pf.attention_flops = (keys * d.attn_flops_per_key_prefill + index_keys * d.index_flops_per_key) / pp;
  pf.recurrent_flops = Cd * static_cast<double>(d.n_recurrent_layers) * d.state_flops_per_token / pp;
  const MoeLoad load = moe_rank_load(d, Cd);
  const double draft_flops = d.spec_tokens > 0 ? Cd * d.draft.flops_per_token : 0.0;  // the drafter reads the prompt
  pf.flops = (Cd * d.linear_flops_per_token + moe * load.routed * d.expert_flops_per_routed_token +
              d.lm_head_flops_per_token + draft_flops) / pp +
             pf.attention_flops + pf.recurrent_flops;
  const double p_window = static_cast<double>(d.n_swa > 0 && P > d.n_swa ? d.n_swa : P);
  const double p_chunk = static_cast<double>(d.n_chunk > 0 && P > d.n_chunk ? d.n_chunk : P);
  // Written only by the layers that hold their KV.
  const double kv_written =
      ((full - static_cast<double>(d.n_shared_full_layers)) * Cd +
       static_cast<double>(d.n_swa_layers - d.n_shared_swa_layers) * std::min(Cd, p_window) +
       static_cast<double>(d.n_chunked_layers) * std::min(Cd, p_chunk)) * kv_bytes_per_key_layer +
      full * Cd * index_bytes_per_key_layer;
  // The recurrent state is written once, after the prompt.
  const double state_written =
      static_cast<double>(d.n_recurrent_layers) * static_cast<double>(state_bits_per_layer(d).value()) / 8.0;
  const double draft_bytes = d.spec_tokens > 0 ? d.draft.weight_bytes + Cd * static_cast<double>(d.draft.kv_per_token_memory) : 0.0;
  pf.bytes = (d.dense_bytes + moe * load.experts_read * d.expert_bytes + d.lm_head_bytes + Cd * d.embedding_row_bytes +
              kv_written + state_written + draft_bytes) / pp;
  pf.compute_seconds = pp * pf.flops / d.peak_flops;
  pf.memory_seconds = pp * pf.bytes / d.bandwidth;
  const double pmsg = Cd * static_cast<double>(d.n_embd) * d.act_bytes;
  // The prompt's tokens are on one attention group: its tp GPUs send them to the experts.
  pf.a2a_seconds = a2a_seconds(d, moe, Cd / static_cast<double>(d.split.tp), load.ratio);
  pf.comm_seconds = (d.split.tp > 1 ? n_ar * (d.ring_factor * pmsg / d.tp_link_bytes_per_s + d.tp_latency_s) : 0) +
                    (d.split.pp > 1 ? (pp - 1) * (pmsg / d.pp_link_bytes_per_s + d.pp_latency_s) : 0) +
                    pf.a2a_seconds;
  const double busy = std::max(pf.compute_seconds, pf.memory_seconds);
  pf.seconds = d.two_batch_overlap ? std::max(busy, pf.a2a_seconds) + pf.comm_seconds - pf.a2a_seconds
                                   : busy + pf.comm_seconds;
  return r;
}

int64_t prefill_cached_tokens(const PreparedDeployment& d, int64_t prompt) {
  const double by_hit = std::floor(d.prefix_hit * static_cast<double>(prompt));
  const int64_t hit = static_cast<int64_t>(by_hit);
  // At least one token is computed: the one whose logits give the first output token.
  return std::min(prompt - 1, std::max(hit, std::min(d.prefix_shared_tokens, prompt)));
}

Status check_prefix_tokens(int64_t shared_tokens, int64_t prompt, std::string_view prompt_is) {
  if (shared_tokens < prompt) return Status::Ok();
  return Status::InvalidArgument("prefix_tokens", "must be below " + std::string(prompt_is) + " (" + num(prompt) +
                                                      " tokens), of which it is part: 0 to " + num(prompt - 1) +
                                                      ", got " + num(shared_tokens));
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
  MC_RETURN_IF_ERROR(check_prefix_tokens(d.prefix_shared_tokens, prompt > 0 ? prompt : context,
                                         prompt > 0 ? "the prompt" : "the prompt, the whole context here"));
  if (kv_stage_bytes(d, context).overflow()) return Status::Overflow("context");
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
