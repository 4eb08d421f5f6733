#include "calibrate_report.h"

#include <fmt/format.h>

#include <cmath>

#include "format.h"
#include "report.h"

namespace modelcalc {

namespace {

nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

std::string pct(double v) { return std::isfinite(v) ? fmt::format("{:+.1f}%", v * 100) : "inf"; }
std::string apct(double v) { return fmt::format("{:.1f}%", v * 100); }

Unit metric_unit(MeasuredMetric m) {
  return m == MeasuredMetric::kItl || m == MeasuredMetric::kTtft ? Unit::kSeconds : Unit::kTokensPerS;
}

std::string value_text(double v, MeasuredMetric m) {
  if (!std::isfinite(v)) return "inf";
  if (metric_unit(m) == Unit::kSeconds) return format_brief(v, Unit::kSeconds);
  return fmt_fixed(v, v < 100 ? 1 : 0);
}

std::string summary_line(const std::string& label, const ErrorSummary& s) {
  if (s.predicted_rows == 0) return fmt::format("  {:<14} {:>5}  (no rows)\n", label, s.rows);
  return fmt::format("  {:<14} {:>5} {:>7} {:>7} {:>7} {:>7} {:>6}\n", label, s.predicted_rows,
                     apct(s.median_abs_error), apct(s.mean_abs_error), apct(s.p90_abs_error), apct(s.max_abs_error),
                     s.over_ceiling);
}

std::string summary_header() {
  return fmt::format("  {:<14} {:>5} {:>7} {:>7} {:>7} {:>7} {:>6}\n", "regime", "rows", "median", "mean", "p90",
                     "max", "over");
}

}  // namespace

nlohmann::json error_summary_json(const ErrorSummary& s) {
  return {{"rows", s.rows},
          {"predicted_rows", s.predicted_rows},
          {"median_abs_error", s.median_abs_error},
          {"mean_abs_error", s.mean_abs_error},
          {"p90_abs_error", s.p90_abs_error},
          {"max_abs_error", s.max_abs_error},
          {"over_ceiling", s.over_ceiling}};
}

nlohmann::json step_params_json(const StepTimeParams& p) {
  nlohmann::json j = nlohmann::json::object();
  for (int i = 0; i < kStepTimeParamCount; ++i) j[std::string(step_param_name(i))] = step_param(p, i);
  return j;
}

namespace {

nlohmann::json layout_check_json(const LayoutCheck& k) {
  const LayoutMeasurement& r = *k.row;
  nlohmann::json j = {{"id", r.id},
                      {"engine", r.engine},
                      {"profile", std::string(engine_profile(r.profile).name)},
                      {"model", r.model},
                      {"gpu", r.gpu},
                      {"gpus", r.gpus},
                      {"layout", {{"tp", r.tp}, {"attn_dp", r.attn_dp}, {"ep", r.ep},
                                  {"redundant_experts", r.redundant_experts},
                                  {"two_batch_overlap", r.two_batch_overlap}}},
                      {"phase", serving_phase_name(r.phase)},
                      {"isl", r.isl},
                      {"osl", r.osl},
                      {"prefix_hit", r.prefix_hit},
                      {"spec", {{"method", std::string(spec_method_name(r.spec_method))},
                                {"tokens", r.spec_tokens}, {"acceptance", r.spec_acceptance}}},
                      {"metric", std::string(layout_metric_name(r.metric))},
                      {"measured", r.value},
                      {"shape", r.shape_assumed ? "assumed" : "published"},
                      {"ceiling", k.ceiling},
                      {"measured_over_ceiling", k.ceiling_ratio},
                      {"predicted", k.predicted},
                      {"predicted_error", k.predicted_error},
                      {"node_gpus", k.node_gpus},
                      {"source", r.source},
                      {"notes", r.notes}};
  if (r.metric == LayoutMetric::kSpecSpeedup) {
    j["modelled_ceiling"] = k.modelled_ceiling;
  } else {
    j["batch"] = {{"ceiling", k.batch_ceiling}, {"predicted", k.batch_predicted}};
  }
  return j;
}

std::string layout_checks_text(const std::vector<LayoutCheck>& checks) {
  std::string out =
      "\nReality check: the serving layouts' published figures (data/serving-layouts-measured.tsv; not fitted)\n";
  out += fmt::format("  {:<18} {:<10} {:<22} {:>9} {:>9} {:>7} {:>10} {:>8}\n", "row", "gpu", "layout", "measured",
                     "ceiling", "÷ceil", "predicted", "error");
  for (const LayoutCheck& k : checks) {
    const LayoutMeasurement& r = *k.row;
    const std::string layout = fmt::format("{} {}×DPA·EP{}{}", r.phase == ServingPhase::kPrefillOnly ? "P" : "D",
                                           r.attn_dp, r.ep, r.spec_method == SpecMethod::kMtp ? "+MTP" : "");
    const bool ratio = r.metric == LayoutMetric::kSpecSpeedup;
    auto figure = [&](double x) { return ratio ? fmt_sig(x, 3) + "×" : fmt_sig(x / 1000, 3) + "k"; };
    out += fmt::format("  {:<18} {:<10} {:<22} {:>9} {:>9} {:>7} {:>10} {:>8}\n", r.id, r.gpu, layout,
                       figure(r.value), figure(k.ceiling), fmt_sig(k.ceiling_ratio, 3), figure(k.predicted),
                       fmt::format("{:+.0f} %", 100 * k.predicted_error));
  }
  out += "  Throughputs per 8-GPU node (tokens/s: input for P pools, output for D pools), saturated. The speed-up's "
         "ceiling is the tokens a step yields (1 + A for one draft token); the engine's own with/without ratio is in "
         "the JSON (modelled_ceiling). Shapes a source does not publish are assumed (docs/serving-layouts.md).\n";
  return out;
}

}  // namespace

nlohmann::json calibrate_json(const CalibrateView& v) {
  const Calibration& c = *v.calibration;
  nlohmann::json rows = nlohmann::json::array();
  for (const CalibratedRow& r : c.rows) {
    const PreparedRow& p = *r.prepared;
    const ServingRow& s = *p.row;
    if (!r.evaluated) {
      rows.push_back({{"id", s.id}, {"skipped", p.skipped}});
      continue;
    }
    nlohmann::json regimes = nlohmann::json::array();
    for (DataRegime g : kAllDataRegimes) {
      if (p.regimes[static_cast<size_t>(g)]) regimes.push_back(std::string(data_regime_name(g)));
    }
    const ServingFigures& f = r.figures.prediction;
    const ServingFigures& b = r.figures.bound;
    rows.push_back({{"id", s.id},
                    {"measured", r.measured},
                    {"predicted", num(r.predicted)},
                    {"ceiling", num(r.ceiling)},
                    {"error", num(r.error)},
                    {"over_ceiling", r.over_ceiling},
                    {"metric", s.metric_text},
                    {"model", p.model},
                    {"gpu", s.gpu},
                    {"engine", {{"profile", std::string(engine_profile(p.engine).name)}, {"release", engine_release_key(p.engine)}}},
                    {"regimes", regimes},
                    {"note", p.note},
                    {"predicted_batch", f.batch},
                    {"predicted_batch_limit", batch_limit_name(f.limit)},
                    {"ceiling_batch", b.batch}});
  }
  nlohmann::json by = nlohmann::json::object();
  for (DataRegime g : kAllDataRegimes) by[std::string(data_regime_name(g))] = error_summary_json(c.by_regime[static_cast<size_t>(g)]);
  nlohmann::json j = {{"data", v.data},
                      {"rows", rows},
                      {"summary", error_summary_json(c.summary)},
                      {"by_regime", by}};
  if (v.evaluated_with) {
    j["engine"] = {{"profile", "trtllm"}, {"parameters", step_params_json(*v.evaluated_with)}};
  }
  if (v.fit) {
    nlohmann::json fit = {{"parameters", step_params_json(v.fit->params)},
                          {"loss", v.fit->loss},
                          {"rows", v.fit->rows},
                          {"method", "mean squared log error, Nelder-Mead with restarts"}};
    if (!v.written.empty()) fit["written"] = v.written;
    if (v.cv) {
      nlohmann::json folds = nlohmann::json::array();
      for (const CvFold& f : v.cv->folds) {
        nlohmann::json fr = nlohmann::json::object();
        for (DataRegime g : kAllDataRegimes) {
          fr[std::string(data_regime_name(g))] = error_summary_json(f.test_by_regime[static_cast<size_t>(g)]);
        }
        folds.push_back({{"seed", f.seed},
                         {"train_groups", f.train_groups},
                         {"test_groups", f.test_groups},
                         {"parameters", step_params_json(f.params)},
                         {"test", error_summary_json(f.test)},
                         {"test_by_regime", fr}});
      }
      nlohmann::json pr = nlohmann::json::object();
      for (DataRegime g : kAllDataRegimes) {
        pr[std::string(data_regime_name(g))] = error_summary_json(v.cv->pooled_by_regime[static_cast<size_t>(g)]);
      }
      fit["cross_validation"] = {{"folds", folds}, {"pooled", error_summary_json(v.cv->pooled)}, {"by_regime", pr}};
    }
    j["fit"] = fit;
  }
  if (v.layouts) {
    nlohmann::json rc = nlohmann::json::array();
    for (const LayoutCheck& k : *v.layouts) rc.push_back(layout_check_json(k));
    j["reality_check"] = rc;
  }
  return j;
}

std::string calibrate_text(const CalibrateView& v) {
  const Calibration& c = *v.calibration;
  std::string out = "Published serving measurements against the prediction and the ceiling (" + v.data + ")\n";
  out +=
      "predicted: the engine profile's step model (docs/prediction.md); ceiling: the same setup on the ideal machine\n"
      "(driver-exposed memory less the weights, every kernel at its roof, compute overlapped with memory).\n"
      "error = predicted / measured - 1; 'over' marks a measurement beyond its ceiling.\n\n";
  out += fmt::format("  {:<6} {:<18} {:<10} {:>2} {:>11} {:<8} {:<21} {:>9} {:>9} {:>9} {:>7}\n", "id", "model", "gpu",
                     "tp", "isl/osl", "load", "metric", "measured", "predicted", "ceiling", "error");
  int64_t skipped = 0;
  for (const CalibratedRow& r : c.rows) {
    const PreparedRow& p = *r.prepared;
    const ServingRow& s = *p.row;
    if (!r.evaluated) {
      ++skipped;
      out += fmt::format("  {:<6} skipped: {}\n", s.id, p.skipped);
      continue;
    }
    out += fmt::format("  {:<6} {:<18} {:<10} {:>2} {:>11} {:<8} {:<21} {:>9} {:>9} {:>9} {:>7}{}\n", s.id,
                       p.model.substr(0, 18), s.gpu.substr(0, 10), s.tp,
                       std::to_string(s.isl) + "/" + std::to_string(s.osl), s.load_text.substr(0, 8), s.metric_text,
                       value_text(r.measured, s.metric), value_text(r.predicted, s.metric),
                       value_text(r.ceiling, s.metric), pct(r.error), r.over_ceiling ? "  OVER THE CEILING" : "");
  }
  out += "\n|error| by regime (a row may be in several; decode-heavy = none of the others)\n" + summary_header();
  out += summary_line("all", c.summary);
  for (DataRegime g : kAllDataRegimes) out += summary_line(std::string(data_regime_name(g)), c.by_regime[static_cast<size_t>(g)]);
  if (skipped > 0) out += fmt::format("{} rows skipped (reasons above).\n", skipped);
  if (v.evaluated_with) {
    out += "\nEvaluated with the trtllm profile's parameters:";
    for (int i = 0; i < kStepTimeParamCount; ++i) {
      out += fmt::format(" {} {}", step_param_name(i), fmt_sig(step_param(*v.evaluated_with, i), 4));
    }
    out += " (vllm and sglang inherit them).\n";
  }
  if (v.fit) {
    out += fmt::format("\nFit on {} rows (mean squared log error {}; Nelder-Mead with restarts):\n", v.fit->rows,
                       fmt_sig(v.fit->loss, 4));
    for (int i = 0; i < kStepTimeParamCount; ++i) {
      const double x = step_param(v.fit->params, i);
      out += fmt::format("  {:<22} {}\n", step_param_name(i),
                         step_param_is_seconds(i) ? format_brief(x, Unit::kSeconds) : fmt_sig(x, 4));
    }
    if (!v.written.empty()) out += "Written to " + v.written + ".\n";
    if (v.cv) {
      out += fmt::format(
          "\nCross-validated |error|: fit on half the (model, GPU) groups, tested on the other half, {} seeds "
          "(seeds {}..{}); every fold's test rows pooled\n",
          v.cv->folds.size(), v.cv->folds.empty() ? 0 : v.cv->folds.front().seed,
          v.cv->folds.empty() ? 0 : v.cv->folds.back().seed);
      out += summary_header();
      out += summary_line("all", v.cv->pooled);
      for (DataRegime g : kAllDataRegimes) {
        out += summary_line(std::string(data_regime_name(g)), v.cv->pooled_by_regime[static_cast<size_t>(g)]);
      }
      out += "\n  per seed: seed, test rows, median |error|, p90 |error|\n";
      for (const CvFold& f : v.cv->folds) {
        out += fmt::format("  {:>4} {:>5} {:>7} {:>7}\n", f.seed, f.test.predicted_rows, apct(f.test.median_abs_error),
                           apct(f.test.p90_abs_error));
      }
    }
  }
  if (v.layouts) out += layout_checks_text(*v.layouts);
  return out;
}

}  // namespace modelcalc
