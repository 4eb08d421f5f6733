// Number formatting shared by every renderer. Decimal units throughout.
#ifndef MODELCALC_FORMAT_H_
#define MODELCALC_FORMAT_H_

#include <cstdint>
#include <string>

#include "quantity.h"  // group_digits

namespace modelcalc {

// `sig` significant digits, plain notation for 1e-3 <= |v| < 1e7, else
// scientific ("3.859e14"); no trailing zeros after the decimal point.
std::string fmt_sig(double v, int sig = 4);
// Fixed decimals with grouped integer part: 130.4367 -> "130.4" (decimals 1).
std::string fmt_fixed(double v, int decimals);
// Decimal-prefixed value: 39019610112 B -> "39.02 GB", 3.35e12 B/s -> "3.35 TB/s".
std::string fmt_si(double v, const std::string& unit, int sig = 4);

// fmt's "{}" of a finite double, byte for byte: Dragonbox's shortest
// round-trip digits laid out as fmt 9's write() lays them out (fixed notation
// for a decimal exponent in [-4, 16), else "d.ddde+XX"; "-" for a negative
// sign, "-0" included) at `out`; returns the end of the text. Needs 48 bytes
// of room at `out`: it may write scratch bytes past the end it returns.
// The sweep writers format every real with it, without fmt's general layout
// code (issue #14); a test compares it with fmt::format("{}", v).
// REQUIRES: std::isfinite(v).
char* write_shortest(char* out, double v);

// An exact count as a double, for formulas that take reals.
inline double dbl(int64_t v) { return static_cast<double>(v); }

}  // namespace modelcalc

#endif  // MODELCALC_FORMAT_H_
