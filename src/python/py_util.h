// What every part of the Python bindings shares: turning Python values into
// the core's typed values with the CLI's own parsers (so validation and its
// messages are the CLI's, naming the keyword the caller passed), turning a
// Status into modelcalc.InputError, and nlohmann::json into Python objects.
//
// A value may be a Python number (a count is an int, seconds and bytes are
// numbers in base units) or a string as the CLI reads it ("8K", "50ms",
// "80GB"). Numbers that are in range take no detour; a string, or a number
// the parser must judge, goes through the flag's parser with the keyword as
// its name.
#ifndef MODELCALC_PY_UTIL_H_
#define MODELCALC_PY_UTIL_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "modelcalc/app/requests.h"
#include "modelcalc/dtype.h"
#include "modelcalc/status.h"

namespace modelcalc::py_bind {

namespace py = pybind11;

// modelcalc.InputError (a ValueError): bad input, the CLI's one line.
void init_errors(py::module_& m);

// Flag -> keyword renames beyond the rule (strip the dashes, '-' -> '_').
using Renames = std::initializer_list<std::pair<std::string_view, std::string_view>>;
// Renames of the deployment commands: --seq and --context are `context`,
// --prompt-tokens is `prompt`.
inline constexpr std::pair<std::string_view, std::string_view> kContextRenames[] = {
    {"--seq", "context"}, {"--context", "context"}, {"--prompt-tokens", "prompt"}};

// The message of `s` with every flag the CLI would name ("--kv-dtype") given
// as the keyword ("kv_dtype"); a core field at the start is first mapped to
// its flag as the CLI maps it (as_flag_error).
std::string keyword_message(const Status& s, std::span<const std::pair<std::string_view, std::string_view>> renames);
// Raises modelcalc.InputError with keyword_message(s). REQUIRES: !s.ok().
[[noreturn]] void raise_input_error(const Status& s,
                                    std::span<const std::pair<std::string_view, std::string_view>> renames = {});
// Raises InputError unless s.ok().
inline void check(const Status& s, std::span<const std::pair<std::string_view, std::string_view>> renames = {}) {
  if (!s.ok()) raise_input_error(s, renames);
}
template <typename T>
T take(Result<T> r, std::span<const std::pair<std::string_view, std::string_view>> renames = {}) {
  if (!r.ok()) raise_input_error(r.status(), renames);
  return std::move(r).value();
}
// For errors that already name the keyword (a parser called with the keyword
// as its flag): raised as they are.
[[noreturn]] void raise_verbatim(const Status& s);
// InputError with this message.
[[noreturn]] void raise_message(const std::string& msg);
template <typename T>
T take_kw(Result<T> r) {
  if (!r.ok()) raise_verbatim(r.status());
  return std::move(r).value();
}
// TypeError "<keyword>: expected <what>, got <type name>".
[[noreturn]] void raise_type_error(std::string_view keyword, std::string_view what, py::handle got);

// The text a value stands for, as the CLI would read it: a str as is, an int
// in decimal, a float in its shortest round-trip form (an integral one below
// 2^53 as a whole number, so that counts accept 8e3). Other types: TypeError.
std::string value_text(py::handle v, std::string_view keyword);
bool is_none(py::handle v);

using CountParser = Result<int64_t> (*)(std::string_view text, std::string_view flag);
using RealParser = Result<double> (*)(std::string_view text, std::string_view flag);

// A count in [1, max]: an int (or an integral float) directly, else the CLI's
// parser (parse_count_upto) on its text. None: nullopt.
std::optional<int64_t> opt_count(py::handle v, std::string_view keyword, int64_t max);
// A real through `parse` (the flag's parser) on value_text(v). None: nullopt.
std::optional<double> opt_real(py::handle v, std::string_view keyword, RealParser parse);
// Seconds: a number is seconds (0.05 = 50 ms), a string needs its unit ("50ms").
std::optional<double> opt_seconds(py::handle v, std::string_view keyword);
// A dtype name (parse_dtype / parse_kv_dtype). None: nullopt.
std::optional<Dtype> opt_dtype(py::handle v, std::string_view keyword, bool kv = false);
// A string or None; other types: TypeError.
std::optional<std::string> opt_str(py::handle v, std::string_view keyword);
bool truth(py::handle v, std::string_view keyword);  // a bool (or 0/1)

// A list of counts: a list, tuple, range or NumPy array of counts, one count,
// or a string as the CLI reads it ("1:64", "1k:128k:x2", "1,8,64").
std::vector<int64_t> count_list(py::handle v, std::string_view keyword, int64_t max);
// A list of dtypes: names in a list/tuple, or "fp16,int8".
std::vector<Dtype> dtype_list(py::handle v, std::string_view keyword, bool kv = false);
// A comma list as the CLI reads it, from a string or an iterable of strings
// (each item through `item_text`, e.g. a Gpu object's key).
std::string comma_text(py::handle v, std::string_view keyword);

// nlohmann::json -> dict, list, str, int, float, bool, None.
py::object to_py(const nlohmann::json& j);
// dict/list/str/number/bool/None -> nlohmann::json (TypeError naming `keyword` otherwise).
nlohmann::json to_json(py::handle v, std::string_view keyword);

}  // namespace modelcalc::py_bind

#endif  // MODELCALC_PY_UTIL_H_
