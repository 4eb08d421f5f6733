#include "calibrate_report.h"
#include "plan_report.h"

#include <fmt/format.h>

#include <cmath>

#include "format.h"
#include "report.h"

namespace modelcalc {

namespace {

nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

std::string pct(double v) { return std::isfinite(v) ? fmt::format("{:+.1f}%", v * 100) : "inf"; }
std::string apct(double v) { return std::isfinite(v) ? fmt::format("{:.1f}%", v * 100) : "inf"; }

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
  return fmt::format("  {:<14} {:>5} {:>7} {:>7} {:>7} {:>7} {:>6} {:>9}\n", label, s.predicted_rows,
                     apct(s.median_abs_error), apct(s.mean_abs_error), apct(s.p90_abs_error), apct(s.max_abs_error),
                     s.over_ceiling, s.unbounded);
}

std::string summary_header() {
  return fmt::format("  {:<14} {:>5} {:>7} {:>7} {:>7} {:>7} {:>6} {:>9}\n", "regime", "rows", "median", "mean", "p90",
                     "max", "over", "unbounded");
}

}  // namespace

nlohmann::json error_summary_json(const ErrorSummary& s) {
  return {{"rows", s.rows},
          {"predicted_rows", s.predicted_rows},
          {"median_abs_error", s.median_abs_error},
          {"mean_abs_error", num(s.mean_abs_error)},
          {"p90_abs_error", num(s.p90_abs_error)},
          {"max_abs_error", num(s.max_abs_error)},
          {"over_ceiling", s.over_ceiling},
          {"unbounded", s.unbounded}};
}

nlohmann::json step_params_json(const StepTimeParams& p) {
  nlohmann::json j = nlohmann::json::object();
  for (int i = 0; i < kStepTimeParamCount; ++i) j[std::string(step_param_name(i))] = step_param(p, i);
  for (GpuArch a : kAllGpuArchs) j[arch_factor_name(a)] = p.arch_factor[static_cast<size_t>(a)];
  return j;
}

namespace {

nlohmann::json by_regime_json(const std::array<ErrorSummary, kDataRegimeCount>& r) {
  nlohmann::json j = nlohmann::json::object();
  for (DataRegime g : kAllDataRegimes) j[std::string(data_regime_name(g))] = error_summary_json(r[static_cast<size_t>(g)]);
  return j;
}

nlohmann::json fit_json(const CalibrateView& v) {
  const FitResult& f = *v.fit;
  nlohmann::json rows = nlohmann::json::object(), arch = nlohmann::json::object();
  for (EngineFamily e : kAllEngineFamilies) rows[std::string(engine_family_info(e).key)] = f.rows_by_profile[static_cast<size_t>(e)];
  for (GpuArch a : kAllGpuArchs) arch[std::string(gpu_arch_key(a))] = f.rows_by_arch[static_cast<size_t>(a)];
  nlohmann::json profiles = nlohmann::json::object();
  for (EngineFamily e : kAllEngineFamilies) {
    profiles[std::string(engine_family_info(e).key)] = {
        {"parameters", step_params_json(f.params.time[static_cast<size_t>(e)])},
        {"inherited", f.rows_by_profile[static_cast<size_t>(e)] == 0}};
  }
  nlohmann::json fit = {{"pooled", step_params_json(f.pooled)},
                        {"profiles", profiles},
                        {"mtp_acceptance", f.params.mtp_acceptance},
                        {"loss", f.loss},
                        {"rows", f.rows},
                        {"rows_by_profile", rows},
                        {"rows_by_arch", arch},
                        {"mtp_rows", f.mtp_rows},
                        {"iterations", f.iterations},
                        {"stopped_by", f.stop},
                        {"method", "robust (Cauchy, scale 0.3) loss of ln(predicted / measured), Levenberg-Marquardt"}};
  if (!v.written.empty()) fit["written"] = v.written;
  if (v.cv) {
    nlohmann::json kinds = nlohmann::json::array(), folds = nlohmann::json::array();
    for (const CvSummary& k : v.cv->kinds) {
      nlohmann::json spread = nlohmann::json::array();
      for (const ParamSpread& p : k.spread) {
        spread.push_back({{"name", p.name}, {"fitted", p.fitted}, {"min", p.min}, {"median", p.median}, {"max", p.max}});
      }
      kinds.push_back({{"kind", std::string(cv_kind_name(k.kind))},
                       {"folds", k.folds},
                       {"pooled", error_summary_json(k.pooled)},
                       {"by_regime", by_regime_json(k.by_regime)},
                       {"spread", spread}});
    }
    for (const CvFold& f2 : v.cv->folds) {
      folds.push_back({{"kind", std::string(cv_kind_name(f2.kind))},
                       {"held_out", f2.held_out},
                       {"test", error_summary_json(f2.test)},
                       {"test_by_regime", by_regime_json(f2.test_by_regime)}});
    }
    fit["cross_validation"] = {{"kinds", kinds}, {"folds", folds}};
  }
  return fit;
}

}  // namespace

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
                      {"ignored_columns", v.ignored_columns},
                      {"rows", rows},
                      {"summary", error_summary_json(c.summary)},
                      {"by_regime", by}};
  if (v.evaluated_with) {
    nlohmann::json profiles = nlohmann::json::object();
    for (EngineFamily e : kAllEngineFamilies) {
      profiles[std::string(engine_family_info(e).key)] = step_params_json(v.evaluated_with->time[static_cast<size_t>(e)]);
    }
    j["parameters"] = {{"profiles", profiles}, {"mtp_acceptance", v.evaluated_with->mtp_acceptance}};
  }
  if (v.fit) j["fit"] = fit_json(v);
  if (v.layouts) {
    nlohmann::json rc = nlohmann::json::array();
    for (const LayoutCheck& k : *v.layouts) rc.push_back(layout_check_json(k));
    j["reality_check"] = rc;
  }
  return j;
}

