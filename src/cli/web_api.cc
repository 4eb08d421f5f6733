#include "web_api.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>

#include "cli.h"
#include "modelcalc/app/resolve.h"
#include "request_context.h"
#include "serve_args.h"
#include "web_request.h"

namespace modelcalc {

namespace {

// Thrown by CappedBuf when an answer outgrows kWebMaxOutputBytes: it unwinds
// the command (a sweep stops computing rows), and run_cli reports it as an
// internal error, which handle_web_request turns into the real reason.
struct OutputTooLarge : std::exception {
  const char* what() const noexcept override { return "output too large"; }
};

class CappedBuf : public std::streambuf {
 public:
  explicit CappedBuf(size_t cap) : cap_(cap) {}
  std::string& str() { return s_; }
  bool exceeded() const { return exceeded_; }

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    const char c = traits_type::to_char_type(ch);
    return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
  }
  std::streamsize xsputn(const char* p, std::streamsize n) override {
    if (s_.size() + static_cast<size_t>(n) > cap_) {
      exceeded_ = true;
      throw OutputTooLarge();
    }
    s_.append(p, static_cast<size_t>(n));
    return n;
  }

 private:
  size_t cap_;
  std::string s_;
  bool exceeded_ = false;
};

HttpResponse json_error(int status, const std::string& message) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  // replace: a message quoting the request's bytes need not be valid UTF-8
  r.body = nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return r;
}

// The CLI's error line without its "modelcalc: error: " prefix and newline.
std::string error_line(std::string err) {
  while (!err.empty() && err.back() == '\n') err.pop_back();
  for (std::string_view prefix : {"modelcalc: error: ", "modelcalc: internal error: ", "modelcalc: "}) {
    if (err.starts_with(prefix)) return err.substr(prefix.size());
  }
  return err;
}

// A 200 with the body and the endpoint's content type.
HttpResponse answer_response(std::string_view command, ServeOutput output, std::string body) {
  HttpResponse r;
  switch (output) {
    case ServeOutput::kJson: r.content_type = "application/json"; break;
    case ServeOutput::kText: r.content_type = "text/plain; charset=utf-8"; break;
    case ServeOutput::kSvg: r.content_type = "image/svg+xml"; break;
    case ServeOutput::kHtml:
      r.content_type = "text/html; charset=utf-8";
      r.headers.emplace_back("Content-Disposition", "attachment; filename=\"modelcalc-" + std::string(command) +
                                                        ".html\"");
      break;
  }
  r.body = std::move(body);
  return r;
}

HttpResponse too_large() {
  return json_error(400, "the answer exceeds " + std::to_string(kWebMaxOutputBytes >> 20) +
                             " MiB; ask for fewer rows (shorter lists), or run modelcalc itself");
}

// A typed request answered in process (render_answer, as the CLI does): errors
// are the Status, spelled with the web's keys.
HttpResponse answer_request(std::string_view command, const Result<WebRequest>& w, ServeOutput output) {
  const app::Table* table = app::find_table(command);
  if (!w.ok()) return json_error(400, app::spell_error(w.status(), app::Spelling::kKeyword, table));
  CappedBuf buf(kWebMaxOutputBytes);
  std::ostream out(&buf);
  out.exceptions(std::ios::badbit);  // CappedBuf's exception stops the answer (a sweep stops computing rows)
  Status s;
  try {
    s = render_answer(w->request, w->output, out);
  } catch (const OutputTooLarge&) {
    return too_large();
  } catch (const std::exception& e) {
    return json_error(500, std::string("internal error: ") + e.what());
  }
  if (buf.exceeded()) return too_large();
  // Plan with nothing meeting its targets answers its closest misses (NotMet): a 200.
  if (!s.ok() && s.code() != Status::Code::kNotMet) {
    return json_error(s.code() == Status::Code::kIoError ? 500 : 400,
                      app::spell_error(app::as_field_error(s), app::Spelling::kKeyword, table));
  }
  return answer_response(command, output, std::move(buf.str()));
}

HttpResponse run_command(std::string_view command, const HttpRequest& req, ServeOutput output) {
  if (Status s = check_serve_query(command, req.query, output); !s.ok()) {
    return json_error(s.code() == Status::Code::kNotFound ? 404 : 400, s.message());
  }
  if (auto w = decode_web_request(command, req.query, output)) return answer_request(command, *w, output);
  // The commands without a typed request yet (and --help): through the command line.
  auto args = serve_args(command, req.query, output);
  if (!args.ok()) {
    return json_error(args.status().code() == Status::Code::kNotFound ? 404 : 400, args.status().message());
  }
  CappedBuf buf(kWebMaxOutputBytes);
  std::ostream out(&buf);
  out.exceptions(std::ios::badbit);  // CappedBuf's exception reaches run_cli, which stops the command
  std::ostringstream err;
  int status = 1;
  try {  // run_cli is safe to call from several threads at once (docs/web.md)
    status = run_cli(*args, out, err);
  } catch (const OutputTooLarge&) {  // run_cli's final copy of a held answer is outside its own catch
    status = 1;
  }
  if (buf.exceeded()) return too_large();
  if (status == 2) return json_error(400, error_line(err.str()));
  if (status != 0 && buf.str().empty()) return json_error(500, error_line(err.str()));
  return answer_response(command, output, std::move(buf.str()));
}

}  // namespace

bool is_heavy_web_request(const HttpRequest& req) {
  std::string_view path = req.path;
  for (std::string_view prefix : {"/api/text/", "/api/svg/", "/api/html/", "/api/"}) {
    if (path.starts_with(prefix)) {
      path.remove_prefix(prefix.size());
      return path == "plan" || path == "sweep" || path == "calibrate" || path == "train-plan" || path == "tradeoff";
    }
  }
  return false;
}

HttpResponse handle_web_request(const HttpRequest& req) {
  // The searches poll this: the client's going, the server's stopping, the lane's budget.
  const ScopedRequestContext context(app::Context{req.cancel, req.cpu_budget_s, nullptr});
  if (req.path == "/" || req.path == "/index.html") {
    HttpResponse r;
    r.content_type = "text/html; charset=utf-8";
    r.body = std::string(web_index_html());
    return r;
  }
  struct Route {
    std::string_view prefix;
    ServeOutput output;
  };
  constexpr Route kRoutes[] = {{"/api/text/", ServeOutput::kText},
                               {"/api/svg/", ServeOutput::kSvg},
                               {"/api/html/", ServeOutput::kHtml},
                               {"/api/", ServeOutput::kJson}};
  for (const Route& route : kRoutes) {
    if (!req.path.starts_with(route.prefix)) continue;
    const std::string_view command = std::string_view(req.path).substr(route.prefix.size());
    if (route.output == ServeOutput::kJson && command.find('/') != std::string_view::npos) break;
    return run_command(command, req, route.output);
  }
  return json_error(404, "no page '" + req.path + "'" +
                             ": GET / is the page, /api/COMMAND the JSON, /api/text/COMMAND the report, "
                             "/api/svg/roofline and /api/svg/plan the pictures, /api/html/size the HTML page");
}

}  // namespace modelcalc
