#include "report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>

#include "format.h"

namespace modelcalc {

namespace {

std::string with_unit(const std::string& number, const char* unit) {
  return unit[0] ? number + " " + unit : number;
}

std::string format_double(double v, Unit unit) {
  switch (unit) {
    case Unit::kParams: return fmt_si(v, "", 4) + " params";
    case Unit::kBytes: return fmt_si(v, "B");
    case Unit::kFlop: return fmt_sig(v) + " FLOP";
    case Unit::kFlopPerS: return fmt_sig(v / 1e12, 5) + " TFLOP/s";
    case Unit::kBytesPerS: return fmt_si(v, "B/s");
    case Unit::kTokens: return with_unit(fmt_fixed(v, v < 100 ? 1 : 0), "tokens");
    case Unit::kTokensPerS:  // grouped digits up to ten million; beyond, digits would be noise
      return (std::fabs(v) < 1e7 ? fmt_fixed(v, 1) : fmt_sig(v, 4)) + " tokens/s";
    case Unit::kFlopPerByte: return fmt_sig(v) + " FLOP/byte";
    case Unit::kSequences: return std::isinf(v) ? "never" : fmt_fixed(v, 1) + " sequences";
    case Unit::kFraction: return fmt_sig(v * 100, 3) + " %";
    case Unit::kFactor: return "×" + fmt_sig(v, 4);
    case Unit::kUsd: return "$" + (std::fabs(v) >= 1e4 ? fmt_fixed(v, 0) : fmt_sig(v, 4));
    case Unit::kHours: return (std::fabs(v) >= 1e4 ? fmt_fixed(v, 0) : fmt_sig(v, 4)) + " h";
    case Unit::kDays: return (std::fabs(v) >= 1e4 ? fmt_fixed(v, 0) : fmt_sig(v, 4)) + " days";
    case Unit::kSeconds: return std::fabs(v) < 0.1 ? fmt_sig(v * 1e3, 4) + " ms" : fmt_sig(v, 4) + " s";
    case Unit::kNone: return fmt_sig(v, 4);
  }
  return fmt_sig(v);
}

std::string format_int(int64_t v, Unit unit) {
  const std::string g = group_digits(v);
  const double d = static_cast<double>(v);
  switch (unit) {
    case Unit::kParams: return d >= 1e4 ? g + " params (" + fmt_si(d, "", 4) + ")" : g + " params";
    case Unit::kBytes: return d >= 1e4 ? g + " B (" + fmt_si(d, "B") + ")" : g + " B";
    case Unit::kTokens: return g + " tokens";
    case Unit::kSequences: return g + " sequences";
    case Unit::kNone: return g;  // an exact count, grouped like every other
    default: return format_double(d, unit);
  }
}

bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// What every text rendering ends with: what was ignored, and sanity notes.
std::string render_footer(const Report& r) {
  std::string out;
  if (!r.ignored.empty()) {
    out += "\nIgnored (and why it is safe)\n";
    for (const std::string& n : r.ignored) out += "  • " + n + "\n";
  }
  if (!r.warnings.empty()) {
    out += "\nSanity checks\n";
    for (const std::string& n : r.warnings) out += "  ! " + n + "\n";
  }
  return out;
}

}  // namespace

void warn_model_assumptions(const std::vector<std::string>& assumptions, Report& rep) {
  rep.warnings.insert(rep.warnings.begin(), assumptions.begin(), assumptions.end());
}

Line given(std::string key, std::string label, Value v, Unit u, std::string comment) {
  Line l;
  l.key = std::move(key);
  l.label = std::move(label);
  l.value = std::move(v);
  l.unit = u;
  l.comment = std::move(comment);
  return l;
}

Line absent_line(std::string key, std::string label, std::string reason, Unit u, std::string comment) {
  Line l = given(std::move(key), std::move(label), 0.0, u, std::move(comment));
  l.absent = std::move(reason);
  return l;
}

std::string does_not_fit(double short_bytes) {
  return "does not fit (short by " + format_quantity(short_bytes, Unit::kBytes) + ")";
}

Line short_if_negative(Line l) {
  double v = 0;
  if (const auto* d = std::get_if<double>(&l.value)) v = *d;
  if (const auto* i = std::get_if<int64_t>(&l.value)) v = static_cast<double>(*i);
  if (v < 0) l.absent = does_not_fit(-v);
  return l;
}

std::string line_value_text(const Line& l) { return l.absent.empty() ? format_value(l.value, l.unit) : l.absent; }

Line computed(std::string key, std::string label, Value v, Unit u, const FormulaText& f, std::vector<Term> terms,
              std::string comment) {
  Line l = given(std::move(key), std::move(label), std::move(v), u, std::move(comment));
  l.formula = &f;
  l.terms = std::move(terms);
  return l;
}

std::string format_quantity(double v, Unit unit) { return format_double(v, unit); }

std::string format_brief(double v, Unit unit) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  const double a = std::fabs(v);
  switch (unit) {
    case Unit::kParams:
    case Unit::kTokens: {
      static constexpr struct {
        double scale;
        const char* suffix;
      } kSuffixes[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
      for (const auto& s : kSuffixes) {
        if (a >= s.scale) return fmt_sig(v / s.scale, 4) + s.suffix;
      }
      return fmt_sig(v, 4);
    }
    case Unit::kBytes: return fmt_si(v, "B", 3);
    case Unit::kTokensPerS: return (a < 1e7 ? fmt_fixed(v, a < 100 ? 1 : 0) : fmt_sig(v, 3)) + " tokens/s";
    case Unit::kFraction: return fmt_sig(v * 100, 2) + " %";
    case Unit::kFactor: return fmt_sig(v, 3) + "×";
    case Unit::kUsd: return "$" + (a >= 100 ? fmt_fixed(v, 0) : a >= 1 ? fmt_fixed(v, 2) : fmt_sig(v, 3));
    case Unit::kSeconds:
      if (a >= 1) return fmt_sig(v, 3) + " s";
      if (a >= 1e-3) return fmt_sig(v * 1e3, 3) + " ms";
      return fmt_sig(v * 1e6, 3) + " µs";
    default: return format_double(v, unit);
  }
}

std::pair<std::string, std::string> format_brief_apart(double a, double b, Unit unit) {
  std::pair<std::string, std::string> out{format_brief(a, unit), format_brief(b, unit)};
  if (out.first != out.second || a == b || !std::isfinite(a) || !std::isfinite(b)) return out;
  double scale = 1;
  const char* suffix = "";
  if (unit == Unit::kSeconds) {
    const double m = std::fabs(b);
    scale = m >= 1 ? 1 : m >= 1e-3 ? 1e3 : 1e6;
    suffix = m >= 1 ? " s" : m >= 1e-3 ? " ms" : " µs";
  }
  for (int sig = 4; sig <= 9; ++sig) {
    if (unit == Unit::kSeconds) {
      out = {fmt_sig(a * scale, sig) + suffix, fmt_sig(b * scale, sig) + suffix};
    } else {
      out = {fmt_sig(a, sig), fmt_sig(b, sig)};
      if (unit != Unit::kNone) out = {format_quantity(a, unit), format_quantity(b, unit)};
    }
    if (out.first != out.second) break;
  }
  return out;
}

std::string format_value(const Value& v, Unit unit) {
  if (const auto* i = std::get_if<int64_t>(&v)) return format_int(*i, unit);
  if (const auto* d = std::get_if<double>(&v)) return format_double(*d, unit);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "yes" : "no";
  return std::get<std::string>(v);
}

Term term(std::string symbol, double v) {
  // Whole numbers print exactly; others with enough digits to redo the arithmetic.
  if (std::fabs(v) < 1e15 && std::floor(v) == v) {
    return {std::move(symbol), group_digits(static_cast<int64_t>(v)), v};
  }
  return {std::move(symbol), fmt_sig(v, 5), v};
}
Term term(std::string symbol, int64_t v) { return {std::move(symbol), group_digits(v), static_cast<double>(v)}; }
Term term(std::string symbol, std::string text) { return {std::move(symbol), std::move(text), std::nullopt}; }
Term term(std::string symbol, double v, Unit unit) {
  // In a formula the count stands bare ("70.55 G", not "70.55 G params").
  if (unit == Unit::kParams) return {std::move(symbol), fmt_si(v, "", 4), v};
  if (unit == Unit::kNone) return term(std::move(symbol), v);
  return {std::move(symbol), format_double(v, unit), v};
}

std::string substitute(std::string_view expr, const std::vector<Term>& terms) {
  std::string out;
  size_t i = 0;
  while (i < expr.size()) {
    if (std::isdigit(static_cast<unsigned char>(expr[i]))) {
      // A numeric literal ("12", "1e6", "0.5") is copied whole: its letters are not symbols.
      size_t j = i;
      while (j < expr.size() && (is_ident_char(expr[j]) || expr[j] == '.')) ++j;
      out += expr.substr(i, j - i);
      i = j;
    } else if (is_ident_char(expr[i])) {
      size_t j = i;
      while (j < expr.size() && is_ident_char(expr[j])) ++j;
      const std::string_view ident = expr.substr(i, j - i);
      const Term* match = nullptr;
      for (const Term& t : terms) {
        if (t.symbol == ident) match = &t;
      }
      out += match ? match->value : std::string(ident);
      i = j;
    } else {
      out.push_back(expr[i++]);
    }
  }
  return out;
}

namespace {

// The display width fmt gives `s` (one column per code point) when every
// character is one fmt counts as narrow: ASCII, the two-byte UTF-8 range
// (U+0080..U+07FF: ×, ÷, ², ·) and U+2000..U+22FF (…, −, ≈, →, ≤), below the
// first wide code point fmt knows (U+2329). std::string::npos for anything
// else, including malformed UTF-8: then fmt measures it.
size_t narrow_columns(std::string_view s) {
  const auto cont = [&](size_t i) { return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; };
  size_t columns = 0;
  for (size_t i = 0; i < s.size(); ++columns) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      i += 1;
    } else if (c >= 0xC2 && c <= 0xDF && cont(i + 1)) {
      i += 2;
    } else if (c == 0xE2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x8B && cont(i + 2)) {
      i += 3;
    } else {
      return std::string::npos;
    }
  }
  return columns;
}

}  // namespace

