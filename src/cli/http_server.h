// A minimal HTTP/1.1 server for `modelcalc serve`: GET only, one request per
// connection (Connection: close), a thread per connection (at most
// kMaxConnections at once; more get 503), 10 s socket timeouts, request heads
// of at most 16 KiB. POSIX sockets and nothing else, so the statically linked
// executable needs no resolver and no library: hosts are numeric addresses
// (IPv4 or IPv6) or "localhost" (127.0.0.1), never looked up.
//
// Why not cpp-httplib: Debian packages it as a shared library (the header
// holds only declarations), which the -static-pie executable cannot link.
// The tests use its client (src/cli/serve_test.cc), an independent HTTP
// implementation, against this server.
#ifndef MODELCALC_HTTP_SERVER_H_
#define MODELCALC_HTTP_SERVER_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "modelcalc/status.h"

namespace modelcalc {

struct HttpRequest {
  std::string path;                                         // percent-decoded, without the query
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in the order given
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Splits and decodes a request target "/path?a=1&b=x%20y" ('+' is a space in
// the query). Refuses a target that is not absolute-path form, a malformed or
// NUL-producing %-escape.
Result<HttpRequest> parse_request_target(std::string_view target);

class HttpServer {
 public:
  static constexpr int kMaxConnections = 32;

  explicit HttpServer(HttpHandler handler);
  ~HttpServer();  // stops and waits for the connections
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens. `host`: a numeric IPv4/IPv6 address or "localhost";
  // `port` 0 picks a free port (port() says which). Errors name --host/--port.
  Status listen(const std::string& host, int port);
  int port() const { return port_; }
  // Accepts connections until stop(); returns then. REQUIRES: listen() succeeded.
  void serve();
  // Makes serve() return and waits for every open connection to finish. Any thread.
  void stop();

 private:
  void handle(int fd);

  HttpHandler handler_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // a pipe: stop() writes, serve()'s poll wakes
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable idle_;
  int active_ = 0;  // connections being handled (guarded by mu_)
};

}  // namespace modelcalc

#endif  // MODELCALC_HTTP_SERVER_H_
