#include "plan_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "deployment_report.h"
#include "format.h"
#include "modelcalc/engine_profile.h"
#include "plan_text.h"
#include "modelcalc/engine_rules.h"
#include "svg.h"

namespace modelcalc {

namespace {

// The model reader's assumptions under a plan, as a report's warnings print.
std::string assumptions_text(const std::vector<std::string>& a) {
  std::string out;
  if (!a.empty()) out += "\nModel notes\n";
  for (const std::string& n : a) out += "  ! " + n + "\n";
  return out;
}

// The formulas plan combines (the engine's TTFT and TPOT come in as terms).
namespace pfx {
inline constexpr FormulaText kEffTime{"cost_plan_point", "t_engine / efficiency"};
inline constexpr FormulaText kCycle{"cost_plan_point", "osl × TPOT + B × TTFT"};
inline constexpr FormulaText kPerReplica{"cost_plan_point", "B × osl / cycle"};
inline constexpr FormulaText kPerGpu{"cost_plan_point", "tokens_per_s_per_replica / (tp × pp × attn_dp)"};
inline constexpr FormulaText kPerUser{"cost_plan_point", "1 / TPOT"};
inline constexpr FormulaText kReplicasQps{"plan_replicas", "ceil(qps / (B / cycle))"};
inline constexpr FormulaText kReplicasRate{"plan_replicas", "ceil(rate / tokens_per_s_per_replica)"};
inline constexpr FormulaText kReplicasConc{"plan_replicas", "ceil(concurrency / B)"};
inline constexpr FormulaText kGpus{"cost_plan_point", "tp × pp × attn_dp × replicas"};
inline constexpr FormulaText kUsdHour{"cost_plan_point", "gpus × price"};
inline constexpr FormulaText kUsdOut{"cost_plan_point", "usd_per_hour / (served × 3600) × 1e6"};
inline constexpr FormulaText kUsdIn{"cost_plan_point", "usd_per_hour × (B × TTFT / cycle) / (served × isl / osl × 3600) × 1e6"};
inline constexpr FormulaText kPerReplicaSteady{"cost_plan_point", "B / TPOT"};
inline constexpr FormulaText kReplicasQpsSteady{"plan_replicas", "ceil(qps × osl / tokens_per_s_per_replica)"};
inline constexpr FormulaText kUsdInShare{"cost_plan_point",
                                         "usd_per_hour × share / (served × isl / osl × 3600) × 1e6"};
inline constexpr FormulaText kGpuHoursOut{"cost_plan_point", "gpus / (served × 3600) × 1e6"};
inline constexpr FormulaText kUsdBlend{"cost_plan_point", "usd_per_hour / (served × (1 + isl / osl) × 3600) × 1e6"};
}  // namespace pfx

std::string split_text(const PlanCandidate& c) {
  if (c.attn_dp > 1) {  // the DP-attention layout
    std::string s = fmt::format("DPA{}", c.attn_dp);
    if (c.tp > 1) s += fmt::format("×TP{}", c.tp);
    return s + fmt::format("·EP{}", c.ep);
  }
  std::string s = fmt::format("TP{}", c.tp);
  if (c.pp > 1) s += fmt::format("·PP{}", c.pp);
  if (c.ep > 1) s += fmt::format("·EP{}", c.ep);
  return s;
}

std::string load_text(const PlanRequest& r) {
  switch (r.load_kind) {
    case PlanLoadKind::kNone: return "none given (one replica each; cost at its capacity)";
    case PlanLoadKind::kRequestsPerS: return fmt_sig(r.load, 4) + " requests/s";
    case PlanLoadKind::kOutputTokensPerS: return fmt_sig(r.load, 4) + " output tokens/s";
    case PlanLoadKind::kConcurrency: return fmt_sig(r.load, 4) + " concurrent sequences";
  }
  return "";
}

const char* load_key(PlanLoadKind k) {
  switch (k) {
    case PlanLoadKind::kNone: return "none";
    case PlanLoadKind::kRequestsPerS: return "requests_per_s";
    case PlanLoadKind::kOutputTokensPerS: return "output_tokens_per_s";
    case PlanLoadKind::kConcurrency: return "concurrency";
  }
  return "";
}

std::string efficiency_text(const PlanRequest& r) {
  if (r.efficiency == 1) return "efficiency 1.0: the ranked figures as modelled";
  return fmt::format("efficiency {}: the ranked figures' times divided by {} (on top of the model; `modelcalc "
                     "calibrate` shows how far the prediction is from published runs)",
                     fmt_sig(r.efficiency, 3), fmt_sig(r.efficiency, 3));
}

nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

// A figure key null in `j` (not finite) gets "<key>_reason": why there is no number. Every figure key of plan's
// documents is passed through here, so JSON has no infinite figure and no null without its reason.
void explain_nulls(nlohmann::json& j) {
  std::vector<std::pair<std::string, std::string>> add;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_null()) continue;
    const std::string& k = it.key();
    const bool time = k.size() > 2 && (k.ends_with("_s") || k.ends_with("seconds"));
    const bool usd = k.starts_with("usd_");
    if (!time && !usd && !k.starts_with("tokens_per_s") && !k.starts_with("served_") && !k.starts_with("requests_") &&
        !k.starts_with("gpu_hours_")) {
      continue;
    }
    if (usd && j.contains("usd_per_hour") && j["usd_per_hour"].is_null()) {
      add.emplace_back(k + "_reason", "the GPU has no catalog price (--price GPU=X gives one)");
      continue;
    }
    add.emplace_back(k + "_reason", k.starts_with("ttft") || k.starts_with("prefill_stall") ? kUnboundedQueue
                                    : usd ? "no tokens served: the cost per token is unbounded"
                                          : "unbounded");
  }
  for (auto& [k, v] : add) j[k] = v;
}

// A configuration's cells as the text table prints them; the JSON's "text"
// holds the same strings, so a page shows the CLI's table.
struct PlanCells {
  std::string split, dtypes, ttft, tpot, per_user, per_gpu, usd_per_hour, usd_out, usd_in;
  std::string rank_cost;  // the cost ranked by: usd_out, or the GPU-hours per 1M output tokens
};

// The ranked cost's column head: "$/1M out", or "GPU-h/1M" when a GPU has no price.
const char* rank_cost_head(const PlanSpace& s) { return s.rank_by_gpu_hours ? "GPU-h/1M" : "$/1M out"; }
// Its cell: the US$ per 1M output tokens, or the GPU-hours (the head names the unit).
std::string rank_cost_cell(const PlanSpace& s, double usd_per_million, double gpu_hours_per_million) {
  if (!s.rank_by_gpu_hours) return plan_usd_text(usd_per_million);
  return std::isfinite(gpu_hours_per_million) ? fmt_sig(gpu_hours_per_million, 3) : std::string("n/a (nothing served)");
}

PlanCells plan_cells(const PlanSpace& s, const PlanConfig& c) {
  return {split_text(c.c),
          fmt::format("{}/{}", dtype_name(c.c.weight_dtype), dtype_name(c.c.kv_dtype)),
          plan_time_text(c.ttft_s, true),
          plan_time_text(c.tpot_s, false),
          fmt_fixed(c.tokens_per_s_per_user, 1),
          fmt_fixed(c.tokens_per_s_per_gpu, 0),
          plan_usd_text(c.usd_per_hour),
          plan_usd_text(c.usd_per_million_output),
          plan_usd_text(c.usd_per_million_input),
          rank_cost_cell(s, c.usd_per_million_output, c.gpu_hours_per_million_output)};
}

// The figure keys of one set (the ceiling's at the top level, the prediction's under "predicted").
nlohmann::json figures_json(const PlanFigures& f, int64_t batch) {
  nlohmann::json j = {
      {"gpus", f.gpus},
      {"dp", f.replicas},
      {"batch", batch},
      {"max_sequences", f.max_sequences},
      {"ttft_s", num(f.ttft_s)},
      {"tpot_s", num(f.tpot_s)},
      {"comm_s", num(f.comm_s)},
      {"prefill_stall_per_token_s", num(f.prefill_stall_per_token_s)},
      {"tokens_per_s_per_user", num(f.tokens_per_s_per_user)},
      {"tokens_per_s_per_gpu", num(f.tokens_per_s_per_gpu)},
      {"tokens_per_s_per_replica", num(f.tokens_per_s_per_replica)},
      {"served_output_tokens_per_s", num(f.served_output_tokens_per_s)},
      {"replicas", f.replicas},
      {"usd_per_hour", num(f.usd_per_hour)},
      {"usd_per_million_output_tokens", num(f.usd_per_million_output)},
      {"usd_per_million_input_tokens", num(f.usd_per_million_input)},
      {"usd_per_million_blended_tokens", num(f.usd_per_million_blended)},
      {"gpu_hours_per_million_output_tokens", num(f.gpu_hours_per_million_output)},
      {"meets_targets", f.reason == PlanReason::kOk},
      {"reason", plan_reason_name(f.reason)},
      {"limit", batch_limit_name(f.limit.kind)},
  };
  explain_nulls(j);
  return j;
}

