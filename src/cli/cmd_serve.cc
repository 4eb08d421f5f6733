// modelcalc serve: the web page and a JSON API over every command
// (docs/web.md). The page is compiled in (web/index.html); the API runs run_cli
// in process (web_api.h); the server reads and writes no file on a request's
// behalf (serve_args.h refuses every file flag).
#include <charconv>
#include <csignal>
#include <iostream>
#include <memory>

#include "commands.h"
#include "http_server.h"
#include "web_api.h"

namespace modelcalc {

namespace {

struct ServeFlags {
  std::string host = "127.0.0.1";
  std::string port = "8080";
  std::string light_workers = "4";
  std::string heavy_workers = "1";
  std::string light_queue = "256";
  std::string heavy_queue = "4";
  std::string heavy_budget = "60";  // CPU seconds
};

// `text` as a whole number lo..hi, or an error naming `flag` and the range.
Result<int64_t> whole_in(const std::string& text, std::string_view flag, int64_t lo, int64_t hi) {
  int64_t v = -1;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || v < lo || v > hi) {
    return Status::InvalidArgument(std::string(flag), "must be a whole number " + std::to_string(lo) + " to " +
                                                          std::to_string(hi) + ", got '" + text + "'");
  }
  return v;
}

// `text` as seconds, 0 (no limit) to a day.
Result<double> seconds_in(const std::string& text, std::string_view flag) {
  double v = -1;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || !(v >= 0 && v <= 86'400)) {
    return Status::InvalidArgument(std::string(flag), "must be CPU seconds, 0 (no limit) to 86400, got '" + text + "'");
  }
  return v;
}

Result<HttpServerOptions> server_options(const ServeFlags& f) {
  HttpServerOptions o;
  o.stop_on_signals = true;  // Ctrl-C or SIGTERM: cancel the work in flight, stop, return
  o.is_heavy = is_heavy_web_request;
  MC_ASSIGN_OR_RETURN(const int64_t light, whole_in(f.light_workers, "--light-workers", 1, 256));
  MC_ASSIGN_OR_RETURN(const int64_t heavy, whole_in(f.heavy_workers, "--heavy-workers", 1, 256));
  MC_ASSIGN_OR_RETURN(const int64_t light_queue, whole_in(f.light_queue, "--light-queue", 0, 1'000'000));
  MC_ASSIGN_OR_RETURN(const int64_t heavy_queue, whole_in(f.heavy_queue, "--heavy-queue", 0, 1'000'000));
  MC_ASSIGN_OR_RETURN(o.heavy_budget_s, seconds_in(f.heavy_budget, "--heavy-budget"));
  o.light_workers = static_cast<int>(light);
  o.heavy_workers = static_cast<int>(heavy);
  o.light_queue = static_cast<size_t>(light_queue);
  o.heavy_queue = static_cast<size_t>(heavy_queue);
  return o;
}

Status run_serve(const ServeFlags& f) {
  int port = -1;
  const char* end = f.port.data() + f.port.size();
  auto [p, ec] = std::from_chars(f.port.data(), end, port);
  if (ec != std::errc() || p != end || port < 0 || port > 65535) {
    return Status::InvalidArgument("--port", "must be a whole number 0 to 65535 (0: any free port), got '" + f.port +
                                                 "'");
  }
  MC_ASSIGN_OR_RETURN(HttpServerOptions options, server_options(f));
  HttpServer server(handle_web_request, std::move(options));
  MC_RETURN_IF_ERROR(server.listen(f.host, port));
  const bool v6 = f.host.find(':') != std::string::npos;
  std::cerr << "modelcalc: serving on http://" << (v6 ? "[" + f.host + "]" : f.host) << ":" << server.port() << "/"
            << std::endl;
  const int signal = server.serve();
  std::cerr << "modelcalc: stopped (" << (signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "SIGINT" : "stop")
            << ")" << std::endl;
  return Status::Ok();
}

}  // namespace

CommandRun setup_serve(FlagSet& flags) {
  auto f = std::make_shared<ServeFlags>();
  flags
      .text("--host",
            "Address to listen on: a numeric IPv4/IPv6 address or localhost (default: 127.0.0.1, this machine only; "
            "0.0.0.0 or another address exposes the page and API to the network)",
            &f->host)
      .text("--port", "TCP port, 0 to 65535; 0 picks a free one (default: 8080)", &f->port)
      .text("--light-workers", "Threads answering light requests (size, kv-budget, cost, roofline, the page, ...), "
            "1 to 256 (default: 4)", &f->light_workers)
      .text("--heavy-workers", "Threads answering the searches (plan, sweep, calibrate, train-plan, tradeoff): at most "
            "this many run at once, beside the light workers, 1 to 256 (default: 1)", &f->heavy_workers)
      .text("--light-queue", "Light requests waiting for a worker; one more is answered 503 with Retry-After "
            "(default: 256)", &f->light_queue)
      .text("--heavy-queue", "Searches waiting for a heavy worker; one more is answered 503 with Retry-After "
            "(default: 4)", &f->heavy_queue)
      .text("--heavy-budget", "CPU seconds one search may use before it stops with an error; 0: no limit "
            "(default: 60)", &f->heavy_budget);
  flags.footer(
      "Serves the page at http://HOST:PORT/ and the API until Ctrl-C or SIGTERM (which cancel the work in\n"
      "flight, as a client's hang-up cancels its own): GET /api/COMMAND?flag=value&...\n"
      "returns the command's --json (400 {\"error\": ...} for bad input), GET /api/text/COMMAND?... its text\n"
      "report (explain=true adds the formulas), /api/svg/roofline and /api/svg/plan the pictures, /api/html/size\n"
      "the HTML page. Query keys are flags: kv_heads=8 is --kv-heads 8, L=48 is -L 48, glu=true is --glu.\n"
      "Flags that name a file (--config, --lens-file, --plot, --report) are refused: the server reads and\n"
      "writes no file for a request. Prints \"modelcalc: serving on URL\" to stderr once listening, and\n"
      "\"modelcalc: stopped (SIGINT)\" when stopped (exit status 0). docs/web.md has the details.");
  return [f](std::ostream&) { return run_serve(*f); };
}

}  // namespace modelcalc
