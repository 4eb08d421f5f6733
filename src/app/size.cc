// size: drill 1 end to end for any model, and the deployment engine beside it.
#include <algorithm>

#include "check.h"
#include "modelcalc/app/answers.h"
#include "modelcalc/app/fields.h"

namespace modelcalc::app {

namespace {

// The deployment engine's figures beside the teaching view (with a GPU).
Status answer_deployment(const SizeRequest& r, const ModelSpec& model, const GpuSpec& gpu, SizeAnswer* out) {
  const SizeOptions& o = out->options;
  auto draft = std::make_shared<ModelSpec>();
  MC_ASSIGN_OR_RETURN(DeploymentOptions d, deployment_options(r.dep, r.layout, model, o.weight_dtype, o.kv_dtype,
                                                              o.context, o.batch, draft.get(), &out->resolved));
  out->draft = draft;
  MC_ASSIGN_OR_RETURN(out->deployment, analyze(model, gpu, d, &r.dep));
  const DeploymentAnalysis& a = out->deployment;
  // A prompt shorter than the context is a request shape: isl = the prompt, osl = the rest.
  out->has_serving = d.prompt_tokens > 0 && d.prompt_tokens < d.context;
  const EngineWorkload w =
      out->has_serving ? EngineWorkload{d.prompt_tokens, d.context - d.prompt_tokens} : EngineWorkload{};
  MC_ASSIGN_OR_RETURN(out->prediction, predict(model, gpu, a, r.engine, r.dep, w));
  // The answer first, from the engine; the drill's textbook sections follow as its teaching view.
  const Scenario scenario{model, gpu, d, std::nullopt};
  MC_ASSIGN_OR_RETURN(out->regime, serving_regime(scenario));
  if (out->has_serving) {
    out->isl = w.isl;
    out->osl = w.osl;
    const ServingRequest req{w.isl, w.osl, ServingLoad::kBatch, static_cast<double>(d.batch)};
    if (const auto& pred = out->prediction) {
      out->serving = serve_both(a.prepared, a.result.memory, pred->memory, pred->settings, pred->profile->time, req);
    } else {
      out->serving.ceiling = serve_ceiling(a.prepared, a.result.memory, engine_time_table().pooled, req);
    }
  }
  out->has_deployment = true;
  return Status::Ok();
}

Result<SizeAnswer> answer_size(const SizeRequest& r) {
  MC_RETURN_IF_ERROR(check_request(r));
  SizeAnswer out;
  out.request = r;
  MC_ASSIGN_OR_RETURN(out.model, resolve_model(r.model));
  MC_ASSIGN_OR_RETURN(out.gpu, resolve_gpu(r.gpu));
  const ModelSpec& model = *out.model;
  SizeOptions& o = out.options;
  o.has_gpu = out.gpu != nullptr;
  if (o.has_gpu) MC_RETURN_IF_ERROR(require_peak(*out.gpu));  // the regime needs the ridge point
  o.context = resolve_context(r.dep.context, model, &out.resolved);
  o.batch = r.dep.batch.value_or(kDefaultBatch);
  const Dtypes dtypes = resolve_dtypes(r.dep, &model, &out.resolved);
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  if (r.train_tokens) o.train_tokens = *r.train_tokens;
  const int64_t n_gpus = r.dep.gpus.value_or(1);
  if (n_gpus > 1 && !o.has_gpu) return Status::InvalidArgument("gpus", "needs a GPU: give --gpu NAME");
  out.pooled = o.has_gpu ? tensor_parallel(*out.gpu, n_gpus) : GpuSpec{};
  MC_ASSIGN_OR_RETURN(out.result, analyze_size(model, out.pooled, o));
  DeploymentOptions served;
  served.weight_dtype = o.weight_dtype;
  MC_ASSIGN_OR_RETURN(out.weights, model_weights(model, served));
  if (o.has_gpu) {
    MC_RETURN_IF_ERROR(answer_deployment(r, model, *out.gpu, &out));
  } else {
    out.resolved.add(fields::kBatch, Value{o.batch}, r.dep.batch ? Source::kGiven : Source::kDefault);
  }
  if (o.has_gpu) {
    MC_ASSIGN_OR_RETURN(const std::optional<EngineRelease> engine, resolve_engine(r.engine, *out.gpu, &out.resolved));
    (void)engine;
  } else {
    MC_ASSIGN_OR_RETURN(const std::optional<EngineRelease> engine, given_engine(r.engine));
    (void)engine;
  }
  return out;
}

}  // namespace

Result<SizeAnswer> answer(const SizeRequest& r, const Context&) {
  auto a = answer_size(r);
  if (!a.ok()) return as_field_error(a.status());
  return a;
}

RooflineOptions page_roofline_options(const GpuSpec& gpu, const SizeOptions& o) {
  RooflineOptions ro;
  ro.context = o.context;
  if (std::find(ro.batches.begin(), ro.batches.end(), o.batch) == ro.batches.end()) {
    ro.batches.push_back(o.batch);
    std::sort(ro.batches.begin(), ro.batches.end());
  }
  ro.weight_dtype = o.weight_dtype;
  ro.kv_dtype = o.kv_dtype;
  ro.math_dtype = gpu.peak_flops(o.weight_dtype) > 0 ? o.weight_dtype : Dtype::kBf16;
  return ro;
}

Result<RooflineResult> page_roofline(const SizeAnswer& a) {
  const GpuSpec gpus[] = {a.pooled};
  return analyze_roofline(a.model.get(), gpus, page_roofline_options(a.pooled, a.options));
}

}  // namespace modelcalc::app
