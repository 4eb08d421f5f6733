#include "train_memory_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "format.h"
#include "formula_text.h"

namespace modelcalc {

const char* optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::kAdamW: return "adamw";
    case Optimizer::kAdamWFp32: return "adamw-fp32";
    case Optimizer::kSgd: return "sgd";
    case Optimizer::kAdam8bit: return "adam8bit";
  }
  return "";
}

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "";
}

std::string layout_text(const TrainLayout& l) {
  std::string s = fmt::format("TP {} × CP {} × PP {} × DP {}", l.tp, l.cp, l.pp, l.dp);
  if (l.ep > 1) s += fmt::format(", EP {}", l.ep);
  if (l.virtual_stages > 1) s += fmt::format(", v {}", l.virtual_stages);
  return s;
}

std::string train_model_label(const ModelSpec& m) {
  return m.name != "custom" ? m.name
                            : fmt::format("L={} d={} h={} kv_heads={}", m.n_layer, m.n_embd, m.n_head, m.n_head_kv);
}

namespace {

std::string bytes_per_param_text(const TrainOptions& o) {
  const char* grads = o.fp32_grads ? "fp32 grads 4 (Megatron's main gradients)" : "16-bit grads 2";
  switch (o.optimizer) {
    case Optimizer::kAdamW:
      return fmt::format("bf16 weights 2 + {} + fp32 master 4, momentum 4, variance 4 (ZeRO paper, sec. 3.1)", grads);
    case Optimizer::kAdamWFp32: return "fp32 weights 4 + fp32 grads 4 + momentum 4, variance 4";
    case Optimizer::kSgd: return fmt::format("bf16 weights 2 + {} + fp32 master 4, momentum 4", grads);
    case Optimizer::kAdam8bit:
      return fmt::format("bf16 weights 2 + {} + fp32 master 4, 8-bit momentum 1, 8-bit variance 1 "
                         "(Dettmers et al. 2022)",
                         grads);
  }
  return "";
}

std::string stage_parts(const StageMemory& s) {
  std::string what = fmt::format("{} layers", s.layers);
  if (s.moe_layers > 0) what += fmt::format(" ({} MoE)", s.moe_layers);
  if (s.embedding) what += " + embedding";
  if (s.lm_head) what += " + final norm, lm_head, loss";
  return what;
}

void activation_lines(Section* s, const std::string& key, const char* what, const LayerActivations& a,
                      const TrainOptions& o) {
  auto B = [](double v) { return format_quantity(v, Unit::kBytes); };
  s->lines.push_back(given(key + ".replicated", std::string(what) + ": norm inputs, projection inputs, masks",
                           a.replicated, Unit::kBytes,
                           o.sequence_parallel && o.layout.tp > 1 ? "(split over TP: sequence parallel)"
                                                                   : "(whole on every TP rank)"));
  if (a.expert > 0) {
    s->lines.push_back(given(key + ".expert", std::string(what) + ": dispatched token copies", a.expert, Unit::kBytes,
                             "(k × capacity copies, whole on every TP rank)"));
  }
  s->lines.push_back(given(key + ".split", std::string(what) + ": Q, K, V, attention output, FFN intermediates",
                           a.split, Unit::kBytes, "(split over TP)"));
  s->lines.push_back(given(key + ".scores", std::string(what) + ": softmax scores", a.scores, Unit::kBytes,
                           o.flash ? "(FlashAttention keeps none)" : "(s × s per head, split over TP)"));
  if (a.flash_stats > 0) {
    s->lines.push_back(given(key + ".flash_stats", std::string(what) + ": FlashAttention log-sum-exp", a.flash_stats,
                             Unit::kBytes));
  }
  s->lines.push_back(computed(key + ".total", std::string(what) + ": stored activations", a.total(), Unit::kBytes,
                              fx::kLayerAct,
                              {term("replicated", B(a.replicated)), term("expert", B(a.expert)), term("split", B(a.split)),
                               term("scores", B(a.scores)), term("flash_stats", B(a.flash_stats))}));
  if (o.recompute != Recompute::kNone) {
    s->lines.push_back(computed(key + ".kept", std::string(what) + ": kept with recomputation", a.kept(o.recompute),
                                Unit::kBytes, fx::kLayerKept,
                                {term("total", B(a.total())), term("recomputed", B(a.working(o.recompute)))},
                                o.recompute == Recompute::kFull ? "(full: only the layer input)"
                                                                : "(selective: the core attention's tensors)"));
  }
}

}  // namespace

