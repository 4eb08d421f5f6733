#include "modelcalc/step_params.h"

#include <string>

#include "tsv.h"

namespace modelcalc {

namespace {

struct ParamRow {
  std::string_view name;
  double StepTimeParams::*member;
  bool seconds;
};

constexpr std::array<ParamRow, kStepTimeParamCount> kParams = {{
    {"gemm_fraction", &StepTimeParams::gemm_fraction, false},
    {"fp8_gemm_fraction", &StepTimeParams::fp8_gemm_fraction, false},
    {"fp4_gemm_fraction", &StepTimeParams::fp4_gemm_fraction, false},
    {"grouped_gemm_fraction", &StepTimeParams::grouped_gemm_fraction, false},
    {"hbm_fraction", &StepTimeParams::hbm_fraction, false},
    {"kv_read_fraction", &StepTimeParams::kv_read_fraction, false},
    {"attention_fraction", &StepTimeParams::attention_fraction, false},
    {"overlap_loss", &StepTimeParams::overlap_loss, false},
    {"allreduce_efficiency", &StepTimeParams::allreduce_efficiency, false},
    {"allreduce_latency_s", &StepTimeParams::allreduce_latency_s, true},
    {"layer_overhead_s", &StepTimeParams::layer_overhead_s, true},
    {"moe_layer_overhead_s", &StepTimeParams::moe_layer_overhead_s, true},
    {"eager_layer_overhead_s", &StepTimeParams::eager_layer_overhead_s, true},
    {"step_overhead_s", &StepTimeParams::step_overhead_s, true},
    {"sequence_overhead_s", &StepTimeParams::sequence_overhead_s, true},
    {"request_overhead_s", &StepTimeParams::request_overhead_s, true},
}};

constexpr int kOverlapLoss = 7;

bool valid(int i) { return i >= 0 && i < kStepTimeParamCount; }

}  // namespace

double step_param(const StepTimeParams& p, int i) { return valid(i) ? p.*(kParams[i].member) : 0; }

void set_step_param(StepTimeParams* p, int i, double v) {
  if (valid(i)) p->*(kParams[i].member) = v;
}

std::string_view step_param_name(int i) { return valid(i) ? kParams[i].name : "?"; }

bool step_param_is_seconds(int i) { return valid(i) && kParams[i].seconds; }

bool step_param_in_range(int i, double v) {
  if (!valid(i)) return false;
  if (kParams[i].seconds) return v >= 0 && v < 1;
  if (i == kOverlapLoss) return v >= 0 && v <= 1;
  return v > 0 && v <= 1;
}

std::string_view step_param_range_text(int i) {
  if (step_param_is_seconds(i)) return "in [0, 1) seconds";
  return i == kOverlapLoss ? "a fraction in [0, 1]" : "a fraction in (0, 1]";
}

Status read_global_step_param(std::string_view name, std::string_view value, std::string_view where,
                              StepTimeParams* globals) {
  for (GpuArch a : kAllGpuArchs) {
    if (arch_factor_name(a) != name) continue;
    double v = 0;
    if (!tsv_real(value, &v)) return Status::InvalidArgument(where, "value is not a number");
    if (!arch_factor_in_range(v)) return Status::InvalidArgument(where, std::string(name) + " must be in (0, 2]");
    globals->arch_factor[static_cast<size_t>(a)] = v;
    return Status::Ok();
  }
  return Status::InvalidArgument(where, "unknown global parameter '" + std::string(name) + "'");
}

std::string arch_factor_name(GpuArch a) { return "arch_factor_" + std::string(gpu_arch_key(a)); }

bool arch_factor_in_range(double v) { return v > 0 && v <= 2; }

StepTimeParams ideal_step_params() { return StepTimeParams{}; }

double gemm_fraction_for(const StepTimeParams& p, Dtype compute) {
  switch (dtype_info(compute).peak) {
    case PeakColumn::kFp8: return p.fp8_gemm_fraction;
    case PeakColumn::kFp4: return p.fp4_gemm_fraction;
    default: return p.gemm_fraction;
  }
}

}  // namespace modelcalc
