#include "modelcalc/plan.h"
#include "modelcalc/engine_rules.h"
#include "plan_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace modelcalc {

PlanFigures plan_figures(const PlanConfig& c) {
  PlanFigures f;
  f.max_sequences = c.max_sequences;
  f.limit = c.limit;
  f.replicas = c.replicas;
  f.gpus = c.gpus;
  f.ttft_s = c.ttft_s;
  f.tpot_s = c.tpot_s;
  f.comm_s = c.comm_s;
  f.prefill_stall_per_token_s = c.prefill_stall_per_token_s;
  f.tokens_per_s_per_user = c.tokens_per_s_per_user;
  f.tokens_per_s_per_replica = c.tokens_per_s_per_replica;
  f.tokens_per_s_per_gpu = c.tokens_per_s_per_gpu;
  f.served_output_tokens_per_s = c.served_output_tokens_per_s;
  f.usd_per_hour = c.usd_per_hour;
  f.usd_per_million_output = c.usd_per_million_output;
  f.usd_per_million_input = c.usd_per_million_input;
  f.usd_per_million_blended = c.usd_per_million_blended;
  f.gpu_hours_per_million_output = c.gpu_hours_per_million_output;
  f.reason = c.reason;
  return f;
}

const char* plan_reason_name(PlanReason r) {
  switch (r) {
    case PlanReason::kOk: return "ok";
    case PlanReason::kMemory: return "memory";
    case PlanReason::kStepTokens: return "max_num_batched_tokens";
    case PlanReason::kMaxNumSeqs: return "max_num_seqs";
    case PlanReason::kTtft: return "ttft";
    case PlanReason::kTpot: return "tpot";
    case PlanReason::kCommunication: return "communication";
    case PlanReason::kGpus: return "gpus";
  }
  return "?";
}

PlanReason plan_capacity_reason(BatchLimit b) {
  switch (b) {
    case BatchLimit::kStepTokens: return PlanReason::kStepTokens;
    case BatchLimit::kMaxNumSeqs: return PlanReason::kMaxNumSeqs;
    case BatchLimit::kNone:
    case BatchLimit::kMemory: break;
  }
  return PlanReason::kMemory;
}

namespace {

// Above this many replicas the GPU limit is exceeded anyway; keeps counts in int64.
constexpr double kMaxReplicas = 1e15;

bool finite_positive(double v) { return std::isfinite(v) && v > 0; }

}  // namespace

Status check_plan(const PlanRequest& r, const PlanSpace& s) {
  if (r.isl < 1) return Status::InvalidArgument("isl", "must be a positive whole number of tokens");
  if (r.osl < 1) return Status::InvalidArgument("osl", "must be a positive whole number of tokens");
  if (r.isl > (int64_t{1} << 40) || r.osl > (int64_t{1} << 40) || r.isl + r.osl > (int64_t{1} << 40)) {
    return Status::InvalidArgument("isl", "isl + osl must be at most 2^40 tokens");
  }
  MC_RETURN_IF_ERROR(check_prefix_tokens(r.prefix.shared_tokens, r.isl, "isl, the prompt"));
  if (r.load_kind != PlanLoadKind::kNone && !finite_positive(r.load)) {
    return Status::InvalidArgument("load", "must be a positive finite rate");
  }
  if (r.ttft_s && !finite_positive(*r.ttft_s)) return Status::InvalidArgument("ttft", "must be a positive duration");
  if (r.tpot_s && !finite_positive(*r.tpot_s)) return Status::InvalidArgument("tpot", "must be a positive duration");
  if (!(r.efficiency > 0 && r.efficiency <= 1)) {
    return Status::InvalidArgument("efficiency", "must be in (0, 1]: the fraction of the modelled ceiling reached");
  }
  if (s.max_gpus < 1 || s.max_gpus > (int64_t{1} << 20)) {  // the range every GPU count has (--max-gpus)
    return Status::InvalidArgument("max_gpus", "must be between 1 and 1,048,576 (2^20)");
  }
  if (s.gpus.empty()) return Status::InvalidArgument("gpus", "no GPU kind to search (none has a price)");
  bool unpriced = false;
  for (const PlanGpu& g : s.gpus) {
    if (std::isnan(g.usd_per_hour)) {
      unpriced = true;
    } else if (!finite_positive(g.usd_per_hour)) {
      return Status::InvalidArgument("gpus", g.gpu.key + " has no positive price per GPU-hour");
    }
    if (g.domain_gpus < 1) return Status::InvalidArgument("gpus", g.gpu.key + " has no fast-domain size");
  }
  if (unpriced != s.rank_by_gpu_hours) {
    return Status::InvalidArgument("gpus", unpriced ? "a GPU has no price: rank by GPU-hours (rank_by_gpu_hours)"
                                                    : "every GPU has a price: rank_by_gpu_hours must be false");
  }
  if (s.batches.empty()) return Status::InvalidArgument("batches", "no batch size to search");
  for (int64_t b : s.batches) {
    if (b < 1 || b > (int64_t{1} << 30)) return Status::InvalidArgument("batches", "each must be in 1..2^30");
  }
  if (s.weight_dtypes.empty()) return Status::InvalidArgument("weight_dtypes", "no weight dtype to search");
  if (s.kv_dtypes.empty()) return Status::InvalidArgument("kv_dtypes", "no KV dtype to search");
  if (s.max_pp < 1) return Status::InvalidArgument("max_pp", "must be at least 1");
  return Status::Ok();
}

