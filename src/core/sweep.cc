#include "modelcalc/sweep.h"
#include "modelcalc/engine_rules.h"

#include <optional>

#include "modelcalc/formulas.h"
#include "sweep_kernels.h"

namespace modelcalc {

namespace {

size_t at_least_one(size_t n) { return n == 0 ? 1 : n; }

// scenario.h serving_regime for a prepared deployment whose result `r` at some
// batch is known: the decode step at the largest batch that fits, by the same
// kernel evaluate_deployment runs. Allocation-free.
DeploymentRegime serving_regime_at_full_batch(const PreparedDeployment& d, const DeploymentResult& r) {
  const int64_t full = r.memory.max_sequences;
  if (full <= 0) return DeploymentRegime::kCapacityBound;
  DeploymentResult at = r;
  evaluate_decode_step(d, full, expected_experts_touched(d.n_expert, d.n_expert_used, static_cast<double>(full)), &at);
  return at.decode.regime == DeploymentRegime::kBandwidthBound ? DeploymentRegime::kCapacityBound : at.decode.regime;
}

}  // namespace


Result<int64_t> sweep_row_count(const SweepSpec& s) {
  int64_t n = 1;
  for (size_t k : {s.models.size(), s.gpus.size(), s.splits.size(), at_least_one(s.contexts.size()),
                   s.batches.size(), s.dtypes.size(), at_least_one(s.kv_dtypes.size())}) {
    if (__builtin_mul_overflow(n, static_cast<int64_t>(k), &n)) return Status::Overflow("sweep size");
  }
  return n;
}

Status validate_sweep(const SweepSpec& s) {
  if (s.models.empty()) return Status::InvalidArgument("models", "give at least one model");
  if (s.gpus.empty()) return Status::InvalidArgument("gpus", "give at least one GPU");
  if (s.splits.empty()) return Status::InvalidArgument("splits", "give at least one split (tp x pp x ep x dp)");
  for (const Parallelism& p : s.splits) {
    if (p.tp < 1 || p.pp < 1 || p.ep < 1 || p.dp < 1) {
      return Status::InvalidArgument("splits", "every degree (tp, pp, ep, dp) must be at least 1");
    }
    if (p.tp > (int64_t{1} << 20) || p.pp > (int64_t{1} << 20) || p.dp > (int64_t{1} << 20) ||
        p.tp * p.pp * p.dp > (int64_t{1} << 20)) {
      return Status::InvalidArgument("splits", "at most 1,048,576 GPUs (tp x pp x dp) in one split");
    }
  }
  for (int64_t t : s.contexts) {
    if (t <= 0) return Status::InvalidArgument("context", "must be a positive number of tokens");
  }
  if (s.batches.empty()) return Status::InvalidArgument("batch", "give at least one batch size");
  if (s.dtypes.empty()) return Status::InvalidArgument("dtype", "give at least one weight dtype");
  for (Dtype t : s.kv_dtypes) MC_RETURN_IF_ERROR(check_kv_dtype(t, "kv_dtype"));
  // As plan's: each GPU takes the flags of the engine it runs.
  std::vector<const GpuSpec*> gpus;
  for (const GpuSpec& g : s.gpus) gpus.push_back(&g);
  for (const ModelSpec& m : s.models) MC_RETURN_IF_ERROR(check_engine_flags_over(s.engine, s.engine_flags, m, gpus));
  // Each model's served weights at each dtype (size's weights.bytes).
  for (const ModelSpec& m : s.models) {
    for (Dtype t : s.dtypes) {
      DeploymentOptions served;
      served.weight_dtype = t;
      if (auto w = model_weights(m, served); !w.ok()) return w.status();
    }
  }
  // The layout options are every row's: checked once per model, as prepare_deployment checks them.
  if (s.redundant_experts < 0) return Status::InvalidArgument("redundant_experts", "must be 0 or more expert slots");
  for (const ModelSpec& m : s.models) {
    DeploymentOptions o;
    o.expert_imbalance = s.expert_imbalance;
    o.spec = s.spec;
    o.prefix = s.prefix;
    MC_RETURN_IF_ERROR(check_layout_options(m, o));
  }
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
  // analyze_size's model and count checks depend only on (model, context, KV
  // dtype): the weight bytes are checked at fp32, the widest dtype.
  // Without --kv-dtype each row's cache is default_kv_dtype(model, weights), as the rows compute it.
  for (const ModelSpec& m : s.models) {
    std::vector<Dtype> kv_follow;
    for (Dtype w : s.dtypes) kv_follow.push_back(default_kv_dtype(m, w));
    const std::vector<Dtype>& kvs = s.kv_dtypes.empty() ? kv_follow : s.kv_dtypes;
    const std::vector<int64_t> own = {default_context(m)};
    for (int64_t ctx : s.contexts.empty() ? own : s.contexts) {
      MC_RETURN_IF_ERROR(check_prefix_tokens(s.prefix.shared_tokens, ctx, "every context swept (each row's prompt)"));
      for (Dtype kv : kvs) {
        SizeOptions o;
        o.context = ctx;
        o.kv_dtype = kv;
        o.has_gpu = false;
        if (auto r = analyze_size(m, GpuSpec{}, o); !r.ok()) return r.status();
      }
    }
  }
  return Status::Ok();
}

Status sweep(const SweepSpec& s, const std::function<void(const SweepRow&)>& on_row) {
  MC_RETURN_IF_ERROR(validate_sweep(s));  // once per sweep: the rows below check nothing
  std::vector<ParamBreakdown> params;
  params.reserve(s.models.size());
  for (const ModelSpec& m : s.models) params.push_back(param_breakdown(m).value());  // validated above

  const size_t n_ctx = at_least_one(s.contexts.size());
  const size_t n_kv = at_least_one(s.kv_dtypes.size());
  const size_t n_combo = s.dtypes.size() * n_kv;  // the (dtype, kv dtype) pairs, innermost
  // Hoisting, outermost first:
  //   per model: compute_size's model part; the expected experts a batch
  //     touches, per batch (the one pow of a MoE row, shared by size and the engine);
  //   per (model, GPU, split, dtype pair): the deployment engine's prepared constants;
  //   per (model, GPU, split, context, dtype pair): the whole row at the first batch
  //     (compute_size_row_part, evaluate_deployment) and the serving regime
  //     (the decode step at the largest batch that fits);
  //   per row: only what the batch changes (compute_size_batch_part,
  //     evaluate_decode_step). Every other field is the first batch's, which
  //     the batch does not change, so each row equals a full evaluation.
  // One SweepRow per dtype pair keeps its pair's state across the batch loop.
  std::vector<SweepRow> rows(n_combo);
  std::vector<std::optional<PreparedDeployment>> prepared(n_combo);
  // The prediction's constants per dtype pair: the deployment as the engine runs it, its settings, its memory.
  struct Engineered {
    PreparedDeployment d;
    EngineSettings settings;
    EngineMemory memory;
  };
  std::vector<std::optional<Engineered>> engineered(n_combo);
  std::vector<double> touched(s.batches.size());
  std::vector<DecodeWeightTerms> weight_terms(n_combo);  // per dtype pair, for the current model
  int64_t index = 0;
  for (size_t mi = 0; mi < s.models.size(); ++mi) {
    const ModelSpec& m = s.models[mi];
    const ParamBreakdown& p = params[mi];
    SizeResult model_part;
    compute_size_model_part(m, p, &model_part);
    for (size_t bi = 0; bi < s.batches.size(); ++bi) {
      touched[bi] = expected_experts_touched(static_cast<double>(m.n_expert), static_cast<double>(m.n_expert_used),
                                             static_cast<double>(s.batches[bi]));
    }
    for (size_t c = 0; c < n_combo; ++c) {
      SweepRow& row = rows[c];
      row.model = mi;
      row.model_spec = &m;
      row.result = model_part;
      row.options.has_gpu = true;
      row.options.weight_dtype = s.dtypes[c / n_kv];
      row.options.kv_dtype =
          s.kv_dtypes.empty() ? default_kv_dtype(m, row.options.weight_dtype) : s.kv_dtypes[c % n_kv];
      weight_terms[c] = decode_weight_terms(m, p, model_part.total, row.options.weight_dtype);
      DeploymentOptions served;
      served.weight_dtype = row.options.weight_dtype;
      row.weight_bytes = model_weights(m, served).value().total();  // validated (validate_sweep)
    }
    for (size_t gi = 0; gi < s.gpus.size(); ++gi) {
      const GpuSpec& g = s.gpus[gi];
      const std::optional<EngineRelease> engine = engine_for(s.engine, g);
      const StepTimeParams& time = engine_profile(engine.value_or(kDefaultEngine)).time;
      for (size_t pi = 0; pi < s.splits.size(); ++pi) {
        const Parallelism& split = s.splits[pi];
        // The teaching view pools the split's GPUs (capacity, bandwidth and peak add up).
        const GpuSpec pooled = split.gpus() == 1 ? g : tensor_parallel(g, split.gpus());
        for (size_t c = 0; c < n_combo; ++c) {
          rows[c].gpu = gi;
          rows[c].gpu_spec = &g;
          rows[c].split = pi;
          rows[c].split_spec = &split;
          DeploymentOptions o;
          o.split = split;
          if (split.dp_attention && m.n_expert == 0) o.split.ep = 1;
          const bool moe = o.split.ep > 1;
          o.expert_imbalance = moe ? s.expert_imbalance : 1.0;
          o.redundant_experts = moe ? s.redundant_experts : 0;
          o.two_batch_overlap = s.two_batch_overlap && split.dp_attention;
          o.spec = s.spec;
          o.prefix = s.prefix;
          o.weight_dtype = rows[c].options.weight_dtype;
          o.kv_dtype = rows[c].options.kv_dtype;
          auto pd = prepare_deployment(m, g, o);
          prepared[c] = pd.ok() ? std::optional<PreparedDeployment>(*pd) : std::nullopt;
          rows[c].has_deployment = pd.ok();
          engineered[c].reset();
          // A named engine that will not load the row's layout (TensorRT-LLM on an AMD GPU; the rules
          // size refuses by, engine_rules.h) predicts nothing there: the row keeps its ceiling alone.
          const bool loads = !s.engine || !pd.ok() || check_engine_rules(engine->engine(), m, g, *pd).ok();
          if (pd.ok() && s.predict && engine && loads) {
            if (auto st = resolve_engine_settings(*engine, engine_flags_for(s.engine, s.engine_flags, engine->engine()), m, g, *pd,
                                                  EngineWorkload{});
                st.ok()) {
              Engineered e;
              e.d = engine_view(*pd, *st);
              e.settings = *st;
              e.memory = engine_memory(e.d, e.settings);
              engineered[c] = e;
            }
          }
          rows[c].has_prediction = engineered[c].has_value();
        }
        for (size_t ti = 0; ti < n_ctx; ++ti) {
          const int64_t ctx = s.contexts.empty() ? default_context(m) : s.contexts[ti];
          for (size_t bi = 0; bi < s.batches.size(); ++bi) {
            // Polled every 256 batches (a row takes ~60 ns: the clock read is ~1 % of 256 rows).
            if ((bi & 255) == 0 && should_stop(s.control, {"rows", index, 0})) return s.control->status();
            const int64_t batch = s.batches[bi];
            for (size_t c = 0; c < n_combo; ++c) {
              SweepRow& row = rows[c];
              row.index = index++;
              row.options.context = ctx;
              row.options.batch = batch;
              const auto& pd = prepared[c];
              if (bi == 0) {
                compute_size_row_part(m, p, pooled, row.options, &row.result);
                if (pd) {
                  row.deployment = evaluate_deployment(*pd, batch, ctx, 0);
                  row.serving_regime = serving_regime_at_full_batch(*pd, row.deployment);
                }
              } else {
                compute_size_batch_part(pooled, row.options, weight_terms[c], touched[bi], &row.result);
                if (pd) evaluate_decode_step(*pd, batch, touched[bi], &row.deployment);
              }
              if (const auto& e = engineered[c]) {
                row.prediction = predict_decode(e->d, e->memory, e->settings, time, batch, ctx);
              }
              on_row(row);
            }
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace modelcalc
