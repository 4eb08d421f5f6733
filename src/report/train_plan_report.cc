#include "train_plan_report.h"

#include <fmt/format.h>

#include "format.h"
#include "train_memory_report.h"

namespace modelcalc {

namespace {

std::string split_text(const TrainPlanLayout& l) {
  std::string s = fmt::format("TP {} × PP {} × DP {}", l.tp, l.pp, l.dp);
  if (l.ep > 1) s += fmt::format(" (EP {})", l.ep);
  return s + fmt::format(", ZeRO-{}, recompute {}", l.zero, recompute_name(l.recompute));
}

const char* bound_name(TrainPlanBound b) {
  switch (b) {
    case TrainPlanBound::kNone: return "none";
    case TrainPlanBound::kDeadline: return "deadline";
    case TrainPlanBound::kMemory: return "memory";
    case TrainPlanBound::kGpuLimit: return "max_gpus";
  }
  return "";
}

std::string bound_text(TrainPlanBound b, const TrainPlanQuery& q) {
  switch (b) {
    case TrainPlanBound::kNone:
      return "Nothing binds: this is the most efficient layout searched, and it meets the deadline.";
    case TrainPlanBound::kDeadline:
      return "The deadline decides: a cheaper layout (fewer GPUs, less parallel overhead) fits in memory but takes "
             "longer than " + format_quantity(q.deadline_days, Unit::kDays) + ".";
    case TrainPlanBound::kMemory:
      return "Memory decides: every layout searched that would be cheaper (or faster) runs out of memory.";
    case TrainPlanBound::kGpuLimit:
      return "--max-gpus decides: a faster layout needs more GPUs than allowed.";
  }
  return "";
}

// One layout in a sentence, every number through the renderer.
std::string layout_sentence(const TrainPlanQuery& q, const TrainPlanLayout& l) {
  return fmt::format("{} × {} ({} nodes), {}, b {} / {} seq: step {}, MFU {}, {}, {}", l.gpus,
                     q.gpus[l.gpu_index].gpu.name, l.nodes, split_text(l), l.micro_batch, group_digits(l.global_batch),
                     format_brief(l.eval.seconds, Unit::kSeconds), format_brief(l.eval.mfu, Unit::kFraction),
                     format_quantity(l.days, Unit::kDays), format_quantity(l.usd, Unit::kUsd));
}

nlohmann::json breakdown_json(const StepBreakdown& b) {
  return {{"compute", b.compute}, {"memory", b.memory}, {"tp_comm", b.tp_comm}, {"cp_comm", b.cp_comm},
          {"ep_comm", b.ep_comm}, {"pp_comm", b.pp_comm}, {"bubble", b.bubble},   {"dp_comm", b.dp_comm},
          {"optimizer", b.optimizer}};
}

nlohmann::json layout_json(const TrainPlanQuery& q, const TrainPlanLayout& l) {
  const TrainPlanGpu& g = q.gpus[l.gpu_index];
  return {{"gpu", g.gpu.key},
          {"usd_per_gpu_hour", g.usd_per_gpu_hour},
          {"gpus", l.gpus},
          {"nodes", l.nodes},
          {"tp", l.tp},
          {"pp", l.pp},
          {"dp", l.dp},
          {"ep", l.ep},
          {"zero", l.zero},
          {"recompute", recompute_name(l.recompute)},
          {"microbatch", l.micro_batch},
          {"global_batch", l.global_batch},
          {"memory_per_gpu", l.eval.peak_memory},
          {"capacity_bytes", g.gpu.capacity_bytes},
          {"step_seconds", l.eval.seconds},
          {"ceiling_step_seconds", l.eval.ceiling_seconds},
          {"step_breakdown", breakdown_json(l.eval.step)},
          {"mfu", l.eval.mfu},
          {"hfu", l.eval.hfu},
          {"steps", l.steps},
          {"days", l.days},
          {"gpu_hours", l.gpu_hours},
          {"usd", l.usd},
          {"deciding", bound_name(l.bound)}};
}

Section best_section(const TrainPlanQuery& q, const TrainPlanResult& r, const TrainPlanLayout& l) {
  const TrainPlanGpu& g = q.gpus[l.gpu_index];
  Section s{fmt::format("{}: {} × {}", q.rank_by == TrainPlanRank::kCost ? "Cheapest" : "Fastest", l.gpus, g.gpu.name),
            {},
            {}};
  auto S = [](double v) { return format_quantity(v, Unit::kSeconds); };
  s.lines.push_back(given("best.gpu_name", "GPU", g.gpu.name, Unit::kNone));  // layouts[].gpu is the key
  s.lines.push_back(given("best.gpus", "GPUs", l.gpus, Unit::kNone,
                          fmt::format("({} nodes of {})", l.nodes, std::max<int64_t>(1, g.gpu.domain_gpus))));
  s.lines.push_back(given("best.split", "Split", split_text(l), Unit::kNone));
  s.lines.push_back(given("best.global_batch", "Global batch", l.global_batch, Unit::kSequences,
                          fmt::format("({} micro-batches of {} per replica, {} tokens)", l.eval.micro_batches,
                                      l.micro_batch, format_brief(l.eval.tokens, Unit::kTokens))));
  const StepBreakdown& b = l.eval.step;
  s.lines.push_back(given("best.step.compute", "Compute", b.compute, Unit::kSeconds));
  s.lines.push_back(given("best.step.memory", "Elementwise kernels (HBM)", b.memory, Unit::kSeconds));
  s.lines.push_back(given("best.step.tp_comm", "TP collectives", b.tp_comm, Unit::kSeconds));
  if (b.ep_comm > 0) s.lines.push_back(given("best.step.ep_comm", "EP all-to-alls", b.ep_comm, Unit::kSeconds));
  s.lines.push_back(given("best.step.pp_comm", "PP sends", b.pp_comm, Unit::kSeconds));
  s.lines.push_back(given("best.step.bubble", "Pipeline bubble", b.bubble, Unit::kSeconds));
  s.lines.push_back(given("best.step.dp_comm", "DP reduction and gathers (exposed)", b.dp_comm, Unit::kSeconds));
  s.lines.push_back(given("best.step.optimizer", "Optimizer update", b.optimizer, Unit::kSeconds));
  s.lines.push_back(computed("best.step_seconds", "Step (predicted)", l.eval.seconds, Unit::kSeconds, fx::kStepTotal,
                             {term("compute", S(b.compute)), term("memory", S(b.memory)), term("tp", S(b.tp_comm)),
                              term("cp", S(b.cp_comm)), term("ep", S(b.ep_comm)), term("pp", S(b.pp_comm)),
                              term("bubble", S(b.bubble)), term("dp", S(b.dp_comm)), term("optimizer", S(b.optimizer))}));
  s.lines.push_back(given("best.mfu", "MFU (predicted)", l.eval.mfu, Unit::kFraction,
                          fmt::format("(HFU {})", format_brief(l.eval.hfu, Unit::kFraction))));
  s.lines.push_back(given("best.memory_per_gpu", "Memory per GPU (worst stage)", l.eval.peak_memory, Unit::kBytes,
                          fmt::format("(of {})", format_brief(g.gpu.capacity_bytes, Unit::kBytes))));
  s.lines.push_back(computed("best.steps", "Steps", static_cast<int64_t>(l.steps), Unit::kNone, fx::kSteps,
                             {term("D", format_brief(q.tokens, Unit::kTokens)), term("global_batch", l.global_batch),
                              term("s", q.seq)}));
  s.lines.push_back(computed("best.days", "Wall-clock", l.days, Unit::kDays, fx::kTrainRunDays,
                             {term("steps", fmt_sig(l.steps)), term("t_step", S(l.eval.seconds))}));
  s.lines.push_back(computed("best.gpu_hours", "GPU-hours", l.gpu_hours, Unit::kHours, fx::kTrainRunHours,
                             {term("days", fmt_sig(l.days)), term("gpus", l.gpus)}));
  s.lines.push_back(computed("best.usd", "Cost", l.usd, Unit::kUsd, fx::kTrainCost,
                             {term("H", fmt_sig(l.gpu_hours)), term("price", g.usd_per_gpu_hour)},
                             "(price per GPU-hour: " + format_brief(g.usd_per_gpu_hour, Unit::kUsd) + ")"));
  s.lines.push_back(given("best.deciding", "Deciding constraint", std::string(bound_name(l.bound)), Unit::kNone));
  s.notes.push_back(bound_text(l.bound, q));
  (void)r;
  return s;
}

}  // namespace

Report build_train_plan_report(const std::string& model, const TrainPlanQuery& q, const TrainPlanResult& r) {
  Report rep;
  rep.title = fmt::format("modelcalc train-plan — {} on {} tokens within {}", model,
                          format_brief(q.tokens, Unit::kTokens), format_quantity(q.deadline_days, Unit::kDays));
  Section w{"Work", {}, {}};
  w.lines.push_back(given("params", "Parameters N", r.params, Unit::kParams, "(all of them carry training states)"));
  w.lines.push_back(given("active_params", "Active per token N_active", r.active_params, Unit::kParams));
  w.lines.push_back(given("tokens", "Training tokens D", q.tokens, Unit::kTokens));
  for (Line& l : train_flops_lines("flops", *q.model, q.seq, Recompute::kNone, AttentionCount::kFull,
                                   r.flops_per_token)) {
    w.lines.push_back(std::move(l));
  }
  w.lines.push_back(computed("model_flops", "Model FLOPs", r.model_flops, Unit::kFlop, fx::kTfTotal,
                             {term("F_token", fmt_sig(r.flops_per_token.model)),
                              term("D", format_brief(q.tokens, Unit::kTokens))}));
  w.lines.push_back(given("deadline_days", "Deadline", q.deadline_days, Unit::kDays));
  w.lines.push_back(given("seq", "Sequence length", q.seq, Unit::kTokens));
  w.lines.push_back(given("max_batch_tokens", q.global_batch > 0 ? "Global batch (given)" : "Largest global batch",
                          q.global_batch > 0 ? static_cast<double>(q.global_batch) * static_cast<double>(q.seq)
                                             : q.max_batch_tokens,
                          Unit::kTokens));
  w.lines.push_back(given("optimizer", "Optimizer", std::string(optimizer_name(q.optimizer)), Unit::kNone,
                          q.fp32_grads ? "(fp32 gradients, as Megatron keeps them)" : "(16-bit gradients)"));
  w.lines.push_back(given("profile.gemm_efficiency", "Profile: matmuls at", q.profile.gemm_efficiency, Unit::kFraction,
                          "(of the dense peak; calibrate --training)"));
  w.lines.push_back(given("profile.attention_efficiency", "Profile: attention at", q.profile.attention_efficiency,
                          Unit::kFraction));
  w.lines.push_back(given("profile.hbm_traffic", "Profile: elementwise HBM bytes per activation byte",
                          q.profile.hbm_traffic, Unit::kNone));
  w.lines.push_back(given("profile.link_efficiency", "Profile: links at", q.profile.link_efficiency, Unit::kFraction));
  rep.sections.push_back(std::move(w));

  if (!r.layouts.empty()) {
    // The ranking's first is its kind's best (the deciding constraint is computed per kind).
    for (const TrainPlanKind& k : r.kinds) {
      if (k.found && k.gpu_index == r.layouts.front().gpu_index) rep.sections.push_back(best_section(q, r, k.best));
    }
  }
  Section ranked{fmt::format("Ranked by {} (at most {}; one per structural choice: its cheapest node count meeting "
                             "the deadline{})",
                             q.rank_by == TrainPlanRank::kCost ? "cost" : "time", q.top,
                             q.rank_by == TrainPlanRank::kCost ? "" : ", or its most within --max-gpus"),
                 {},
                 {}};
  nlohmann::json layouts = nlohmann::json::array();
  for (size_t i = 0; i < r.layouts.size(); ++i) {
    ranked.lines.push_back(given("", fmt::format("{}.", i + 1), layout_sentence(q, r.layouts[i]), Unit::kNone));
    layouts.push_back(layout_json(q, r.layouts[i]));
  }
  if (r.layouts.empty()) ranked.notes.push_back("Nothing meets the deadline within --max-gpus (below).");
  rep.sections.push_back(std::move(ranked));

  Section kinds{"Per GPU kind", {}, {}};
  nlohmann::json kinds_json = nlohmann::json::array();
  for (const TrainPlanKind& k : r.kinds) {
    const TrainPlanGpu& g = q.gpus[k.gpu_index];
    nlohmann::json kj = {{"gpu", g.gpu.key}, {"found", k.found}};
    if (k.found) {
      kinds.notes.push_back(fmt::format("{}: {} (deciding: {}).", g.gpu.name, layout_sentence(q, k.best),
                                        bound_name(k.best.bound)));
      kj["best"] = layout_json(q, k.best);
    } else if (k.any_fits) {
      kinds.notes.push_back(fmt::format("{}: misses the deadline; its fastest layout that fits takes {} ({}).",
                                        g.gpu.name, format_quantity(k.fastest.days, Unit::kDays),
                                        layout_sentence(q, k.fastest)));
      kj["fastest"] = layout_json(q, k.fastest);
      kj["reason"] = "deadline";
    } else {
      kinds.notes.push_back(fmt::format("{}: no layout searched fits its {} within {} GPUs.", g.gpu.name,
                                        format_brief(g.gpu.capacity_bytes, Unit::kBytes), group_digits(q.max_gpus)));
      kj["reason"] = "memory";
    }
    kinds_json.push_back(std::move(kj));
  }
  rep.sections.push_back(std::move(kinds));
  rep.extra_json["layouts"] = std::move(layouts);
  rep.extra_json["kinds"] = std::move(kinds_json);
  rep.extra_json["searched"] = r.searched;
  rep.extra_json["prepared"] = r.prepared;
  rep.extra_json["seconds"] = r.seconds;
  rep.ignored = {
      "Failures, restarts, evaluation and data stalls: the days are a lower bound on wall-clock.",
      "Context parallelism and the interleaved schedule are not searched (train and train-memory evaluate them: "
      "--cp, --virtual-stages); uneven pipeline splits neither: PP divides the layers.",
      "TP beyond one node (the fast domain) is not searched.",
      "The global batch's effect on convergence: the largest within --max-batch-tokens is taken as free.",
      fmt::format("Searched {} layouts ({} structural choices prepared) in {}.", group_digits(r.searched),
                  group_digits(r.prepared), format_brief(r.seconds, Unit::kSeconds))};
  warn_model_assumptions(q.model->assumptions, rep);
  return rep;
}

}  // namespace modelcalc
