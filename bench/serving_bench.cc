// How fast one full prediction is: the serving model's ceiling and prediction
// for one request shape (serve_both), saturated and at a rate (the fixed
// point), and the predicted decode step. Each run also counts heap
// allocations inside the timed loop (operator new is counted in this binary):
// the counter "allocs_per_iter" must read 0.
// Run: ./build/release/modelcalc_bench --benchmark_filter=Serve
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "modelcalc/hf_config.h"
#include "modelcalc/serving.h"

namespace {
std::atomic<int64_t> g_allocations{0};
}  // namespace

// Counts every allocation of the benchmark binary (a replaceable global operator). GCC cannot see
// that this new and these deletes are a pair (both over malloc and free).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace modelcalc {
namespace {

struct Fixture {
  PreparedDeployment d;
  DeploymentMemory ceiling_memory;
  EngineSettings settings;
  EngineMemory memory;
  StepTimeParams params;
};

Fixture make(int64_t isl, int64_t osl) {
  const ModelSpec m = find_preset("llama-3.1-70b").value();
  const GpuSpec gpu = find_gpu("h100").value();
  DeploymentOptions o;
  o.split.tp = 4;
  o.weight_dtype = Dtype::kFp8;
  o.kv_dtype = Dtype::kFp8;
  o.context = isl + osl;
  Fixture f;
  f.d = prepare_deployment(m, gpu, o).value();
  f.ceiling_memory = evaluate_deployment(f.d, 1, isl + osl, isl).memory;
  f.settings = resolve_engine_settings(kDefaultEngine, {}, m, gpu, f.d, EngineWorkload{isl, osl}).value();
  f.memory = engine_memory(engine_view(f.d, f.settings), f.settings);
  f.params = engine_profile(kDefaultEngine).time;
  return f;
}

void run(benchmark::State& state, ServingLoad load, double value) {
  const Fixture f = make(1000, 1000);
  ServingRequest r{1000, 1000, load, value};
  double sink = 0;
  const int64_t before = g_allocations.load();
  for (auto _ : state) {
    const ServingPair p = serve_both(f.d, f.ceiling_memory, f.memory, f.settings, f.params, r);
    sink += p.predicted.tpot_s;
    benchmark::DoNotOptimize(sink);
  }
  state.counters["allocs_per_iter"] =
      static_cast<double>(g_allocations.load() - before) / static_cast<double>(state.iterations());
}

void BM_ServeBothSaturated(benchmark::State& state) { run(state, ServingLoad::kSaturated, 0); }
BENCHMARK(BM_ServeBothSaturated);

void BM_ServeBothAtARate(benchmark::State& state) { run(state, ServingLoad::kRequestsPerS, 5); }
BENCHMARK(BM_ServeBothAtARate);

void BM_PredictDecodeStep(benchmark::State& state) {
  const Fixture f = make(1000, 1000);
  const PreparedDeployment e = engine_view(f.d, f.settings);
  int64_t b = 1;
  double sink = 0;
  const int64_t before = g_allocations.load();
  for (auto _ : state) {
    sink += predict_decode(e, f.memory, f.settings, f.params, b, 2000).step.seconds;
    benchmark::DoNotOptimize(sink);
    b = b % 512 + 1;
  }
  state.counters["allocs_per_iter"] =
      static_cast<double>(g_allocations.load() - before) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_PredictDecodeStep);

}  // namespace
}  // namespace modelcalc
