// The answers of the request layer (modelcalc/app/answers.h) as reports: the
// text, --explain and JSON every front end renders. Builders read the typed
// answer; they never run an analysis.
#ifndef MODELCALC_ANSWER_REPORT_H_
#define MODELCALC_ANSWER_REPORT_H_

#include <nlohmann/json.hpp>
#include <string>

#include "modelcalc/app/answers.h"
#include "plan_report.h"
#include "report.h"

namespace modelcalc {

// The context line under the title ("context 8,192 tokens: the default; give
// --seq to change it") and options.context_source in JSON.
std::string context_sentence(const std::optional<int64_t>& given, const ModelSpec& m);
void state_context(const std::optional<int64_t>& given, const ModelSpec& m, Report* r);

Report size_report(const app::SizeAnswer& a);
Report kv_budget_report(const app::KvBudgetAnswer& a);
Report cost_report(const app::CostAnswer& a);
Report diagnose_report(const app::DiagnoseAnswer& a);

// roofline: the report (JSON, --explain), the text (the engine's points first,
// the seed's roofline after) and the picture.
Report roofline_report(const app::RooflineAnswer& a);
std::string roofline_text(const app::RooflineAnswer& a);
std::string roofline_svg(const app::RooflineAnswer& a);

// plan: the document and text (the disaggregated plan's when asked), the
// explained chosen configuration (REQUIRES a feasible plan), the frontier.
PlanView plan_view(const app::PlanAnswer& a);
nlohmann::json plan_document(const app::PlanAnswer& a);
std::string plan_text(const app::PlanAnswer& a);
Report plan_explain(const app::PlanAnswer& a);

}  // namespace modelcalc

#endif  // MODELCALC_ANSWER_REPORT_H_