Report build_train_memory_report(const ModelSpec* m, const GpuSpec& gpu, const TrainOptions& o,
                                 const TrainMemoryResult& r) {
  auto B = [](double v) { return format_quantity(v, Unit::kBytes); };
  Report rep;
  rep.title = fmt::format("train-memory: {} on {}, {}, ZeRO-{}, {}", m ? train_model_label(*m) : group_digits(r.params) + " params",
                          gpu.name, layout_text(o.layout), o.zero, optimizer_name(o.optimizer));
  const StageMemory& w = r.stages[static_cast<size_t>(r.worst_stage)];

  Section params{"1. Parameters per GPU, by pipeline stage (as Megatron builds them)", {}, {}};
  params.lines.push_back(given("params", "Parameters N (the model)", r.params, Unit::kParams));
  if (r.has_activations) {
    params.lines.push_back(computed("padded_vocab", "Vocabulary as Megatron pads it", r.padded_vocab, Unit::kNone,
                                    fx::kPaddedVocab, {term("V", m->n_vocab), term("tp", o.layout.tp)}));
  }
  for (const StageMemory& s : r.stages) {
    params.lines.push_back(given("", fmt::format("Stage {}", s.stage),
                                 fmt::format("{}: {} params", stage_parts(s), group_digits(s.params)), Unit::kNone));
  }
  if (r.has_activations) {
    params.notes.push_back(
        "Stage 0 holds the embedding (vocab-parallel, V_pad / tp rows), the last stage the final norm, the lm_head "
        "and the loss (with tied embeddings and PP > 1, its own copy of the table, trained too). Routed experts are "
        "split over EP and, within each expert, over TP.");
  } else {
    params.notes.push_back("A bare parameter count: each stage holds N / (tp × pp); give a model for the real split.");
  }
  rep.sections.push_back(std::move(params));

  Section states{"2. Weights, gradients and optimizer states per GPU (the worst stage)", {}, {}};
  const TrainBytesPerParam& b = r.bytes_per_param;
  states.lines.push_back(given("bytes_per_param", "Bytes per parameter",
                               fmt::format("{} + {} + {} = {} B", b.weights, b.gradients, b.optimizer, b.total()),
                               Unit::kNone, "(" + bytes_per_param_text(o) + ")"));
  const ZeroDivisors z = zero_divisors(o.zero, o.layout.dp * o.layout.cp);
  auto part = [&](const char* key, const char* label, double v, int64_t bpp, int64_t shards, const char* what) {
    // Routed experts shard over their own group, dp x cp / ep (when this part is sharded at all).
    const double expert_shards = shards > 1 ? static_cast<double>(shards) / static_cast<double>(o.layout.ep) : 1.0;
    states.lines.push_back(computed(key, label, v, Unit::kBytes, fx::kTrainStates,
                                    {term("P_dense", w.params - w.expert_params), term("P_expert", w.expert_params),
                                     term("b", bpp), term("shards", shards), term("expert_shards", expert_shards)},
                                    shards > 1 ? fmt::format("(ZeRO-{} shards {} over dp × cp = {}{})", o.zero, what,
                                                             shards, w.expert_params > 0 ? "; experts over dp × cp / ep" : "")
                                               : std::string()));
  };
  part("weights", "Weights", w.weights, b.weights, z.weights, "weights");
  part("gradients", "Gradients", w.grads, b.gradients, z.gradients, "gradients");
  part("optimizer", "Optimizer states", w.optimizer, b.optimizer, z.optimizer, "optimizer states");
  if (w.gather_buffer > 0) {
    states.lines.push_back(given("gather_buffer", "ZeRO-3 gather buffer", w.gather_buffer, Unit::kBytes,
                                 "(two layers' full weights: current and prefetched)"));
  }
  rep.sections.push_back(std::move(states));

  Section act{"3. Activations per layer, one micro-batch, one GPU (Korthikanti et al. 2022, generalised)", {}, {}};
  if (r.has_activations) {
    act.lines.push_back(given("seq", "Sequence s", o.seq, Unit::kTokens,
                              o.layout.cp > 1 ? fmt::format("(s / cp = {} per GPU)", group_digits(o.seq / o.layout.cp))
                                              : std::string()));
    act.lines.push_back(given("micro_batch", "Micro-batch b", o.micro_batch, Unit::kSequences));
    const bool dense = m->n_moe_layers() < m->n_layer;
    if (dense) activation_lines(&act, "dense_layer", "Dense layer", r.dense_layer, o);
    if (m->n_moe_layers() > 0) activation_lines(&act, "moe_layer", "MoE layer", r.moe_layer, o);
    act.notes.push_back(fmt::format(
        "Each tensor the backward pass needs, 16-bit (masks 1 B, FlashAttention's statistics fp32), for the layer "
        "built: {} FFN, {} KV heads{}{}. For the paper's GPT layer this is its Table 2.",
        m->ffn_gated ? "gated" : "ungated", m->is_mla() ? std::string("MLA") : std::to_string(m->n_head_kv),
        m->n_expert > 0 ? fmt::format(", top-{} of {} experts", m->n_expert_used, m->n_expert) : "",
        o.dropout ? ", dropout" : ", no dropout"));
  } else {
    act.lines.push_back(given("activations", "Activations", 0.0, Unit::kBytes, "(no shape given: not computed)"));
    act.notes.push_back("Give the model's shape (flags, --model or --config) to count activations.");
  }
  rep.sections.push_back(std::move(act));

  if (r.has_activations) {
    Section pipe{"4. The pipeline: what the worst stage holds at its peak", {}, {}};
    pipe.lines.push_back(given("micro_batches", "Micro-batches per step m", r.micro_batches, Unit::kNone,
                               "(global batch / (dp × b))"));
    const TrainLayout& l = o.layout;
    if (l.virtual_stages > 1) {
      pipe.lines.push_back(given("microbatch_group", "Micro-batches per virtual-stage group N", r.microbatch_group,
                                 Unit::kNone));
      pipe.lines.push_back(computed("in_flight", fmt::format("Chunk forwards held by stage {}", w.stage), w.in_flight,
                                    Unit::kNone, fx::kInflightInterleaved,
                                    {term("m", r.micro_batches), term("v", l.virtual_stages), term("p", l.pp),
                                     term("r", w.stage), term("N", r.microbatch_group)},
                                    "(Megatron's interleaved 1F1B: warm-up forwards + 1)"));
    } else {
      pipe.lines.push_back(computed("in_flight", fmt::format("Micro-batches held by stage {}", w.stage), w.in_flight,
                                    Unit::kNone, fx::kInflight1f1b,
                                    {term("m", r.micro_batches), term("p", l.pp), term("r", w.stage)},
                                    "(1F1B: warm-up forwards + 1)"));
    }
    pipe.lines.push_back(computed("activations", "Activations", w.activations, Unit::kBytes, fx::kStageAct, {},
                                  o.recompute != Recompute::kNone ? "(with one layer recomputed during its backward)"
                                                                  : ""));
    const StageMemory& last = r.stages.back();
    pipe.lines.push_back(computed("logits", fmt::format("Logits and loss (stage {})", last.stage), last.logits,
                                  Unit::kBytes, fx::kLogits,
                                  {term("s", o.seq), term("b", o.micro_batch), term("V_pad", r.padded_vocab),
                                   term("t", l.tp), term("cp", l.cp)},
                                  "(fp32 softmax 4 B + its 16-bit gradient 2 B, one micro-batch)"));
    rep.sections.push_back(std::move(pipe));
  }

  Section per{"5. Per stage, per GPU", {}, {}};
  nlohmann::json stages = nlohmann::json::array();
  for (const StageMemory& s : r.stages) {
    per.lines.push_back(given("", fmt::format("Stage {}", s.stage),
                              fmt::format("{} = W {} + G {} + O {} + A {} + logits {}{}", B(s.total), B(s.weights),
                                          B(s.grads), B(s.optimizer), B(s.activations), B(s.logits),
                                          s.gather_buffer > 0 ? " + gather " + B(s.gather_buffer) : ""),
                              Unit::kNone, s.total > r.capacity ? "(over capacity)" : ""));
    stages.push_back({{"stage", s.stage},
                      {"layers", s.layers},
                      {"params", s.params},
                      {"expert_params", s.expert_params},
                      {"in_flight", s.in_flight},
                      {"weights_bytes", s.weights},
                      {"grads_bytes", s.grads},
                      {"optimizer_bytes", s.optimizer},
                      {"activations_bytes", s.activations},
                      {"logits_bytes", s.logits},
                      {"gather_buffer_bytes", s.gather_buffer},
                      {"overhead_bytes", s.overhead},
                      {"total_bytes", s.total}});
  }
  per.notes.push_back(fmt::format("Each total includes the {} reserve for the CUDA context, NCCL and cuBLAS buffers "
                                  "and allocator fragmentation (--overhead).",
                                  B(o.overhead_bytes)));
  rep.extra_json["stages"] = std::move(stages);
  rep.sections.push_back(std::move(per));

  Section v{"6. Verdict", {}, {}};
  v.lines.push_back(given("worst_stage", "Worst stage", w.stage, Unit::kNone));
  v.lines.push_back(computed("total", "Total per GPU", w.total, Unit::kBytes, fx::kStageTotal,
                             {term("W", B(w.weights)), term("G", B(w.grads)), term("O", B(w.optimizer)),
                              term("A", B(w.activations)), term("logits", B(w.logits)), term("gather", B(w.gather_buffer)),
                              term("overhead", B(w.overhead))}));
  v.lines.push_back(given("capacity", "Capacity of " + gpu.name, r.capacity, Unit::kBytes));
  v.lines.push_back(given("fits", "Fits", r.fits, Unit::kNone));
  v.lines.push_back(given("smallest_zero_stage", fmt::format("Smallest ZeRO stage that fits at dp {}", o.layout.dp),
                          r.smallest_zero_fitting >= 0 ? Value(int64_t{r.smallest_zero_fitting}) : Value(std::string("none")),
                          Unit::kNone));
  for (int stage = 0; stage <= 3; ++stage) {
    const size_t i = static_cast<size_t>(stage);
    const int64_t dp = r.min_dp_by_zero[i];
    Line l = computed(fmt::format("min_dp.zero{}", stage), fmt::format("ZeRO-{} fits from dp", stage),
                      dp > 0 ? Value(dp) : Value(std::string("never")), Unit::kNone, fx::kMinDp,
                      {term("sharded", B(r.min_dp_sharded[i])), term("capacity", B(r.capacity)),
                       term("fixed", B(r.min_dp_fixed[i]))},
                      dp == 0 ? "(what stays whole on each GPU already exceeds it)" : "");
    if (stage == 0) {
      l.formula = nullptr;
      l.terms.clear();
      l.comment = dp > 0 ? "(nothing sharded: dp does not matter)" : "(nothing sharded: no dp helps)";
    }
    v.lines.push_back(std::move(l));
  }
  v.notes.push_back("The smallest dp per ZeRO stage keeps the micro-batches in flight as they are, and ignores that "
                    "EP must divide dp × cp.");
  rep.sections.push_back(std::move(v));

  rep.ignored.push_back("Gradients of activations and kernels' temporary buffers beyond one layer's recomputation "
                        "(cuBLAS and TransformerEngine workspaces are in the overhead).");
  rep.ignored.push_back("The stages' peaks are taken at the end of the pipeline warm-up with Megatron's schedules; "
                        "other schedules (Llama 3's, zero-bubble) hold different counts.");
  if (m != nullptr && m->n_expert > 0) {
    rep.ignored.push_back("Load imbalance across experts: dropless routing is taken as balanced (each expert gets "
                          "k / E of the tokens).");
  }
  if (m != nullptr && !m->exact) {
    rep.ignored.push_back("Norms, biases and position tables: a shape typed as flags counts matrices only.");
  }
  if (m != nullptr) warn_model_assumptions(m->assumptions, rep);
  return rep;
}

