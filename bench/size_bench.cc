#include <benchmark/benchmark.h>

#include "modelcalc/model.h"

static void BM_Placeholder(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(modelcalc::ModelSpec{});
}
BENCHMARK(BM_Placeholder);
