#include "modelcalc/calibrate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <system_error>

#include "embedded_data.h"
#include "modelcalc/dtype.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "tsv.h"

namespace modelcalc {

namespace {

constexpr size_t kCols = 19;
constexpr const char* kHeader[kCols] = {"id",     "model", "checkpoint", "gpu",    "gpus",   "tp",     "pp",
                                        "ep",     "weight_dtype", "kv_dtype", "isl", "osl", "load", "metric",
                                        "value",  "engine", "engine_version", "source", "notes"};

bool parse_count(std::string_view t, int64_t* v) { return tsv_int(t, v) && *v >= 1 && *v <= (int64_t{1} << 30); }

bool parse_positive(std::string_view t, double* v) { return tsv_real(t, v) && *v > 0; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void read_load(ServingRow* r) {
  const std::string t = lower(r->load_text);
  if (t == "offline") {
    r->load = MeasuredLoad::kOffline;
  } else if (t == "qps=inf") {
    r->load = MeasuredLoad::kUnboundedRate;
  } else if (t.rfind("qps=", 0) == 0 || t.rfind("concurrency=", 0) == 0) {
    const bool qps = t[0] == 'q';
    const std::string_view num = std::string_view(t).substr(qps ? 4 : 12);
    double v = 0;
    if (parse_positive(num, &v)) {
      r->load = qps ? MeasuredLoad::kRequestsPerS : MeasuredLoad::kConcurrency;
      r->load_value = v;
    }
  }
}

void read_metric(ServingRow* r) {
  const std::string& t = r->metric_text;
  if (t == "output_tokens_per_s") r->metric = MeasuredMetric::kOutputTokensPerS;
  if (t == "itl_s") r->metric = MeasuredMetric::kItl;
  if (t == "ttft_s") r->metric = MeasuredMetric::kTtft;
  if (t == "tokens_per_s_per_user") r->metric = MeasuredMetric::kTokensPerSPerUser;
}

}  // namespace

Result<std::vector<ServingRow>> parse_serving_tsv(std::string_view text, std::string_view file) {
  std::vector<ServingRow> out;
  bool header = false;
  std::map<std::string, int64_t, std::less<>> ids;
  TsvLines lines(text);
  for (std::string_view line; lines.next(&line);) {
    const int64_t line_no = lines.line_no();
    const std::string where = std::string(file) + " line " + std::to_string(line_no);
    const auto c = split_fields(line);
    if (c.size() != kCols) {
      return Status::InvalidArgument(where, "expected 19 tab-separated columns (the schema of "
                                            "shared/reference/README.md), got " + std::to_string(c.size()));
    }
    if (!header) {
      for (size_t i = 0; i < kCols; ++i) {
        if (c[i] != kHeader[i]) {
          return Status::InvalidArgument(where, "header column " + std::to_string(i + 1) + " must be '" + kHeader[i] +
                                                    "', got '" + std::string(c[i]) + "'");
        }
      }
      header = true;
      continue;
    }
    auto bad = [&](const char* col, const std::string& what) {
      return Status::InvalidArgument(where, std::string("column ") + col + " " + what);
    };
    ServingRow r;
    r.line = line_no;
    r.id = c[0];
    if (r.id.empty()) return bad("id", "is empty");
    if (ids.count(r.id)) return bad("id", "'" + r.id + "' repeats line " + std::to_string(ids[r.id]));
    ids[r.id] = line_no;
    r.model = c[1], r.checkpoint = c[2], r.gpu = c[3];
    if (!parse_count(c[4], &r.gpus)) return bad("gpus", "must be a whole number from 1 to 2^30");
    if (!parse_count(c[5], &r.tp)) return bad("tp", "must be a whole number from 1 to 2^30");
    if (!parse_count(c[6], &r.pp)) return bad("pp", "must be a whole number from 1 to 2^30");
    if (!parse_count(c[7], &r.ep)) return bad("ep", "must be a whole number from 1 to 2^30");
    if (r.tp * r.pp > r.gpus || r.gpus % (r.tp * r.pp) != 0) {
      return bad("gpus", "must be a multiple of tp x pp (data-parallel replicas = gpus / (tp x pp))");
    }
    r.weight_dtype = c[8], r.kv_dtype = c[9];
    if (!c[10].empty() && !parse_count(c[10], &r.isl)) return bad("isl", "must be a whole number of tokens or empty");
    if (!c[11].empty() && !parse_count(c[11], &r.osl)) return bad("osl", "must be a whole number of tokens or empty");
    r.load_text = c[12];
    read_load(&r);
    r.metric_text = c[13];
    read_metric(&r);
    if (!parse_positive(c[14], &r.value)) return bad("value", "must be a positive number");
    r.engine = c[15], r.engine_version = c[16], r.source = c[17], r.notes = c[18];
    if (r.source.empty()) return bad("source", "is empty: every measurement cites where it comes from");
    out.push_back(std::move(r));
  }
  if (!header) return Status::InvalidArgument(file, "no header line");
  return out;
}

std::span<const ServingRow> shared_serving_rows() {
  static const std::vector<ServingRow> rows = parse_embedded_or_die(
      "serving-measured.tsv", [](std::string_view t) { return parse_serving_tsv(t, "serving-measured.tsv"); });
  return rows;
}

std::string_view data_regime_name(DataRegime r) {
  switch (r) {
    case DataRegime::kLatency: return "latency";
    case DataRegime::kPrefillHeavy: return "prefill-heavy";
    case DataRegime::kLongContext: return "long-context";
    case DataRegime::kMoe: return "moe";
    case DataRegime::kDecodeHeavy: return "decode-heavy";
  }
  return "?";
}

namespace {

// The release a row names: its engine from the engine column, its family from
// the first version number in engine_version (engine_family_at); a PyTorch-
// backend TensorRT-LLM row is trtllm-pytorch whatever its version says.
EngineRelease engine_of(const ServingRow& r, bool* known) {
  const std::string e = lower(r.engine);
  *known = true;
  const std::optional<EngineVersion> v = find_engine_version(r.engine_version);
  auto at = [&](Engine eng) { return EngineRelease{engine_family_at(eng, v), v}; };
  if (e.find("tensorrt-llm") != std::string::npos || e.find("trtllm") != std::string::npos) {
    if (e.find("pytorch") != std::string::npos) return EngineRelease{EngineFamily::kTrtllmPytorch, v};
    return at(Engine::kTrtllm);
  }
  if (e.find("vllm") != std::string::npos) return at(Engine::kVllm);
  if (e.find("sglang") != std::string::npos) return at(Engine::kSglang);
  *known = false;
  return kDefaultEngine;
}

}  // namespace

std::vector<PreparedRow> prepare_rows(std::span<const ServingRow> rows) {
  std::vector<PreparedRow> out;
  out.reserve(rows.size());
  for (const ServingRow& r : rows) {
    PreparedRow p;
    p.row = &r;
    auto skip = [&](std::string why) {
      p.skipped = std::move(why);
      out.push_back(std::move(p));
    };
    if (r.metric == MeasuredMetric::kUnknown) {
      skip("metric '" + r.metric_text + "' is not one the model predicts (output_tokens_per_s, itl_s, ttft_s, "
           "tokens_per_s_per_user)");
      continue;
    }
    if (r.load == MeasuredLoad::kUnknown) {
      skip("load '" + r.load_text + "' is not offline, qps=N, qps=inf or concurrency=N");
      continue;
    }
    if (r.metric != MeasuredMetric::kOutputTokensPerS &&
        (r.load == MeasuredLoad::kOffline || r.load == MeasuredLoad::kUnboundedRate)) {
      skip("a latency with every request queued depends on how many were sent; not modelled");
      continue;
    }
    if (r.isl == 0 || r.osl == 0) {
      skip("input/output lengths are not fixed");
      continue;
    }
    std::string checkpoint_note;
    auto resolved = resolve_run_model(r.model, r.checkpoint, &checkpoint_note);
    if (!resolved.ok()) {
      skip(resolved.status().message());
      continue;
    }
    p.model = resolved->preset;
    p.note = checkpoint_note;
    const ModelSpec* m = &resolved->spec;
    auto g = find_gpu(r.gpu);
    if (!g.ok()) {
      skip("GPU: " + g.status().message());
      continue;
    }
    auto wd = parse_dtype(r.weight_dtype, "weight_dtype");
    if (!wd.ok()) {
      skip(wd.status().message());
      continue;
    }
    Dtype kv = default_kv_dtype(*wd);
    const std::optional<Dtype> stated_kv = m->quant ? m->quant->kv : std::nullopt;
    if (r.kv_dtype.empty() && stated_kv) {
      kv = *stated_kv;
      if (!p.note.empty()) p.note += "; ";
      p.note += "kv_dtype not stated: read as " + std::string(dtype_name(kv)) + ", as " + m->quant->source + " states";
    } else if (r.kv_dtype.empty()) {
      if (*wd == Dtype::kFp8) kv = Dtype::kFp8;
      if (!p.note.empty()) p.note += "; ";
      p.note += "kv_dtype not stated: read as " + std::string(dtype_name(kv)) +
                (*wd == Dtype::kFp8 ? " (fp8 checkpoints quantize the KV cache too)" : "");
    } else {
      auto k = parse_dtype(r.kv_dtype, "kv_dtype");
      if (!k.ok()) {
        skip(k.status().message());
        continue;
      }
      kv = *k;
    }
    bool known = true;
    p.engine = engine_of(r, &known);
    if (!known) {
      if (!p.note.empty()) p.note += "; ";
      p.note += "engine '" + r.engine + "' has no profile: evaluated with " + engine_release_key(p.engine);
    }
    DeploymentOptions o;
    o.split.tp = r.tp;
    o.split.pp = r.pp;
    o.split.ep = r.ep;
    o.split.dp = r.gpus / (r.tp * r.pp);
    o.weight_dtype = *wd;
    o.kv_dtype = kv;
    o.context = r.isl + r.osl;
    o.prompt_tokens = r.isl;
    auto d = prepare_deployment(*m, *g, o);
    if (!d.ok()) {
      skip(d.status().message());
      continue;
    }
    if (auto s = check_workload(*d, 1, o.context, r.isl); !s.ok()) {
      skip(s.message());
      continue;
    }
    p.d = *d;
    p.moe = m->n_expert > 0;
    p.ceiling_memory = evaluate_deployment(p.d, 1, o.context, r.isl).memory;
    auto s = resolve_engine_settings(p.engine, EngineFlags{}, *m, *g, p.d, EngineWorkload{r.isl, r.osl});
    if (!s.ok()) {
      skip(s.status().message());
      continue;
    }
    p.settings = *s;
    p.engine_d = engine_view(p.d, p.settings);
    p.engine_memory = engine_memory(p.engine_d, p.settings);
    p.request.isl = r.isl;
    p.request.osl = r.osl;
    switch (r.load) {
      case MeasuredLoad::kOffline:
      case MeasuredLoad::kUnboundedRate: p.request.load = ServingLoad::kSaturated; break;
      case MeasuredLoad::kRequestsPerS: p.request.load = ServingLoad::kRequestsPerS; break;
      case MeasuredLoad::kConcurrency: p.request.load = ServingLoad::kConcurrency; break;
      case MeasuredLoad::kUnknown: break;
    }
    p.request.value = r.load_value;
    p.ceiling_cap = ceiling_capacity(p.d, p.ceiling_memory, r.isl, r.osl);
    p.engine_cap = engine_capacity(p.engine_memory, p.settings, r.isl, r.osl);
    const bool latency = r.metric != MeasuredMetric::kOutputTokensPerS;
    const bool prefill_heavy = r.osl <= 128 || r.isl >= 4 * r.osl;
    const bool long_ctx = r.isl + r.osl >= 5000;
    p.regimes[static_cast<size_t>(DataRegime::kLatency)] = latency;
    p.regimes[static_cast<size_t>(DataRegime::kPrefillHeavy)] = prefill_heavy;
    p.regimes[static_cast<size_t>(DataRegime::kLongContext)] = long_ctx;
    p.regimes[static_cast<size_t>(DataRegime::kMoe)] = p.moe;
    p.regimes[static_cast<size_t>(DataRegime::kDecodeHeavy)] = !latency && !prefill_heavy && !long_ctx && !p.moe;
    out.push_back(std::move(p));
  }
  return out;
}

RowFigures evaluate_row(const PreparedRow& r, const StepTimeParams& p) {
  RowFigures f;
  f.prediction = serve(r.engine_d, r.engine_cap, p, false, r.request);
  f.bound = serve(r.d, r.ceiling_cap, p, true, r.request);
  switch (r.row->metric) {
    case MeasuredMetric::kOutputTokensPerS:
      f.predicted = f.prediction.output_tokens_per_s;
      f.ceiling = f.bound.output_tokens_per_s;
      break;
    case MeasuredMetric::kItl:
      f.predicted = f.prediction.tpot_s;
      f.ceiling = f.bound.tpot_s;
      break;
    case MeasuredMetric::kTtft:
      f.predicted = f.prediction.ttft_s;
      f.ceiling = f.bound.ttft_s;
      break;
    case MeasuredMetric::kTokensPerSPerUser:
      f.predicted = f.prediction.tokens_per_s_per_user;
      f.ceiling = f.bound.tokens_per_s_per_user;
      break;
    case MeasuredMetric::kUnknown: break;
  }
  return f;
}

ErrorSummary summarize_errors(std::vector<double> e, int64_t rows, int64_t over) {
  ErrorSummary s;
  s.rows = rows;
  s.over_ceiling = over;
  s.predicted_rows = static_cast<int64_t>(e.size());
  if (e.empty()) return s;
  std::sort(e.begin(), e.end());
  const size_t n = e.size();
  s.median_abs_error = n % 2 == 1 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
  double sum = 0;
  for (double v : e) sum += v;
  s.mean_abs_error = sum / static_cast<double>(n);
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n)));  // nearest rank
  s.p90_abs_error = e[std::max<size_t>(rank, 1) - 1];
  s.max_abs_error = e.back();
  return s;
}

