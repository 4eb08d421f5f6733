#include "modelcalc/sweep.h"

#include <optional>

#include "modelcalc/formulas.h"

namespace modelcalc {

namespace {

size_t at_least_one(size_t n) { return n == 0 ? 1 : n; }

}  // namespace


Result<int64_t> sweep_row_count(const SweepSpec& s) {
  int64_t n = 1;
  for (size_t k : {s.models.size(), s.gpus.size(), at_least_one(s.seqs.size()), s.batches.size(), s.dtypes.size(),
                   at_least_one(s.kv_dtypes.size())}) {
    if (__builtin_mul_overflow(n, static_cast<int64_t>(k), &n)) return Status::Overflow("sweep size");
  }
  return n;
}

Status validate_sweep(const SweepSpec& s) {
  if (s.models.empty()) return Status::InvalidArgument("models", "give at least one model");
  if (s.gpus.empty()) return Status::InvalidArgument("gpus", "give at least one GPU");
  if (s.batches.empty()) return Status::InvalidArgument("batch", "give at least one batch size");
  if (s.dtypes.empty()) return Status::InvalidArgument("dtype", "give at least one weight dtype");
  if (auto n = sweep_row_count(s); !n.ok()) return n.status();
  for (int64_t b : s.batches) {
    if (b <= 0) return Status::InvalidArgument("batch", "must be a positive number of sequences");
  }
  for (const GpuSpec& g : s.gpus) {
    if (g.capacity_bytes <= 0 || g.bandwidth_bytes_per_s <= 0 || g.peak_bf16_flops <= 0) {
      return Status::InvalidArgument(
          "gpu", "'" + g.name + "' needs a capacity, a bandwidth and a bf16 peak");
    }
  }
  // analyze_size's model and count checks depend only on (model, seq, KV
  // dtype): the weight bytes are checked at fp32, the widest dtype.
  const std::vector<Dtype> kv_follow = s.dtypes;
  const std::vector<Dtype>& kvs = s.kv_dtypes.empty() ? kv_follow : s.kv_dtypes;
  for (const ModelSpec& m : s.models) {
    const std::vector<int64_t> own = {default_context(m)};
    for (int64_t seq : s.seqs.empty() ? own : s.seqs) {
      for (Dtype kv : kvs) {
        SizeOptions o;
        o.seq = seq;
        o.kv_dtype = kv;
        o.has_gpu = false;
        if (auto r = analyze_size(m, GpuSpec{}, o); !r.ok()) return r.status();
      }
    }
  }
  return Status::Ok();
}

Status sweep(const SweepSpec& s, const std::function<void(const SweepRow&)>& on_row) {
  MC_RETURN_IF_ERROR(validate_sweep(s));
  std::vector<ParamBreakdown> params;
  params.reserve(s.models.size());
  for (const ModelSpec& m : s.models) params.push_back(param_breakdown(m).value());  // validated above

  SweepRow row;
  row.options.has_gpu = true;
  const size_t n_seq = at_least_one(s.seqs.size());
  const size_t n_kv = at_least_one(s.kv_dtypes.size());
  // The deployment engine's constants per (dtype, kv dtype), hoisted per (model, GPU).
  std::vector<std::optional<PreparedDeployment>> prepared(s.dtypes.size() * n_kv);
  for (size_t mi = 0; mi < s.models.size(); ++mi) {
    row.model = mi;
    row.model_spec = &s.models[mi];
    // Hoisted: what depends on the model alone, once per model; each row
    // then overwrites the rest (compute_size is exactly these two steps).
    row.result = SizeResult{};
    compute_size_model_part(s.models[mi], params[mi], &row.result);
    for (size_t gi = 0; gi < s.gpus.size(); ++gi) {
      row.gpu = gi;
      row.gpu_spec = &s.gpus[gi];
      for (size_t di = 0; di < s.dtypes.size(); ++di) {
        for (size_t ki = 0; ki < n_kv; ++ki) {
          DeploymentOptions o;
          o.weight_dtype = s.dtypes[di];
          o.kv_dtype = s.kv_dtypes.empty() ? default_kv_dtype(s.dtypes[di]) : s.kv_dtypes[ki];
          auto p = prepare_deployment(s.models[mi], s.gpus[gi], o);
          prepared[di * n_kv + ki] = p.ok() ? std::optional<PreparedDeployment>(*p) : std::nullopt;
        }
      }
      for (size_t si = 0; si < n_seq; ++si) {
        row.options.seq = s.seqs.empty() ? default_context(s.models[mi]) : s.seqs[si];
        for (int64_t batch : s.batches) {
          row.options.batch = batch;
          for (size_t di = 0; di < s.dtypes.size(); ++di) {
            const Dtype dtype = s.dtypes[di];
            row.options.weight_dtype = dtype;
            for (size_t ki = 0; ki < n_kv; ++ki) {
              row.options.kv_dtype = s.kv_dtypes.empty() ? default_kv_dtype(dtype) : s.kv_dtypes[ki];
              compute_size_row_part(s.models[mi], params[mi], s.gpus[gi], row.options, &row.result);
              const auto& p = prepared[di * n_kv + ki];
              row.has_deployment = p.has_value();
              if (p) row.deployment = evaluate_deployment(*p, batch, row.options.seq, 0);
              on_row(row);
              ++row.index;
            }
          }
        }
      }
    }
  }
  return Status::Ok();
}

std::string_view regime_name(ServingRegime r) {
  switch (r) {
    case ServingRegime::kWeightsDoNotFit: return "weights_do_not_fit";
    case ServingRegime::kCapacityBound: return "capacity_bound";
    case ServingRegime::kComputeReachable: return "compute_reachable";
  }
  return "unknown";
}

}  // namespace modelcalc
