// What `modelcalc serve` answers (docs/web.md): the page, and every
// command's --json (or text report) from run_cli, in process. It parses and
// renders nothing itself: serve_args.h maps the query to arguments, run_cli
// computes, and this file only picks the status code and the content type.
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
// GET /api/COMMAND?k=v&...   run_cli({COMMAND, --k=v, ..., --json}) -> 200 application/json;
//                            bad input (exit 2) -> 400 {"error": "<the CLI's line>"};
//                            plan's exit 1 with output -> 200 with the output
// GET /api/text/COMMAND?...  the text report (text/plain), errors as above
// GET /api/svg/roofline?...  the picture (image/svg+xml): roofline --plot -, plan --plot -
// GET /api/svg/plan?...
// GET /api/html/size?...     size --report -: the HTML page, as a download (Content-Disposition)
// Anything else, an unknown command or `serve` -> 404 {"error": ...}.
// Safe to call from several threads at once: run_cli keeps no mutable state
// (its caches are function-local statics, initialised once, thread-safely, and
// read-only after), and each call writes only to its own streams.
HttpResponse handle_web_request(const HttpRequest& req);

}  // namespace modelcalc

#endif  // MODELCALC_WEB_API_H_
