// The lab's formulas that formulas.h does not already hold: turning a FLOP
// budget into GPU-hours and days, and the compute ceiling on decode. Pure,
// constexpr, no I/O, like formulas.h (which holds the rest of the lab's
// functions under the lab's names: training_flops, kv_cache_bytes,
// chinchilla_optimal_params, decode_tokens_per_sec, cost_per_million_tokens,
// mfu, ...).
//
// Units: FLOP, FLOP/s, hours, days, tokens/s.
#ifndef MODELCALC_LAB_H_
#define MODELCALC_LAB_H_

namespace modelcalc {

// GPU-hours to execute `flops` at a sustained `mfu` of each GPU's dense peak:
// F / (peak . mfu) / 3600.
// REQUIRES: peak_flops_per_gpu > 0, 0 < mfu <= 1.
constexpr double training_gpu_hours(double flops, double peak_flops_per_gpu, double mfu) {
  return flops / (peak_flops_per_gpu * mfu) / 3600.0;
}

// Wall-clock days for `gpu_hours` spread over `gpus` GPUs: H / gpus / 24.
// REQUIRES: gpus > 0.
constexpr double training_days(double gpu_hours, double gpus) { return gpu_hours / gpus / 24.0; }

// Dollars for `gpu_hours` at a price per GPU-hour: H . price.
constexpr double training_cost_usd(double gpu_hours, double usd_per_gpu_hour) { return gpu_hours * usd_per_gpu_hour; }

// Compute ceiling on aggregate decode tokens/s: every token costs
// `flops_per_token`, and the GPUs cannot beat their peak: peak / F_token.
// The achievable ceiling is min(this, decode_tokens_per_sec(...)).
// REQUIRES: flops_per_token > 0.
constexpr double decode_compute_ceiling(double peak_flops, double flops_per_token) {
  return peak_flops / flops_per_token;
}

}  // namespace modelcalc

#endif  // MODELCALC_LAB_H_
