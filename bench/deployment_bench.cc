// One full deployment evaluation (memory, decode step, prefill, regime) per
// iteration: the inner loop of the `plan` search and of `sweep`. Goal <= 150 ns.
// Run: ./build/release/modelcalc_bench --benchmark_filter=Deployment --benchmark_min_time=0.1s
#include <benchmark/benchmark.h>

#include "drills.h"
#include "modelcalc/deployment.h"

namespace modelcalc {
namespace {

GpuSpec H100() {
  GpuSpec g;
  g.capacity_bytes = 80e9;
  g.bandwidth_bytes_per_s = 3.35e12;
  g.peak_bf16_flops = 989.4e12;
  g.link_bytes_per_s = 450e9;
  g.domain_gpus = 8;
  g.scaleout_bytes_per_s = 50e9;
  g.link_latency_s = 6e-6;
  g.scaleout_latency_s = 20e-6;
  return g;
}

// evaluate_deployment on a prepared drill-1 deployment at TP 8; batch and
// context vary so nothing is hoisted out of the loop.
void BM_EvaluateDeployment(benchmark::State& state) {
  DeploymentOptions o;
  o.split.tp = 8;
  const PreparedDeployment d = prepare_deployment(drill1_model(), H100(), o).value();
  int64_t b = 1, t = 1024;
  for (auto _ : state) {
    DeploymentResult r = evaluate_deployment(d, b, t, 0);
    benchmark::DoNotOptimize(r);
    b = b % 256 + 1;
    t = t % 32768 + 1024;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EvaluateDeployment);

// prepare_deployment: validation and hoisting, once per (model, GPU, split, dtype).
void BM_PrepareDeployment(benchmark::State& state) {
  DeploymentOptions o;
  o.split.tp = 8;
  const ModelSpec m = drill1_model();
  const GpuSpec g = H100();
  for (auto _ : state) {
    auto d = prepare_deployment(m, g, o);
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_PrepareDeployment);

}  // namespace
}  // namespace modelcalc
