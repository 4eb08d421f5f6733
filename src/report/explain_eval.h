// Checks an --explain line by arithmetic: evaluates the substituted form
// ("2 × 27 × 3,072 × 2 B × 8,192") and the shown value ("2.718 GB") as
// intervals of their printed precision, so a test can ask whether the
// substitution really gives the value shown. Used by the explain-consistency
// test; it knows the number and unit spellings of report.cc's renderer.
#ifndef MODELCALC_EXPLAIN_EVAL_H_
#define MODELCALC_EXPLAIN_EVAL_H_

#include <string_view>

#include "modelcalc/status.h"

namespace modelcalc {

// [lo, hi]: every value a printed number could stand for.
struct Interval {
  double lo = 0;
  double hi = 0;
  bool overlaps(const Interval& o, double rel_slack = 1e-9) const;
};

// Evaluates a substituted formula. Grammar: numbers with grouping commas,
// decimals and exponents ("8,192", "3.35", "1e6"), an optional unit with a
// decimal prefix ("2 B", "3.35 TB/s", "989.4 TFLOP/s", "12 ms", "10 %", "$2.5"),
// + - − × x · * / ÷ ^ ² ³, parentheses, floor ceil min max sqrt, and the
// comparisons < ≤ > ≥ (true = 1, false = 0). A number with a decimal point,
// an exponent or a unit prefix stands for the interval of its last digit; a
// grouped integer is exact. An identifier left unsubstituted is an error.
Result<Interval> eval_substitution(std::string_view text);

// Parses a value as report.cc shows it: the first number with its unit
// ("39,019,610,112 B (39.02 GB)", "12.3 %", "×1.234", "$0.12", "4.1 ms"), or
// yes / no (1 / 0). Anything else (a word such as "never") is an error.
Result<Interval> parse_shown(std::string_view text);

}  // namespace modelcalc

#endif  // MODELCALC_EXPLAIN_EVAL_H_
