// The fit of the step model's parameters and its cross-validation
// (calibrate.h): Levenberg-Marquardt on a robust loss of the rows' log errors.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "modelcalc/calibrate.h"
#include "modelcalc/gpu.h"
#include "least_squares.h"

namespace modelcalc {

namespace {

constexpr double kMinFraction = 0.02;
constexpr double kMinSeconds = 1e-9, kMaxSeconds = 0.1;
constexpr double kDeviationPrior = 1.0;  // weight of a profile's squared deviation (logit / log units)
constexpr double kBasePrior = 1e-3;      // weight of the pooled set's squared distance from its start
constexpr int kMaxIterations = 100;  // Jacobians; a fit of the shared rows converges in fewer
constexpr double kDiffStep = 1e-4;    // forward difference in the transformed parameters (logits, logs)
constexpr double kCostTolerance = 1e-10;  // relative decrease of the loss at which a fit has converged

// How a parameter is kept in its range: x on the real line, the value a map of it.
enum class Map { kFraction, kUnit, kSeconds, kFactor };

double to_value(Map m, double x) {
  const double s = 1 / (1 + std::exp(-x));
  switch (m) {
    case Map::kFraction: return kMinFraction + (1 - kMinFraction) * s;
    case Map::kUnit: return s;
    case Map::kSeconds: return std::clamp(std::exp(x), kMinSeconds, kMaxSeconds);
    case Map::kFactor: return 2 * s;
  }
  return 0;
}

double to_x(Map m, double v) {
  const auto logit = [](double s) {
    s = std::clamp(s, 1e-6, 1 - 1e-6);
    return std::log(s / (1 - s));
  };
  switch (m) {
    case Map::kFraction: return logit((v - kMinFraction) / (1 - kMinFraction));
    case Map::kUnit: return logit(v);
    case Map::kSeconds: return std::log(std::clamp(v, kMinSeconds, kMaxSeconds));
    case Map::kFactor: return logit(v / 2);
  }
  return 0;
}

Map step_map(int i) {
  if (step_param_is_seconds(i)) return Map::kSeconds;
  return step_param_name(i) == "overlap_loss" ? Map::kUnit : Map::kFraction;
}

}  // namespace

// The start: middling efficiencies and small overheads, the same for every fit.
StepTimeParams fit_start_params() {
  StepTimeParams p;
  p.gemm_fraction = 0.7, p.fp8_gemm_fraction = 0.6, p.fp4_gemm_fraction = 0.5, p.grouped_gemm_fraction = 0.7;
  p.hbm_fraction = 0.85, p.kv_read_fraction = 0.85, p.attention_fraction = 0.4, p.overlap_loss = 0.3;
  p.allreduce_efficiency = 0.6, p.allreduce_latency_s = 10e-6;
  p.layer_overhead_s = 5e-6, p.moe_layer_overhead_s = 10e-6, p.eager_layer_overhead_s = 100e-6;
  p.step_overhead_s = 1e-3, p.sequence_overhead_s = 2e-6, p.request_overhead_s = 5e-3;
  return p;
}

namespace {

// The variables of one fit and the rows each one moves.
struct Variable {
  enum Kind { kBase, kDeviation, kArch, kMtp } kind = kBase;
  int param = 0;       // step parameter (kBase, kDeviation)
  size_t profile = 0;  // kDeviation
  GpuArch arch = GpuArch::kHopper;  // kArch
  Map map = Map::kFraction;
  std::vector<size_t> rows;  // indices into the fitted rows
};

class Fitter {
 public:
  Fitter(std::span<const PreparedRow> rows, const std::vector<bool>& use);
  FitResult run(const SearchControl* control);

 private:
  CalibrationParams decode(const std::vector<double>& x, StepTimeParams* pooled) const;
  // Residual i of the least-squares problem at p (decoded from x): a row's robust residual, then one
  // prior residual per base and deviation variable.
  double residual(size_t i, const std::vector<double>& x, const CalibrationParams& p) const;
  double log_error(size_t row, const CalibrationParams& p) const;

