// "Did you mean" for names typed by users: subcommands, GPUs, presets, dials.
#ifndef MODELCALC_SUGGEST_H_
#define MODELCALC_SUGGEST_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace modelcalc {

// Lower-cases and drops ' ', '-', '_' and '.', so "H100-SXM", "h100_sxm" and
// "h100 sxm" compare equal.
std::string normalize_name(std::string_view s);
// normalize_name(s) == normalized, without building the string (a lookup
// compares many names against one typed name).
bool normalizes_to(std::string_view s, std::string_view normalized);

// Up to `max` candidates closest to `typed` (edit distance on normalized
// names, prefix matches first), closest first. Empty when nothing is close.
std::vector<std::string> closest_names(std::string_view typed, std::span<const std::string> candidates,
                                       size_t max = 3);

// The command-line flag closest to `typed` among `flags` (each spelled with
// its dashes: "--seq", "-L"), or "" when none is close. A long flag
// ("--dp-atention") is compared with the long flags only and a short one with
// the short ones, so "--hiden" gets "--hidden", never "-h". Ranked by edit
// distance (normalized names), so a longer near-miss beats a short flag the
// typed name merely starts with ("--dp-atention" -> "--dp-attention", not
// "--dp"); a flag the typed name begins counts whatever its length
// ("--max-num" -> "--max-num-seqs").
std::string closest_flag(std::string_view typed, std::span<const std::string> flags);

// "; did you mean 'a' or 'b'?" or "" when there is no suggestion.
std::string did_you_mean(std::string_view typed, std::span<const std::string> candidates);

}  // namespace modelcalc

#endif  // MODELCALC_SUGGEST_H_