// {"profile", "name", "release", "release_name", "time_parameters_inherited"} of one release.
nlohmann::json release_json(const EngineRelease& e) {
  const EngineProfile& p = engine_profile(e);
  return {{"profile", std::string(p.name)},
          {"name", std::string(p.display)},
          {"release", engine_release_key(e)},
          {"release_name", engine_release_display(e)},
          {"time_parameters_inherited", p.time_inherited}};
}

nlohmann::json config_json(const PlanView& v, const PlanConfig& c) {
  nlohmann::json j = figures_json(c.has_figures ? c.ceiling : plan_figures(c), c.batch);
  j["gpu"] = c.gpu;
  j["engine"] = c.engine ? release_json(*c.engine) : nlohmann::json();  // null: ranked by the ceiling alone
  j["tp"] = c.c.tp;
  j["pp"] = c.c.pp;
  j["ep"] = c.c.ep;
  j["dp_attention"] = c.c.attn_dp > 1;
  j["attn_dp"] = c.c.attn_dp;
  j["gpus_per_replica"] = c.c.gpus_per_replica();
  j["weight_dtype"] = std::string(dtype_name(c.c.weight_dtype));
  j["kv_dtype"] = std::string(dtype_name(c.c.kv_dtype));
  j["deciding"] = plan_deciding_text(*v.request, *v.space, c);
  // The text table's cells (the ranked figures), so a page shows the CLI's strings.
  const PlanCells t = plan_cells(*v.space, c);
  j["text"] = {{"rank_cost", t.rank_cost}, {"split", t.split}, {"dtypes", t.dtypes}, {"ttft", t.ttft}, {"tpot", t.tpot},
               {"tokens_per_s_per_user", t.per_user}, {"tokens_per_s_per_gpu", t.per_gpu},
               {"usd_per_hour", t.usd_per_hour}, {"usd_per_million_output_tokens", t.usd_out},
               {"usd_per_million_input_tokens", t.usd_in}};
  if (c.has_figures) j["predicted"] = figures_json(c.predicted, c.batch);
  return j;
}

// The release a whole plan names: the one given, as before; per GPU vendor otherwise.
std::string release_text(const EngineRelease& e) {
  const EngineProfile& p = engine_profile(e);
  std::string release = engine_release_display(e);
  if (p.name != engine_family_info(p.family).key) release += ", time parameters from " + std::string(p.name);
  return release;
}

std::string ranking_text(const PlanRequest& r) {
  if (!r.engine) {
    const std::string by = "each GPU's default engine (TensorRT-LLM on NVIDIA, vLLM on AMD: configs[].engine; "
                           "--engine names one for every GPU)";
    if (r.rank_by_ceiling) {
      return "ranked by the ceiling (--rank-by ceiling: the ideal machine, a bound no engine beats); the "
             "prediction of " + by + " in --json configs[].predicted";
    }
    return "ranked by the prediction of " + by + "; the ceiling beside it (--rank-by ceiling ranks by it)";
  }
  const EngineProfile& p = engine_profile(*r.engine);
  const std::string release = release_text(*r.engine);
  if (r.rank_by_ceiling) {
    return "ranked by the ceiling (--rank-by ceiling: the ideal machine, a bound no engine beats); the "
           "prediction (" + release + ") in --json configs[].predicted";
  }
  return "ranked by the prediction for " + release +
         (p.time_inherited ? " (its step times are the pooled set: no published " + std::string(p.display) +
                                 " data fitted)"
                           : " (fitted on published " + std::string(p.display) + " runs)") +
         "; the ceiling beside it (--rank-by ceiling ranks by it)";
}

// The plan's engine: the release given, or (none given) null figures and how each GPU's is chosen.
nlohmann::json plan_engine_json(const PlanRequest& r, const PlanRejected& rj) {
  if (r.engine) return release_json(*r.engine);
  return {{"profile", nullptr},
          {"chosen_by", "the GPU's vendor: TensorRT-LLM on NVIDIA, vLLM on AMD (configs[].engine)"},
          {"no_engine", rj.no_engine}};
}

}  // namespace

// The layout options the request carries to every candidate (docs/serving-layouts.md).
nlohmann::json layout_options_json(const PlanRequest& r) {
  return {{"two_batch_overlap", r.two_batch_overlap},
          {"expert_imbalance", r.expert_imbalance},
          {"spec", {{"method", std::string(spec_method_name(r.spec.on() ? r.spec.method : SpecMethod::kNone))},
                    {"tokens", r.spec.tokens},
                    {"acceptance", r.spec.acceptance}}},
          {"prefix", {{"hit", r.prefix.hit}, {"shared_tokens", r.prefix.shared_tokens}}}};
}

// "" when the request carries none.
std::string layout_options_text(const PlanRequest& r) {
  std::string t;
  const auto add = [&t](const std::string& x) { t += (t.empty() ? "" : ", ") + x; };
  if (r.spec.on()) {
    add(fmt::format("speculative decoding {} K {} A {}", spec_method_name(r.spec.method), r.spec.tokens,
                    fmt_sig(r.spec.acceptance, 3)));
  }
  if (r.prefix.hit > 0) add(fmt::format("prefix hit {}", fmt_sig(r.prefix.hit, 3)));
  if (r.prefix.shared_tokens > 0) add(fmt::format("shared prefix {} tokens", group_digits(r.prefix.shared_tokens)));
  if (r.expert_imbalance > 1) add(fmt::format("EP imbalance {}", fmt_sig(r.expert_imbalance, 3)));
  if (r.two_batch_overlap) add("two-batch overlap (DP-attention candidates)");
  return t.empty() ? t : "  layout options: " + t + "\n";
}

namespace {

// "; TensorRT-LLM would not load 12: trtllm-nvidia 8, fp8-block-experts 4, ...", or "".
std::string engine_rules_text(const PlanRequest& r, const PlanRejected& rj) {
  if (rj.by_engine_rule.empty()) return "";
  std::string t;
  int64_t n = 0;
  for (const auto& [name, count] : rj.by_engine_rule) {
    t += (t.empty() ? "" : ", ") + fmt::format("{} {}", name, group_digits(count));
    n += count;
  }
  return fmt::format("; {} would not load {}: {}, the rules of docs/planning.md",
                     r.engine ? std::string(engine_profile(*r.engine).display) : std::string("the GPUs' engines"),
                     group_digits(n), t);
}

}  // namespace

std::string measured_points_table(std::span<const MeasuredFrontierPoint> points) {
  auto fig = [](double v, int digits) { return std::isfinite(v) ? fmt_fixed(v, digits) : std::string("-"); };
  auto pct = [](double predicted, double measured) {
    if (!std::isfinite(predicted) || !(measured > 0)) return std::string("-");
    return fmt::format("{:+.0f}%", (predicted / measured - 1) * 100);
  };
  std::string out =
      fmt::format("  {:<10} {:<26} {:<26} {:<11} {:>6} {:>10} {:>10} {:>6} {:>9} {:>9} {:>6} {:>10} {:>6}\n", "gpu",
                  "engine (release)", "layout", "w/kv", "conc", "tok/s/GPU", "predicted", "err", "tok/s/u",
                  "predicted", "err", "frontier", "err");
  for (const MeasuredFrontierPoint& m : points) {
    out += fmt::format("  {:<10} {:<26} {:<26} {:<11} {:>6} {:>10} {:>10} {:>6} {:>9} {:>9} {:>6} {:>10} {:>6}\n",
                       m.gpu, m.engine_key, m.layout,
                       m.weight_dtype + "/" + (m.kv_dtype.empty() ? "?" : m.kv_dtype),
                       m.concurrency > 0 ? fmt_sig(m.concurrency, 6) : m.load,
                       fig(m.measured_tokens_per_s_per_gpu, 0), fig(m.predicted_tokens_per_s_per_gpu, 0),
                       pct(m.predicted_tokens_per_s_per_gpu, m.measured_tokens_per_s_per_gpu),
                       fig(m.measured_tokens_per_s_per_user, 1), fig(m.predicted_tokens_per_s_per_user, 1),
                       pct(m.predicted_tokens_per_s_per_user, m.measured_tokens_per_s_per_user),
                       (m.on_published_frontier ? "*" : "") + fig(m.frontier_tokens_per_s_per_gpu, 0),
                       pct(m.frontier_tokens_per_s_per_gpu, m.measured_tokens_per_s_per_gpu));
  }
  return out;
}

