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
};

Status run_serve(const ServeFlags& f) {
  int port = -1;
  const char* end = f.port.data() + f.port.size();
  auto [p, ec] = std::from_chars(f.port.data(), end, port);
  if (ec != std::errc() || p != end || port < 0 || port > 65535) {
    return Status::InvalidArgument("--port", "must be a whole number 0 to 65535 (0: any free port), got '" + f.port +
                                                 "'");
  }
  HttpServerOptions options;
  options.stop_on_signals = true;  // Ctrl-C or SIGTERM: stop accepting, finish what runs, return
  HttpServer server(handle_web_request, options);
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
      .text("--port", "TCP port, 0 to 65535; 0 picks a free one (default: 8080)", &f->port);
  flags.footer(
      "Serves the page at http://HOST:PORT/ and the API until Ctrl-C or SIGTERM: GET /api/COMMAND?flag=value&...\n"
      "returns the command's --json (400 {\"error\": ...} for bad input), GET /api/text/COMMAND?... its text\n"
      "report (explain=true adds the formulas), /api/svg/roofline and /api/svg/plan the pictures, /api/html/size\n"
      "the HTML page. Query keys are flags: kv_heads=8 is --kv-heads 8, L=48 is -L 48, glu=true is --glu.\n"
      "Flags that name a file (--config, --lens-file, --plot, --report) are refused: the server reads and\n"
      "writes no file for a request. Prints \"modelcalc: serving on URL\" to stderr once listening, and\n"
      "\"modelcalc: stopped (SIGINT)\" when stopped (exit status 0). docs/web.md has the details.");
  return [f](std::ostream&) { return run_serve(*f); };
}

}  // namespace modelcalc
