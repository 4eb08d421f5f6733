// The HTTP/1.1 server under `modelcalc serve` (docs/web.md), on Boost.Beast
// over Boost.Asio (header-only, Debian's libboost-dev; Boost stays inside
// http_server.cc). What it guarantees:
// - Parsing is Beast's, strict: a malformed request line or header field
//   (no colon, "Host :", bad characters), an HTTP version other than 1.0 or
//   1.1, an HTTP/1.1 request without exactly one Host, a duplicated Host, a
//   head over max_header_bytes or a body over max_body_bytes is refused
//   (400, 505, 431, 413) and the connection closed.
// - One deadline per request: its head and body must arrive within
//   request_deadline of the server starting to wait for it (after accept, or
//   after the previous answer on a kept-alive connection); a client sending
//   a byte a second does not extend it. Answers are written within
//   write_deadline. Then the connection is closed.
// - No refusals under a burst: at most max_connections are open at once;
//   further ones wait in the kernel's listen queue (backlog) until one closes.
// - Work apart from I/O: `threads` threads run only the I/O; the handler runs
//   on one of two worker lanes (is_heavy chooses), each a fixed set of
//   threads with a bounded queue, so heavy requests can never occupy every
//   worker. A request arriving at a full queue is answered 503 with
//   Retry-After at once. The handler may run on several workers at once.
// - Each request carries a cancel token (HttpRequest::cancel), cancelled when
//   its client closes or resets the connection while the work runs (the
//   server keeps a read pending on the socket) and by stop(); and its lane's
//   CPU budget (HttpRequest::cpu_budget_s). A handler that polls them stops.
//   stop() cancels every request in flight; serve() joins the workers.
// - GET and HEAD only (405 with Allow otherwise); every answer carries
//   X-Content-Type-Options, X-Frame-Options, a Content-Security-Policy with
//   frame-ancestors 'none', Referrer-Policy and Cache-Control; keep-alive as
//   the client asks.
// - Cross-site requests are refused (403, a one-line JSON error): see
//   cross_site_refusal.
// - Bound to a loopback address, it answers only requests whose Host names
//   this machine (localhost, 127.x.x.x, [::1]): a page elsewhere cannot point
//   a name of its own at 127.0.0.1 (DNS rebinding) and read the API.
// Hosts are numeric addresses (IPv4 or IPv6) or "localhost", never looked
// up, so the statically linked executable needs no resolver.
#ifndef MODELCALC_HTTP_SERVER_H_
#define MODELCALC_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "modelcalc/cancel.h"
#include "modelcalc/status.h"

namespace modelcalc {

struct HttpRequest {
  std::string path;                                         // percent-decoded, without the query
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in the order given
  // Set by the server for the handler: poll them in long work (app::Context).
  CancelToken cancel;       // cancelled when the client goes or the server stops
  double cpu_budget_s = 0;  // the lane's CPU seconds for this request; 0 = no limit
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra fields, e.g. Content-Disposition
};

// Called on one of the server's worker threads, possibly on several at once.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;
// Whether a request runs on the heavy lane. Called on an I/O thread: must be quick.
using HttpLaneChooser = std::function<bool(const HttpRequest&)>;

struct HttpServerOptions {
  int threads = 0;                  // threads running the I/O; 0: the CPUs', clamped to 2..8
  size_t max_connections = 512;     // open at once; one more is accepted, then the longest-idle one is closed
                                    // (or, none idle, further ones wait in the listen queue)
  std::chrono::milliseconds idle_grace{1'000};  // a session waiting for a request this long may be evicted
  size_t max_queued_bytes = size_t{64} << 20;    // answer bytes being written, over all clients; past it, 503
  int backlog = 1024;               // the kernel's listen queue
  std::chrono::milliseconds request_deadline{10'000};  // to receive one request, head and body
  std::chrono::milliseconds write_deadline{10'000};    // to send one answer
  size_t max_header_bytes = 16 * 1024;  // request line and header fields
  size_t max_body_bytes = 64 * 1024;    // a GET has none; bounded all the same
  bool stop_on_signals = false;         // SIGINT and SIGTERM make serve() return
  // The worker lanes. REQUIRES: workers >= 1 (0 is taken as 1).
  int light_workers = 4;        // threads answering light requests
  int heavy_workers = 1;        // heavy requests running at once; keep < light_workers + heavy_workers
  size_t light_queue = 256;     // light requests waiting for a worker; one more is answered 503
  size_t heavy_queue = 4;       // heavy requests waiting for a worker; one more is answered 503
  double light_budget_s = 0;    // CPU seconds a light request may use; 0 = no limit
  double heavy_budget_s = 60;   // CPU seconds a heavy request may use; 0 = no limit
  int retry_after_s = 1;        // the 503's Retry-After, seconds
  HttpLaneChooser is_heavy;     // null: every request is light
};

// Whether a Host header's value names the local machine: localhost,
// 127.x.x.x or [::1], with or without a port.
bool is_loopback_host(std::string_view host);

// The request fields the cross-site check reads ("" when absent).
struct CrossSiteFields {
  std::string_view host;        // the Host header
  std::string_view origin;      // Origin
  std::string_view fetch_site;  // Sec-Fetch-Site
  std::string_view fetch_mode;  // Sec-Fetch-Mode
  std::string_view path;        // the decoded path
};

// Why a request is refused as cross-site (403), or nullopt to serve it. A
// browser names where a request comes from: an Origin that is not
// "http://" + Host (the page's own origin; compared case-insensitively; "null"
// included), or a Sec-Fetch-Site other than same-origin or none (cross-site,
// same-site: another port of localhost is another page), is refused, except a
// top-level navigation (Sec-Fetch-Mode: navigate) to the page itself ("/"), so
// a link opens it. A client that names neither (curl, scripts) is served.
std::optional<std::string_view> cross_site_refusal(const CrossSiteFields& f);

// Splits and decodes a request target "/path?a=1&b=x%20y" ('+' is a space in
// the query; a "#fragment" is dropped). Refuses a target that is not
// origin-form (a path starting with '/'), a malformed or NUL-producing
// %-escape. A key without '=' has an empty value.
Result<HttpRequest> parse_request_target(std::string_view target);

class HttpServer {
 public:
  explicit HttpServer(HttpHandler handler, HttpServerOptions options = {});
  ~HttpServer();  // stops and waits for the threads
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens. `host`: a numeric IPv4/IPv6 address or "localhost";
  // `port` 0 picks a free port (port() says which). Errors name --host/--port.
  Status listen(const std::string& host, int port);
  int port() const { return port_; }
  // Serves until stop() (or a signal, with stop_on_signals); returns once
  // every thread has finished what it was running. REQUIRES: listen() succeeded.
  // Returns the signal that stopped it, or 0.
  int serve();
  // Makes serve() return. Any thread, any time (before serve() too).
  void stop();
  // What the server holds now, for tests and monitoring. Any thread.
  size_t idle_connections() const;  // sessions waiting for a request
  size_t queued_bytes() const;      // answer bytes in writes not yet complete

  struct Impl;  // the Asio state, defined in http_server.cc

 private:
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace modelcalc

#endif  // MODELCALC_HTTP_SERVER_H_
