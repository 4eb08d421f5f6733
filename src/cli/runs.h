// train-plan and gpus, which have not moved to the request layer yet
// (modelcalc/app/answers.h holds the commands that have): the CLI's commands
// (cmd_*.cc) and the Python bindings (src/python) both call these, so the two
// run the same analyses in the same order, with the same defaults and errors,
// and build the same Report (its JSON is `--json` and Python's to_dict()).
//
// Each command is two steps: run_*() validates and runs the analyses into a
// plain *Run struct (no strings formatted, no report built: what Python's
// attribute access reads), and *_report() / *_document() builds the
// presentation from it, reading results only.
//
// Inputs are the commands' flag structs (inputs.h) without the model, GPU and
// output flags: the model and GPU come resolved (the CLI resolves its flags,
// Python its Model and Gpu objects), shared so that a Run outlives the call.
// Errors name the CLI's flags ("--kv-dtype: ..."); Python renames them to its
// keywords.
#ifndef MODELCALC_RUNS_H_
#define MODELCALC_RUNS_H_

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "inputs.h"
#include "modelcalc/capacity.h"
#include "modelcalc/deployment.h"
#include "modelcalc/diagnose.h"
#include "modelcalc/gpu.h"
#include "modelcalc/model.h"
#include "modelcalc/plan.h"
#include "modelcalc/plan_engine.h"
#include "modelcalc/scenario.h"
#include "modelcalc/serving.h"
#include "modelcalc/size.h"
#include "modelcalc/status.h"
#include "modelcalc/sweep.h"
#include "modelcalc/train_plan.h"
#include "modelcalc/training.h"
#include "report.h"

namespace modelcalc {

using SharedModel = std::shared_ptr<const ModelSpec>;

// ---------------------------------------------------------------- train-plan

struct TrainPlanInputs {
  double tokens = 0, days = 0;
  std::string gpu, price, micro_batch = "1,2,4,8", rank_by = "cost";
  int64_t max_gpus = 4096, seq = 4096, max_tp = 8, max_pp = 16, max_ep = 64, top = 10;
  std::optional<int64_t> global_batch;
  std::optional<double> max_batch_tokens;
  Optimizer optimizer = Optimizer::kAdamW;
  bool bf16_grads = false, no_flash = false;
};
// The ranges of train-plan's counts (--help states them).
inline constexpr int64_t kTrainPlanMaxGpus = int64_t{1} << 20;
inline constexpr int64_t kTrainPlanMaxSeq = int64_t{1} << 30;
inline constexpr int64_t kTrainPlanMaxGlobalBatch = int64_t{1} << 30;
inline constexpr int64_t kTrainPlanMaxSplit = 1024;  // --max-tp, --max-pp, --max-ep
inline constexpr int64_t kTrainPlanMaxTop = 1000;
// The parsers of train-plan's flags (their ranges are --help's).
Result<double> parse_train_days(std::string_view text, std::string_view flag);        // (0, 1e6]
Result<double> parse_max_batch_tokens(std::string_view text, std::string_view flag);  // (0, 1e12]
Result<int64_t> parse_capped_count(std::string_view text, std::string_view flag, int64_t max);  // [1, max]

struct TrainPlanRun {
  SharedModel model;
  TrainPlanQuery query;  // query.model points into *model
  TrainPlanResult result;  // result.layouts empty: nothing meets the deadline (the CLI exits 1)
};

Status run_train_plan(SharedModel m, const TrainPlanInputs& in, TrainPlanRun* out);
Report train_plan_report(const TrainPlanRun& r);

// ---------------------------------------------------------------- gpus

// One row of `gpus --json`: the catalog entry with its usable capacity and ridge.
nlohmann::json gpu_row_json(const GpuSpec& g);

}  // namespace modelcalc

#endif  // MODELCALC_RUNS_H_
