// What a command computes once its inputs are resolved, and the document it
// reports, for the commands that have a second front end: the CLI's commands
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

#include "deployment_options.h"
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
using SharedGpu = std::shared_ptr<const GpuSpec>;  // null: no GPU given

// ---------------------------------------------------------------- size

struct SizeInputs {
  DeploymentFlags dep;                 // --gpus --seq --batch --dtype --kv-dtype --prompt --reserve, engine flags
  EngineCliFlags engine;               // --engine and the engines' own flags (the prediction)
  std::optional<double> train_tokens;  // --train-tokens
};

struct SizeRun {
  SharedModel model;
  SharedGpu gpu;                       // one GPU as given; null without one
  GpuSpec pooled;                      // tensor_parallel(*gpu, --gpus): the textbook sections' GPU; empty without one
  SizeOptions options;
  std::optional<int64_t> context_flag; // --seq as given (the report states where the context came from)
  SizeResult result;                   // analyze_size
  bool has_deployment = false;         // with a GPU: the deployment engine beside the textbook
  DeploymentAnalysis deployment;       // at options.batch
  ServingRegimeAnswer regime;          // the engine's regime at the largest batch HBM holds (scenario.h)
  DeploymentPrediction prediction;     // the engine profile's figures beside the ceiling's
  bool has_serving = false;            // --prompt shorter than the context: a request of isl + osl tokens
  int64_t isl = 0, osl = 0;
  ServingPair serving;                 // its steady state, ceiling and predicted
  std::shared_ptr<const ModelSpec> draft;  // --draft-model's shape (the options point at it); empty without one
};

// Overwrites *out. REQUIRES: m non-null, out non-null.
Status run_size(SharedModel m, SharedGpu gpu, const SizeInputs& in, SizeRun* out);
Report size_report(const SizeRun& r);

// ---------------------------------------------------------------- kv-budget

struct KvBudgetInputs {
  DeploymentFlags dep;  // --gpus --seq/--context --reserve --dtype --kv-dtype --batch --prompt, engine flags
  std::optional<double> budget;
  std::optional<double> workspace;
  std::optional<int64_t> mean_len;    // default: context / 2
  std::optional<int64_t> block_size;  // the paged proposal's and the engine's; default 16 here
  EngineCliFlags engine;              // --engine and the engines' own flags (the prediction)
};

struct KvBudgetRun {
  SharedModel model;
  SharedGpu gpu;  // null when the budget is given without a GPU
  KvBudgetOptions options;
  std::optional<int64_t> context_flag;  // --seq as given (the report states where the context came from)
  KvBudgetResult result;
  bool has_deployment = false;  // with a GPU and no --budget
  std::optional<KvProposals> proposals;  // the engine on each changed setup (with a deployment)
  DeploymentAnalysis deployment;
  DeploymentPrediction prediction;
  std::shared_ptr<const ModelSpec> draft;  // --draft-model's shape (the options point at it); empty without one
};

Status run_kv_budget(SharedModel m, SharedGpu gpu, const KvBudgetInputs& in, KvBudgetRun* out);
Report kv_budget_report(const KvBudgetRun& r);

// ---------------------------------------------------------------- plan

// plan's flags as typed (text, parsed by run_plan), with the defaults --help states.
struct PlanInputs {
  std::string isl, osl, qps, rate, concurrency, ttft, tpot, tps_per_user;
  // dtype "": a quantized checkpoint's own dtype, else bf16,fp8; kv_dtype "": the checkpoint's stated KV
  // dtype, else bf16, and fp8 where the GPU has it (read_space).
  std::string gpu, max_gpus = "64", dtype, kv_dtype, batch, max_pp = "8", ep;  // ep "": 1 and, for a MoE, tp
  std::string price, efficiency = "1.0", top = "10", rank_by;  // rank_by "": predicted
  EngineCliFlags engine;  // --engine and the engines' own flags
  LayoutCliFlags layout;  // --disaggregated, --kv-transfer-overlap, --two-batch-overlap, the drafter, the prefix cache
  bool frontier = false;
};