// ---------------------------------------------------------------- FLOPs and step

std::vector<Line> train_flops_lines(const std::string& k, const ModelSpec& m, int64_t seq, Recompute rc,
                                    AttentionCount count, const TrainFlopsPerToken& f) {
  auto F = [](double v) { return fmt_sig(v); };
  std::vector<Line> lines;
  lines.push_back(given(k + ".per_token_6n", "6 × N per token (the shortcut)", f.six_n, Unit::kFlop,
                        "(counts an untied input table, norms and biases; no attention)"));
  lines.push_back(given(k + ".per_token_linear", "Linear layers per token", f.linear, Unit::kFlop,
                        "(6 × matmul parameters: q, k, v, o, FFN, top-k and shared experts, routers)"));
  const int64_t dk = m.n_embd_head_k > 0 ? m.n_embd_head_k : m.n_embd_head;
  const int64_t dv = m.n_embd_head_v > 0 ? m.n_embd_head_v : m.n_embd_head;
  lines.push_back(computed(k + ".per_token_attention", "Attention per token", f.attention, Unit::kFlop, fx::kTfAttention,
                           {term("h", m.n_head), term("d_k", dk), term("d_v", dv),
                            term("keys", count == AttentionCount::kCausal ? "(s + 1) / 2" : "s")},
                           fmt::format("(QKᵀ and AV at s = {}, {})", group_digits(seq),
                                       count == AttentionCount::kCausal ? "causal half counted"
                                                                        : "every pair counted, as PaLM and Megatron do")));
  lines.push_back(computed(k + ".per_token_lm_head", "lm_head per token", f.lm_head, Unit::kFlop, fx::kTfLmHead,
                           {term("V", m.n_vocab), term("d", m.n_embd)}));
  lines.push_back(computed(k + ".per_token_total", "Model FLOPs per token", f.model, Unit::kFlop, fx::kTfModel,
                           {term("linear", F(f.linear)), term("attention", F(f.attention)), term("lm_head", F(f.lm_head))},
                           "(the MFU numerator, PaLM app. B)"));
  if (rc != Recompute::kNone) {
    lines.push_back(computed(k + ".per_token_recompute", "Recomputation per token", f.recompute, Unit::kFlop,
                             rc == Recompute::kFull ? fx::kTfRecomputeFull : fx::kTfRecomputeSelective,
                             {term("linear", F(f.linear)), term("attention", F(f.attention))},
                             rc == Recompute::kFull ? "(one more forward of every layer)"
                                                    : "(the core attention's forward again)"));
  }
  lines.push_back(computed(k + ".per_token_hardware", "Hardware FLOPs per token", f.hardware, Unit::kFlop, fx::kTfHardware,
                           {term("model", F(f.model)), term("recompute", F(f.recompute))},
                           "(the HFU numerator: Megatron's \"achieved TFLOP/s\" counts these)"));
  return lines;
}

