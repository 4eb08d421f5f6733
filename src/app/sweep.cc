// sweep: size over every combination of the lists, one row each, streamed.
#include <algorithm>
#include <tuple>

#include "check.h"
#include "modelcalc/app/answers.h"
#include "modelcalc/app/fields.h"
#include "quantity.h"

namespace modelcalc::app {

namespace {

// The splits: the product of the pp, ep, dp lists with the tp list or the
// gpus list (tp = gpus / (pp x dp)), as the deployment fields of every other
// command combine; with both, the combinations where tp x pp x dp = gpus.
Result<Parallelism> one_split(const SweepRequest& l, int64_t first, int64_t pp, int64_t ep, int64_t dp, bool by_gpus,
                              bool both, bool* skip) {
  Parallelism p;
  p.pp = pp;
  p.ep = ep;
  p.dp = dp;
  *skip = false;
  if (both) {
    p.tp = first;
    // Each factor is at most 2^20: the product fits in 64 bits.
    *skip = std::find(l.split_gpus.begin(), l.split_gpus.end(), p.tp * p.pp * p.dp) == l.split_gpus.end();
  } else if (by_gpus) {
    if (first % (pp * dp) != 0) {
      return Status::InvalidArgument("gpus", std::to_string(first) + " is not a multiple of --pp x --dp = " +
                                                 std::to_string(pp) + " x " + std::to_string(dp));
    }
    p.tp = first / (pp * dp);
  } else {
    p.tp = first;
  }
  if (!*skip && (p.tp * p.pp > (1 << 20) || p.tp * p.pp * p.dp > (1 << 20))) {
    return Status::InvalidArgument(by_gpus ? "gpus" : "tp", "tp x pp x dp = " + std::to_string(p.tp) + " x " +
                                                                std::to_string(p.pp) + " x " + std::to_string(p.dp) +
                                                                " exceeds 1,048,576 GPUs");
  }
  return p;
}

Result<std::vector<Parallelism>> resolve_splits(const SweepRequest& l) {
  const std::vector<int64_t> one = {1};
  const auto& pps = l.pp.empty() ? one : l.pp;
  const auto& eps = l.ep.empty() ? one : l.ep;
  const auto& dps = l.dp.empty() ? one : l.dp;
  const bool by_gpus = !l.split_gpus.empty() && l.tp.empty();
  const bool both = !l.split_gpus.empty() && !l.tp.empty();
  const auto& firsts = by_gpus ? l.split_gpus : (l.tp.empty() ? one : l.tp);
  std::vector<Parallelism> out;
  for (int64_t first : firsts) {
    for (int64_t pp : pps) {
      for (int64_t ep : eps) {
        for (int64_t dp : dps) {
          bool skip = false;
          MC_ASSIGN_OR_RETURN(const Parallelism p, one_split(l, first, pp, ep, dp, by_gpus, both, &skip));
          if (skip) continue;
          out.push_back(p);
          if (static_cast<int64_t>(out.size()) > kMaxListValues) {
            return Status::InvalidArgument("tp", "more than " + group_digits(kMaxListValues) + " splits");
          }
        }
      }
    }
  }
  if (out.empty()) return Status::InvalidArgument("gpus", "no --tp x --pp x --dp in the lists equals a --gpus value");
  return out;
}

// DP attention: each gpus value is a replica of gpus / tp attention groups of
// tp GPUs (default 1), its experts over ep ranks (default: all of it), dp
// whole replicas; pp must be 1.
Result<std::vector<Parallelism>> resolve_dp_attention_splits(const SweepRequest& l) {
  if (l.split_gpus.empty()) return Status::InvalidArgument("dp_attention", "needs --gpus: the replica's GPU counts");
  if (!l.pp.empty() && (l.pp.size() != 1 || l.pp[0] != 1)) {
    return Status::InvalidArgument("pp", "must be 1 with --dp-attention");
  }
  const std::vector<int64_t> one = {1}, all = {0};
  std::vector<Parallelism> out;
  for (int64_t g : l.split_gpus) {
    for (int64_t tp : l.tp.empty() ? one : l.tp) {
      for (int64_t ep : l.ep.empty() ? all : l.ep) {
        for (int64_t dp : l.dp.empty() ? one : l.dp) {
          MC_ASSIGN_OR_RETURN(const Parallelism p, dp_attention_split(g, tp, ep == 0 ? g : ep, dp));
          if (g * dp > (1 << 20)) {
            return Status::InvalidArgument("gpus", std::to_string(g) + " x --dp " + std::to_string(dp) +
                                                       " exceeds 1,048,576 GPUs");
          }
          out.push_back(p);
          if (static_cast<int64_t>(out.size()) > kMaxListValues) {
            return Status::InvalidArgument("gpus", "more than " + group_digits(kMaxListValues) + " splits");
          }
        }
      }
    }
  }
  return out;
}

// The layout fields onto the spec: the same options on every row. `draft` holds a draft model's shape.
Status apply_sweep_layout(const SweepRequest& r, SweepSpec* spec, ModelSpec* draft) {
  const LayoutInput& l = r.layout;
  if (l.dp_attention) {
    MC_ASSIGN_OR_RETURN(spec->splits, resolve_dp_attention_splits(r));
  }
  if (l.two_batch_overlap && !l.dp_attention) {
    return Status::InvalidArgument("two_batch_overlap", "hides the all-to-all of --dp-attention; give that too");
  }
  const bool any_ep = l.dp_attention || std::any_of(spec->splits.begin(), spec->splits.end(),
                                                    [](const Parallelism& p) { return p.ep > 1; });
  if ((l.expert_imbalance || l.redundant_experts) && !any_ep) {
    return Status::InvalidArgument(l.expert_imbalance ? "expert_imbalance" : "redundant_experts",
                                   "needs expert parallelism (ep > 1): give --ep or --dp-attention");
  }
  spec->expert_imbalance = l.expert_imbalance.value_or(1.0);
  spec->redundant_experts = l.redundant_experts.value_or(0);
  spec->two_batch_overlap = l.two_batch_overlap;
  // The drafter and the prefix cache: resolved as every deployment command resolves them.
  LayoutInput rest;
  rest.spec_tokens = l.spec_tokens;
  rest.spec_acceptance = l.spec_acceptance;
  rest.spec_method = l.spec_method;
  rest.draft_model = l.draft_model;
  rest.prefix_hit = l.prefix_hit;
  rest.prefix_tokens = l.prefix_tokens;
  DeploymentOptions o;
  for (const ModelSpec& m : spec->models) MC_RETURN_IF_ERROR(check_drafter(l, m));
  MC_RETURN_IF_ERROR(apply_layout(rest, DeploymentInput{}, ModelSpec{}, &o, draft));
  spec->spec = o.spec;
  spec->prefix = o.prefix;
  return Status::Ok();
}

Result<std::vector<ModelSpec>> resolve_models(const SweepRequest& r) {
  std::vector<ModelSpec> models;
  for (const SharedModel& m : r.model_specs) models.push_back(*m);
  if (!r.models.empty() && !r.configs.empty()) {
    return Status::InvalidArgument("model", "give either --model or --config, not both");
  }
  if (!r.checkpoints.empty() && (!r.models.empty() || !r.configs.empty())) {
    return Status::InvalidArgument("checkpoint", "give one of --model, --config or --checkpoint");
  }
  // Each item is resolved as the single-model commands resolve that field.
  using Item = std::string ModelInput::*;
  const auto [items, member, name] = !r.models.empty()  ? std::tuple{&r.models, Item{&ModelInput::model}, "model"}
                                     : !r.configs.empty() ? std::tuple{&r.configs, Item{&ModelInput::config}, "config"}
                                                          : std::tuple{&r.checkpoints, Item{&ModelInput::checkpoint},
                                                                       "checkpoint"};
  for (const std::string& item : *items) {
    ModelInput one = r.shape;
    one.*member = item;
    auto m = resolve_model(one);
    if (!m.ok()) {
      const Status& s = m.status();
      if (s.code() == Status::Code::kInvalidArgument) return s;
      return Status::InvalidArgument(name, s.message());
    }
    models.push_back(**m);
  }
  if (models.empty()) {
    MC_ASSIGN_OR_RETURN(const SharedModel m, resolve_model(r.shape));
    models.push_back(*m);
  }
  return models;
}

// The GPUs: the gpu list (bandwidth/capacity/peak override each), or the custom one.
Result<std::vector<GpuSpec>> resolve_gpus(const SweepRequest& r) {
  std::vector<GpuSpec> gpus;
  for (const SharedGpu& g : r.gpu_specs) gpus.push_back(*g);
  std::vector<std::string> names = r.gpus;
  if (names.empty() && gpus.empty()) {
    if (!r.gpu.custom()) {
      return Status::InvalidArgument("gpu", "is required: a comma-separated list, e.g. h100,mi300x "
                                            "(or --bandwidth, --capacity and --peak for a custom GPU)");
    }
    names.push_back("");
  }
  for (const std::string& name : names) {
    GpuInput one = r.gpu;
    one.gpu = name;
    MC_ASSIGN_OR_RETURN(const SharedGpu g, resolve_gpu(one));
    gpus.push_back(*g);  // never null: a name or a whole custom GPU
  }
  for (const GpuSpec& g : gpus) MC_RETURN_IF_ERROR(require_peak(g));  // every row has a regime: the ridge point
  return gpus;
}

// Without a dtype list: the models' checkpoint dtype when they agree on one (one model, or
// several quantized alike), else the library's default (bf16).
void default_dtypes(const SweepRequest& r, SweepSpec* spec, Resolution* res) {
  if (!r.dtypes.empty() || spec->models.empty()) return;
  const Dtype first = default_weight_dtype(spec->models.front(), kDefaultWeightDtype);
  bool same = true;
  for (const ModelSpec& m : spec->models) same = same && default_weight_dtype(m, kDefaultWeightDtype) == first;
  spec->dtypes = {same ? first : kDefaultWeightDtype};
  res->add(fields::kDtype, Value{std::vector<Dtype>{spec->dtypes.front()}},
           same && spec->models.front().quant ? Source::kCheckpoint : Source::kDefault);
}

Result<SweepAnswer> answer_sweep(const SweepRequest& r) {
  MC_RETURN_IF_ERROR(check_request(r));
  SweepAnswer out;
  out.request = r;
  SweepSpec& spec = out.spec;
  spec.contexts = r.contexts;
  spec.batches = r.batches.empty() ? std::vector<int64_t>{1} : r.batches;
  spec.dtypes = r.dtypes.empty() ? std::vector<Dtype>{kDefaultWeightDtype} : r.dtypes;
  spec.kv_dtypes = r.kv_dtypes;
  if (r.layout.dp_attention) {
    spec.splits = {Parallelism{}};  // the lists mean a replica's layout, read by apply_sweep_layout
  } else {
    MC_ASSIGN_OR_RETURN(spec.splits, resolve_splits(r));
  }
  MC_ASSIGN_OR_RETURN(spec.engine, given_engine(r.engine));
  out.resolved.add(fields::kEngine,
                   Value{spec.engine ? engine_release_key(*spec.engine) : std::string("by each GPU's vendor")},
                   spec.engine ? Source::kGiven : Source::kDerived);
  spec.engine_flags = r.engine.flags;
  if (r.model_specs.empty() && r.models.empty() && r.configs.empty() && r.checkpoints.empty() && !r.shape.given()) {
    return Status::InvalidArgument("model", "give --model a,b (presets), --config p1,p2, --checkpoint d1,d2 or the "
                                            "shape flags (-L, -d, --heads, --ffn, --vocab)");
  }
  if (!r.models.empty() && !r.configs.empty()) {
    return Status::InvalidArgument("model", "give either --model or --config, not both");
  }
  if (r.gpu_specs.empty() && r.gpus.empty() && !r.gpu.custom()) {
    return Status::InvalidArgument("gpu", "is required: a comma-separated list, e.g. h100,mi300x "
                                          "(or --bandwidth, --capacity and --peak for a custom GPU)");
  }
  MC_ASSIGN_OR_RETURN(spec.gpus, resolve_gpus(r));
  MC_ASSIGN_OR_RETURN(spec.models, resolve_models(r));
  default_dtypes(r, &spec, &out.resolved);
  auto draft = std::make_shared<ModelSpec>();
  MC_RETURN_IF_ERROR(apply_sweep_layout(r, &spec, draft.get()));
  out.draft = draft;
  for (const ModelSpec& m : spec.models) {  // every row's context must fit the engine's limit
    for (int64_t t : spec.contexts.empty() ? std::vector<int64_t>{default_context(m)} : spec.contexts) {
      MC_RETURN_IF_ERROR(check_max_model_len(spec.engine_flags, t, "--seq"));
    }
  }
  MC_RETURN_IF_ERROR(validate_sweep(spec));
  return out;
}

}  // namespace

Result<SweepAnswer> answer(const SweepRequest& r, const Context& ctx) {
  auto a = answer_sweep(r);
  if (!a.ok()) return as_field_error(a.status());
  if (ctx.cancel.can_cancel() || ctx.cpu_budget_s > 0 || ctx.progress) {
    a.value().control = std::make_shared<SearchControl>(ctx.cancel, ctx.cpu_budget_s, ctx.progress);
  }
  // The spec points at the answer's heap-held drafter and control (shared: moves and copies keep them valid).
  a.value().spec.control = a.value().control.get();
  a.value().spec.spec.draft = a.value().draft.get();
  return a;
}

// The rows' text cells view `a.spec`'s strings, so a writer that holds rows until its end() (text aligns
// every row) reads them while `a` lives: evaluating a local copy of the spec freed them first (ASan).
Status rows(const SweepAnswer& a, const std::function<void(const SweepRow&)>& on_row) {
  return sweep(a.spec, on_row);
}

Result<int64_t> row_count(const SweepAnswer& a) { return sweep_row_count(a.spec); }

}  // namespace modelcalc::app
