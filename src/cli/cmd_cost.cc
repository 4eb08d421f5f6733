// modelcalc cost: $ per 1M tokens, from a measured throughput, or from a
// model's decode ceiling on a GPU (then a floor on the real cost).
#include <fmt/format.h>
#include <memory>

#include "commands.h"
#include "deployment_options.h"
#include "deployment_report.h"
#include "format.h"
#include "lab_flags.h"
#include "lab_report.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct CostFlags {
  double price_per_hour = 0;
  std::optional<double> tokens_per_s;
  ModelFlags model;
  GpuFlags gpu;
  DeploymentFlags dep;  // --gpus; ceiling mode only: --seq --batch --dtype --kv-dtype
  EngineCliFlags engine;
  OutputFlags output;
};

// Flags that only make sense with a model must not be silently ignored.
Status refuse_ceiling_flags(const CostFlags& f) {
  const std::pair<bool, const char*> only_with_model[] = {
      {!f.gpu.gpu.empty(), "--gpu"}, {f.gpu.bandwidth.has_value(), "--bandwidth"},
      {f.gpu.capacity.has_value(), "--capacity"}, {f.gpu.peak.has_value(), "--peak"},
      {f.dep.seq.has_value(), "--seq"}, {f.dep.batch.has_value(), "--batch"},
      {f.dep.dtype.has_value(), "--dtype"}, {f.dep.kv_dtype.has_value(), "--kv-dtype"},
      {f.dep.tp.has_value(), "--tp"}, {f.dep.pp.has_value(), "--pp"}, {f.dep.ep.has_value(), "--ep"},
      {f.dep.dp.has_value(), "--dp"}, {f.dep.compute_dtype.has_value(), "--compute-dtype"},
      {f.dep.reserve.has_value(), "--reserve"}};
  for (const auto& [given, flag] : only_with_model) {
    if (given) {
      return Status::InvalidArgument(flag, "is only used for a ceiling-based cost (with a model), not with "
                                           "--tokens-per-s");
    }
  }
  return Status::Ok();
}

Status run_cost_ceiling(const CostFlags& f, double price, int64_t gpus, std::ostream& out) {
  auto model = resolve_model(f.model);
  if (!model.ok()) return model.status();
  auto gpu = resolve_gpu(f.gpu);
  if (!gpu.ok()) return gpu.status();
  if (!gpu->has_value()) {
    return Status::InvalidArgument("--gpu", "is required for a ceiling-based cost (or --bandwidth, --capacity, --peak)");
  }
  MC_RETURN_IF_ERROR(require_peak(**gpu));
  SizeOptions o;
  o.context = resolve_seq(f.dep.seq, *model);
  if (f.dep.batch) o.batch = *f.dep.batch;
  const Dtypes dtypes = resolve_dtypes(f.dep, *model);
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  MC_ASSIGN_OR_RETURN(const CostCeilingResult r, analyze_cost_ceiling(*model, **gpu, gpus, o, price));
  if (!r.size.fits) {
    return Status::InvalidArgument(
        "--gpus",
        fmt::format("the {} weights ({}) do not fit in {} ({}); give more --gpus or a smaller --dtype",
                    dtype_name(o.weight_dtype), format_quantity(static_cast<double>(r.size.weight_bytes), Unit::kBytes),
                    r.gpu.name, format_quantity(r.gpu.capacity_bytes, Unit::kBytes)));
  }
  Report rep = build_cost_ceiling_report(*model, **gpu, o, price, r);
  state_context(f.dep.seq, *model, &rep);
  // The modeled deployment's aggregate rate (shards, replication, communication) as a second floor.
  ModelSpec draft;
  MC_ASSIGN_OR_RETURN(const DeploymentOptions d,
                      deployment_options(f.dep, *model, o.weight_dtype, o.kv_dtype, o.context, o.batch, &draft));
  MC_ASSIGN_OR_RETURN(const DeploymentAnalysis a, analyze_flags_deployment(*model, **gpu, d));
  // The answer first (the engine's rate); the lab's ceiling-based floor follows as its teaching view.
  rep.sections.insert(rep.sections.begin(), modeled_cost_section(modeled_cost(a, price)));
  MC_ASSIGN_OR_RETURN(const DeploymentPrediction pred, predict_flags_deployment(*model, **gpu, a, f.engine, f.dep));
  for (Section& s : deployment_sections(**gpu, a, &pred)) rep.sections.push_back(std::move(s));
  emit(rep, f.output, out);
  return Status::Ok();
}

Status run_cost(const CostFlags& f, std::ostream& out) {
  const double price = f.price_per_hour;
  const int64_t gpus = f.dep.gpus.value_or(1);
  const bool with_model = has_model(f.model);
  if (with_model && f.tokens_per_s) {
    return Status::InvalidArgument("--tokens-per-s", "give either a measured --tokens-per-s or a model (for a "
                                                     "ceiling-based floor), not both");
  }
  if (with_model) return run_cost_ceiling(f, price, gpus, out);
  if (!f.tokens_per_s) {
    return Status::InvalidArgument("--tokens-per-s", "is required, or give a model (--model, --config or shape "
                                                     "flags) and --gpu for a ceiling-based floor");
  }
  MC_RETURN_IF_ERROR(refuse_ceiling_flags(f));
  const CostRateQuery q{price, *f.tokens_per_s, gpus};
  emit(build_cost_rate_report(q, analyze_cost_rate(q)), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_cost(FlagSet& flags) {
  auto f = std::make_shared<CostFlags>();
  flags.add<double>("--price-per-hour", "USD per GPU-hour, e.g. 2.50", &f->price_per_hour, parse_positive_real)
      .required()
      .add<double>("--tokens-per-s", "Measured throughput, aggregate over all GPUs", &f->tokens_per_s,
                   parse_positive_count);
  add_model_flags(flags, &f->model);
  add_gpu_flags(flags, &f->gpu);
  add_deployment_flags(flags, &f->dep,
                       {{Dep::kGpus, "1; with a model: ideal tensor parallel, and the modeled split tp x pp x dp"},
                        {Dep::kSeq, kContextDefault},
                        {Dep::kBatch, "1"},
                        {Dep::kReserve, kReserveDefault},
                        {Dep::kPrompt, kPromptDefault},
                        {Dep::kDtype, kDtypeDefault}});
  add_engine_flags(flags, &f->dep);
  add_engine_profile_flags(flags, &f->engine);
  add_output_flags(flags, &f->output);
  return [f](std::ostream& out) { return run_cost(*f, out); };
}

}  // namespace modelcalc
