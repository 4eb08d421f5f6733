#include "train_plan_report.h"

#include <fmt/format.h>

#include "capacity_report.h"
#include "format.h"

namespace modelcalc {

namespace {

const char* recompute_phrase(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "no recomputation";
    case Recompute::kSelective: return "selective recomputation";
    case Recompute::kFull: return "full recomputation";
  }
  return "";
}

std::string split_text(const TrainPlanConfig& c) {
  return fmt::format("TP {} × PP {} × DP {}, ZeRO-{}", c.tp, c.pp, c.dp, c.zero);
}

// One ranked configuration in a sentence.
std::string config_text(const TrainPlanQuery& q, const TrainPlanConfig& c) {
  return fmt::format("{} × {}, {}, {}: {}, {}", c.gpus, q.gpus[c.gpu_index].gpu.name, split_text(c),
                     recompute_phrase(c.recompute), format_quantity(c.days, Unit::kDays),
                     format_brief(c.usd, Unit::kUsd));
}

nlohmann::json config_json(const TrainPlanQuery& q, const TrainPlanConfig& c) {
  const TrainPlanGpu& g = q.gpus[c.gpu_index];
  return {{"gpu", g.gpu.key},
          {"usd_per_gpu_hour", g.usd_per_gpu_hour},
          {"gpus", c.gpus},
          {"tp", c.tp},
          {"pp", c.pp},
          {"dp", c.dp},
          {"zero", c.zero},
          {"recompute", recompute_name(c.recompute)},
          {"bound", c.bound == TrainPlanBound::kMemory ? "memory" : "deadline"},
          {"deadline_gpus", c.deadline_gpus},
          {"hardware_flops", c.hardware_flops},
          {"gpu_hours", c.gpu_hours},
          {"days", c.days},
          {"usd", c.usd},
          {"memory_bytes_per_gpu", c.memory.total},
          {"capacity_bytes", c.memory.capacity}};
}

Section best_section(const TrainPlanQuery& q, const TrainPlanResult& r, const TrainPlanConfig& c) {
  const TrainPlanGpu& g = q.gpus[c.gpu_index];
  Section s{fmt::format("Cheapest: {} × {}", c.gpus, g.gpu.name), {}, {}};
  const double factor = c.hardware_flops / r.model_flops;
  s.lines.push_back(given("best.gpu_name", "GPU", g.gpu.name, Unit::kNone));  // ranked[].gpu is the key
  s.lines.push_back(given("best.gpus", "GPUs", c.gpus, Unit::kNone));
  s.lines.push_back(given("best.split", "Split", split_text(c), Unit::kNone));
  s.lines.push_back(given("best.recompute", "Activation recomputation", std::string(recompute_name(c.recompute)),
                          Unit::kNone));
  s.lines.push_back(computed("best.hardware_flops", "FLOPs executed", c.hardware_flops, Unit::kFlop, fx::kTrainPlanFlops,
                             {term("N_active", format_brief(static_cast<double>(r.active_params), Unit::kParams)),
                              term("D", format_brief(q.tokens, Unit::kTokens)), term("r", fmt_sig(factor, 6))},
                             c.recompute == Recompute::kFull ? "(r = 4/3: every forward pass twice)" : "(r = 1)"));
  s.lines.push_back(computed("best.gpu_hours", "GPU-hours", c.gpu_hours, Unit::kHours, fx::kTrainGpuHours,
                             {term("F", fmt_sig(c.hardware_flops)),
                              term("peak", g.gpu.peak_bf16_flops, Unit::kFlopPerS), term("mfu", q.mfu)}));
  s.lines.push_back(computed("best.deadline_gpus", "GPUs the deadline needs", c.deadline_gpus, Unit::kNone,
                             fx::kTrainPlanDeadlineGpus,
                             {term("H", fmt_sig(c.gpu_hours)), term("deadline", q.deadline_days)}));
  s.lines.push_back(computed("best.days", "Wall-clock", c.days, Unit::kDays, fx::kTrainDays,
                             {term("H", fmt_sig(c.gpu_hours)), term("gpus", c.gpus)}));
  s.lines.push_back(computed("best.usd", "Cost", c.usd, Unit::kUsd, fx::kTrainCost,
                             {term("H", fmt_sig(c.gpu_hours)), term("price", g.usd_per_gpu_hour)},
                             "(price per GPU-hour: " + format_brief(g.usd_per_gpu_hour, Unit::kUsd) + ")"));
  const TrainMemoryResult& mem = c.memory;
  s.lines.push_back(given("best.memory.weights", "Weights per GPU", mem.weights, Unit::kBytes));
  s.lines.push_back(given("best.memory.gradients", "Gradients per GPU", mem.gradients, Unit::kBytes));
  s.lines.push_back(given("best.memory.optimizer", "Optimizer states per GPU", mem.optimizer, Unit::kBytes));
  s.lines.push_back(given("best.memory.activations", "Activations per GPU", mem.activations, Unit::kBytes,
                          "(first pipeline stage, 1F1B)"));
  s.lines.push_back(given("best.memory.total", "Memory per GPU", mem.total, Unit::kBytes,
                          "(of " + format_brief(mem.capacity, Unit::kBytes) + ")"));
  s.notes.push_back(c.bound == TrainPlanBound::kMemory
                        ? fmt::format("Memory sets the count: the deadline alone needs {} GPUs, but the states and "
                                      "activations need {} at this split.",
                                      c.deadline_gpus, c.gpus)
                        : fmt::format("The deadline sets the count: {} GPUs finish in {} of the {} allowed. On one "
                                      "GPU kind every count costs the same GPU-hours, so fewer would only take "
                                      "longer.",
                                      c.gpus, format_quantity(c.days, Unit::kDays),
                                      format_quantity(q.deadline_days, Unit::kDays)));
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
  w.lines.push_back(computed("model_flops", "Model FLOPs", r.model_flops, Unit::kFlop, fx::kTrain,
                             {term("N", format_brief(static_cast<double>(r.active_params), Unit::kParams)),
                              term("D", format_brief(q.tokens, Unit::kTokens))}));
  w.lines.push_back(given("mfu", "Sustained MFU (assumed)", q.mfu, Unit::kFraction, "(without recomputation)"));
  w.lines.push_back(given("deadline_days", "Deadline", q.deadline_days, Unit::kDays));
  w.lines.push_back(given("seq", "Sequence length", q.seq, Unit::kTokens));
  w.lines.push_back(given("micro_batch", "Micro-batch", q.micro_batch, Unit::kSequences));
  w.lines.push_back(given("optimizer", "Optimizer", std::string(optimizer_name(q.optimizer)), Unit::kNone));
  rep.sections.push_back(std::move(w));

  if (!r.ranked.empty()) rep.sections.push_back(best_section(q, r, r.ranked.front()));

  Section ranked{"Ranked (the best per GPU kind: cost, then GPUs, then the simpler split)", {}, {}};
  nlohmann::json ranked_json = nlohmann::json::array();
  for (size_t i = 0; i < r.ranked.size(); ++i) {
    if (i < 10) ranked.lines.push_back(given("", fmt::format("{}.", i + 1), config_text(q, r.ranked[i]), Unit::kNone));
    ranked_json.push_back(config_json(q, r.ranked[i]));
  }
  if (r.ranked.size() > 10) ranked.notes.push_back(fmt::format("{} more in --json.", r.ranked.size() - 10));
  if (r.ranked.empty()) ranked.notes.push_back("Nothing meets the deadline within --max-gpus (below).");
  rep.sections.push_back(std::move(ranked));

  nlohmann::json misses_json = nlohmann::json::array();
  if (!r.misses.empty()) {
    Section m{"Cannot make it", {}, {}};
    for (const TrainPlanMiss& miss : r.misses) {
      const std::string& name = q.gpus[miss.gpu_index].gpu.name;
      std::string why = miss.deadline_gpus > q.max_gpus
                            ? fmt::format("the deadline needs {} GPUs, more than --max-gpus {}",
                                          group_digits(miss.deadline_gpus), q.max_gpus)
                            : fmt::format("no split, ZeRO stage or recomputation fits its {} within {} GPUs",
                                          format_brief(q.gpus[miss.gpu_index].gpu.capacity_bytes, Unit::kBytes),
                                          q.max_gpus);
      m.notes.push_back(name + ": " + why + ".");
      misses_json.push_back({{"gpu", q.gpus[miss.gpu_index].gpu.key},
                             {"deadline_gpus", miss.deadline_gpus},
                             {"memory_gpus", miss.memory_gpus}});
    }
    rep.sections.push_back(std::move(m));
  }
  rep.extra_json["ranked"] = std::move(ranked_json);
  rep.extra_json["misses"] = std::move(misses_json);
  rep.ignored = {
      "Communication (TP all-reduces, DP gradient reduction, ZeRO gathers) and the pipeline bubble: not modelled; "
      "the MFU must absorb them, and ties go to less PP, then less TP.",
      "The global batch: DP × micro-batch × gradient accumulation is not constrained.",
      "The attention T² term: 6·N·D counts the matmuls only.",
      "Failures, restarts, evaluation and data stalls: the days are a lower bound on wall-clock.",
      "Selective recomputation's extra attention FLOPs (small); full recomputation counts one more forward pass."};
  return rep;
}

}  // namespace modelcalc
