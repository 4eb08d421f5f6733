// Parsing of numbers typed by users: counts with K/M/B/T suffixes and
// hardware quantities with decimal units (1 GB = 1e9 B, 1 TB/s = 1e12 B/s).
// Every failure names the flag and says what is allowed.
#ifndef MODELCALC_QUANTITY_H_
#define MODELCALC_QUANTITY_H_

#include <cstdint>
#include <string_view>

#include "modelcalc/status.h"

namespace modelcalc {

// A positive whole count: "64000", "64K", "1.5M", "7B", "2T" (K = 1e3, M = 1e6,
// B or G = 1e9, T = 1e12). Must come out integral and fit in int64_t.
Result<int64_t> parse_count(std::string_view text, std::string_view flag);
// A non-negative real count with the same suffixes, also "5.76e23".
Result<double> parse_real_count(std::string_view text, std::string_view flag);
// A non-negative real without suffixes ("0.10", "2.5").
Result<double> parse_real(std::string_view text, std::string_view flag);
// Bytes: "80GB", "192 GB", "40e9", "1.5TB", "24GiB" (binary units exact).
Result<double> parse_bytes(std::string_view text, std::string_view flag);
// Bytes per second: "3.35TB/s", "900 GB/s". A size without "/s" is refused.
Result<double> parse_bandwidth(std::string_view text, std::string_view flag);
// FLOP per second: "989.4TFLOPS", "989.4 TFLOP/s", "1.3PFLOPS", "1e15".
Result<double> parse_flops(std::string_view text, std::string_view flag);

// A fraction in [0, 1], as a decimal or a percentage: "0.1" and "10%" alike.
Result<double> parse_fraction(std::string_view text, std::string_view flag);

}  // namespace modelcalc

#endif  // MODELCALC_QUANTITY_H_
