#include "modelcalc/cancel.h"

#include "error_number.h"

#include <time.h>

#include <string>
#include <utility>

namespace modelcalc {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

SearchControl::SearchControl(CancelToken token, double cpu_budget_s,
                             std::function<void(const SearchProgress&)> progress)
    : token_(std::move(token)),
      budget_s_(cpu_budget_s > 0 ? cpu_budget_s : 0),
      start_s_(budget_s_ > 0 ? thread_cpu_seconds() : 0),
      progress_(std::move(progress)) {}

bool SearchControl::stop(const SearchProgress& where) const {
  if (stopped_ != Status::Code::kOk) return true;
  if (token_.cancelled()) {
    stopped_ = Status::Code::kCancelled;
    return true;
  }
  if (budget_s_ > 0 && thread_cpu_seconds() - start_s_ > budget_s_) {
    stopped_ = Status::Code::kBudgetExceeded;
    return true;
  }
  if (progress_) progress_(where);
  return false;
}

Status SearchControl::status() const {
  switch (stopped_) {
    case Status::Code::kCancelled: return Status::Cancelled("cancelled before the search finished");
    case Status::Code::kBudgetExceeded:
      return Status::BudgetExceeded("the search needs more than its CPU budget of " +
                                    error_number_sig(budget_s_, 3) + " s; narrow it (fewer GPUs, dtypes, batches or rows)");
    default: return Status::Ok();
  }
}

}  // namespace modelcalc
