#include "modelcalc/cost.h"

#include <algorithm>

#include "modelcalc/formulas.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/lab.h"

namespace modelcalc {

DecodeCeiling decode_ceiling(const SizeResult& r, const GpuSpec& g) {
  DecodeCeiling c;
  c.bandwidth_tps = r.tokens_per_s_aggregate;
  c.compute_tps = decode_compute_ceiling(g.peak_bf16_flops, r.decode_per_token);
  c.tps = std::min(c.bandwidth_tps, c.compute_tps);
  return c;
}

Result<CostCeilingResult> analyze_cost_ceiling(const ModelSpec& m, const GpuSpec& one_gpu, int64_t gpus,
                                               const SizeOptions& o, double usd_per_gpu_hour) {
  CostCeilingResult c;
  c.gpus = gpus;
  c.gpu = tensor_parallel(one_gpu, gpus);
  auto r = analyze_size(m, c.gpu, o);
  if (!r.ok()) return r.status();
  c.size = *r;
  c.weight_step_bytes = c.size.step_bytes_aggregate - static_cast<double>(o.batch) * static_cast<double>(c.size.kv_per_seq);
  if (!c.size.fits) return c;
  c.ceiling = decode_ceiling(c.size, c.gpu);
  c.usd_per_million_tokens = cost_per_million_tokens(usd_per_gpu_hour, c.ceiling.tps, static_cast<double>(gpus));
  c.usd_per_million_tokens_at_80pct = c.usd_per_million_tokens / 0.8;
  c.usd_per_million_tokens_at_60pct = c.usd_per_million_tokens / 0.6;
  return c;
}

ModeledCost modeled_cost(const DeploymentAnalysis& a, double usd_per_gpu_hour) {
  ModeledCost c;
  c.usd_per_gpu_hour = usd_per_gpu_hour;
  c.gpus = static_cast<double>(a.prepared.split.gpus());
  c.tokens_per_s = a.result.decode.tokens_per_s_aggregate;
  c.usd_per_million_tokens = cost_per_million_tokens(usd_per_gpu_hour, c.tokens_per_s, c.gpus);
  c.fits = a.result.decode.fits;
  return c;
}

ModeledCost predicted_cost(const DeploymentAnalysis& a, const DeploymentPrediction& p, double usd_per_gpu_hour) {
  ModeledCost c = modeled_cost(a, usd_per_gpu_hour);
  c.tokens_per_s = p.decode.tokens_per_s_aggregate;
  c.usd_per_million_tokens = cost_per_million_tokens(usd_per_gpu_hour, c.tokens_per_s, c.gpus);
  c.fits = p.decode.fits;
  return c;
}

namespace {

Result<LabExampleModel> example_model(std::string key, const char* preset, const GpuSpec& h100, int64_t gpus,
                                      double quality) {
  LabExampleModel d;
  d.key = std::move(key);
  auto m = find_preset(preset);
  if (!m.ok()) return m.status();
  d.model = *m;
  SizeOptions o;
  o.context = LabExample::kSeq;
  o.weight_dtype = o.kv_dtype = Dtype::kFp16;  // the lab's figures
  o.batch = LabExample::kBatch;
  auto c = analyze_cost_ceiling(d.model, h100, gpus, o, LabExample::kUsdPerGpuHour);
  if (!c.ok()) return c.status();
  d.deployment = *c;
  Candidate& k = d.candidate;
  k.name = d.key + (gpus > 1 ? "-tp" + std::to_string(gpus) : "");
  k.dials.quality = quality;  // the one dial the arithmetic cannot give: an assumed eval pass rate
  k.dials.latency = static_cast<double>(LabExample::kBatch) / c->ceiling.tps * 1e3;  // ms per token per user
  k.dials.throughput = c->ceiling.tps;
  k.dials.cost = c->usd_per_million_tokens;
  k.dials.memory = c->size.step_bytes_aggregate / 1e9;  // GB resident: weights + B × KV

  const SizeResult& r = d.deployment.size;
  const double n = static_cast<double>(r.total);
  d.flops.forward_per_token = forward_flops_per_token(n);
  d.flops.chinchilla_tokens = chinchilla_optimal_tokens(n);
  d.flops.train_flops = training_flops(n, d.flops.chinchilla_tokens);
  d.flops.train_gpu_hours = training_gpu_hours(d.flops.train_flops, h100.peak_bf16_flops, LabExample::kTrainMfu);
  for (Dtype t : {Dtype::kFp16, Dtype::kInt8, Dtype::kInt4}) {
    d.weights.push_back({t, weight_memory_bytes(Exact(r.total), t).value()});
  }
  const ModelSpec& sm = d.model;
  for (int64_t kv_heads : {sm.n_head, sm.n_head_kv}) {
    d.kv.push_back({kv_heads, kv_cache_bytes(sm.n_layer, LabExample::kSeq, sm.n_embd, Dtype::kFp16, 1, sm.n_head,
                                             kv_heads).value()});
  }
  const double w = r.decode_weight_bytes;
  const double kv = static_cast<double>(r.kv_per_seq);
  const double bw = d.deployment.gpu.bandwidth_bytes_per_s;
  const double one = decode_tokens_per_sec(bw, w, kv, 1);
  std::vector<int64_t> batches = {1, 8, 32, LabExample::kBatch};
  if (r.max_batch_by_capacity > LabExample::kBatch) batches.push_back(r.max_batch_by_capacity);
  for (int64_t b : batches) {
    const double tps = decode_tokens_per_sec(bw, w, kv, static_cast<double>(b));
    d.batching.push_back({b, tps, tps / one});
  }
  return d;
}

// One decode step at batch 1 does 2 FLOP per parameter and reads each fp16 parameter (2 bytes) once.
LabExampleRoofline example_roofline(const LabExampleModel& m, const GpuSpec& h100) {
  LabExampleRoofline r;
  r.flops = forward_flops_per_token(static_cast<double>(m.deployment.size.total));
  r.bytes = static_cast<double>(m.deployment.size.weight_bytes);
  r.intensity = arithmetic_intensity(r.flops, r.bytes);
  r.ridge = roofline_ridge_intensity(h100.peak_bf16_flops, h100.bandwidth_bytes_per_s);
  r.attainable_flops = roofline_attainable_flops(r.intensity, h100.peak_bf16_flops, h100.bandwidth_bytes_per_s);
  r.memory_bound = is_memory_bound(r.intensity, h100.peak_bf16_flops, h100.bandwidth_bytes_per_s);
  return r;
}

}  // namespace

Result<LabExample> analyze_lab_example() {
  LabExample ex;
  auto h100 = find_gpu("h100");
  if (!h100.ok()) return h100.status();
  ex.h100 = *h100;
  auto big = example_model("70b", "llama-3.1-70b", ex.h100, 4, 0.80);
  if (!big.ok()) return big.status();
  ex.big = *big;
  auto small = example_model("8b", "llama-3.1-8b", ex.h100, 1, 0.62);
  if (!small.ok()) return small.status();
  ex.small = *small;
  ex.roofline = example_roofline(ex.small, ex.h100);
  const struct {
    const char* key;
    const char* label;
    const char* weights;
  } workloads[] = {{"quality_first", "Quality-first", "quality=0.8,latency=0.1,cost=0.1"},
                   {"chat_at_scale", "Chat at scale", "quality=0.4,latency=0.3,cost=0.3"}};
  for (const auto& wl : workloads) {
    auto w = parse_weights(wl.weights, "weights");
    if (!w.ok()) return w.status();
    auto r = resolve_tradeoff(ex.big.candidate, ex.small.candidate, *w);
    if (!r.ok()) return r.status();
    ex.tradeoffs.push_back({wl.key, wl.label, wl.weights, *r});
  }
  return ex;
}

}  // namespace modelcalc
