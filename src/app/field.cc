#include "modelcalc/app/field.h"

#include <charconv>
#include <cstdio>
#include <cmath>
#include <string>
#include <utility>

#include "quantity.h"

namespace modelcalc::app {

std::string_view unit_name(Unit u) {
  switch (u) {
    case Unit::kNone: return "";
    case Unit::kCount: return "count";
    case Unit::kTokens: return "tokens";
    case Unit::kSequences: return "sequences";
    case Unit::kGpus: return "GPUs";
    case Unit::kBytes: return "bytes";
    case Unit::kBytesPerS: return "B/s";
    case Unit::kFlopPerS: return "FLOP/s";
    case Unit::kFraction: return "fraction";
    case Unit::kSeconds: return "s";
    case Unit::kMicroseconds: return "us";
    case Unit::kPerSecond: return "1/s";
    case Unit::kTokensPerS: return "tokens/s";
    case Unit::kUsd: return "USD";
    case Unit::kUsdPerHour: return "USD/GPU-hour";
    case Unit::kDays: return "days";
    case Unit::kFactor: return "factor";
    case Unit::kFlopPerByte: return "FLOP/byte";
  }
  return "";
}

FieldError field_error(const Status& s) {
  const std::string& m = s.message();
  const size_t colon = m.find(": ");
  if (colon == std::string::npos || colon == 0) return FieldError{"", m};
  for (size_t i = 0; i < colon; ++i) {
    const char c = m[i];
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!word) return FieldError{"", m};  // "evidence file 'x.json': ..." names no field
  }
  return FieldError{m.substr(0, colon), m.substr(colon + 2)};
}

namespace {

// The shortest text that reads back as v; a whole number below 2^53 without ".0".
std::string number_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
    return std::to_string(static_cast<int64_t>(v));
  }
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  return std::string(buf, end);
}

std::string bound_text(const Field& f, double v) {
  if (f.type == Type::kInt) return group_digits(static_cast<int64_t>(v));
  return number_text(v);
}

// A count item in [min, max] (0 allowed when min is 0).
Result<Value> parse_int(const Field& f, std::string_view text, std::string_view name) {
  if (f.min <= 0 && text == "0") return Value{int64_t{0}};
  MC_ASSIGN_OR_RETURN(const int64_t v, parse_count(text, name));
  if (f.max > 0 && static_cast<double>(v) > f.max) {
    return Status::InvalidArgument(name, "must be at most " + bound_text(f, f.max) + ", got " + std::string(text));
  }
  if (static_cast<double>(v) < f.min) {
    return Status::InvalidArgument(name, "must be at least " + bound_text(f, f.min) + ", got " + std::string(text));
  }
  return Value{v};
}

// A duration: with its unit ("50ms"), or a bare number of seconds ("0.05").
Result<double> parse_seconds(std::string_view text, std::string_view name) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && ptr == text.data() + text.size()) return parse_duration(std::string(text) + "s", name);
  return parse_duration(text, name);
}

Result<double> parse_real_unit(const Field& f, std::string_view text, std::string_view name) {
  switch (f.unit) {
    case Unit::kBytes: return parse_bytes(text, name);
    case Unit::kBytesPerS: return parse_bandwidth(text, name);
    case Unit::kFlopPerS: return parse_flops(text, name);
    case Unit::kFraction: return parse_fraction(text, name);
    case Unit::kSeconds: return parse_seconds(text, name);
    case Unit::kPerSecond: return parse_rate(text, name, {"req", "requests"});
    case Unit::kTokensPerS: return parse_rate(text, name, {"tok", "tokens"});
    case Unit::kCount:
    case Unit::kTokens:
    case Unit::kSequences:
    case Unit::kGpus:
    case Unit::kFlopPerByte: return parse_real_count(text, name);
    default: return parse_real(text, name);
  }
}

Status check_plausible(const Field& f, double v, std::string_view name, std::string_view text) {
  if (f.plausible_hi > 0 && (v > f.plausible_hi || v < f.plausible_lo)) {
    return Status::InvalidArgument(name, "is implausible: " + quote_input(text) + "; " + std::string(f.plausible_hint));
  }
  return Status::Ok();
}

