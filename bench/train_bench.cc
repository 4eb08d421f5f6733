// How fast the training engine evaluates a layout (evaluate_training, the
// planner's inner loop: memory of every pipeline stage and the step time),
// and a default train-plan search.
// Run: ./build/release/modelcalc_bench --benchmark_filter=Train --benchmark_min_time=0.1s
#include <benchmark/benchmark.h>

#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/prices.h"
#include "modelcalc/train_plan.h"
#include "modelcalc/training.h"

namespace modelcalc {
namespace {

// Layouts as train-plan evaluates them: one prepared structure, then (dp,
// global batch, ZeRO stage) varied -- every item one layout.
void EvaluateLayouts(benchmark::State& state, const char* model, int64_t tp, int64_t pp) {
  const ModelSpec m = find_preset(model).value();
  TrainOptions o;
  o.layout.tp = tp;
  o.layout.pp = pp;
  o.seq = 4096;
  o.flash = true;
  o.sequence_parallel = tp > 1;
  const PreparedTraining p = prepare_training(m, find_gpu("h100").value(), o).value();
  int64_t dp = 1, zero = 0;
  for (auto _ : state) {
    const int64_t gb = 1024 / dp * dp;  // the largest multiple of dp within 1024 sequences
    const TrainEval e = evaluate_training(p, dp, gb, static_cast<int>(zero));
    benchmark::DoNotOptimize(e);
    zero = (zero + 1) & 3;
    if (zero == 0) dp = dp % 512 + 1;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_TrainLayoutLlama8bTp2(benchmark::State& state) { EvaluateLayouts(state, "llama-3.1-8b", 2, 1); }
BENCHMARK(BM_TrainLayoutLlama8bTp2);
void BM_TrainLayoutLlama70bTp8Pp4(benchmark::State& state) { EvaluateLayouts(state, "llama-3.1-70b", 8, 4); }
BENCHMARK(BM_TrainLayoutLlama70bTp8Pp4);
void BM_TrainLayoutLlama405bTp8Pp18(benchmark::State& state) { EvaluateLayouts(state, "llama-3.1-405b", 8, 18); }
BENCHMARK(BM_TrainLayoutLlama405bTp8Pp18);

// The default search: every priced catalog GPU with links, 15T tokens in 30 days.
void TrainPlanSearch(benchmark::State& state, const char* model, double tokens, double days) {
  const ModelSpec m = find_preset(model).value();
  TrainPlanQuery q;
  q.model = &m;
  q.tokens = tokens;
  q.deadline_days = days;
  for (const GpuSpec& g : gpu_catalog()) {
    const GpuPrice* price = find_price(g.key);
    if (price && g.peak_bf16_flops > 0 && g.link_bytes_per_s > 0 && g.scaleout_bytes_per_s > 0) {
      q.gpus.push_back({g, price->usd_per_hour});
    }
  }
  int64_t searched = 0;
  for (auto _ : state) {
    auto r = plan_training(q);
    searched = r->searched;
    benchmark::DoNotOptimize(r);
  }
  state.counters["searched"] = static_cast<double>(searched);
  state.counters["layouts_per_s"] =
      benchmark::Counter(static_cast<double>(searched), benchmark::Counter::kIsIterationInvariantRate);
}
void BM_TrainPlanLlama8b(benchmark::State& state) { TrainPlanSearch(state, "llama-3.1-8b", 15e12, 30); }
BENCHMARK(BM_TrainPlanLlama8b)->Unit(benchmark::kMillisecond);
void BM_TrainPlanLlama70b(benchmark::State& state) { TrainPlanSearch(state, "llama-3.1-70b", 15e12, 90); }
BENCHMARK(BM_TrainPlanLlama70b)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace modelcalc
