// Errors as values. A Status is either OK or an error with a code and one
// line of text that names the offending field and what is allowed. The text
// is made one line here (control characters escaped), so an error that
// echoes hostile input is safe to print wherever it lands.
#ifndef MODELCALC_STATUS_H_
#define MODELCALC_STATUS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace modelcalc {

namespace status_internal {
// `text` on one line: control characters and bytes that are not UTF-8 escaped
// (\n, \t, \xNN, \u00NN); defined in src/core/quantity.cc.
std::string one_line(std::string_view text);
}  // namespace status_internal

class Status {
 public:
  enum class Code { kOk, kInvalidArgument, kNotFound, kOverflow, kIoError, kNotMet, kCancelled, kBudgetExceeded };

  Status() = default;  // OK
  static Status Ok() { return Status(); }
  // Bad user input: `field` is the flag or config key, `what` says what is allowed.
  static Status InvalidArgument(std::string_view field, std::string_view what) {
    return Status(Code::kInvalidArgument, std::string(field) + ": " + std::string(what));
  }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  // An exact count did not fit in 64 bits.
  static Status Overflow(std::string_view field) {
    return Status(Code::kOverflow,
                  std::string(field) + ": value too large, a count overflows 64 bits");
  }
  static Status IoError(std::string msg) { return Status(Code::kIoError, std::move(msg)); }
  // Valid input, but no answer meets the targets (plan): the CLI prints the
  // command's output AND this line, and exits 1.
  static Status NotMet(std::string msg) { return Status(Code::kNotMet, std::move(msg)); }
  // A search stopped before its answer (modelcalc/cancel.h): its token was
  // cancelled, or it spent the CPU budget it was given.
  static Status Cancelled(std::string msg) { return Status(Code::kCancelled, std::move(msg)); }
  static Status BudgetExceeded(std::string msg) { return Status(Code::kBudgetExceeded, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return msg_; }

 private:
  // Every message is one line, whatever input it echoes.
  Status(Code c, std::string_view m) : code_(c), msg_(status_internal::one_line(m)) {}
  Code code_ = Code::kOk;
  std::string msg_;
};

// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T v) : v_(std::move(v)) {}             // NOLINT(google-explicit-constructor)
  Result(Status s) : v_(std::move(s)) {}        // NOLINT(google-explicit-constructor)
  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: ok()
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  // REQUIRES: !ok()
  const Status& status() const { return std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace modelcalc

#define MC_RETURN_IF_ERROR(expr)       \
  do {                                 \
    ::modelcalc::Status mc_s_ = (expr); \
    if (!mc_s_.ok()) return mc_s_;     \
  } while (0)

// `lhs = value of expr`, or return its Status from the enclosing function.
// expr is a Result<T>; lhs may declare a variable: MC_ASSIGN_OR_RETURN(auto x, f());
#define MC_ASSIGN_OR_RETURN(lhs, expr)          \
  auto MC_CONCAT_(mc_r_, __LINE__) = (expr);    \
  if (!MC_CONCAT_(mc_r_, __LINE__).ok())        \
    return MC_CONCAT_(mc_r_, __LINE__).status(); \
  lhs = std::move(MC_CONCAT_(mc_r_, __LINE__)).value()
#define MC_CONCAT_(a, b) MC_CONCAT_INNER_(a, b)
#define MC_CONCAT_INNER_(a, b) a##b

#endif  // MODELCALC_STATUS_H_