namespace {

std::string fit_text(const CalibrateView& v) {
  const FitResult& f = *v.fit;
  std::string out = fmt::format(
      "\nFit on {} rows (robust loss {}; Levenberg-Marquardt, {} iterations, stopped by {}). Parameters by profile "
      "('pooled' is what a profile without rows of its own uses):\n",
      f.rows, fmt_sig(f.loss, 4), f.iterations, f.stop);
  out += fmt::format("  {:<24} {:>10}", "parameter", "pooled");
  for (EngineFamily e : kAllEngineFamilies) out += fmt::format(" {:>15}", engine_family_info(e).key);
  out += "\n";
  const auto cell = [](int i, double x) {
    return step_param_is_seconds(i) ? format_brief(x, Unit::kSeconds) : fmt_sig(x, 4);
  };
  for (int i = 0; i < kStepTimeParamCount; ++i) {
    out += fmt::format("  {:<24} {:>10}", step_param_name(i), cell(i, step_param(f.pooled, i)));
    for (EngineFamily e : kAllEngineFamilies) {
      const bool own = f.rows_by_profile[static_cast<size_t>(e)] > 0;
      out += fmt::format(" {:>15}", own ? cell(i, step_param(f.params.time[static_cast<size_t>(e)], i)) : "pooled");
    }
    out += "\n";
  }
  out += "  rows";
  for (EngineFamily e : kAllEngineFamilies) out += fmt::format(" {} {}", engine_family_info(e).key, f.rows_by_profile[static_cast<size_t>(e)]);
  out += "\n  architecture factors (Hopper = 1):";
  for (GpuArch a : kAllGpuArchs) {
    if (f.rows_by_arch[static_cast<size_t>(a)] > 0) {
      out += fmt::format(" {} {} ({} rows)", gpu_arch_key(a), fmt_sig(f.pooled.arch_factor[static_cast<size_t>(a)], 4),
                         f.rows_by_arch[static_cast<size_t>(a)]);
    }
  }
  out += fmt::format("\n  MTP acceptance {} ({} rows)\n", fmt_sig(f.params.mtp_acceptance, 4), f.mtp_rows);
  if (!v.written.empty()) out += "Written to " + v.written + ".\n";
  if (!v.cv) return out;
  for (const CvSummary& k : v.cv->kinds) {
    out += fmt::format("\nCross-validated |error|, leaving out one {} at a time ({} folds; the held-out rows pooled)\n",
                       cv_kind_name(k.kind), k.folds);
    out += summary_header();
    out += summary_line("all", k.pooled);
    for (DataRegime g : kAllDataRegimes) out += summary_line(std::string(data_regime_name(g)), k.by_regime[static_cast<size_t>(g)]);
    out += "  folds: held out, test rows, median |error|, p90 |error|\n";
    for (const CvFold& fold : v.cv->folds) {
      if (fold.kind != k.kind) continue;
      out += fmt::format("    {:<28} {:>5} {:>7} {:>7}\n", fold.held_out, fold.test.predicted_rows,
                         apct(fold.test.median_abs_error), apct(fold.test.p90_abs_error));
    }
    out += "  parameters across the folds: fitted on all rows, min, median, max\n";
    for (const ParamSpread& p : k.spread) {
      out += fmt::format("    {:<26} {:>10} {:>10} {:>10} {:>10}\n", p.name, fmt_sig(p.fitted, 4), fmt_sig(p.min, 4),
                         fmt_sig(p.median, 4), fmt_sig(p.max, 4));
    }
  }
  return out;
}

}  // namespace

