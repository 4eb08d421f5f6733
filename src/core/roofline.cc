#include "modelcalc/roofline.h"

#include <cmath>
#include <string>

#include "modelcalc/formulas.h"
#include "modelcalc/size.h"

namespace modelcalc {

namespace {

// The size analysis supplies FLOPs and bytes; none of the numbers taken from
// it depend on the GPU, so a placeholder GPU stands in.
GpuSpec placeholder_gpu() {
  GpuSpec g;
  g.name = "placeholder";
  g.capacity_bytes = 1;
  g.bandwidth_bytes_per_s = 1;
  g.peak_bf16_flops = 1;
  return g;
}

Result<SizeResult> size_at(const ModelSpec& m, const RooflineOptions& o, int64_t batch) {
  SizeOptions so;
  so.context = o.context;
  so.batch = batch;
  so.weight_dtype = o.weight_dtype;
  so.kv_dtype = o.kv_dtype;
  return analyze_size(m, placeholder_gpu(), so);
}

// Decode step at `batch` sequences of context T: B tokens of FLOPs over the
// weights the batch touches plus every sequence's KV.
Result<OperatingPoint> decode_point(const ModelSpec& m, const RooflineOptions& o, int64_t batch) {
  auto r = size_at(m, o, batch);
  if (!r.ok()) return r.status();
  OperatingPoint p;
  p.kind = PointKind::kDecode;
  p.batch = batch;
  p.tokens = batch;
  const double B = static_cast<double>(batch);
  p.flops = B * r->decode_per_token;
  p.bytes = r->step_bytes_aggregate;  // decode_step_bytes(W_touched, KV, B)
  p.kv_bytes = B * static_cast<double>(r->kv_per_seq);
  p.weight_bytes = p.bytes - p.kv_bytes;
  p.intensity = arithmetic_intensity(p.flops, p.bytes);
  return p;
}

// Prefill of one T-token prompt: the weights T tokens touch (the decode
// weight read at "batch" T), the KV it writes and the residual stream.
Result<OperatingPoint> prefill_point(const ModelSpec& m, const RooflineOptions& o) {
  auto r = size_at(m, o, o.context);
  if (!r.ok()) return r.status();
  OperatingPoint p;
  p.kind = PointKind::kPrefill;
  p.batch = 1;
  p.tokens = o.context;
  const double T = static_cast<double>(o.context);
  p.flops = r->prefill_total;
  p.weight_bytes = r->step_bytes_aggregate - T * static_cast<double>(r->kv_per_seq);
  p.kv_bytes = static_cast<double>(r->kv_per_seq);
  p.activation_bytes = prefill_activation_bytes(static_cast<double>(m.n_layer), T,
                                                static_cast<double>(m.n_embd), dtype_bytes(o.weight_dtype));
  p.bytes = p.weight_bytes + p.kv_bytes + p.activation_bytes;
  p.intensity = arithmetic_intensity(p.flops, p.bytes);
  return p;
}

OperatingPoint gemm_point(int64_t n, Dtype t) {
  OperatingPoint p;
  p.kind = PointKind::kGemm;
  p.tokens = n;
  const double dn = static_cast<double>(n);
  p.flops = square_gemm_flops(dn);
  p.bytes = square_gemm_bytes(dn, dtype_bytes(t));
  p.intensity = arithmetic_intensity(p.flops, p.bytes);
  return p;
}

Status check_options(const ModelSpec* model, std::span<const GpuSpec> gpus, const RooflineOptions& o) {
  if (gpus.empty()) return Status::InvalidArgument("gpu", "give at least one GPU");
  if (model != nullptr) {
    if (o.batches.empty()) return Status::InvalidArgument("batches", "give at least one batch size, e.g. 1,8,64,256");
    for (int64_t b : o.batches) {
      if (b <= 0) return Status::InvalidArgument("batches", "every batch size must be a positive number of sequences");
    }
    if (o.context <= 0) return Status::InvalidArgument("context", "must be a positive number of tokens");
  }
  if (o.gemm_n < 0) return Status::InvalidArgument("gemm_n", "must be positive, or 0 for no GEMM point");
  if (o.intensity && !(std::isfinite(*o.intensity) && *o.intensity > 0)) {
    return Status::InvalidArgument("intensity", "must be a positive number of FLOP per byte, e.g. 1 or 156");
  }
  for (const GpuSpec& g : gpus) {
    if (!(g.bandwidth_bytes_per_s > 0)) {
      return Status::InvalidArgument("gpu", "'" + g.name + "' has no memory bandwidth");
    }
    if (!(g.peak_flops(o.math_dtype) > 0)) {
      std::string have;
      for (const Roof& r : gpu_roofs(g)) have += (have.empty() ? "" : ", ") + std::string(dtype_name(r.dtype));
      // No peak at all: the GPU is what is missing a figure; else the dtype asked for.
      return Status::InvalidArgument(
          have.empty() ? "gpu" : "math_dtype",
          "'" + g.name + "' has no " + std::string(dtype_name(o.math_dtype)) + " peak in the catalog" +
              (have.empty() ? std::string("; it has no tensor peak at all") : "; it has: " + have));
    }
  }
  return Status::Ok();
}

}  // namespace

std::vector<Roof> gpu_roofs(const GpuSpec& gpu) {
  std::vector<Roof> roofs;
  for (Dtype t : {Dtype::kBf16, Dtype::kFp8, Dtype::kInt8, Dtype::kNvfp4}) {  // one per tensor peak column
    const double peak = gpu.peak_flops(t);
    if (peak > 0) roofs.push_back({t, peak, roofline_ridge_intensity(peak, gpu.bandwidth_bytes_per_s)});
  }
  return roofs;
}

PlacedPoint place(const OperatingPoint& p, double peak_flops, double bw_bytes_per_s) {
  PlacedPoint pp;
  pp.attainable_flops = roofline_attainable_flops(p.intensity, peak_flops, bw_bytes_per_s);
  pp.peak_fraction = pp.attainable_flops / peak_flops;
  pp.memory_bound = is_memory_bound(p.intensity, peak_flops, bw_bytes_per_s);
  pp.step_seconds = p.flops > 0 ? p.flops / pp.attainable_flops : 0;
  return pp;
}

Result<RooflineResult> analyze_roofline(const ModelSpec* model, std::span<const GpuSpec> gpus,
                                        const RooflineOptions& o) {
  MC_RETURN_IF_ERROR(check_options(model, gpus, o));
  RooflineResult res;
  if (model != nullptr) {
    for (int64_t b : o.batches) {
      auto p = decode_point(*model, o, b);
      if (!p.ok()) return p.status();
      res.points.push_back(*p);
    }
    auto p = prefill_point(*model, o);
    if (!p.ok()) return p.status();
    res.points.push_back(*p);
    auto base = size_at(*model, o, 1);
    if (!base.ok()) return base.status();
    const double w = static_cast<double>(base->weight_bytes);  // every weight, all experts
    for (OperatingPoint& q : res.points) q.resident_bytes = w + q.kv_bytes;
  }
  if (o.gemm_n > 0 && (model != nullptr || !o.intensity)) {
    res.points.push_back(gemm_point(o.gemm_n, o.math_dtype));
  }
  if (o.intensity) {
    OperatingPoint p;
    p.kind = PointKind::kGiven;
    p.intensity = *o.intensity;
    res.points.push_back(p);
  }
  for (const GpuSpec& g : gpus) {
    GpuRoofline gr;
    gr.gpu = g;
    gr.roofs = gpu_roofs(g);
    const double peak = g.peak_flops(o.math_dtype);
    gr.math = {o.math_dtype, peak, roofline_ridge_intensity(peak, g.bandwidth_bytes_per_s)};
    for (size_t i = 0; i < res.points.size(); ++i) {
      PlacedPoint pp = place(res.points[i], peak, g.bandwidth_bytes_per_s);
      pp.fits = g.capacity_bytes <= 0 || res.points[i].resident_bytes <= g.capacity_bytes;
      gr.placed.push_back(pp);
    }
    res.gpus.push_back(std::move(gr));
  }
  return res;
}

}  // namespace modelcalc
