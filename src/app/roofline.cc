// roofline: the lab's one-intensity answer (attainable FLOP/s, ridge, memory-
// or compute-bound), or a model's operating points (decode at each batch,
// prefill, a big GEMM) on one or more GPUs, and the deployment engine at each
// (GPU, batch).
#include "check.h"
#include "modelcalc/app/answers.h"
#include "modelcalc/app/fields.h"

namespace modelcalc::app {

namespace {

Result<std::vector<GpuSpec>> resolve_gpus(const GpuInput& f) {
  std::vector<GpuSpec> gpus;
  if (f.gpu.find(',') == std::string::npos) {
    MC_ASSIGN_OR_RETURN(const SharedGpu g, resolve_gpu(f));
    if (g == nullptr) {
      return Status::InvalidArgument("gpu", "is required, e.g. --gpu a100 or --gpu h100,mi300x (modelcalc gpus lists them)");
    }
    gpus.push_back(*g);
    return gpus;
  }
  if (f.custom()) {
    return Status::InvalidArgument(f.bandwidth ? "bandwidth" : f.capacity ? "capacity" : "peak",
                                   "overrides one GPU; give a single --gpu with it");
  }
  size_t start = 0;
  while (true) {
    const size_t comma = f.gpu.find(',', start);
    GpuInput one;
    one.gpu = f.gpu.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (one.gpu.empty()) return Status::InvalidArgument("gpu", "empty name in the list; e.g. --gpu h100,mi300x");
    MC_ASSIGN_OR_RETURN(const SharedGpu g, resolve_gpu(one));
    for (const GpuSpec& seen : gpus) {
      if (seen.key == g->key) return Status::InvalidArgument("gpu", "lists '" + seen.name + "' twice");
    }
    gpus.push_back(*g);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return gpus;
}

Status refuse_without_model(const RooflineRequest& r) {
  const DeploymentInput& d = r.dep;
  const std::pair<bool, const char*> needs_model[] = {
      {!r.batches.empty(), "batch"}, {d.context.has_value(), "context"}, {d.gpus.has_value(), "gpus"},
      {d.tp.has_value(), "tp"},      {d.pp.has_value(), "pp"},           {d.ep.has_value(), "ep"},
      {d.dp.has_value(), "dp"},      {d.reserve.has_value(), "reserve"}, {d.prompt.has_value(), "prompt"},
      {d.compute_dtype.has_value(), "compute_dtype"}};
  for (const auto& [given, name] : needs_model) {
    if (given) return Status::InvalidArgument(name, "needs a model (--model, --config or shape flags)");
  }
  return Status::Ok();
}

// Points sit under the weights' own roof where every GPU has it; a format the
// dtype table runs at the 16-bit roof elsewhere (int4/int8 weight-only, fp4
// without an fp4 peak) sits under bf16 instead of being refused.
Dtype math_dtype(Dtype weights, const std::vector<GpuSpec>& gpus) {
  const DtypeInfo& info = dtype_info(weights);
  for (const GpuSpec& g : gpus) {
    if (!(g.peak_flops(weights) > 0) && (info.weight_only || info.falls_back_to_16bit)) return Dtype::kBf16;
  }
  return weights;
}

// The deployment engine at each (GPU, batch): the same figures size, kv-budget and sweep report.
Status engine_points(const RooflineRequest& r, RooflineAnswer* out) {
  const ModelSpec& m = *out->model;
  const RooflineOptions& o = out->options;
  const DeploymentInput& d = r.dep;
  const bool split_given =
      d.gpus || d.tp || d.pp || d.ep || d.dp || d.prompt || d.compute_dtype || r.layout.dp_attention;
  for (size_t gi = 0; gi < out->gpus.size(); ++gi) {
    for (int64_t b : o.batches) {
      MC_ASSIGN_OR_RETURN(const DeploymentOptions dopt,
                          deployment_options(d, r.layout, m, o.weight_dtype, o.kv_dtype, o.context, b, out->draft.get(),
                                             gi == 0 && b == o.batches.front() ? &out->resolved : nullptr));
      auto a = analyze_deployment_full(m, out->gpus[gi], dopt);
      // A split the user gave and the engine refuses is their error; otherwise (e.g. no peak
      // for the default compute dtype) the points above still stand.
      if (!a.ok() && split_given) return a.status();
      if (!a.ok()) continue;
      MC_ASSIGN_OR_RETURN(std::optional<DeploymentPrediction> p, predict(m, out->gpus[gi], *a, r.engine, d));
      out->deployments.push_back(RooflineDeployment{gi, *std::move(a), std::move(p)});
    }
  }
  return Status::Ok();
}

Result<RooflineAnswer> answer_roofline(const RooflineRequest& r, bool roofs_only) {
  MC_RETURN_IF_ERROR(check_request(r));
  RooflineAnswer out;
  out.request = r;
  if (r.model.given()) {
    MC_ASSIGN_OR_RETURN(out.model, resolve_model(r.model));
  } else {
    MC_RETURN_IF_ERROR(refuse_without_model(r));
  }
  auto gpus = resolve_gpus(r.gpu);
  // A GPU with no tensor peak at all gets the message every command gives.
  if (gpus.ok()) {
    for (const GpuSpec& g : *gpus) {
      if (gpu_roofs(g).empty()) MC_RETURN_IF_ERROR(require_peak(g));
    }
  }
  if (!gpus.ok()) return gpus.status();
  out.gpus = *std::move(gpus);
  RooflineOptions& o = out.options;
  const ModelSpec* m = out.model.get();
  const Dtypes dtypes = resolve_dtypes(r.dep, m, &out.resolved, Dtype::kBf16);
  o.weight_dtype = dtypes.weights;
  o.math_dtype = math_dtype(dtypes.weights, out.gpus);
  o.kv_dtype = dtypes.kv;
  if (r.intensity) o.intensity = *r.intensity;
  o.gemm_n = r.gemm.value_or(8192);
  if (m != nullptr) {
    o.batches = r.batches.empty() ? std::vector<int64_t>{1, 8, 64, 256} : r.batches;
    o.context = resolve_context(r.dep.context, *m, &out.resolved);
  } else if (!o.intensity && !roofs_only) {
    return Status::InvalidArgument("intensity", "give an intensity (e.g. --intensity 1), a model (--model, --config "
                                                "or shape flags), or --plot FILE");
  }
  MC_ASSIGN_OR_RETURN(out.result, analyze_roofline(m, out.gpus, o));
  if (m != nullptr) MC_RETURN_IF_ERROR(engine_points(r, &out));
  return out;
}

}  // namespace

Result<RooflineAnswer> answer(const RooflineRequest& r, const Context&) {
  auto a = answer_roofline(r, false);
  if (!a.ok()) return as_field_error(a.status());
  return a;
}

Result<RooflineAnswer> answer_roofs(const RooflineRequest& r, const Context&) {
  auto a = answer_roofline(r, true);
  if (!a.ok()) return as_field_error(a.status());
  return a;
}

}  // namespace modelcalc::app