Section train_step_section(const std::string& title, const std::string& k, const GpuSpec& gpu, const TrainOptions& o,
                           const TrainStepResult& r, double tokens) {
  const TrainEval& e = r.eval;
  const StepBreakdown& b = e.step;
  const PreparedStage& slow = r.prepared.stages[static_cast<size_t>(r.prepared.slowest_stage)];
  auto S = [](double v) { return format_quantity(v, Unit::kSeconds); };
  Section s{title, {}, {}};
  s.lines.push_back(given(k + ".layout", "Layout", layout_text(o.layout), Unit::kNone,
                          fmt::format("({} GPUs of {})", r.gpus, gpu.name)));
  s.lines.push_back(given(k + ".global_batch", "Global batch", effective_global_batch(o),
                          Unit::kSequences, fmt::format("({} micro-batches of {} per replica)", e.micro_batches, o.micro_batch)));
  s.lines.push_back(computed(k + ".step.compute", "Compute", b.compute, Unit::kSeconds, fx::kStepCompute,
                             {term("m", e.micro_batches),
                              term("F_lin", fmt_sig(slow.flops_executed - slow.attention_flops_executed)),
                              term("F_attn", fmt_sig(slow.attention_flops_executed)),
                              term("peak", gpu.peak_bf16_flops, Unit::kFlopPerS),
                              term("eta_gemm", r.prepared.profile.gemm_efficiency),
                              term("eta_attn", r.prepared.profile.attention_efficiency)},
                             fmt::format("(stage {}, the slowest)", r.prepared.slowest_stage)));
  s.lines.push_back(given(k + ".step.memory", "Elementwise kernels (HBM)", b.memory, Unit::kSeconds));
  if (b.tp_comm > 0) s.lines.push_back(given(k + ".step.tp_comm", "TP collectives", b.tp_comm, Unit::kSeconds,
                                             o.sequence_parallel ? "(all-gathers and reduce-scatters, not overlapped)"
                                                                 : "(all-reduces, not overlapped)"));
  if (b.cp_comm > 0) s.lines.push_back(given(k + ".step.cp_comm", "CP all-gathers of K and V", b.cp_comm, Unit::kSeconds));
  if (b.ep_comm > 0) s.lines.push_back(given(k + ".step.ep_comm", "EP all-to-alls", b.ep_comm, Unit::kSeconds));
  if (b.pp_comm > 0) s.lines.push_back(given(k + ".step.pp_comm", "PP sends", b.pp_comm, Unit::kSeconds));
  if (o.layout.pp > 1) {
    s.lines.push_back(computed(k + ".step.bubble", "Pipeline bubble", b.bubble, Unit::kSeconds, fx::kStepBubble,
                               {term("p", o.layout.pp), term("v", o.layout.virtual_stages),
                                term("t_mb", S(slow.t_micro_batch + b.pp_comm / static_cast<double>(e.micro_batches)))},
                               fmt::format("((p − 1) / (m v) = {} of the ideal)",
                                           format_brief(pipeline_bubble_fraction(static_cast<double>(o.layout.pp),
                                                                                 static_cast<double>(e.micro_batches),
                                                                                 static_cast<double>(o.layout.virtual_stages)),
                                                        Unit::kFraction))));
  }
  s.lines.push_back(given(k + ".step.dp_comm", "DP reduction and gathers (exposed)", b.dp_comm, Unit::kSeconds,
                          fmt::format("({} on the wire per GPU, {})", format_brief(r.dp_wire_bytes, Unit::kBytes),
                                      o.overlap_dp ? "overlapped with compute where it fits" : "not overlapped")));
  s.lines.push_back(given(k + ".step.optimizer", "Optimizer update", b.optimizer, Unit::kSeconds));
  s.lines.push_back(computed(k + ".step_seconds", "Step (predicted)", e.seconds, Unit::kSeconds, fx::kStepTotal,
                             {term("compute", S(b.compute)), term("memory", S(b.memory)), term("tp", S(b.tp_comm)),
                              term("cp", S(b.cp_comm)), term("ep", S(b.ep_comm)), term("pp", S(b.pp_comm)),
                              term("bubble", S(b.bubble)), term("dp", S(b.dp_comm)), term("optimizer", S(b.optimizer))}));
  s.lines.push_back(computed(k + ".ceiling_seconds", "Step at the ceiling", e.ceiling_seconds, Unit::kSeconds,
                             fx::kStepCeiling,
                             {term("m", e.micro_batches), term("p", o.layout.pp), term("v", o.layout.virtual_stages),
                              term("F_stage", fmt_sig(r.prepared.max_flops_executed)),
                              term("peak", gpu.peak_bf16_flops, Unit::kFlopPerS)},
                             "(dense peak, the bubble, nothing else: no run is faster)"));
  s.lines.push_back(computed(k + ".mfu", "MFU (predicted)", e.mfu, Unit::kFraction, fx::kStepMfu,
                             {term("F_model", fmt_sig(r.prepared.flops_per_token.model)), term("tokens", e.tokens),
                              term("t_step", S(e.seconds)), term("gpus", r.gpus),
                              term("peak", gpu.peak_bf16_flops, Unit::kFlopPerS)}));
  s.lines.push_back(computed(k + ".hfu", "HFU (predicted)", e.hfu, Unit::kFraction, fx::kStepHfu,
                             {term("F_hardware", fmt_sig(r.prepared.flops_per_token.hardware)), term("tokens", e.tokens),
                              term("t_step", S(e.seconds)), term("gpus", r.gpus),
                              term("peak", gpu.peak_bf16_flops, Unit::kFlopPerS)}));
  s.lines.push_back(given(k + ".memory_per_gpu", "Memory per GPU (worst stage)", e.peak_memory, Unit::kBytes,
                          e.fits ? fmt::format("(of {})", format_brief(gpu.capacity_bytes, Unit::kBytes))
                                 : fmt::format("(over the {} capacity: train-memory shows where)",
                                               format_brief(gpu.capacity_bytes, Unit::kBytes))));
  if (tokens > 0) {
    const double steps = std::ceil(tokens / e.tokens);
    const double days = steps * e.seconds / 86400.0;
    s.lines.push_back(computed(k + ".steps", "Steps", static_cast<int64_t>(steps), Unit::kNone, fx::kSteps,
                               {term("D", format_brief(tokens, Unit::kTokens)),
                                term("global_batch", effective_global_batch(o)),
                                term("s", o.seq)}));
    s.lines.push_back(computed(k + ".days", "Wall-clock (predicted)", days, Unit::kDays, fx::kTrainRunDays,
                               {term("steps", fmt_sig(steps)), term("t_step", S(e.seconds))}));
  }
  s.notes.push_back("The prediction uses the calibrated profile (data/training-profile.tsv, `modelcalc calibrate "
                    "--training`): matmuls and attention at fitted fractions of the dense peak, elementwise kernels "
                    "at HBM speed, collectives at a fitted fraction of the catalog's links.");
  if (!e.fits) {
    s.notes.push_back("The layout does not fit in memory: the time is what it would take if it did.");
  }
  return s;
}

}  // namespace modelcalc
