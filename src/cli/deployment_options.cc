#include "deployment_options.h"

#include <string>
#include <utility>

namespace modelcalc {

Result<DeploymentOptions> deployment_options(const DeploymentFlags& d, Dtype weights, Dtype kv, int64_t context,
                                             int64_t batch) {
  DeploymentOptions o;
  Parallelism& p = o.split;
  p.pp = d.pp.value_or(1);
  p.dp = d.dp.value_or(1);
  p.ep = d.ep.value_or(1);
  // Without --gpus, the split names the GPUs: gpus = tp x pp x dp (tp default 1).
  const int64_t gpus = d.gpus.value_or(d.tp.value_or(1) * p.pp * p.dp);
  if (d.tp) {
    p.tp = *d.tp;
  } else {
    if (gpus % (p.pp * p.dp) != 0) {
      return Status::InvalidArgument("--gpus", "must be a multiple of --pp x --dp (" + std::to_string(p.pp * p.dp) +
                                                   "), got " + std::to_string(gpus));
    }
    p.tp = gpus / (p.pp * p.dp);
  }
  // Each factor is at most kMaxGpus (2^20), so the product fits in 64 bits.
  if (p.tp * p.pp * p.dp != gpus) {
    return Status::InvalidArgument("--gpus", "must equal --tp x --pp x --dp (" + std::to_string(p.tp) + " x " +
                                                 std::to_string(p.pp) + " x " + std::to_string(p.dp) + "), got " +
                                                 std::to_string(gpus));
  }
  o.weight_dtype = weights;
  // Unset unless --kv-dtype was given (`kv` is then its value): the engine's
  // default follows the weights, so a varied scenario with other weights
  // keeps a 16-bit cache exactly as `--dtype X` alone does.
  if (d.kv_dtype || kv != default_kv_dtype(weights)) o.kv_dtype = kv;
  o.compute_dtype = d.compute_dtype;
  o.reserve_fraction = d.reserve.value_or(kDefaultReserveFraction);
  o.context = context;
  o.batch = batch;
  o.prompt_tokens = d.prompt.value_or(0);
  return o;
}

void add_engine_flags(FlagSet& flags, DeploymentFlags* d) {
  add_deployment_flags(flags, d,
                       {{Dep::kTp, kTpDefault},
                        {Dep::kPp, kPpDefault},
                        {Dep::kEp, kEpDefault},
                        {Dep::kDp, kDpDefault},
                        {Dep::kComputeDtype, kComputeDtypeDefault},
                        {Dep::kKvDtype, kKvDtypeDefault}});
}

Result<DeploymentAnalysis> analyze_flags_deployment(const ModelSpec& m, const GpuSpec& gpu,
                                                    const DeploymentOptions& o, std::string_view context_flag) {
  auto a = analyze_deployment_full(m, gpu, o);
  if (!a.ok()) return as_flag_error(a.status(), context_flag);
  return a;
}

}  // namespace modelcalc