std::string frontier_errors_table(std::span<const FrontierError> errors, const FrontierError& overall) {
  auto abs_pct = [](double v) { return std::isfinite(v) ? fmt::format("{:.1f}%", v * 100) : std::string("-"); };
  std::string out = fmt::format("  {:<10} {:<40} {:>6} {:>10} {:>10} {:>10} {:>6}\n", "gpu", "engine", "runs",
                                "tok/s/GPU", "tok/s/u", "frontier", "runs");
  auto row = [&](const FrontierError& e, const std::string& gpu) {
    out += fmt::format("  {:<10} {:<40} {:>6} {:>10} {:>10} {:>10} {:>6}\n", gpu, e.engine.substr(0, 40), e.points,
                       abs_pct(e.tokens_per_s_per_gpu), abs_pct(e.tokens_per_s_per_user), abs_pct(e.frontier),
                       e.frontier_points);
  };
  for (const FrontierError& e : errors) row(e, e.gpu);
  row(overall, "all");
  return out;
}

nlohmann::json measured_point_json(const MeasuredFrontierPoint& m) {
  nlohmann::json j = {{"gpu", m.gpu},
                      {"engine", m.engine},
                      {"engine_release", m.engine_key},
                      {"disaggregated", m.disaggregated},
                      {"mtp", m.spec},
                      {"on_published_frontier", m.on_published_frontier},
                      {"layout", m.layout},
                      {"weight_dtype", m.weight_dtype},
                      {"kv_dtype", m.kv_dtype.empty() ? nlohmann::json() : nlohmann::json(m.kv_dtype)},
                      {"gpus", m.gpus},
                      {"load", m.load},
                      {"concurrency", m.concurrency > 0 ? nlohmann::json(m.concurrency) : nlohmann::json()},
                      {"ids", m.ids},
                      {"source", m.source},
                      {"tokens_per_s_per_gpu", num(m.measured_tokens_per_s_per_gpu)},
                      {"tokens_per_s_per_user", num(m.measured_tokens_per_s_per_user)},
                      {"ttft_s", num(m.measured_ttft_s)},
                      {"predicted",
                       {{"tokens_per_s_per_gpu", num(m.predicted_tokens_per_s_per_gpu)},
                        {"tokens_per_s_per_user", num(m.predicted_tokens_per_s_per_user)},
                        {"ttft_s", num(m.predicted_ttft_s)}}},
                      {"ceiling",
                       {{"tokens_per_s_per_gpu", num(m.ceiling_tokens_per_s_per_gpu)},
                        {"tokens_per_s_per_user", num(m.ceiling_tokens_per_s_per_user)}}},
                      {"frontier_tokens_per_s_per_gpu", num(m.frontier_tokens_per_s_per_gpu)}};
  if (!m.frontier_note.empty()) j["frontier_note"] = m.frontier_note;
  for (const char* k : {"tokens_per_s_per_gpu", "tokens_per_s_per_user", "ttft_s"}) {
    if (j[k].is_null()) j[std::string(k) + "_reason"] = "the run published no such figure";
  }
  return j;
}

nlohmann::json frontier_error_json(const FrontierError& e) {
  return {{"gpu", e.gpu.empty() ? nlohmann::json() : nlohmann::json(e.gpu)},
          {"engine", e.engine.empty() ? nlohmann::json() : nlohmann::json(e.engine)},
          {"points", e.points},
          {"tokens_per_s_per_gpu_median_abs_error", num(e.tokens_per_s_per_gpu)},
          {"tokens_per_s_per_user_median_abs_error", num(e.tokens_per_s_per_user)},
          {"frontier_median_abs_error", num(e.frontier)},
          {"frontier_points", e.frontier_points}};
}

namespace {

// The engine a frontier point of `gpu` is predicted with ("-" for the ceiling's set).
std::string frontier_engine(const PlanRequest& r, const PlanSpace& s, const PlanFrontierPoint& f) {
  if (f.ceiling) return "-";
  for (const PlanGpu& g : s.gpus) {
    if (g.gpu.key == f.gpu) {
      const auto e = engine_for(r.engine, g.gpu);
      return e ? std::string(engine_profile(*e).name) : std::string("-");
    }
  }
  return "-";
}

// A point's layout: its split (+MTP), or a disaggregated pair's "1P×TP8/3D×DPA8·EP8".
std::string frontier_split(const PlanFrontierPoint& f) {
  if (!f.disaggregated) return split_text(f.c) + (f.mtp ? "+MTP" : "");
  return fmt::format("{}P×{}/{}D×{}", f.prefill_replicas, split_text(f.prefill), f.decode_replicas, split_text(f.c));
}

std::string mw_text(double v) { return std::isfinite(v) ? group_digits(static_cast<int64_t>(std::llround(v))) : "no TDP"; }

std::string frontier_table(const PlanView& v, bool ceiling) {
  const PlanRequest& r = *v.request;
  const PlanSpace& s = *v.space;
  std::string out = fmt::format("  {:<14} {:<14} {:<15} {:<9} {:>6} {:>9} {:>9} {:>10} {:>11} {:>9} {:>12}\n", "gpu",
                                "engine", "split", "w/kv", "conc", "TTFT", "TPOT", "tok/s/user", "tok/s/GPU",
                                rank_cost_head(s), "tok/s/MW");
  size_t n = 0;
  for (const PlanFrontierPoint& f : v.result->frontier) {
    if (f.ceiling != ceiling) continue;
    ++n;
    out += fmt::format("  {:<14} {:<14} {:<15} {:<9} {:>6} {:>9} {:>9} {:>10} {:>11} {:>9} {:>12}\n", f.gpu,
                       frontier_engine(r, s, f), frontier_split(f),
                       fmt::format("{}/{}", dtype_name(f.c.weight_dtype), dtype_name(f.c.kv_dtype)), f.batch,
                       plan_time_text(f.ttft_s, true), plan_time_text(f.tpot_s, false),
                       fmt_fixed(f.tokens_per_s_per_user, 1), fmt_fixed(f.tokens_per_s_per_gpu, 0),
                       rank_cost_cell(s, f.usd_per_million_output, f.gpu_hours_per_million_output),
                       mw_text(f.tokens_per_s_per_mw));
  }
  return n == 0 ? "  (no point)\n" : out;
}


std::string measured_text(const FrontierComparison& c) {
  std::string out = fmt::format(
      "\nMeasured (--compare: {} runs from {} of {} rows: this model at this isl/osl on a GPU searched{}); each "
      "beside its prediction at the same configuration and load, with its row's engine, as calibrate evaluates it; "
      "a run on the published frontier (* : no run of its GPU, engine and dtype beats it) is also held against "
      "the searched predicted frontier at its measured tokens/s per user, where the plan searched its engine, "
      "dtype and drafter (JSON frontier_note says why not):\n",
      c.points.size(), c.matched_rows - c.skipped_rows, c.rows,
      c.skipped_rows > 0 ? fmt::format("; {} skipped, e.g. {}", c.skipped_rows, c.first_skip) : std::string());
  if (c.points.empty()) return out + "  (no run)\n";
  out += measured_points_table(c.points);
  out += "  Median |error| per GPU and engine (the point's own prediction; the searched frontier at its interactivity, "
         "over the runs so compared):\n";
  out += frontier_errors_table(c.errors, c.overall);
  return out;
}

std::string frontier_text(const PlanView& v) {
  const bool ranked_ceiling = v.request->rank_by_ceiling;
  std::string out;
  for (bool ceiling : {ranked_ceiling, !ranked_ceiling}) {
    out += ceiling ? "\nFrontier per GPU kind, the ceiling's (the ideal machine: an upper bound no engine reaches):\n"
                   : "\nFrontier per GPU kind, the prediction's (each GPU's engine):\n";
    out += frontier_table(v, ceiling);
  }
  out += "  (no point of a GPU and set has both more tokens/s per user and more per GPU; every searched batch that "
         "fits is a candidate, whatever the targets; conc = sequences in flight per replica)\n";
  if (!v.frontier_mtp_note.empty()) out += "  " + v.frontier_mtp_note + "\n";
  if (!v.frontier_disaggregated_note.empty()) out += "  " + v.frontier_disaggregated_note + "\n";
  if (v.comparison) out += measured_text(*v.comparison);
  return out;
}

}  // namespace