std::string calibrate_text(const CalibrateView& v) {
  const Calibration& c = *v.calibration;
  std::string out = "Published serving measurements against the prediction and the ceiling (" + v.data + ")\n";
  out +=
      "predicted: the engine profile's step model (docs/prediction.md); ceiling: the same setup on the ideal machine\n"
      "(driver-exposed memory less the weights, every kernel at its roof, compute overlapped with memory).\n"
      "error = predicted / measured - 1; 'over' marks a measurement beyond its ceiling.\n";
  if (!v.ignored_columns.empty()) {
    std::string names;
    for (const std::string& n : v.ignored_columns) names += (names.empty() ? "" : ", ") + n;
    out += "Warning: columns not read (not in the schema): " + names + "\n";
  }
  out += "\n";
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
  out += "\n|error| by regime (a row may be in several)\n" + summary_header();
  out += summary_line("all", c.summary);
  for (DataRegime g : kAllDataRegimes) out += summary_line(std::string(data_regime_name(g)), c.by_regime[static_cast<size_t>(g)]);
  if (skipped > 0) out += fmt::format("{} rows skipped (reasons above).\n", skipped);
  if (v.evaluated_with && !v.fit) {
    out += "\nEvaluated with the compiled-in profiles (data/engine_profiles.tsv):\n";
    for (EngineFamily e : kAllEngineFamilies) {
      out += fmt::format("  {:<15}{}", engine_family_info(e).key, engine_profile(e).time_inherited ? " (inherited: the pooled set)" : "");
      for (int i = 0; i < kStepTimeParamCount; ++i) {
        out += fmt::format(" {} {}", step_param_name(i), fmt_sig(step_param(v.evaluated_with->time[static_cast<size_t>(e)], i), 4));
      }
      out += "\n";
    }
  }
  if (v.fit) out += fit_text(v);
  if (v.layouts) out += layout_checks_text(*v.layouts);
  return out;
}

}  // namespace modelcalc

namespace modelcalc {

std::string frontier_calibration_text(const std::string& data, const FrontierCalibration& f) {
  std::string out = fmt::format(
      "Published runs against plan's frontier ({}): {} groups (a model in one weight dtype at one isl/osl and "
      "length distribution on one GPU, under one engine family) planned with `plan --frontier --engine FAMILY "
      "--dtype DTYPE --gpu GPU`, each run beside its own prediction at its configuration and load, and a run on its group's "
      "published frontier beside the searched predicted frontier at its measured tokens/s per user, where the "
      "plan searched its layout kind (disaggregated runs are not: #38); a model with an MTP head is swept with "
      "and without it, at the acceptance calibrate fits on these rows. The profile is the compiled-in one, "
      "fitted on these rows: the frontier error is an in-sample figure.\n\n",
      data, f.groups);
  out += "Median |error| per GPU and engine family:\n";
  out += frontier_errors_table(f.by_gpu_engine, f.overall);
  if (!f.skipped.empty()) {
    out += fmt::format("\n{} groups not planned:\n", f.skipped.size());
    for (const std::string& s : f.skipped) out += "  " + s + "\n";
  }
  out += "\nEvery run:\n";
  out += measured_points_table(f.points);
  return out;
}

nlohmann::json frontier_calibration_json(const std::string& data, const FrontierCalibration& f) {
  nlohmann::json points = nlohmann::json::array(), errors = nlohmann::json::array();
  for (const MeasuredFrontierPoint& m : f.points) points.push_back(measured_point_json(m));
  for (const FrontierError& e : f.by_gpu_engine) errors.push_back(frontier_error_json(e));
  return {{"data", data},
          {"groups", f.groups},
          {"skipped_groups", f.skipped},
          {"by_gpu_engine", errors},
          {"overall", frontier_error_json(f.overall)},
          {"points", points}};
}

}  // namespace modelcalc