std::vector<PlanCandidate> enumerate_plan_candidates(const PlanSpace& s) {
  std::vector<PlanCandidate> out;
  for (size_t g = 0; g < s.gpus.size(); ++g) {
    const int64_t max_tp = std::min(s.gpus[g].domain_gpus, s.max_gpus);
    for (int64_t tp = 1; tp <= max_tp; tp *= 2) {
      if (s.n_head > 0 && s.n_head % tp != 0) continue;
      for (int64_t pp = 1; pp <= s.max_pp && tp * pp <= s.max_gpus; pp *= 2) {
        if (s.n_layer > 0 && s.n_layer % pp != 0) continue;
        // EP changes neither the shard nor the bytes read in the engine (docs/deployment-model.md): only
        // ep = 1 and, for a MoE, ep = tp are searched, not every divisor.
        int64_t eps[2] = {1, 0};
        if (s.n_expert > 0 && tp > 1 && s.n_expert % tp == 0) eps[1] = tp;
        const std::span<const int64_t> degrees = s.eps.empty() ? std::span<const int64_t>(eps) : s.eps;
        for (int64_t ep : degrees) {
          if (ep == 0 || tp % ep != 0 || (ep > 1 && (s.n_expert == 0 || s.n_expert % ep != 0))) continue;
          for (Dtype w : s.weight_dtypes) {
            for (Dtype kv : s.kv_dtypes) {
              if (kv == Dtype::kFp8 && s.fp8_kv_needs_fp8 && !(s.gpus[g].gpu.peak_fp8_flops > 0)) continue;
              out.push_back({g, tp, pp, ep, 1, w, kv});
            }
          }
        }
      }
    }
  }
  // The DP-attention layout for a model with routed experts: a replica of G GPUs (attention groups of one,
  // EP over all G), G = 8, 16, ... dividing the experts.
  if (s.dp_attention && s.n_expert > 0) {
    for (size_t g = 0; g < s.gpus.size(); ++g) {
      for (int64_t G = 8; G <= s.max_gpus && G <= s.n_expert; G *= 2) {
        if (s.n_expert % G != 0) continue;
        for (Dtype w : s.weight_dtypes) {
          for (Dtype kv : s.kv_dtypes) {
            if (kv == Dtype::kFp8 && s.fp8_kv_needs_fp8 && !(s.gpus[g].gpu.peak_fp8_flops > 0)) continue;
            out.push_back({g, 1, 1, G, G, w, kv});
          }
        }
      }
    }
  }
  return out;
}

