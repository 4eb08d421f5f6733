// A request field, declared once (issue #30): its canonical name (the JSON key,
// the Python keyword and the web key), its CLI flag and aliases, what it holds
// (type, unit, range), its default and help. Every front end reads a field
// through this one declaration: the CLI builds its flags, --help and
// did-you-mean from it; the web decodes its query keys and JSON bodies; Python
// its keywords; docs/cli.md's flag tables, the .pyi stubs and the web page's
// inputs (/api/fields) are generated from it.
//
// The shared field list (fields.h) declares each field once; each request's
// table (requests.h) lists the fields it takes, binds each to a member of the
// request struct and may state its own default.
//
// Errors are one structured value, FieldError {field, reason}, with the
// canonical name; each front end spells the field its own way ("--dp-attention"
// on the CLI, "dp_attention" on the web and in Python).
#ifndef MODELCALC_APP_FIELD_H_
#define MODELCALC_APP_FIELD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "modelcalc/dtype.h"
#include "modelcalc/status.h"

namespace modelcalc::app {

// What one value of a field is. A row of a request table may take a list of
// them (Row::list): a comma list on the CLI and the web, a JSON array, a
// Python list, range or array.
enum class Type : uint8_t {
  kBool,    // a switch: "--glu"; true/false
  kInt,     // a whole count: "8192", "8K", "8Ki"; lists also take ranges A:B, A:B:S, A:B:xF
  kReal,    // a real number read in the field's Unit ("80GB", "3.35TB/s", "50ms", "0.9", "90%")
  kText,    // a name or a path, as typed
  kChoice,  // one of Field::choices
  kDtype,   // a dtype name (dtype.h)
  kRange,   // LO-HI (diagnose's microsecond ranges: "8-15")
};

// How a kReal (or kInt) is written and in which base unit it is held.
enum class Unit : uint8_t {
  kNone,        // a plain number
  kCount,       // a count with K/M/B/T suffixes ("70B", "1.5T", "5.76e23")
  kTokens,      // tokens (a count)
  kSequences,   // sequences (a count)
  kGpus,        // GPUs (a count)
  kBytes,       // "80GB", "81559MiB"
  kBytesPerS,   // "3.35TB/s"
  kFlopPerS,    // "989.4TFLOPS"
  kFraction,    // [0, 1]: "0.9" or "90%"
  kSeconds,     // a duration: "50ms", "0.05" (a bare number is seconds)
  kMicroseconds,
  kPerSecond,   // a rate: "20", "20/s", "1.5K"
  kTokensPerS,  // "50K tokens/s"
  kUsd,         // US dollars
  kUsdPerHour,  // US dollars per GPU-hour
  kDays,
  kFactor,      // a ratio ("1.2")
  kFlopPerByte,
};
std::string_view unit_name(Unit u);  // "bytes", "s", "B/s", ... ("" for kNone)

struct Range {
  double lo = 0, hi = 0;
};

// A parsed value. Lists hold their items' type.
using Value = std::variant<std::monostate, bool, int64_t, double, std::string, Dtype, Range, std::vector<int64_t>,
                           std::vector<double>, std::vector<std::string>, std::vector<Dtype>>;

struct Field;
// Parses one item of text; errors name `name` (the canonical name: the front
// end re-spells it). Range checks included.
using TextParser = Result<Value> (*)(const Field& f, std::string_view text, std::string_view name);

struct Field {
  std::string_view name = {};      // canonical, snake_case: the JSON key, Python keyword, web key
  std::string_view flag = {};      // the CLI's long flag without "--" ("prefix-hit")
  char short_flag = 0;        // 'L' for -L; 0: none
  // Other CLI spellings (comma-separated, without "--"): synonyms ("context"
  // for seq) and the engines' own names. Each is the same flag.
  std::string_view aliases = {};
  Type type = Type::kText;
  Unit unit = Unit::kNone;
  // Allowed values in base units (inclusive; min_open: min itself refused).
  // For kInt a count; kText/kChoice/kBool ignore them.
  double min = 0, max = 0;
  bool min_open = false;
  // Values outside [plausible_lo, plausible_hi] (when set, nonzero) are
  // refused with `plausible_hint` ("a bare duration is seconds: 50 is 50 s;
  // write 50ms"): a typo, not a request.
  double plausible_lo = 0, plausible_hi = 0;
  std::string_view plausible_hint = {};
  std::string_view choices = {};   // kChoice: "decode,prefill,training"
  std::string_view help = {};      // one line, without the default
  std::string_view default_text = {};  // the default as --help states it; a row may override it
  TextParser parse = nullptr;     // null: the generic parser of (type, unit, min, max)
  bool file = false;          // names a file on the machine that runs the request (the web refuses it)
  std::string_view file_keyword = {};  // file: a value that names no file but compiled-in data (the web takes it)
};

// The most values one list holds (memory stays bounded whatever is typed).
inline constexpr int64_t kMaxListValues = int64_t{1} << 20;

// "a whole number", "a dtype name such as \"bf16\"", ...: what a value of `f` is.
std::string_view type_name(const Field& f);

// Counts in [1, max], each item a count or a range: A:B (A, A+1, ..., B),
// A:B:S (step S), A:B:xF (A, A·F, A·F², ... up to B). "1k:128k:x2" is
// 1,000, 2,000, ..., 128,000. Errors name `name`.
Result<std::vector<int64_t>> parse_count_range_list(std::string_view text, std::string_view name, int64_t max);
// A count in [1, max] ("8K", "8192"); errors name `name` and the range.
Result<int64_t> parse_count_upto(std::string_view text, std::string_view name, int64_t max);

// The field error every front end shows in its own spelling.
struct FieldError {
  std::string field;   // canonical name ("" when no field is at fault)
  std::string reason;  // what is allowed
};
// A Status "name: reason" as a FieldError (field empty when the message names none).
FieldError field_error(const Status& s);

// ---------------------------------------------------------------- values from each front end
// Every front end hands a field its input in one of these forms; each checks
// the type and the range and names the field in errors.
Result<Value> parse_text(const Field& f, std::string_view text, bool list);  // CLI and web query
Result<Value> from_number(const Field& f, double v);                         // JSON, Python (one item)
Result<Value> from_int(const Field& f, int64_t v);                           // JSON, Python (one item)
// Re-checks a value set directly (a C++ caller's request member) against the
// field's type and range: resolve() runs it on every given member.
Status check_value(const Field& f, const Value& v);
// Makes a list value of items (each already parsed for `f`): REQUIRES items of one type.
Result<Value> list_of(const Field& f, std::vector<Value> items);

// The value as JSON text (the echo of a request: numbers in base units,
// dtypes by name, lists as arrays, ranges as [lo, hi]).
std::string value_json(const Value& v);
// The value as the CLI would take it back ("8192", "bf16", "1,8,64", "8-15").
std::string value_text(const Value& v);

}  // namespace modelcalc::app

#endif  // MODELCALC_APP_FIELD_H_
