#include "modelcalc/frontier.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "modelcalc/engine_profile.h"
#include "modelcalc/dtype.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"

namespace modelcalc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// What makes two rows one run: every column but the id, the metric and its value.
std::string run_key(const ServingRow& r) {
  std::string k;
  auto add = [&](const std::string& v) {
    k += v;
    k += '\t';
  };
  for (const std::string* v : {&r.model, &r.checkpoint, &r.gpu, &r.weight_dtype, &r.kv_dtype, &r.load_text, &r.engine,
                               &r.engine_version, &r.source, &r.spec}) {
    add(*v);
  }
  for (int64_t v : {r.gpus, r.tp, r.pp, r.ep, r.isl, r.osl, r.spec_tokens, r.prefill.workers, r.prefill.tp,
                    r.prefill.ep, r.prefill.gpus, r.decode.workers, r.decode.tp, r.decode.ep, r.decode.gpus,
                    r.max_num_seqs, r.max_num_batched_tokens, r.scheduler_poll_steps}) {
    add(std::to_string(v));
  }
  add(std::to_string(static_cast<int>(r.layout)) + "," + std::to_string(r.dp_attention) + "," +
      std::to_string(r.prefill_dp_attention) + "," + std::to_string(static_cast<int>(r.length_dist)) + "," +
      std::to_string(r.memory_fraction));
  return k;
}

std::string split_words(int64_t tp, int64_t pp, int64_t ep, int dp_attention) {
  std::string s = "TP" + std::to_string(tp);
  if (pp > 1) s += "·PP" + std::to_string(pp);
  if (ep > 1) s += "·EP" + std::to_string(ep);
  if (dp_attention == 1) s += " DPA";
  return s;
}

std::string layout_words(const ServingRow& r) {
  std::string s;
  if (r.layout == MeasuredLayout::kDisaggregated) {
    const int pdpa = r.prefill_dp_attention >= 0 ? r.prefill_dp_attention : r.dp_attention;
    s = std::to_string(r.prefill.workers) + "P×" + split_words(r.prefill.tp, 1, r.prefill.ep, pdpa) + " / " +
        std::to_string(r.decode.workers) + "D×" + split_words(r.decode.tp, 1, r.decode.ep, r.dp_attention);
  } else {
    s = split_words(r.tp, r.pp, r.ep, r.dp_attention);
  }
  if (r.spec == "mtp") s += " +MTP";
  return s;
}

double median_abs(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  if (v.empty()) return kNaN;
  for (double& x : v) x = std::fabs(x);
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double rel_error(double predicted, double measured) {
  return std::isfinite(predicted) && measured > 0 ? predicted / measured - 1 : kNaN;
}

}  // namespace

FrontierError frontier_error(std::string gpu, std::string engine, std::span<const MeasuredFrontierPoint* const> pts) {
  std::vector<double> g, u, f;
  int64_t compared = 0;
  for (const MeasuredFrontierPoint* p : pts) {
    g.push_back(rel_error(p->predicted_tokens_per_s_per_gpu, p->measured_tokens_per_s_per_gpu));
    u.push_back(rel_error(p->predicted_tokens_per_s_per_user, p->measured_tokens_per_s_per_user));
    f.push_back(rel_error(p->frontier_tokens_per_s_per_gpu, p->measured_tokens_per_s_per_gpu));
    if (std::isfinite(p->frontier_tokens_per_s_per_gpu)) ++compared;
  }
  return {std::move(gpu), std::move(engine), static_cast<int64_t>(pts.size()), median_abs(g), median_abs(u),
          median_abs(f), compared};
}