struct PlanRun {
  SharedModel model;
  PlanRequest request;
  PlanSpace space;
  PlanResult result;  // result.configs empty: nothing meets the targets (the CLI exits 1)
  bool frontier = false;
  std::optional<DisaggPlanResult> disaggregated;  // --disaggregated: the pools (result then holds the aggregated search)
  std::shared_ptr<const ModelSpec> draft;          // --draft-model's shape (the request points at it)
};

Status run_plan(SharedModel m, const PlanInputs& in, PlanRun* out);
// The plan's document and text: the disaggregated plan's when r.disaggregated is set.
nlohmann::json plan_document(const PlanRun& r);
std::string plan_text(const PlanRun& r);
bool plan_feasible(const PlanRun& r);  // a configuration meets every target (else the CLI exits 1)
// --explain of the chosen configuration; REQUIRES: !r.result.configs.empty().
Report plan_explain(const PlanRun& r);

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

// ---------------------------------------------------------------- diagnose

struct DiagnoseInputs {
  std::string file;     // evidence JSON file; flags override it
  ModelFlags model;     // a whole model (--model, --config, a full shape) or shape facts only
  GpuFlags gpu;
  std::optional<Phase> phase;
  std::optional<double> params;
  DeploymentFlags dep;  // --dtype --gpus --batch --seq/--context --prompt
  EngineCliFlags engine;  // the prediction beside the modeled ceiling
  std::optional<double> tps, tokens_per_s_aggregate, ttft, itl;
  std::optional<double> flop_util, bw_util;
  std::optional<int64_t> kernels;
  std::optional<Range> kernel_us, gap_us;
  std::optional<double> transient;
};

struct DiagnoseRun {
  Evidence evidence;  // the file's (or `given`), with the flags applied
  GpuSpec gpu;        // empty when none was given
  Diagnosis diagnosis;
  bool has_modeled = false;  // the deployment engine's ceiling, for a decode with a whole model and a GPU
  DeploymentAnalysis modeled;
  DeploymentPrediction prediction;  // beside it, when has_modeled
  std::string source;  // the file, or "evidence from flags"
  std::shared_ptr<const ModelSpec> draft;  // --draft-model's shape (the scenario points at it); empty without one
};

// `given`, when set, is the evidence to start from instead of in.file (Python's
// dict), named `given_source` in errors and the report.
Status run_diagnose(const DiagnoseInputs& in, const Evidence* given, std::string_view given_source, DiagnoseRun* out);
Report diagnose_report(const DiagnoseRun& r);
// The diagnose flag parsers Python reuses (and lab_flags.h parse_positive_real for the measured rates).
Result<Phase> parse_phase(std::string_view text, std::string_view flag);
Result<Range> parse_us_range(std::string_view text, std::string_view flag);      // "8-15", "8,15", "12"
Result<Range> parse_kernel_range(std::string_view text, std::string_view flag);  // the same, hi > 0
Result<double> parse_utilization(std::string_view text, std::string_view flag);  // "0.78" or "78%"

// ---------------------------------------------------------------- gpus

// One row of `gpus --json`: the catalog entry with its usable capacity and ridge.
nlohmann::json gpu_row_json(const GpuSpec& g);

// ---------------------------------------------------------------- sweep

// The lists sweep combines, with its defaults (batch 1, bf16 weights, one GPU);
// the models and GPUs are the caller's. Fails on a split that does not resolve.
Result<SweepSpec> sweep_spec(const DeploymentLists& lists);
// Without a --dtype list: the models' checkpoint dtype when they agree on one
// (one model, or several quantized alike), else bf16. Call once spec->models is set.
void default_sweep_dtypes(const DeploymentLists& lists, SweepSpec* spec);

}  // namespace modelcalc

#endif  // MODELCALC_RUNS_H_
