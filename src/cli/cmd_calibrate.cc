// modelcalc calibrate: published serving measurements (the shared schema)
// against the engine profile's prediction and the ceiling for the same setup;
// --fit refits the profile's step parameters and cross-validates them.
#include <memory>

#include "calibrate_report.h"
#include "commands.h"
#include "flags.h"
#include "inputs.h"
#include "input_file.h"
#include "modelcalc/calibrate.h"
#include "output_file.h"
#include "train_calibrate_cli.h"

namespace modelcalc {

namespace {

struct CalibrateFlags {
  std::string data;   // a TSV in the shared schema; empty = the compiled-in rows
  bool fit = false;
  std::string write;  // --fit --write FILE
  std::string seeds = "1:10";
  OutputFlags output;
};

Status run_calibrate(const CalibrateFlags& f, std::ostream& out) {
  if (!f.write.empty() && !f.fit) return Status::InvalidArgument("--write", "needs --fit (it writes the fitted parameters)");
  MC_ASSIGN_OR_RETURN(const std::vector<int64_t> seed_list, parse_count_list(f.seeds, "--seeds", 1'000'000));
  if (seed_list.size() > 1000) return Status::InvalidArgument("--seeds", "lists at most 1000 seeds");
  std::vector<ServingRow> owned;
  std::span<const ServingRow> rows;
  std::string name;
  if (f.data.empty()) {
    rows = shared_serving_rows();
    name = "data/serving-measured.tsv, compiled in";
  } else {
    auto text = read_input_file(f.data);
    if (!text.ok()) return Status::InvalidArgument("--data", text.status().message());
    auto parsed = parse_serving_tsv(*text, f.data);
    if (!parsed.ok()) return Status::InvalidArgument("--data", parsed.status().message());
    owned = std::move(parsed).value();
    rows = owned;
    name = f.data;
  }
  const std::vector<PreparedRow> prepared = prepare_rows(rows);
  std::array<StepTimeParams, kEngineFamilyCount> params = profile_params();
  FitResult fit;
  CrossValidation cv;
  CalibrateView v;
  v.data = name;
  if (f.fit) {
    fit = fit_step_params(prepared, std::vector<bool>(prepared.size(), true));
    if (fit.rows == 0) return Status::InvalidArgument("--fit", "no TensorRT-LLM row of the data could be evaluated");
    std::vector<uint64_t> seeds(seed_list.begin(), seed_list.end());
    cv = cross_validate(prepared, seeds);
    params[static_cast<size_t>(EngineFamily::kTrtllm)] = fit.params;
    v.fit = &fit;
    v.cv = &cv;
    if (!f.write.empty()) {
      const std::pair<EngineFamily, StepTimeParams> table[] = {{EngineFamily::kTrtllm, fit.params}};
      const std::string header =
          "# The step model's fitted parameters per engine profile (docs/prediction.md), compiled into the binary.\n"
          "# Written by `modelcalc calibrate --fit --write FILE` on " + name + "\n"
          "# (" + std::to_string(fit.rows) + " rows); a test refits and checks these values. Engines not listed "
          "inherit trtllm's.\n";
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
  v.evaluated_with = &params[static_cast<size_t>(EngineFamily::kTrtllm)];
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
      .text("--write", "With --fit: write the fitted parameters as data/engine_profiles.tsv is written", &f->write)
      .text("--seeds", "With --fit: cross-validation seeds, a count list, e.g. 1:10 (default) or 7", &f->seeds);
  add_output_flags(flags, &f->output);
  return [f, training](std::ostream& out) {
    if (training->training) {
      if (!f->data.empty() || !f->write.empty()) {
        return Status::InvalidArgument(f->data.empty() ? "--write" : "--data",
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
