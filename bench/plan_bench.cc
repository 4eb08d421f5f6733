// How fast plan searches: one candidate evaluation (both figure sets of the
// serving model at one batch, then costed), and a default search for a 70B
// model over every priced catalog GPU.
// Run: ./build/release/modelcalc_bench --benchmark_filter=Plan --benchmark_min_time=0.1s
#include <benchmark/benchmark.h>

#include "modelcalc/hf_config.h"
#include "modelcalc/plan_engine.h"
#include "modelcalc/prices.h"

namespace modelcalc {
namespace {

PlanRequest Request() {
  PlanRequest r;
  r.isl = 2048;
  r.osl = 512;
  r.ttft_s = 1.0;
  r.tpot_s = 0.05;
  r.load_kind = PlanLoadKind::kRequestsPerS;
  r.load = 20;
  return r;
}

PlanSpace CatalogSpace() {
  PlanSpace s;
  for (const GpuSpec& g : gpu_catalog()) {
    if (const GpuPrice* p = find_price(g.key)) {
      PlanGpu pg;
      pg.gpu = g;
      pg.usd_per_hour = p->usd_per_hour;
      pg.domain_gpus = std::max<int64_t>(1, g.domain_gpus);
      s.gpus.push_back(pg);
    }
  }
  return s;
}

// One candidate evaluation as the search's inner loop does it.
void BM_PlanCandidateEvaluation(benchmark::State& state) {
  const ModelSpec m = find_preset("llama-3.1-70b").value();
  const PlanRequest r = Request();
  PlanSpace s = CatalogSpace();
  set_plan_model(m, &s);
  PlanCandidate c;
  for (size_t i = 0; i < s.gpus.size(); ++i) {
    if (s.gpus[i].gpu.key == "h100-sxm") c.gpu = i;
  }
  c.tp = 4;
  c.weight_dtype = Dtype::kFp8;
  const PlanPrepared d = prepare_plan_candidate(m, r, s.gpus[c.gpu].gpu, c).value();
  PlanConfig cfg, other;
  int64_t b = 1;
  for (auto _ : state) {
    const PlanPoints p = plan_points(d, b, r.isl, r.osl);
    cost_plan_point(r, s, c, b, p.predicted, &cfg);
    cost_plan_point(r, s, c, b, p.ceiling, &other);
    benchmark::DoNotOptimize(cfg);
    benchmark::DoNotOptimize(other);
    b = b % 512 + 1;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PlanCandidateEvaluation);

// The default search: llama-3.1-70b, every priced catalog GPU, bf16 and fp8
// weights, 16-bit and fp8 KV, TP up to the fast domain, PP up to 8, batches 1..65536, 64 GPUs.
void BM_PlanDefaultSearch70b(benchmark::State& state) {
  const ModelSpec m = find_preset("llama-3.1-70b").value();
  const PlanRequest r = Request();
  const PlanSpace s = CatalogSpace();
  int64_t searched = 0;
  for (auto _ : state) {
    auto res = plan_deployments(m, r, s);
    searched = res->searched;
    benchmark::DoNotOptimize(res);
  }
  state.counters["searched"] = static_cast<double>(searched);
}
BENCHMARK(BM_PlanDefaultSearch70b)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace modelcalc

namespace modelcalc {
namespace {

// The frontier alone (#38): no load and no target, every batch 1..2,048 of every candidate of every priced
// catalog GPU for llama-3.1-70b (bf16 and fp8 weights, 16-bit and fp8 KV, TP to the fast domain, PP to 8):
// about a million evaluated points, each of both figure sets, into both frontiers.
void BM_PlanFrontierMillionPoints(benchmark::State& state) {
  const ModelSpec m = find_preset("llama-3.1-70b").value();
  PlanRequest r;
  r.isl = 1024;
  r.osl = 1024;
  PlanSpace s = CatalogSpace();
  s.batches.clear();
  for (int64_t b = 1; b <= 2048; ++b) s.batches.push_back(b);
  int64_t searched = 0;
  size_t frontier = 0;
  for (auto _ : state) {
    auto res = plan_deployments(m, r, s);
    searched = res->searched;
    frontier = res->frontier.size();
    benchmark::DoNotOptimize(res);
  }
  state.counters["points"] = static_cast<double>(searched);
  state.counters["frontier_points"] = static_cast<double>(frontier);
  state.SetItemsProcessed(state.iterations() * searched);
}
BENCHMARK(BM_PlanFrontierMillionPoints)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace modelcalc
