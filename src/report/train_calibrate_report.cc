#include "train_calibrate_report.h"

#include <fmt/format.h>

#include "format.h"

namespace modelcalc {

namespace {

std::string metric_text(TrainMetric m, double v) {
  return m == TrainMetric::kStepSeconds ? format_quantity(v, Unit::kSeconds)
                                        : format_quantity(v * 1e12, Unit::kFlopPerS);
}

const char* metric_label(TrainMetric m) {
  switch (m) {
    case TrainMetric::kHfuTflopsPerGpu: return "hardware FLOP/s per GPU";
    case TrainMetric::kModelTflopsPerGpu: return "model FLOP/s per GPU";
    case TrainMetric::kStepSeconds: return "step time";
  }
  return "";
}

nlohmann::json profile_json(const TrainProfile& p) {
  return {{"gemm_efficiency", p.gemm_efficiency},
          {"attention_efficiency", p.attention_efficiency},
          {"hbm_traffic", p.hbm_traffic},
          {"link_efficiency", p.link_efficiency}};
}

nlohmann::json summary_json(const TrainCalibrationSummary& s) {
  return {{"rows", s.rows},
          {"predicted_rows", s.predicted_rows},
          {"median_abs_error", s.median_abs_error},
          {"mean_abs_error", s.mean_abs_error},
          {"p90_abs_error", s.p90_abs_error},
          {"max_abs_error", s.max_abs_error},
          {"over_ceiling", s.over_ceiling},
          {"within_15_percent", s.within_15_percent}};
}

nlohmann::json rows_json(const std::vector<TrainCalibrationRow>& rows) {
  nlohmann::json j = nlohmann::json::array();
  for (const TrainCalibrationRow& c : rows) {
    const TrainMeasuredRow& r = *c.row;
    if (!c.evaluated) {
      j.push_back({{"id", r.id}, {"source", r.source}, {"skipped", c.skipped}});
      continue;
    }
    j.push_back({{"id", r.id},
                 {"source", r.source},
                 {"metric", std::string(train_metric_name(r.metric))},
                 {"measured", r.measured},
                 {"predicted", c.predicted},
                 {"ceiling", c.ceiling},
                 {"error", c.error},
                 {"beyond_ceiling", c.beyond_ceiling},
                 {"mfu", c.mfu},
                 {"hfu", c.hfu},
                 {"fits", c.fits},
                 {"peak_memory_bytes", c.peak_memory}});
  }
  return j;
}

Section rows_section(const std::string& title, const std::vector<TrainCalibrationRow>& rows) {
  Section s{title, {}, {}};
  for (const TrainCalibrationRow& c : rows) {
    const TrainMeasuredRow& r = *c.row;
    if (!c.evaluated) {
      s.lines.push_back(given("", r.id, "skipped: " + c.skipped, Unit::kNone));
      continue;
    }
    s.lines.push_back(given("", r.id,
                            fmt::format("{} {}: published {}, predicted {} ({}{}), ceiling {}{}", r.source,
                                        metric_label(r.metric), metric_text(r.metric, r.measured),
                                        metric_text(r.metric, c.predicted), c.error >= 0 ? "+" : "",
                                        format_brief(c.error, Unit::kFraction), metric_text(r.metric, c.ceiling),
                                        c.beyond_ceiling ? " — BEYOND THE CEILING" : ""),
                            Unit::kNone, c.fits ? "" : "(the engine's memory says it does not fit)"));
  }
  return s;
}

Section summary_section(const std::string& title, const std::string& key, const TrainCalibrationSummary& s) {
  Section out{title, {}, {}};
  out.lines.push_back(given(key + ".predicted_rows", "Rows evaluated", s.predicted_rows, Unit::kNone,
                            fmt::format("(of {})", s.rows)));
  out.lines.push_back(given(key + ".median_abs_error", "Median |error|", s.median_abs_error, Unit::kFraction));
  out.lines.push_back(given(key + ".mean_abs_error", "Mean |error|", s.mean_abs_error, Unit::kFraction));
  out.lines.push_back(given(key + ".p90_abs_error", "p90 |error|", s.p90_abs_error, Unit::kFraction));
  out.lines.push_back(given(key + ".max_abs_error", "Max |error|", s.max_abs_error, Unit::kFraction));
  out.lines.push_back(given(key + ".within_15_percent", "Within 15 %", s.within_15_percent, Unit::kNone));
  out.lines.push_back(given(key + ".over_ceiling", "Published beyond the ceiling", s.over_ceiling, Unit::kNone,
                            s.over_ceiling == 0 ? "(none: the ceiling bounds every run)" : "(a modelling defect)"));
  return out;
}

Section profile_section(const std::string& title, const std::string& key, const TrainProfile& p) {
  Section s{title, {}, {}};
  s.lines.push_back(given(key + ".gemm_efficiency", "Matmuls at", p.gemm_efficiency, Unit::kFraction,
                          "(of the dense bf16/fp16 peak)"));
  s.lines.push_back(given(key + ".attention_efficiency", "Attention kernels at", p.attention_efficiency,
                          Unit::kFraction));
  s.lines.push_back(given(key + ".hbm_traffic", "Elementwise HBM bytes per activation byte kept", p.hbm_traffic,
                          Unit::kNone));
  s.lines.push_back(given(key + ".link_efficiency", "Collectives at", p.link_efficiency, Unit::kFraction,
                          "(of the catalog's per-GPU link bandwidth)"));
  return s;
}

std::vector<std::string> ignored() {
  return {"Each source's own software (Megatron-LM 2021-22 on A100 with fp16 or bf16; Meta's stack on H100): the "
          "profile is one set of global figures for all of them.",
          "Llama 3's v = 8 virtual stages and one sequence per micro-batch are inferred from the paper (notes in "
          "data/training-measured.tsv); its MFU is read with PaLM's all-pairs attention count, as it cites PaLM.",
          "Stragglers, failures and data loading: the published figures are steady-state benchmarks."};
}

}  // namespace

Report build_train_calibration_report(const std::vector<TrainCalibrationRow>& rows, const TrainProfile& profile) {
  Report rep;
  rep.title = "modelcalc calibrate --training — published training runs against the training engine";
  rep.sections.push_back(profile_section("Profile in use (data/training-profile.tsv)", "profile", profile));
  Section rs = rows_section("Runs (data/training-measured.tsv; error = predicted / published − 1)", rows);
  rs.notes.push_back("The ceiling: every GPU at its dense peak, only the pipeline bubble lost. No published run may "
                     "beat it.");
  rep.sections.push_back(std::move(rs));
  const TrainCalibrationSummary s = summarize(rows);
  rep.sections.push_back(summary_section("Summary", "summary", s));
  rep.extra_json["rows"] = rows_json(rows);
  rep.extra_json["summary"] = summary_json(s);
  rep.ignored = ignored();
  return rep;
}

Report build_train_fit_report(const TrainFitResult& fit, const TrainProfile& compiled) {
  Report rep;
  rep.title = "modelcalc calibrate --training --fit — the training profile fitted on the published runs";
  Section p = profile_section("Fitted on every run (minimizing Σ log²(predicted / published))", "profile", fit.profile);
  p.lines.push_back(given("objective", "Sum of squared log errors", fit.objective, Unit::kNone));
  p.notes.push_back(fmt::format("Compiled in (data/training-profile.tsv): matmuls {}, attention {}, HBM traffic {}, "
                                "links {}.",
                                fmt_sig(compiled.gemm_efficiency, 4), fmt_sig(compiled.attention_efficiency, 4),
                                fmt_sig(compiled.hbm_traffic, 4), fmt_sig(compiled.link_efficiency, 4)));
  rep.sections.push_back(std::move(p));
  rep.sections.push_back(rows_section("Every run under the fitted profile (in sample)", fit.rows));
  rep.sections.push_back(summary_section("In sample", "summary", fit.summary));
  nlohmann::json folds = nlohmann::json::array();
  for (const TrainFitFold& f : fit.folds) {
    Section s = rows_section(fmt::format("Leave out {}: fitted on the other sources, tested on it", f.source), f.rows);
    s.notes.push_back(fmt::format("Fitted without {}: matmuls {}, attention {}, HBM traffic {}, links {}; median "
                                  "|error| {}, max {}.",
                                  f.source, format_brief(f.profile.gemm_efficiency, Unit::kFraction),
                                  format_brief(f.profile.attention_efficiency, Unit::kFraction),
                                  fmt_sig(f.profile.hbm_traffic, 3),
                                  format_brief(f.profile.link_efficiency, Unit::kFraction),
                                  format_brief(f.summary.median_abs_error, Unit::kFraction),
                                  format_brief(f.summary.max_abs_error, Unit::kFraction)));
    rep.sections.push_back(std::move(s));
    folds.push_back({{"source", f.source},
                     {"profile", profile_json(f.profile)},
                     {"rows", rows_json(f.rows)},
                     {"summary", summary_json(f.summary)}});
  }
  rep.sections.push_back(summary_section("Leave one source out (every held-out run)", "loso", fit.loso));
  rep.extra_json["rows"] = rows_json(fit.rows);
  rep.extra_json["summary"] = summary_json(fit.summary);
  rep.extra_json["folds"] = std::move(folds);
  rep.extra_json["loso"] = summary_json(fit.loso);
  rep.extra_json["compiled_profile"] = profile_json(compiled);
  rep.ignored = ignored();
  return rep;
}

}  // namespace modelcalc
