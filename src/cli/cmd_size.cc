// modelcalc size: drill 1 end to end for any model.
#include <memory>

#include "commands.h"
#include "deployment_options.h"
#include "deployment_report.h"
#include "html_report.h"
#include "output_file.h"
#include "inputs.h"
#include "lab_flags.h"
#include "modelcalc/roofline.h"
#include "modelcalc/scenario.h"
#include "modelcalc/size.h"
#include "quantity.h"
#include "size_report.h"

namespace modelcalc {

namespace {

struct SizeFlags {
  ModelFlags model;
  GpuFlags gpu;
  OutputFlags output;
  DeploymentFlags dep;                 // --gpus --seq --batch --dtype --kv-dtype
  EngineCliFlags engine;               // --engine and the engines' own flags
  std::optional<double> train_tokens;  // e.g. 1.5T
  std::string report;                  // --report: HTML page path
};

Status run_size(const SizeFlags& f, std::ostream& out) {
  auto model = resolve_model(f.model);
  if (!model.ok()) return model.status();
  auto gpu = resolve_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();

  SizeOptions o;
  o.has_gpu = gpu->has_value();
  if (o.has_gpu) MC_RETURN_IF_ERROR(require_peak(**gpu));  // the regime needs the ridge point
  o.context = resolve_seq(f.dep.seq, *model);
  o.batch = f.dep.batch.value_or(1);
  const Dtypes dtypes = resolve_dtypes(f.dep, *model);
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  if (f.train_tokens) o.train_tokens = *f.train_tokens;
  const int64_t n_gpus = f.dep.gpus.value_or(1);
  if (n_gpus > 1 && !o.has_gpu) return Status::InvalidArgument("--gpus", "needs a GPU: give --gpu NAME");
  const GpuSpec g = o.has_gpu ? tensor_parallel(**gpu, n_gpus) : GpuSpec{};
  auto r = analyze_size(*model, g, o);
  if (!r.ok()) return r.status();
  Report rep = build_size_report(*model, g, o, *r);
  state_context(f.dep.seq, *model, &rep);
  if (o.has_gpu) {
    // The modeled deployment beside the textbook: the engine every deployment command reads.
    MC_ASSIGN_OR_RETURN(DeploymentOptions d, deployment_options(f.dep, o.weight_dtype, o.kv_dtype, o.context, o.batch));
    MC_ASSIGN_OR_RETURN(const DeploymentAnalysis a, analyze_flags_deployment(*model, **gpu, d));
    // A prompt shorter than the context is a request shape: isl = the prompt, osl = the rest.
    const bool request = d.prompt_tokens > 0 && d.prompt_tokens < d.context;
    const EngineWorkload w = request ? EngineWorkload{d.prompt_tokens, d.context - d.prompt_tokens} : EngineWorkload{};
    MC_ASSIGN_OR_RETURN(const DeploymentPrediction pred,
                        predict_flags_deployment(*model, **gpu, a, f.engine, f.dep, w));
    // The answer first, from the engine; the drill's textbook sections follow as its teaching view.
    const Scenario scenario{*model, **gpu, d, std::nullopt};
    MC_ASSIGN_OR_RETURN(const ServingRegimeAnswer regime, serving_regime(scenario));
    rep.sections.insert(rep.sections.begin(), answer_section(a, regime, &pred));
    for (Section& s : deployment_sections(**gpu, a, &pred)) rep.sections.push_back(std::move(s));
    if (request) {
      const ServingRequest req{w.isl, w.osl, ServingLoad::kBatch, static_cast<double>(d.batch)};
      const ServingPair pair =
          serve_both(a.prepared, a.result.memory, pred.memory, pred.settings, pred.profile->time, req);
      rep.sections.push_back(serving_section(pair, w.isl, w.osl, *pred.profile));
    }
  }
  if (f.report != "-") emit(rep, f.output, out);
  // Last, so a failure anywhere above leaves no file behind.
  if (!f.report.empty()) {
    std::string page;
    if (o.has_gpu) {  // the page's roofline: the analysis runs here, the page only renders it
      const RooflineOptions ro = report_roofline_options(g, o);
      const GpuSpec gpus[] = {g};
      MC_ASSIGN_OR_RETURN(const RooflineResult roofline, analyze_roofline(&*model, gpus, ro));
      page = render_html_report(rep, *model, &ro, &roofline);
    } else {
      page = render_html_report(rep, *model, nullptr, nullptr);
    }
    if (f.report == "-") {  // the page is the whole output (the web API's /api/html/size)
      out << page;
      return Status::Ok();
    }
    MC_RETURN_IF_ERROR(write_output_file(f.report, page, "--report"));
  }
  return Status::Ok();
}

}  // namespace

CommandRun setup_size(FlagSet& flags) {
  auto f = std::make_shared<SizeFlags>();
  add_model_flags(flags, &f->model);
  add_gpu_flags(flags, &f->gpu);
  add_deployment_flags(flags, &f->dep,
                       {{Dep::kSeq, kContextDefault},
                        {Dep::kBatch, "1"},
                        {Dep::kGpus, "1; the textbook sections pool them (capacity, bandwidth and peak add up), "
                                     "the modeled deployment splits them tp x pp x dp"},
                        {Dep::kPrompt, kPromptDefault},
                        {Dep::kReserve, kReserveDefault},
                        {Dep::kDtype, kDtypeDefault}});
  add_engine_flags(flags, &f->dep);
  add_engine_profile_flags(flags, &f->engine);
  flags.add<double>("--train-tokens", "Training tokens D for 6·N·D, e.g. 1.5T", &f->train_tokens, parse_positive_count)
      .text("--report", "Also write a one-page HTML report (sections, formulas, roofline) to this file; - prints the "
            "page to stdout instead of the report", &f->report);
  add_output_flags(flags, &f->output);
  add_strings_flag(flags, &f->output);
  return [f](std::ostream& out) { return run_size(*f, out); };
}

}  // namespace modelcalc