int64_t plan_replicas(const PlanRequest& r, int64_t batch, double requests_per_s_per_replica) {
  double need = 1;
  switch (r.load_kind) {
    case PlanLoadKind::kNone: return 1;
    case PlanLoadKind::kRequestsPerS: need = r.load / requests_per_s_per_replica; break;
    case PlanLoadKind::kOutputTokensPerS:
      need = r.load / (requests_per_s_per_replica * static_cast<double>(r.osl));
      break;
    case PlanLoadKind::kConcurrency: need = r.load / static_cast<double>(batch); break;
  }
  if (!(need < kMaxReplicas)) return static_cast<int64_t>(kMaxReplicas);
  // A hair of tolerance so that 20 / (20 / 3) is 3 replicas, not 4.
  const double n = std::ceil(need * (1 - 1e-12));
  return std::max<int64_t>(1, static_cast<int64_t>(n));
}

double plan_users_per_replica(const PlanRequest& r, int64_t slots) {
  return r.load / static_cast<double>(plan_replicas(r, slots, 1.0));
}

void cost_plan_point(const PlanRequest& r, const PlanSpace& s, const PlanCandidate& c, int64_t batch,
                     const PlanPoint& p, PlanConfig* o) {
  const int64_t slots = batch;
  if (r.load_kind == PlanLoadKind::kConcurrency) {
    // `batch` slots per replica: ceil(C / batch) replicas, each holding its share of the users (every
    // one of them in a slot), which is the batch it must admit.
    const double share = plan_users_per_replica(r, slots);
    batch = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(share * (1 - 1e-12))));
  }
  const double eff = r.efficiency;
  const double osl = static_cast<double>(r.osl), isl = static_cast<double>(r.isl);
  const double b = static_cast<double>(batch);
  o->c = c;
  o->batch = batch;
  o->max_sequences = p.max_sequences;
  o->limit = p.limit;
  o->ttft_s = p.ttft_s / eff;
  o->tpot_s = p.tpot_s / eff;
  o->comm_s = p.comm_s / eff;
  o->prefill_stall_per_token_s = b * o->ttft_s / osl;
  o->tokens_per_s_per_user = 1 / o->tpot_s;
  // The engine's steady state (prefill batched into the steps), or a replica that completes `batch`
  // requests every osl x tpot + batch x ttft seconds (prefill in series).
  const double cycle = osl * o->tpot_s + b * o->ttft_s;
  const double requests_per_s = p.tokens_per_s > 0 ? p.tokens_per_s * eff / osl : b / cycle;
  if (p.tokens_per_s > 0) o->prefill_stall_per_token_s = 0;  // chunks inside the steps: TPOT holds them
  o->tokens_per_s_per_replica = requests_per_s * osl;
  const int64_t group = c.gpus_per_replica();
  o->replicas = plan_replicas(r, slots, requests_per_s);
  // group <= max_gpus <= 1e6: the product fits in int64 up to 1e12 replicas; beyond, it is over any limit.
  o->gpus = o->replicas <= 1'000'000'000'000 ? group * o->replicas : o->replicas;
  o->tokens_per_s_per_gpu = o->tokens_per_s_per_replica / static_cast<double>(group);
  switch (r.load_kind) {
    case PlanLoadKind::kNone:
      o->served_output_tokens_per_s = static_cast<double>(o->replicas) * o->tokens_per_s_per_replica;
      break;
    case PlanLoadKind::kRequestsPerS: o->served_output_tokens_per_s = r.load * osl; break;
    case PlanLoadKind::kOutputTokensPerS: o->served_output_tokens_per_s = r.load; break;
    case PlanLoadKind::kConcurrency:  // every replica runs its share of the users
      o->served_output_tokens_per_s = static_cast<double>(o->replicas) * o->tokens_per_s_per_replica;
      break;
  }
  const double price = s.gpus[c.gpu].usd_per_hour;
  o->usd_per_hour = static_cast<double>(o->gpus) * price;
  const double out_per_h = o->served_output_tokens_per_s * 3600;
  const double in_per_h = out_per_h * isl / osl;
  const double prefill_share = p.prefill_share >= 0 ? p.prefill_share : b * o->ttft_s / cycle;
  o->prefill_share = prefill_share;
  o->usd_per_million_output = o->usd_per_hour / out_per_h * 1e6;
  o->usd_per_million_input = o->usd_per_hour * prefill_share / in_per_h * 1e6;
  o->usd_per_million_blended = o->usd_per_hour / (out_per_h + in_per_h) * 1e6;
  o->gpu_hours_per_million_output = static_cast<double>(o->gpus) / out_per_h * 1e6;
  o->rank_cost = s.rank_by_gpu_hours ? o->gpu_hours_per_million_output : o->usd_per_million_output;
  // The first target missed, in this order.
  if (batch > p.max_sequences) {
    o->reason = p.max_sequences == 0 ? PlanReason::kMemory : plan_capacity_reason(p.limit.kind);
  } else if (r.ttft_s && o->ttft_s > *r.ttft_s) {
    o->reason = PlanReason::kTtft;
  } else if (r.tpot_s && o->tpot_s > *r.tpot_s) {
    // Communication decides when it is the larger part of the step.
    o->reason = 2 * o->comm_s > o->tpot_s ? PlanReason::kCommunication : PlanReason::kTpot;
  } else if (o->gpus > s.max_gpus) {
    o->reason = PlanReason::kGpus;
  } else {
    o->reason = PlanReason::kOk;
  }
}

