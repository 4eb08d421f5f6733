// The CLI's flags of a request, generated from its field table
// (modelcalc/app/table.h): one flag per row, spelled --<flag> (and -<short>,
// and each alias), its help the row's with "(default: ...)", its value parsed
// by the field's parser into the request member. Nothing here knows a field.
#ifndef MODELCALC_REQUEST_FLAGS_H_
#define MODELCALC_REQUEST_FLAGS_H_

#include <string>
#include <vector>

#include "flags.h"
#include "modelcalc/app/resolve.h"
#include "modelcalc/app/table.h"
#include "modelcalc/status.h"

namespace modelcalc {

// Declares every row of `t` on `flags`, bound to `*request` (the struct `t` describes).
void add_request_flags(FlagSet& flags, const app::Table& t, void* request);
template <typename Request>
void add_request_flags(FlagSet& flags, Request* request) {
  add_request_flags(flags, Request::table(), request);
}

// Every CLI spelling of a row: "-x" when it has a short flag, "--flag", then each "--alias".
std::vector<std::string> row_spellings(const app::Row& row);

// The --help line of a row: its help, then "(default: ...)" when it has one.
std::string row_help(const app::Row& row);

// docs/cli.md's table of a command's flags: flag (and aliases), the field's
// name (JSON key, Python keyword, web key), what it takes, the default, the help.
std::string markdown_flag_table(const app::Table& t);

// An answer's error in the CLI's spelling: the field as its flag ("--kv-dtype: ...").
Status cli_error(const Status& s, const app::Table* t);

}  // namespace modelcalc

#endif  // MODELCALC_REQUEST_FLAGS_H_