std::array<StepTimeParams, kEngineFamilyCount> profile_params() {
  std::array<StepTimeParams, kEngineFamilyCount> out;
  for (EngineFamily f : kAllEngineFamilies) out[static_cast<size_t>(f)] = engine_profile(f).time;
  return out;
}

namespace {

bool beats_ceiling(const ServingRow& r, double ceiling) {
  const bool time = r.metric == MeasuredMetric::kItl || r.metric == MeasuredMetric::kTtft;
  return time ? r.value < ceiling : r.value > ceiling;
}

// Summaries over `rows` (indices into cal.rows), overall and by regime.
void summarize(const std::vector<CalibratedRow>& all, const std::vector<size_t>& idx, ErrorSummary* overall,
               std::array<ErrorSummary, 5>* by_regime) {
  std::vector<double> e;
  std::array<std::vector<double>, 5> er;
  std::array<int64_t, 5> n{}, over_r{};
  int64_t over = 0;
  for (size_t i : idx) {
    const CalibratedRow& c = all[i];
    const PreparedRow& p = *c.prepared;
    if (!c.evaluated) continue;
    e.push_back(std::fabs(c.error));
    over += c.over_ceiling;
    for (size_t k = 0; k < 5; ++k) {
      if (!p.regimes[k]) continue;
      er[k].push_back(std::fabs(c.error));
      ++n[k];
      over_r[k] += c.over_ceiling;
    }
  }
  *overall = summarize_errors(std::move(e), static_cast<int64_t>(idx.size()), over);
  for (size_t k = 0; k < 5; ++k) (*by_regime)[k] = summarize_errors(std::move(er[k]), n[k], over_r[k]);
}

}  // namespace

