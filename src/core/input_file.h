// Reading files a user names (config.json, evidence, tradeoff candidates,
// --lens-file): the one place that opens them, and the one strict JSON parser
// every reader uses.
#ifndef MODELCALC_INPUT_FILE_H_
#define MODELCALC_INPUT_FILE_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "modelcalc/status.h"

namespace modelcalc {

// Input files are at most 16 MiB (the largest real config.json is a few KB).
inline constexpr size_t kMaxInputFileBytes = size_t{16} << 20;
// JSON nests at most 64 arrays/objects deep (real configs nest 3 or 4).
inline constexpr int kMaxJsonDepth = 64;

// The whole content of the regular file at `path`. A folder, FIFO, device or
// socket is refused without reading (never blocks: opened non-blocking), as is
// a file larger than kMaxInputFileBytes. Errors are one line naming the path:
// "PATH: is a FIFO, not a regular file".
Result<std::string> read_input_file(const std::string& path);

// The first `max_bytes` bytes of the regular file at `path` (fewer if it is
// shorter), refused as read_input_file refuses what is not a regular file;
// *file_size is set to the file's size. For formats read by their header
// (safetensors), whatever the file's size. REQUIRES: file_size != nullptr.
Result<std::string> read_input_prefix(const std::string& path, size_t max_bytes, int64_t* file_size);

// Parses `text` as JSON, strictly: a duplicate key in an object, nesting
// deeper than kMaxJsonDepth, a number beyond double's range and any syntax
// error are one-line errors naming `source` and the line and column:
// "SOURCE: malformed JSON at line 3, column 5: ...". Never throws.
Result<nlohmann::json> parse_json_strict(std::string_view text, std::string_view source);

// JSON as Python's json module writes it: parse_json_strict, except that the
// bare constants NaN, Infinity and -Infinity (json.dumps' allow_nan, as in
// Nemotron-H's "time_step_limit": [0.0, Infinity]) are read as the strings
// "NaN", "Infinity" and "-Infinity" where a value stands (after ':', ',' or
// '[', before ',', ']', '}', white space or the end). Anything else outside a
// string (inf, NaNx, +Infinity) stays malformed. A reader that needs the value
// as a number then says it got the string. Error positions after a rewritten
// constant on the same line are 2 columns later than in the file.
Result<nlohmann::json> parse_python_json(std::string_view text, std::string_view source);

}  // namespace modelcalc

#endif  // MODELCALC_INPUT_FILE_H_
