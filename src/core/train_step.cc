// The hot path of the training engine (evaluate_training), its batch checks,
// the DP collectives, the step analysis and the compiled-in profile.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "embedded_data.h"
#include "modelcalc/training.h"
#include "train_layers.h"
#include "tsv.h"

namespace modelcalc {

namespace {

double d(int64_t v) { return static_cast<double>(v); }
std::string num(int64_t v) { return std::to_string(v); }

struct LinkUse {
  double rate = 0, latency = 0;
};
// A group of n ranks `stride` apart: inside the fast domain when stride x n fits.
LinkUse pick(const PreparedTraining& p, int64_t stride, int64_t n) {
  if (stride * n <= p.domain_gpus) return {p.link_rate, p.link_latency};
  return {p.scaleout_rate, p.scaleout_latency};
}

// The DP collectives of one step for the stage with the most parameters:
// wire bytes and seconds, and how much of them the step can hide.
struct DpTraffic {
  double wire = 0;           // bytes per GPU per step
  double seconds = 0;        // all of it, back to back
  double exposed = 0;        // what the step waits for
};

DpTraffic dp_traffic(const PreparedTraining& p, int64_t dp, int64_t m, int zero) {
  const TrainOptions& o = p.options;
  DpTraffic t;
  const double dd = d(dp) * d(o.layout.cp), de = dd / d(o.layout.ep);
  if (dd <= 1) return t;
  const PreparedStage& s = p.stages[static_cast<size_t>(p.most_params_stage)];
  const double bg = d(p.bytes_per_param.gradients), bw = d(p.bytes_per_param.weights);
  const double G = bg * s.dense_params, W = bw * s.dense_params;
  const double Ge = bg * s.expert_params, We = bw * s.expert_params;
  // Megatron's order tp-cp-ep-dp-pp: the dp x cp group is tp apart.
  const LinkUse link = pick(p, o.layout.tp, dp * o.layout.cp);
  const double M = d(m);
  double grads_once = 0, grads_each = 0, weights_once = 0, weights_each = 0;  // wire bytes
  double calls = 0;
  switch (zero) {
    case 0:
      grads_once = allreduce_wire_bytes(G, dd) + allreduce_wire_bytes(Ge, de);
      calls = 1;
      break;
    case 1:
      grads_once = gather_wire_bytes(G, dd) + gather_wire_bytes(Ge, de);
      weights_once = gather_wire_bytes(W, dd) + gather_wire_bytes(We, de);
      calls = 2;
      break;
    case 2:
      grads_each = gather_wire_bytes(G, dd) + gather_wire_bytes(Ge, de);
      weights_once = gather_wire_bytes(W, dd) + gather_wire_bytes(We, de);
      calls = M + 1;
      break;
    default:  // 3: gather the weights for every forward and backward, reduce every micro-batch's gradients
      grads_each = gather_wire_bytes(G, dd) + gather_wire_bytes(Ge, de);
      weights_each = 2.0 * (gather_wire_bytes(W, dd) + gather_wire_bytes(We, de));
      calls = 3 * M;
      break;
  }
  t.wire = grads_once + weights_once + M * (grads_each + weights_each);
  t.seconds = t.wire / link.rate + calls * link.latency;
  if (!o.overlap_dp) {
    t.exposed = t.seconds;
    return t;
  }
  // Overlapped (on their own streams): the once-a-step reduction behind the
  // last micro-batch's backward (2/3 of its compute), the once-a-step gather
  // behind the first forward (1/3), each micro-batch's traffic behind its own
  // forward and backward; only the excess is exposed.
  const double busy = s.t_compute + s.t_memory;
  auto over = [](double c, double window) { return c > window ? c - window : 0.0; };
  const double rs_once = grads_once / link.rate, ag_once = weights_once / link.rate;
  const double each = (grads_each + weights_each) / link.rate;
  t.exposed = over(rs_once, busy * 2.0 / 3.0) + over(ag_once, busy / 3.0) + M * over(each, busy) + calls * link.latency;
  return t;
}

}  // namespace

Status check_training_batch(const PreparedTraining& p, int64_t dp, int64_t gb, int zero) {
  const TrainOptions& o = p.options;
  if (zero < 0 || zero > 3) return Status::InvalidArgument("zero", "must be a ZeRO stage 0, 1, 2 or 3");
  if (dp < 1 || dp > (int64_t{1} << 20)) return Status::InvalidArgument("dp", "must be a whole number from 1 to 2^20");
  const int64_t per_step = dp * o.micro_batch;
  if (gb < per_step) {
    return Status::InvalidArgument(
        "micro_batch", "x dp (" + num(o.micro_batch) + " x " + num(dp) + " = " + num(per_step) +
                           " sequences) must be at most the global batch (" + num(gb) + ")");
  }
  if (gb % per_step != 0) {
    return Status::InvalidArgument("global_batch", "must be a multiple of micro_batch x dp (" + num(per_step) +
                                                       " sequences), got " + num(gb));
  }
  if ((dp * o.layout.cp) % o.layout.ep != 0) {
    return Status::InvalidArgument("ep", "must divide dp x cp (" + num(dp * o.layout.cp) +
                                             "): Megatron takes the expert-parallel ranks from the data-parallel "
                                             "group, got " + num(o.layout.ep));
  }
  if (dp > 1 && p.n_layer > 0 && !p.has_links) {
    return Status::InvalidArgument("gpu", "has no interconnect figures; data parallelism needs them");
  }
  const int64_t m = gb / per_step;
  const int64_t P = o.layout.pp, V = o.layout.virtual_stages, N = o.layout.microbatch_group;
  if (V > 1) {
    const bool given = p.options.layout.microbatch_group != P;
    if (N < P || N > m) {
      const char* field = given ? "microbatch_group" : "global_batch";
      return Status::InvalidArgument(
          field, "the interleaved schedule needs between pp (" + num(P) + ") and the micro-batches per step (" +
                     num(m) + ") micro-batches per group (Megatron's microbatch_group_size_per_vp_stage, default pp), "
                              "got a group of " + num(N));
    }
    if (m % N != 0 && m % N < P) {
      return Status::InvalidArgument("global_batch", "leaves " + num(m % N) + " micro-batches in the last group of " +
                                                         num(N) + ": Megatron needs 0 or at least pp (" + num(P) + ")");
    }
  }
  return Status::Ok();
}

double dp_wire_bytes_per_step(const PreparedTraining& p, int64_t dp, int64_t micro_batches, int zero) {
  return dp_traffic(p, dp, micro_batches, zero).wire;
}

TrainEval evaluate_training(const PreparedTraining& p, int64_t dp, int64_t gb, int zero) {
  const TrainOptions& o = p.options;
  const TrainLayout& lay = o.layout;
  TrainEval e;
  e.micro_batches = gb / (dp * o.micro_batch);
  const int64_t m = e.micro_batches, P = lay.pp;
  for (int64_t r = 0; r < P; ++r) {
    const double total = train_internal::stage_memory(p, r, dp, m, zero).total;
    if (total > e.peak_memory) {
      e.peak_memory = total;
      e.worst_stage = r;
    }
  }
  e.fits = e.peak_memory <= p.capacity;
  e.tokens = d(gb) * d(o.seq);
  if (p.n_layer == 0) return e;  // a bare parameter count: no time

  const PreparedStage& s = p.stages[static_cast<size_t>(p.slowest_stage)];
  const double M = d(m), V = d(lay.virtual_stages);
  double t_pp = 0;
  if (P > 1) {  // each rank sends its chunks' outputs forward and their gradients back: 2 v per micro-batch
    const LinkUse link = pick(p, lay.tp * lay.cp * dp, P);
    t_pp = 2.0 * V * collective_seconds(p.pp_message_bytes, link.rate, link.latency);
  }
  StepBreakdown& b = e.step;
  b.compute = M * s.t_compute;
  b.memory = M * s.t_memory;
  b.tp_comm = M * s.t_tp;
  b.cp_comm = M * s.t_cp;
  b.ep_comm = M * s.t_ep;
  b.pp_comm = M * t_pp;
  b.bubble = P > 1 ? d(P - 1) / V * (s.t_micro_batch + t_pp) : 0.0;
  b.dp_comm = dp_traffic(p, dp, m, zero).exposed;
  // The optimizer reads the gradients and writes the weights of its shard,
  // reading and writing the fp32 states: (b_g + 2 b_o + b_w) x params / HBM.
  const PreparedStage& big = p.stages[static_cast<size_t>(p.most_params_stage)];
  const double dd = d(dp) * d(lay.cp), de = dd / d(lay.ep);
  const double shard = zero >= 1 ? big.dense_params / dd + big.expert_params / de : big.dense_params + big.expert_params;
  const TrainBytesPerParam& bp = p.bytes_per_param;
  b.optimizer = shard * d(bp.gradients + 2 * bp.optimizer + bp.weights) / p.hbm_bytes_per_s;
  e.seconds = b.total();
  e.ceiling_seconds = p.peak_flops > 0 ? (M + d(P - 1) / V) * p.max_flops_executed / p.peak_flops : 0.0;
  const double gpus = d(lay.tp) * d(lay.pp) * d(lay.cp) * d(dp);
  if (e.seconds > 0 && p.peak_flops > 0) {
    e.mfu = p.flops_per_token.model * e.tokens / (e.seconds * gpus * p.peak_flops);
    e.hfu = p.flops_per_token.hardware * e.tokens / (e.seconds * gpus * p.peak_flops);
  }
  return e;
}

Result<TrainStepResult> analyze_train_step(const ModelSpec& m, const GpuSpec& gpu, const TrainOptions& o,
                                           const TrainProfile& profile) {
  if (!(gpu.peak_bf16_flops > 0)) {
    return Status::InvalidArgument("gpu", "'" + gpu.name + "' has no dense bf16 peak: the step time needs one");
  }
  if (!(gpu.bandwidth_bytes_per_s > 0)) return Status::InvalidArgument("gpu", "'" + gpu.name + "' needs a bandwidth");
  TrainStepResult r;
  MC_ASSIGN_OR_RETURN(r.prepared, prepare_training(m, gpu, o, profile));
  const int64_t dp = o.layout.dp;
  const int64_t gb = effective_global_batch(o);
  MC_RETURN_IF_ERROR(check_training_batch(r.prepared, dp, gb, o.zero));
  r.eval = evaluate_training(r.prepared, dp, gb, o.zero);
  r.gpus = o.layout.gpus();
  r.dp_wire_bytes = dp_wire_bytes_per_step(r.prepared, dp, r.eval.micro_batches, o.zero);
  r.days_per_token = r.eval.seconds / r.eval.tokens / 86400.0;
  return r;
}

// ---------------------------------------------------------------- profile

Result<TrainProfile> parse_train_profile(std::string_view tsv) {
  TrainProfile p;
  bool seen[4] = {false, false, false, false};
  TsvLines lines(tsv);
  for (std::string_view line; lines.next(&line);) {
    const int64_t line_no = lines.line_no();
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos) {
      return Status::InvalidArgument("profile", "line " + std::to_string(line_no) + " needs name<TAB>value");
    }
    const std::string_view name = line.substr(0, tab);
    std::string_view value = line.substr(tab + 1);
    const size_t tab2 = value.find('\t');  // a third column is a comment
    if (tab2 != std::string_view::npos) value = value.substr(0, tab2);
    double v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v)) {
      return Status::InvalidArgument("profile", "line " + std::to_string(line_no) + ": '" + std::string(value) +
                                                    "' is not a number");
    }
    double* field = name == "gemm_efficiency"        ? &p.gemm_efficiency
                    : name == "attention_efficiency" ? &p.attention_efficiency
                    : name == "hbm_traffic"          ? &p.hbm_traffic
                    : name == "link_efficiency"      ? &p.link_efficiency
                                                     : nullptr;
    if (field == nullptr) return Status::InvalidArgument("profile", "unknown parameter '" + std::string(name) + "'");
    const size_t i = field == &p.gemm_efficiency ? 0 : field == &p.attention_efficiency ? 1 : field == &p.hbm_traffic ? 2 : 3;
    if (seen[i]) return Status::InvalidArgument("profile", "'" + std::string(name) + "' given twice");
    seen[i] = true;
    *field = v;
  }
  if (!(seen[0] && seen[1] && seen[2] && seen[3])) {
    return Status::InvalidArgument("profile",
                                   "needs gemm_efficiency, attention_efficiency, hbm_traffic and link_efficiency");
  }
  if (!(p.gemm_efficiency > 0 && p.gemm_efficiency <= 1 && p.attention_efficiency > 0 &&
        p.attention_efficiency <= 1 && p.link_efficiency > 0 && p.link_efficiency <= 1 && p.hbm_traffic >= 0)) {
    return Status::InvalidArgument("profile", "efficiencies must be in (0, 1], the HBM traffic >= 0");
  }
  return p;
}

const TrainProfile& default_train_profile() {
  static const TrainProfile kProfile = parse_embedded_or_die("training-profile.tsv", parse_train_profile);
  return kProfile;
}

}  // namespace modelcalc