Calibration calibrate_rows(std::span<const PreparedRow> rows, const std::array<StepTimeParams, kEngineFamilyCount>& params) {
  Calibration cal;
  cal.rows.reserve(rows.size());
  std::vector<size_t> idx;
  for (const PreparedRow& p : rows) {
    CalibratedRow c;
    c.prepared = &p;
    c.measured = p.row->value;
    if (p.skipped.empty()) {
      c.figures = evaluate_row(p, params[static_cast<size_t>(p.engine.family)]);
      c.evaluated = true;
      c.predicted = c.figures.predicted;
      c.ceiling = c.figures.ceiling;
      c.error = c.predicted / c.measured - 1;
      c.over_ceiling = beats_ceiling(*p.row, c.ceiling);
    }
    idx.push_back(cal.rows.size());
    cal.rows.push_back(c);
  }
  summarize(cal.rows, idx, &cal.summary, &cal.by_regime);
  return cal;
}

// ---------------------------------------------------------------- fitting

namespace {

constexpr double kMinFraction = 0.02, kMaxOverhead = 0.1;

bool in_range(const StepTimeParams& p) {
  for (int i = 0; i < kStepTimeParamCount; ++i) {
    const double v = step_param(p, i);
    const bool ok = step_param_is_seconds(i) ? v <= kMaxOverhead : i == 6 || v >= kMinFraction;
    if (!ok || !step_param_in_range(i, v)) return false;
  }
  return true;
}

double log_error(double predicted, double measured) {
  if (!(predicted > 0) || !std::isfinite(predicted)) return 5.0;  // a row the parameters cannot serve
  return std::clamp(std::log(predicted / measured), -5.0, 5.0);
}

using Point = std::array<double, kStepTimeParamCount>;

StepTimeParams to_params(const Point& x) {
  StepTimeParams p;
  for (int i = 0; i < kStepTimeParamCount; ++i) set_step_param(&p, i, x[static_cast<size_t>(i)]);
  return p;
}

}  // namespace

