#include "modelcalc/train_calibrate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <system_error>

#include "embedded_data.h"
#include "modelcalc/gpu.h"
#include "modelcalc/hf_config.h"
#include "tsv.h"

namespace modelcalc {

namespace {

constexpr std::string_view kColumns[] = {
    "id",    "source", "model",  "layers",    "hidden", "heads",   "gpu",     "seq",        "tp",
    "pp",    "dp",     "cp",     "ep",        "vp",     "split",   "mbs",     "gbs",        "recompute",
    "sp",    "flash",  "dropout", "zero",     "fp32_grads", "overlap_dp", "metric", "measured", "notes"};
constexpr size_t kCols = std::size(kColumns);

bool count(std::string_view t, int64_t* v, int64_t lo = 1) {
  if (t == "-") {
    *v = 0;
    return true;
  }
  return tsv_int(t, v) && *v >= lo && *v <= (int64_t{1} << 30);
}

bool yes_no(std::string_view t, bool* v) {
  if (t != "yes" && t != "no") return false;
  *v = t == "yes";
  return true;
}

// The gpt model of a row: Megatron's GPT (MHA, a 4h GeLU MLP, tied
// embeddings, vocabulary 51,200), matrices only as the seed counts them.
ModelSpec gpt_model(const TrainMeasuredRow& r) {
  ModelSpec m;
  m.name = r.id;
  m.model_type = "gpt";
  m.n_layer = r.layers;
  m.n_embd = r.hidden;
  m.n_head = r.heads;
  m.n_head_kv = r.heads;
  m.n_embd_head = r.heads > 0 ? r.hidden / r.heads : 0;
  m.n_ff = 4 * r.hidden;
  m.n_vocab = 51200;
  m.tied_embeddings = true;
  m.n_ctx_train = 2048;
  return m;
}

Result<ModelSpec> row_model(const TrainMeasuredRow& r) {
  if (r.model == "gpt") return gpt_model(r);
  return find_preset(r.model);
}

double metric_value(const TrainMeasuredRow& row, const PreparedTraining& p, double seconds, double gpus) {
  if (row.metric == TrainMetric::kStepSeconds) return seconds;
  const double tokens = static_cast<double>(row.options.global_batch) * static_cast<double>(row.options.seq);
  const double per_token =
      row.metric == TrainMetric::kHfuTflopsPerGpu ? p.flops_per_token.hardware : p.flops_per_token.model;
  return per_token * tokens / (seconds * gpus) / 1e12;
}

}  // namespace

std::string_view train_metric_name(TrainMetric m) {
  switch (m) {
    case TrainMetric::kHfuTflopsPerGpu: return "hfu_tflops_per_gpu";
    case TrainMetric::kModelTflopsPerGpu: return "model_tflops_per_gpu";
    case TrainMetric::kStepSeconds: return "step_seconds";
  }
  return "";
}

Result<std::vector<TrainMeasuredRow>> parse_train_measured(std::string_view tsv) {
  std::vector<TrainMeasuredRow> out;
  bool header = false;
  TsvLines lines(tsv);
  for (std::string_view line; lines.next(&line);) {
    const std::string where = "training-measured.tsv line " + std::to_string(lines.line_no());
    const auto c = split_fields(line);
    if (c.size() != kCols) return Status::InvalidArgument(where, "expected " + std::to_string(kCols) + " columns");
    if (!header) {
      for (size_t i = 0; i < kCols; ++i) {
        if (c[i] != kColumns[i]) return Status::InvalidArgument(where, "header column '" + std::string(c[i]) + "' is not '" +
                                                                           std::string(kColumns[i]) + "'");
      }
      header = true;
      continue;
    }
    TrainMeasuredRow r;
    r.id = c[0], r.source = c[1], r.model = c[2];
    if (r.id.empty() || r.source.empty() || r.model.empty()) return Status::InvalidArgument(where, "id, source and model are required");
    TrainOptions& o = r.options;
    TrainLayout& lay = o.layout;
    int64_t zero = 0, vp = 1;
    if (!count(c[3], &r.layers) || !count(c[4], &r.hidden) || !count(c[5], &r.heads)) {
      return Status::InvalidArgument(where, "layers, hidden, heads must be counts or '-'");
    }
    if (r.model == "gpt" && (r.layers == 0 || r.hidden == 0 || r.heads == 0)) {
      return Status::InvalidArgument(where, "a gpt model needs layers, hidden and heads");
    }
    r.gpu = c[6];
    if (!count(c[7], &o.seq) || !count(c[8], &lay.tp) || !count(c[9], &lay.pp) || !count(c[10], &lay.dp) ||
        !count(c[11], &lay.cp) || !count(c[12], &lay.ep) || !count(c[13], &vp) || !count(c[15], &o.micro_batch) ||
        !count(c[16], &o.global_batch) || !count(c[21], &zero, 0) || zero > 3 || o.seq == 0) {
      return Status::InvalidArgument(where, "seq, tp, pp, dp, cp, ep, vp, mbs, gbs must be counts; zero 0 to 3");
    }
    lay.virtual_stages = vp;
    if (c[14] == "embedding+loss") {
      lay.embedding_in_split = lay.loss_in_split = true;
    } else if (c[14] != "even") {
      return Status::InvalidArgument(where, "split must be even or embedding+loss");
    }
    if (c[17] == "none") o.recompute = Recompute::kNone;
    else if (c[17] == "selective") o.recompute = Recompute::kSelective;
    else if (c[17] == "full") o.recompute = Recompute::kFull;
    else return Status::InvalidArgument(where, "recompute must be none, selective or full");
    if (!yes_no(c[18], &o.sequence_parallel) || !yes_no(c[19], &o.flash) || !yes_no(c[20], &o.dropout) ||
        !yes_no(c[22], &o.fp32_grads) || !yes_no(c[23], &o.overlap_dp)) {
      return Status::InvalidArgument(where, "sp, flash, dropout, fp32_grads, overlap_dp must be yes or no");
    }
    o.zero = static_cast<int>(zero);
    if (c[24] == "hfu_tflops_per_gpu") r.metric = TrainMetric::kHfuTflopsPerGpu;
    else if (c[24] == "model_tflops_per_gpu") r.metric = TrainMetric::kModelTflopsPerGpu;
    else if (c[24] == "step_seconds") r.metric = TrainMetric::kStepSeconds;
    else return Status::InvalidArgument(where, "unknown metric '" + std::string(c[24]) + "'");
    if (!tsv_real(c[25], &r.measured) || !(r.measured > 0)) {
      return Status::InvalidArgument(where, "measured must be a positive number");
    }
    r.notes = c[26];
    out.push_back(std::move(r));
  }
  if (!header) return Status::InvalidArgument("training-measured.tsv", "has no header");
  return out;
}

std::span<const TrainMeasuredRow> train_measured_catalog() {
  static const std::vector<TrainMeasuredRow> kRows =
      parse_embedded_or_die("training-measured.tsv", parse_train_measured);
  return kRows;
}

std::vector<TrainCalibrationRow> calibrate_training(std::span<const TrainMeasuredRow> rows, const TrainProfile& prof) {
  std::vector<TrainCalibrationRow> out;
  out.reserve(rows.size());
  for (const TrainMeasuredRow& row : rows) {
    TrainCalibrationRow c;
    c.row = &row;
    auto m = row_model(row);
    auto g = find_gpu(row.gpu);
    if (!m.ok() || !g.ok()) {
      c.skipped = !m.ok() ? m.status().message() : g.status().message();
      out.push_back(std::move(c));
      continue;
    }
    auto r = analyze_train_step(*m, *g, row.options, prof);
    if (!r.ok()) {
      c.skipped = r.status().message();
      out.push_back(std::move(c));
      continue;
    }
    c.evaluated = true;
    const double gpus = static_cast<double>(r->gpus);
    c.predicted = metric_value(row, r->prepared, r->eval.seconds, gpus);
    c.ceiling = metric_value(row, r->prepared, r->eval.ceiling_seconds, gpus);
    c.error = c.predicted / row.measured - 1.0;
    c.beyond_ceiling = lower_is_better(row.metric) ? row.measured < c.ceiling : row.measured > c.ceiling;
    c.mfu = r->eval.mfu;
    c.hfu = r->eval.hfu;
    c.fits = r->eval.fits;
    c.peak_memory = r->eval.peak_memory;
    out.push_back(std::move(c));
  }
  return out;
}

TrainCalibrationSummary summarize(std::span<const TrainCalibrationRow> rows) {
  TrainCalibrationSummary s;
  std::vector<double> abs;
  for (const TrainCalibrationRow& r : rows) {
    ++s.rows;
    if (!r.evaluated) continue;
    ++s.predicted_rows;
    abs.push_back(std::fabs(r.error));
    if (r.beyond_ceiling) ++s.over_ceiling;
    if (std::fabs(r.error) <= 0.15) ++s.within_15_percent;
  }
  if (abs.empty()) return s;
  std::sort(abs.begin(), abs.end());
  const size_t n = abs.size();
  s.median_abs_error = n % 2 ? abs[n / 2] : (abs[n / 2 - 1] + abs[n / 2]) / 2;
  double sum = 0;
  for (double a : abs) sum += a;
  s.mean_abs_error = sum / static_cast<double>(n);
  // p90 by the nearest rank: the smallest value with at least 90 % of the values at or below it.
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n)));
  s.p90_abs_error = abs[std::max<size_t>(rank, 1) - 1];
  s.max_abs_error = abs.back();
  return s;
}