std::vector<PlanFrontierPoint> merge_frontiers(std::vector<PlanFrontierPoint> a, std::vector<PlanFrontierPoint> b,
                                               bool ranked_ceiling) {
  std::vector<std::string> gpus;  // in order of first appearance
  for (const auto* v : {&a, &b}) {
    for (const PlanFrontierPoint& f : *v) {
      if (std::find(gpus.begin(), gpus.end(), f.gpu) == gpus.end()) gpus.push_back(f.gpu);
    }
  }
  for (PlanFrontierPoint& f : b) a.push_back(std::move(f));
  auto rank = [&](const std::string& g) { return std::find(gpus.begin(), gpus.end(), g) - gpus.begin(); };
  std::stable_sort(a.begin(), a.end(), [&](const PlanFrontierPoint& x, const PlanFrontierPoint& y) {
    if (x.gpu != y.gpu) return rank(x.gpu) < rank(y.gpu);
    if (x.ceiling != y.ceiling) return x.ceiling == ranked_ceiling;
    if (x.tokens_per_s_per_user != y.tokens_per_s_per_user) return x.tokens_per_s_per_user > y.tokens_per_s_per_user;
    return x.tokens_per_s_per_gpu > y.tokens_per_s_per_gpu;
  });
  std::vector<PlanFrontierPoint> out;
  const auto kept = plan_detail::pareto_kept(
      a, [](const PlanFrontierPoint& x, const PlanFrontierPoint& y) { return x.gpu == y.gpu && x.ceiling == y.ceiling; },
      [](const PlanFrontierPoint& x) { return x.tokens_per_s_per_gpu; });
  for (size_t i : kept) out.push_back(std::move(a[i]));
  return out;
}

