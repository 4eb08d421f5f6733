// Rows per second of the library's sweep(): drill 1's model and a MoE preset
// over catalog GPUs, contexts, batches and dtypes, with a callback that only
// consumes the row. Run: ./build/release/modelcalc_bench --benchmark_filter=Sweep
#include <benchmark/benchmark.h>

#include "drills.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/sweep.h"

namespace modelcalc {
namespace {

SweepSpec BenchSpec() {
  SweepSpec s;
  s.models = {drill1_model(), find_preset("mixtral-8x7b-v0.1").value()};
  for (const char* g : {"h100", "h200", "mi300x", "a100", "l40s"}) s.gpus.push_back(find_gpu(g).value());
  s.contexts = {512, 2048, 8192, 32768};
  s.batches = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
  s.dtypes = {Dtype::kBf16, Dtype::kFp8, Dtype::kInt4};
  s.kv_dtypes = {Dtype::kBf16, Dtype::kFp8};
  return s;  // 2 × 5 × 4 × 10 × 3 × 2 = 2,400 rows
}

void BM_Sweep(benchmark::State& state) {
  const SweepSpec s = BenchSpec();
  const int64_t rows = sweep_row_count(s).value();
  double sink = 0;
  for (auto _ : state) {
    const Status st = sweep(s, [&sink](const SweepRow& r) { sink += r.result.tokens_per_s_aggregate; });
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(state.iterations() * rows);  // items/s = rows per second
  state.counters["rows"] = static_cast<double>(rows);
}
BENCHMARK(BM_Sweep)->Unit(benchmark::kMillisecond);

// The up-front validation alone, for scale: one analyze_size per (model, seq, KV dtype).
void BM_ValidateSweep(benchmark::State& state) {
  const SweepSpec s = BenchSpec();
  for (auto _ : state) benchmark::DoNotOptimize(validate_sweep(s));
}
BENCHMARK(BM_ValidateSweep)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace modelcalc