// ---------------------------------------------------------------- fit

namespace {

// The fitted parameters as an unbounded vector: logits of the three
// efficiencies (in (0, 1)), the log of the traffic (in (0, inf)).
using Theta = std::array<double, 4>;
double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double logit(double p) { return std::log(p / (1.0 - p)); }
TrainProfile profile_of(const Theta& t) {
  TrainProfile p;
  p.gemm_efficiency = logistic(t[0]);
  p.attention_efficiency = logistic(t[1]);
  p.hbm_traffic = std::exp(t[2]);
  p.link_efficiency = logistic(t[3]);
  return p;
}

double objective(std::span<const TrainMeasuredRow> rows, const Theta& t) {
  double sum = 0;
  for (const TrainCalibrationRow& c : calibrate_training(rows, profile_of(t))) {
    if (!c.evaluated) continue;
    const double e = std::log(c.predicted / c.row->measured);
    sum += e * e;
  }
  return sum;
}

// Nelder-Mead (Nelder and Mead 1965) with the standard coefficients, from a
// fixed simplex; stops after 400 iterations or when the simplex's values
// agree within 1e-12.
Theta nelder_mead(std::span<const TrainMeasuredRow> rows, Theta start, double* best) {
  constexpr int n = 4;
  std::array<Theta, n + 1> x;
  std::array<double, n + 1> f;
  x[0] = start;
  for (int i = 0; i < n; ++i) {
    x[static_cast<size_t>(i + 1)] = start;
    x[static_cast<size_t>(i + 1)][static_cast<size_t>(i)] += 0.5;
  }
  for (size_t i = 0; i <= n; ++i) f[i] = objective(rows, x[i]);
  for (int iter = 0; iter < 400; ++iter) {
    std::array<size_t, n + 1> idx{0, 1, 2, 3, 4};
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return f[a] < f[b]; });
    const size_t lo = idx[0], hi = idx[n], second = idx[n - 1];
    if (f[hi] - f[lo] < 1e-12) break;
    Theta centroid{};
    for (size_t k = 0; k < n; ++k) {
      const size_t i = idx[k];
      for (size_t j = 0; j < n; ++j) centroid[j] += x[i][j] / n;
    }
    auto along = [&](double a) {
      Theta p;
      for (size_t j = 0; j < n; ++j) p[j] = centroid[j] + a * (x[hi][j] - centroid[j]);
      return p;
    };
    const Theta xr = along(-1.0);
    const double fr = objective(rows, xr);
    if (fr < f[lo]) {
      const Theta xe = along(-2.0);
      const double fe = objective(rows, xe);
      if (fe < fr) x[hi] = xe, f[hi] = fe;
      else x[hi] = xr, f[hi] = fr;
    } else if (fr < f[second]) {
      x[hi] = xr, f[hi] = fr;
    } else {
      const Theta xc = fr < f[hi] ? along(-0.5) : along(0.5);
      const double fc = objective(rows, xc);
      if (fc < std::min(fr, f[hi])) {
        x[hi] = xc, f[hi] = fc;
      } else {  // shrink toward the best
        for (size_t i = 0; i <= n; ++i) {
          if (i == lo) continue;
          for (size_t j = 0; j < n; ++j) x[i][j] = x[lo][j] + 0.5 * (x[i][j] - x[lo][j]);
          f[i] = objective(rows, x[i]);
        }
      }
    }
  }
  size_t b = 0;
  for (size_t i = 1; i <= n; ++i) if (f[i] < f[b]) b = i;
  *best = f[b];
  return x[b];
}

