#include "least_squares.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace modelcalc {

namespace {

// Solves A d = b (Gaussian elimination with partial pivoting); A is n x n, row-major, taken by value.
bool solve(std::vector<double> a, std::vector<double> b, size_t n, std::vector<double>* d) {
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r) {
      if (std::fabs(a[r * n + c]) > std::fabs(a[piv * n + c])) piv = r;
    }
    if (!(std::fabs(a[piv * n + c]) > 1e-300)) return false;
    if (piv != c) {
      for (size_t k = 0; k < n; ++k) std::swap(a[c * n + k], a[piv * n + k]);
      std::swap(b[c], b[piv]);
    }
    for (size_t r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / a[c * n + c];
      if (f == 0) continue;
      for (size_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
      b[r] -= f * b[c];
    }
  }
  d->assign(n, 0);
  for (size_t c = n; c-- > 0;) {
    double s = b[c];
    for (size_t k = c + 1; k < n; ++k) s -= a[c * n + k] * (*d)[k];
    (*d)[c] = s / a[c * n + c];
  }
  return std::all_of(d->begin(), d->end(), [](double v) { return std::isfinite(v); });
}

double half_norm2(const std::vector<double>& f) {
  double s = 0;
  for (double v : f) s += v * v;
  return 0.5 * s;
}

double norm2(const std::vector<double>& v) { return std::sqrt(2 * half_norm2(v)); }

// The state of one solve: the point, its residuals, the linearization there.
class Solver {
 public:
  Solver(const LeastSquaresProblem& p, const LeastSquaresOptions& o) : p_(p), o_(o), every_(p.residuals) {
    std::iota(every_.begin(), every_.end(), size_t{0});
  }
  LeastSquaresResult run(std::vector<double> x);

 private:
  std::span<const size_t> support(size_t j) const {
    return p_.support.empty() || p_.support[j].empty() ? std::span<const size_t>(every_) : p_.support[j];
  }
  void evaluate(const std::vector<double>& x, std::span<const size_t> rows, std::vector<double>* f) {
    p_.evaluate(x, rows, f);
    res_.evaluations += static_cast<int64_t>(rows.size());
  }
  // J (forward differences), A = J^T J, g = J^T F at x_, and the scaling D.
  bool linearize();  // false: should_stop said stop before the Jacobian was whole
  // The damped step for mu, shortened to max_step; false when the system is singular.
  bool step(double mu, std::vector<double>* h) const;

  const LeastSquaresProblem& p_;
  const LeastSquaresOptions& o_;
  std::vector<size_t> every_;
  std::vector<double> x_, f_, jac_, a_, g_, d_;
  LeastSquaresResult res_;
};

bool Solver::linearize() {
  const size_t n = p_.variables, m = p_.residuals;
  std::vector<double> ft(m);
  for (size_t j = 0; j < n; ++j) {
    // Polled per column too: a column costs a pass over its rows, an iteration all of them (a web client's
    // hang-up or SIGTERM stops a fit within a column's time, not an iteration's).
    if (j > 0 && o_.should_stop && o_.should_stop(res_.iterations)) return false;
    std::vector<double> xh = x_;
    xh[j] += o_.diff_step;
    evaluate(xh, support(j), &ft);
    for (size_t i : support(j)) jac_[j * m + i] = (ft[i] - f_[i]) / o_.diff_step;
  }
  for (size_t j = 0; j < n; ++j) {
    g_[j] = 0;
    for (size_t i : support(j)) g_[j] += jac_[j * m + i] * f_[i];
    for (size_t k = j; k < n; ++k) {
      double s = 0;
      for (size_t i : support(j)) s += jac_[j * m + i] * jac_[k * m + i];
      a_[j * n + k] = a_[k * n + j] = s;
    }
    d_[j] = std::max(d_[j], a_[j * n + j]);
  }
  return true;
}

