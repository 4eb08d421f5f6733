// The lab's functions in a sweep: the tradeoff resolver (allocates the
// decision sentence) and the pure decode/KV formulas (should be ~ns).
#include <benchmark/benchmark.h>

#include "modelcalc/formulas.h"
#include "modelcalc/tradeoff.h"

namespace {

using modelcalc::Candidate;

void BM_ResolveTradeoff(benchmark::State& state) {
  const Candidate a{"big", {.quality = 0.9, .latency = 200, .throughput = 1000, .cost = 4, .memory = 160}};
  const Candidate b{"small", {.quality = 0.6, .latency = 100, .throughput = 2000, .cost = 1, .memory = 20}};
  const auto w = *modelcalc::make_weights({.quality = 0.4, .latency = 0.3, .cost = 0.3});
  for (auto _ : state) benchmark::DoNotOptimize(modelcalc::resolve_tradeoff(a, b, w));
}
BENCHMARK(BM_ResolveTradeoff);

void BM_DecodeBatchSweep(benchmark::State& state) {
  // 8B fp16 on an H100, batch 1..256: the lab's batching curve.
  for (auto _ : state) {
    double sum = 0;
    for (int b = 1; b <= 256; ++b) {
      const auto kv = modelcalc::kv_cache_bytes(32, 4096, 4096, modelcalc::Dtype::kFp16, 1, 32, 8);
      sum += modelcalc::decode_tokens_per_sec(3.35e12, 16.06e9, static_cast<double>(kv.value()), b);
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * 256);
}
BENCHMARK(BM_DecodeBatchSweep);

}  // namespace
