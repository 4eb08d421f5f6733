// What `modelcalc serve` answers (docs/web.md): the page, and every
// command's --json (or text report), in process. A command with a typed
// request (modelcalc/app/requests.h) is decoded from the query by its field
// table (web_request.h) and answered by render_answer(), the CLI's own
// renderer: no argument list, no run_cli, errors from the Status spelled with
// the web's keys ("context: ..."). The other commands still go through
// serve_args.h and run_cli until they move to the request layer.
#ifndef MODELCALC_WEB_API_H_
#define MODELCALC_WEB_API_H_

#include <cstddef>
#include <string_view>

#include "http_server.h"

namespace modelcalc {

// The page: web/index.html, compiled in (cmake/embed_web.cmake).
std::string_view web_index_html();

// An answer longer than this is refused (400) instead of held in memory: a
// sweep streams any number of rows.
inline constexpr size_t kWebMaxOutputBytes = 16 * 1024 * 1024;

// GET /                      the page (text/html)
// GET /api/COMMAND?k=v&...   the answer's JSON (`COMMAND --k v --json`) -> 200 application/json;
//                            bad input -> 400 {"error": "<field>: <reason>"} (the request's keys);
//                            plan with nothing meeting its targets -> 200 with its closest misses
// GET /api/text/COMMAND?...  the text report (text/plain), errors as above
// GET /api/svg/roofline?...  the picture (image/svg+xml): roofline --plot -, plan --plot -
// GET /api/svg/plan?...
// GET /api/html/size?...     size --report -: the HTML page, as a download (Content-Disposition)
// Anything else, an unknown command or `serve` -> 404 {"error": ...}.
// Safe to call from several threads at once: run_cli keeps no mutable state
// (its caches are function-local statics, initialised once, thread-safely, and
// read-only after), and each call writes only to its own streams.
// Runs under req.cancel and req.cpu_budget_s (request_context.h): plan, sweep,
// calibrate --fit and train-plan stop when the token is cancelled or the budget
// is spent, answering 400 {"error": ...} with the reason.
HttpResponse handle_web_request(const HttpRequest& req);

// The lane a request runs on (HttpServerOptions::is_heavy): the searches --
// plan, sweep, calibrate, train-plan, tradeoff -- at any endpoint; the rest
// (size, kv-budget, cost, roofline, the page, ...) are light.
bool is_heavy_web_request(const HttpRequest& req);

}  // namespace modelcalc

#endif  // MODELCALC_WEB_API_H_
