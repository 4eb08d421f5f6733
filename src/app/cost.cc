// cost: $ per 1M tokens, from a measured throughput, or from a model's decode
// ceiling on a GPU (then a floor on the real cost).
#include "check.h"
#include "modelcalc/app/answers.h"
#include "modelcalc/app/fields.h"
#include "quantity.h"

namespace modelcalc::app {

namespace {

// Fields that only make sense with a model must not be silently ignored.
Status refuse_ceiling_fields(const CostRequest& r) {
  const GpuInput& g = r.gpu;
  const DeploymentInput& d = r.dep;
  const std::pair<bool, const char*> only_with_model[] = {
      {!g.gpu.empty() || g.spec != nullptr, "gpu"}, {g.bandwidth.has_value(), "bandwidth"},
      {g.capacity.has_value(), "capacity"},         {g.peak.has_value(), "peak"},
      {d.context.has_value(), "context"},           {d.batch.has_value(), "batch"},
      {d.dtype.has_value(), "dtype"},               {d.kv_dtype.has_value(), "kv_dtype"},
      {d.tp.has_value(), "tp"},                     {d.pp.has_value(), "pp"},
      {d.ep.has_value(), "ep"},                     {d.dp.has_value(), "dp"},
      {d.compute_dtype.has_value(), "compute_dtype"}, {d.reserve.has_value(), "reserve"}};
  for (const auto& [given, name] : only_with_model) {
    if (given) {
      return Status::InvalidArgument(name, "is only used for a ceiling-based cost (with a model), not with "
                                           "--tokens-per-s");
    }
  }
  return Status::Ok();
}

std::string bytes_text(double b) { return group_digits(static_cast<int64_t>(b)) + " B"; }

Status answer_ceiling(const CostRequest& r, double price, int64_t gpus, CostAnswer* out) {
  out->ceiling = true;
  MC_ASSIGN_OR_RETURN(out->model, resolve_model(r.model));
  MC_ASSIGN_OR_RETURN(out->gpu, resolve_gpu(r.gpu));
  if (out->gpu == nullptr) {
    return Status::InvalidArgument("gpu", "is required for a ceiling-based cost (or --bandwidth, --capacity, --peak)");
  }
  const ModelSpec& m = *out->model;
  const GpuSpec& g = *out->gpu;
  MC_RETURN_IF_ERROR(require_peak(g));
  SizeOptions& o = out->options;
  o.context = resolve_context(r.dep.context, m, &out->resolved);
  if (r.dep.batch) o.batch = *r.dep.batch;
  const Dtypes dtypes = resolve_dtypes(r.dep, &m, &out->resolved);
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  MC_ASSIGN_OR_RETURN(out->ceiling_result, analyze_cost_ceiling(m, g, gpus, o, price));
  const CostCeilingResult& c = out->ceiling_result;
  if (!c.size.fits) {
    return Status::InvalidArgument(
        "gpus", "the " + std::string(dtype_name(o.weight_dtype)) + " weights (" +
                    bytes_text(static_cast<double>(c.size.weight_bytes)) + ") do not fit in " + c.gpu.name + " (" +
                    bytes_text(c.gpu.capacity_bytes) + "); give more --gpus or a smaller --dtype");
  }
  // The modeled deployment's aggregate rate (shards, replication, communication) as a second floor.
  auto draft = std::make_shared<ModelSpec>();
  MC_ASSIGN_OR_RETURN(const DeploymentOptions d, deployment_options(r.dep, r.layout, m, o.weight_dtype, o.kv_dtype,
                                                                    o.context, o.batch, draft.get(), &out->resolved));
  out->draft = draft;
  MC_ASSIGN_OR_RETURN(out->deployment, analyze(m, g, d, &r.dep));
  out->modeled = modeled_cost(out->deployment, price);
  MC_ASSIGN_OR_RETURN(out->prediction, predict(m, g, out->deployment, r.engine, r.dep));
  if (out->prediction) out->predicted_cost = predicted_cost(out->deployment, *out->prediction, price);
  return Status::Ok();
}

Result<CostAnswer> answer_cost(const CostRequest& r) {
  MC_RETURN_IF_ERROR(check_request(r));
  CostAnswer out;
  out.request = r;
  if (!r.price_per_hour) return Status::InvalidArgument("price_per_hour", "is required: USD per GPU-hour, e.g. 2.50");
  const double price = *r.price_per_hour;
  const int64_t gpus = r.dep.gpus.value_or(1);
  const bool with_model = r.model.given();
  if (with_model && r.tokens_per_s) {
    return Status::InvalidArgument("tokens_per_s", "give either a measured --tokens-per-s or a model (for a "
                                                   "ceiling-based floor), not both");
  }
  if (with_model) {
    MC_RETURN_IF_ERROR(answer_ceiling(r, price, gpus, &out));
    return out;
  }
  if (!r.tokens_per_s) {
    return Status::InvalidArgument("tokens_per_s", "is required, or give a model (--model, --config or shape "
                                                   "flags) and --gpu for a ceiling-based floor");
  }
  MC_RETURN_IF_ERROR(refuse_ceiling_fields(r));
  out.rate_query = CostRateQuery{price, *r.tokens_per_s, gpus};
  out.rate = analyze_cost_rate(out.rate_query);
  return out;
}

}  // namespace

Result<CostAnswer> answer(const CostRequest& r, const Context&) {
  auto a = answer_cost(r);
  if (!a.ok()) return as_field_error(a.status());
  return a;
}

}  // namespace modelcalc::app
