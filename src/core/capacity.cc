#include "modelcalc/capacity.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "modelcalc/deployment.h"
#include "modelcalc/engine_profile.h"
#include "modelcalc/formulas.h"

namespace modelcalc {

Result<PagedKvWaste> paged_kv_waste(std::span<const int64_t> seq_lens, int64_t block_size) {
  if (block_size <= 0) return Status::InvalidArgument("block_size", "must be a positive number of tokens");
  Exact used = 0, allocated = 0;
  for (const int64_t len : seq_lens) {
    if (len < 0) return Status::InvalidArgument("seq_lens", "lengths must be >= 0 tokens");
    used += Exact(len);
    allocated += Exact(len / block_size + (len % block_size != 0 ? 1 : 0)) * Exact(block_size);
  }
  if (used.overflow() || allocated.overflow()) return Status::Overflow("seq_lens");
  PagedKvWaste w;
  w.sequences = static_cast<int64_t>(seq_lens.size());
  w.used_tokens = used.value();
  w.allocated_tokens = allocated.value();
  w.waste_tokens = w.allocated_tokens - w.used_tokens;
  w.waste_fraction = w.allocated_tokens > 0 ? static_cast<double>(w.waste_tokens) /
                                                  static_cast<double>(w.allocated_tokens)
                                            : 0.0;
  return w;
}

namespace {

double dbl(int64_t v) { return static_cast<double>(v); }

// A byte amount held as a double, rounded to whole bytes; overflow() when it
// does not fit in int64_t (never llround's unspecified result).
Exact whole_bytes(double v) { return Exact::from_double(std::round(v)); }

// KV bytes one sequence of `ctx` tokens holds over a tensor-parallel group of
// `gpus`: one copy, times the replication TP forces. GQA: each GPU keeps
// ceil(kv_heads / g) heads. MLA: the shared latent is kept whole on every GPU.
Result<int64_t> deployment_kv_bytes(const ModelSpec& m, int64_t ctx, Dtype t, int64_t gpus) {
  auto one = kv_bytes_per_sequence(m, ctx, t);
  if (!one.ok()) return one.status();
  const int64_t num = m.is_mla() ? gpus : kv_heads_stored(m.n_head_kv, gpus);
  const int64_t den = m.is_mla() ? 1 : m.n_head_kv;
  const Exact bytes = ceil_div(Exact(*one) * Exact(num), den);
  if (bytes.overflow()) return Status::Overflow("context");
  return bytes.value();
}

// Widest FFN intermediate per token: d_ff (x2 gated) for dense layers, the
// top-k routed plus shared experts for MoE layers; the larger of the two.
int64_t ffn_width(const ModelSpec& m) {
  const int64_t k = m.ffn_gated ? 2 : 1;
  const int64_t dense = m.n_ff * k;
  const int64_t moe =
      m.n_expert > 0 ? (m.n_expert_used * m.n_ff_exp + m.n_expert_shared * m.n_ff_shexp) * k : 0;
  return std::max(dense, moe);
}

// KV-cache dtypes below 16 bits that an engine modelled serves, with the disruption a switch costs. None
// serves int4 KV.
//   fp8: vLLM docs/features/quantization/quantized_kvcache.md (kv_cache_dtype="fp8"); SGLang
//        --kv-cache-dtype fp8_e4m3 / fp8_e5m2 (server_args.py) (recalled, verify); TensorRT-LLM
//        docs/source/features/quantization.md ("FP8 KV Cache", KvCacheConfig(dtype='fp8')).
//   int8: TensorRT-LLM's quantization recipes ("INT8 KV Cache", beside W8A8 SmoothQuant), calibrated
//        offline: an engine feature, not a flag. vLLM and SGLang offer no int8 KV.
struct KvDtypeServed {
  Dtype dtype;
  bool trtllm, vllm, sglang;
  int effort;
};
constexpr std::array<KvDtypeServed, 2> kKvDtypesServed = {{
    {Dtype::kFp8, true, true, true, 1},
    {Dtype::kInt8, true, false, false, 2},
}};
bool serves(const KvDtypeServed& t, Engine e) {
  switch (e) {
    case Engine::kTrtllm: return t.trtllm;
    case Engine::kVllm: return t.vllm;
    case Engine::kSglang: return t.sglang;
  }
  return false;
}

double factor_of(int64_t now, int64_t base) {
  if (base == 0) return now > 0 ? std::numeric_limits<double>::infinity() : 1.0;
  return dbl(now) / dbl(base);
}

// One proposal: the engine on the scenario varied by `c`. Not made (nullopt)
// when the engine refuses the varied setup.
std::optional<KvProposal> propose(const Scenario& s, KvProposalKind kind, int effort, const ScenarioChange& c,
                                  int64_t base) {
  auto v = evaluate_variation(s, c);
  if (!v.ok()) return std::nullopt;
  KvProposal p;
  p.kind = kind;
  p.effort = effort;
  p.max_sequences = v->after.result.memory.max_sequences;
  p.factor = factor_of(p.max_sequences, base);
  p.variation = *std::move(v);
  return p;
}

int64_t held_at(const Scenario& s, const ScenarioChange& c) { return max_batch(vary(s, c)); }

// Changes reaching 2x base first, least disruptive first; the rest by size.
// When nothing fits today (base 0) "doubling" means nothing: largest gain first.
// `held(p)` is a proposal's sequences after the change.
template <typename P, typename Held>
void rank(std::vector<P>* ps, int64_t base, Held held) {
  const int64_t want = 2 * base;
  std::stable_sort(ps->begin(), ps->end(), [&](const P& a, const P& b) {
    const int64_t na = held(a), nb = held(b);
    if (base == 0) return na > nb;
    const bool ra = na >= want, rb = nb >= want;
    if (ra != rb) return ra;
    if (ra && a.effort != b.effort) return a.effort < b.effort;
    return na > nb;
  });
}

}  // namespace

Result<KvBudgetResult> analyze_kv_budget(const ModelSpec& m, const GpuSpec* gpu,
                                         const KvBudgetOptions& o) {
  if (o.gpus <= 0) return Status::InvalidArgument("gpus", "must be a positive whole number");
  if (o.context <= 0) return Status::InvalidArgument("context", "must be a positive number of tokens");
  if (!(o.reserve >= 0.0) || !(o.reserve < 1.0)) {
    return Status::InvalidArgument("reserve", "must be a fraction in [0, 1), e.g. 0.10");
  }
  if (o.block_size <= 0) return Status::InvalidArgument("block_size", "must be a positive number of tokens");
  MC_RETURN_IF_ERROR(check_kv_dtype(o.kv_dtype, "kv_dtype"));
  if (o.mean_len < 0 || o.mean_len > o.context) {
    return Status::InvalidArgument("mean_len", "must be between 1 and the context (" +
                                                     std::to_string(o.context) + ") tokens");
  }
  if (gpu == nullptr && !o.budget) {
    return Status::InvalidArgument("gpu", "is required unless a budget gives the KV budget directly");
  }
  if (o.workspace && !(*o.workspace >= 0)) {
    return Status::InvalidArgument("workspace", "must be a non-negative size, e.g. 2GB");
  }
  if (o.workspace && gpu != nullptr && !(*o.workspace < gpu->capacity_bytes * dbl(o.gpus))) {
    return Status::InvalidArgument("workspace", "must be less than the memory of the " + std::to_string(o.gpus) +
                                                    " GPU(s), " + std::to_string(std::llround(gpu->capacity_bytes *
                                                                                              dbl(o.gpus) / 1e9)) +
                                                    " GB; an allowance is a few GB, e.g. 2GB");
  }

  KvBudgetResult r;
  auto params = param_breakdown(m);
  if (!params.ok()) return params.status();
  const int64_t n_params = params->total();
  const Exact w = weight_memory_bytes(n_params, o.weight_dtype);
  if (w.overflow()) return Status::Overflow("model shape");
  r.n_params = n_params;
  r.weight_bytes = w.value();

  const double per_gpu_usable = gpu ? gpu->capacity_bytes * (1.0 - o.reserve) : 0.0;
  if (gpu) {
    r.capacity_bytes = gpu->capacity_bytes * dbl(o.gpus);
    const Exact usable = whole_bytes(per_gpu_usable * dbl(o.gpus));
    if (usable.overflow()) {
      return Status::InvalidArgument("gpus", "the memory of " + std::to_string(o.gpus) +
                                                   " GPUs does not fit in a 64-bit byte count; give fewer");
    }
    r.usable_bytes = usable.value();
  }
  if (o.budget) {
    if (!(*o.budget > 0)) return Status::InvalidArgument("budget", "must be a positive size, e.g. 40GB");
    if (gpu && *o.budget > r.capacity_bytes) {
      return Status::InvalidArgument(
          "budget", "exceeds the memory of the GPUs (" + std::to_string(o.gpus) + " x " +
                          std::to_string(std::llround(gpu->capacity_bytes / 1e9)) + " GB); give at most that");
    }
    const Exact budget = whole_bytes(*o.budget);
    if (budget.overflow()) return Status::Overflow("budget");
    r.budget_given = true;
    r.budget_bytes = budget.value();
  } else {
    r.ffn_width = ffn_width(m);
    if (o.workspace) {
      const Exact workspace = whole_bytes(*o.workspace);
      if (workspace.overflow()) return Status::Overflow("workspace");
      r.workspace_bytes = workspace.value();
    } else {
      const Exact a = workspace_allowance_bytes(kWorkspaceChunkTokens, r.ffn_width, m.n_vocab);
      if (a.overflow()) return Status::Overflow("model shape");
      r.workspace_bytes = a.value();
    }
    const Exact budget = Exact(r.usable_bytes) - Exact(r.weight_bytes) - Exact(r.workspace_bytes);
    if (budget.overflow()) return Status::Overflow("workspace");
    r.budget_bytes = budget.value();
  }

  auto per_token = kv_bytes_per_token(m, o.kv_dtype);
  if (!per_token.ok()) return per_token.status();
  r.kv_bytes_per_token = *per_token;
  r.kv_heads_stored = m.is_mla() ? o.gpus : kv_heads_stored(m.n_head_kv, o.gpus);
  auto kv = deployment_kv_bytes(m, o.context, o.kv_dtype, o.gpus);
  if (!kv.ok()) return kv.status();
  r.kv_bytes_per_sequence = *kv;
  // Replication multiplies one copy by stored / kv heads (MLA: the latent on each of gpus).
  r.kv_bytes_per_sequence_one_copy =
      dbl(r.kv_bytes_per_sequence) * (m.is_mla() ? 1.0 / dbl(o.gpus) : dbl(m.n_head_kv) / dbl(r.kv_heads_stored));
  auto kv_mha = deployment_kv_bytes(as_mha(m), o.context, o.kv_dtype, o.gpus);
  if (!kv_mha.ok()) return kv_mha.status();
  r.kv_bytes_per_sequence_mha = *kv_mha;
  r.kv_ratio = dbl(r.kv_bytes_per_sequence_mha) / dbl(r.kv_bytes_per_sequence);
  // Split over the GPUs, not copied.
  auto state = state_bytes_per_sequence(m, default_state_dtype(o.weight_dtype), default_ssm_state_dtype(m, o.weight_dtype));
  if (!state.ok()) return state.status();
  r.state_bytes_per_sequence = *state;
  r.max_sequences = max_sequences(r.budget_bytes, r.kv_bytes_per_sequence + r.state_bytes_per_sequence);
  r.max_sequences_mha = max_sequences(r.budget_bytes, r.kv_bytes_per_sequence_mha + r.state_bytes_per_sequence);
  r.gqa_sequence_gain = r.max_sequences_mha > 0 ? dbl(r.max_sequences) / dbl(r.max_sequences_mha) : 0;
  r.mean_len = o.mean_len > 0 ? o.mean_len : (o.context + 1) / 2;
  return r;
}

Result<KvProposals> propose_kv_changes(const Scenario& s, const KvBudgetOptions& o) {
  if (o.block_size <= 0) return Status::InvalidArgument("block_size", "must be a positive number of tokens");
  const int64_t context = s.options.context;
  if (o.mean_len < 0 || o.mean_len > context) {
    return Status::InvalidArgument("mean_len", "must be between 1 and the context (" + std::to_string(context) +
                                                   ") tokens");
  }
  MC_ASSIGN_OR_RETURN(const DeploymentAnalysis base, evaluate_scenario(s));
  KvProposals out;
  const int64_t now = base.result.memory.max_sequences;
  out.max_sequences = now;
  const int64_t want = std::max<int64_t>(1, 2 * now);
  const Dtype kv = base.prepared.kv_dtype, w = base.prepared.weight_dtype;
  std::vector<KvProposal> ps;
  auto add = [&](KvProposalKind kind, int effort, const ScenarioChange& c, Dtype dtype, int64_t value) {
    if (auto p = propose(s, kind, effort, c, now)) {
      p->dtype = dtype;
      p->value = value;
      ps.push_back(*std::move(p));
    }
  };
  const std::optional<Engine> engine =
      s.engine ? std::optional<Engine>(s.engine->engine.engine()) : std::nullopt;
  for (const KvDtypeServed& t : kKvDtypesServed) {
    // Without an engine (the ceiling alone), only what every engine serves.
    const bool served = engine ? serves(t, *engine) : t.trtllm && t.vllm && t.sglang;
    if (dtype_bits(t.dtype) >= dtype_bits(kv) || !served) continue;
    ScenarioChange c;
    c.kv_dtype = t.dtype;
    add(KvProposalKind::kKvDtype, t.effort, c, t.dtype, 0);
  }
  {  // Paged allocation: each sequence holds its mean length, in whole blocks, not the whole context.
    const int64_t mean = o.mean_len > 0 ? o.mean_len : (context + 1) / 2;
    ScenarioChange c;
    c.context = std::min(paged_tokens(mean, o.block_size), paged_tokens(context, o.block_size));
    if (*c.context < context) add(KvProposalKind::kPagedAllocation, 2, c, kv, mean);
  }
  for (const auto& [t, effort] : {std::pair{Dtype::kFp8, 3}, std::pair{Dtype::kInt4, 4}}) {
    if (dtype_bits(t) >= dtype_bits(w)) continue;
    ScenarioChange c;
    c.weight_dtype = t;
    add(KvProposalKind::kWeightDtype, effort, c, t, 0);
  }
  if (context > 1) {  // The longest shorter context at which twice today's sequences fit (KV grows with T).
    auto at = [&](int64_t t) {
      ScenarioChange c;
      c.context = t;
      return held_at(s, c);
    };
    if (at(1) >= want) {
      int64_t lo = 1, hi = context;  // at(lo) >= want > at(hi) (hi holds only today's count)
      while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        (at(mid) >= want ? lo : hi) = mid;
      }
      ScenarioChange c;
      c.context = lo;
      add(KvProposalKind::kShorterContext, 4, c, kv, lo);
    }
  }
  {  // More GPUs per replica: the fewest tensor ranks, at least twice today's, that the heads allow.
    const Parallelism& p = s.options.split;
    if (const int64_t tp = smallest_valid_tp(s, 2 * p.tp, 64 * p.tp); tp > 0) {
      ScenarioChange c;
      c.split = p;
      c.split->tp = tp;
      add(KvProposalKind::kMoreGpus, 5, c, kv, c.split->gpus());
    }
  }
  if (!s.model.is_mla() && s.model.n_head_kv > 1) {  // Fewer KV heads: the mildest GQA that doubles, else MQA.
    for (int64_t kv_heads = s.model.n_head_kv - 1; kv_heads >= 1; --kv_heads) {
      if (s.model.n_head % kv_heads != 0) continue;
      ScenarioChange c;
      c.kv_heads = kv_heads;
      const int64_t held = held_at(s, c);
      if (held >= want || kv_heads == 1) {
        add(KvProposalKind::kFewerKvHeads, 6, c, kv, kv_heads);
        break;
      }
    }
  }
  rank(&ps, now, [](const KvProposal& p) { return p.max_sequences; });
  out.proposals = std::move(ps);
  return out;
}