FitResult fit_step_params(std::span<const PreparedRow> rows, const std::vector<bool>& use,
                          const SearchControl* control) {
  std::vector<const PreparedRow*> fit;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (use[i] && rows[i].skipped.empty() && rows[i].engine.family == EngineFamily::kTrtllm) fit.push_back(&rows[i]);
  }
  FitResult res;
  res.rows = static_cast<int64_t>(fit.size());
  auto loss = [&](const Point& x) {
    ++res.evaluations;
    const StepTimeParams p = to_params(x);
    if (!in_range(p)) return 1e9;
    double s = 0;
    for (const PreparedRow* r : fit) {
      const double e = log_error(evaluate_row(*r, p).predicted, r->row->value);
      s += e * e;
    }
    return fit.empty() ? 0.0 : s / static_cast<double>(fit.size());
  };
  // Start and steps: middling efficiencies, 1 ms and 20 us of overhead.
  // Start and steps: middling efficiencies, a fifth of the shorter roof not
  // hidden, 1 ms per step, 1 us per sequence, 5 us per all-reduce.
  Point x0 = {0.6, 0.5, 0.7, 0.8, 0.5, 0.5, 0.2, 1e-3, 1e-6, 5e-6};
  const Point steps = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1e-3, 1e-6, 5e-6};
  constexpr int n = kStepTimeParamCount;
  double best = loss(x0);
  for (int restart = 0; restart < 8; ++restart) {
    if (should_stop(control, {"restarts", restart, 8})) break;  // the caller returns control->status()
    std::array<Point, n + 1> pts;
    std::array<double, n + 1> val{};
    pts[0] = x0;
    val[0] = best;
    for (int i = 0; i < n; ++i) {
      pts[static_cast<size_t>(i + 1)] = x0;
      Point& y = pts[static_cast<size_t>(i + 1)];
      y[static_cast<size_t>(i)] += (restart % 2 == 0 ? 1 : -1) * steps[static_cast<size_t>(i)] / (1 + restart / 2);
      val[static_cast<size_t>(i + 1)] = loss(y);
    }
    for (int it = 0; it < 400 * n; ++it) {
      std::array<size_t, n + 1> order{};
      for (size_t i = 0; i <= n; ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return val[a] < val[b]; });
      std::array<Point, n + 1> sp;
      std::array<double, n + 1> sv{};
      for (size_t i = 0; i <= n; ++i) {
        sp[i] = pts[order[i]];
        sv[i] = val[order[i]];
      }
      pts = sp;
      val = sv;
      if (val[n] - val[0] <= 1e-12 * (1 + val[0])) break;
      Point c{};
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) c[j] += pts[i][j] / n;
      auto along = [&](double t) {
        Point y;
        for (size_t j = 0; j < n; ++j) y[j] = c[j] + t * (pts[n][j] - c[j]);
        return y;
      };
      const Point xr = along(-1);
      const double fr = loss(xr);
      if (fr < val[0]) {
        const Point xe = along(-2);
        const double fe = loss(xe);
        if (fe < fr) {
          pts[n] = xe, val[n] = fe;
        } else {
          pts[n] = xr, val[n] = fr;
        }
      } else if (fr < val[n - 1]) {
        pts[n] = xr, val[n] = fr;
      } else {
        const Point xc = along(0.5);
        const double fc = loss(xc);
        if (fc < val[n]) {
          pts[n] = xc, val[n] = fc;
        } else {
          for (size_t i = 1; i <= n; ++i) {
            for (size_t j = 0; j < n; ++j) pts[i][j] = pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]);
            val[i] = loss(pts[i]);
          }
        }
      }
    }
    size_t bi = 0;
    for (size_t i = 1; i <= n; ++i) {
      if (val[i] < val[bi]) bi = i;
    }
    const bool improved = val[bi] < best - 1e-10;
    if (val[bi] <= best) {
      best = val[bi];
      x0 = pts[bi];
    }
    if (!improved && restart >= 1) break;
  }
  res.params = to_params(x0);
  res.loss = best;
  return res;
}