namespace {

// Marks the runs no other run of the same GPU, engine family and weight dtype beats on both axes.
void mark_published_frontier(std::vector<MeasuredFrontierPoint>* points) {
  for (MeasuredFrontierPoint& a : *points) {
    const double au = a.measured_tokens_per_s_per_user, ag = a.measured_tokens_per_s_per_gpu;
    if (!std::isfinite(au) || !std::isfinite(ag)) continue;
    a.on_published_frontier = true;
    for (const MeasuredFrontierPoint& b : *points) {
      if (&a == &b || b.gpu != a.gpu || b.family != a.family || b.weight_dtype != a.weight_dtype ||
          b.spec != a.spec || b.disaggregated != a.disaggregated) {
        continue;
      }
      const double bu = b.measured_tokens_per_s_per_user, bg = b.measured_tokens_per_s_per_gpu;
      if (bu >= au && bg >= ag && (bu > au || bg > ag)) {
        a.on_published_frontier = false;
        break;
      }
    }
  }
}

// Why a run is not held against the searched frontier; empty when it is.
std::string frontier_note(const FrontierScope& scope, const MeasuredFrontierPoint& m) {
  if (!m.on_published_frontier) {
    return "not on the published frontier (another run of its GPU, engine, dtype, drafter and layout kind beats it)";
  }
  auto d = parse_dtype(m.weight_dtype, "weight_dtype");
  if (!d.ok() || std::find(scope.weight_dtypes.begin(), scope.weight_dtypes.end(), *d) == scope.weight_dtypes.end()) {
    return "the plan did not search " + m.weight_dtype + " weights (--dtype)";
  }
  if (scope.weight_dtypes.size() > 1) {
    return "the searched frontier mixes weight dtypes; --dtype " + m.weight_dtype + " compares it with its own";
  }
  if (m.disaggregated && !scope.swept_disaggregated) return "disaggregated pools: the frontier searched is aggregated";
  if (m.disaggregated && m.spec) return "disaggregated pools with MTP: not swept together";
  if ((m.length_dist == LengthDist::kUniform08) != scope.uniform_lengths) {
    return m.length_dist == LengthDist::kUniform08
               ? "its lengths were uniform in [0.8 L, L]; the plan's are fixed (--length-dist uniform-0.8)"
               : "its lengths were not InferenceX's uniform ones; the plan's are (--length-dist fixed)";
  }
  if (m.spec != scope.spec && !(m.spec && scope.swept_mtp)) {
    return m.spec ? "it drafted with MTP; the plan searched without (--spec-method mtp)"
                  : "it ran without a drafter; the plan searched with one";
  }
  for (size_t i = 0; i < scope.gpus.size() && i < scope.engines.size(); ++i) {
    if (scope.gpus[i] != m.gpu) continue;
    if (!scope.engines[i]) return "the plan predicts " + m.gpu + " with no engine";
    if (scope.engines[i]->family != m.family) {
      return "the plan predicts " + m.gpu + " with " + engine_release_display(*scope.engines[i]) + " (--engine " +
             std::string(engine_family_info(m.family).key) + " compares it)";
    }
  }
  return "";
}

}  // namespace

std::optional<PublishedAcceptance> published_mtp_acceptance(std::string_view model_type) {
  // DeepSeek-V3 Technical Report (arXiv:2412.19437), §5.4.3: "the acceptance rate of the second token
  // prediction ranges between 85% and 90%" across generation topics; the low end. R1 and V3.2 keep V3's MTP
  // module (one layer); their own reports publish no rate, so V3's figure stands in, said so.
  if (model_type == "deepseek_v3") {
    return PublishedAcceptance{0.85, "DeepSeek-V3 Technical Report §5.4.3 (85–90 %; the low end)"};
  }
  if (model_type == "deepseek_v32") {
    return PublishedAcceptance{0.85, "DeepSeek-V3's figure (Technical Report §5.4.3), unconfirmed for V3.2"};
  }
  return std::nullopt;
}

double frontier_at(std::span<const PlanFrontierPoint> frontier, std::string_view gpu, double tokens_per_s_per_user,
                   bool mtp, bool disaggregated) {
  if (!(tokens_per_s_per_user > 0) || !std::isfinite(tokens_per_s_per_user)) return kNaN;
  std::vector<std::pair<double, double>> pts;  // (user, per GPU)
  for (const PlanFrontierPoint& f : frontier) {
    if (f.ceiling || f.mtp != mtp || f.disaggregated != disaggregated || f.gpu != gpu ||
        !(f.tokens_per_s_per_user > 0) || !(f.tokens_per_s_per_gpu > 0)) {
      continue;
    }
    pts.emplace_back(f.tokens_per_s_per_user, f.tokens_per_s_per_gpu);
  }
  std::sort(pts.begin(), pts.end());
  for (size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].first == tokens_per_s_per_user) return pts[i].second;
    if (i + 1 < pts.size() && pts[i].first < tokens_per_s_per_user && tokens_per_s_per_user < pts[i + 1].first) {
      const double t = (std::log(tokens_per_s_per_user) - std::log(pts[i].first)) /
                       (std::log(pts[i + 1].first) - std::log(pts[i].first));
      return std::exp(std::log(pts[i].second) + t * (std::log(pts[i + 1].second) - std::log(pts[i].second)));
    }
  }
  return kNaN;
}

