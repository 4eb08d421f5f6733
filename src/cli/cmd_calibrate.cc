// modelcalc calibrate: published serving measurements (the shared schema)
// against the engine profile's prediction and the ceiling for the same setup;
// --fit refits the profile's step parameters and cross-validates them.
#include <algorithm>
#include <memory>

#include "calibrate_report.h"
#include "commands.h"
#include "flags.h"
#include "inputs.h"
#include "input_file.h"
#include "modelcalc/app/answers.h"
#include "modelcalc/calibrate.h"
#include "modelcalc/frontier.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "output_file.h"
#include "request_context.h"
#include "train_calibrate_cli.h"

namespace modelcalc {

namespace {

struct CalibrateFlags {
  std::string data;   // a TSV in the shared schema; empty = the compiled-in rows
  bool fit = false;
  std::string write;  // --fit --write FILE
  std::string cv = "gpu,model,release";  // --fit: the cross-validation's groups, or "none"
  bool frontier = false;  // hold the runs against plan's frontier instead
  OutputFlags output;
};

// calibrate --frontier: the runs grouped by (model, isl/osl, length distribution, GPU, engine family), each
// group planned with `plan --frontier` under its own engine family and the group's weight dtypes, its runs
// held against that plan (app::compare_with_plan, what plan --compare does).
Result<FrontierCalibration> calibrate_frontier(std::span<const PreparedRow> prepared, const SearchControl* control) {
  struct Group {
    std::string preset, gpu, dtype;
    int64_t isl = 0, osl = 0;
    bool uniform = false;
    EngineFamily family = EngineFamily::kTrtllm;
    std::vector<ServingRow> rows;
    std::vector<Dtype> dtypes;
  };
  std::vector<Group> groups;
  for (const PreparedRow& p : prepared) {
    if (!p.skipped.empty()) continue;
    const ServingRow& r = *p.row;
    auto g = find_gpu(r.gpu);
    if (!g.ok()) continue;
    const bool uniform = r.length_dist == LengthDist::kUniform08;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& x) {
      return x.preset == p.model && x.gpu == g->key && x.dtype == r.weight_dtype && x.isl == r.isl &&
             x.osl == r.osl && x.uniform == uniform && x.family == p.engine.family;
    });
    if (it == groups.end()) {
      auto d = parse_dtype(r.weight_dtype, "weight_dtype");
      if (!d.ok()) continue;
      groups.push_back({p.model, g->key, r.weight_dtype, r.isl, r.osl, uniform, p.engine.family, {}, {*d}});
      it = groups.end() - 1;
    }
    it->rows.push_back(r);
  }
  FrontierCalibration out;
  for (size_t i = 0; i < groups.size(); ++i) {
    // One budget for every group's plan (a web request's): polled between groups and inside each search.
    if (should_stop(control, {"frontier groups", static_cast<int64_t>(i), static_cast<int64_t>(groups.size())})) {
      return control->status();
    }
    const Group& g = groups[i];
    app::PlanRequest q;
    q.model.model = g.preset;
    q.isl = g.isl;
    q.osl = g.osl;
    q.length_dist = g.uniform ? "uniform-0.8" : "fixed";
    q.gpus = {g.gpu};
    q.dtypes = g.dtypes;
    q.engine.engine = std::string(engine_family_info(g.family).key);
    q.frontier = true;
    // The MTP sweep at the acceptance calibrate's rows are predicted with (fitted on them: none is published
    // for InferenceX's random prompts).
    if (const auto h = find_preset(g.preset); h.ok() && h->params_mtp && *h->params_mtp > 0) {
      q.layout.spec_acceptance = compiled_calibration_params().mtp_acceptance;
    }
    const std::string what = g.preset + " " + g.dtype + " " + std::to_string(g.isl) + "/" + std::to_string(g.osl) +
                             " on " + g.gpu +
                             " with " + std::string(engine_family_info(g.family).key);
    auto a = app::answer(q, control);
    if (!a.ok()) {
      if (is_stop(a.status())) return a.status();
      out.skipped.push_back(what + ": " + a.status().message());
      continue;
    }
    ++out.groups;
    FrontierComparison c = app::compare_with_plan(*a, g.preset, g.rows, control);
    if (control != nullptr) MC_RETURN_IF_ERROR(control->status());
    for (MeasuredFrontierPoint& m : c.points) out.points.push_back(std::move(m));
  }
  std::vector<std::pair<std::string, EngineFamily>> keys;
  for (const MeasuredFrontierPoint& m : out.points) {
    if (std::find(keys.begin(), keys.end(), std::pair(m.gpu, m.family)) == keys.end()) keys.emplace_back(m.gpu, m.family);
  }
  std::vector<const MeasuredFrontierPoint*> all;
  for (const MeasuredFrontierPoint& m : out.points) all.push_back(&m);
  for (const auto& [gpu, family] : keys) {
    std::vector<const MeasuredFrontierPoint*> pts;
    for (const MeasuredFrontierPoint& m : out.points) {
      if (m.gpu == gpu && m.family == family) pts.push_back(&m);
    }
    out.by_gpu_engine.push_back(frontier_error(gpu, std::string(engine_family_info(family).display), pts));
  }
  out.overall = frontier_error("", "", all);
  return out;
}

