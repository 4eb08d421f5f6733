// modelcalc gpus: the hardware catalog as a table (or JSON), with sources.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "format.h"
#include "modelcalc/gpu.h"

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
      j.push_back({{"key", g.key},
                   {"name", g.name},
                   {"aliases", g.aliases},
                   {"capacity_bytes", g.capacity_bytes},
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
                   {"notes", g.notes}});
    }
    out << j.dump(2) << "\n";
    return Status::Ok();
  }
  out << fmt::format("{:<12} {:<28} {:>7} {:>8} {:>9} {:>9} {:>9} {:>7}  {}\n", "key", "name", "HBM GB", "TB/s",
                     "bf16 TF", "fp8 TF", "int8 TO", "ridge", "confirmed");
  for (const GpuSpec& g : gpu_catalog()) {
    const double ridge = g.ridge_point(Dtype::kBf16);
    out << fmt::format("{:<12} {:<28} {:>7} {:>8} {:>9} {:>9} {:>9} {:>7}  {}\n", g.key, g.name,
                       fmt_sig(g.capacity_bytes / 1e9, 5), fmt_sig(g.bandwidth_bytes_per_s / 1e12, 5),
                       tflops(g.peak_bf16_flops), tflops(g.peak_fp8_flops), tflops(g.peak_int8_ops),
                       ridge > 0 ? fmt_fixed(ridge, 1) : "n/a", g.confirmed ? "yes" : "NO: recalled, verify");
    if (f.sources) {
      out << "    source: " << g.source << "\n";
      if (!g.notes.empty()) out << "    notes:  " << g.notes << "\n";
      if (!g.interconnect.empty()) out << "    interconnect: " << g.interconnect << "\n";
    }
  }
  out << "\nDense peaks (2:4-sparse headline figures are twice these); decimal units (1 GB = 1e9 B).\n"
         "Ridge = dense bf16 peak / bandwidth, FLOP/byte. --sources shows where each figure comes from.\n";
  return Status::Ok();
}

}  // namespace

CommandRun setup_gpus(FlagSet& flags) {
  auto f = std::make_shared<GpusFlags>();
  flags.toggle("--json", "Print JSON (for scripts)", &f->json)
      .toggle("--sources", "Show each GPU's source, notes and interconnect", &f->sources);
  return [f](std::ostream& out) { return run_gpus(*f, out); };
}

}  // namespace modelcalc