bool Solver::step(double mu, std::vector<double>* h) const {
  const size_t n = p_.variables;
  const double dmax = *std::max_element(d_.begin(), d_.end());
  std::vector<double> damped = a_, minus_g(n);
  for (size_t j = 0; j < n; ++j) {
    // A variable no residual has moved yet is damped as the stiffest one: it stays put until it matters.
    damped[j * n + j] += mu * (d_[j] > 0 ? d_[j] : std::max(dmax, 1.0));
    minus_g[j] = -g_[j];
  }
  if (!solve(std::move(damped), std::move(minus_g), n, h)) return false;
  double longest = 0;
  for (double v : *h) longest = std::max(longest, std::fabs(v));
  if (longest > o_.max_step) {
    for (double& v : *h) v *= o_.max_step / longest;
  }
  return true;
}

LeastSquaresResult Solver::run(std::vector<double> x) {
  const size_t n = p_.variables, m = p_.residuals;
  x_ = std::move(x);
  f_.assign(m, 0.0), jac_.assign(n * m, 0.0), a_.assign(n * n, 0.0), g_.assign(n, 0.0), d_.assign(n, 0.0);
  evaluate(x_, every_, &f_);
  double cost = half_norm2(f_), mu = -1, nu = 2;
  int rejections = 0;
  std::vector<double> h, xn, ft(m);
  while (n > 0) {
    if (res_.iterations >= o_.max_iterations) break;  // res_.stop stays "iterations"
    if (o_.should_stop && o_.should_stop(res_.iterations)) {
      res_.stop = "stopped";
      break;
    }
    ++res_.iterations;
    if (!linearize()) {
      --res_.iterations;  // this Jacobian was not finished
      res_.stop = "stopped";
      break;
    }
    if (mu < 0) mu = 1e-3 * std::max(*std::max_element(d_.begin(), d_.end()), 1e-300);
    double gmax = 0;
    for (double v : g_) gmax = std::max(gmax, std::fabs(v));
    if (gmax <= o_.gradient_tolerance) {
      res_.stop = "gradient";
      break;
    }
    bool accepted = false;
    while (!accepted) {
      if (!step(mu, &h)) {
        mu *= nu, nu *= 2;
        if (++rejections >= o_.max_rejections) break;
        continue;
      }
      if (norm2(h) <= o_.step_tolerance * (norm2(x_) + o_.step_tolerance)) {
        res_.stop = "step";
        break;
      }
      xn = x_;
      for (size_t j = 0; j < n; ++j) xn[j] += h[j];
      evaluate(xn, every_, &ft);
      const double cost_n = half_norm2(ft);
      // The linear model's decrease for h: -(g.h) - h.A.h / 2.
      double predicted = 0;
      for (size_t j = 0; j < n; ++j) {
        double ah = 0;
        for (size_t k = 0; k < n; ++k) ah += a_[j * n + k] * h[k];
        predicted -= g_[j] * h[j] + 0.5 * h[j] * ah;
      }
      if (cost_n < cost && predicted > 0) {
        const double rho = (cost - cost_n) / predicted, decrease = (cost - cost_n) / cost;
        x_ = xn, f_ = ft, cost = cost_n;
        mu *= std::max(1.0 / 3, 1 - std::pow(2 * rho - 1, 3));
        nu = 2, rejections = 0, accepted = true;
        if (decrease < o_.cost_tolerance) res_.stop = "cost";
      } else {
        mu *= nu, nu *= 2;
        if (++rejections >= o_.max_rejections) break;
      }
    }
    if (!accepted) {
      if (res_.stop != "step") res_.stop = "rejections";
      break;
    }
    if (res_.stop == "cost" || cost == 0) {
      res_.stop = "cost";
      break;
    }
  }
  res_.x = x_;
  res_.cost = cost;
  return res_;
}

}  // namespace

LeastSquaresResult levenberg_marquardt(const LeastSquaresProblem& p, std::vector<double> x0,
                                       const LeastSquaresOptions& o) {
  return Solver(p, o).run(std::move(x0));
}

}  // namespace modelcalc
