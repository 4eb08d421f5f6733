// modelcalc size: drill 1 end to end for any model.
#include <memory>
#include <optional>
#include <utility>

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
#include "runs.h"
#include "size_report.h"

namespace modelcalc {

namespace {

struct SizeFlags : SizeInputs {
  ModelFlags model;
  GpuFlags gpu;
  OutputFlags output;
  std::string report;  // --report: HTML page path
};

Status run_size_command(const SizeFlags& f, std::ostream& out) {
  MC_ASSIGN_OR_RETURN(ModelSpec model, resolve_model(f.model));
  MC_ASSIGN_OR_RETURN(const std::optional<GpuSpec> gpu, resolve_gpu(f.gpu));
  SizeRun run;
  MC_RETURN_IF_ERROR(run_size(std::make_shared<const ModelSpec>(std::move(model)),
                              gpu ? std::make_shared<const GpuSpec>(*gpu) : nullptr, f, &run));
  const Report rep = size_report(run);
  if (f.report != "-") emit(rep, f.output, out);
  // Last, so a failure anywhere above leaves no file behind.
  if (!f.report.empty()) {
    std::string page;
    if (run.gpu) {  // the page's roofline: the analysis runs here, the page only renders it
      const RooflineOptions ro = report_roofline_options(run.pooled, run.options);
      const GpuSpec gpus[] = {run.pooled};
      MC_ASSIGN_OR_RETURN(const RooflineResult roofline, analyze_roofline(run.model.get(), gpus, ro));
      page = render_html_report(rep, *run.model, &ro, &roofline);
    } else {
      page = render_html_report(rep, *run.model, nullptr, nullptr);
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

Status run_size(SharedModel m, SharedGpu gpu, const SizeInputs& in, SizeRun* out) {
  const ModelSpec& model = *m;
  SizeOptions& o = out->options;
  o = SizeOptions{};
  o.has_gpu = gpu != nullptr;
  if (o.has_gpu) MC_RETURN_IF_ERROR(require_peak(*gpu));  // the regime needs the ridge point
  o.context = resolve_seq(in.dep.seq, model);
  out->context_flag = in.dep.seq;
  o.batch = in.dep.batch.value_or(1);
  const Dtypes dtypes = resolve_dtypes(in.dep, model);
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  if (in.train_tokens) o.train_tokens = *in.train_tokens;
  const int64_t n_gpus = in.dep.gpus.value_or(1);
  if (n_gpus > 1 && !o.has_gpu) return Status::InvalidArgument("--gpus", "needs a GPU: give --gpu NAME");
  out->pooled = o.has_gpu ? tensor_parallel(*gpu, n_gpus) : GpuSpec{};
  auto r = analyze_size(model, out->pooled, o);
  if (!r.ok()) return r.status();
  out->result = *r;
  out->has_deployment = false;
  out->has_serving = false;
  if (o.has_gpu) {
    // The modeled deployment beside the textbook: the engine every deployment command reads.
    auto draft = std::make_shared<ModelSpec>();
    MC_ASSIGN_OR_RETURN(DeploymentOptions d,
                        deployment_options(in.dep, model, o.weight_dtype, o.kv_dtype, o.context, o.batch, draft.get()));
    out->draft = draft;
    MC_ASSIGN_OR_RETURN(out->deployment, analyze_flags_deployment(model, *gpu, d));
    const DeploymentAnalysis& a = out->deployment;
    // A prompt shorter than the context is a request shape: isl = the prompt, osl = the rest.
    out->has_serving = d.prompt_tokens > 0 && d.prompt_tokens < d.context;
    const EngineWorkload w =
        out->has_serving ? EngineWorkload{d.prompt_tokens, d.context - d.prompt_tokens} : EngineWorkload{};
    MC_ASSIGN_OR_RETURN(out->prediction, predict_flags_deployment(model, *gpu, a, in.engine, in.dep, w));
    // The answer first, from the engine; the drill's textbook sections follow as its teaching view.
    const Scenario scenario{model, *gpu, d, std::nullopt};
    MC_ASSIGN_OR_RETURN(out->regime, serving_regime(scenario));
    if (out->has_serving) {
      const DeploymentPrediction& pred = out->prediction;
      out->isl = w.isl;
      out->osl = w.osl;
      const ServingRequest req{w.isl, w.osl, ServingLoad::kBatch, static_cast<double>(d.batch)};
      out->serving = serve_both(a.prepared, a.result.memory, pred.memory, pred.settings, pred.profile->time, req);
    }
    out->has_deployment = true;
  }
  out->model = std::move(m);
  out->gpu = std::move(gpu);
  return Status::Ok();
}

Report size_report(const SizeRun& r) {
  Report rep = build_size_report(*r.model, r.pooled, r.options, r.result);
  state_context(r.context_flag, *r.model, &rep);
  if (r.has_deployment) {
    rep.sections.insert(rep.sections.begin(), answer_section(r.deployment, r.regime, &r.prediction));
    for (Section& s : deployment_sections(*r.gpu, r.deployment, &r.prediction)) rep.sections.push_back(std::move(s));
    if (r.has_serving) rep.sections.push_back(serving_section(r.serving, r.isl, r.osl, *r.prediction.profile));
  }
  return rep;
}

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
  return [f](std::ostream& out) { return run_size_command(*f, out); };
}

}  // namespace modelcalc
