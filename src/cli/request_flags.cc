#include "request_flags.h"

#include "modelcalc/app/field.h"

namespace modelcalc {

std::string row_help(const app::Row& row) {
  std::string help(row.help_or_field());
  const std::string_view def = row.default_or_field();
  if (!def.empty()) help += " (default: " + std::string(def) + ")";
  return help;
}

namespace {

// "-L,--layers" (CLI11's spelling list) of a row.
std::string names_of(const app::Row& row) {
  std::string names;
  if (row.field->short_flag != 0) names = std::string("-") + row.field->short_flag + ",";
  return names + "--" + std::string(row.field->flag);
}

}  // namespace

std::vector<std::string> row_spellings(const app::Row& row) {
  std::vector<std::string> out;
  if (row.field->short_flag != 0) out.push_back(std::string("-") + row.field->short_flag);
  out.push_back("--" + std::string(row.field->flag));
  for (std::string_view list : {row.field->aliases, row.aliases}) {
    while (!list.empty()) {
      const size_t comma = list.find(',');
      out.push_back("--" + std::string(list.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  return out;
}

void add_request_flags(FlagSet& flags, const app::Table& t, void* request) {
  for (const app::Row& row : t.rows) {
    const app::Row* r = &row;  // rows live as long as the table: a static
    if (row.positional) {
      flags.valued(row.field->flag, row_help(row), [r, request](std::string_view text, std::string_view) {
        r->set(request, app::Value{std::string(text)});
        return Status::Ok();
      });
      if (row.field->file) flags.reads();
      continue;
    }
    const std::string names = names_of(row);
    if (row.field->type == app::Type::kBool) {
      flags.toggle_fn(names, row_help(row), [r, request] { r->set(request, app::Value{true}); });
      continue;
    }
    flags.valued(names, row_help(row), [r, request](std::string_view text, std::string_view flag) -> Status {
      auto v = app::parse_text(*r->field, text, r->list);
      if (!v.ok()) {
        const Status& s = v.status();
        if (s.code() == Status::Code::kOverflow) return Status::Overflow(flag);
        return Status::InvalidArgument(flag, app::field_error(s).reason);
      }
      r->set(request, std::move(v).value());
      return Status::Ok();
    });
    if (row.required) flags.required();
    if (row.field->file) flags.reads(row.list);
    const std::string long_name = "--" + std::string(row.field->flag);
    const std::vector<std::string> spelled = row_spellings(row);
    const size_t first_alias = row.field->short_flag != 0 ? 2 : 1;
    for (size_t i = first_alias; i < spelled.size(); ++i) flags.alias(spelled[i], long_name);
  }
}

namespace {

std::string takes(const app::Row& row) {
  const app::Field& f = *row.field;
  std::string what;
  switch (f.type) {
    case app::Type::kBool: return "switch";
    case app::Type::kInt: what = "count"; break;
    case app::Type::kReal: what = f.unit == app::Unit::kNone ? "number" : std::string(app::unit_name(f.unit)); break;
    case app::Type::kText: what = f.file ? "path" : "text"; break;
    case app::Type::kChoice: {
      what = std::string(f.choices);
      for (char& c : what) {
        if (c == ',') c = '|';
      }
      break;
    }
    case app::Type::kDtype: what = "dtype"; break;
    case app::Type::kRange: what = "LO-HI " + std::string(app::unit_name(f.unit)); break;
  }
  return row.list ? what + " list" : what;
}

// A table cell: '|' escaped, one line.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string markdown_flag_table(const app::Table& t) {
  std::string md = "| flag | field | takes | default | meaning |\n|---|---|---|---|---|\n";
  for (const app::Row& row : t.rows) {
    const app::Field& f = *row.field;
    std::string flag;
    if (row.positional) {
      flag = std::string(f.flag);
    } else {
      for (const std::string& s : row_spellings(row)) flag += (flag.empty() ? "" : ", ") + s;
    }
    md += "| `" + flag + "` | `" + std::string(f.name) + "` | " + cell(takes(row)) + " | " +
          cell(row.default_or_field()) + " | " + cell(row.help_or_field()) + " |\n";
  }
  return md;
}

Status cli_error(const Status& s, const app::Table* t) {
  if (s.ok() || s.code() == Status::Code::kNotMet) return s;
  const std::string msg = app::spell_error(app::as_field_error(s), app::Spelling::kCli, t);
  const size_t colon = msg.find(": ");
  if (colon == std::string::npos) return s;
  if (s.code() == Status::Code::kOverflow) return Status::Overflow(msg.substr(0, colon));
  if (s.code() != Status::Code::kInvalidArgument) return s;
  return Status::InvalidArgument(msg.substr(0, colon), msg.substr(colon + 2));
}

}  // namespace modelcalc
