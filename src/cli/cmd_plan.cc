// modelcalc plan: the cheapest deployment that meets TTFT/TPOT targets at a
// load, searched over GPU kinds, splits, dtypes and batch sizes.
#include <cmath>
#include <memory>
#include <utility>

#include "commands.h"
#include "deployment_options.h"
#include "flags.h"
#include "inputs.h"
#include "modelcalc/plan_engine.h"
#include "modelcalc/prices.h"
#include "output_file.h"
#include "plan_report.h"
#include "quantity.h"
#include "runs.h"

namespace modelcalc {

namespace {

struct PlanFlags : PlanInputs {
  ModelFlags model;
  std::string plot;
  OutputFlags output;
};

// The layout flags plan applies to every candidate. `draft` holds a --draft-model's shape.
Status apply_plan_layout(const LayoutCliFlags& l, const ModelSpec& m, PlanRequest* r, ModelSpec* draft) {
  LayoutCliFlags plain = l;
  plain.two_batch_overlap = false;  // plan applies it to its DP-attention candidates
  DeploymentOptions o;
  MC_RETURN_IF_ERROR(apply_layout_flags(plain, DeploymentFlags{}, m, &o, draft));
  if (l.two_batch_overlap && m.n_expert == 0) {
    return Status::InvalidArgument("--two-batch-overlap", "hides the all-to-all of expert parallelism; " + m.name +
                                                              " has no routed experts");
  }
  r->two_batch_overlap = l.two_batch_overlap;
  r->expert_imbalance = o.expert_imbalance;
  r->spec = o.spec;
  r->prefix = o.prefix;
  r->kv_transfer_overlap = l.kv_transfer_overlap;
  if (l.kv_transfer_overlap && !l.disaggregated) {
    return Status::InvalidArgument("--kv-transfer-overlap", "applies to --disaggregated plans; give that too");
  }
  return Status::Ok();
}

Result<int64_t> bounded_count(const std::string& text, const char* flag, int64_t max, const char* what) {
  MC_ASSIGN_OR_RETURN(int64_t v, parse_count(text, flag));
  if (v > max) return Status::InvalidArgument(flag, std::string("must be at most ") + what + ", got " + text);
  return v;
}

// "0.6" or "60%", in (0, 1]: the shared fraction parser, and not 0.
Result<double> parse_efficiency(const std::string& text) {
  auto v = parse_fraction(text, "--efficiency");
  if (!v.ok() || !(*v > 0)) {
    return Status::InvalidArgument("--efficiency", "expected a fraction of the modelled ceiling in (0, 1], e.g. 0.6 "
                                                   "or 60%, got '" + text + "'");
  }
  return *v;
}

Result<PlanRequest> read_request(const PlanInputs& f) {
  PlanRequest r;
  if (f.isl.empty()) return Status::InvalidArgument("--isl", "is required: input (prompt) tokens per request, e.g. 2048");
  if (f.osl.empty()) return Status::InvalidArgument("--osl", "is required: output tokens per request, e.g. 512");
  MC_ASSIGN_OR_RETURN(r.isl, bounded_count(f.isl, "--isl", kMaxTokens, "2^30 tokens"));
  MC_ASSIGN_OR_RETURN(r.osl, bounded_count(f.osl, "--osl", kMaxTokens, "2^30 tokens"));
  int loads = !f.qps.empty() + !f.rate.empty() + !f.concurrency.empty();
  if (loads > 1) {
    return Status::InvalidArgument(!f.rate.empty() ? "--rate" : "--concurrency",
                                   "give one load: --qps, --rate or --concurrency");
  }
  if (!f.qps.empty()) {
    r.load_kind = PlanLoadKind::kRequestsPerS;
    MC_ASSIGN_OR_RETURN(r.load, parse_rate(f.qps, "--qps", {"req", "requests"}));
  } else if (!f.rate.empty()) {
    r.load_kind = PlanLoadKind::kOutputTokensPerS;
    MC_ASSIGN_OR_RETURN(r.load, parse_rate(f.rate, "--rate", {"tok", "tokens"}));
  } else if (!f.concurrency.empty()) {
    r.load_kind = PlanLoadKind::kConcurrency;
    MC_ASSIGN_OR_RETURN(int64_t c, bounded_count(f.concurrency, "--concurrency", 1'000'000'000, "1e9 sequences"));
    r.load = static_cast<double>(c);
  }
  if (!f.ttft.empty()) {
    MC_ASSIGN_OR_RETURN(r.ttft_s, parse_duration(f.ttft, "--ttft"));
  }
  if (!f.tpot.empty() && !f.tps_per_user.empty()) {
    return Status::InvalidArgument("--tokens-per-s-per-user", "give either --tpot or --tokens-per-s-per-user, not both");
  }
  if (!f.tpot.empty()) {
    MC_ASSIGN_OR_RETURN(r.tpot_s, parse_duration(f.tpot, "--tpot"));
  }
  if (!f.tps_per_user.empty()) {
    MC_ASSIGN_OR_RETURN(double tps, parse_rate(f.tps_per_user, "--tokens-per-s-per-user", {"tok", "tokens"}));
    if (tps > 1e6) {
      return Status::InvalidArgument("--tokens-per-s-per-user", "must be at most 1,000,000 tokens/s");
    }
    r.tpot_s = 1 / tps;
  }
  MC_ASSIGN_OR_RETURN(r.efficiency, parse_efficiency(f.efficiency));
  if (!f.rank_by.empty() && f.rank_by != "predicted" && f.rank_by != "ceiling") {
    return Status::InvalidArgument("--rank-by", "expected predicted or ceiling, got '" + f.rank_by + "'");
  }
  r.rank_by_ceiling = f.rank_by == "ceiling";
  MC_ASSIGN_OR_RETURN(r.engine, cli_engine(f.engine));
  r.engine_flags = f.engine.flags;
  return r;
}

Result<PlanSpace> read_space(const PlanInputs& f, const ModelSpec& m) {
  PlanSpace s;
  MC_ASSIGN_OR_RETURN(const std::vector<PricedGpu> priced, resolve_priced_gpus(f.gpu, f.price));
  for (const PricedGpu& g : priced) {
    PlanGpu pg;
    pg.gpu = g.gpu;
    pg.usd_per_hour = g.price.usd_per_hour;
    pg.price_source = g.price.provider == "user" ? "--price"
                                                 : g.price.provider + " " + g.price.date +
                                                       (g.price.confirmed ? "" : " (unconfirmed)");
    pg.domain_gpus = std::max<int64_t>(1, g.gpu.domain_gpus);
    s.gpus.push_back(std::move(pg));
  }
  MC_ASSIGN_OR_RETURN(s.max_gpus, bounded_count(f.max_gpus, "--max-gpus", kMaxGpus, "1,048,576 (2^20)"));
  MC_ASSIGN_OR_RETURN(s.max_pp, bounded_count(f.max_pp, "--max-pp", 1024, "1024"));
  MC_ASSIGN_OR_RETURN(int64_t top, bounded_count(f.top, "--top", 1000, "1000"));
  s.top = static_cast<size_t>(top);
  auto dtypes = [](const std::string& text, const char* flag, auto parse) -> Result<std::vector<Dtype>> {
    MC_ASSIGN_OR_RETURN(std::vector<std::string> items, split_comma_list(text, flag));
    std::vector<Dtype> out;
    for (const std::string& i : items) {
      MC_ASSIGN_OR_RETURN(Dtype d, parse(i, flag));
      if (std::find(out.begin(), out.end(), d) != out.end()) {
        return Status::InvalidArgument(flag, "lists " + std::string(dtype_name(d)) + " twice");
      }
      out.push_back(d);
    }
    return out;
  };
  // Defaults: a quantized checkpoint in its own dtype (and its stated KV dtype), else bf16 and fp8 weights
  // with PlanSpace's KV default (16-bit and fp8 where the GPU has fp8).
  const std::string weight_list =
      !f.dtype.empty() ? f.dtype : m.quant ? std::string(dtype_name(m.quant->dtype)) : std::string("bf16,fp8");
  MC_ASSIGN_OR_RETURN(s.weight_dtypes, dtypes(weight_list, "--dtype", parse_dtype));
  const std::string kv_list =
      !f.kv_dtype.empty() ? f.kv_dtype : m.quant && m.quant->kv ? std::string(dtype_name(*m.quant->kv)) : "";
  if (!kv_list.empty()) {
    MC_ASSIGN_OR_RETURN(s.kv_dtypes, dtypes(kv_list, "--kv-dtype", parse_kv_dtype));
    s.fp8_kv_needs_fp8 = false;
  }
  if (!f.ep.empty()) {
    MC_ASSIGN_OR_RETURN(std::vector<std::string> items, split_comma_list(f.ep, "--ep"));
    for (const std::string& i : items) {
      MC_ASSIGN_OR_RETURN(int64_t e, bounded_count(i, "--ep", kMaxGpus, "1,048,576 (2^20)"));
      if (std::find(s.eps.begin(), s.eps.end(), e) != s.eps.end()) {
        return Status::InvalidArgument("--ep", "lists " + std::to_string(e) + " twice");
      }
      s.eps.push_back(e);
    }
  }
  if (!f.batch.empty()) {
    MC_ASSIGN_OR_RETURN(std::vector<std::string> items, split_comma_list(f.batch, "--batch"));
    s.batches.clear();
    for (const std::string& i : items) {
      MC_ASSIGN_OR_RETURN(int64_t b, bounded_count(i, "--batch", kMaxBatch, "2^30 sequences"));
      s.batches.push_back(b);
    }
    std::sort(s.batches.begin(), s.batches.end());
    if (std::adjacent_find(s.batches.begin(), s.batches.end()) != s.batches.end()) {
      return Status::InvalidArgument("--batch", "lists a batch size twice");
    }
  }
  return s;
}

PlanView plan_view(const PlanRun& r) {
  return PlanView{r.model->name, &r.request, &r.space, &r.result, r.frontier, r.model->assumptions};
}

Status run_plan_command(const PlanFlags& f, std::ostream& out, int* exit_code) {
  MC_ASSIGN_OR_RETURN(ModelSpec m, resolve_model(f.model));
  if (f.layout.disaggregated && (!f.plot.empty() || f.frontier || f.output.explain)) {
    return Status::InvalidArgument("--disaggregated", "has no frontier, plot or --explain; give --json or the table");
  }
  PlanRun run;
  MC_RETURN_IF_ERROR(run_plan(std::make_shared<const ModelSpec>(std::move(m)), f, &run));
  if (run.disaggregated) {
    out << (f.output.json ? plan_document(run).dump(2) + "\n" : plan_text(run));
    *exit_code = plan_feasible(run) ? 0 : 1;
    return Status::Ok();
  }
  std::string text;
  if (f.output.json) {
    nlohmann::json j = plan_document(run);
    if (!f.plot.empty()) j["plot"] = f.plot;
    text = j.dump(2) + "\n";
  } else if (f.output.explain && !run.result.configs.empty()) {
    text = render_explain(plan_explain(run));
  } else {
    text = plan_text(run);
  }
  if (f.plot == "-") {  // the picture is the whole output (the web API's /api/svg/plan)
    text = plan_frontier_svg(plan_view(run));
  } else if (!f.plot.empty()) {
    MC_RETURN_IF_ERROR(write_output_file(f.plot, plan_frontier_svg(plan_view(run)), "--plot"));
    if (!f.output.json) text += "\nFrontier written to " + f.plot + " (open it in a browser).\n";
  }
  out << text;
  *exit_code = run.result.configs.empty() ? 1 : 0;
  return Status::Ok();
}

}  // namespace

Status run_plan(SharedModel m, const PlanInputs& in, PlanRun* out) {
  MC_ASSIGN_OR_RETURN(out->request, read_request(in));
  auto draft = std::make_shared<ModelSpec>();
  MC_RETURN_IF_ERROR(apply_plan_layout(in.layout, *m, &out->request, draft.get()));
  out->draft = draft;
  MC_ASSIGN_OR_RETURN(out->space, read_space(in, *m));
  if (out->space.gpus.empty()) {
    return Status::InvalidArgument("--gpu", "no GPU to search: none has a price (give --price)");
  }
  out->disaggregated.reset();
  if (in.layout.disaggregated) {
    auto d = plan_disaggregated(*m, out->request, out->space);
    if (!d.ok()) return as_flag_error(d.status());
    out->result = d->aggregated;
    out->disaggregated = std::move(d).value();
  } else {
    auto planned = plan_deployments(*m, out->request, out->space);
    if (!planned.ok()) return as_flag_error(planned.status());
    out->result = std::move(planned).value();
  }
  set_plan_model(*m, &out->space);
  out->frontier = in.frontier;
  out->model = std::move(m);
  return Status::Ok();
}

static DisaggPlanView disagg_view(const PlanRun& r) {
  return DisaggPlanView{r.model->name, &r.request, &r.space, &*r.disaggregated, r.model->assumptions};
}
nlohmann::json plan_document(const PlanRun& r) {
  return r.disaggregated ? disagg_plan_json(disagg_view(r)) : plan_json(plan_view(r));
}
std::string plan_text(const PlanRun& r) {
  return r.disaggregated ? render_disagg_plan_text(disagg_view(r)) : render_plan_text(plan_view(r));
}
bool plan_feasible(const PlanRun& r) {
  return r.disaggregated ? !r.disaggregated->configs.empty() : !r.result.configs.empty();
}
Report plan_explain(const PlanRun& r) { return build_plan_explain(plan_view(r)); }

CommandRun setup_plan(FlagSet& flags) {
  auto f = std::make_shared<PlanFlags>();
  add_model_flags(flags, &f->model);
  flags.text("--isl", "Input (prompt) tokens per request (required), 1 to 2^30, e.g. 2048", &f->isl)
      .text("--osl", "Output tokens per request (required), 1 to 2^30, e.g. 512", &f->osl)
      .text("--qps", "Load: requests per second, up to 1e12, e.g. 20 (one of --qps, --rate, --concurrency; default: none)", &f->qps)
      .text("--rate", "Load: output tokens per second, up to 1e12, e.g. 50K", &f->rate)
      .text("--concurrency", "Load: concurrent sequences, 1 to 1e9, e.g. 256", &f->concurrency)
      .text("--ttft", "Target time to first token, with its unit, up to 1 day: 1s, 500ms (default: none)", &f->ttft)
      .text("--tpot", "Target time per output token, with its unit, up to 1 day: 50ms (default: none)", &f->tpot)
      .text("--tokens-per-s-per-user", "Target tokens/s per user, = 1 / TPOT, up to 1e6, e.g. 20 (instead of --tpot)",
            &f->tps_per_user)
      .text("--gpu", "GPU kinds to search, a comma list (default: every catalog GPU with a price)", &f->gpu)
      .text("--max-gpus", "Most GPUs in total over all replicas, 1 to 2^20 (default: 64)", &f->max_gpus)
      .text("--dtype", "Weight dtypes to search, a comma list of " + dtype_names() +
                           " (default: a quantized checkpoint's own dtype, else bf16,fp8)", &f->dtype)
      .text("--kv-dtype", "KV-cache dtypes to search, a comma list of " + dtype_names(true) +
                              " (default: the KV dtype a checkpoint states, else bf16,fp8, fp8 only on GPUs "
                              "with an fp8 peak)",
            &f->kv_dtype)
      .text("--batch", "Batch sizes to search, a comma list, each 1 to 2^30 (default: 1,2,4,...,65536, and the "
                       "largest that fits)", &f->batch)
      .text("--max-pp", "Most pipeline stages searched: 1, 2, 4, ..., at most 1024 (default: 8)", &f->max_pp)
      .text("--ep", "Expert-parallel degrees to search, a comma list; each must divide tp and the experts "
                    "(default: 1 and, for a MoE, ep = tp)", &f->ep)
      .text("--price", "USD per GPU-hour overrides, e.g. h100=2.49,mi300x=1.5 (default: data/prices.tsv)", &f->price)
      .text("--efficiency", "Fraction of the ranked figures reached on top of the model, 0.6 or 60% (default: 1.0: the "
                            "prediction as fitted)", &f->efficiency)
      .text("--rank-by", "Rank by the predicted figures or by the ceiling's (default: predicted)", &f->rank_by)
      .text("--top", "Configurations listed, 1 to 1000 (default: 10)", &f->top)
      .toggle("--frontier", "Also print the Pareto frontier (tokens/s/user vs tokens/s/GPU)", &f->frontier)
      .text("--plot", "Write the frontier as an SVG file, e.g. frontier.svg; - prints it to stdout instead of the table",
            &f->plot);
  add_engine_profile_flags(flags, &f->engine);
  add_layout_flags(flags, &f->layout, /*for_plan=*/true);
  add_output_flags(flags, &f->output);
  flags.footer("Exit status 1 (with the closest misses) when nothing meets the targets; 2 for bad input.");
  return [f](std::ostream& out) {
    int code = 0;
    Status s = run_plan_command(*f, out, &code);
    if (s.ok() && code == 1) return Status::NotMet("plan: nothing meets the targets (closest misses above)");
    return s;
  };
}

}  // namespace modelcalc
