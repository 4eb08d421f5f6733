// One full deployment evaluation (memory, decode step, prefill, regime) per
// iteration: the inner loop of the `plan` search and of `sweep`. Goal <= 150 ns.
// Run: ./build/release/modelcalc_bench --benchmark_filter=Deployment --benchmark_min_time=0.1s
#include <benchmark/benchmark.h>

#include "drills.h"
#include "modelcalc/deployment.h"
#include "typed_gpus.h"

namespace modelcalc {
namespace {

GpuSpec H100() { return typed_h100(); }  // typed_gpus.h: the bf16 step never reads its fp8 peak

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