  std::vector<const PreparedRow*> fit_;
  std::vector<Variable> vars_;
  std::vector<size_t> prior_var_;  // residual fit_.size() + k: the prior of variable prior_var_[k]
  std::vector<double> x0_;         // the start
  FitResult res_;
};

Fitter::Fitter(std::span<const PreparedRow> rows, const std::vector<bool>& use) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (use[i] && rows[i].skipped.empty()) fit_.push_back(&rows[i]);
  }
  res_.rows = static_cast<int64_t>(fit_.size());
  std::vector<size_t> all(fit_.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  const StepTimeParams start = fit_start_params();
  for (int k = 0; k < kStepTimeParamCount; ++k) {
    vars_.push_back({Variable::kBase, k, 0, GpuArch::kHopper, step_map(k), all});
  }
  std::array<std::vector<size_t>, kProfileCount> by_profile;
  std::array<std::vector<size_t>, kGpuArchCount> by_arch;
  std::vector<size_t> mtp;
  for (size_t i = 0; i < fit_.size(); ++i) {
    const PreparedRow& r = *fit_[i];
    by_profile[static_cast<size_t>(r.engine.family)].push_back(i);
    by_arch[static_cast<size_t>(factor_family(r.pool.d.arch))].push_back(i);
    if (r.pool.d.spec_method == SpecMethod::kMtp) mtp.push_back(i);
  }
  for (size_t f = 0; f < kProfileCount; ++f) {
    res_.rows_by_profile[f] = static_cast<int64_t>(by_profile[f].size());
    if (by_profile[f].empty()) continue;
    for (int k = 0; k < kStepTimeParamCount; ++k) {
      vars_.push_back({Variable::kDeviation, k, f, GpuArch::kHopper, step_map(k), by_profile[f]});
    }
  }
  for (GpuArch a : kAllGpuArchs) {
    res_.rows_by_arch[static_cast<size_t>(a)] = static_cast<int64_t>(by_arch[static_cast<size_t>(a)].size());
    // Hopper is the reference (1); a GPU of no known family gets none.
    if (a == GpuArch::kHopper || a == GpuArch::kUnknown || by_arch[static_cast<size_t>(a)].empty()) continue;
    vars_.push_back({Variable::kArch, 0, 0, a, Map::kFactor, by_arch[static_cast<size_t>(a)]});
  }
  res_.mtp_rows = static_cast<int64_t>(mtp.size());
  if (!mtp.empty()) vars_.push_back({Variable::kMtp, 0, 0, GpuArch::kHopper, Map::kUnit, mtp});
  for (size_t j = 0; j < vars_.size(); ++j) {
    Variable& v = vars_[j];
    switch (v.kind) {
      case Variable::kBase: x0_.push_back(to_x(v.map, step_param(start, v.param))); break;
      case Variable::kDeviation: x0_.push_back(0); break;
      case Variable::kArch: x0_.push_back(to_x(Map::kFactor, 1)); break;
      case Variable::kMtp: x0_.push_back(to_x(Map::kUnit, kCalibrationMtpAcceptance)); break;
    }
    if (v.kind == Variable::kBase || v.kind == Variable::kDeviation) {  // the variable also moves its prior
      v.rows.push_back(fit_.size() + prior_var_.size());
      prior_var_.push_back(j);
    }
  }
}

CalibrationParams Fitter::decode(const std::vector<double>& x, StepTimeParams* pooled) const {
  CalibrationParams c;
  StepTimeParams base;
  std::array<std::array<double, kStepTimeParamCount>, kProfileCount> dev{};
  for (size_t j = 0; j < vars_.size(); ++j) {
    const Variable& v = vars_[j];
    switch (v.kind) {
      case Variable::kBase: set_step_param(&base, v.param, to_value(v.map, x[j])); break;
      case Variable::kDeviation: dev[v.profile][static_cast<size_t>(v.param)] = x[j]; break;
      case Variable::kArch: base.arch_factor[static_cast<size_t>(v.arch)] = to_value(Map::kFactor, x[j]); break;
      case Variable::kMtp: c.mtp_acceptance = to_value(Map::kUnit, x[j]); break;
    }
  }
  for (size_t f = 0; f < kProfileCount; ++f) {
    StepTimeParams p = base;
    for (int k = 0; k < kStepTimeParamCount; ++k) {
      const Map m = step_map(k);
      set_step_param(&p, k, to_value(m, to_x(m, step_param(base, k)) + dev[f][static_cast<size_t>(k)]));
    }
    c.time[f] = p;
  }
  if (pooled) *pooled = base;
  return c;
}

// ln(predicted / measured), within +-5; 5 for a row the parameters cannot serve.
double Fitter::log_error(size_t row, const CalibrationParams& p) const {
  const double predicted = predict_row(*fit_[row], p);
  if (!(predicted > 0) || !std::isfinite(predicted)) return 5.0;
  return std::clamp(std::log(predicted / fit_[row]->row->value), -5.0, 5.0);
}

// A row's residual s with s^2 the Cauchy loss of its log error r, c^2 ln(1 + (r/c)^2), signed as r: least
// squares on s minimizes the robust loss itself (no reweighting between steps, which moved the target the
// steps were judged on). A prior's residual: sqrt(weight) times the variable's distance from its centre.
double Fitter::residual(size_t i, const std::vector<double>& x, const CalibrationParams& p) const {
  if (i < fit_.size()) {
    const double r = log_error(i, p), c = kFitLossScale;
    return std::copysign(c * std::sqrt(std::log1p((r / c) * (r / c))), r);
  }
  const size_t j = prior_var_[i - fit_.size()];
  if (vars_[j].kind == Variable::kDeviation) return std::sqrt(kDeviationPrior) * x[j];
  return std::sqrt(kBasePrior) * (x[j] - x0_[j]);
}

FitResult Fitter::run(const SearchControl* control) {
  LeastSquaresProblem problem;
  problem.variables = vars_.size();
  problem.residuals = fit_.size() + prior_var_.size();
  for (const Variable& v : vars_) problem.support.push_back(v.rows);
  problem.evaluate = [&](const std::vector<double>& x, std::span<const size_t> rows, std::vector<double>* f) {
    const CalibrationParams p = decode(x, nullptr);
    for (size_t i : rows) (*f)[i] = residual(i, x, p);
  };
  LeastSquaresOptions o;
  o.max_iterations = kMaxIterations;
  o.diff_step = kDiffStep;
  o.cost_tolerance = kCostTolerance;
  o.should_stop = [&](int it) { return should_stop(control, {"iterations", it, kMaxIterations}); };
  if (fit_.empty()) {
    res_.params = decode(x0_, &res_.pooled);
    return res_;
  }
  const LeastSquaresResult ls = levenberg_marquardt(problem, x0_, o);
  res_.iterations = ls.iterations;
  res_.evaluations = ls.evaluations;
  res_.stop = std::string(ls.stop);
  res_.params = decode(ls.x, &res_.pooled);
  double loss = 0;
  for (size_t i = 0; i < fit_.size(); ++i) {
    const double r = log_error(i, res_.params);
    loss += kFitLossScale * kFitLossScale * std::log1p((r / kFitLossScale) * (r / kFitLossScale));
  }
  res_.loss = loss / static_cast<double>(fit_.size());
  return res_;
}

// The value of every parameter a spread reports, by name: the pooled step parameters, the architecture
// factors, the MTP acceptance.
std::vector<std::pair<std::string, double>> reported_params(const StepTimeParams& pooled, double mtp) {
  std::vector<std::pair<std::string, double>> out;
  for (int k = 0; k < kStepTimeParamCount; ++k) out.emplace_back(std::string(step_param_name(k)), step_param(pooled, k));
  for (GpuArch a : kAllGpuArchs) out.emplace_back(arch_factor_name(a), pooled.arch_factor[static_cast<size_t>(a)]);
  out.emplace_back("mtp_acceptance", mtp);
  return out;
}

}  // namespace

