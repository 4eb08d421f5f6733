// A rendered-agnostic report: sections of lines, each a labelled value with
// its unit and, where it was computed, the formula and the terms put into it.
// Text, --explain and JSON are all rendered from one Report, so they cannot
// disagree.
#ifndef MODELCALC_REPORT_H_
#define MODELCALC_REPORT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "formula_text.h"

namespace modelcalc {

// How a value is shown. JSON always gets the plain number in base units.
enum class Unit {
  kNone,        // plain number or text
  kParams,      // exact count, shown grouped with a G/M suffix
  kBytes,       // exact or real bytes, shown with GB
  kFlop,        // FLOP, scientific
  kFlopPerS,    // FLOP/s
  kBytesPerS,   // B/s
  kTokens,      // token counts
  kTokensPerS,  // tokens/s
  kFlopPerByte, // arithmetic intensity
  kSequences,   // a batch or concurrency
  kFraction,    // 0..1, shown as a percentage
  kFactor,      // a ratio, shown as ×k
  kUsd,         // US dollars
  kHours,
  kDays,
  kSeconds,     // s, shown in ms below 0.1 s
};

struct Term {
  std::string symbol;  // identifier as it appears in the formula's expr
  std::string value;   // as substituted into the expr (formatted)
  // The number itself, in base units, when the term is one (unset for a text
  // term such as "?"): what a caller checking or re-deriving the line reads.
  std::optional<double> raw;
};

using Value = std::variant<int64_t, double, bool, std::string>;

struct Line {
  std::string key;    // JSON path like "params.q"; empty = text-only line
  std::string label;  // human label
  Value value;
  Unit unit = Unit::kNone;
  const FormulaText* formula = nullptr;  // null for inputs and verdicts
  std::vector<Term> terms;
  std::string comment;  // short aside shown after the value in text
  // Non-empty: the line has no figure, and says why instead ("does not fit (short by 60.57 GB)",
  // "unbounded: the queue grows"). Text and --explain print it in the value's place; JSON gives the key
  // null and the reason under "<key>_reason". No negative or infinite figure is ever printed for it.
  std::string absent;
};

struct Section {
  std::string title;
  std::vector<Line> lines;
  std::vector<std::string> notes;  // sentences printed under the section
};

struct Report {
  std::string title;
  std::vector<Section> sections;
  std::vector<std::string> ignored;   // what was ignored and why it is safe
  std::vector<std::string> warnings;  // sanity notes: implausible results
  nlohmann::json extra_json = nlohmann::json::object();  // merged into JSON output
};

// Puts the model reader's assumptions (a family read by the generic rules and not yet confirmed by a
// hand-derived count, a part it does not count) first among the report's warnings: every report that
// reads a model repeats them, so that none is silent.
void warn_model_assumptions(const std::vector<std::string>& assumptions, Report& rep);

// A line whose value is an input or a verdict (no formula).
Line given(std::string key, std::string label, Value v, Unit u, std::string comment = "");
// A line without a figure: `reason` stands in its value's place (Line::absent). No formula.
Line absent_line(std::string key, std::string label, std::string reason, Unit u, std::string comment = "");
// "does not fit (short by 60.57 GB)": what a memory line says when what must fit exceeds what there is by
// `short_bytes` (> 0).
std::string does_not_fit(double short_bytes);
// A memory line whose figure is what is left (free for KV, the KV budget): when it is negative, what must
// fit exceeds what there is, and the line says so (does_not_fit) instead of printing a negative size. Its
// formula and terms stay, for --explain.
Line short_if_negative(Line l);
// What a waiting time says when arrivals outpace service: the queue grows without bound.
inline constexpr const char* kUnboundedQueue = "unbounded: the queue grows";
// A line's value as text: Line::absent when set, else format_value.
std::string line_value_text(const Line& l);
// A line computed by formula `f` from `terms` (shown by --explain).
Line computed(std::string key, std::string label, Value v, Unit u, const FormulaText& f, std::vector<Term> terms,
              std::string comment = "");

// Formats a value with its unit for humans ("39,019,610,112 B (39.02 GB)").
// The unit renderer: one rule per unit, for a real number (an exact int64
// count shows its digits grouped, then this form in parentheses for B and
// params):
//   unit         rule                                       example
//   kParams      4 significant digits, SI prefix, "params"  "70.55 G params"
//   kBytes       4 significant digits, SI prefix            "39.02 GB"
//   kFlop        4 significant digits, scientific >= 1e7    "1.401e11 FLOP"
//   kFlopPerS    5 significant digits, always TFLOP/s       "1307.4 TFLOP/s"
//                (unit-specific scale: the drills and GPU datasheets quote
//                peaks in TFLOP/s -- MI300X "1307.4 TFLOP/s", not 1.3074 P)
//   kBytesPerS   4 significant digits, SI prefix            "3.35 TB/s"
//   kTokens      grouped, 1 decimal below 100               "1,400,000,000,000 tokens"
//   kTokensPerS  grouped, 1 decimal (4 significant digits    "203.8 tokens/s"
//                from 1e7)
//   kFlopPerByte 4 significant digits                       "295.2 FLOP/byte"
//   kSequences   grouped, 1 decimal ("never" for ∞)         "187.0 sequences"
//   kFraction    3 significant digits as a percentage       "78.5 %"
//   kFactor      4 significant digits after "×"             "×1.962"
//   kUsd         4 significant digits after "$" (whole       "$1.125", "$1,698,335"
//                dollars grouped from $10,000)
//   kHours/kDays 4 significant digits (grouped from 1e4)    "5,109 h"
//   kSeconds     4 significant digits, ms below 0.1 s       "4.906 ms"
//   kNone        4 significant digits; an exact count grouped "0.4", "3,633,046"
// A table whose header names the unit prints bare numbers in it (the `gpus`
// table, plan's and roofline's columns); JSON and sweep files print base
// units at full precision.
std::string format_value(const Value& v, Unit unit);
// format_value for a real number (never the int64 form).
std::string format_quantity(double v, Unit unit);

// The brief form: a quantity inside a sentence, a title or a table cell
// (diagnose's findings, plan's clauses, roofline's step times, the lab's
// titles), where a line's 4 digits would be noise. One rule per unit:
//   unit          rule                                          example
//   kParams       4 significant digits, T/B/M/K (as flags take)  "70B"
//   kTokens       the same                                       "1.4T"
//   kBytes        3 significant digits, SI prefix                "254 MB"
//   kTokensPerS   1 decimal below 100, whole from 100, 3         "38.5 tokens/s"
//                 significant digits from 1e7
//   kFraction     2 significant digits as a percentage           "78 %"
//   kFactor       3 significant digits, then "×"                 "1.28×"
//   kUsd          whole dollars from $100, cents from $1, else   "$0.612"
//                 3 significant digits
//   kSeconds      3 significant digits in s, ms or µs            "60.5 ms"
//   the others    as format_quantity
// An infinite value prints "inf" ("inf/1M output tokens").
std::string format_brief(double v, Unit unit);
// `a` and `b` in the brief form for a sentence that compares them ("a > b"):
// when the brief forms are equal but the numbers are not, both get more
// significant digits (up to 9) until they differ, so a true comparison never
// reads "50 ms > 50 ms". kSeconds scales both to b's unit (s, ms or µs).
std::pair<std::string, std::string> format_brief_apart(double a, double b, Unit unit);
// Builds a Term from a number, formatted compactly for substitution.
Term term(std::string symbol, double v);
Term term(std::string symbol, int64_t v);
Term term(std::string symbol, std::string text);
// A quantity in base units, substituted in its unit's human form ("3.35 TB/s").
Term term(std::string symbol, double v, Unit unit);
// Replaces every identifier of `expr` that names a term by the term's value.
std::string substitute(std::string_view expr, const std::vector<Term>& terms);

std::string render_text(const Report& r);
std::string render_explain(const Report& r);
nlohmann::json render_json(const Report& r);
// Every keyed line's value as the text report prints it (format_value), keyed
// by its JSON path in dotted form: {"decode_step.seconds": "9.609 ms", ...}.
// `--json --strings` adds it as "strings", so a page shows the CLI's own text.
nlohmann::json render_json_strings(const Report& r);

}  // namespace modelcalc

#endif  // MODELCALC_REPORT_H_
