// How fast the pure core sizes a model: one full `size` evaluation (params,
// memory, FLOPs, KV, decode ceiling, regime) per iteration, as a sweep would
// call it. Run: ./build/release/modelcalc_bench
#include <benchmark/benchmark.h>

#include "drills.h"
#include "modelcalc/formulas.h"
#include "modelcalc/size.h"

namespace modelcalc {
namespace {


GpuSpec Mi300x() {
  GpuSpec g;
  g.capacity_bytes = 192e9;
  g.bandwidth_bytes_per_s = 5.3e12;
  g.peak_bf16_flops = 1307.4e12;
  return g;
}

// compute_size on a validated model, into one reused result (the
// out-parameter form, as a loop over rows calls it). The batch varies so the
// compiler cannot hoist the work out of the loop.
void BM_ComputeSize(benchmark::State& state) {
  const ModelSpec m = drill1_model();
  const GpuSpec g = Mi300x();
  const ParamBreakdown p = param_breakdown(m).value();
  SizeOptions o;
  o.context = 8192;
  int64_t b = 1;
  SizeResult r;
  for (auto _ : state) {
    o.batch = b;
    b = b % 256 + 1;
    compute_size(m, p, g, o, &r);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ComputeSize);

// The by-value form: the same evaluation plus a fresh SizeResult's zero-fill.
void BM_ComputeSizeByValue(benchmark::State& state) {
  const ModelSpec m = drill1_model();
  const GpuSpec g = Mi300x();
  const ParamBreakdown p = param_breakdown(m).value();
  SizeOptions o;
  o.context = 8192;
  int64_t b = 1;
  for (auto _ : state) {
    o.batch = b;
    b = b % 256 + 1;
    SizeResult r = compute_size(m, p, g, o);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ComputeSizeByValue);

// analyze_size adds validation and the overflow checks.
void BM_AnalyzeSize(benchmark::State& state) {
  const ModelSpec m = drill1_model();
  const GpuSpec g = Mi300x();
  SizeOptions o;
  o.context = 8192;
  for (auto _ : state) {
    auto r = analyze_size(m, g, o);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AnalyzeSize);

// A single core formula, for scale.
void BM_DecodeTokensPerSec(benchmark::State& state) {
  double batch = 1;
  for (auto _ : state) {
    batch = batch < 256 ? batch + 1 : 1;
    benchmark::DoNotOptimize(decode_tokens_per_sec(5.3e12, 39.0e9, 1.6e9, batch));
  }
}
BENCHMARK(BM_DecodeTokensPerSec);

}  // namespace
}  // namespace modelcalc