std::string render_text(const Report& r) {
  std::string out = r.title + "\n";
  for (const Section& s : r.sections) {
    out += "\n" + s.title + "\n";
    size_t width = 0;
    for (const Line& l : s.lines) width = std::max(width, l.label.size());
    for (const Line& l : s.lines) {
      // The label left-aligned in `width` columns, as fmt's "{:<{}}" pads it
      // (by display width). A label of narrow characters only is padded here
      // without a format string (start-up cost, docs/performance.md).
      const size_t columns = narrow_columns(l.label);
      if (columns != std::string::npos) {
        out += "  ";
        out += l.label;
        if (columns < width) out.append(width - columns, ' ');
        out += "  ";
        out += line_value_text(l);
      } else {
        out += fmt::format("  {:<{}}  {}", l.label, width, line_value_text(l));
      }
      if (!l.comment.empty()) {
        out += "   ";
        out += l.comment;
      }
      out += '\n';
    }
    for (const std::string& n : s.notes) {
      out += "  • ";
      out += n;
      out += '\n';
    }
  }
  return out + render_footer(r);
}

std::string render_explain(const Report& r) {
  std::string out = r.title + "\n";
  for (const Section& s : r.sections) {
    out += "\n" + s.title + "\n";
    for (const Line& l : s.lines) {
      const std::string value = line_value_text(l);
      if (l.formula == nullptr) {
        out += "  " + l.label + " = " + value;
        if (!l.comment.empty()) out += "   " + l.comment;
        out += "\n";
        continue;
      }
      out += fmt::format("  {}   [{}]\n", l.label, l.formula->name);
      out += fmt::format("      = {}\n", l.formula->expr);
      if (!l.terms.empty()) out += fmt::format("      = {}\n", substitute(l.formula->expr, l.terms));
      out += fmt::format("      = {}", value);
      if (!l.comment.empty()) out += "   " + l.comment;
      out += "\n";
    }
    for (const std::string& n : s.notes) out += "  • " + n + "\n";
  }
  return out + render_footer(r);
}