// The architecture changes drill 2 proposes, as the models that carry them: DeepSeek-V3's latent
// (config.json kv_lora_rank 512, qk_rope_head_dim 64) and Gemma 3's layer pattern
// (sliding_window_pattern 6: five sliding layers of every six) over a 4,096-token window.
constexpr int64_t kProposedLatentRank = 512, kProposedLatentRope = 64;
constexpr int64_t kProposedWindow = 4096, kProposedWindowPattern = 6;

std::pair<ModelSpec, KvBudgetOptions> apply_budget_change(const ModelSpec& m, const KvBudgetOptions& o,
                                                          const BudgetChange& c) {
  ModelSpec out = m;
  KvBudgetOptions opt = o;
  switch (c.kind) {
    case BudgetChangeKind::kKvDtype: opt.kv_dtype = c.kv_dtype; break;
    case BudgetChangeKind::kFewerKvHeads: out.n_head_kv = c.kv_heads; break;
    case BudgetChangeKind::kLatent:
      // Every head's key and value come from the one cached latent: nope keys of d_head, values of d_head.
      out.n_head_kv = m.n_head;
      out.n_lora_kv = c.kv_lora_rank;
      out.n_rot = c.rope_dim;
      out.n_embd_head_k = m.n_embd_head + c.rope_dim;
      out.n_embd_head_v = m.n_embd_head;
      break;
    case BudgetChangeKind::kSlidingWindow: {
      // Over the attention layers in order (a hybrid's recurrent layers keep no KV to window).
      out.n_swa = c.window;
      if (out.layer_kinds.empty()) {
        out.layer_kinds.resize(static_cast<size_t>(m.n_layer));
        for (int64_t il = 0; il < m.n_layer; ++il) out.layer_kinds[static_cast<size_t>(il)] = m.layer(il);
      }
      int64_t k = 0;
      for (LayerKind& l : out.layer_kinds) {
        if (l.attn != Attn::kFull) continue;
        if (k % c.pattern < c.pattern - 1) l.attn = Attn::kSliding;
        ++k;
      }
      break;
    }
    case BudgetChangeKind::kShorterContext:
      opt.context = c.context;
      if (opt.mean_len > opt.context) opt.mean_len = 0;
      break;
  }
  return {std::move(out), std::move(opt)};
}

