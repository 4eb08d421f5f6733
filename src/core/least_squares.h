// Nonlinear least squares by Levenberg-Marquardt: the solver under
// calibrate's fit (calibrate_fit.cc), kept apart so it is tested on problems
// whose minimum is known by hand (calibrate_test.cc).
#ifndef MODELCALC_CORE_LEAST_SQUARES_H_
#define MODELCALC_CORE_LEAST_SQUARES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

namespace modelcalc {

// Minimizes 0.5 * sum_i F_i(x)^2 over x in R^n.
struct LeastSquaresProblem {
  size_t variables = 0, residuals = 0;
  // Writes F_i(x) for every i in `rows` into (*f)[i] (f has `residuals` entries; others untouched).
  // REQUIRES: deterministic (the Jacobian is by finite differences).
  std::function<void(const std::vector<double>& x, std::span<const size_t> rows, std::vector<double>* f)> evaluate;
  // support[j]: the residuals variable j moves (the Jacobian's nonzero rows); empty = every residual.
  std::vector<std::vector<size_t>> support;
};

struct LeastSquaresOptions {
  int max_iterations = 200;        // Jacobians evaluated, at most
  int max_rejections = 30;         // consecutive rejected steps before giving up (the damping has grown ~1e9x)
  double diff_step = 1e-6;         // forward-difference step in x (x is the caller's unitless scale)
  double max_step = 3.0;           // a step longer than this (max norm) is shortened along its direction
  double gradient_tolerance = 1e-10;  // stop: |gradient|_inf below this
  double step_tolerance = 1e-10;      // stop: |step| below this * (|x| + this) (2-norms)
  double cost_tolerance = 1e-12;      // stop: an accepted step's relative decrease of the cost below this
  // Polled before each iteration; true stops the solve at its best point.
  std::function<bool(int iteration)> should_stop;
};

struct LeastSquaresResult {
  std::vector<double> x;     // the best point found
  double cost = 0;           // 0.5 * |F(x)|^2
  int iterations = 0;        // Jacobians evaluated
  int64_t evaluations = 0;   // residuals evaluated (F_i one at a time)
  // Why it stopped: "gradient", "step", "cost" (converged), "iterations", "rejections", "stopped".
  std::string_view stop = "iterations";
};

// Levenberg-Marquardt (Madsen, Nielsen & Tingleff, "Methods for non-linear
// least squares problems", 2004, algorithm 3.16) from `x0`: the damping mu
// scales a diagonal D that holds the largest diagonal of J^T J seen per
// variable (Moré 1978), so a variable whose curvature vanishes at some point
// is still damped; a step is accepted when the cost falls, mu then shrinks by
// the gain ratio's rule (max(1/3, 1 - (2 rho - 1)^3)) and grows by 2, 4, 8, ...
// on consecutive rejections.
LeastSquaresResult levenberg_marquardt(const LeastSquaresProblem& p, std::vector<double> x0,
                                       const LeastSquaresOptions& o = {});

}  // namespace modelcalc

#endif  // MODELCALC_CORE_LEAST_SQUARES_H_
