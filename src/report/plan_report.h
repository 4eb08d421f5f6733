// plan's presentation: the ranked table, --json, --explain of the chosen
// configuration, and the frontier SVG. Reads a PlanResult; never recomputes
// (the explained substitutions are the result's own numbers).
#ifndef MODELCALC_PLAN_REPORT_H_
#define MODELCALC_PLAN_REPORT_H_

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "modelcalc/frontier.h"
#include "modelcalc/plan.h"
#include "modelcalc/plan_engine.h"
#include "report.h"

namespace modelcalc {

struct PlanView {
  std::string model;  // display name
  const PlanRequest* request = nullptr;
  const PlanSpace* space = nullptr;
  const PlanResult* result = nullptr;
  bool frontier_table = false;  // --frontier: print the frontier table too
  // The model's reader assumptions, printed and listed ("assumptions") so none is silent; empty: none.
  std::vector<std::string> assumptions;
  const FrontierComparison* comparison = nullptr;  // --compare: published runs beside the frontier (not owned)
  std::string frontier_mtp_note = {};
  std::string frontier_disaggregated_note = {};  // what the frontier alone swept of disaggregated pools  // what the frontier alone swept of MTP, or why not (empty: nothing to say)
};

// The human table: targets, best configurations, deciding sentences, rejections,
// the frontier (when asked), closest misses, the serving assumptions.
std::string render_plan_text(const PlanView& v);

// The JSON document (docs/planning.md lists the keys).
nlohmann::json plan_json(const PlanView& v);

// --explain: the chosen configuration's numbers as formula, substitution,
// result. REQUIRES: !v.result->configs.empty().
Report build_plan_explain(const PlanView& v);

// The frontier as a standalone SVG document: tokens/s per user (x) against
// tokens/s per GPU (y), one polyline per GPU kind, log-log.
std::string plan_frontier_svg(const PlanView& v);

// plan --disaggregated: the pools' table beside the best aggregated plan.
// The measured runs of a comparison as a table (plan --compare, calibrate --frontier), and their errors.
std::string measured_points_table(std::span<const MeasuredFrontierPoint> points);
std::string frontier_errors_table(std::span<const FrontierError> errors, const FrontierError& overall);
nlohmann::json measured_point_json(const MeasuredFrontierPoint& m);
nlohmann::json frontier_error_json(const FrontierError& e);

struct DisaggPlanView {
  std::string model;
  const PlanRequest* request = nullptr;
  const PlanSpace* space = nullptr;
  const DisaggPlanResult* result = nullptr;
  std::vector<std::string> assumptions;  // as PlanView's
};
std::string render_disagg_plan_text(const DisaggPlanView& v);
// configs[].{prefill_pool, decode_pool, kv_transfer, ...}, aggregated (the best aggregated config, as plan's
// configs[] holds it, or null), comparison (docs/serving-layouts.md lists the keys).
nlohmann::json disagg_plan_json(const DisaggPlanView& v);

}  // namespace modelcalc

#endif  // MODELCALC_PLAN_REPORT_H_