std::string render_plan_text(const PlanView& v) {
  const PlanRequest& r = *v.request;
  const PlanSpace& s = *v.space;
  const PlanResult& res = *v.result;
  std::string out = fmt::format("Plan: {} — input {} tokens, output {} tokens\n", v.model, group_digits(r.isl),
                                group_digits(r.osl));
  if (r.uniform_lengths) out += "  lengths: uniform in [0.8 L, L] (InferenceX's), served at their means, the tokens above\n";
  out += fmt::format("  load: {}\n", load_text(r));
  out += fmt::format("  targets: TTFT {}, TPOT {}\n",
                     r.ttft_s ? "≤ " + format_brief(*r.ttft_s, Unit::kSeconds) : std::string("none"),
                     r.tpot_s ? "≤ " + format_brief(*r.tpot_s, Unit::kSeconds) : std::string("none"));
  out += layout_options_text(r);
  out += "  " + ranking_text(r) + "\n";
  out += "  " + efficiency_text(r) + "\n";
  std::string kinds;
  for (const PlanGpu& g : s.gpus) {
    kinds += (kinds.empty() ? "" : ", ") +
             (std::isnan(g.usd_per_hour) ? g.gpu.key + " (no price; --price " + g.gpu.key + "=X ranks by US$)"
                                         : fmt::format("{} {}/h", g.gpu.key, format_brief(g.usd_per_hour, Unit::kUsd)));
  }
  out += fmt::format("  searched {} configurations in {} s over {} (at most {} GPUs)\n", group_digits(res.searched),
                     fmt_sig(res.seconds, 3), kinds, s.max_gpus);

  if (!res.configs.empty()) {
    out += fmt::format("\nBest configurations, {} ({} of {} feasible):\n", plan_order_text(s),
                       res.configs.size(), res.feasible);
    const char* ranked = r.rank_by_ceiling ? "ceiling" : "predicted";
    const char* beside = r.rank_by_ceiling ? "pred" : "ceil";
    out += fmt::format("  ({} figures; '{} tok/s/GPU' and '{} TPOT' are the {}'s for the same configuration)\n",
                       ranked, beside, beside, r.rank_by_ceiling ? "prediction" : "ceiling");
    // Each row's engine (its GPU vendor's without --engine), as wide as the longest key.
    size_t ew = 6;
    for (const PlanConfig& c : res.configs) ew = std::max(ew, engine_profile(*c.engine).name.size());
    out += fmt::format("  {:>2}  {:<14} {:<{}} {:>4} {:<10} {:<9} {:>5} {:>9} {:>9} {:>9} {:>10} {:>4} {:>9} {:>9} {:>9} "
                       "{:>9} {:>10}\n",
                       "#", "gpu", "engine", ew, "gpus", "split", "w/kv", "batch", "TTFT", "TPOT", "tok/s/u", "tok/s/GPU", "rep",
                       "$/h", rank_cost_head(s), "$/1M in", fmt::format("{} TPOT", beside),
                       fmt::format("{} t/s/GPU", beside));
    for (size_t i = 0; i < res.configs.size(); ++i) {
      const PlanConfig& c = res.configs[i];
      const PlanFigures& o = r.rank_by_ceiling ? c.predicted : c.ceiling;
      const PlanCells t = plan_cells(s, c);
      out += fmt::format("  {:>2}  {:<14} {:<{}} {:>4} {:<10} {:<9} {:>5} {:>9} {:>9} {:>9} {:>10} {:>4} {:>9} {:>9} "
                         "{:>9} {:>9} {:>10}\n",
                         i + 1, c.gpu, engine_profile(*c.engine).name, ew, c.gpus, t.split, t.dtypes, c.batch, t.ttft, t.tpot, t.per_user, t.per_gpu,
                         c.replicas, t.usd_per_hour, t.rank_cost, t.usd_in,
                         c.has_figures ? plan_time_text(o.tpot_s, false) : std::string("-"),
                         c.has_figures ? fmt_fixed(o.tokens_per_s_per_gpu, 0) : std::string("-"));
    }
    out += "\nDeciding constraint (what stops the cheaper neighbour):\n";
    for (size_t i = 0; i < res.configs.size(); ++i) {
      out += fmt::format("  {:>2}  {}\n", i + 1, plan_deciding_text(r, *v.space, res.configs[i]));
    }
  } else if (res.misses.empty() && !res.ceiling_only.empty()) {
    out += "\nNo configuration with a prediction: no engine profile runs on the GPUs searched (below, by the "
           "ceiling alone; --engine names one to predict with).\n";
  } else {
    out += fmt::format("\nNothing meets the targets (binding constraint: {}). Closest misses:\n",
                       res.binding.empty() ? "none evaluated" : res.binding);
    for (const PlanMiss& m : res.misses) {
      const PlanConfig& c = m.config;
      out += fmt::format("  {} {} {}/{} batch {}, {} GPUs: TTFT {}, TPOT {} — {}\n", c.gpu, split_text(c.c),
                         dtype_name(c.c.weight_dtype), dtype_name(c.c.kv_dtype), c.batch, c.gpus,
                         plan_time_text(c.ttft_s, true), plan_time_text(c.tpot_s, false),
                         plan_deciding_text(r, *v.space, c));
      std::string ch;
      for (const PlanChange& x : m.changes) {
        ch += (ch.empty() ? "" : "; or ") + plan_change_text(c.engine->engine(), x);
      }
      if (!ch.empty()) out += "      would need: " + ch + "\n";
    }
    if (res.misses.empty() && !res.first_unsupported.empty()) {
      out += "  the engine refused every combination, e.g. " + res.first_unsupported + "\n";
    }
  }

  const PlanRejected& rj = res.rejected;
  out += fmt::format("\nRejected: {} memory, {} over the engine's step-token budget, {} over its sequence cap, {} "
                     "TTFT, {} TPOT, {} communication, {} over the GPU limit; {} combinations not evaluated (split or "
                     "dtype the engine refuses{})\n",
                     group_digits(rj.memory), group_digits(rj.step_tokens), group_digits(rj.max_num_seqs),
                     group_digits(rj.ttft), group_digits(rj.tpot), group_digits(rj.communication),
                     group_digits(rj.gpus), group_digits(rj.unsupported), engine_rules_text(r, rj));
  if (!rj.no_engine.empty()) {
    std::string keys;
    for (const std::string& k : rj.no_engine) keys += (keys.empty() ? "" : ", ") + k;
    out += "\nNo engine profile runs on " + keys + " (--engine names one to apply anyway): ranked apart by the "
           "ceiling alone, an upper bound no engine reaches, not comparable with the predictions above";
    if (res.ceiling_only.empty()) {
      out += "; none meets the targets\n";
    } else {
      out += ":\n";
      out += fmt::format("  {:>2}  {:<14} {:>4} {:<10} {:<9} {:>5} {:>9} {:>9} {:>9} {:>10} {:>4} {:>9} {:>9} {:>9}\n",
                         "#", "gpu", "gpus", "split", "w/kv", "batch", "TTFT", "TPOT", "tok/s/u", "tok/s/GPU", "rep",
                         "$/h", rank_cost_head(s), "$/1M in");
      for (size_t i = 0; i < res.ceiling_only.size(); ++i) {
        const PlanConfig& c = res.ceiling_only[i];
        const PlanCells t = plan_cells(s, c);
        out += fmt::format("  {:>2}  {:<14} {:>4} {:<10} {:<9} {:>5} {:>9} {:>9} {:>9} {:>10} {:>4} {:>9} {:>9} {:>9}\n",
                           i + 1, c.gpu, c.gpus, t.split, t.dtypes, c.batch, t.ttft, t.tpot, t.per_user, t.per_gpu,
                           c.replicas, t.usd_per_hour, t.rank_cost, t.usd_in);
      }
    }
  }

  if (v.frontier_table) out += frontier_text(v);
  out += "\nServing model: continuous batching in steady state; each step decodes the batch at its mean context "
         "(isl + osl/2) and prefills the replacing requests' prompts beside it (weights read once per step); "
         "TPOT is that step; TTFT adds half a step, an M/D/1 wait for the step's prompt budget and the prompt's "
         "chunk steps (the ceiling's: the prefill alone); the prediction admits a sequence with its last token's "
         "context reserved where the engine does. docs/prediction.md has the details.\n";
  out += assumptions_text(v.assumptions);
  return out;
}

namespace {

const char* plan_change_kind(PlanChangeKind k) {
  switch (k) {
    case PlanChangeKind::kWeightsMemory: return "weights_memory";
    case PlanChangeKind::kBatchMemory: return "batch_memory";
    case PlanChangeKind::kTtftTarget: return "ttft_target";
    case PlanChangeKind::kTpotTarget: return "tpot_target";
    case PlanChangeKind::kGpuLimit: return "gpu_limit";
    case PlanChangeKind::kStepTokens: return "step_tokens";
    case PlanChangeKind::kMaxNumSeqs: return "max_num_seqs";
    case PlanChangeKind::kFp8Weights: return "fp8_weights";
  }
  return "";
}

// One thing that would have to change, as numbers and enums: the kind, its figures, and for a change of
// the setup the flags (`change`) and the engine's figures for them (`after`), null otherwise.
nlohmann::json plan_change_json(Engine e, const PlanChange& x) {
  nlohmann::json j = {{"kind", plan_change_kind(x.kind)}};
  switch (x.kind) {
    case PlanChangeKind::kBatchMemory:
      j["batch"] = x.batch;
      j["holds"] = x.holds;
      break;
    case PlanChangeKind::kStepTokens:
    case PlanChangeKind::kMaxNumSeqs: {
      const bool tokens = x.kind == PlanChangeKind::kStepTokens;
      j["batch"] = x.batch;
      j["holds"] = x.holds;
      j["engine_value"] = x.engine_value;  // per attention group, as the engine's flag takes it
      j["engine_flag"] = tokens ? engine_limit_flags(e).step_tokens : engine_limit_flags(e).max_num_seqs;
      j["modelcalc_flag"] = tokens ? "--max-num-batched-tokens" : "--max-num-seqs";
      break;
    }
    case PlanChangeKind::kTtftTarget: j["ttft_s"] = x.seconds; break;
    case PlanChangeKind::kTpotTarget:
      j["tpot_s"] = x.seconds;
      j["faster_interconnect"] = x.faster_interconnect;
      break;
    case PlanChangeKind::kGpuLimit: j["gpus"] = x.gpus; break;
    case PlanChangeKind::kWeightsMemory:
    case PlanChangeKind::kFp8Weights: break;
  }
  const nlohmann::json v = x.variation ? variation_json(*x.variation) : nlohmann::json();
  j["change"] = v.is_null() ? nlohmann::json() : v["change"];
  j["after"] = v.is_null() ? nlohmann::json() : v["after"];
  return j;
}

}  // namespace

