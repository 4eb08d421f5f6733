#include "lab_flags.h"

#include <CLI/CLI.hpp>

#include "quantity.h"

namespace modelcalc {

Result<double> parse_positive_count(std::string_view text, std::string_view flag) {
  auto v = parse_real_count(text, flag);
  if (!v.ok()) return v.status();
  if (!(*v > 0)) return Status::InvalidArgument(flag, "must be positive, got " + std::string(text));
  return *v;
}

Result<double> parse_positive_real(std::string_view text, std::string_view flag) {
  auto v = parse_real(text, flag);
  if (!v.ok()) return v.status();
  if (!(*v > 0)) return Status::InvalidArgument(flag, "must be positive, got " + std::string(text));
  return *v;
}

void add_peak_flags(CLI::App& app, GpuFlags* f) {
  app.add_option("--gpu", f->gpu, "GPU from the catalog (modelcalc gpus lists them)");
  app.add_option("--peak", f->peak, "Dense bf16 peak per GPU, e.g. 989.4TFLOPS (overrides --gpu's)");
}

Result<std::optional<GpuSpec>> resolve_peak_gpu(const GpuFlags& f) {
  GpuSpec g;
  if (!f.gpu.empty()) {
    auto found = find_gpu(f.gpu);
    if (!found.ok()) return Status::InvalidArgument("--gpu", found.status().message());
    g = *found;
  } else if (f.peak.empty()) {
    return std::optional<GpuSpec>();
  } else {
    g.key = "custom";
    g.name = "custom GPU";
    g.source = "given on the command line";
  }
  if (!f.peak.empty()) {
    auto v = parse_flops(f.peak, "--peak");
    if (!v.ok()) return v.status();
    g.peak_bf16_flops = *v;
    if (!f.gpu.empty()) g.name += " (modified)";
  }
  MC_RETURN_IF_ERROR(require_peak(g));
  return std::optional<GpuSpec>(g);
}

}  // namespace modelcalc
