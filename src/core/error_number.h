// Numbers inside core error messages ("must be a fraction ..., got 1.5").
// Private to core: errors name FIELDS and may quote the offending number, so
// core needs these two renderings and nothing more. Human-readable quantities
// with units are rendered by src/report/units.h, never here.
#ifndef MODELCALC_ERROR_NUMBER_H_
#define MODELCALC_ERROR_NUMBER_H_

#include <string>

namespace modelcalc {

// Shortest text that reads back as `v` ("0.5", "1e+20", "inf", "nan").
std::string error_number(double v);
// `sig` significant digits, no trailing zeros: 1.23456789 -> "1.23457" (sig 6),
// scientific outside 1e-3 <= |v| < 1e7 ("3.859e14").
std::string error_number_sig(double v, int sig);

}  // namespace modelcalc

#endif  // MODELCALC_ERROR_NUMBER_H_