namespace {

nlohmann::json frontier_point_json(const PlanView& v, const PlanFrontierPoint& f) {
  nlohmann::json j = {{"gpu", f.gpu},
                      {"engine", f.ceiling ? nlohmann::json() : nlohmann::json(frontier_engine(*v.request, *v.space, f))},
                      {"split", frontier_split(f)},
                      {"disaggregated", f.disaggregated},
                      {"tp", f.c.tp},
                      {"pp", f.c.pp},
                      {"ep", f.c.ep},
                      {"attn_dp", f.c.attn_dp},
                      {"dp_attention", f.c.attn_dp > 1},
                      {"mtp", f.mtp},
                      {"gpus_per_replica", f.c.gpus_per_replica()},
                      {"weight_dtype", std::string(dtype_name(f.c.weight_dtype))},
                      {"kv_dtype", std::string(dtype_name(f.c.kv_dtype))},
                      {"batch", f.batch},
                      // Sequences in flight per replica: the batch, or under a concurrency load each replica's share.
                      {"concurrency", v.request->load_kind == PlanLoadKind::kConcurrency
                                          ? plan_users_per_replica(*v.request, f.batch)
                                          : static_cast<double>(f.batch)},
                      {"ttft_s", num(f.ttft_s)},
                      {"tpot_s", num(f.tpot_s)},
                      {"tokens_per_s_per_user", num(f.tokens_per_s_per_user)},
                      {"tokens_per_s_per_gpu", num(f.tokens_per_s_per_gpu)},
                      {"usd_per_million_output_tokens", num(f.usd_per_million_output)},
                      {"gpu_hours_per_million_output_tokens", num(f.gpu_hours_per_million_output)},
                      {"output_tokens_per_s_per_mw", num(f.tokens_per_s_per_mw)}};
  explain_nulls(j);
  if (f.disaggregated) {  // tp, pp, ep, attn_dp, batch above are the decode pool's
    j["prefill"] = {{"split", split_text(f.prefill)}, {"tp", f.prefill.tp}, {"ep", f.prefill.ep},
                    {"attn_dp", f.prefill.attn_dp}, {"replicas", f.prefill_replicas}};
    j["decode_replicas"] = f.decode_replicas;
  }
  if (std::isnan(f.usd_per_million_output)) {
    j["usd_per_million_output_tokens_reason"] = "the GPU has no catalog price (--price GPU=X gives one)";
  }
  if (j["output_tokens_per_s_per_mw"].is_null()) {
    j["output_tokens_per_s_per_mw_reason"] = "the catalog states no TDP for " + f.gpu;
  }
  return j;
}

// frontier.{predicted, ceiling}[] and, with --compare, measured[] and the errors.
nlohmann::json frontier_json(const PlanView& v) {
  nlohmann::json predicted = nlohmann::json::array(), ceiling = nlohmann::json::array();
  for (const PlanFrontierPoint& f : v.result->frontier) {
    (f.ceiling ? ceiling : predicted).push_back(frontier_point_json(v, f));
  }
  nlohmann::json j = {{"predicted", predicted}, {"ceiling", ceiling}};
  if (!v.frontier_mtp_note.empty()) j["mtp_note"] = v.frontier_mtp_note;
  if (!v.frontier_disaggregated_note.empty()) j["disaggregated_note"] = v.frontier_disaggregated_note;
  if (v.comparison) {
    const FrontierComparison& c = *v.comparison;
    nlohmann::json measured = nlohmann::json::array(), errors = nlohmann::json::array();
    for (const MeasuredFrontierPoint& m : c.points) measured.push_back(measured_point_json(m));
    for (const FrontierError& e : c.errors) errors.push_back(frontier_error_json(e));
    j["measured"] = measured;
    j["comparison"] = {{"rows", c.rows},
                       {"matched_rows", c.matched_rows},
                       {"skipped_rows", c.skipped_rows},
                       {"first_skip", c.first_skip.empty() ? nlohmann::json() : nlohmann::json(c.first_skip)},
                       {"by_gpu_engine", errors},
                       {"overall", frontier_error_json(c.overall)}};
  }
  return j;
}

}  // namespace

nlohmann::json plan_json(const PlanView& v) {
  const PlanRequest& r = *v.request;
  const PlanSpace& s = *v.space;
  const PlanResult& res = *v.result;
  nlohmann::json j;
  j["model"] = v.model;
  j["workload"] = {{"isl", r.isl}, {"osl", r.osl}, {"length_dist", r.uniform_lengths ? "uniform-0.8" : "fixed"},
                   {"load_kind", load_key(r.load_kind)},
                   {"load", r.load_kind == PlanLoadKind::kNone ? nlohmann::json() : nlohmann::json(r.load)}};
  j["targets"] = {{"ttft_s", r.ttft_s ? nlohmann::json(*r.ttft_s) : nlohmann::json()},
                  {"tpot_s", r.tpot_s ? nlohmann::json(*r.tpot_s) : nlohmann::json()}};
  j["layout_options"] = layout_options_json(r);
  j["efficiency"] = r.efficiency;
  j["efficiency_note"] = efficiency_text(r);
  j["rank_by"] = r.rank_by_ceiling ? "ceiling" : "predicted";
  j["rank_cost"] = s.rank_by_gpu_hours ? "gpu_hours_per_million_output_tokens" : "usd_per_million_output_tokens";
  j["rank_order"] = plan_order_text(s);
  j["engine"] = plan_engine_json(r, res.rejected);
  nlohmann::json prices = nlohmann::json::array();
  for (const PlanGpu& g : s.gpus) {
    prices.push_back({{"gpu", g.gpu.key}, {"usd_per_hour", num(g.usd_per_hour)}, {"source", g.price_source},
                      {"domain_gpus", g.domain_gpus}});
  }
  j["prices"] = prices;
  j["max_gpus"] = s.max_gpus;
  nlohmann::json configs = nlohmann::json::array();
  for (const PlanConfig& c : res.configs) configs.push_back(config_json(v, c));
  j["configs"] = configs;
  j["feasible"] = res.feasible;
  j["frontier"] = frontier_json(v);
  j["searched"] = res.searched;
  j["rejected"] = {{"memory", res.rejected.memory},
                   {"max_num_batched_tokens", res.rejected.step_tokens},
                   {"max_num_seqs", res.rejected.max_num_seqs},
                   {"ttft", res.rejected.ttft},
                   {"tpot", res.rejected.tpot},       {"communication", res.rejected.communication},
                   {"gpus", res.rejected.gpus},       {"unsupported", res.rejected.unsupported}};
  nlohmann::json by_rule = nlohmann::json::object();
  for (const auto& [name, count] : res.rejected.by_engine_rule) by_rule[name] = count;
  j["rejected"]["engine_rules"] = by_rule;
  nlohmann::json misses = nlohmann::json::array();
  for (const PlanMiss& m : res.misses) {
    nlohmann::json mj = config_json(v, m.config);
    nlohmann::json changes = nlohmann::json::array();
    for (const PlanChange& x : m.changes) changes.push_back(plan_change_json(m.config.engine->engine(), x));
    mj["changes"] = changes;
    misses.push_back(mj);
  }
  j["misses"] = misses;
  // The GPUs no engine profile runs on, ranked by the ceiling alone (no `predicted`, no engine).
  nlohmann::json apart = nlohmann::json::array();
  for (const PlanConfig& c : res.ceiling_only) {
    apart.push_back(config_json(v, c));
  }
  j["ceiling_only"] = apart;
  j["binding"] = res.binding.empty() ? nlohmann::json() : nlohmann::json(res.binding);
  j["seconds"] = res.seconds;
  j["assumptions"] = v.assumptions;
  return j;
}

