// modelcalc cost: $ per 1M tokens, from a measured throughput, or from a
// model's decode ceiling on a GPU (then a floor on the real cost).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "commands.h"
#include "format.h"
#include "lab_flags.h"
#include "lab_report.h"
#include "quantity.h"

namespace modelcalc {

namespace {

struct CostFlags {
  std::string price_per_hour, tokens_per_s;
  std::string gpus = "1";
  ModelFlags model;
  GpuFlags gpu;
  std::string seq, batch, dtype, kv_dtype;  // ceiling mode only
  OutputFlags output;
};

// Flags that only make sense with a model must not be silently ignored.
Status refuse_ceiling_flags(const CostFlags& f) {
  const std::pair<const std::string*, const char*> only_with_model[] = {
      {&f.gpu.gpu, "--gpu"},   {&f.gpu.bandwidth, "--bandwidth"}, {&f.gpu.capacity, "--capacity"},
      {&f.gpu.peak, "--peak"}, {&f.seq, "--seq"},                 {&f.batch, "--batch"},
      {&f.dtype, "--dtype"},   {&f.kv_dtype, "--kv-dtype"}};
  for (const auto& [value, flag] : only_with_model) {
    if (!value->empty()) {
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
  if (!((*gpu)->peak_bf16_flops > 0)) {
    return Status::InvalidArgument("--gpu", (*gpu)->name + " has no published dense bf16 peak; give --peak");
  }
  SizeOptions o;
  MC_ASSIGN_OR_RETURN(o.seq, resolve_seq(f.seq, *model));
  if (!f.batch.empty()) {
    MC_ASSIGN_OR_RETURN(o.batch, parse_count(f.batch, "--batch"));
  }
  MC_ASSIGN_OR_RETURN(const Dtypes dtypes, resolve_dtypes(f.dtype, f.kv_dtype));
  o.weight_dtype = dtypes.weights;
  o.kv_dtype = dtypes.kv;
  MC_ASSIGN_OR_RETURN(const CostCeilingResult r, analyze_cost_ceiling(*model, **gpu, gpus, o, price));
  if (!r.size.fits) {
    return Status::InvalidArgument(
        "--gpus", fmt::format("the {} weights ({}) do not fit in {} ({}); give more --gpus or a smaller --dtype",
                              dtype_name(o.weight_dtype), fmt_gb(static_cast<double>(r.size.weight_bytes)), r.gpu.name,
                              fmt_gb(r.gpu.capacity_bytes)));
  }
  emit(build_cost_ceiling_report(*model, **gpu, o, price, r), f.output, out);
  return Status::Ok();
}

Status run_cost(const CostFlags& f, std::ostream& out) {
  auto price = parse_positive_real(f.price_per_hour, "--price-per-hour");
  if (!price.ok()) return price.status();
  auto gpus = parse_count(f.gpus, "--gpus");
  if (!gpus.ok()) return gpus.status();
  const bool with_model = has_model(f.model);
  if (with_model && !f.tokens_per_s.empty()) {
    return Status::InvalidArgument("--tokens-per-s", "give either a measured --tokens-per-s or a model (for a "
                                                     "ceiling-based floor), not both");
  }
  if (with_model) return run_cost_ceiling(f, *price, *gpus, out);
  if (f.tokens_per_s.empty()) {
    return Status::InvalidArgument("--tokens-per-s", "is required, or give a model (--model, --config or shape "
                                                     "flags) and --gpu for a ceiling-based floor");
  }
  MC_RETURN_IF_ERROR(refuse_ceiling_flags(f));
  auto tps = parse_positive_count(f.tokens_per_s, "--tokens-per-s");
  if (!tps.ok()) return tps.status();
  emit(build_cost_rate_report({*price, *tps, *gpus}), f.output, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_cost(CLI::App& app) {
  auto f = std::make_shared<CostFlags>();
  app.add_option("--price-per-hour", f->price_per_hour, "USD per GPU-hour, e.g. 2.50")->required();
  app.add_option("--tokens-per-s", f->tokens_per_s, "Measured throughput, aggregate over all GPUs");
  app.add_option("--gpus", f->gpus, "GPUs serving (with a model: ideal tensor parallel)")->capture_default_str();
  add_model_flags(app, &f->model);
  add_gpu_flags(app, &f->gpu);
  app.add_option("--seq", f->seq, "Context T of every sequence (default: the model's max positions, else 4096)");
  app.add_option("--batch", f->batch, "Concurrent sequences (default 1)");
  app.add_option("--dtype", f->dtype, "Weight dtype (default fp16)");
  app.add_option("--kv-dtype", f->kv_dtype, "KV-cache dtype (default: --dtype)");
  add_output_flags(app, &f->output);
  return [f](std::ostream& out) { return run_cost(*f, out); };
}

}  // namespace modelcalc