Theta start_theta() { return {logit(0.6), logit(0.4), std::log(4.0), logit(0.7)}; }

// Nelder-Mead twice, the second from the first's best: a restart shakes off a
// simplex that collapsed early.
Theta fit_theta(std::span<const TrainMeasuredRow> rows, double* best) {
  double first = 0;
  const Theta t = nelder_mead(rows, start_theta(), &first);
  return nelder_mead(rows, t, best);
}

}  // namespace

TrainFitResult fit_training_profile(std::span<const TrainMeasuredRow> rows) {
  TrainFitResult r;
  const Theta t = fit_theta(rows, &r.objective);
  r.profile = profile_of(t);
  r.rows = calibrate_training(rows, r.profile);
  r.summary = summarize(r.rows);
  std::vector<std::string> sources;
  for (const TrainMeasuredRow& row : rows) {
    if (std::find(sources.begin(), sources.end(), row.source) == sources.end()) sources.push_back(row.source);
  }
  std::vector<TrainCalibrationRow> held_all;
  for (const std::string& src : sources) {
    std::vector<TrainMeasuredRow> train, test;
    for (const TrainMeasuredRow& row : rows) (row.source == src ? test : train).push_back(row);
    TrainFitFold fold;
    fold.source = src;
    double obj = 0;
    fold.profile = profile_of(fit_theta(train, &obj));
    // Rows point into `rows`, which outlives the result; `test` does not.
    for (const TrainMeasuredRow& row : rows) {
      if (row.source != src) continue;
      auto one = calibrate_training(std::span<const TrainMeasuredRow>(&row, 1), fold.profile);
      fold.rows.push_back(one.front());
    }
    fold.summary = summarize(fold.rows);
    held_all.insert(held_all.end(), fold.rows.begin(), fold.rows.end());
    r.folds.push_back(std::move(fold));
  }
  r.loso = summarize(held_all);
  return r;
}

}  // namespace modelcalc
