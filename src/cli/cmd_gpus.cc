// modelcalc gpus: the hardware catalog as a table (or JSON), with sources.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "format.h"
#include "modelcalc/gpu.h"
#include "runs.h"

namespace modelcalc {

namespace {

struct GpusFlags {
  bool json = false;
  bool sources = false;
};

std::string tflops(double flops) { return flops > 0 ? fmt_sig(flops / 1e12, 5) : "n/a"; }

Status run_gpus(const GpusFlags& f, std::ostream& out) {
  if (f.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const GpuSpec& g : gpu_catalog()) {
      j.push_back(gpu_row_json(g));
    }
    out << j.dump(2) << "\n";
    return Status::Ok();
  }
  constexpr const char* kRow = "{:<14} {:<39} {:>6} {:>8} {:>6} {:>7} {:>7} {:>7} {:>7} {:>6}  {}\n";
  out << fmt::format(kRow, "key", "name", "GB", "drv MiB", "TB/s", "bf16 TF", "fp8 TF", "int8 TO", "fp4 TF", "ridge",
                     "confirmed");
  for (const GpuSpec& g : gpu_catalog()) {
    const double ridge = g.ridge_point(Dtype::kBf16);
    out << fmt::format(kRow, g.key, g.name, fmt_sig(g.capacity_bytes / 1e9, 5),
                       g.exposed_bytes > 0 ? group_digits(static_cast<int64_t>(g.exposed_bytes / 1048576.0)) : "-",
                       fmt_sig(g.bandwidth_bytes_per_s / 1e12, 5), tflops(g.peak_bf16_flops), tflops(g.peak_fp8_flops),
                       tflops(g.peak_int8_ops), tflops(g.peak_fp4_flops), ridge > 0 ? fmt_fixed(ridge, 1) : "n/a",
                       g.confirmed ? "yes" : "NO: recalled, verify");
    if (f.sources) {
      out << "    source: " << g.source << "\n";
      if (!g.notes.empty()) out << "    notes:  " << g.notes << "\n";
      if (!g.interconnect.empty()) out << "    interconnect: " << g.interconnect << "\n";
      if (!g.exposed_source.empty()) out << "    driver memory: " << g.exposed_source << "\n";
    }
  }
  out << "\nDense peaks (2:4-sparse headline figures are twice these); GB decimal (1e9 B), the vendor's nominal\n"
         "capacity; drv MiB = what the driver exposes (nvidia-smi, 2^20 B; - = not catalogued).\n"
         "Ridge = dense bf16 peak / bandwidth, FLOP/byte. --sources shows where each figure comes from.\n";
  return Status::Ok();
}

}  // namespace

nlohmann::json gpu_row_json(const GpuSpec& g) {
  return nlohmann::json{{"key", g.key},
                        {"name", g.name},
                        {"aliases", g.aliases},
                        {"capacity_bytes", g.capacity_bytes},
                        {"exposed_bytes", g.exposed_bytes},
                        {"exposed_source", g.exposed_source},
                        {"usable_capacity_bytes", g.usable_capacity_bytes()},
                        {"bandwidth_bytes_per_s", g.bandwidth_bytes_per_s},
                        {"peak_bf16_flops", g.peak_bf16_flops},
                        {"peak_fp8_flops", g.peak_fp8_flops},
                        {"peak_int8_ops", g.peak_int8_ops},
                        {"peak_fp4_flops", g.peak_fp4_flops},
                        {"peak_fp32_flops", g.peak_fp32_flops},
                        {"ridge_bf16", g.ridge_point(Dtype::kBf16)},
                        {"interconnect", g.interconnect},
                        {"tdp_watts", g.tdp_watts},
                        {"source", g.source},
                        {"confirmed", g.confirmed},
                        {"notes", g.notes}};
}

CommandRun setup_gpus(FlagSet& flags) {
  auto f = std::make_shared<GpusFlags>();
  flags.toggle("--json", "Print JSON (for scripts)", &f->json)
      .toggle("--sources", "Show each GPU's source, notes and interconnect", &f->sources);
  return [f](std::ostream& out) { return run_gpus(*f, out); };
}

}  // namespace modelcalc