Result<BudgetProposals> propose_budget_changes(const ModelSpec& m, const KvBudgetOptions& o) {
  if (!o.budget) return Status::InvalidArgument("budget", "is required: these proposals are drill 2's, under a budget");
  MC_ASSIGN_OR_RETURN(const KvBudgetResult base, analyze_kv_budget(m, nullptr, o));
  BudgetProposals out;
  const int64_t now = base.max_sequences;
  out.max_sequences = now;
  const int64_t want = std::max<int64_t>(1, 2 * now);
  auto held = [&](const BudgetChange& c) -> Result<KvBudgetResult> {
    const auto [changed, options] = apply_budget_change(m, o, c);
    MC_RETURN_IF_ERROR(validate(changed));
    return analyze_kv_budget(changed, nullptr, options);
  };
  std::vector<BudgetProposal> ps;
  auto add = [&](const BudgetChange& c, int effort, bool retraining) -> Status {
    MC_ASSIGN_OR_RETURN(KvBudgetResult after, held(c));
    BudgetProposal p;
    p.change = c;
    p.effort = effort;
    p.needs_retraining = retraining;
    p.factor = factor_of(after.max_sequences, now);
    p.after = std::move(after);
    ps.push_back(std::move(p));
    return Status::Ok();
  };
  for (const KvDtypeServed& t : kKvDtypesServed) {
    if (dtype_bits(t.dtype) >= dtype_bits(o.kv_dtype)) continue;
    BudgetChange c{.kind = BudgetChangeKind::kKvDtype, .kv_dtype = t.dtype};
    MC_RETURN_IF_ERROR(add(c, t.effort, false));
  }
  if (o.context > 1) {  // The longest shorter context that doubles (KV grows with the context; state does not).
    auto at = [&](int64_t t) -> Result<int64_t> {
      MC_ASSIGN_OR_RETURN(const KvBudgetResult r, held(BudgetChange{.kind = BudgetChangeKind::kShorterContext,
                                                                    .context = t}));
      return r.max_sequences;
    };
    MC_ASSIGN_OR_RETURN(const int64_t at_one, at(1));
    if (at_one >= want) {
      int64_t lo = 1, hi = o.context;  // at(lo) >= want > at(hi)
      while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        MC_ASSIGN_OR_RETURN(const int64_t n, at(mid));
        (n >= want ? lo : hi) = mid;
      }
      MC_RETURN_IF_ERROR(add(BudgetChange{.kind = BudgetChangeKind::kShorterContext, .context = lo}, 4, false));
    }
  }
  if (!m.is_mla() && m.n_head_kv > 1) {  // The most KV heads that still double, else MQA.
    for (int64_t kv_heads = m.n_head_kv - 1; kv_heads >= 1; --kv_heads) {
      if (m.n_head % kv_heads != 0) continue;
      const BudgetChange c{.kind = BudgetChangeKind::kFewerKvHeads, .kv_heads = kv_heads};
      MC_ASSIGN_OR_RETURN(const KvBudgetResult r, held(c));
      if (r.max_sequences >= want || kv_heads == 1) {
        MC_RETURN_IF_ERROR(add(c, 6, true));
        break;
      }
    }
  }
  const LayerCounts layers = m.count_layers();
  if (!m.is_mla() && layers.full > 0 &&
      kv_elems(m, KvLayout::kAsConfigured) > kProposedLatentRank + kProposedLatentRope) {
    MC_RETURN_IF_ERROR(add(BudgetChange{.kind = BudgetChangeKind::kLatent, .kv_lora_rank = kProposedLatentRank,
                                        .rope_dim = kProposedLatentRope},
                           6, true));
  }
  // Of L_full attention layers in order, the k-th slides unless k % 6 == 5: L_full - floor(L_full / 6) slide.
  const int64_t sliding = layers.full - layers.full / kProposedWindowPattern;
  if (layers.sliding == 0 && layers.chunked == 0 && sliding > 0 && o.context > kProposedWindow &&
      m.n_layer <= kMaxPerLayerLayers) {
    MC_RETURN_IF_ERROR(add(BudgetChange{.kind = BudgetChangeKind::kSlidingWindow, .window = kProposedWindow,
                                        .pattern = kProposedWindowPattern, .sliding_layers = sliding},
                           6, true));
  }
  rank(&ps, now, [](const BudgetProposal& p) { return p.after.max_sequences; });
  out.proposals = std::move(ps);
  return out;
}

