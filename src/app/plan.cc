// plan: the cheapest deployment that meets TTFT/TPOT targets at a load,
// searched over GPU kinds, splits, dtypes and batch sizes.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "check.h"
#include "input_file.h"
#include "modelcalc/app/answers.h"
#include "modelcalc/app/fields.h"
#include "modelcalc/engine_rules.h"
#include "modelcalc/hf_config.h"
#include "modelcalc/prices.h"
#include "quantity.h"

namespace modelcalc::app {

namespace {

// The load, the targets, the engine: the core's request.
Result<modelcalc::PlanRequest> read_targets(const PlanRequest& f) {
  modelcalc::PlanRequest r;
  if (!f.isl) return Status::InvalidArgument("isl", "is required: input (prompt) tokens per request, e.g. 2048");
  if (!f.osl) return Status::InvalidArgument("osl", "is required: output tokens per request, e.g. 512");
  r.isl = *f.isl;
  r.osl = *f.osl;
  if (f.length_dist == "uniform-0.8") {  // InferenceX's uniform [0.8 L, L]: served at the means
    r.uniform_lengths = true;
    r.isl = std::max<int64_t>(1, std::llround(0.9 * static_cast<double>(r.isl)));
    r.osl = std::max<int64_t>(1, std::llround(0.9 * static_cast<double>(r.osl)));
  }
  const int loads = f.qps.has_value() + f.rate.has_value() + f.concurrency.has_value();
  if (loads > 1) {
    return Status::InvalidArgument(f.rate ? "rate" : "concurrency", "give one load: --qps, --rate or --concurrency");
  }
  if (f.qps) {
    r.load_kind = PlanLoadKind::kRequestsPerS;
    r.load = *f.qps;
  } else if (f.rate) {
    r.load_kind = PlanLoadKind::kOutputTokensPerS;
    r.load = *f.rate;
  } else if (f.concurrency) {
    r.load_kind = PlanLoadKind::kConcurrency;
    r.load = static_cast<double>(*f.concurrency);
  }
  r.ttft_s = f.ttft;
  if (f.tpot && f.tokens_per_s_per_user) {
    return Status::InvalidArgument("tokens_per_s_per_user", "give either --tpot or --tokens-per-s-per-user, not both");
  }
  r.tpot_s = f.tpot;
  if (f.tokens_per_s_per_user) r.tpot_s = 1 / *f.tokens_per_s_per_user;
  r.efficiency = f.efficiency.value_or(1.0);
  r.rank_by_ceiling = f.rank_by == "ceiling";
  MC_ASSIGN_OR_RETURN(r.engine, given_engine(f.engine));
  r.engine_flags = f.engine.flags;
  MC_RETURN_IF_ERROR(check_max_model_len(r.engine_flags, r.isl + r.osl, "--isl + --osl"));
  return r;
}

// The layout fields plan applies to every candidate. `draft` holds a draft model's shape.
Status apply_plan_layout(const LayoutInput& l, const ModelSpec& m, modelcalc::PlanRequest* r, ModelSpec* draft) {
  LayoutInput plain = l;
  plain.two_batch_overlap = false;  // plan applies it to its DP-attention candidates
  DeploymentOptions o;
  MC_RETURN_IF_ERROR(apply_layout(plain, DeploymentInput{}, m, &o, draft));
  if (l.two_batch_overlap && m.n_expert == 0) {
    return Status::InvalidArgument("two_batch_overlap", "hides the all-to-all of expert parallelism; " + m.name +
                                                            " has no routed experts");
  }
  r->two_batch_overlap = l.two_batch_overlap;
  r->expert_imbalance = o.expert_imbalance;
  r->spec = o.spec;
  r->prefix = o.prefix;
  r->kv_transfer_overlap = l.kv_transfer_overlap;
  if (l.kv_transfer_overlap && !l.disaggregated) {
    return Status::InvalidArgument("kv_transfer_overlap", "applies to --disaggregated plans; give that too");
  }
  return Status::Ok();
}

Result<std::vector<PlanGpu>> priced(const PlanRequest& f) {
  std::vector<GpuPrice> overrides;
  if (!f.price.empty()) {
    MC_ASSIGN_OR_RETURN(overrides, parse_price_overrides(f.price, "price"));
  }
  for (size_t i = 0; i < f.gpus.size(); ++i) {
    if (std::find(f.gpus.begin(), f.gpus.begin() + static_cast<std::ptrdiff_t>(i), f.gpus[i]) !=
        f.gpus.begin() + static_cast<std::ptrdiff_t>(i)) {
      return Status::InvalidArgument("gpu", "lists '" + f.gpus[i] + "' twice");
    }
  }
  MC_ASSIGN_OR_RETURN(const std::vector<PricedGpu> priced, priced_gpus(f.gpus, overrides, UnpricedGpus::kKeep));
  std::vector<PlanGpu> out;
  for (const PricedGpu& g : priced) {
    PlanGpu pg;
    pg.gpu = g.gpu;
    pg.usd_per_hour = g.price.usd_per_hour;
    pg.price_source = !g.has_price                ? "none: no catalog price (--price " + g.gpu.key + "=X gives one)"
                      : g.price.provider == "user" ? "--price"
                                                   : g.price.provider + " " + g.price.date +
                                                         (g.price.confirmed ? "" : " (unconfirmed)");
    pg.domain_gpus = std::max<int64_t>(1, g.gpu.domain_gpus);
    out.push_back(std::move(pg));
  }
  return out;
}

template <typename T>
Status no_repeats(const std::vector<T>& v, const char* name, auto text) {
  for (size_t i = 0; i < v.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (v[j] == v[i]) return Status::InvalidArgument(name, "lists " + text(v[i]) + " twice");
    }
  }
  return Status::Ok();
}

Result<PlanSpace> read_space(const PlanRequest& f, const ModelSpec& m) {
  PlanSpace s;
  MC_ASSIGN_OR_RETURN(s.gpus, priced(f));
  for (const PlanGpu& g : s.gpus) s.rank_by_gpu_hours = s.rank_by_gpu_hours || std::isnan(g.usd_per_hour);
  s.max_gpus = f.max_gpus.value_or(64);
  s.max_pp = f.max_pp.value_or(8);
  s.top = static_cast<size_t>(f.top.value_or(10));
  auto dname = [](Dtype d) { return std::string(dtype_name(d)); };
  // Defaults: a quantized checkpoint in its own dtype (and its stated KV dtype), else bf16 and fp8 weights
  // with PlanSpace's KV default (16-bit and fp8 where the GPU has fp8).
  if (!f.dtypes.empty()) {
    MC_RETURN_IF_ERROR(no_repeats(f.dtypes, "dtype", dname));
    s.weight_dtypes = f.dtypes;
  } else if (m.quant) {
    s.weight_dtypes = {m.quant->dtype};
  }
  if (!f.kv_dtypes.empty()) {
    MC_RETURN_IF_ERROR(no_repeats(f.kv_dtypes, "kv_dtype", dname));
    s.kv_dtypes = f.kv_dtypes;
    s.fp8_kv_needs_fp8 = false;
  } else if (m.quant && m.quant->kv) {
    s.kv_dtypes = {*m.quant->kv};
    s.fp8_kv_needs_fp8 = false;
  }
  if (!f.eps.empty()) {
    MC_RETURN_IF_ERROR(no_repeats(f.eps, "ep", [](int64_t e) { return std::to_string(e); }));
    // A degree no candidate can take is bad input, not a search that finds nothing.
    for (int64_t e : f.eps) {
      if (e == 1) continue;
      if (m.n_expert == 0) {
        return Status::InvalidArgument("ep", "expert parallelism spreads routed experts; " + m.name +
                                                 " has none, so only 1 applies, got " + std::to_string(e));
      }
      if ((e & (e - 1)) != 0 || e > s.max_gpus) {
        return Status::InvalidArgument("ep", "each degree must divide a searched tp (1, 2, 4, ... up to --max-gpus " +
                                                 std::to_string(s.max_gpus) + "), got " + std::to_string(e));
      }
      if (m.n_expert % e != 0) {
        return Status::InvalidArgument("ep", "each degree must divide the " + std::to_string(m.n_expert) + " routed "
                                             "experts of " + m.name + ", got " + std::to_string(e));
      }
    }
    s.eps = f.eps;
  }
  if (!f.batches.empty()) {
    s.batches = f.batches;
    std::sort(s.batches.begin(), s.batches.end());
    if (std::adjacent_find(s.batches.begin(), s.batches.end()) != s.batches.end()) {
      return Status::InvalidArgument("batch", "lists a batch size twice");
    }
  }
  return s;
}

// A sweep's curve beside the frontier: kept apart in frontier_curves (what a comparison holds a run against),
// merged into result.frontier (what the answer shows).
void add_swept_curve(std::vector<PlanFrontierPoint> curve, PlanAnswer* out) {
  if (out->frontier_curves.empty()) out->frontier_curves = out->result.frontier;
  out->frontier_curves.insert(out->frontier_curves.end(), curve.begin(), curve.end());
  out->result.frontier =
      merge_frontiers(std::move(out->result.frontier), std::move(curve), out->targets.rank_by_ceiling);
}

std::string fmt_mtp_note(double acceptance, const char* source, int64_t searched) {
  char a[32];
  std::snprintf(a, sizeof a, "%.2f", acceptance);
  return std::string("MTP swept beside the plain candidates: 1 draft token at acceptance ") + a + " (" + source +
         "), " + std::to_string(searched) + " more evaluations; --spec-method none leaves it out";
}

// The frontier alone sweeps MTP too (#38 item 1): for a model with an MTP head, no drafter asked for and not
// --spec-method none, the same search with one MTP draft token at the model's published acceptance, its
// frontier points merged into the plain ones (a point says which it is).
Status sweep_mtp(const PlanRequest& r, const ModelSpec& m, std::optional<double> acceptance,
                 const SearchControl* control, PlanAnswer* out) {
  if (!(m.params_mtp && *m.params_mtp > 0) || out->targets.spec.on()) return Status::Ok();
  if (r.layout.spec_method == "none") {
    out->frontier_mtp_note = "MTP left out (--spec-method none)";
    return Status::Ok();
  }
  auto a = published_mtp_acceptance(m.model_type);
  if (acceptance) a = PublishedAcceptance{*acceptance, "--spec-acceptance"};
  if (!a) {
    out->frontier_mtp_note = "MTP not swept: " + m.name + " has an MTP head but no published acceptance; "
                             "--spec-acceptance A sweeps it beside the plain candidates";
    return Status::Ok();
  }
  modelcalc::PlanRequest t = out->targets;
  t.spec.method = SpecMethod::kMtp;
  t.spec.tokens = 1;
  t.spec.acceptance = a->acceptance;
  PlanSpace s = out->space;
  s.control = control;
  auto searched = plan_deployments(m, t, s);
  if (!searched.ok()) {
    if (is_stop(searched.status())) return searched.status();
    out->frontier_mtp_note = "MTP not swept: " + searched.status().message();  // the plain frontier stands
    return Status::Ok();
  }
  PlanResult mtp = std::move(searched).value();
  for (PlanFrontierPoint& f : mtp.frontier) f.mtp = true;
  add_swept_curve(std::move(mtp.frontier), out);
  out->frontier_mtp = t.spec;
  out->frontier_mtp_note = fmt_mtp_note(a->acceptance, a->source, mtp.searched);
  return Status::Ok();
}

// The frontier alone sweeps disaggregated pools too (#38 item 1): prefill and decode pools of one GPU kind,
// each decode option with the cheapest prefill option, their Pareto points merged in (a point says which).
Status sweep_disaggregated(const ModelSpec& m, const SearchControl* control, PlanAnswer* out) {
  PlanSpace s = out->space;
  s.control = control;
  s.disaggregated_frontier = true;
  auto d = plan_disaggregated(m, out->targets, s);
  if (!d.ok()) {
    if (is_stop(d.status())) return d.status();
    out->frontier_disaggregated_note = "disaggregated pools not swept: " + d.status().message();
    return Status::Ok();
  }
  add_swept_curve(std::move(d->frontier), out);
  out->frontier_disaggregated = true;
  out->frontier_disaggregated_note =
      "disaggregated pools swept beside them (one GPU kind per pair, the prediction alone), " +
      std::to_string(d->searched) + " more evaluations";
  return Status::Ok();
}

// The published runs --compare names: the compiled-in ones ("shared"), or a TSV in the shared schema.
Result<std::vector<ServingRow>> compare_rows(const PlanRequest& r) {
  if (r.compare == "shared") {
    const std::span<const ServingRow> rows = shared_published_rows();
    return std::vector<ServingRow>(rows.begin(), rows.end());
  }
  auto text = read_input_file(r.compare);
  if (!text.ok()) return Status::InvalidArgument("compare", text.status().message());
  auto parsed = parse_serving_tsv(*text, r.compare);
  if (!parsed.ok()) return Status::InvalidArgument("compare", parsed.status().message());
  return std::move(parsed).value();
}

// The preset a comparison matches the runs' models against: the model named by --model.
Result<std::string> compare_preset(const PlanRequest& r) {
  if (r.model.model.empty()) {
    return Status::InvalidArgument("compare", "needs the model named by --model (a preset or a listed Hub id): the "
                                              "published runs name theirs so");
  }
  auto m = resolve_model_id(r.model.model);
  if (!m.ok()) return Status::InvalidArgument("model", m.status().message());
  return m->preset;
}

Result<PlanAnswer> answer_plan(const PlanRequest& r, const SearchControl* control) {
  MC_RETURN_IF_ERROR(check_request(r));
  PlanAnswer out;
  out.request = r;
  MC_ASSIGN_OR_RETURN(out.model, resolve_model(r.model));
  const ModelSpec& m = *out.model;
  MC_ASSIGN_OR_RETURN(out.targets, read_targets(r));
  auto draft = std::make_shared<ModelSpec>();
  // --spec-acceptance alone on a frontier: the acceptance of the frontier's MTP sweep, not a drafter for all.
  LayoutInput layout = r.layout;
  std::optional<double> sweep_acceptance;
  if ((r.frontier || !r.compare.empty()) && layout.spec_acceptance && !layout.spec_tokens &&
      layout.spec_method.empty() && layout.draft_model.empty()) {
    sweep_acceptance = layout.spec_acceptance;
    layout.spec_acceptance.reset();
  }
  MC_RETURN_IF_ERROR(apply_plan_layout(layout, m, &out.targets, draft.get()));
  if (sweep_acceptance && !(m.params_mtp && *m.params_mtp > 0)) {
    return Status::InvalidArgument("spec_acceptance", "alone sets the frontier's MTP sweep; " + m.name +
                                                          " has no MTP head (give --spec-tokens and a drafter)");
  }
  out.draft = draft;
  MC_ASSIGN_OR_RETURN(out.space, read_space(r, m));
  if (out.space.gpus.empty()) return Status::InvalidArgument("gpu", "no GPU to search: none has a price (give --price)");
  std::vector<ServingRow> published;
  std::string preset;
  if (!r.compare.empty()) {  // read before the search: a bad file is bad input, not a late failure
    if (r.layout.disaggregated) {
      return Status::InvalidArgument("compare", "draws measured points beside the aggregated frontier; drop "
                                                "--disaggregated");
    }
    MC_ASSIGN_OR_RETURN(preset, compare_preset(r));
    MC_ASSIGN_OR_RETURN(published, compare_rows(r));
  }
  out.space.control = control;
  if (r.layout.disaggregated) {
    MC_ASSIGN_OR_RETURN(DisaggPlanResult d, plan_disaggregated(m, out.targets, out.space));
    out.result = d.aggregated;
    out.disaggregated = std::move(d);
  } else {
    MC_ASSIGN_OR_RETURN(out.result, plan_deployments(m, out.targets, out.space));
  }
  out.space.control = nullptr;  // the context outlives no answer
  set_plan_model(m, &out.space);
  if (out.targets.spec.on() && out.targets.spec.method == SpecMethod::kMtp) {
    for (PlanFrontierPoint& f : out.result.frontier) f.mtp = true;  // every candidate drafts with MTP
  }
  if (!r.layout.disaggregated && (r.frontier || !r.compare.empty())) {
    MC_RETURN_IF_ERROR(sweep_mtp(r, m, sweep_acceptance, control, &out));
    MC_RETURN_IF_ERROR(sweep_disaggregated(m, control, &out));
  }
  if (!r.compare.empty()) {
    out.comparison = compare_with_plan(out, preset, published, control);
    if (control != nullptr) MC_RETURN_IF_ERROR(control->status());
  }
  return out;
}

}  // namespace

