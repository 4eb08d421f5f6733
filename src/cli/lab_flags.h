// Flag helpers shared by the lab's commands (train, chinchilla, cost, mfu).
#ifndef MODELCALC_LAB_FLAGS_H_
#define MODELCALC_LAB_FLAGS_H_

#include <optional>
#include <string>
#include <string_view>

#include "inputs.h"
#include "modelcalc/gpu.h"
#include "modelcalc/status.h"

namespace modelcalc {

// A count with K/M/B/T suffixes or an exponent ("70B", "2T", "5.76e23") that
// must be > 0. Errors name `flag`.
Result<double> parse_positive_count(std::string_view text, std::string_view flag);
// A plain real number that must be > 0 ("2.50", "0.4").
Result<double> parse_positive_real(std::string_view text, std::string_view flag);

// --gpu NAME and --peak FLOPS only (no bandwidth or capacity): for commands
// that need a GPU's dense bf16 peak and nothing else.
void add_peak_flags(FlagSet& flags, GpuFlags* f);
// The GPU whose peak to use: the catalog's (with --peak overriding it), a
// custom one from --peak alone, or nullopt when neither flag was given.
// Fails, naming --gpu, when the GPU has no published dense bf16 peak.
Result<std::optional<GpuSpec>> resolve_peak_gpu(const GpuFlags& f);

}  // namespace modelcalc

#endif  // MODELCALC_LAB_FLAGS_H_
