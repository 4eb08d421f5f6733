#include "pasteable.h"

#include <algorithm>

#include "modelcalc/app/fields.h"
#include "request_flags.h"

namespace modelcalc {

using app::Field;
namespace fields = app::fields;

namespace {

std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return v.dump();
}

// Where the user gave the field: the index of its flag and whether the value is in the same word.
struct Given {
  size_t at = 0;
  bool joined = false;  // --seq=8192
  std::string spelled;
};

std::optional<Given> find_given(const std::vector<std::string>& args, const app::Row& row) {
  const std::vector<std::string> names = row_spellings(row);
  for (size_t i = 1; i < args.size(); ++i) {
    for (const std::string& n : names) {
      if (args[i] == n && i + 1 < args.size()) return Given{i, false, n};
      if (args[i].size() > n.size() && args[i].compare(0, n.size(), n) == 0 && args[i][n.size()] == '=') {
        return Given{i, true, n};
      }
    }
  }
  return std::nullopt;
}

std::string quoted(const std::string& a) {
  const bool plain = !a.empty() && std::all_of(a.begin(), a.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || std::string_view("-_=.,:/@+%").find(ch) != std::string_view::npos;
  });
  if (plain) return a;
  std::string out = "'";
  for (char ch : a) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

bool is_split_key(std::string_view k) { return k == "pp" || k == "ep" || k == "dp"; }

// The hand-typed shape's fields: a model named by --model, --config or --checkpoint takes none of them
// (the request layer refuses the mix), so a change of one (a retrained model) pastes only onto shape flags.
bool is_shape_field(const Field* f) {
  for (const Field* s : {&fields::kLayers, &fields::kHidden, &fields::kHeads, &fields::kKvHeads, &fields::kHeadDim,
                         &fields::kFfn, &fields::kGlu, &fields::kVocab, &fields::kTied}) {
    if (f == s) return true;
  }
  return false;
}

bool names_a_model(const std::vector<std::string>& args, const app::Table& table) {
  for (const char* k : {"model", "config", "checkpoint"}) {
    const app::Row* row = table.find(k);
    if (row != nullptr && find_given(args, *row)) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> pasteable_command(std::span<const std::string> in, const nlohmann::json& change,
                                             const app::Table& table) {
  if (in.empty() || !change.is_object() || change.empty()) return std::nullopt;
  std::vector<std::string> args(in.begin(), in.end());
  for (const auto& [key, value] : change.items()) {
    const app::Row* row = table.find(key);
    if (row == nullptr || row->field->name != key || row->positional) return std::nullopt;
    if (is_shape_field(row->field) && names_a_model(args, table)) return std::nullopt;
    const std::string text = value_text(value);
    if (const std::optional<Given> g = find_given(args, *row)) {
      if (g->joined) {
        args[g->at] = g->spelled + "=" + text;
      } else {
        args[g->at + 1] = text;
      }
      continue;
    }
    if (is_split_key(key) && text == "1") continue;  // unsaid, pp, ep and dp are 1 (dp: gpus / (tp pp))
    args.push_back("--" + std::string(row->field->flag));
    args.push_back(text);
  }
  std::string out = "modelcalc";
  for (const std::string& a : args) out += " " + quoted(a);
  return out;
}

namespace {

// "proposals" -> "proposal": the label of an array's entries.
std::string singular(const std::string& key) {
  if (key == "fixes" || key == "misses") return key.substr(0, key.size() - 2);
  if (key.size() > 1 && key.back() == 's') return key.substr(0, key.size() - 1);
  return key;
}

}  // namespace

std::vector<PasteableCommand> add_pasteable_commands(nlohmann::json& j, std::span<const std::string> args,
                                                     const app::Table& table) {
  std::vector<PasteableCommand> found;
  auto walk = [&](auto&& self, nlohmann::json& node, const std::string& label) -> void {
    if (node.is_object()) {
      if (const auto c = node.find("change"); c != node.end() && c->is_object() && !c->empty()) {
        const std::optional<std::string> cmd = pasteable_command(args, *c, table);
        node["command"] = cmd ? nlohmann::json(*cmd) : nlohmann::json();
        if (cmd) found.push_back({label, *cmd});
      }
      for (auto& [k, v] : node.items()) {
        if (k == "change" || k == "after" || k == "command") continue;
        self(self, v, label.empty() ? k : label + " " + k);
      }
    } else if (node.is_array()) {
      const std::string item = singular(label.substr(label.rfind(' ') == std::string::npos ? 0 : label.rfind(' ') + 1));
      const std::string prefix = label.rfind(' ') == std::string::npos ? "" : label.substr(0, label.rfind(' ') + 1);
      for (size_t i = 0; i < node.size(); ++i) self(self, node[i], prefix + item + " " + std::to_string(i + 1));
    }
  };
  walk(walk, j, "");
  return found;
}

}  // namespace modelcalc