namespace {

// Merges `extra` into `j`: objects recursively, anything else replaced --
// including null, which stays (an infinite or "never" value is null; RFC 7386
// merge_patch would delete the key instead).
void merge_keeping_nulls(nlohmann::json& j, const nlohmann::json& extra) {
  if (!extra.is_object() || !j.is_object()) {
    j = extra;
    return;
  }
  for (auto it = extra.begin(); it != extra.end(); ++it) {
    if (it.value().is_object() && j.contains(it.key()) && j[it.key()].is_object()) {
      merge_keeping_nulls(j[it.key()], it.value());
    } else {
      j[it.key()] = it.value();
    }
  }
}

}  // namespace

nlohmann::json render_json(const Report& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const Section& s : r.sections) {
    for (const Line& l : s.lines) {
      if (l.key.empty()) continue;
      nlohmann::json v;
      if (!l.absent.empty()) {
        // No figure: null, and why beside it.
        std::string reason = l.key + "_reason";
        for (char& c : reason) if (c == '.') c = '/';
        j[nlohmann::json::json_pointer("/" + reason)] = l.absent;
      }
      if (!l.absent.empty()) v = nullptr;
      else if (const auto* i = std::get_if<int64_t>(&l.value)) v = *i;
      else if (const auto* d = std::get_if<double>(&l.value)) v = std::isfinite(*d) ? nlohmann::json(*d) : nlohmann::json();
      else if (const auto* b = std::get_if<bool>(&l.value)) v = *b;
      else v = std::get<std::string>(l.value);
      j[nlohmann::json::json_pointer("/" + [&] {
          std::string p = l.key;
          for (char& c : p) if (c == '.') c = '/';
          return p;
        }())] = v;
    }
  }
  merge_keeping_nulls(j, r.extra_json);
  j["ignored"] = r.ignored;
  j["warnings"] = r.warnings;
  return j;
}

nlohmann::json render_json_strings(const Report& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const Section& s : r.sections) {
    for (const Line& l : s.lines) {
      if (!l.key.empty()) j[l.key] = line_value_text(l);
    }
  }
  return j;
}

}  // namespace modelcalc
