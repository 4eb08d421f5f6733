#include "capacity_report.h"

#include "modelcalc/deployment.h"

#include <cmath>
#include <limits>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format.h"
#include "deployment_report.h"
#include "formula_text.h"
#include "modelcalc/engine_rules.h"

namespace modelcalc {

namespace {

std::string factor_text(double f) { return std::isinf(f) ? "from 0" : format_quantity(f, Unit::kFactor); }

// ---------------------------------------------------------------- kv-budget

std::string change_text(const KvProposal& p, const ModelSpec& m, const KvBudgetOptions& o) {
  const std::string flags = " (" + change_flags(p.variation.change) + ")";
  switch (p.kind) {
    case KvProposalKind::kKvDtype:
      return fmt::format("KV cache in {}", dtype_name(p.dtype)) + flags;
    case KvProposalKind::kWeightDtype:
      return fmt::format("Weights in {}{}", dtype_name(p.dtype), p.dtype == Dtype::kFp8 ? " (or int8)" : "") + flags;
    case KvProposalKind::kPagedAllocation:
      return fmt::format("Paged KV allocation: sequences hold their mean {} tokens, in blocks of {}", group_digits(p.value),
                         o.block_size) + flags;
    case KvProposalKind::kShorterContext:
      return fmt::format("Context {} → {} tokens", group_digits(o.context), group_digits(p.value)) + flags;
    case KvProposalKind::kMoreGpus:
      return fmt::format("Tensor parallel over {} GPUs (from {})", p.value, o.gpus) + flags;
    case KvProposalKind::kFewerKvHeads:
      return fmt::format("GQA with {} KV heads (from {}: ÷{})", p.value, m.n_head_kv,
                         fmt_sig(dbl(m.n_head_kv) / dbl(p.value), 3)) + flags;
  }
  return "";
}

const char* kind_name(KvProposalKind k) {
  switch (k) {
    case KvProposalKind::kKvDtype: return "kv_dtype";
    case KvProposalKind::kWeightDtype: return "weight_dtype";
    case KvProposalKind::kPagedAllocation: return "paged_allocation";
    case KvProposalKind::kShorterContext: return "shorter_context";
    case KvProposalKind::kMoreGpus: return "more_gpus";
    case KvProposalKind::kFewerKvHeads: return "fewer_kv_heads";
  }
  return "";
}

std::string cost_text(const KvProposal& p) {
  switch (p.kind) {
    case KvProposalKind::kKvDtype:
      return p.dtype == Dtype::kFp8
                 ? "quality: near-lossless with scaled fp8 (verify long-context evals); latency: fewer KV bytes "
                   "per step; money: none (a serving flag, e.g. vLLM --kv-cache-dtype fp8)"
                 : "quality: small with calibrated scales; an engine feature: TensorRT-LLM's INT8 KV cache, "
                   "calibrated offline (ModelOpt); vLLM and SGLang offer fp8 only; money: none";
    case KvProposalKind::kWeightDtype:
      return p.dtype == Dtype::kFp8
                 ? "quality: small with a calibrated fp8/int8 checkpoint; latency: faster decode (half the "
                   "weight bytes per step; fp8 matmuls need Hopper or newer); money: none"
                 : "quality: small to moderate (AWQ/GPTQ); latency: faster at small batch, dequantization "
                   "overhead at large batch; money: none";
    case KvProposalKind::kPagedAllocation:
      return "quality: none; latency: none on average, but sequences that outgrow the mean are preempted "
             "(swapped or recomputed); money: none (vLLM, SGLang, TensorRT-LLM do it)";
    case KvProposalKind::kShorterContext:
      return "quality: longer requests are refused or truncated (a product limit); latency and money: none";
    case KvProposalKind::kMoreGpus:
      return "money: twice the GPUs per replica; latency: decode faster (each GPU reads half the weights) "
             "minus an all-reduce per layer; needs NVLink-class links";
    case KvProposalKind::kFewerKvHeads:
      return "quality: needs uptraining the checkpoint to the new GQA (Ainslie et al. 2023: ~5 % of "
             "pretraining compute) with some loss; money: a training run; latency: fewer KV bytes per step";
  }
  return "";
}

Section kv_budget_section(const ModelSpec& m, const GpuSpec* gpu, const KvBudgetOptions& o,
                          const KvBudgetResult& r) {
  Section s{"Teaching view (drill 2's arithmetic, the GPUs pooled): 1. Budget", {}, {}};
  if (gpu != nullptr) {
    s.lines.push_back(given("capacity_bytes", fmt::format("HBM: {} × {}", o.gpus, gpu->name), r.capacity_bytes,
                            Unit::kBytes));
  }
  if (r.budget_given) {
    s.lines.push_back(given("budget_bytes", "KV budget (--budget)", r.budget_bytes, Unit::kBytes, "(given)"));
    return s;
  }
  s.lines.push_back(computed(
      "usable_bytes", "Usable", r.usable_bytes, Unit::kBytes, fx::kUsable,
      {term("capacity", format_quantity(gpu->capacity_bytes, Unit::kBytes)), term("gpus", o.gpus),
       term("reserve", o.reserve)},
      fmt::format("(--reserve {} kept back: CUDA context, NCCL buffers, fragmentation)", fmt_sig(o.reserve, 3))));
  s.lines.push_back(computed("weight_bytes", fmt::format("Weights ({})", dtype_name(o.weight_dtype)), r.weight_bytes,
                             Unit::kBytes, fx::kWeightBytes,
                             {term("N", r.n_params),
                              term("b", dtype_bytes(o.weight_dtype))}));
  if (o.workspace) {
    s.lines.push_back(given("workspace_bytes", "Activation/workspace allowance", r.workspace_bytes, Unit::kBytes,
                            "(--workspace)"));
  } else {
    s.lines.push_back(computed("workspace_bytes", "Activation/workspace allowance", r.workspace_bytes, Unit::kBytes,
                               fx::kWorkspace,
                               {term("C", kWorkspaceChunkTokens), term("w_ffn", r.ffn_width), term("V", m.n_vocab)},
                               "(peak of one 2,048-token prefill chunk: FFN intermediate + logits, 16-bit)"));
  }
  s.lines.push_back(short_if_negative(computed("budget_bytes", "KV budget", r.budget_bytes, Unit::kBytes, fx::kBudget,
                                               {term("usable", format_quantity(dbl(r.usable_bytes), Unit::kBytes)),
                                                term("W", format_quantity(dbl(r.weight_bytes), Unit::kBytes)),
                                                term("A", format_quantity(dbl(r.workspace_bytes), Unit::kBytes))})));
  if (r.budget_bytes <= 0) {
    s.notes.push_back("The weights and the allowance do not fit: no sequence fits. Shard (more GPUs) or quantize.");
  }
  return s;
}

Section kv_section(const ModelSpec& m, const KvBudgetOptions& o, const KvBudgetResult& r) {
  Section s{fmt::format("2. KV cache per sequence ({}, T = {})", dtype_name(o.kv_dtype), group_digits(o.context)),
            {}, {}};
  const LayerCounts lc = m.count_layers();
  const bool shares = lc.shared_full + lc.shared_sliding > 0;  // layers reading another layer's KV hold none
  const bool layered = lc.chunked > 0 || lc.no_attn > 0 || shares;
  if (m.is_mla()) {
    s.lines.push_back(computed("kv_bytes_per_token", "Per token", r.kv_bytes_per_token, Unit::kBytes,
                               fx::kKvPerTokenMla,
                               {term("L", lc.attention()), term("d_c", m.n_lora_kv + m.n_rot + m.n_embd_head_index),
                                term("b_kv", dtype_bytes(o.kv_dtype))},
                               m.is_dsa() ? "(d_c: the latent, its RoPE key and the DSA indexer's key)" : ""));
  } else if (lc.no_attn > 0 || shares) {
    s.lines.push_back(computed("kv_bytes_per_token", "Per token", r.kv_bytes_per_token, Unit::kBytes,
                               fx::kKvPerTokenLayers,
                               {term("L_attn", lc.attention()), term("d_kv", m.n_embd_kv()),
                                term("b_kv", dtype_bytes(o.kv_dtype))},
                               fmt::format("(only {} of the {} layers keep KV)", lc.attention(), m.n_layer)));
  } else {
    s.lines.push_back(computed("kv_bytes_per_token", "Per token", r.kv_bytes_per_token, Unit::kBytes,
                               fx::kKvPerToken,
                               {term("L", m.n_layer), term("d_kv", m.n_embd_kv()),
                                term("b_kv", dtype_bytes(o.kv_dtype))}));
  }
  const bool replicated = m.is_mla() ? o.gpus > 1 : r.kv_heads_stored > m.n_head_kv;
  if (replicated) {
    s.lines.push_back(computed("kv_bytes_per_sequence", "Per sequence, over all GPUs", r.kv_bytes_per_sequence,
                               Unit::kBytes, fx::kKvReplicated,
                               {term("KV", fmt_sig(r.kv_bytes_per_sequence_one_copy, 10)),
                                term("stored_heads", r.kv_heads_stored), term("kv_heads", m.is_mla() ? 1 : m.n_head_kv)},
                               m.is_mla() ? "(tensor parallel keeps the whole MLA latent on every GPU)"
                                          : "(more GPUs than KV heads: each GPU keeps a whole head, replicated)"));
  } else if (layered) {
    s.lines.push_back(computed("kv_bytes_per_sequence", "Per sequence", r.kv_bytes_per_sequence, Unit::kBytes,
                               fx::kKvPerSeqLayers,
                               {term("KV_token", r.kv_bytes_per_token), term("L_attn", lc.attention()),
                                term("L_full", lc.full), term("T", o.context), term("L_swa", lc.sliding),
                                term("window", m.n_swa), term("L_chunk", lc.chunked), term("chunk", m.n_chunk)}));
  } else {
    s.lines.push_back(computed("kv_bytes_per_sequence", "Per sequence", r.kv_bytes_per_sequence, Unit::kBytes,
                               m.n_swa > 0 ? fx::kKvPerSeqSwa : fx::kKvPerSeq,
                               {term("KV_token", r.kv_bytes_per_token), term("T", o.context),
                                term("window", m.n_swa), term("L", m.n_layer),
                                term("L_full", m.n_layer - m.n_swa_layers()), term("L_swa", m.n_swa_layers())}));
  }
  if (r.state_bytes_per_sequence > 0) {
    s.lines.push_back(computed("state_bytes_per_sequence", "Recurrent state per sequence", r.state_bytes_per_sequence,
                               Unit::kBytes, fx::kStatePerSeq,
                               {term("L_rec", lc.recurrent), term("n_embd_s", m.n_embd_s()),
                                term("b_ssm", dtype_bytes(default_ssm_state_dtype(m, o.weight_dtype))),
                                term("n_embd_r", m.n_embd_r()),
                                term("b_state", dtype_bytes(default_state_dtype(o.weight_dtype)))},
                               "(fixed, whatever the context; reserved beside the KV)"));
  }
  s.lines.push_back(given("kv_bytes_per_sequence_mha", "Same model under MHA", r.kv_bytes_per_sequence_mha,
                          Unit::kBytes, fmt::format("(every one of the {} heads keeps its K and V)", m.n_head)));
  s.lines.push_back(computed("kv_ratio", "MHA ÷ this model", r.kv_ratio, Unit::kFactor, fx::kKvRatio,
                             {term("KV_mha", r.kv_bytes_per_sequence_mha), term("KV", r.kv_bytes_per_sequence)},
                             m.is_mla() ? "(MLA caches one latent per token instead of per-head K and V)"
                                        : fmt::format("(= heads / kv_heads = {} / {})", m.n_head, m.n_head_kv)));
  return s;
}

Section concurrency_section(const KvBudgetResult& r) {
  Section s{"Teaching view: 3. Concurrency (whole context reserved per sequence)", {}, {}};
  if (r.state_bytes_per_sequence > 0) {
    s.lines.push_back(computed("max_sequences", "Sequences", r.max_sequences, Unit::kSequences, fx::kMaxSeqState,
                               {term("budget", r.budget_bytes), term("KV", r.kv_bytes_per_sequence),
                                term("S", r.state_bytes_per_sequence)}));
    s.lines.push_back(computed("max_sequences_mha", "Sequences under MHA", r.max_sequences_mha, Unit::kSequences,
                               fx::kMaxSeqState,
                               {term("budget", r.budget_bytes), term("KV", r.kv_bytes_per_sequence_mha),
                                term("S", r.state_bytes_per_sequence)}));
  } else {
    s.lines.push_back(computed("max_sequences", "Sequences", r.max_sequences, Unit::kSequences, fx::kMaxSeq,
                               {term("budget", r.budget_bytes), term("KV", r.kv_bytes_per_sequence)}));
    s.lines.push_back(computed("max_sequences_mha", "Sequences under MHA", r.max_sequences_mha, Unit::kSequences,
                               fx::kMaxSeq, {term("budget", r.budget_bytes), term("KV", r.kv_bytes_per_sequence_mha)}));
  }
  if (r.max_sequences_mha > 0) {
    s.notes.push_back(fmt::format("{} vs {} sequences: ×{} (the KV ratio, up to the floor of each division).",
                                  group_digits(r.max_sequences), group_digits(r.max_sequences_mha),
                                  fmt_sig(r.gqa_sequence_gain, 4)));
  }
  s.notes.push_back("The MHA line keeps the same budget; MHA's larger K and V projections would also cost weight memory.");
  s.notes.push_back("The drill's pooled count; the deployment engine's per-replica count (4. and Memory per GPU) is "
                    "the one to plan with.");
  return s;
}

Section proposals_section(const ModelSpec& m, const KvBudgetOptions& o, const KvProposals& ps, nlohmann::json* out) {
  const bool none_fit = ps.max_sequences == 0;
  Section s{none_fit ? "4. Changes that make room (the engine: no full-context sequence fits today)"
                     : fmt::format("4. Changes that double concurrency (the engine: {} sequences per replica today)",
                                   group_digits(ps.max_sequences)),
            {}, {}};
  // With nothing fitting, no change "doubles"; proposals are ranked by gain.
  const int64_t want = none_fit ? std::numeric_limits<int64_t>::max() : 2 * ps.max_sequences;
  *out = nlohmann::json::array();
  const KvProposal* first = nullptr;
  for (size_t i = 0; i < ps.proposals.size(); ++i) {
    const KvProposal& p = ps.proposals[i];
    const bool reaches = p.max_sequences >= want;
    if (reaches && first == nullptr) first = &p;
    const std::string change = change_text(p, m, o);
    const DeploymentMemory& a = p.variation.after.result.memory;
    const bool state = a.state_per_sequence > 0;  // recurrent state: held per sequence beside the KV
    std::vector<Term> terms = {term("free", std::max(0.0, a.free_for_kv)), term("KV_seq", a.kv_per_sequence)};
    if (state) terms.push_back(term("S_seq", a.state_per_sequence));
    Line l = computed("", fmt::format("{}. {}", i + 1, change), p.max_sequences, Unit::kSequences,
                      state ? fx::kDepMaxSeqState : fx::kDepMaxSeq, std::move(terms),
                      fmt::format("{} → {}{}{}", group_digits(ps.max_sequences), group_digits(p.max_sequences),
                                  none_fit ? "" : " (" + factor_text(p.factor) + ")",
                                  none_fit || reaches ? "" : " (short of ×2)"));
    s.lines.push_back(std::move(l));
    s.notes.push_back(fmt::format("{}: {}", i + 1, cost_text(p)));
    nlohmann::json j = variation_json(p.variation);
    j["kind"] = kind_name(p.kind);
    j["before_max_sequences"] = ps.max_sequences;
    j["max_sequences"] = p.max_sequences;
    j["factor"] = std::isfinite(p.factor) ? nlohmann::json(p.factor) : nlohmann::json();
    j["reaches_2x"] = reaches;
    j["effort"] = p.effort;
    j["cost"] = cost_text(p);
    j["needs_retraining"] = p.kind == KvProposalKind::kFewerKvHeads;
    j["description"] = change;
    out->push_back(std::move(j));
  }
  if (none_fit) {
    s.notes.insert(s.notes.begin(),
                   fmt::format("Not one sequence at the full context fits beside the weights on each GPU. Ranked by "
                               "the concurrency each change makes room for; the largest: {}.",
                               ps.proposals.empty() ? "none" : change_text(ps.proposals.front(), m, o)));
  } else {
    s.notes.insert(s.notes.begin(),
                   first ? fmt::format("Smallest change reaching ×2: {}.", change_text(*first, m, o))
                         : std::string("No single change reaches ×2; combine the top ones (their factors multiply "
                                       "roughly, except changes that both shrink the same bytes)."));
    s.notes.insert(s.notes.begin() + 1,
                   "Ranked: changes reaching ×2 first, least disruptive first (a serving flag < an engine feature < "
                   "a quantized checkpoint < a product limit < more hardware < retraining), then the rest by size.");
  }
  s.notes.push_back("Each count is the deployment engine on the changed setup (per GPU: shards, replicated KV heads, "
                    "reserve and workspace kept back), the figure `size` gives for the flags in brackets.");
  return s;
}

std::string budget_change_text(const BudgetChange& c, const ModelSpec& m, const KvBudgetOptions& o) {
  switch (c.kind) {
    case BudgetChangeKind::kKvDtype:
      return fmt::format("KV cache in {} (--kv-dtype {})", dtype_name(c.kv_dtype), dtype_name(c.kv_dtype));
    case BudgetChangeKind::kFewerKvHeads:
      return fmt::format("GQA with {} KV heads (from {}: ÷{}) (--kv-heads {})", c.kv_heads, m.n_head_kv,
                         fmt_sig(dbl(m.n_head_kv) / dbl(c.kv_heads), 3), c.kv_heads);
    case BudgetChangeKind::kLatent:
      return fmt::format("A DeepSeek-V3-style latent: {} + {} cached per token and layer (from {})",
                         c.kv_lora_rank, c.rope_dim, group_digits(kv_elems(m, KvLayout::kAsConfigured)));
    case BudgetChangeKind::kSlidingWindow:
      return fmt::format("A sliding window of {} tokens on {} of the {} attention layers ({} of every {}, Gemma 3's "
                         "pattern)",
                         group_digits(c.window), c.sliding_layers, m.count_layers().full, c.pattern - 1, c.pattern);
    case BudgetChangeKind::kShorterContext:
      return fmt::format("Context {} → {} tokens (--context {})", group_digits(o.context), group_digits(c.context),
                         c.context);
  }
  return "";
}

const char* budget_kind_name(BudgetChangeKind k) {
  switch (k) {
    case BudgetChangeKind::kKvDtype: return "kv_dtype";
    case BudgetChangeKind::kFewerKvHeads: return "fewer_kv_heads";
    case BudgetChangeKind::kLatent: return "latent";
    case BudgetChangeKind::kSlidingWindow: return "sliding_window";
    case BudgetChangeKind::kShorterContext: return "shorter_context";
  }
  return "";
}

std::string budget_cost_text(const BudgetProposal& p) {
  switch (p.change.kind) {
    case BudgetChangeKind::kKvDtype:
      return p.change.kv_dtype == Dtype::kFp8
                 ? "a serving flag (vLLM --kv-cache-dtype fp8, SGLang --kv-cache-dtype fp8_e4m3, TensorRT-LLM "
                   "KvCacheConfig(dtype='fp8')); quality: near-lossless with scaled fp8"
                 : "an engine feature: TensorRT-LLM's INT8 KV cache, calibrated offline; vLLM and SGLang offer fp8 "
                   "only";
    case BudgetChangeKind::kFewerKvHeads:
      return "needs retraining: uptrain to the new GQA (Ainslie et al. 2023: ~5 % of pretraining compute), "
             "with some loss";
    case BudgetChangeKind::kLatent:
      return "needs retraining: MLA (DeepSeek-V2, 2024) replaces K and V by one low-rank latent and a shared "
             "RoPE key; attention then up-projects it (more FLOPs per token, fewer bytes)";
    case BudgetChangeKind::kSlidingWindow:
      return "needs retraining: local layers see only the last window (Gemma 2/3); long-range recall rests on "
             "the full layers";
    case BudgetChangeKind::kShorterContext:
      return "a product limit: longer requests are refused or truncated";
  }
  return "";
}

nlohmann::json budget_change_json(const BudgetChange& c) {
  switch (c.kind) {
    case BudgetChangeKind::kKvDtype: return {{"kv_dtype", dtype_name(c.kv_dtype)}};
    case BudgetChangeKind::kFewerKvHeads: return {{"kv_heads", c.kv_heads}};
    case BudgetChangeKind::kLatent: return {{"kv_lora_rank", c.kv_lora_rank}, {"qk_rope_head_dim", c.rope_dim}};
    case BudgetChangeKind::kSlidingWindow:
      return {{"sliding_window", c.window}, {"sliding_window_pattern", c.pattern}, {"sliding_layers", c.sliding_layers}};
    case BudgetChangeKind::kShorterContext: return {{"context", c.context}};
  }
  return nlohmann::json::object();
}

// Drill 2 under a budget: each change is the capacity function (3.) on the changed model or options.
Section budget_proposals_section(const ModelSpec& m, const KvBudgetOptions& o, const KvBudgetResult& before,
                                 const BudgetProposals& ps, nlohmann::json* out) {
  const bool none_fit = ps.max_sequences == 0;
  Section s{none_fit ? "Teaching view: 4. Changes that make room (no full-context sequence fits the budget)"
                     : fmt::format("Teaching view: 4. Changes that double concurrency ({} sequences today)",
                                   group_digits(ps.max_sequences)),
            {}, {}};
  const int64_t want = none_fit ? std::numeric_limits<int64_t>::max() : 2 * ps.max_sequences;
  *out = nlohmann::json::array();
  const BudgetProposal* first = nullptr;
  for (size_t i = 0; i < ps.proposals.size(); ++i) {
    const BudgetProposal& p = ps.proposals[i];
    const KvBudgetResult& a = p.after;
    const bool reaches = a.max_sequences >= want;
    if (reaches && first == nullptr) first = &p;
    const bool state = a.state_bytes_per_sequence > 0;
    std::vector<Term> terms = {term("budget", a.budget_bytes), term("KV", a.kv_bytes_per_sequence)};
    if (state) terms.push_back(term("S", a.state_bytes_per_sequence));
    const std::string change = budget_change_text(p.change, m, o);
    s.lines.push_back(computed("", fmt::format("{}. {}", i + 1, change), a.max_sequences, Unit::kSequences,
                               state ? fx::kMaxSeqState : fx::kMaxSeq, std::move(terms),
                               fmt::format("{} → {}{}{}{}", group_digits(ps.max_sequences),
                                           group_digits(a.max_sequences),
                                           none_fit ? "" : " (" + factor_text(p.factor) + ")",
                                           none_fit || reaches ? "" : " (short of ×2)",
                                           p.needs_retraining ? " (needs retraining)" : "")));
    s.notes.push_back(fmt::format("{}: {}", i + 1, budget_cost_text(p)));
    nlohmann::json j;
    j["kind"] = budget_kind_name(p.change.kind);
    j["change"] = budget_change_json(p.change);
    j["after"] = {{"max_sequences", a.max_sequences},
                  {"kv_bytes_per_sequence", a.kv_bytes_per_sequence},
                  {"kv_bytes_per_token", a.kv_bytes_per_token},
                  {"state_bytes_per_sequence", a.state_bytes_per_sequence}};
    j["before_max_sequences"] = before.max_sequences;
    j["max_sequences"] = a.max_sequences;
    j["factor"] = std::isfinite(p.factor) ? nlohmann::json(p.factor) : nlohmann::json();
    j["reaches_2x"] = reaches;
    j["needs_retraining"] = p.needs_retraining;
    j["effort"] = p.effort;
    j["cost"] = budget_cost_text(p);
    j["description"] = change;
    out->push_back(std::move(j));
  }
  if (none_fit) {
    s.notes.insert(s.notes.begin(), "Not one sequence at the full context fits the budget. Ranked by the "
                                    "concurrency each change makes room for.");
  } else {
    s.notes.insert(s.notes.begin(),
                   first ? fmt::format("Smallest change reaching ×2: {}.", budget_change_text(first->change, m, o))
                         : std::string("No single change reaches ×2; combine the top ones."));
    s.notes.insert(s.notes.begin() + 1,
                   "Ranked: changes reaching ×2 first, least disruptive first (a serving flag < an engine feature < "
                   "a product limit < retraining), then the rest by size.");
  }
  s.notes.push_back("Each count is 3.'s arithmetic on the changed model or context, under the same budget (the "
                    "weights are outside it). With a GPU and no --budget, kv-budget proposes the deployment "
                    "engine's changes instead.");
  return s;
}

std::string model_label(const ModelSpec& m) {
  return m.name != "custom" ? m.name
                            : fmt::format("L={} d={} h={} kv_heads={}", m.n_layer, m.n_embd, m.n_head, m.n_head_kv);
}

}  // namespace

Section kv_budget_answer_section(const ModelSpec& m, const KvBudgetOptions& o, const DeploymentAnalysis& d,
                                 const DeploymentPrediction* p, const GpuSpec& gpu, const KvProposals* proposals) {
  const Parallelism& split = d.prepared.split;
  Section s{fmt::format("Answer (the deployment engine: tp {} × pp {} × dp {}{})", split.tp, split.pp, split.dp,
                        split.ep > 1 ? fmt::format(", ep {}", split.ep) : std::string()),
            {}, {}};
  const DeploymentMemory& mem = d.result.memory;
  if (p != nullptr) {
    s.lines.push_back(given("", "Sequences the engine admits, predicted", p->decode.max_sequences, Unit::kSequences,
                            "(" + std::string(p->profile->display) + ", profile " + std::string(p->profile->name) +
                                ": its KV pool at the full context)"));
  } else {
    Line none = given("", "Prediction", int64_t{0}, Unit::kNone);
    none.absent = "none: " + std::string(default_engine_for(gpu).why);
    s.lines.push_back(std::move(none));
  }
  s.lines.push_back(given("", std::string("Sequences that fit at T (per replica)") + (p != nullptr ? ", ceiling" : ""),
                          mem.max_sequences, Unit::kSequences,
                          "(driver-exposed memory less the weights, the KV per GPU as it is sharded)"));
  s.lines.push_back(given("", "KV per sequence on each GPU", mem.kv_per_sequence, Unit::kBytes));
  if (proposals != nullptr) {
    const int64_t want = 2 * proposals->max_sequences;
    for (const KvProposal& q : proposals->proposals) {
      if (proposals->max_sequences > 0 && q.max_sequences >= want) {
        s.notes.push_back(fmt::format("Smallest change reaching ×2: {} ({} sequences); 4. ranks them all.",
                                      change_text(q, m, o), group_digits(q.max_sequences)));
        break;
      }
    }
  }
  s.notes.push_back("The teaching view below is drill 2's arithmetic on the GPUs pooled; plan with these figures.");
  return s;
}

Report build_kv_budget_report(const ModelSpec& m, const GpuSpec* gpu, const KvBudgetOptions& o,
                              const KvBudgetResult& r, const KvProposals* proposals,
                              const BudgetProposals* budget_proposals) {
  Report rep;
  rep.title = fmt::format("kv-budget: {}{}, context {}", model_label(m),
                          gpu ? fmt::format(" on {} × {}", o.gpus, gpu->name) : std::string(),
                          group_digits(o.context));
  rep.sections.push_back(kv_budget_section(m, gpu, o, r));
  rep.sections.push_back(kv_section(m, o, r));
  rep.sections.push_back(concurrency_section(r));
  nlohmann::json json_proposals = nlohmann::json::array();
  if (proposals != nullptr) {
    rep.sections.push_back(proposals_section(m, o, *proposals, &json_proposals));
  } else if (budget_proposals != nullptr) {
    rep.sections.push_back(budget_proposals_section(m, o, r, *budget_proposals, &json_proposals));
  }
  rep.extra_json["proposals"] = json_proposals;
  rep.ignored.push_back("Prefix sharing and prompt caching (shared prefixes store their KV once): they raise "
                        "concurrency further for chat workloads with common system prompts.");
  if (!r.budget_given) {
    rep.ignored.push_back("The allowance is an estimate of the engine's activation peak; engines measure it "
                          "(vLLM profiles a forward pass). Give --workspace when you know yours.");
  }
  warn_model_assumptions(m.assumptions, rep);
  return rep;
}

// ---------------------------------------------------------------- paged-kv

Report build_paged_kv_report(const PagedKvResult& r, int64_t block_size, const std::string& kv_source) {
  Report rep;
  rep.title = fmt::format("paged-kv: {} sequences, blocks of {} tokens, max length {}", group_digits(r.paged.sequences),
                          block_size, group_digits(r.max_len));
  const PagedKvWaste& w = r.paged;
  Section t{"1. Tokens", {}, {}};
  t.lines.push_back(given("sequences", "Sequences n", w.sequences, Unit::kSequences));
  t.lines.push_back(computed("used_tokens", "Used", w.used_tokens, Unit::kTokens, fx::kPagedUsed, {}));
  t.lines.push_back(computed("contiguous_reserved_tokens", "Contiguous reservation",
                             w.sequences * r.max_len, Unit::kTokens, fx::kContiguous,
                             {term("n", w.sequences), term("max_len", r.max_len)}));
  t.lines.push_back(computed("paged_allocated_tokens", "Paged allocation", w.allocated_tokens, Unit::kTokens,
                             fx::kPagedAlloc, {term("B", block_size)}));
  rep.sections.push_back(std::move(t));

  Section b{"2. Bytes", {}, {}};
  b.lines.push_back(given("kv_bytes_per_token", "KV per token", r.kv_bytes_per_token, Unit::kBytes, kv_source));
  auto bytes = [&](const char* key, const char* label, int64_t v, int64_t tokens, int64_t window_tokens) {
    if (r.swa_layers > 0) {
      b.lines.push_back(computed(key, label, v, Unit::kBytes, fx::kTokenBytesSwa,
                                 {term("KV_layer", r.kv_bytes_per_layer_token), term("L_full", r.full_layers),
                                  term("tokens", tokens), term("L_swa", r.swa_layers),
                                  term("tokens_window", window_tokens)}));
    } else {
      b.lines.push_back(computed(key, label, v, Unit::kBytes, fx::kTokenBytes,
                                 {term("tokens", tokens), term("KV_token", r.kv_bytes_per_token)}));
    }
  };
  bytes("used", "Used", r.used_bytes, w.used_tokens, r.used_window_tokens);
  bytes("contiguous_reserved", "Contiguous reserved", r.contiguous_reserved_bytes, w.sequences * r.max_len,
        r.reserved_window_tokens);
  bytes("paged_allocated", "Paged allocated", r.paged_allocated_bytes, w.allocated_tokens, r.allocated_window_tokens);
  if (r.swa_layers > 0) {
    b.notes.push_back(fmt::format("Sliding windows: {} of {} layers keep at most {} tokens of a sequence, so they "
                                  "hold min(len, {}) tokens (window blocks a paged allocator frees are not charged).",
                                  r.swa_layers, r.swa_layers + r.full_layers, group_digits(r.window),
                                  group_digits(r.window)));
  }
  b.lines.push_back(computed("contiguous_waste", "Contiguous waste", r.contiguous_waste_bytes, Unit::kBytes,
                             fx::kWaste, {term("allocated", r.contiguous_reserved_bytes), term("used", r.used_bytes)}));
  b.lines.push_back(computed("paged_waste", "Paged waste", r.paged_waste_bytes, Unit::kBytes, fx::kWaste,
                             {term("allocated", r.paged_allocated_bytes), term("used", r.used_bytes)}));
  b.lines.push_back(computed("contiguous_waste_fraction", "Contiguous waste fraction", r.contiguous_waste_fraction,
                             Unit::kFraction, fx::kWasteFraction,
                             {term("waste", r.contiguous_waste_bytes), term("allocated", r.contiguous_reserved_bytes)}));
  b.lines.push_back(computed("paged_waste_fraction", "Paged waste fraction", r.paged_waste_fraction, Unit::kFraction,
                             fx::kWasteFraction,
                             {term("waste", r.paged_waste_bytes), term("allocated", r.paged_allocated_bytes)}));
  b.notes.push_back(fmt::format(
      "Paged waste is only each sequence's partly filled last block: below one block per sequence, at most "
      "n × (B − 1) = {} tokens. Contiguous allocation reserves max_len for every sequence up front.",
      group_digits(w.sequences * (block_size - 1))));
  if (r.paged_allocated_bytes > 0) {
    b.notes.push_back(fmt::format("The memory paging reclaims would hold ×{} the sequences at these lengths.",
                                  fmt_sig(r.paging_gain, 4)));
  }
  rep.sections.push_back(std::move(b));
  rep.ignored.push_back("Block tables and allocator metadata: a few bytes per block against kilobytes of KV.");
  return rep;
}

}  // namespace modelcalc