FitResult fit_calibration(std::span<const PreparedRow> rows, const std::vector<bool>& use,
                          const SearchControl* control) {
  return Fitter(rows, use).run(control);
}

std::string_view cv_kind_name(CvKind k) {
  switch (k) {
    case CvKind::kGpu: return "gpu";
    case CvKind::kModel: return "model";
    case CvKind::kRelease: return "release";
  }
  return "?";
}

std::string cv_group(const PreparedRow& r, CvKind k) {
  switch (k) {
    case CvKind::kGpu: return r.row->gpu;
    case CvKind::kModel: return r.model;
    case CvKind::kRelease: {  // "sglang 0.5", "trtllm unrecorded"
      const std::string key(engine_family_info(r.engine.family).key);
      if (!r.engine.version) return key + " unrecorded";
      return key + " " + format_engine_version({r.engine.version->major, r.engine.version->minor, 0});
    }
  }
  return "";
}

CrossValidation cross_validate(std::span<const PreparedRow> rows, std::span<const CvKind> kinds,
                               const FitResult& full, const SearchControl* control) {
  CrossValidation cv;
  int64_t done = 0;
  for (CvKind kind : kinds) {
    std::set<std::string> groups;
    for (const PreparedRow& r : rows) {
      if (r.skipped.empty()) groups.insert(cv_group(r, kind));
    }
    CvSummary sum;
    sum.kind = kind;
    std::vector<double> pooled;
    std::array<std::vector<double>, kDataRegimeCount> pooled_r;
    std::map<std::string, std::vector<double>> values;
    for (const std::string& g : groups) {
      if (should_stop(control, {"folds", done++, 0})) return cv;  // the caller returns control->status()
      std::vector<bool> use(rows.size(), false);
      std::vector<size_t> test;
      for (size_t i = 0; i < rows.size(); ++i) {
        if (!rows[i].skipped.empty()) continue;
        (cv_group(rows[i], kind) == g ? test.push_back(i) : void(use[i] = true));
      }
      const FitResult fit = fit_calibration(rows, use, control);
      CvFold fold;
      fold.kind = kind;
      fold.held_out = g;
      fold.params = fit.params;
      fold.pooled = fit.pooled;
      std::vector<double> e;
      std::array<std::vector<double>, kDataRegimeCount> er;
      for (size_t i : test) {
        const double predicted = predict_row(rows[i], fit.params);
        const double err = std::fabs(predicted / rows[i].row->value - 1);
        e.push_back(err);
        pooled.push_back(err);
        for (size_t k = 0; k < kDataRegimeCount; ++k) {
          if (!rows[i].regimes[k]) continue;
          er[k].push_back(err);
          pooled_r[k].push_back(err);
        }
      }
      const int64_t n = static_cast<int64_t>(e.size());
      fold.test = summarize_errors(std::move(e), n, 0);
      for (size_t k = 0; k < kDataRegimeCount; ++k) {
        const int64_t nk = static_cast<int64_t>(er[k].size());
        fold.test_by_regime[k] = summarize_errors(std::move(er[k]), nk, 0);
      }
      for (const auto& [name, v] : reported_params(fit.pooled, fit.params.mtp_acceptance)) values[name].push_back(v);
      cv.folds.push_back(std::move(fold));
      ++sum.folds;
    }
    const int64_t n = static_cast<int64_t>(pooled.size());
    sum.pooled = summarize_errors(std::move(pooled), n, 0);
    for (size_t k = 0; k < kDataRegimeCount; ++k) {
      const int64_t nk = static_cast<int64_t>(pooled_r[k].size());
      sum.by_regime[k] = summarize_errors(std::move(pooled_r[k]), nk, 0);
    }
    for (const auto& [name, v] : reported_params(full.pooled, full.params.mtp_acceptance)) {
      std::vector<double> s = values[name];
      if (s.empty()) continue;
      std::sort(s.begin(), s.end());
      sum.spread.push_back({name, v, s.front(), s[s.size() / 2], s.back()});
    }
    cv.kinds.push_back(std::move(sum));
  }
  return cv;
}

}  // namespace modelcalc