Result<Value> parse_real_item(const Field& f, std::string_view text, std::string_view name) {
  MC_ASSIGN_OR_RETURN(const double v, parse_real_unit(f, text, name));
  if (f.min_open && !(v > f.min)) {
    return Status::InvalidArgument(name, "must be positive, got " + std::string(text));
  }
  if (!f.min_open && v < f.min) {
    return Status::InvalidArgument(name, "must be at least " + bound_text(f, f.min) + ", got " + std::string(text));
  }
  if (f.max > 0 && v > f.max) {
    return Status::InvalidArgument(name, "must be at most " + bound_text(f, f.max) + ", got " + std::string(text));
  }
  MC_RETURN_IF_ERROR(check_plausible(f, v, name, text));
  return Value{v};
}

Result<Value> parse_choice(const Field& f, std::string_view text, std::string_view name) {
  std::string_view rest = f.choices;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    if (rest.substr(0, comma) == text) return Value{std::string(text)};
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::string allowed(f.choices);
  for (char& c : allowed) {
    if (c == ',') c = '|';
  }
  return Status::InvalidArgument(name, "expected " + allowed + ", got " + quote_input(text));
}

Result<Value> parse_bool(std::string_view text, std::string_view name) {
  if (text.empty() || text == "1" || text == "true" || text == "yes" || text == "on") return Value{true};
  if (text == "0" || text == "false" || text == "no" || text == "off") return Value{false};
  return Status::InvalidArgument(name, "is a switch: true or false (1 or 0), got " + quote_input(text));
}

Result<Value> parse_item(const Field& f, std::string_view text) {
  const std::string_view name = f.name;
  if (f.parse != nullptr) return f.parse(f, text, name);
  if (f.type == Type::kBool) return parse_bool(text, name);
  if (text.empty()) return Status::InvalidArgument(name, "needs a value, got an empty string");
  switch (f.type) {
    case Type::kInt: return parse_int(f, text, name);
    case Type::kReal: return parse_real_item(f, text, name);
    case Type::kText: return Value{std::string(text)};
    case Type::kChoice: return parse_choice(f, text, name);
    case Type::kDtype: {
      MC_ASSIGN_OR_RETURN(const Dtype d, parse_dtype(text, name));
      return Value{d};
    }
    case Type::kRange:
    case Type::kBool: break;
  }
  return Status::InvalidArgument(name, "has no parser for " + quote_input(text));
}

// Splits a comma list; an empty item fails naming the field.
Result<std::vector<std::string_view>> items_of(std::string_view text, std::string_view name) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                    : comma - start);
    if (item.empty()) {
      return Status::InvalidArgument(name, "empty item in '" + std::string(text) +
                                               "'; give a comma-separated list, e.g. 1,8,64");
    }
    out.push_back(item);
    if (comma == std::string_view::npos) return out;
    if (static_cast<int64_t>(out.size()) >= kMaxListValues) {
      return Status::InvalidArgument(name, "more than " + group_digits(kMaxListValues) + " values in one list");
    }
    start = comma + 1;
  }
}

}  // namespace

Result<Value> list_of(const Field& f, std::vector<Value> items) {
  if (items.empty()) return Status::InvalidArgument(f.name, "is an empty list; give at least one value");
  auto gather = [&](auto tag) -> Value {
    using T = decltype(tag);
    std::vector<T> out;
    out.reserve(items.size());
    for (Value& v : items) out.push_back(std::get<T>(std::move(v)));
    return Value{std::move(out)};
  };
  if (std::holds_alternative<int64_t>(items[0])) return gather(int64_t{});
  if (std::holds_alternative<double>(items[0])) return gather(double{});
  if (std::holds_alternative<std::string>(items[0])) return gather(std::string{});
  if (std::holds_alternative<Dtype>(items[0])) return gather(Dtype{});
  return Status::InvalidArgument(f.name, "takes one value, not a list");
}

Result<Value> parse_text(const Field& f, std::string_view text, bool list) {
  if (!list) return parse_item(f, text);
  if (text.empty()) return Status::InvalidArgument(f.name, "needs a value, got an empty string");
  if (f.type == Type::kInt && f.parse == nullptr) {  // counts take ranges
    MC_ASSIGN_OR_RETURN(std::vector<int64_t> v, parse_count_range_list(text, f.name, static_cast<int64_t>(f.max)));
    return Value{std::move(v)};
  }
  MC_ASSIGN_OR_RETURN(const std::vector<std::string_view> parts, items_of(text, f.name));
  std::vector<Value> items;
  items.reserve(parts.size());
  for (std::string_view p : parts) {
    MC_ASSIGN_OR_RETURN(Value v, parse_item(f, p));
    items.push_back(std::move(v));
  }
  return list_of(f, std::move(items));
}

