// `modelcalc serve`'s query decoded straight into a typed request (issue #30):
// each key is a field of the command's table (modelcalc/app/table.h) -- its
// canonical name (kv_heads), its CLI spelling (kv-heads) or, one letter, its
// short flag (L) -- and its value is parsed by the field's own parser, as the
// CLI parses the flag. A few keys choose the output instead (explain, strings;
// json and format on /api/text/). No argument list is built and run_cli is not
// called: the web server answers with render_answer() (answer_output.h).
//
// The server reads and writes no file on a request's behalf: a field that
// names a file (config, draft_model, evidence) and the output files (plot,
// report) are refused naming the key.
#ifndef MODELCALC_WEB_REQUEST_H_
#define MODELCALC_WEB_REQUEST_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "answer_output.h"
#include "modelcalc/app/requests.h"
#include "modelcalc/status.h"
#include "serve_args.h"

namespace modelcalc {

struct WebRequest {
  app::AnyRequest request;
  AnswerOutput output;  // as the endpoint chooses: JSON, text, the SVG picture or the HTML page
};

// The request `params` describe for `command` at the endpoint `output`.
// nullopt: the command has no typed request yet, or the query asks for its
// --help (the caller answers through the command line instead). Errors name
// the key by its canonical field name ("context: ..."; app::spell_error
// with Spelling::kKeyword renders the reason's other fields the same way).
// REQUIRES: check_serve_query(command, params, output) passed.
std::optional<Result<WebRequest>> decode_web_request(std::string_view command,
                                                     const std::vector<std::pair<std::string, std::string>>& params,
                                                     ServeOutput output);

}  // namespace modelcalc

#endif  // MODELCALC_WEB_REQUEST_H_
