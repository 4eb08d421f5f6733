// The typed answers, and answer(request, context): what each command
// computes, as plain structs (no strings formatted, no report built). The
// report layer renders an answer as text, --explain, JSON, SVG or HTML; the
// CLI, the web server and Python call the same answer() with the request
// their input decodes into.
//
// Every answer holds the request it answered (`request`, as given: it
// replays) and the values resolve() settled with their sources (`resolved`).
#ifndef MODELCALC_APP_ANSWERS_H_
#define MODELCALC_APP_ANSWERS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "modelcalc/app/requests.h"
#include "modelcalc/app/resolve.h"
#include "modelcalc/cancel.h"
#include "modelcalc/capacity.h"
#include "modelcalc/cost.h"
#include "modelcalc/deployment.h"
#include "modelcalc/diagnose.h"
#include "modelcalc/frontier.h"
#include "modelcalc/lab_analysis.h"
#include "modelcalc/plan.h"
#include "modelcalc/plan_engine.h"
#include "modelcalc/roofline.h"
#include "modelcalc/scenario.h"
#include "modelcalc/serving.h"
#include "modelcalc/size.h"
#include "modelcalc/sweep.h"

namespace modelcalc::app {

// What answer() runs under. The searches (plan, sweep, calibrate --fit,
// train-plan) poll it between units of work and stop with Status::Cancelled
// or Status::BudgetExceeded (modelcalc/cancel.h).
struct Context {
  CancelToken cancel;           // default: never cancelled
  double cpu_budget_s = 0;      // CPU seconds of the calling thread; 0 = no limit
  std::function<void(const SearchProgress&)> progress;  // may be empty
};

// ---------------------------------------------------------------- size
struct SizeAnswer {
  SizeRequest request;
  Resolution resolved;
  SharedModel model;
  SharedGpu gpu;                 // one GPU as given; null without one
  GpuSpec pooled;                // tensor_parallel(*gpu, gpus): the teaching view's GPU; empty without one
  SizeOptions options;
  SizeResult result;             // analyze_size: the seed's figures (the teaching view)
  WeightShard weights;           // model_weights: the checkpoint's bytes at options.weight_dtype (weights.bytes)
  bool has_deployment = false;   // with a GPU: the deployment engine beside the teaching view
  DeploymentAnalysis deployment;       // at options.batch
  ServingRegimeAnswer regime;          // the engine's regime at the largest batch HBM holds
  // The engine profile's figures beside the ceiling's; unset when no profile runs on the GPU and none was
  // named (default_engine_for): the report says why.
  std::optional<DeploymentPrediction> prediction;
  bool has_serving = false;            // a prompt shorter than the context: a request of isl + osl tokens
  int64_t isl = 0, osl = 0;
  ServingPair serving;                 // its steady state, ceiling and (with a prediction) predicted
  std::shared_ptr<const ModelSpec> draft;  // the draft model's shape (the options point at it)
};
Result<SizeAnswer> answer(const SizeRequest& r, const Context& ctx = {});
// The roofline options size's HTML page uses: decode at batches 1, 8, 64, 256
// and the answer's batch, its context and dtypes; math in the weight dtype when
// the GPU has a peak for it, else bf16 (int4 weights are multiplied in bf16).
RooflineOptions page_roofline_options(const GpuSpec& gpu, const SizeOptions& o);
// That roofline on the pooled GPU. REQUIRES: a.gpu.
Result<RooflineResult> page_roofline(const SizeAnswer& a);

// ---------------------------------------------------------------- kv-budget
struct KvBudgetAnswer {
  KvBudgetRequest request;
  Resolution resolved;
  SharedModel model;
  SharedGpu gpu;  // null when the budget is given without a GPU
  KvBudgetOptions options;
  KvBudgetResult result;
  bool has_deployment = false;           // with a GPU and no budget
  std::optional<KvProposals> proposals;  // the engine on each changed setup
  std::optional<BudgetProposals> budget_proposals;  // under --budget: drill 2's changes, the capacity function's
  DeploymentAnalysis deployment;
  std::optional<DeploymentPrediction> prediction;  // unset: no profile runs on the GPU (as size's)
  std::shared_ptr<const ModelSpec> draft;
};
Result<KvBudgetAnswer> answer(const KvBudgetRequest& r, const Context& ctx = {});

// ---------------------------------------------------------------- cost
struct CostAnswer {
  CostRequest request;
  Resolution resolved;
  bool ceiling = false;  // false: from the measured tokens_per_s
  CostRateQuery rate_query;
  CostRateResult rate;
  // ceiling: the model's decode ceiling on the pooled GPUs, and the modeled deployment
  SharedModel model;
  SharedGpu gpu;
  SizeOptions options;
  CostCeilingResult ceiling_result;
  DeploymentAnalysis deployment;
  ModeledCost modeled;                        // at the ceiling's decode rate
  std::optional<ModeledCost> predicted_cost;  // at the prediction's (unset with it)
  std::optional<DeploymentPrediction> prediction;  // unset: no profile runs on the GPU (as size's)
  std::shared_ptr<const ModelSpec> draft;
};
Result<CostAnswer> answer(const CostRequest& r, const Context& ctx = {});

// ---------------------------------------------------------------- diagnose
struct DiagnoseAnswer {
  DiagnoseRequest request;
  Resolution resolved;
  Evidence evidence;  // the file's (or the JSON given), with the fields applied
  GpuSpec gpu;        // empty when none was given
  Diagnosis diagnosis;
  bool has_modeled = false;  // the deployment engine's ceiling, for a decode with a whole model and a GPU
  DeploymentAnalysis modeled;
  std::optional<DeploymentPrediction> prediction;  // unset: no profile runs on the GPU (as size's)
  std::string source;  // the file, or "evidence from flags"
  std::shared_ptr<const ModelSpec> draft;
};
Result<DiagnoseAnswer> answer(const DiagnoseRequest& r, const Context& ctx = {});

// ---------------------------------------------------------------- roofline
struct RooflineDeployment {
  size_t gpu = 0;  // index into RooflineAnswer::gpus
  DeploymentAnalysis analysis;
  std::optional<DeploymentPrediction> prediction;  // empty: no engine profile runs on the GPU
};
struct RooflineAnswer {
  RooflineRequest request;
  Resolution resolved;
  SharedModel model;  // null: the one-intensity answer
  std::vector<GpuSpec> gpus;
  RooflineOptions options;
  RooflineResult result;
  std::vector<RooflineDeployment> deployments;  // the engine at each (GPU, batch)
  std::shared_ptr<ModelSpec> draft = std::make_shared<ModelSpec>();  // a draft model the options point at
};
// Needs a model or an intensity (answer_roofs draws the roofs alone).
Result<RooflineAnswer> answer(const RooflineRequest& r, const Context& ctx = {});
// The same, for a front end drawing the roofs alone (no model, no intensity).
Result<RooflineAnswer> answer_roofs(const RooflineRequest& r, const Context& ctx = {});

// ---------------------------------------------------------------- plan
struct PlanAnswer {
  PlanRequest request;
  Resolution resolved;
  SharedModel model;
  modelcalc::PlanRequest targets;  // the core's request: load, SLOs, engine, layouts
  PlanSpace space;
  PlanResult result;               // result.configs empty: nothing meets the targets
  std::optional<DisaggPlanResult> disaggregated;  // the pools (result then holds the aggregated search)
  std::shared_ptr<const ModelSpec> draft;
  std::optional<FrontierComparison> comparison;  // request.compare: the published runs beside the frontier
  // The frontier alone's MTP sweep (request.frontier or compare, a model with an MTP head, no drafter asked
  // for, not spec_method "none"): the drafter its MTP points ran with; `frontier_mtp_note` says what was swept
  // or why not (empty: the question does not arise).
  std::optional<SpeculativeDecoding> frontier_mtp;
  std::string frontier_mtp_note;
  // With the MTP sweep: the plain and the MTP frontiers apart, each its own Pareto set (result.frontier merges
  // them), what a comparison holds a run against (its own drafter's curve). Empty without the sweep.
  std::vector<PlanFrontierPoint> frontier_curves;
  // The frontier alone's disaggregated sweep (aggregated requests with frontier or compare): done, and what it
  // says (its evaluations, or why it failed).
  bool frontier_disaggregated = false;
  std::string frontier_disaggregated_note;
  bool feasible() const { return disaggregated ? !disaggregated->configs.empty() : !result.configs.empty(); }
};
Result<PlanAnswer> answer(const PlanRequest& r, const Context& ctx = {});
// The same under a control the caller owns (may be null), so that several plans share one budget.
Result<PlanAnswer> answer(const PlanRequest& r, const SearchControl* control);
// Published runs beside an aggregated plan's frontier (what request.compare adds): the runs of `rows` that run
// `preset` at the plan's isl/osl on a GPU it searched, each with its prediction, held against the frontier.
FrontierComparison compare_with_plan(const PlanAnswer& a, std::string_view preset, std::span<const ServingRow> rows,
                                     const SearchControl* control = nullptr);

// ---------------------------------------------------------------- sweep
// A sweep's answer is its rows, streamed: answer() resolves and checks
// everything (the spec), then rows() evaluates them one by one.
struct SweepAnswer {
  SweepRequest request;
  Resolution resolved;
  SweepSpec spec;
  std::shared_ptr<const ModelSpec> draft;
  std::shared_ptr<SearchControl> control;  // the context's, polled by rows()
};
Result<SweepAnswer> answer(const SweepRequest& r, const Context& ctx = {});
// Evaluates every row into `on_row`, in sweep order. REQUIRES: `a` from answer().
Status rows(const SweepAnswer& a, const std::function<void(const SweepRow&)>& on_row);
// The number of rows the sweep has (overflow-checked).
Result<int64_t> row_count(const SweepAnswer& a);

}  // namespace modelcalc::app

#endif  // MODELCALC_APP_ANSWERS_H_