FrontierComparison compare_frontier(std::span<const ServingRow> rows, const FrontierScope& scope,
                                    const SearchControl* control) {
  FrontierComparison out;
  out.rows = static_cast<int64_t>(rows.size());
  // The rows at the plan's shape on a GPU it searched (cheap checks first); then the model, as calibrate reads it.
  std::vector<ServingRow> shape;
  for (const ServingRow& r : rows) {
    if (r.isl != scope.isl || r.osl != scope.osl) continue;
    auto g = find_gpu(r.gpu);
    if (!g.ok() || std::find(scope.gpus.begin(), scope.gpus.end(), g->key) == scope.gpus.end()) continue;
    shape.push_back(r);
  }
  const std::vector<PreparedRow> prepared = prepare_rows(shape, control);
  const CalibrationParams params = compiled_calibration_params();
  std::map<std::string, size_t> by_run;
  for (const PreparedRow& p : prepared) {
    const ServingRow& r = *p.row;
    if (!p.skipped.empty()) {
      // A row whose model is not this plan's is not this comparison's; any other skip is counted.
      std::string note;
      auto resolved = resolve_run_model(r.model, r.checkpoint, &note);
      if (!resolved.ok() || resolved->preset != scope.preset) continue;
      ++out.matched_rows;
      ++out.skipped_rows;
      if (out.first_skip.empty()) out.first_skip = r.id + ": " + p.skipped;
      continue;
    }
    if (p.model != scope.preset) continue;
    ++out.matched_rows;
    const std::string key = run_key(r);
    auto [it, fresh] = by_run.try_emplace(key, out.points.size());
    if (fresh) {
      MeasuredFrontierPoint m;
      m.gpu = find_gpu(r.gpu)->key;
      m.engine = engine_release_display(p.engine);
      m.engine_key = engine_release_key(p.engine);
      m.family = p.engine.family;
      m.disaggregated = p.disaggregated;
      m.spec = r.spec == "mtp";
      m.length_dist = r.length_dist;
      m.layout = layout_words(r);
      m.weight_dtype = r.weight_dtype;
      m.kv_dtype = r.kv_dtype;
      m.source = r.source;
      m.gpus = r.gpus;
      m.concurrency = r.load == MeasuredLoad::kConcurrency ? r.load_value : 0;
      m.load = r.load_text;
      m.measured_tokens_per_s_per_gpu = m.measured_tokens_per_s_per_user = m.measured_ttft_s = kNaN;
      m.predicted_tokens_per_s_per_gpu = m.predicted_tokens_per_s_per_user = m.predicted_ttft_s = kNaN;
      m.ceiling_tokens_per_s_per_gpu = m.ceiling_tokens_per_s_per_user = m.frontier_tokens_per_s_per_gpu = kNaN;
      out.points.push_back(std::move(m));
    }
    MeasuredFrontierPoint& m = out.points[it->second];
    m.ids.push_back(r.id);
    const RowFigures f = evaluate_row(p, params);
    const double gpus = static_cast<double>(r.gpus);
    switch (r.metric) {
      case MeasuredMetric::kOutputTokensPerS:
        m.measured_tokens_per_s_per_gpu = r.value / gpus;
        m.predicted_tokens_per_s_per_gpu = f.predicted / gpus;
        m.ceiling_tokens_per_s_per_gpu = f.ceiling / gpus;
        break;
      case MeasuredMetric::kItl:
        m.measured_tokens_per_s_per_user = 1 / r.value;
        m.predicted_tokens_per_s_per_user = 1 / f.predicted;
        m.ceiling_tokens_per_s_per_user = 1 / f.ceiling;
        break;
      case MeasuredMetric::kTokensPerSPerUser:
        m.measured_tokens_per_s_per_user = r.value;
        m.predicted_tokens_per_s_per_user = f.predicted;
        m.ceiling_tokens_per_s_per_user = f.ceiling;
        break;
      case MeasuredMetric::kTtft:
        m.measured_ttft_s = r.value;
        m.predicted_ttft_s = f.predicted;
        break;
      default: break;
    }
  }
  mark_published_frontier(&out.points);
  for (MeasuredFrontierPoint& m : out.points) {
    m.frontier_note = frontier_note(scope, m);
    if (m.frontier_note.empty()) {
      m.frontier_tokens_per_s_per_gpu =
          frontier_at(scope.frontier, m.gpu, m.measured_tokens_per_s_per_user, m.spec, m.disaggregated);
      if (!std::isfinite(m.frontier_tokens_per_s_per_gpu)) {
        m.frontier_note = "its tokens/s per user lies outside the searched frontier's range";
      }
    }
  }
  // Per GPU and engine, in order of first appearance; and all together.
  std::vector<std::pair<std::string, std::string>> groups;
  std::vector<const MeasuredFrontierPoint*> all;
  for (const MeasuredFrontierPoint& m : out.points) {
    all.push_back(&m);
    if (std::find(groups.begin(), groups.end(), std::pair(m.gpu, m.engine)) == groups.end()) {
      groups.emplace_back(m.gpu, m.engine);
    }
  }
  for (const auto& [gpu, engine] : groups) {
    std::vector<const MeasuredFrontierPoint*> pts;
    for (const MeasuredFrontierPoint& m : out.points) {
      if (m.gpu == gpu && m.engine == engine) pts.push_back(&m);
    }
    out.errors.push_back(frontier_error(gpu, engine, pts));
  }
  out.overall = frontier_error("", "", all);
  return out;
}

}  // namespace modelcalc
