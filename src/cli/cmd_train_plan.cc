// modelcalc train-plan: the cheapest (or fastest) GPU kind, whole-node count
// and layout (TP x PP x DP x EP, ZeRO, recomputation, micro-batch, global
// batch) that trains a model on D tokens within a deadline, every layout
// evaluated by the training engine.
#include <memory>
#include <utility>

#include "commands.h"
#include "format.h"
#include "inputs.h"
#include "lab_flags.h"
#include "modelcalc/train_plan.h"
#include "quantity.h"
#include "request_context.h"
#include "runs.h"
#include "train_flags.h"
#include "train_plan_report.h"

namespace modelcalc {

namespace {

struct TrainPlanFlags : TrainPlanInputs {
  ModelFlags model;
  OutputFlags output;
};

Result<int64_t> capped_count(std::string_view text, std::string_view flag, int64_t max) {
  return parse_capped_count(text, flag, max);
}

Status run_train_plan_command(const TrainPlanFlags& f, std::ostream& out, int* exit_code) {
  MC_ASSIGN_OR_RETURN(ModelSpec m, resolve_model_flags(f.model));
  TrainPlanRun run;
  MC_RETURN_IF_ERROR(run_train_plan(std::make_shared<const ModelSpec>(std::move(m)), f, &run));
  emit(train_plan_report(run), f.output, out);
  *exit_code = run.result.layouts.empty() ? 1 : 0;
  return Status::Ok();
}

}  // namespace

Result<int64_t> parse_capped_count(std::string_view text, std::string_view flag, int64_t max) {
  MC_ASSIGN_OR_RETURN(const int64_t v, parse_count(text, flag));
  if (v > max) {
    return Status::InvalidArgument(flag, "must be at most " + group_digits(max) + ", got " + quote_input(text));
  }
  return v;
}

Result<double> parse_train_days(std::string_view text, std::string_view flag) {
  MC_ASSIGN_OR_RETURN(const double d, parse_positive_count(text, flag));
  if (d > 1e6) return Status::InvalidArgument(flag, "must be at most 1,000,000 days");
  return d;
}

Result<double> parse_max_batch_tokens(std::string_view text, std::string_view flag) {
  MC_ASSIGN_OR_RETURN(const double v, parse_positive_count(text, flag));
  if (v > 1e12) return Status::InvalidArgument(flag, "must be at most 1e12 tokens");
  return v;
}

Status run_train_plan(SharedModel m, const TrainPlanInputs& f, TrainPlanRun* out) {
  MC_ASSIGN_OR_RETURN(const std::vector<PricedGpu> priced, resolve_priced_gpus(f.gpu, f.price));
  TrainPlanQuery& q = out->query;
  q = TrainPlanQuery{};
  q.model = m.get();
  q.tokens = f.tokens;
  q.deadline_days = f.days;
  q.max_gpus = f.max_gpus;
  q.seq = f.seq;
  MC_ASSIGN_OR_RETURN(q.micro_batches, parse_count_list(f.micro_batch, "--micro-batch", 1024));
  q.global_batch = f.global_batch.value_or(0);
  if (f.max_batch_tokens) q.max_batch_tokens = *f.max_batch_tokens;
  if (q.global_batch > 0 && f.max_batch_tokens) {
    return Status::InvalidArgument("--max-batch-tokens", "give either --global-batch or --max-batch-tokens, not both");
  }
  if (q.global_batch == 0 && !(q.max_batch_tokens >= static_cast<double>(q.seq))) {
    return Status::InvalidArgument("--max-batch-tokens", "must hold at least one sequence of --seq tokens");
  }
  q.max_tp = f.max_tp;
  q.max_pp = f.max_pp;
  q.max_ep = f.max_ep;
  q.top = f.top;
  q.optimizer = f.optimizer;
  q.fp32_grads = !f.bf16_grads;
  q.flash = !f.no_flash;
  if (f.rank_by == "cost") q.rank_by = TrainPlanRank::kCost;
  else if (f.rank_by == "time") q.rank_by = TrainPlanRank::kTime;
  else return Status::InvalidArgument("--rank-by", "expected cost or time, got " + quote_input(f.rank_by));
  for (const PricedGpu& g : priced) {
    // A kind the engine cannot time (no bf16 peak, or no links between GPUs) is not searched.
    if (!(g.gpu.peak_bf16_flops > 0 && g.gpu.bandwidth_bytes_per_s > 0 && g.gpu.link_bytes_per_s > 0 &&
          g.gpu.scaleout_bytes_per_s > 0)) {
      continue;
    }
    q.gpus.push_back({g.gpu, g.price.usd_per_hour});
  }
  if (q.gpus.empty()) {
    return Status::InvalidArgument("--gpu", "no GPU to search: none has a price, a bf16 peak and link figures");
  }
  const app::Context& ctx = current_request_context();  // the web server's request: its token and budget
  const SearchControl control(ctx.cancel, ctx.cpu_budget_s, ctx.progress);
  q.control = &control;
  auto result = plan_training(q);
  q.control = nullptr;  // the report reads the query after this frame
  MC_ASSIGN_OR_RETURN(out->result, std::move(result));
  MC_RETURN_IF_ERROR(control.status());
  out->model = std::move(m);
  return Status::Ok();
}

Report train_plan_report(const TrainPlanRun& r) {
  return build_train_plan_report(r.model->name, r.query, r.result);
}

CommandRun setup_train_plan(FlagSet& flags) {
  auto f = std::make_shared<TrainPlanFlags>();
  add_model_flags(flags, &f->model);
  flags.add<double>("--tokens", "Training tokens D (required), e.g. 15T", &f->tokens, parse_positive_count)
      .required()
      .add<double>("--days", "Deadline in days (required): the run must finish within it, e.g. 30", &f->days,
                   parse_train_days)
      .required()
      .text("--gpu", "GPU kinds to search, a comma list (default: every catalog GPU with a price and links)", &f->gpu)
      .text("--price", "USD per GPU-hour overrides, e.g. h100=2.49,mi300x=1.5 (default: data/prices.tsv)", &f->price)
      .add<int64_t>("--max-gpus", "Most GPUs in the run, whole nodes within it, 1 to 1,048,576 (default: 4096)",
                    &f->max_gpus, [](std::string_view t, std::string_view fl) { return capped_count(t, fl, kTrainPlanMaxGpus); })
      .add<int64_t>("--seq", "Training sequence length in tokens, 1 to 2^30 (default: 4096)", &f->seq,
                    [](std::string_view t, std::string_view fl) { return capped_count(t, fl, kTrainPlanMaxSeq); })
      .text("--micro-batch", "Micro-batch sizes searched, a comma list, each 1 to 1024 (default: 1,2,4,8)",
            &f->micro_batch)
      .add<int64_t>("--global-batch", "Sequences per optimizer step, exactly (default: searched)", &f->global_batch,
                    [](std::string_view t, std::string_view fl) { return capped_count(t, fl, kTrainPlanMaxGlobalBatch); })
      .add<double>("--max-batch-tokens", "Largest global batch in tokens, e.g. 4M, 16M (default: 4,194,304)",
                   &f->max_batch_tokens, parse_max_batch_tokens)
      .add<int64_t>("--max-tp", "Largest tensor-parallel degree searched (1, 2, 4, ...), 1 to 1024 (default: 8)",
                    &f->max_tp, [](std::string_view t, std::string_view fl) { return capped_count(t, fl, kTrainPlanMaxSplit); })
      .add<int64_t>("--max-pp", "Largest pipeline-parallel degree searched (divisors of the layers), 1 to 1024 "
                                "(default: 16)",
                    &f->max_pp, [](std::string_view t, std::string_view fl) { return capped_count(t, fl, kTrainPlanMaxSplit); })
      .add<int64_t>("--max-ep", "Largest expert-parallel degree searched for MoE (1, 2, 4, ...), 1 to 1024 (default: 64)",
                    &f->max_ep, [](std::string_view t, std::string_view fl) { return capped_count(t, fl, kTrainPlanMaxSplit); })
      .add<Optimizer>("--optimizer", "adamw (mixed precision), adamw-fp32, sgd (momentum), adam8bit (default: adamw)",
                      &f->optimizer, parse_optimizer)
      .toggle("--bf16-grads", "16-bit gradients (default: fp32, as Megatron keeps them)", &f->bf16_grads)
      .toggle("--no-flash", "Eager attention, s x s scores kept (default: FlashAttention)", &f->no_flash)
      .text("--rank-by", "cost or time (default: cost)", &f->rank_by)
      .add<int64_t>("--top", "Layouts listed, 1 to 1000 (default: 10)", &f->top,
                    [](std::string_view t, std::string_view fl) { return capped_count(t, fl, kTrainPlanMaxTop); });
  add_output_flags(flags, &f->output);
  flags.footer("Exit status 1 (with each GPU kind's fastest miss) when nothing meets the deadline; 2 for bad input.");
  return [f](std::ostream& out) {
    int code = 0;
    Status s = run_train_plan_command(*f, out, &code);
    if (s.ok() && code == 1) return Status::NotMet("train-plan: nothing meets the deadline (each kind's fastest above)");
    return s;
  };
}

}  // namespace modelcalc
