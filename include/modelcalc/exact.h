// Exact 64-bit integer arithmetic with a sticky overflow flag. Parameter and
// byte counts are computed in Exact so that a count too large for int64_t is
// reported, never wrapped. Allocation-free and constexpr.
#ifndef MODELCALC_EXACT_H_
#define MODELCALC_EXACT_H_

#include <cstdint>

namespace modelcalc {

class Exact {
 public:
  constexpr Exact() = default;
  constexpr Exact(int64_t v) : v_(v) {}  // NOLINT(google-explicit-constructor)

  // The count; meaningless (but defined) once overflow() is true.
  constexpr int64_t value() const { return v_; }
  // True once any operation that produced this value overflowed int64_t.
  constexpr bool overflow() const { return overflow_; }

  // The value is always computed (wrapping) and never depends on the flags,
  // so a caller that reads only value() (after checking the same expression
  // once, as compute_size's callers do) pays for no flag at all: the compiler
  // drops the unused flag arithmetic (issue #14).
  friend constexpr Exact operator+(Exact a, Exact b) {
    Exact r;
    const bool o = __builtin_add_overflow(a.v_, b.v_, &r.v_);
    r.overflow_ = a.overflow_ | b.overflow_ | o;
    return r;
  }
  friend constexpr Exact operator-(Exact a, Exact b) {
    Exact r;
    const bool o = __builtin_sub_overflow(a.v_, b.v_, &r.v_);
    r.overflow_ = a.overflow_ | b.overflow_ | o;
    return r;
  }
  friend constexpr Exact operator*(Exact a, Exact b) {
    Exact r;
    const bool o = __builtin_mul_overflow(a.v_, b.v_, &r.v_);
    r.overflow_ = a.overflow_ | b.overflow_ | o;
    return r;
  }
  // The integer a double holds (truncated toward zero), or an overflowed
  // Exact when it is NaN or outside int64_t's range, where a static_cast
  // would be undefined behaviour.
  static constexpr Exact from_double(double v) {
    Exact r;
    if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0)) {
      r.overflow_ = true;
      return r;
    }
    r.v_ = static_cast<int64_t>(v);
    return r;
  }
  constexpr Exact& operator+=(Exact b) { return *this = *this + b; }
  constexpr Exact& operator*=(Exact b) { return *this = *this * b; }

 private:
  friend constexpr Exact ceil_div(Exact a, int64_t b);
  int64_t v_ = 0;
  bool overflow_ = false;
};

// Ceiling division for non-negative a and positive b; overflowed when a is.
// REQUIRES: b > 0.
constexpr Exact ceil_div(Exact a, int64_t b) {
  // In unsigned arithmetic: the same quotient for the a >= 0 this requires,
  // and a division by a constant power of two (bits to bytes) is a shift and
  // a mask, without a signed division's sign fix-ups (issue #14).
  const uint64_t ua = static_cast<uint64_t>(a.v_), ub = static_cast<uint64_t>(b);
  Exact r(static_cast<int64_t>(ua / ub + (ua % ub != 0 ? 1 : 0)));
  r.overflow_ = a.overflow_;
  return r;
}

}  // namespace modelcalc

#endif  // MODELCALC_EXACT_H_
