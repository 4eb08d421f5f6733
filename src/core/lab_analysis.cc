#include "modelcalc/lab_analysis.h"

#include "modelcalc/lab.h"

namespace modelcalc {

TrainResult analyze_train(const TrainQuery& q) {
  TrainResult r;
  r.flops = training_flops(q.params, q.tokens);
  r.tokens_per_param = q.tokens / q.params;
  if (q.gpu) {
    TrainTime t;
    t.peak_flops_per_gpu = q.gpu->peak_bf16_flops;
    t.gpu_hours = training_gpu_hours(r.flops, t.peak_flops_per_gpu, q.mfu);
    t.days = training_days(t.gpu_hours, static_cast<double>(q.gpus));
    r.time = t;
  }
  return r;
}

ChinchillaResult analyze_chinchilla(const ChinchillaQuery& q) {
  ChinchillaResult r;
  if (q.params) {
    r.params = *q.params;
    r.tokens = chinchilla_optimal_tokens(r.params);
    r.compute = training_flops(r.params, r.tokens);
  } else {
    const ChinchillaPoint p = chinchilla_optimal_params(*q.compute);
    r.params = p.params;
    r.tokens = p.tokens;
    r.compute = *q.compute;
  }
  return r;
}

CostRateResult analyze_cost_rate(const CostRateQuery& q) {
  return {cost_per_million_tokens(q.usd_per_gpu_hour, q.tokens_per_s, static_cast<double>(q.gpus))};
}

MfuResult analyze_mfu(const MfuQuery& q) {
  MfuResult r;
  r.flops_per_token_factor = q.mode == MfuMode::kTraining ? 6.0 : 2.0;
  r.flops_per_token = r.flops_per_token_factor * q.params;
  r.peak_flops = q.peak_per_gpu * static_cast<double>(q.gpus);
  r.mfu = mfu(q.tokens_per_s, q.params, r.peak_flops, q.mode);
  return r;
}

}  // namespace modelcalc