Result<Value> from_int(const Field& f, int64_t v) {
  if (f.type == Type::kInt && f.parse == nullptr && static_cast<double>(v) >= f.min &&
      (f.max <= 0 || static_cast<double>(v) <= f.max) && (v > 0 || f.min <= 0)) {
    return Value{v};  // in range: no detour through the text
  }
  if (f.type == Type::kReal) return from_number(f, static_cast<double>(v));
  if (f.type != Type::kInt) return Status::InvalidArgument(f.name, "expected " + std::string(type_name(f)) + ", got a number");
  return parse_item(f, std::to_string(v));
}

Result<Value> from_number(const Field& f, double v) {
  if (f.type == Type::kInt) {
    if (!(std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.2e18)) {
      return Status::InvalidArgument(f.name, "must be a whole number, got " + number_text(v));
    }
    return from_int(f, static_cast<int64_t>(v));
  }
  if (f.type != Type::kReal) return Status::InvalidArgument(f.name, "expected " + std::string(type_name(f)) + ", got a number");
  if (f.parse == nullptr && std::isfinite(v) && (f.min_open ? v > f.min : v >= f.min) && (f.max <= 0 || v <= f.max) &&
      (f.plausible_hi <= 0 || (v >= f.plausible_lo && v <= f.plausible_hi))) {
    return Value{v};  // in range: no detour through the text
  }
  // Out of range (or a field with its own parser): the text parser words the error.
  return parse_item(f, number_text(v));
}

std::string_view type_name(const Field& f) {
  switch (f.type) {
    case Type::kBool: return "true or false";
    case Type::kInt: return "a whole number";
    case Type::kReal: return "a number";
    case Type::kText: return "a string";
    case Type::kChoice: return "one of the names";
    case Type::kDtype: return "a dtype name such as \"bf16\"";
    case Type::kRange: return "a range LO-HI";
  }
  return "a value";
}

namespace {

Status status_of(const Result<Value>& r) { return r.ok() ? Status::Ok() : r.status(); }

}  // namespace

Status check_value(const Field& f, const Value& v) {
  auto check_one = [&](const Value& one) -> Status {
    if (const auto* i = std::get_if<int64_t>(&one)) return status_of(from_int(f, *i));
    if (const auto* d = std::get_if<double>(&one)) return status_of(from_number(f, *d));
    if (const auto* s = std::get_if<std::string>(&one)) {
      if (f.type == Type::kChoice || f.type == Type::kText) return status_of(parse_item(f, *s));
    }
    if (const auto* d = std::get_if<Dtype>(&one); d != nullptr && f.parse != nullptr) {
      return status_of(f.parse(f, dtype_name(*d), f.name));  // kv_dtype refuses the fp4 formats
    }
    return Status::Ok();
  };
  if (const auto* l = std::get_if<std::vector<int64_t>>(&v)) {
    for (int64_t x : *l) MC_RETURN_IF_ERROR(check_one(Value{x}));
    return Status::Ok();
  }
  if (const auto* l = std::get_if<std::vector<double>>(&v)) {
    for (double x : *l) MC_RETURN_IF_ERROR(check_one(Value{x}));
    return Status::Ok();
  }
  return check_one(v);
}

namespace {

void append_json_string(std::string* out, std::string_view s) {
  out->push_back('"');
  for (const char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\t': *out += "\\t"; break;
      case '\r': *out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          *out += buf;
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

template <typename T, typename One>
std::string joined(const std::vector<T>& v, const char* open, const char* sep, const char* close, One one) {
  std::string s = open;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += sep;
    s += one(v[i]);
  }
  return s + close;
}

std::string json_text(std::string_view t) {
  std::string s;
  append_json_string(&s, t);
  return s;
}

}  // namespace

std::string value_json(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using V = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<V, std::monostate>) return "null";
        else if constexpr (std::is_same_v<V, bool>) return x ? "true" : "false";
        else if constexpr (std::is_same_v<V, int64_t>) return std::to_string(x);
        else if constexpr (std::is_same_v<V, double>) return std::isfinite(x) ? number_text(x) : "null";
        else if constexpr (std::is_same_v<V, std::string>) return json_text(x);
        else if constexpr (std::is_same_v<V, Dtype>) return json_text(dtype_name(x));
        else if constexpr (std::is_same_v<V, Range>) return "[" + number_text(x.lo) + ", " + number_text(x.hi) + "]";
        else if constexpr (std::is_same_v<V, std::vector<int64_t>>)
          return joined(x, "[", ", ", "]", [](int64_t i) { return std::to_string(i); });
        else if constexpr (std::is_same_v<V, std::vector<double>>)
          return joined(x, "[", ", ", "]", [](double d) { return number_text(d); });
        else if constexpr (std::is_same_v<V, std::vector<std::string>>)
          return joined(x, "[", ", ", "]", [](const std::string& s) { return json_text(s); });
        else
          return joined(x, "[", ", ", "]", [](Dtype d) { return json_text(dtype_name(d)); });
      },
      v);
}