Result<PagedKvResult> analyze_paged_kv(std::span<const int64_t> seq_lens, int64_t block_size,
                                       int64_t max_len, int64_t kv_bytes_per_token) {
  if (seq_lens.empty()) return Status::InvalidArgument("seq_lens", "needs at least one sequence length");
  if (block_size <= 0) return Status::InvalidArgument("block_size", "must be a positive number of tokens");
  if (max_len <= 0) return Status::InvalidArgument("max_len", "must be a positive number of tokens");
  if (kv_bytes_per_token <= 0) {
    return Status::InvalidArgument("kv_bytes_per_token", "must be a positive number of bytes");
  }
  for (size_t i = 0; i < seq_lens.size(); ++i) {
    if (seq_lens[i] < 1 || seq_lens[i] > max_len) {
      return Status::InvalidArgument("seq_lens", "length #" + std::to_string(i + 1) + " (" +
                                                   std::to_string(seq_lens[i]) + ") must be between 1 and max_len (" +
                                                   std::to_string(max_len) + ")");
    }
  }
  auto w = paged_kv_waste(seq_lens, block_size);
  if (!w.ok()) return w.status();
  PagedKvResult r;
  r.paged = *w;
  r.max_len = max_len;
  r.kv_bytes_per_token = kv_bytes_per_token;
  const Exact b(kv_bytes_per_token);
  const Exact used = Exact(w->used_tokens) * b;
  const Exact reserved = Exact(w->sequences) * Exact(max_len) * b;
  const Exact allocated = Exact(w->allocated_tokens) * b;
  if (used.overflow() || reserved.overflow() || allocated.overflow()) return Status::Overflow("seq_lens");
  r.used_bytes = used.value();
  r.contiguous_reserved_bytes = reserved.value();
  r.paged_allocated_bytes = allocated.value();
  r.contiguous_waste_bytes = r.contiguous_reserved_bytes - r.used_bytes;
  r.paged_waste_bytes = r.paged_allocated_bytes - r.used_bytes;
  r.contiguous_waste_fraction = dbl(r.contiguous_waste_bytes) / dbl(r.contiguous_reserved_bytes);
  r.paged_waste_fraction = dbl(r.paged_waste_bytes) / dbl(r.paged_allocated_bytes);
  r.paging_gain = r.paged_allocated_bytes > 0 ? dbl(r.contiguous_reserved_bytes) / dbl(r.paged_allocated_bytes) : 0;
  return r;
}