Report build_plan_explain(const PlanView& v) {
  const PlanRequest& r = *v.request;
  const PlanSpace& s = *v.space;
  const PlanConfig& c = v.result->configs.front();
  const double price = s.gpus[c.c.gpu].usd_per_hour;
  Report rep;
  rep.title = fmt::format("Plan: {} — the chosen configuration, {} {} {}/{} batch {}", v.model, c.gpu,
                          split_text(c.c), dtype_name(c.c.weight_dtype), dtype_name(c.c.kv_dtype), c.batch);
  const double eff = r.efficiency;
  const bool steady = c.has_figures;  // the serving model's steady state (else a stand-in's cycle)
  const double cycle = static_cast<double>(r.osl) * c.tpot_s + static_cast<double>(c.batch) * c.ttft_s;
  Section t{steady ? std::string("Times (the serving model's step and TTFT at the batch, as `size --seq isl+osl "
                                 "--prompt isl` reports them; ") + (r.rank_by_ceiling ? "the ceiling" : "predicted") + ")"
                   : std::string("Times (the evaluator's prefill and step)"),
            {}, {}};
  t.lines.push_back(computed("ttft_s", "TTFT", c.ttft_s, Unit::kSeconds, pfx::kEffTime,
                             {term("t_engine", fmt_sig(c.ttft_s * eff, 6) + " s"), term("efficiency", eff)}));
  t.lines.push_back(computed("tpot_s", "TPOT", c.tpot_s, Unit::kSeconds, pfx::kEffTime,
                             {term("t_engine", fmt_sig(c.tpot_s * eff, 6) + " s"), term("efficiency", eff)}));
  if (!steady) {
    t.lines.push_back(computed("cycle_s", "time for a replica to finish B requests", cycle, Unit::kSeconds, pfx::kCycle,
                               {term("osl", r.osl), term("TPOT", fmt_sig(c.tpot_s, 6) + " s"), term("B", c.batch),
                                term("TTFT", fmt_sig(c.ttft_s, 6) + " s")}));
  }
  t.notes.push_back(efficiency_text(r));
  rep.sections.push_back(std::move(t));

  Section th{"Throughput", {}, {}};
  th.lines.push_back(computed("tokens_per_s_per_user", "tokens/s per user", c.tokens_per_s_per_user,
                              Unit::kTokensPerS, pfx::kPerUser, {term("TPOT", fmt_sig(c.tpot_s, 6) + " s")}));
  if (steady) {
    th.lines.push_back(computed("tokens_per_s_per_replica", "output tokens/s per replica", c.tokens_per_s_per_replica,
                                Unit::kTokensPerS, pfx::kPerReplicaSteady,
                                {term("B", c.batch), term("TPOT", fmt_sig(c.tpot_s, 6) + " s")},
                                "(prompts prefilled inside the steps)"));
  } else {
    th.lines.push_back(computed("tokens_per_s_per_replica", "output tokens/s per replica", c.tokens_per_s_per_replica,
                                Unit::kTokensPerS, pfx::kPerReplica,
                                {term("B", c.batch), term("osl", r.osl), term("cycle", fmt_sig(cycle, 6) + " s")}));
  }
  th.lines.push_back(computed("tokens_per_s_per_gpu", "output tokens/s per GPU", c.tokens_per_s_per_gpu,
                              Unit::kTokensPerS, pfx::kPerGpu,
                              {term("tokens_per_s_per_replica", fmt_sig(c.tokens_per_s_per_replica, 6)),
                               term("tp", c.c.tp), term("pp", c.c.pp), term("attn_dp", c.c.attn_dp)}));
  rep.sections.push_back(std::move(th));

  Section co{"Replicas and cost", {}, {}};
  switch (r.load_kind) {
    case PlanLoadKind::kNone:
      co.lines.push_back(given("replicas", "replicas", c.replicas, Unit::kNone, "no load given"));
      break;
    case PlanLoadKind::kRequestsPerS:
      if (steady) {
        co.lines.push_back(computed("replicas", "replicas", c.replicas, Unit::kNone, pfx::kReplicasQpsSteady,
                                    {term("qps", r.load), term("osl", r.osl),
                                     term("tokens_per_s_per_replica", fmt_sig(c.tokens_per_s_per_replica, 6))}));
      } else {
        co.lines.push_back(computed("replicas", "replicas", c.replicas, Unit::kNone, pfx::kReplicasQps,
                                    {term("qps", r.load), term("B", c.batch), term("cycle", fmt_sig(cycle, 6) + " s")}));
      }
      break;
    case PlanLoadKind::kOutputTokensPerS:
      co.lines.push_back(computed("replicas", "replicas", c.replicas, Unit::kNone, pfx::kReplicasRate,
                                  {term("rate", r.load),
                                   term("tokens_per_s_per_replica", fmt_sig(c.tokens_per_s_per_replica, 6))}));
      break;
    case PlanLoadKind::kConcurrency:
      co.lines.push_back(computed("replicas", "replicas", c.replicas, Unit::kNone, pfx::kReplicasConc,
                                  {term("concurrency", r.load), term("B", c.batch)}));
      break;
  }
  co.lines.push_back(computed("gpus", "GPUs", c.gpus, Unit::kNone, pfx::kGpus,
                              {term("tp", c.c.tp), term("pp", c.c.pp), term("attn_dp", c.c.attn_dp),
                               term("replicas", c.replicas)}));
  const Term served = term("served", fmt_sig(c.served_output_tokens_per_s, 6));
  if (s.rank_by_gpu_hours) {
    co.lines.push_back(computed("gpu_hours_per_million_output_tokens", "GPU-hours per 1M output tokens",
                                c.gpu_hours_per_million_output, Unit::kNone, pfx::kGpuHoursOut,
                                {term("gpus", c.gpus), served}, "ranked by: " + plan_order_text(s)));
  }
  if (std::isnan(price)) {
    co.notes.push_back(c.gpu + " has no catalog price: no US$ figure (--price " + c.gpu + "=X gives one)");
  } else {
  co.lines.push_back(computed("usd_per_hour", "US$ per hour", c.usd_per_hour, Unit::kUsd, pfx::kUsdHour,
                              {term("gpus", c.gpus), term("price", fmt_sig(price, 6))},
                              "price: " + s.gpus[c.c.gpu].price_source));
  co.lines.push_back(computed("usd_per_million_output_tokens", "US$ per 1M output tokens", c.usd_per_million_output,
                              Unit::kUsd, pfx::kUsdOut,
                              {term("usd_per_hour", fmt_sig(c.usd_per_hour, 6)), served},
                              r.load_kind == PlanLoadKind::kNone ? "served = the replicas' capacity"
                                                                 : "served = the load, in output tokens/s"));
  if (steady) {
    co.lines.push_back(computed("usd_per_million_input_tokens", "US$ per 1M input tokens", c.usd_per_million_input,
                                Unit::kUsd, pfx::kUsdInShare,
                                {term("usd_per_hour", fmt_sig(c.usd_per_hour, 6)), term("share", c.prefill_share),
                                 served, term("isl", r.isl), term("osl", r.osl)},
                                "share = the prompt tokens' share of each step's tokens"));
  } else {
    co.lines.push_back(computed("usd_per_million_input_tokens", "US$ per 1M input tokens", c.usd_per_million_input,
                                Unit::kUsd, pfx::kUsdIn,
                                {term("usd_per_hour", fmt_sig(c.usd_per_hour, 6)), term("B", c.batch),
                                 term("TTFT", fmt_sig(c.ttft_s, 6)), term("cycle", fmt_sig(cycle, 6)), served,
                                 term("isl", r.isl), term("osl", r.osl)}));
  }
  co.lines.push_back(computed("usd_per_million_blended_tokens", "US$ per 1M tokens, input and output",
                              c.usd_per_million_blended, Unit::kUsd, pfx::kUsdBlend,
                              {term("usd_per_hour", fmt_sig(c.usd_per_hour, 6)), served, term("isl", r.isl),
                               term("osl", r.osl)}));
  }
  co.notes.push_back("deciding: " + plan_deciding_text(r, *v.space, c));
  rep.sections.push_back(std::move(co));
  return rep;
}

