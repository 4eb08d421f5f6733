#include "lab_flags.h"

#include "quantity.h"

namespace modelcalc {

Result<double> parse_positive_count(std::string_view text, std::string_view flag) {
  auto v = parse_real_count(text, flag);
  if (!v.ok()) return v.status();
  if (!(*v > 0)) return Status::InvalidArgument(flag, "must be positive, got " + std::string(text));
  return *v;
}

Result<int64_t> parse_gpu_count(std::string_view text, std::string_view flag) {
  MC_ASSIGN_OR_RETURN(const int64_t v, parse_count(text, flag));
  if (v > kMaxGpus) {
    return Status::InvalidArgument(flag, "must be at most " + std::to_string(kMaxGpus) + ", got " + quote_input(text));
  }
  return v;
}

Result<double> parse_positive_real(std::string_view text, std::string_view flag) {
  auto v = parse_real(text, flag);
  if (!v.ok()) return v.status();
  if (!(*v > 0)) return Status::InvalidArgument(flag, "must be positive, got " + std::string(text));
  return *v;
}

void add_peak_flags(FlagSet& flags, GpuFlags* f) {
  flags.text("--gpu", "GPU from the catalog (modelcalc gpus lists them)", &f->gpu)
      .add<double>("--peak", "Dense bf16 peak per GPU, e.g. 989.4TFLOPS (overrides --gpu's)", &f->peak, parse_flops);
}

Result<std::optional<GpuSpec>> resolve_peak_gpu(const GpuFlags& f) {
  GpuSpec g;
  if (!f.gpu.empty()) {
    auto found = find_gpu(f.gpu);
    if (!found.ok()) return Status::InvalidArgument("--gpu", found.status().message());
    g = *found;
  } else if (!f.peak) {
    return std::optional<GpuSpec>();
  } else {
    g.key = "custom";
    g.name = "custom GPU";
    g.source = "given on the command line";
  }
  if (f.peak && *f.peak < 1e9) {  // as resolve_gpu: less than a GFLOP/s is a typo, never a device
    return Status::InvalidArgument("--peak", "a GPU computes at least 1 GFLOP/s (e.g. 989.4TFLOPS), got " +
                                                 quote_input(std::to_string(*f.peak)) + " FLOP/s");
  }
  if (f.peak) {
    g.peak_bf16_flops = *f.peak;
    if (!f.gpu.empty()) g.name += " (modified)";
  }
  MC_RETURN_IF_ERROR(require_peak(g));
  return std::optional<GpuSpec>(g);
}

}  // namespace modelcalc