FrontierComparison compare_with_plan(const PlanAnswer& a, std::string_view preset, std::span<const ServingRow> rows,
                                     const SearchControl* control) {
  std::vector<std::string> keys;
  std::vector<std::optional<EngineRelease>> engines;
  for (const PlanGpu& g : a.space.gpus) {
    keys.push_back(g.gpu.key);
    engines.push_back(engine_for(a.targets.engine, g.gpu));
  }
  const std::span<const PlanFrontierPoint> curves =
      a.frontier_curves.empty() ? std::span<const PlanFrontierPoint>(a.result.frontier) : a.frontier_curves;
  const FrontierScope scope{preset, *a.request.isl, *a.request.osl, keys, a.space.weight_dtypes, curves,
                            engines, a.targets.spec.on(), a.frontier_mtp.has_value(), a.targets.uniform_lengths,
                            a.frontier_disaggregated};
  return compare_frontier(rows, scope, control);
}

Result<PlanAnswer> answer(const PlanRequest& r, const SearchControl* control) {
  auto a = answer_plan(r, control);
  if (!a.ok()) return as_field_error(a.status());
  return a;
}

Result<PlanAnswer> answer(const PlanRequest& r, const Context& ctx) {
  const SearchControl control(ctx.cancel, ctx.cpu_budget_s, ctx.progress);
  auto a = answer_plan(r, control.active() ? &control : nullptr);
  if (!a.ok()) return as_field_error(a.status());
  return a;
}

}  // namespace modelcalc::app