CrossValidation cross_validate(std::span<const PreparedRow> rows, std::span<const uint64_t> seeds,
                               const SearchControl* control) {
  CrossValidation cv;
  // The (model, GPU) groups of the fittable rows, in a fixed order.
  std::vector<std::string> groups;
  std::vector<int64_t> group_of(rows.size(), -1);
  for (size_t i = 0; i < rows.size(); ++i) {
    const PreparedRow& r = rows[i];
    if (!r.skipped.empty() || r.engine.family != EngineFamily::kTrtllm) continue;
    groups.push_back(r.model + " @ " + r.row->gpu);
  }
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  for (size_t i = 0; i < rows.size(); ++i) {
    const PreparedRow& r = rows[i];
    if (!r.skipped.empty() || r.engine.family != EngineFamily::kTrtllm) continue;
    const std::string key = r.model + " @ " + r.row->gpu;
    group_of[i] = std::lower_bound(groups.begin(), groups.end(), key) - groups.begin();
  }
  std::vector<double> pooled;
  std::array<std::vector<double>, 5> pooled_r;
  std::array<int64_t, 5> pooled_n{};
  int64_t pooled_rows = 0;
  Calibration tmp;
  for (uint64_t seed : seeds) {
    if (should_stop(control, {"folds", static_cast<int64_t>(cv.folds.size()), static_cast<int64_t>(seeds.size())})) {
      break;
    }
    // Fisher-Yates with mt19937_64 (fully specified by the standard, unlike
    // std::shuffle's use of it): the same split on every platform.
    std::vector<size_t> order(groups.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::mt19937_64 rng(seed);
    for (size_t i = order.size(); i > 1; --i) {
      const size_t j = static_cast<size_t>(rng() % i);
      std::swap(order[i - 1], order[j]);
    }
    std::vector<bool> train_group(groups.size(), false);
    for (size_t k = 0; k < order.size() / 2; ++k) train_group[order[k]] = true;
    std::vector<bool> use(rows.size(), false);
    for (size_t i = 0; i < rows.size(); ++i) use[i] = group_of[i] >= 0 && train_group[static_cast<size_t>(group_of[i])];
    CvFold fold;
    fold.seed = seed;
    fold.train_groups = static_cast<int64_t>(order.size() / 2);
    fold.test_groups = static_cast<int64_t>(order.size()) - fold.train_groups;
    fold.params = fit_step_params(rows, use, control).params;
    std::array<StepTimeParams, kEngineFamilyCount> params = profile_params();
    params[static_cast<size_t>(EngineFamily::kTrtllm)] = fold.params;
    std::vector<size_t> test;
    tmp = calibrate_rows(rows, params);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (group_of[i] >= 0 && !train_group[static_cast<size_t>(group_of[i])]) test.push_back(i);
    }
    summarize(tmp.rows, test, &fold.test, &fold.test_by_regime);
    for (size_t i : test) {
      const CalibratedRow& c = tmp.rows[i];
      if (!c.evaluated) continue;
      ++pooled_rows;
      pooled.push_back(std::fabs(c.error));
      for (size_t k = 0; k < 5; ++k) {
        if (!rows[i].regimes[k]) continue;
        pooled_r[k].push_back(std::fabs(c.error));
        ++pooled_n[k];
      }
    }
    cv.folds.push_back(fold);
  }
  cv.pooled = summarize_errors(std::move(pooled), pooled_rows, 0);
  for (size_t k = 0; k < 5; ++k) cv.pooled_by_regime[k] = summarize_errors(std::move(pooled_r[k]), pooled_n[k], 0);
  return cv;
}

}  // namespace modelcalc