std::string plan_frontier_svg(const PlanView& v) {
  const PlanResult& res = *v.result;
  constexpr double kW = 820, kH = 540, kL = 90, kT = 60, kPW = 560, kPH = 380;
  SvgWriter svg(kW, kH);
  svg.title("Frontier: tokens/s per user vs tokens/s per GPU, " + v.model);
  const char* font = "DejaVu Sans, Helvetica, Arial, sans-serif";
  // Every point drawn: both curves and, with --compare, the measured runs.
  std::vector<std::pair<double, double>> all;
  for (const PlanFrontierPoint& f : res.frontier) all.emplace_back(f.tokens_per_s_per_user, f.tokens_per_s_per_gpu);
  if (v.comparison) {
    for (const MeasuredFrontierPoint& m : v.comparison->points) {
      all.emplace_back(m.measured_tokens_per_s_per_user, m.measured_tokens_per_s_per_gpu);
    }
  }
  double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
  for (const auto& [x, y] : all) {
    if (!(x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y))) continue;
    x_lo = std::min(x_lo, x);
    x_hi = std::max(x_hi, x);
    y_lo = std::min(y_lo, y);
    y_hi = std::max(y_hi, y);
  }
  svg.text(kL, 28, "Frontier: " + v.model + " (input " + group_digits(v.request->isl) + ", output " +
                       group_digits(v.request->osl) + " tokens)",
           {{"font-family", font}, {"font-size", "15"}, {"font-weight", "bold"}});
  svg.text(kL, 46, efficiency_text(*v.request) + "; solid: the prediction, dashed: the ceiling" +
                       (v.comparison ? ", rings: published runs" : ""),
           {{"font-family", font}, {"font-size", "11"}});
  svg.rect(kL, kT, kPW, kPH, {{"fill", "none"}, {"stroke", "#444"}});
  if (x_hi == 0) {
    svg.text(kL + 20, kT + 40, "no configuration fits in memory", {{"font-family", font}, {"font-size", "13"}});
    return svg.document();
  }
  const double lx0 = std::floor(std::log10(x_lo)), lx1 = std::max(lx0 + 1, std::ceil(std::log10(x_hi)));
  const double ly0 = std::floor(std::log10(y_lo)), ly1 = std::max(ly0 + 1, std::ceil(std::log10(y_hi)));
  auto px = [&](double x) { return kL + kPW * (std::log10(x) - lx0) / (lx1 - lx0); };
  auto py = [&](double y) { return kT + kPH * (1 - (std::log10(y) - ly0) / (ly1 - ly0)); };
  for (double d = lx0; d <= lx1; d += 1) {
    const double x = kL + kPW * (d - lx0) / (lx1 - lx0);
    svg.line(x, kT, x, kT + kPH, {{"stroke", "#ddd"}});
    svg.text(x, kT + kPH + 18, fmt_sig(std::pow(10.0, d), 3),
             {{"font-family", font}, {"font-size", "11"}, {"text-anchor", "middle"}});
  }
  for (double d = ly0; d <= ly1; d += 1) {
    const double y = kT + kPH * (1 - (d - ly0) / (ly1 - ly0));
    svg.line(kL, y, kL + kPW, y, {{"stroke", "#ddd"}});
    svg.text(kL - 6, y + 4, fmt_sig(std::pow(10.0, d), 3),
             {{"font-family", font}, {"font-size", "11"}, {"text-anchor", "end"}});
  }
  svg.text(kL + kPW / 2, kT + kPH + 40, "output tokens/s per user (1 / TPOT)",
           {{"font-family", font}, {"font-size", "12"}, {"text-anchor", "middle"}});
  svg.text(20, kT + kPH / 2, "output tokens/s per GPU",
           {{"font-family", font}, {"font-size", "12"}, {"text-anchor", "middle"},
            {"transform", fmt::format("rotate(-90 20 {})", svg_num(kT + kPH / 2))}});
  static constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                             "#ff7f0e", "#8c564b", "#17becf", "#e377c2"};
  // One colour per GPU; per GPU a solid predicted curve and a dashed ceiling curve.
  std::vector<std::string> order;
  std::map<std::pair<std::string, bool>, std::vector<std::pair<double, double>>> lines;
  for (const PlanFrontierPoint& f : res.frontier) {
    if (!(f.tokens_per_s_per_user > 0 && f.tokens_per_s_per_gpu > 0)) continue;
    if (std::find(order.begin(), order.end(), f.gpu) == order.end()) order.push_back(f.gpu);
    lines[{f.gpu, f.ceiling}].emplace_back(px(f.tokens_per_s_per_user), py(f.tokens_per_s_per_gpu));
  }
  if (v.comparison) {
    for (const MeasuredFrontierPoint& m : v.comparison->points) {
      if (std::find(order.begin(), order.end(), m.gpu) == order.end()) order.push_back(m.gpu);
    }
  }
  auto color_of = [&](const std::string& gpu) {
    const size_t i = static_cast<size_t>(std::find(order.begin(), order.end(), gpu) - order.begin());
    return kPalette[i % std::size(kPalette)];
  };
  for (const auto& [key, pts] : lines) {
    const char* color = color_of(key.first);
    std::vector<std::pair<std::string, std::string>> style = {{"fill", "none"}, {"stroke", color},
                                                              {"stroke-width", key.second ? "1.5" : "2"}};
    if (key.second) style.emplace_back("stroke-dasharray", "6 4");
    svg.poly(pts, false, style);
    if (!key.second) {
      for (const auto& [x, y] : pts) svg.circle(x, y, 3, {{"fill", color}});
    }
  }
  if (v.comparison) {
    for (const MeasuredFrontierPoint& m : v.comparison->points) {
      const double x = m.measured_tokens_per_s_per_user, y = m.measured_tokens_per_s_per_gpu;
      if (!(x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y))) continue;
      svg.circle(px(x), py(y), 4.5, {{"fill", "none"}, {"stroke", color_of(m.gpu)}, {"stroke-width", "1.5"}});
    }
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const char* color = kPalette[i % std::size(kPalette)];
    const double ly = kT + 16 + 18 * static_cast<double>(i);
    svg.line(kL + kPW + 12, ly - 4, kL + kPW + 32, ly - 4, {{"stroke", color}, {"stroke-width", "2"}});
    svg.text(kL + kPW + 36, ly, order[i], {{"font-family", font}, {"font-size", "12"}});
  }
  const double ky = kT + 16 + 18 * static_cast<double>(order.size()) + 10;
  svg.line(kL + kPW + 12, ky - 4, kL + kPW + 32, ky - 4, {{"stroke", "#444"}, {"stroke-width", "2"}});
  svg.text(kL + kPW + 36, ky, "predicted", {{"font-family", font}, {"font-size", "12"}});
  svg.line(kL + kPW + 12, ky + 14, kL + kPW + 32, ky + 14,
           {{"stroke", "#444"}, {"stroke-width", "1.5"}, {"stroke-dasharray", "6 4"}});
  svg.text(kL + kPW + 36, ky + 18, "ceiling", {{"font-family", font}, {"font-size", "12"}});
  if (v.comparison) {
    svg.circle(kL + kPW + 22, ky + 32, 4.5, {{"fill", "none"}, {"stroke", "#444"}, {"stroke-width", "1.5"}});
    svg.text(kL + kPW + 36, ky + 36, "measured", {{"font-family", font}, {"font-size", "12"}});
  }
  return svg.document();
}


namespace {

nlohmann::json pool_json(const PlanPool& p, bool prefill) {
  nlohmann::json j = {{"gpu", p.gpu},
                      {"engine", release_json(p.engine)},
                      {"tp", p.c.tp},
                      {"pp", p.c.pp},
                      {"ep", p.c.ep},
                      {"dp_attention", p.c.attn_dp > 1},
                      {"attn_dp", p.c.attn_dp},
                      {"gpus_per_replica", p.c.gpus_per_replica()},
                      {"replicas", p.replicas},
                      {"gpus", p.gpus},
                      {"weight_dtype", std::string(dtype_name(p.c.weight_dtype))},
                      {"kv_dtype", std::string(dtype_name(p.c.kv_dtype))},
                      {"requests_per_s_per_replica", num(p.requests_per_s_per_replica)},
                      {"usd_per_hour", num(p.usd_per_hour)},
                      {"split", split_text(p.c)}};
  if (prefill) {
    j["prompts_per_step"] = p.batch;
    j["ttft_s"] = num(p.ttft_s);
    j["input_tokens_per_s_per_gpu"] = num(p.tokens_per_s_per_gpu);
  } else {
    j["batch"] = p.batch;
    j["tpot_s"] = num(p.tpot_s);
    j["output_tokens_per_s_per_gpu"] = num(p.tokens_per_s_per_gpu);
  }
  explain_nulls(j);
  return j;
}

std::string pool_text(const PlanPool& p) {
  return fmt::format("{} × {} {} {}/{}", p.replicas, p.gpu, split_text(p.c), dtype_name(p.c.weight_dtype),
                     dtype_name(p.c.kv_dtype));
}

}  // namespace

