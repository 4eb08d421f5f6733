// A request's field table: the shared fields (fields.h) a request takes, each
// bound to a member of the request struct, with this request's default and
// help where they differ from the field's. Front ends walk it (the CLI
// declares a flag per row; the web, Python and --request set a row per key);
// docs/cli.md's flag tables and the stubs are generated from it.
#ifndef MODELCALC_APP_TABLE_H_
#define MODELCALC_APP_TABLE_H_

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "modelcalc/app/field.h"

namespace modelcalc::app {

struct Row {
  const Field* field = nullptr;
  bool list = false;               // takes a list of the field's values
  bool required = false;           // must be given
  std::string_view default_text;   // this request's default ("" = the field's)
  std::string_view help;           // this request's help ("" = the field's)
  std::string_view aliases;        // this request's extra CLI spellings (comma-separated, without "--")
  bool positional = false;         // the CLI takes it as a positional argument (diagnose's evidence file)
  // The bound member, type-erased (the request is `void*`: Table::command's
  // struct). set() stores a value parse_text/from_number made for this row;
  // get() reads it back, false when not given (an empty optional, a false
  // switch, an empty string or list).
  void (*set)(void* request, Value&& v) = nullptr;
  bool (*get)(const void* request, Value* out) = nullptr;

  std::string_view default_or_field() const { return default_text.empty() ? field->default_text : default_text; }
  std::string_view help_or_field() const { return help.empty() ? field->help : help; }
};

// A shared field a command does not take because it decides it itself (plan
// searches the split and DP attention): naming it gets `reason` instead of
// "unknown flag" and a did-you-mean.
struct Decided {
  const Field* field = nullptr;
  std::string_view reason;  // "plan searches DP attention x EP itself ..."
};

struct Table {
  std::string_view command;  // "size", "kv-budget", ...
  std::vector<Row> rows;
  std::vector<Decided> decided = {};
  // The row of the canonical name, or of any CLI spelling without dashes
  // (flag or alias: "seq", "context", "kv-dtype"); null when none.
  const Row* find(std::string_view name) const;
  // The decided field of such a name (canonical, flag or alias); null when none.
  const Decided* find_decided(std::string_view name) const;
};

// ---------------------------------------------------------------- binding a member
namespace table_detail {

template <typename M>
struct member_traits;
template <typename C, typename T>
struct member_traits<T C::*> {
  using owner = C;
  using type = T;
};

template <typename T>
void assign(std::optional<T>& m, Value&& v) {
  m = std::get<T>(std::move(v));
}
inline void assign(bool& m, Value&& v) { m = std::get<bool>(v); }
inline void assign(std::string& m, Value&& v) { m = std::get<std::string>(std::move(v)); }
template <typename T>
void assign(std::vector<T>& m, Value&& v) {
  m = std::get<std::vector<T>>(std::move(v));
}

template <typename T>
bool read(const std::optional<T>& m, Value* out) {
  if (!m) return false;
  *out = *m;
  return true;
}
inline bool read(bool m, Value* out) {
  if (!m) return false;
  *out = true;
  return true;
}
inline bool read(const std::string& m, Value* out) {
  if (m.empty()) return false;
  *out = m;
  return true;
}
template <typename T>
bool read(const std::vector<T>& m, Value* out) {
  if (m.empty()) return false;
  *out = m;
  return true;
}

template <auto First, auto... Rest>
auto& member(typename member_traits<decltype(First)>::owner& r) {
  return ((r.*First) .* ... .* Rest);
}
template <auto First, auto... Rest>
const auto& member(const typename member_traits<decltype(First)>::owner& r) {
  return ((r.*First) .* ... .* Rest);
}

}  // namespace table_detail

// A row for the member reached by the member-pointer path (&Req::dep, &DeploymentInput::seq).
template <auto First, auto... Rest>
Row bind(const Field& f, std::string_view default_text = {}, std::string_view help = {}) {
  using Req = typename table_detail::member_traits<decltype(First)>::owner;
  Row r;
  r.field = &f;
  r.default_text = default_text;
  r.help = help;
  r.set = [](void* req, Value&& v) {
    table_detail::assign(table_detail::member<First, Rest...>(*static_cast<Req*>(req)), std::move(v));
  };
  r.get = [](const void* req, Value* out) {
    return table_detail::read(table_detail::member<First, Rest...>(*static_cast<const Req*>(req)), out);
  };
  using M = std::decay_t<decltype(table_detail::member<First, Rest...>(std::declval<const Req&>()))>;
  if constexpr (requires { typename M::value_type; } && !std::is_same_v<M, std::string>) {
    r.list = !requires(const M& m) { m.has_value(); };  // a vector: the row takes a list
  }
  return r;
}

}  // namespace modelcalc::app

#endif  // MODELCALC_APP_TABLE_H_