std::string value_text(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using V = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<V, std::monostate>) return "";
        else if constexpr (std::is_same_v<V, bool>) return x ? "true" : "false";
        else if constexpr (std::is_same_v<V, int64_t>) return std::to_string(x);
        else if constexpr (std::is_same_v<V, double>) return number_text(x);
        else if constexpr (std::is_same_v<V, std::string>) return x;
        else if constexpr (std::is_same_v<V, Dtype>) return std::string(dtype_name(x));
        else if constexpr (std::is_same_v<V, Range>) return number_text(x.lo) + "-" + number_text(x.hi);
        else if constexpr (std::is_same_v<V, std::vector<int64_t>>)
          return joined(x, "", ",", "", [](int64_t i) { return std::to_string(i); });
        else if constexpr (std::is_same_v<V, std::vector<double>>)
          return joined(x, "", ",", "", [](double d) { return number_text(d); });
        else if constexpr (std::is_same_v<V, std::vector<std::string>>)
          return joined(x, "", ",", "", [](const std::string& s) { return s; });
        else
          return joined(x, "", ",", "", [](Dtype d) { return std::string(dtype_name(d)); });
      },
      v);
}

Result<int64_t> parse_count_upto(std::string_view text, std::string_view name, int64_t max) {
  MC_ASSIGN_OR_RETURN(const int64_t v, parse_count(text, name));
  if (v > max) {
    return Status::InvalidArgument(name, "must be at most " + group_digits(max) + ", got " + std::string(text));
  }
  return v;
}

namespace {

// One item of a count list: a count, or a range A:B[:S | :xF].
Status append_count_item(std::string_view item_view, std::string_view name, int64_t max, std::vector<int64_t>* out) {
  const std::string item(item_view);
  auto parse = [&](std::string_view t) { return parse_count_upto(t, name, max); };
  const size_t c1 = item.find(':');
  if (c1 == std::string::npos) {
    MC_ASSIGN_OR_RETURN(const int64_t v, parse(item));
    out->push_back(v);
    return Status::Ok();
  }
  const size_t c2 = item.find(':', c1 + 1);
  MC_ASSIGN_OR_RETURN(const int64_t lo, parse(item.substr(0, c1)));
  MC_ASSIGN_OR_RETURN(const int64_t hi,
                      parse(item.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1)));
  if (lo > hi) return Status::InvalidArgument(name, "range '" + item + "' runs backwards; write A:B with A <= B");
  int64_t step = 1;
  bool times = false;
  if (c2 != std::string::npos) {
    std::string st = item.substr(c2 + 1);
    times = !st.empty() && (st[0] == 'x' || st[0] == 'X' || st[0] == '*');
    if (times) st.erase(0, 1);
    MC_ASSIGN_OR_RETURN(step, parse(st));
    if (times && step < 2) {
      return Status::InvalidArgument(name, "range '" + item + "' multiplies by less than 2; write A:B:x2 or more");
    }
  }
  for (int64_t v = lo; v <= hi;) {
    if (static_cast<int64_t>(out->size()) >= kMaxListValues) {
      return Status::InvalidArgument(name, "range '" + item + "' gives more than " + group_digits(kMaxListValues) +
                                               " values; use a larger step");
    }
    out->push_back(v);
    int64_t next = 0;
    if (times ? __builtin_mul_overflow(v, step, &next) : __builtin_add_overflow(v, step, &next)) break;
    v = next;
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<int64_t>> parse_count_range_list(std::string_view text, std::string_view name, int64_t max) {
  MC_ASSIGN_OR_RETURN(const std::vector<std::string_view> items, items_of(text, name));
  std::vector<int64_t> out;
  for (std::string_view item : items) MC_RETURN_IF_ERROR(append_count_item(item, name, max, &out));
  return out;
}

}  // namespace modelcalc::app