Status run_calibrate(const CalibrateFlags& f, std::ostream& out) {
  if (!f.write.empty() && !f.fit) return Status::InvalidArgument("--write", "needs --fit (it writes the fitted parameters)");
  std::vector<CvKind> kinds;
  if (f.cv != "none") {
    MC_ASSIGN_OR_RETURN(const std::vector<std::string> names, split_list(f.cv, "--cv"));
    for (std::string_view k : names) {
      const auto it = std::find_if(kAllCvKinds.begin(), kAllCvKinds.end(), [&](CvKind c) { return cv_kind_name(c) == k; });
      if (it == kAllCvKinds.end() || std::find(kinds.begin(), kinds.end(), *it) != kinds.end()) {
        return Status::InvalidArgument("--cv", "lists gpu, model and release (each once), or is none; got '" +
                                                   std::string(k) + "'");
      }
      kinds.push_back(*it);
    }
  }
  std::vector<ServingRow> owned;
  std::span<const ServingRow> rows;
  std::string name;
  CalibrateView v;
  if (f.data.empty()) {
    rows = shared_published_rows();
    name = "data/serving-measured.tsv and data/serving-multiengine.tsv, compiled in";
  } else {
    auto text = read_input_file(f.data);
    if (!text.ok()) return Status::InvalidArgument("--data", text.status().message());
    auto parsed = parse_serving_table(*text, f.data);
    if (!parsed.ok()) return Status::InvalidArgument("--data", parsed.status().message());
    owned = std::move(parsed->rows);
    v.ignored_columns = parsed->ignored_columns;
    rows = owned;
    name = f.data;
  }
  const app::Context& ctx = current_request_context();  // the web server's request: its token and budget
  const SearchControl control(ctx.cancel, ctx.cpu_budget_s, ctx.progress);
  const std::vector<PreparedRow> prepared = prepare_rows(rows, &control);
  MC_RETURN_IF_ERROR(control.status());
  if (f.frontier) {
    if (f.fit) return Status::InvalidArgument("--frontier", "holds the compiled-in profile against the frontier; drop --fit");
    MC_ASSIGN_OR_RETURN(const FrontierCalibration fc,
                        calibrate_frontier(prepared, control.active() ? &control : nullptr));
    if (f.output.json) {
      out << frontier_calibration_json(name, fc).dump(2) << "\n";
    } else {
      out << frontier_calibration_text(name, fc);
    }
    return Status::Ok();
  }
  CalibrationParams params = compiled_calibration_params();
  FitResult fit;
  CrossValidation cv;
  v.data = name;
  if (f.fit) {
    fit = fit_calibration(prepared, std::vector<bool>(prepared.size(), true), &control);
    MC_RETURN_IF_ERROR(control.status());
    if (fit.rows == 0) return Status::InvalidArgument("--fit", "no row of the data could be evaluated");
    cv = cross_validate(prepared, kinds, fit, &control);
    MC_RETURN_IF_ERROR(control.status());
    params = fit.params;
    v.fit = &fit;
    v.cv = &cv;
    if (!f.write.empty()) {
      EngineTimeTable table;
      table.pooled = fit.pooled;
      table.mtp_acceptance = fit.params.mtp_acceptance;
      for (EngineFamily e : kAllEngineFamilies) {
        const size_t i = static_cast<size_t>(e);
        if (fit.rows_by_profile[i] > 0) table.profiles.push_back({e, fit.params.time[i]});
      }
      const std::string header =
          "# The step model's fitted parameters (docs/prediction.md), compiled into the binary. Written by\n"
          "# `modelcalc calibrate --fit --write FILE` on " + name + " (" + std::to_string(fit.rows) +
          " rows);\n# a test refits and checks these values. Engine \"all\": the pooled set (what an engine without "
          "rows of its own\n# uses), the architecture factors and the MTP acceptance; each release family fitted on its own "
          "rows lists its own.\n";
      MC_RETURN_IF_ERROR(write_output_file(f.write, format_engine_params(table, header), "--write"));
      v.written = f.write;
    }
  }
  const Calibration cal = calibrate_rows(prepared, params);
  std::vector<LayoutCheck> layouts;
  if (f.data.empty()) {  // the compiled-in data: its layouts' published figures beside it
    auto checked = check_layouts(shared_layout_measurements());
    if (!checked.ok()) return checked.status();
    layouts = std::move(checked).value();
    v.layouts = &layouts;
  }
  v.calibration = &cal;
  v.evaluated_with = &params;
  if (f.output.json) {
    out << calibrate_json(v).dump(2) << "\n";
  } else {
    out << calibrate_text(v);
  }
  return Status::Ok();
}

}  // namespace

CommandRun setup_calibrate(FlagSet& flags) {
  auto f = std::make_shared<CalibrateFlags>();
  auto training = std::make_shared<TrainingCalibrateFlags>();
  // --training and --fit (one --fit for both branches: the serving engine's, or with --training the
  // training profile's).
  add_training_calibrate_flags(flags, training.get());
  flags.text("--data", "A TSV of measurements in the shared schema (docs/prediction.md; default: the compiled-in "
                       "data/serving-measured.tsv)", &f->data)
      .reads()
      .text("--write", "With --fit: write the fitted parameters as data/engine_profiles.tsv is written", &f->write)
      .writes()
      .text("--cv", "With --fit: leave out each group of these kinds in turn, a list of gpu, model and release "
                    "(default all three), or none", &f->cv)
      .toggle("--frontier", "Hold the runs against plan's frontier: each group (model, isl/osl, lengths, GPU, "
                            "engine) planned with plan --frontier under its engine, each run beside its prediction "
                            "and the searched frontier at its tokens/s per user (docs/planning.md)", &f->frontier);
  add_output_flags(flags, &f->output);
  return [f, training](std::ostream& out) {
    if (training->training) {
      if (!f->data.empty() || !f->write.empty() || f->frontier) {
        return Status::InvalidArgument(f->frontier ? "--frontier" : f->data.empty() ? "--write" : "--data",
                                       "applies to the serving measurements, not --training");
      }
      return run_training_calibrate(*training, f->output, out);
    }
    CalibrateFlags g = *f;
    g.fit = training->fit;
    return run_calibrate(g, out);
  };
}

}  // namespace modelcalc