nlohmann::json disagg_plan_json(const DisaggPlanView& v) {
  const PlanRequest& r = *v.request;
  const DisaggPlanResult& res = *v.result;
  nlohmann::json j;
  j["model"] = v.model;
  j["disaggregated"] = true;
  j["workload"] = {{"isl", r.isl}, {"osl", r.osl}, {"length_dist", r.uniform_lengths ? "uniform-0.8" : "fixed"},
                   {"load_kind", load_key(r.load_kind)},
                   {"load", r.load_kind == PlanLoadKind::kNone ? nlohmann::json() : nlohmann::json(r.load)}};
  j["targets"] = {{"ttft_s", r.ttft_s ? nlohmann::json(*r.ttft_s) : nlohmann::json()},
                  {"tpot_s", r.tpot_s ? nlohmann::json(*r.tpot_s) : nlohmann::json()}};
  j["rank_by"] = r.rank_by_ceiling ? "ceiling" : "predicted";
  j["rank_cost"] =
      v.space->rank_by_gpu_hours ? "gpu_hours_per_million_output_tokens" : "usd_per_million_output_tokens";
  j["rank_order"] = plan_order_text(*v.space);
  j["engine"] = plan_engine_json(r, res.aggregated.rejected);
  j["kv_transfer_overlap"] = r.kv_transfer_overlap;
  j["layout_options"] = layout_options_json(r);
  nlohmann::json configs = nlohmann::json::array();
  for (const DisaggPlanConfig& c : res.configs) {
    configs.push_back({{"prefill_pool", pool_json(c.prefill, true)},
                       {"decode_pool", pool_json(c.decode, false)},
                       {"ratio", fmt::format("{}P{}D", c.prefill.replicas, c.decode.replicas)},
                       {"kv_transfer",
                        {{"bytes_per_request", num(c.kv_bytes_per_request)},
                         {"seconds", num(c.kv_transfer_s)},
                         {"ttft_seconds", num(c.kv_transfer_ttft_s)},
                         {"overlapped", c.kv_transfer_overlapped}}},
                       {"ttft_s", num(c.ttft_s)},
                       {"tpot_s", num(c.tpot_s)},
                       {"tokens_per_s_per_user", num(1 / c.tpot_s)},
                       {"ceiling", {{"ttft_s", num(c.ceiling_ttft_s)}, {"tpot_s", num(c.ceiling_tpot_s)}}},
                       {"served_requests_per_s", num(c.served_requests_per_s)},
                       {"served_output_tokens_per_s", num(c.served_output_tokens_per_s)},
                       {"gpus", c.gpus},
                       {"usd_per_hour", num(c.usd_per_hour)},
                       {"usd_per_million_output_tokens", num(c.usd_per_million_output)},
                       {"usd_per_million_input_tokens", num(c.usd_per_million_input)},
                       {"usd_per_million_blended_tokens", num(c.usd_per_million_blended)},
                       {"gpu_hours_per_million_output_tokens", num(c.gpu_hours_per_million_output)}});
    nlohmann::json& cj = configs.back();
    for (nlohmann::json* o : {&cj, &cj["kv_transfer"], &cj["ceiling"]}) explain_nulls(*o);
  }
  j["configs"] = configs;
  const PlanView agg{v.model, v.request, v.space, &res.aggregated, false, {}, nullptr, {}};
  j["aggregated"] = res.aggregated.configs.empty() ? nlohmann::json() : config_json(agg, res.aggregated.configs[0]);
  nlohmann::json cmp;
  cmp["disaggregated_usd_per_million_output_tokens"] =
      res.configs.empty() ? nlohmann::json() : num(res.configs[0].usd_per_million_output);
  cmp["aggregated_usd_per_million_output_tokens"] =
      res.aggregated.configs.empty() ? nlohmann::json() : num(res.aggregated.configs[0].usd_per_million_output);
  cmp["disaggregated_gpu_hours_per_million_output_tokens"] =
      res.configs.empty() ? nlohmann::json() : num(res.configs[0].gpu_hours_per_million_output);
  cmp["aggregated_gpu_hours_per_million_output_tokens"] =
      res.aggregated.configs.empty() ? nlohmann::json() : num(res.aggregated.configs[0].gpu_hours_per_million_output);
  for (const char* side : {"disaggregated", "aggregated"}) {
    const bool none = std::string_view(side) == "disaggregated" ? res.configs.empty() : res.aggregated.configs.empty();
    for (const char* what : {"_usd_per_million_output_tokens", "_gpu_hours_per_million_output_tokens"}) {
      const std::string k = std::string(side) + what;
      if (!cmp[k].is_null()) continue;
      cmp[k + "_reason"] = none ? "no configuration meets the targets"
                         : std::string_view(what).starts_with("_usd") ? "a GPU of it has no catalog price (--price GPU=X)"
                                                                       : "no tokens served";
    }
  }
  cmp["winner"] = res.configs.empty() && res.aggregated.configs.empty() ? "none"
                  : res.configs.empty()                                  ? "aggregated"
                  : res.aggregated.configs.empty()                       ? "disaggregated"
                  : res.configs[0].rank_cost < res.aggregated.configs[0].rank_cost
                      ? "disaggregated"
                      : "aggregated";
  j["comparison"] = cmp;
  j["prefill_options"] = res.prefill_options;
  j["decode_options"] = res.decode_options;
  j["searched"] = res.searched;
  j["seconds"] = res.seconds;
  j["binding"] = res.binding.empty() ? nlohmann::json() : nlohmann::json(res.binding);
  j["assumptions"] = v.assumptions;
  return j;
}

std::string render_disagg_plan_text(const DisaggPlanView& v) {
  const PlanRequest& r = *v.request;
  const DisaggPlanResult& res = *v.result;
  std::string t = fmt::format("Plan (disaggregated): {} — input {} tokens, output {} tokens\n", v.model,
                              group_digits(r.isl), group_digits(r.osl));
  if (r.uniform_lengths) t += "  lengths: uniform in [0.8 L, L] (InferenceX's), served at their means, the tokens above\n";
  t += "  load: " + load_text(r) + "\n";
  t += "  targets: TTFT " + (r.ttft_s ? "≤ " + format_brief(*r.ttft_s, Unit::kSeconds) : std::string("none")) +
       ", TPOT " + (r.tpot_s ? "≤ " + format_brief(*r.tpot_s, Unit::kSeconds) : std::string("none")) + "\n";
  t += layout_options_text(r);
  t += "  " + ranking_text(r) + "\n";
  t += fmt::format("  {} prefill and {} decode pool options meet their own targets; {} evaluations in {} s\n\n",
                   res.prefill_options, res.decode_options, group_digits(res.searched), fmt_sig(res.seconds, 3));
  if (res.configs.empty()) {
    t += "No prefill and decode pools meet every target" +
         (res.binding.empty() ? std::string(".") : " (binding: " + res.binding + ").") + "\n";
  } else {
    t += "Best disaggregated deployments, " + plan_order_text(*v.space) + ":\n";
    t += fmt::format("  {:>2}  {:<34} {:<38} {:>6} {:>9} {:>9} {:>10} {:>9}\n", "#", "prefill pool", "decode pool (batch)",
                     "xPyD", "TTFT", "TPOT", "$/h", rank_cost_head(*v.space));
    for (size_t i = 0; i < res.configs.size(); ++i) {
      const DisaggPlanConfig& c = res.configs[i];
      t += fmt::format("  {:>2}  {:<34} {:<38} {:>6} {:>9} {:>9} {:>10} {:>9}\n", i + 1, pool_text(c.prefill),
                       pool_text(c.decode) + fmt::format(" ({})", c.decode.batch),
                       fmt::format("{}P{}D", c.prefill.replicas, c.decode.replicas),
                       plan_time_text(c.ttft_s, true), plan_time_text(c.tpot_s, false),
                       plan_usd_text(c.usd_per_hour),
                       rank_cost_cell(*v.space, c.usd_per_million_output, c.gpu_hours_per_million_output));
    }
    const DisaggPlanConfig& b = res.configs[0];
    t += fmt::format("\n  #1: the prompt's KV, {} per request, crosses the NICs in {} ({}; TTFT += {}); the "
                     "prefill pool's TTFT {} at its share of the load.\n",
                     format_brief(b.kv_bytes_per_request, Unit::kBytes), plan_time_text(b.kv_transfer_s, false),
                     b.kv_transfer_overlapped ? "streamed behind the prefill" : "after the prefill, not overlapped",
                     plan_time_text(b.kv_transfer_ttft_s, true), plan_time_text(b.prefill.ttft_s, true));
  }
  t += "\nBest aggregated plan (both phases on every replica), for comparison:\n";
  if (res.aggregated.configs.empty()) {
    t += "  none meets the targets\n";
  } else {
    const PlanConfig& a = res.aggregated.configs[0];
    t += fmt::format("  {} × {} {} {}/{} batch {}: TTFT {}, TPOT {}, {} GPUs, {}, {}/1M output tokens\n", a.replicas,
                     a.gpu, split_text(a.c), dtype_name(a.c.weight_dtype), dtype_name(a.c.kv_dtype), a.batch,
                     plan_time_text(a.ttft_s, true), plan_time_text(a.tpot_s, false), a.gpus,
                     std::isnan(a.usd_per_hour) ? std::string("no price") : plan_usd_text(a.usd_per_hour) + "/h",
                     plan_cost_text(*v.space, a.usd_per_million_output, a.gpu_hours_per_million_output));
    if (!res.configs.empty()) {
      const double ratio = res.configs[0].rank_cost / a.rank_cost;
      t += fmt::format("  disaggregated / aggregated {} per 1M output tokens: {}\n",
                       v.space->rank_by_gpu_hours ? "GPU-hours" : "cost", fmt_sig(ratio, 3));
    }
  }
  t += "\nThe prefill pool runs steps of prompts only (the engine's step budget; the ceiling: as many prompts as "
       "its memory holds), the decode pool steps of decoding sequences only (their KV arrives over the NICs); "
       "docs/serving-layouts.md states the model.\n";
  t += assumptions_text(v.assumptions);
  return t;
}

}  // namespace modelcalc