namespace plan_detail {

double miss_distance(const PlanRequest& r, const PlanSpace& s, const PlanConfig& c) {
  double d = 1;
  if (c.batch > c.max_sequences) {
    d = std::max(d, c.max_sequences > 0 ? static_cast<double>(c.batch) / static_cast<double>(c.max_sequences)
                                        : 1e9);
  }
  if (r.ttft_s && c.ttft_s > *r.ttft_s) d = std::max(d, c.ttft_s / *r.ttft_s);
  if (r.tpot_s && c.tpot_s > *r.tpot_s) d = std::max(d, c.tpot_s / *r.tpot_s);
  if (c.gpus > s.max_gpus) d = std::max(d, static_cast<double>(c.gpus) / static_cast<double>(s.max_gpus));
  return d;
}

namespace {

PlanNeighbour neighbour_of(const PlanConfig& c) {
  return {c.c,      c.batch,  c.max_sequences, c.gpus, c.limit, c.ttft_s, c.tpot_s, c.comm_s, c.usd_per_million_output,
          c.gpu_hours_per_million_output, c.reason};
}

// What lifts the limit a batch over the capacity hits: the weights' memory, the KV's, or the engine's cap
// raised to what the batch needs (per attention group: the engines' flags are per instance).
PlanChange capacity_change(const PlanConfig& c) {
  PlanChange ch;
  ch.batch = c.batch;
  ch.holds = c.max_sequences;
  ch.limit = c.limit;
  const double groups = static_cast<double>(c.c.attn_dp);
  const double b = static_cast<double>(c.batch);
  switch (c.max_sequences == 0 ? PlanReason::kMemory : plan_capacity_reason(c.limit.kind)) {
    case PlanReason::kStepTokens:
      ch.kind = PlanChangeKind::kStepTokens;
      ch.engine_value = static_cast<int64_t>(std::ceil(b * c.limit.tokens_per_sequence / groups * (1 - 1e-12)));
      break;
    case PlanReason::kMaxNumSeqs:
      ch.kind = PlanChangeKind::kMaxNumSeqs;
      ch.engine_value = static_cast<int64_t>(std::ceil(b / groups * (1 - 1e-12)));
      break;
    default: ch.kind = c.max_sequences == 0 ? PlanChangeKind::kWeightsMemory : PlanChangeKind::kBatchMemory; break;
  }
  return ch;
}

std::vector<PlanChange> changes(const PlanRequest& r, const PlanSpace& s, const PlanConfig& c) {
  std::vector<PlanChange> out;
  if (c.batch > c.max_sequences) out.push_back(capacity_change(c));
  if (r.ttft_s && c.ttft_s > *r.ttft_s) {
    PlanChange ch;
    ch.kind = PlanChangeKind::kTtftTarget;
    ch.seconds = c.ttft_s;
    out.push_back(ch);
  }
  if (r.tpot_s && c.tpot_s > *r.tpot_s) {
    PlanChange ch;
    ch.kind = PlanChangeKind::kTpotTarget;
    ch.seconds = c.tpot_s;
    ch.faster_interconnect = 2 * c.comm_s > c.tpot_s;
    out.push_back(ch);
  }
  if (c.gpus > s.max_gpus) {
    PlanChange ch;
    ch.kind = PlanChangeKind::kGpuLimit;
    ch.gpus = c.gpus;
    out.push_back(ch);
  }
  return out;
}

// The constraint a rejected configuration misses by the largest factor.
PlanReason binding_reason(const PlanRequest& r, const PlanSpace& s, const PlanConfig& c) {
  PlanReason best = c.reason;
  double worst = 0;
  auto consider = [&](bool missed, double ratio, PlanReason why) {
    if (missed && ratio > worst) {
      worst = ratio;
      best = why;
    }
  };
  consider(c.batch > c.max_sequences,
           c.max_sequences > 0 ? static_cast<double>(c.batch) / static_cast<double>(c.max_sequences) : 1e9,
           c.max_sequences == 0 ? PlanReason::kMemory : plan_capacity_reason(c.limit.kind));
  if (r.ttft_s) consider(c.ttft_s > *r.ttft_s, c.ttft_s / *r.ttft_s, PlanReason::kTtft);
  if (r.tpot_s) {
    consider(c.tpot_s > *r.tpot_s, c.tpot_s / *r.tpot_s,
             2 * c.comm_s > c.tpot_s ? PlanReason::kCommunication : PlanReason::kTpot);
  }
  consider(c.gpus > s.max_gpus, static_cast<double>(c.gpus) / static_cast<double>(s.max_gpus), PlanReason::kGpus);
  return best;
}

}  // namespace

void finish(const PlanRequest& r, const PlanSpace& s, const std::vector<PlanCandidate>& cands,
            std::vector<PlanConfig>& best, const std::vector<PlanConfig>& next, const PlanConfig& cheapest,
            std::vector<FrontierRaw>& frontier,
            std::array<PlanConfig, 3>& misses, size_t n_misses, PlanResult* out) {
  // Deciding constraints: what stops the next batch of the same GPU, split and dtypes.
  std::vector<PlanConfig> ok;
  for (size_t i = 0; i < cands.size(); ++i) {
    if (best[i].batch == 0) continue;
    PlanConfig c = best[i];
    c.gpu = s.gpus[c.c.gpu].gpu.key;
    c.engine = engine_for(r.engine, s.gpus[c.c.gpu].gpu);
    const PlanConfig& n = next[i];
    if (n.batch != 0) {
      c.deciding = {PlanDecidingKind::kNextBatchMisses, neighbour_of(n)};
    } else {
      c.deciding = {PlanDecidingKind::kLargestBatch, {}};
    }
    ok.push_back(std::move(c));
  }
  out->feasible = static_cast<int64_t>(ok.size());
  std::sort(ok.begin(), ok.end(), [](const PlanConfig& a, const PlanConfig& b) {
    if (a.rank_cost != b.rank_cost) return a.rank_cost < b.rank_cost;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    return a.ttft_s < b.ttft_s;
  });
  if (!ok.empty()) {
    // The best one's neighbour is anything cheaper that was searched.
    if (cheapest.batch != 0 && cheapest.rank_cost < ok[0].rank_cost) {
      ok[0].deciding = {PlanDecidingKind::kCheapestMisses, neighbour_of(cheapest)};
    } else {
      ok[0].deciding = {PlanDecidingKind::kNothingCheaper, {}};
    }
  }
  if (ok.size() > s.top) ok.resize(s.top);
  out->configs = std::move(ok);

  // Pareto frontier per GPU kind: no other point has both more tokens/s/user and more tokens/s/GPU.
  // Per GPU kind and figure set: the ranked set's curve first, then the other's.
  const bool ranked_ceiling = r.rank_by_ceiling;
  std::sort(frontier.begin(), frontier.end(), [&](const FrontierRaw& a, const FrontierRaw& b) {
    if (a.gpu != b.gpu) return a.gpu < b.gpu;
    if (a.ceiling != b.ceiling) return a.ceiling == ranked_ceiling;
    if (a.user != b.user) return a.user > b.user;
    return a.per_gpu > b.per_gpu;
  });
  const auto kept = pareto_kept(
      frontier, [](const FrontierRaw& x, const FrontierRaw& y) { return x.gpu == y.gpu && x.ceiling == y.ceiling; },
      [](const FrontierRaw& x) { return x.per_gpu; });
  for (size_t i : kept) {
    const FrontierRaw& f = frontier[i];
    PlanFrontierPoint p;
    p.gpu = s.gpus[f.gpu].gpu.key;
    p.c = cands[f.cand];
    p.batch = f.batch;
    p.tokens_per_s_per_user = f.user;
    p.tokens_per_s_per_gpu = f.per_gpu;
    p.ttft_s = f.ttft_s;
    p.tpot_s = f.tpot_s;
    p.usd_per_million_output = f.usd_per_million_output;
    p.gpu_hours_per_million_output = f.gpu_hours_per_million_output;
    p.tokens_per_s_per_mw = tokens_per_s_per_mw(s.gpus[f.gpu].gpu, f.per_gpu);
    p.ceiling = f.ceiling;
    out->frontier.push_back(std::move(p));
  }

  if (out->configs.empty()) {
    for (size_t k = 0; k < n_misses; ++k) {
      PlanMiss m;
      m.config = misses[k];
      m.config.gpu = s.gpus[m.config.c.gpu].gpu.key;
      m.config.engine = engine_for(r.engine, s.gpus[m.config.c.gpu].gpu);
      m.config.deciding = {PlanDecidingKind::kMissed, neighbour_of(m.config)};
      m.changes = changes(r, s, m.config);
      out->misses.push_back(std::move(m));
    }
    if (!out->misses.empty()) {
      out->binding = plan_reason_name(binding_reason(r, s, out->misses[0].config));
      const bool fp8_searched =
          std::find(s.weight_dtypes.begin(), s.weight_dtypes.end(), Dtype::kFp8) != s.weight_dtypes.end();
      if (!fp8_searched) {
        PlanChange fp8;
        fp8.kind = PlanChangeKind::kFp8Weights;
        out->misses[0].changes.push_back(fp8);
      }
    } else if (out->rejected.unsupported > 0) {
      out->binding = "unsupported";
    }
  }
}

}  // namespace plan_detail

}  // namespace modelcalc
