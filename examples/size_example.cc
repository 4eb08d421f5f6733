// The README's library example, compiled with every build so it cannot rot.
#include <cstdio>

#include "modelcalc/modelcalc.h"

using namespace modelcalc;

int main() {
  ModelSpec m = find_preset("llama-3.1-8b").value();  // or load_hf_config("path/config.json")
  GpuSpec g = find_gpu("h100").value();
  SizeOptions o;  // members state their defaults
  o.context = 8192;
  o.batch = 32;
  Result<SizeResult> r = analyze_size(m, g, o);  // validates; errors are values
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.status().message().c_str());
    return 2;
  }
  std::printf("%.0f tokens/s\n", r->tokens_per_s_aggregate);  // 32 x 3.35e12 / (16.06e9 + 32 x 1.074e9) ~= 2126
  return 0;
}
