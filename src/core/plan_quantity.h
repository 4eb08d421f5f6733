// Parsing of the inputs `plan` takes beyond quantity.h: durations (SLOs),
// rates (load), and comma-separated lists. Bounded; every failure names the
// flag and says what is allowed. Core layer: `flag` is whatever name the
// caller wants in the message.
#ifndef MODELCALC_PLAN_QUANTITY_H_
#define MODELCALC_PLAN_QUANTITY_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "modelcalc/status.h"

namespace modelcalc {

// Longest duration accepted (one day): an SLO beyond it is a typo.
inline constexpr double kMaxDurationSeconds = 86400;
// Largest rate accepted (requests/s, tokens/s, tokens/s per user, sequences).
inline constexpr double kMaxRate = 1e12;

// A positive duration WITH a unit: "1s", "1.5 s", "50ms", "200us", "200µs",
// "2min". Plain numbers are refused (seconds or milliseconds?), as is any other
// unit ("5GB": not a duration). Result in seconds, in (0, kMaxDurationSeconds].
Result<double> parse_duration(std::string_view text, std::string_view flag);

// A positive rate per second: "20", "20/s", "1.5K", "2k/s", with an optional
// unit word in `units` before "/s" (e.g. {"req", "requests"} or {"tok", "tokens"}):
// "50K tokens/s". K = 1e3, M = 1e6. In (0, kMaxRate]. Any other unit is refused.
Result<double> parse_rate(std::string_view text, std::string_view flag,
                          std::initializer_list<std::string_view> units);

// "a,b, c" -> {"a", "b", "c"}: items trimmed, none empty, none repeated
// (compared as typed). An empty list is refused.
Result<std::vector<std::string>> split_comma_list(std::string_view text, std::string_view flag);

}  // namespace modelcalc

#endif  // MODELCALC_PLAN_QUANTITY_H_
