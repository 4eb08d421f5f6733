// `modelcalc serve`'s request -> argument mapping, without sockets: a GET's
// command and query parameters become the argument list run_cli gets, the
// way the Python package maps keywords (python/modelcalc/__init__.py): `_`
// for `-` (kv_heads -> --kv-heads), a one-letter key is the short flag
// (L -> -L, the same flag as --layers), "true" a bare switch.
//
// The server reads and writes no file on a request's behalf, so the mapping
// is an allow-list: every flag of every command is classified in one table
// (serve_flag_rules), a flag that names a file (--config, --lens-file, --plot,
// --report) is refused naming it, and a flag not in the table is refused too,
// so a new flag stays unreachable until someone classifies it
// (serve_args_test.cc enumerates every command's flags and fails on one that
// is not). Positionals (diagnose's evidence file, tradeoff's candidates file)
// can never be given: every value travels as "--flag=value", one argument, and
// a switch takes only "true" or "false".
#ifndef MODELCALC_SERVE_ARGS_H_
#define MODELCALC_SERVE_ARGS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "modelcalc/status.h"

namespace modelcalc {

// What a flag is to the web API.
enum class ServeFlagKind {
  kValue,   // takes a value: passed as "--name=value"
  kSwitch,  // on/off: "true" passes it, "false" leaves it out, anything else is refused
  kOutput,  // --json, --format, --help: the JSON endpoint chooses them; the text endpoint passes them
  kFile,    // names a file to read or write on the server: always refused
};

struct ServeFlagRule {
  std::string_view name;  // the long name without "--", e.g. "kv-heads"
  char short_name;        // the one-letter spelling ('L' for --layers), or 0
  ServeFlagKind kind;
};

// Every flag any command declares, classified. Sorted by name.
std::span<const ServeFlagRule> serve_flag_rules();

// The rule for a long name ("kv-heads"), or nullptr.
const ServeFlagRule* find_serve_flag(std::string_view long_name);

// What an endpoint answers: the command's --json (/api/), its text report
// (/api/text/), its picture (/api/svg/: roofline's and plan's --plot -) or
// its HTML page (/api/html/: size's --report -).
enum class ServeOutput { kJson, kText, kSvg, kHtml };

// Limits on one request's query: longer queries are refused (400).
inline constexpr size_t kServeMaxParams = 64;

// The searches' bounds over the web, tighter than the CLI's: a shared server
// answers a search one lane budget covers (docs/web.md). A key of `command`
// (spelled with '_' or '-') whose value counts more than `max` is refused.
struct ServeSearchCap {
  std::string_view command, key;
  int64_t max;
};
inline constexpr ServeSearchCap kServeSearchCaps[] = {
    {"plan", "max_gpus", 4096},       {"plan", "max_pp", 64},         {"train-plan", "max_gpus", 65'536},
    {"train-plan", "max_tp", 64},     {"train-plan", "max_pp", 128},  {"train-plan", "max_ep", 256},
};
inline constexpr size_t kServeMaxQueryBytes = 4096;  // keys + values, decoded

// The checks every query passes before it is decoded (by the request tables,
// web_request.h, or into an argument list below): a known command other than
// serve (else NotFound), the endpoint's output available for it (an SVG of
// roofline and plan, the HTML page of size; else NotFound), the limits, and
// every key a name (a letter, then letters, digits, '_' or '-').
Status check_serve_query(std::string_view command, const std::vector<std::pair<std::string, std::string>>& params,
                         ServeOutput output);

// The argument list for run_cli (the commands without a typed request yet): {command, "--flag=value" | "--switch", ...}
// plus "--json" ("--format=json" for sweep) for kJson, "--plot=-" for kSvg,
// "--report=-" for kHtml. Errors name the offending flag (or the command) in
// one line, as the CLI's own do: a file flag, a key that is not a flag, a
// value flag given no value ("?model" or "model=", which the CLI refuses the
// same way), a switch given a value other than true/false, --json/--format/
// --help where the endpoint chooses the output, a query over the limits.
// An unknown command, `serve`, or a command without that output (an SVG of
// size) is NotFound: the web API has no such path.
Result<std::vector<std::string>> serve_args(std::string_view command,
                                            const std::vector<std::pair<std::string, std::string>>& params,
                                            ServeOutput output);

}  // namespace modelcalc

#endif  // MODELCALC_SERVE_ARGS_H_