Result<PagedKvResult> analyze_paged_kv_model(const ModelSpec& m, Dtype kv_dtype, std::span<const int64_t> seq_lens,
                                             int64_t block_size, int64_t max_len) {
  MC_RETURN_IF_ERROR(validate(m));
  MC_RETURN_IF_ERROR(check_kv_dtype(kv_dtype, "kv_dtype"));
  auto per_token = kv_bytes_per_token(m, kv_dtype);
  if (!per_token.ok()) return per_token.status();
  auto base = analyze_paged_kv(seq_lens, block_size, max_len, *per_token);
  const LayerCounts c = m.count_layers();
  if (!base.ok() || (c.sliding == 0 && c.chunked == 0)) return base;
  if (c.sliding > 0 && c.chunked > 0) {
    return Status::InvalidArgument("model", "sliding-window and chunked layers together are not modelled by paged-kv");
  }
  // Windowed layers: sliding ones keep the window, chunked ones their current chunk (at most n_chunk).
  PagedKvResult r = *base;
  r.swa_layers = c.sliding > 0 ? c.sliding : c.chunked;
  r.full_layers = c.full;
  r.window = c.sliding > 0 ? m.n_swa : m.n_chunk;
  const int64_t w = r.window;
  Exact used_w, alloc_w;
  for (int64_t len : seq_lens) {
    const int64_t held = std::min(len, w);
    used_w += held;
    alloc_w += paged_tokens(held, block_size);
  }
  const Exact reserved_w = Exact(r.paged.sequences) * Exact(std::min(max_len, w));
  // One layer's K and V for one token, exact in bits: elements x bits / 8.
  const Exact layer_bits = Exact(kv_elems(m, KvLayout::kAsConfigured)) * Exact(dtype_bits(kv_dtype));
  auto bytes = [&](Exact full_tokens, Exact window_tokens) {
    return ceil_div((Exact(r.full_layers) * full_tokens + Exact(r.swa_layers) * window_tokens) * layer_bits, 8);
  };
  const Exact used = bytes(r.paged.used_tokens, used_w);
  const Exact reserved = bytes(Exact(r.paged.sequences) * Exact(max_len), reserved_w);
  const Exact allocated = bytes(r.paged.allocated_tokens, alloc_w);
  if (used.overflow() || reserved.overflow() || allocated.overflow()) return Status::Overflow("seq_lens");
  r.kv_bytes_per_layer_token = ceil_div(layer_bits, 8).value();
  r.used_window_tokens = used_w.value();
  r.reserved_window_tokens = reserved_w.value();
  r.allocated_window_tokens = alloc_w.value();
  r.used_bytes = used.value();
  r.contiguous_reserved_bytes = reserved.value();
  r.paged_allocated_bytes = allocated.value();
  r.contiguous_waste_bytes = r.contiguous_reserved_bytes - r.used_bytes;
  r.paged_waste_bytes = r.paged_allocated_bytes - r.used_bytes;
  r.contiguous_waste_fraction = dbl(r.contiguous_waste_bytes) / dbl(r.contiguous_reserved_bytes);
  r.paged_waste_fraction = dbl(r.paged_waste_bytes) / dbl(r.paged_allocated_bytes);
  r.paging_gain = r.paged_allocated_bytes > 0 ? dbl(r.contiguous_reserved_bytes) / dbl(r.paged_allocated_bytes) : 0;
  return r;
}

}  // namespace modelcalc
