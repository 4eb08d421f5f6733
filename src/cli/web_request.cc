#include "web_request.h"

#include <algorithm>

#include "modelcalc/app/field.h"
#include "modelcalc/app/table.h"
#include "quantity.h"

namespace modelcalc {

namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

bool asks_help(const Params& params) {
  return std::any_of(params.begin(), params.end(), [](const auto& p) { return p.first == "help" || p.first == "h"; });
}

// The row a query key names, or null.
const app::Row* find_row(const app::Table& t, std::string_view key) {
  if (key.size() == 1) {
    for (const app::Row& r : t.rows) {
      if (r.field->short_flag == key[0]) return &r;
    }
    return nullptr;
  }
  if (const app::Row* r = t.find(key)) return r;
  std::string dashed(key);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return t.find(dashed);
}

Status files_refused(std::string_view key) {
  return Status::InvalidArgument(key, "names a file on the server; the web API reads and writes no files (run "
                                      "modelcalc on your own machine for that)");
}

// "true" -> true, "false" -> false; anything else is refused naming `key`.
Result<bool> switch_value(std::string_view key, std::string_view value) {
  if (value == "true") return true;
  if (value == "false") return false;
  return Status::InvalidArgument(key, "is a switch: give true or false, got " + quote_input(value));
}

// An output key (explain, strings; json and format on /api/text/) onto `o`;
// false when `key` is not one.
Result<bool> set_output_key(std::string_view key, std::string_view value, ServeOutput output, AnswerOutput* o) {
  if (key == "plot" || key == "report") return files_refused(key);
  const bool endpoint_chooses = key == "json" || key == "format" || key == "help" || key == "h";
  if (key != "explain" && key != "strings" && !endpoint_chooses) return false;
  if (endpoint_chooses && output != ServeOutput::kText) {
    return Status::InvalidArgument(key, "is chosen by the endpoint: /api/COMMAND is JSON, /api/text/COMMAND is the "
                                        "text report");
  }
  if (key == "format") {
    if (value.empty()) return Status::InvalidArgument(key, "needs a value, got an empty string");
    o->format = std::string(value);
    return true;
  }
  MC_ASSIGN_OR_RETURN(const bool on, switch_value(key, value));
  (key == "explain" ? o->output.explain : key == "strings" ? o->output.strings : o->output.json) = on;
  return true;
}

// One field key's value into the request.
Status set_field(const app::Row& row, std::string_view value, void* request) {
  const app::Field& f = *row.field;
  if (f.file && (f.file_keyword.empty() || value != f.file_keyword)) {
    if (!f.file_keyword.empty()) {
      return Status::InvalidArgument(f.name, "names a file on the server; the web API reads no files: give '" +
                                                 std::string(f.file_keyword) + "' for the compiled-in data");
    }
    return files_refused(f.name);
  }
  if (f.type == app::Type::kBool) {
    MC_ASSIGN_OR_RETURN(const bool on, switch_value(f.name, value));
    if (on) row.set(request, app::Value{true});
    return Status::Ok();
  }
  // "?model" would otherwise be an empty name; the CLI refuses "--model=" the same way.
  if (value.empty()) return Status::InvalidArgument(f.name, "needs a value, got an empty string");
  MC_ASSIGN_OR_RETURN(app::Value v, app::parse_text(f, value, row.list));
  row.set(request, std::move(v));
  return Status::Ok();
}

void choose_endpoint_output(std::string_view command, ServeOutput output, AnswerOutput* o) {
  switch (output) {
    case ServeOutput::kJson:
      if (command == "sweep") {
        o->format = "json";
      } else {
        o->output.json = true;
      }
      break;
    case ServeOutput::kSvg: o->plot = "-"; break;
    case ServeOutput::kHtml: o->report = "-"; break;
    case ServeOutput::kText: break;
  }
}

Result<WebRequest> decode(std::string_view command, const Params& params, ServeOutput output, WebRequest w) {
  const app::Table& table = app::table_of(w.request);
  void* request = app::fields_of(w.request);
  for (const auto& [key, value] : params) {
    MC_ASSIGN_OR_RETURN(const bool was_output, set_output_key(key, value, output, &w.output));
    if (was_output) continue;
    const app::Row* row = find_row(table, key);
    if (row == nullptr) {
      if (const app::Decided* d = table.find_decided(key)) {
        return Status::InvalidArgument(key, "is not a field of " + std::string(command) + ": " + std::string(d->reason));
      }
      return Status::InvalidArgument(key, "is not a field of " + std::string(command) + " (modelcalc " +
                                              std::string(command) + " --help lists them)");
    }
    MC_RETURN_IF_ERROR(set_field(*row, value, request));
  }
  choose_endpoint_output(command, output, &w.output);
  return w;
}

}  // namespace

std::optional<Result<WebRequest>> decode_web_request(std::string_view command, const Params& params,
                                                     ServeOutput output) {
  auto empty = app::empty_request(command);
  if (!empty.ok() || (output == ServeOutput::kText && asks_help(params))) return std::nullopt;
  return decode(command, params, output, WebRequest{std::move(empty).value(), {}});
}

}  // namespace modelcalc
