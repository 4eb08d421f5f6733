// Parsing of numbers typed by users: counts with K/M/B/T suffixes and
// hardware quantities with decimal units (1 GB = 1e9 B, 1 TB/s = 1e12 B/s).
// Every failure names the flag and says what is allowed.
//
// Every number is held to a stated range (docs/robustness.md; --help says the
// same): a value outside it, NaN, infinity, or a value that overflows once its
// unit is applied is an error naming the flag, never a wrapped or infinite
// number. The ranges are generous bounds on what is physically meaningful:
//   whole counts (layers, widths, tokens per sequence, sequences, GPUs): 1 .. 1e15
//   real counts (parameters, training tokens, FLOP, tokens/s):          0 .. 1e27
//   bytes (memory of one GPU, a budget, an allocation):                 0 .. 1e15 B (1 PB)
//   bandwidth of one GPU:                                               0 .. 1e15 B/s (1 PB/s)
//   dense peak of one GPU:                                              0 .. 1e18 FLOP/s (1 EFLOP/s)
//   plain numbers (prices, seconds, microseconds):                      0 .. 1e9
//   fractions:                                                          0 .. 1 (or 0% .. 100%)
// Suffixes: K = 1e3, M = 1e6, B or G = 1e9, T = 1e12 (decimal, the tool's
// convention); Ki = 2^10, Mi = 2^20, Gi = 2^30, Ti = 2^40 (binary, e.g. 8Ki =
// 8,192 tokens).
#ifndef MODELCALC_QUANTITY_H_
#define MODELCALC_QUANTITY_H_

#include <cstdint>
#include <vector>
#include <initializer_list>
#include <string>
#include <string_view>

#include "modelcalc/status.h"

namespace modelcalc {

// 19509805056 -> "19,509,805,056" (error messages and reports alike).
std::string group_digits(int64_t v);

inline constexpr int64_t kMaxCount = 1'000'000'000'000'000;  // 1e15
inline constexpr double kMaxRealCount = 1e27;
inline constexpr double kMaxBytes = 1e15;
inline constexpr double kMaxBandwidth = 1e15;
inline constexpr double kMaxFlops = 1e18;
inline constexpr double kMaxReal = 1e9;

// A positive whole count: "64000", "64K", "8Ki", "1.5M", "7B", "2T". Must come
// out integral and lie in 1 .. kMaxCount.
Result<int64_t> parse_count(std::string_view text, std::string_view flag);
// A non-negative real count with the same suffixes, also "5.76e23"; at most
// kMaxRealCount.
Result<double> parse_real_count(std::string_view text, std::string_view flag);
// A non-negative real without suffixes ("0.10", "2.5"); at most kMaxReal.
Result<double> parse_real(std::string_view text, std::string_view flag);
// A fraction in [0, 1]: "0.1" and "10%" alike.
Result<double> parse_fraction(std::string_view text, std::string_view flag);
// Bytes: "80GB", "192 GB", "40e9", "1.5TB", "24GiB" (binary units exact);
// positive, at most kMaxBytes.
Result<double> parse_bytes(std::string_view text, std::string_view flag);
// Bytes per second: "3.35TB/s", "900 GB/s". A size without "/s" is refused.
// Positive, at most kMaxBandwidth.
Result<double> parse_bandwidth(std::string_view text, std::string_view flag);
// FLOP per second: "989.4TFLOPS", "989.4 TFLOP/s", "1.3PFLOPS", "1e15".
// Positive, at most kMaxFlops.
Result<double> parse_flops(std::string_view text, std::string_view flag);

// `text` as it may be echoed in an error: at most 40 characters (longer input
// is cut, with "..."), inside single quotes. Control characters are escaped
// by the Status that carries the message (status.h), so this only bounds the length.
std::string quote_input(std::string_view text);

// `s` safe to print on one terminal line: newline, tab and CR as \n \t \r,
// other control bytes (ESC, DEL, ...) and bytes that are not UTF-8 as \xNN,
// C1 control characters as \u00NN; other UTF-8 text is kept. Backslashes are
// kept, so escaping twice changes nothing.
std::string escape_for_terminal(std::string_view s);

// A command's whole output safe to print: newlines and tabs kept, other
// control characters (CR, ESC, DEL, C1) as \u00NN, which a JSON string also
// reads back as the character, bytes that are not UTF-8 as \xNN (JSON output
// holds none: its writer refuses them). Text echoed from an input file (a TSV
// id, a config's name) cannot move the cursor or retitle the terminal.
std::string escape_output_text(std::string_view s);

// ---------------------------------------------------------------- plan: durations, rates, lists

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

#endif  // MODELCALC_QUANTITY_H_
