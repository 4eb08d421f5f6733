// paged_kv_waste over a large batch of lengths: the pure, allocation-free path
// a serving simulator would call per scheduling step.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "modelcalc/capacity.h"

static void BM_PagedKvWaste(benchmark::State& state) {
  std::vector<int64_t> lens(static_cast<size_t>(state.range(0)));
  uint64_t x = 12345;
  for (auto& len : lens) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    len = static_cast<int64_t>(1 + (x >> 33) % 8192);
  }
  for (auto _ : state) benchmark::DoNotOptimize(modelcalc::paged_kv_waste(lens, 16));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PagedKvWaste)->Arg(256)->Arg(65536);
