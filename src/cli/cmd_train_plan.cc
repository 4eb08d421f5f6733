// modelcalc train-plan: the cheapest GPU kind, count and split (TP x PP x DP,
// ZeRO, recomputation) that trains a model on D tokens within a deadline.
#include <algorithm>
#include <memory>
#include <utility>

#include "commands.h"
#include "inputs.h"
#include "lab_flags.h"
#include "modelcalc/train_plan.h"
#include "quantity.h"
#include "runs.h"
#include "train_plan_report.h"

namespace modelcalc {

namespace {

struct TrainPlanFlags : TrainPlanInputs {
  ModelFlags model;
  OutputFlags output;
};

Status run_train_plan_command(const TrainPlanFlags& f, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(ModelSpec m, resolve_model(f.model));
  TrainPlanRun run;
  MC_RETURN_IF_ERROR(run_train_plan(std::make_shared<const ModelSpec>(std::move(m)), f, &run));
  emit(train_plan_report(run), f.output, out);
  return Status::Ok();
}

}  // namespace

Result<int64_t> parse_capped_count(std::string_view text, std::string_view flag, int64_t max) {
  MC_ASSIGN_OR_RETURN(const int64_t v, parse_count(text, flag));
  if (v > max) {
    return Status::InvalidArgument(flag, "must be at most " + std::to_string(max) + ", got " + quote_input(text));
  }
  return v;
}

Result<double> parse_train_days(std::string_view text, std::string_view flag) {
  MC_ASSIGN_OR_RETURN(const double d, parse_positive_count(text, flag));
  if (d > 1e6) return Status::InvalidArgument(flag, "must be at most 1,000,000 days");
  return d;
}

Result<double> parse_train_mfu(std::string_view text, std::string_view flag) {
  MC_ASSIGN_OR_RETURN(const double u, parse_fraction(text, flag));
  if (!(u > 0)) return Status::InvalidArgument(flag, "is a fraction of peak in (0, 1], got " + quote_input(text));
  return u;
}

Status run_train_plan(SharedModel m, const TrainPlanInputs& f, TrainPlanRun* out) {
  MC_ASSIGN_OR_RETURN(const std::vector<PricedGpu> priced, resolve_priced_gpus(f.gpu, f.price));
  TrainPlanQuery& q = out->query;
  q = TrainPlanQuery{};
  q.model = m.get();
  q.tokens = f.tokens;
  q.deadline_days = f.days;
  q.mfu = f.mfu;
  q.max_gpus = f.max_gpus;
  q.seq = f.seq;
  q.micro_batch = f.micro_batch;
  q.max_tp = f.max_tp;
  q.max_pp = f.max_pp;
  MC_ASSIGN_OR_RETURN(q.optimizer, parse_optimizer(f.optimizer, "--optimizer"));
  for (const PricedGpu& g : priced) {
    if (!(g.gpu.peak_bf16_flops > 0)) continue;  // a kind without a bf16 peak has no training time
    q.gpus.push_back({g.gpu, g.price.usd_per_hour});
  }
  if (q.gpus.empty()) return Status::InvalidArgument("--gpu", "no GPU to search: none has a price and a bf16 peak");
  auto r = plan_training(q);
  if (!r.ok()) {  // the query's fields are the flags' values: name the flag
    const std::string& msg = r.status().message();
    const std::string field = msg.substr(0, msg.find(':'));
    const char* flag = field == "tokens" ? "--tokens" : field == "deadline_days" ? "--days" : field == "mfu" ? "--mfu"
                     : field == "max_gpus" ? "--max-gpus" : field == "seq" ? "--seq"
                     : field == "micro_batch" ? "--micro-batch" : field == "gpus" ? "--gpu" : nullptr;
    if (flag == nullptr) return r.status();
    return Status::InvalidArgument(flag, msg.substr(std::min(msg.size(), field.size() + 2)));
  }
  out->result = *std::move(r);
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
      .text("--gpu", "GPU kinds to search, a comma list (default: every catalog GPU with a price)", &f->gpu)
      .text("--price", "USD per GPU-hour overrides, e.g. h100=2.49,mi300x=1.5 (default: data/prices.tsv)", &f->price)
      .add<double>("--mfu",
                   "Model FLOPs utilization reached without recomputation, in (0, 1]: 0.4 or 40% (default: 0.4)",
                   &f->mfu,
                   parse_train_mfu)
      .add<int64_t>("--max-gpus", "Most GPUs in the run, 1 to 1,048,576 (default: 4096)", &f->max_gpus,
                    [](std::string_view t, std::string_view fl) { return parse_capped_count(t, fl, kTrainPlanMaxGpus); })
      .add<int64_t>("--seq", "Training sequence length in tokens, 1 to 2^30 (default: 4096)", &f->seq,
                    [](std::string_view t, std::string_view fl) { return parse_capped_count(t, fl, kTrainPlanMaxSeq); })
      .add<int64_t>("--micro-batch", "Sequences per micro-batch, 1 to 2^20 (default: 1)", &f->micro_batch,
                    [](std::string_view t, std::string_view fl) { return parse_capped_count(t, fl, kTrainPlanMaxMicroBatch); })
      .add<int64_t>("--max-tp", "Largest tensor-parallel degree searched (1, 2, 4, ...), 1 to 1024 (default: 8)",
                    &f->max_tp, [](std::string_view t, std::string_view fl) { return parse_capped_count(t, fl, kTrainPlanMaxSplit); })
      .add<int64_t>("--max-pp", "Largest pipeline-parallel degree searched (1, 2, 4, ...), 1 to 1024 (default: 16)",
                    &f->max_pp, [](std::string_view t, std::string_view fl) { return parse_capped_count(t, fl, kTrainPlanMaxSplit); })
      .text("--optimizer", "adamw (mixed precision), adamw-fp32, sgd (momentum), adam8bit (default: adamw)",
            &f->optimizer);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_train_plan_command(*f, out); };
}

}  // namespace modelcalc
