// Stopping a long search: a cancellation token, a CPU budget and a progress
// callback, polled by the searches that can run for long (plan, sweep,
// calibrate --fit, train-plan). A front end (through app::Context) makes one
// SearchControl per request and hands it to the search in its options
// (PlanSpace::control, SweepSpec::control, ...); the search calls stop()
// between units of work and, when it returns true, returns control->status()
// instead of an answer. A null control never stops.
#ifndef MODELCALC_CANCEL_H_
#define MODELCALC_CANCEL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "modelcalc/status.h"

namespace modelcalc {

// A flag shared by its copies: cancel() on any copy is seen by all. The
// default token has no flag and is never cancelled (costs nothing); make()
// gives one that can be. Thread-safe: cancel() from one thread (a server that
// sees its client go), cancelled() from the search's.
class CancelToken {
 public:
  CancelToken() = default;
  static CancelToken make() {
    CancelToken t;
    t.flag_ = std::make_shared<std::atomic<bool>>(false);
    return t;
  }
  // REQUIRES: made by make() (a default token cannot be cancelled).
  void cancel() const {
    if (flag_) flag_->store(true, std::memory_order_relaxed);
  }
  bool cancelled() const { return flag_ && flag_->load(std::memory_order_relaxed); }
  bool can_cancel() const { return flag_ != nullptr; }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

// Where a search is, for a progress callback: `done` of `total` units of
// `stage` ("candidates", "rows", "folds", "layouts"); total 0 = not known.
struct SearchProgress {
  std::string_view stage;
  int64_t done = 0;
  int64_t total = 0;
};

// The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID): what a
// CPU budget counts. A request runs on one thread, so this is its own time.
double thread_cpu_seconds();

// What a search polls. Not thread-safe: one search, one thread, polls it.
class SearchControl {
 public:
  SearchControl() = default;
  // cpu_budget_s: CPU seconds of the calling thread the search may use from now, > 0; 0 = no limit.
  SearchControl(CancelToken token, double cpu_budget_s, std::function<void(const SearchProgress&)> progress);

  // True when the search must stop: the token was cancelled or the budget is
  // spent (status() then says which). Reports progress to the callback.
  // Costs a relaxed atomic load and, with a budget, one clock read (~0.1-0.5 µs):
  // call it between units of work that take longer (a candidate, a batch of rows).
  bool stop(const SearchProgress& where = {}) const;
  // OK until stop() returned true; then Cancelled or BudgetExceeded.
  Status status() const;
  bool active() const { return token_.can_cancel() || budget_s_ > 0 || progress_ != nullptr; }

 private:
  CancelToken token_;
  double budget_s_ = 0;
  double start_s_ = 0;
  std::function<void(const SearchProgress&)> progress_;
  mutable Status::Code stopped_ = Status::Code::kOk;
};

// True when `s` is a SearchControl's stop (Cancelled or BudgetExceeded): a caller that tolerates a failed
// sub-search must still pass this one on.
inline bool is_stop(const Status& s) {
  return s.code() == Status::Code::kCancelled || s.code() == Status::Code::kBudgetExceeded;
}

// True when `control` (may be null) says stop.
inline bool should_stop(const SearchControl* control, const SearchProgress& where = {}) {
  return control != nullptr && control->stop(where);
}

}  // namespace modelcalc

#endif  // MODELCALC_CANCEL_H_
