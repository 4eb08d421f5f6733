#include "answer_report.h"

#include <fmt/format.h>

#include "capacity_report.h"
#include "modelcalc/engine_rules.h"
#include "deployment_report.h"
#include "diagnose_report.h"
#include "format.h"
#include "formula_text.h"
#include "lab_report.h"
#include "roofline_plot.h"
#include "roofline_report.h"
#include "size_report.h"

namespace modelcalc {

std::string context_sentence(const std::optional<int64_t>& given, const ModelSpec& m) {
  if (given) return "";
  const int64_t t = default_context(m);
  if (t < kDefaultContext) {
    return "context " + group_digits(t) + " tokens: the model's limit (max positions), below the default " +
           group_digits(kDefaultContext) + "; give --seq to change it";
  }
  std::string s = "context " + group_digits(t) + " tokens: the default";
  if (m.n_ctx_train > t) s += " (the model allows " + group_digits(m.n_ctx_train) + ")";
  return s + "; give --seq to change it";
}

void state_context(const std::optional<int64_t>& given, const ModelSpec& m, Report* r) {
  if (const std::string s = context_sentence(given, m); !s.empty()) r->title += "\n  " + s;
  r->extra_json["options"]["context_source"] = app::context_source(given, m);
}

Report size_report(const app::SizeAnswer& a) {
  Report rep = build_size_report(*a.model, a.pooled, a.options, a.result, &a.weights);
  state_context(a.request.dep.context, *a.model, &rep);
  if (a.has_deployment) {
    const DeploymentPrediction* p = a.prediction ? &*a.prediction : nullptr;
    rep.sections.insert(rep.sections.begin(), answer_section(a.deployment, a.regime, p));
    if (p == nullptr) {  // say so first: the figures that follow are the ceiling's alone
      Line none = given("", "Prediction", int64_t{0}, Unit::kNone);
      none.absent = "none: " + std::string(default_engine_for(*a.gpu).why);
      rep.sections.front().lines.insert(rep.sections.front().lines.begin(), std::move(none));
    }
    for (Section& s : deployment_sections_for(*a.gpu, a.deployment, a.prediction)) rep.sections.push_back(std::move(s));
    if (a.has_serving) rep.sections.push_back(serving_section(a.serving, a.isl, a.osl, p ? p->profile : nullptr));
  }
  return rep;
}

Report kv_budget_report(const app::KvBudgetAnswer& a) {
  Report rep = build_kv_budget_report(*a.model, a.gpu.get(), a.options, a.result, a.proposals ? &*a.proposals : nullptr,
                                      a.budget_proposals ? &*a.budget_proposals : nullptr);
  state_context(a.request.dep.context, *a.model, &rep);
  if (a.has_deployment) {  // the answer first: the engine's count, the ceiling's beside it; the drill's follows
    const DeploymentPrediction* p = a.prediction ? &*a.prediction : nullptr;
    rep.sections.insert(rep.sections.begin(), kv_budget_answer_section(*a.model, a.options, a.deployment, p, *a.gpu,
                                                                       a.proposals ? &*a.proposals : nullptr));
    for (Section& s : deployment_sections_for(*a.gpu, a.deployment, a.prediction)) rep.sections.push_back(std::move(s));
  }
  return rep;
}

Report cost_report(const app::CostAnswer& a) {
  if (!a.ceiling) return build_cost_rate_report(a.rate_query, a.rate);
  const double price = *a.request.price_per_hour;
  Report rep = build_cost_ceiling_report(*a.model, *a.gpu, a.options, price, a.ceiling_result);
  state_context(a.request.dep.context, *a.model, &rep);
  // The answer first (the engine's rate); the lab's ceiling-based floor follows as its teaching view.
  rep.sections.insert(rep.sections.begin(),
                      modeled_cost_section(a.modeled, a.predicted_cost ? &*a.predicted_cost : nullptr,
                                           default_engine_for(*a.gpu).why));
  for (Section& s : deployment_sections_for(*a.gpu, a.deployment, a.prediction)) rep.sections.push_back(std::move(s));
  return rep;
}

Report diagnose_report(const app::DiagnoseAnswer& a) {
  Report rep = build_diagnose_report(a.evidence, a.gpu, a.diagnosis, a.source);
  // Beside the regime: what the serving engine is predicted to reach on this setup, and the measurement's share.
  const std::optional<double>& measured = a.diagnosis.n.measured_aggregate;
  if (a.has_modeled && a.prediction && measured && !rep.sections.empty() &&
      a.prediction->decode.tokens_per_s_aggregate > 0) {
    const DeploymentPrediction& p = *a.prediction;
    const double predicted = p.decode.tokens_per_s_aggregate;
    std::vector<Line>& lines = rep.sections.front().lines;
    lines.push_back(given("prediction.tokens_per_s_aggregate", "Predicted aggregate (the serving engine)", predicted,
                          Unit::kTokensPerS,
                          "(" + std::string(p.profile->display) + ", profile " + std::string(p.profile->name) + ")"));
    lines.push_back(computed("prediction.measured_fraction", "Measured ÷ predicted", *measured / predicted,
                             Unit::kFraction, fx::kMeasuredOverPredicted,
                             {term("measured", *measured), term("predicted", predicted)},
                             *measured < 0.8 * predicted ? "(well below what the engine is predicted to reach)"
                                                         : "(about what the engine is predicted to reach)"));
  }
  if (a.has_modeled) {
    for (Section& s : deployment_sections_for(a.gpu, a.modeled, a.prediction)) rep.sections.push_back(std::move(s));
  }
  return rep;
}

Report roofline_report(const app::RooflineAnswer& a) {
  const ModelSpec* m = a.model.get();
  Report rep = build_roofline_report(m, a.options, a.result);
  if (m == nullptr) return rep;
  state_context(a.request.dep.context, *m, &rep);
  nlohmann::json deployments = nlohmann::json::array();
  for (const app::RooflineDeployment& d : a.deployments) {
    const GpuSpec& g = a.gpus[d.gpu];
    nlohmann::json j = deployment_json(g, d.analysis, d.prediction ? &*d.prediction : nullptr);
    j["gpu"] = g.key;
    deployments.push_back(std::move(j));
  }
  rep.extra_json["deployments"] = std::move(deployments);
  return rep;
}

std::string roofline_text(const app::RooflineAnswer& a) {
  // The engine's answer first, the seed's roofline after it as its teaching view.
  std::string text = render_roofline_table(a.model.get(), a.options, a.result);
  std::vector<RooflineEnginePoint> points;
  for (const app::RooflineDeployment& d : a.deployments) {
    points.push_back({&a.gpus[d.gpu], d.analysis.result.decode, static_cast<double>(d.analysis.result.memory.max_sequences),
                      d.prediction ? &*d.prediction : nullptr});
  }
  const std::string answer = render_roofline_engine(points);
  if (!answer.empty()) {
    const size_t head = text.find("\n\n");  // after the title and options lines
    text.insert(head == std::string::npos ? text.size() : head + 1, answer);
  }
  return text;
}

std::string roofline_svg(const app::RooflineAnswer& a) {
  const ModelSpec* m = a.model.get();
  const RooflineOptions& o = a.options;
  std::string names;
  for (const GpuSpec& g : a.gpus) names += (names.empty() ? "" : " vs ") + g.name;
  PlotOptions po;
  po.title = "Roofline: " + (m ? m->name + " on " : std::string()) + names;
  po.subtitle = m ? fmt::format("{} math · decode at context {} · weights {}, KV {} · points at min(peak, bw × I)",
                                dtype_name(o.math_dtype), group_digits(o.context), dtype_name(o.weight_dtype),
                                dtype_name(o.kv_dtype))
                  : fmt::format("{} math · points at min(peak, bw × I)", dtype_name(o.math_dtype));
  return roofline_svg_document(a.result, po);
}

PlanView plan_view(const app::PlanAnswer& a) {
  PlanView v{a.model->name,        &a.targets, &a.space, &a.result, a.request.frontier || a.comparison.has_value(),
             a.model->assumptions, a.comparison ? &*a.comparison : nullptr, a.frontier_mtp_note,
             a.frontier_disaggregated_note};
  return v;
}

namespace {

DisaggPlanView disagg_view(const app::PlanAnswer& a) {
  return DisaggPlanView{a.model->name, &a.targets, &a.space, &*a.disaggregated, a.model->assumptions};
}

}  // namespace

nlohmann::json plan_document(const app::PlanAnswer& a) {
  return a.disaggregated ? disagg_plan_json(disagg_view(a)) : plan_json(plan_view(a));
}

std::string plan_text(const app::PlanAnswer& a) {
  return a.disaggregated ? render_disagg_plan_text(disagg_view(a)) : render_plan_text(plan_view(a));
}

Report plan_explain(const app::PlanAnswer& a) { return build_plan_explain(plan_view(a)); }

}  // namespace modelcalc
