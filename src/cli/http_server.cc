#include "http_server.h"

#include <arpa/inet.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace modelcalc {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// What a page served here may do: its own inline script and style, fetch from
// this origin, images from this origin or data: URLs; never be framed (the API
// answers are not pages, and carry the same policy).
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; connect-src 'self'; img-src 'self' data:; script-src 'unsafe-inline'; "
    "style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
constexpr const char* kAllow = "GET, HEAD";

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      const int hi = i + 2 < s.size() ? hex_digit(s[i + 1]) : -1;
      const int lo = i + 2 < s.size() ? hex_digit(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return Status::InvalidArgument("request", "malformed %-escape in the URL");
      }
      c = static_cast<char>(hi * 16 + lo);
      if (c == '\0') return Status::InvalidArgument("request", "%00 in the URL");
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    out.push_back(c);
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

HttpResponse plain(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

// The answer to a request Beast's parser refused.
HttpResponse parse_failure(const beast::error_code& ec) {
  if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
    return plain(431, "the request line and header fields exceed the server's limit\n");
  }
  if (ec == http::error::body_limit) return plain(413, "the request body exceeds the server's limit\n");
  return plain(400, "malformed HTTP/1.1 request: " + ec.message() + "\n");
}

bool ascii_iequals(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) {
           return lower(x) == lower(y);
         });
}

// A one-line JSON error, {"error": message}. REQUIRES: `message` needs no JSON escaping.
HttpResponse json_refusal(int status, std::string_view message) {
  HttpResponse r = plain(status, "{\"error\": \"" + std::string(message) + "\"}\n");
  r.content_type = "application/json";
  return r;
}

bool is_parse_error(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_target).category() &&
         ec != http::error::end_of_stream &&
         ec != http::error::partial_message;
}

std::string_view field_of(const http::request<http::string_body>& req, http::field name) {
  const auto v = req[name];
  return trim(std::string_view(v.data(), v.size()));
}

std::string_view field_of(const http::request<http::string_body>& req, std::string_view name) {
  const auto v = req[beast::string_view(name.data(), name.size())];
  return trim(std::string_view(v.data(), v.size()));
}

CrossSiteFields cross_site_fields(const http::request<http::string_body>& req, std::string_view path) {
  return {field_of(req, http::field::host), field_of(req, http::field::origin), field_of(req, "Sec-Fetch-Site"),
          field_of(req, "Sec-Fetch-Mode"), path};
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  if (host.starts_with("[")) {  // [v6]:port
    const size_t close = host.find(']');
    return close != std::string_view::npos && host.substr(1, close - 1) == "::1" &&
           (close + 1 == host.size() || host[close + 1] == ':');
  }
  const std::string name(host.substr(0, host.find(':')));
  in_addr a{};
  if (name == "localhost") return true;
  return inet_pton(AF_INET, name.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

std::optional<std::string_view> cross_site_refusal(const CrossSiteFields& f) {
  const bool opens_the_page = f.fetch_mode == "navigate" && (f.path == "/" || f.path == "/index.html");
  if (!f.fetch_site.empty() && f.fetch_site != "same-origin" && f.fetch_site != "none" && !opens_the_page) {
    return "a request from another site (Sec-Fetch-Site): this server answers its own page and clients such as "
           "curl or scripts";
  }
  const bool own_origin = f.origin.starts_with("http://") && !f.host.empty() &&
                          ascii_iequals(f.origin.substr(7), f.host);
  if (!f.origin.empty() && !own_origin) {
    return "a request from another origin (Origin is not http:// and this server's Host): this server answers its "
           "own page and clients such as curl or scripts";
  }
  return std::nullopt;
}

Result<HttpRequest> parse_request_target(std::string_view target) {
  if (target.empty() || target[0] != '/') {
    return Status::InvalidArgument("request", "the target must be a path starting with '/'");
  }
  HttpRequest req;
  const size_t q = target.find('?');
  const std::string_view path = target.substr(0, std::min(q, target.find('#')));
  MC_ASSIGN_OR_RETURN(req.path, decode(path, false));
  if (q == std::string_view::npos || target.find('#') < q) return req;
  std::string_view query = target.substr(q + 1);
  const size_t hash = query.find('#');
  if (hash != std::string_view::npos) query = query.substr(0, hash);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    MC_ASSIGN_OR_RETURN(std::string key, decode(pair.substr(0, eq), true));
    std::string value;
    if (eq != std::string_view::npos) {
      MC_ASSIGN_OR_RETURN(value, decode(pair.substr(eq + 1), true));
    }
    req.query.emplace_back(std::move(key), std::move(value));
  }
  return req;
}

namespace {

// A fixed set of worker threads taking jobs from a bounded queue. Thread-safe.
class WorkLane {
 public:
  struct Job {
    CancelToken token;          // the request's: cancelled by cancel_all()
    std::function<void()> run;  // skipped when the token is cancelled before it starts
  };

  // REQUIRES: workers >= 1.
  WorkLane(int workers, size_t queue_capacity) : capacity_(queue_capacity), running_(static_cast<size_t>(workers)) {
    for (size_t i = 0; i < running_.size(); ++i) threads_.emplace_back([this, i] { work(i); });
  }
  ~WorkLane() {
    cancel_all();
    join();
  }

  // Queues `job`; false (job dropped) when every worker is busy and
  // queue_capacity jobs already wait, or the lane is stopping.
  bool try_push(Job job) {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() + busy_ >= running_.size() + capacity_) return false;
    queue_.push_back(std::move(job));
    cv_.notify_one();
    return true;
  }

  // Cancels every queued and running job's token and makes the workers exit
  // once their current job returns. Any thread; idempotent.
  void cancel_all() {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (const Job& j : queue_) j.token.cancel();
    for (const CancelToken& t : running_) t.cancel();
    cv_.notify_all();
  }

  // Waits for the workers, then drops the jobs never started. REQUIRES: cancel_all() was called.
  void join() {
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
    std::deque<Job> dropped;
    std::lock_guard lock(mu_);
    dropped.swap(queue_);
  }

 private:
  void work(size_t i) {
    for (;;) {
      Job job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
        running_[i] = job.token;
        ++busy_;
      }
      if (!job.token.cancelled()) job.run();
      std::lock_guard lock(mu_);
      running_[i] = CancelToken();
      --busy_;
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  const size_t capacity_;
  std::vector<CancelToken> running_;  // per worker: the token of the job it runs
  size_t busy_ = 0;                   // workers running a job
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

class Session;

}  // namespace

struct HttpServer::Impl {
  Impl(HttpHandler h, HttpServerOptions o)
      : handler(std::move(h)),
        opt(std::move(o)),
        light(std::max(opt.light_workers, 1), opt.light_queue),
        heavy(std::max(opt.heavy_workers, 1), opt.heavy_queue) {}

  void accept();
  void on_accept(const beast::error_code& ec, tcp::socket socket);
  void session_closed();
  void make_room();
  void stop();

  // A session waiting for a request's head: the one listed longest is evicted
  // for a newcomer when the server is over its connection cap.
  struct Idle {
    std::weak_ptr<Session> session;
    std::chrono::steady_clock::time_point since;
  };

  HttpHandler handler;
  HttpServerOptions opt;
  bool loopback = false;  // listening on 127.0.0.0/8 or ::1: only local Host names are answered
  std::atomic<size_t> open{0};
  std::atomic<bool> stopping{false};
  std::atomic<bool> accept_paused{false};
  std::atomic<int> stop_signal{0};
  std::atomic<size_t> queued_bytes{0};  // answer bytes handed to writes that have not completed
  std::mutex idle_mu;
  std::list<Idle> idle;  // oldest first; guarded by idle_mu, as each Session's listed_ and idle_pos_
  // Declared after what sessions read when they are destroyed with it.
  asio::io_context io;
  asio::strand<asio::io_context::executor_type> accept_strand{io.get_executor()};
  tcp::acceptor acceptor{accept_strand};
  asio::steady_timer accept_retry{accept_strand};
  asio::steady_timer room_retry{accept_strand};  // make_room() again once the oldest idle session is old enough
  asio::signal_set signals{io};
  // Declared after io: destroyed (joined) first, so a job's last reference to
  // a session drops while the io_context it belongs to still exists.
  WorkLane light;
  WorkLane heavy;
};

namespace {

// One connection: reads a request, answers it, and again while the client
// keeps the connection alive. Its handlers run one at a time (a strand).
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, HttpServer::Impl& server) : stream_(std::move(socket)), server_(server) {}
  ~Session() {
    unlist();
    if (held_ > 0) server_.queued_bytes.fetch_sub(held_);
    server_.session_closed();
  }

  // On the session's strand: closes the connection if it still waits for a
  // request (it may have received one since it was chosen); the pending read
  // ends and the session with it.
  void evict() {
    if (!waiting_) return;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }
  auto executor() { return stream_.get_executor(); }

  void start() { asio::dispatch(stream_.get_executor(), beast::bind_front_handler(&Session::read, shared_from_this())); }

 private:
  void read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_.opt.max_header_bytes));
    parser_->body_limit(server_.opt.max_body_bytes);
    stream_.expires_after(server_.opt.request_deadline);  // the whole request, however it trickles in
    waiting_ = true;
    list();
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&Session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, size_t) {
    waiting_ = false;
    unlist();
    if (ec) {
      // Closed, reset or past the deadline: nothing to answer. A request the parser refused: say why.
      if (is_parse_error(ec)) send(parse_failure(ec), false, /*close=*/true);
      return;
    }
    const auto& req = parser_->get();
    const bool head = req.method() == http::verb::head;
    const bool keep = req.keep_alive();
    if (req.version() != 10 && req.version() != 11) {
      return send(plain(505, "only HTTP/1.0 and HTTP/1.1\n"), head, true);
    }
    const size_t hosts = req.count(http::field::host);
    if (hosts > 1) return send(plain(400, "more than one Host header\n"), head, true);
    if (hosts == 0 && req.version() == 11) {
      return send(plain(400, "an HTTP/1.1 request needs a Host header\n"), head, true);
    }
    if (req.method() != http::verb::get && !head) {
      HttpResponse r = plain(405, "only GET and HEAD\n");
      r.headers.emplace_back("Allow", kAllow);
      return send(std::move(r), false, !keep);
    }
    if (server_.loopback && hosts == 1) {
      const auto field = req[http::field::host];
      if (!is_loopback_host(trim(std::string_view(field.data(), field.size())))) {
        return send(plain(403, "this server answers only requests for this machine (Host: localhost, 127.0.0.1 or "
                               "[::1]); serve --host 0.0.0.0 answers any\n"),
                    head, true);
      }
    }
    const auto target = req.target();
    auto parsed = parse_request_target(std::string_view(target.data(), target.size()));
    if (!parsed.ok()) return send(plain(400, parsed.status().message() + "\n"), head, !keep);
    if (auto why = cross_site_refusal(cross_site_fields(req, parsed->path))) {
      return send(json_refusal(403, *why), head, !keep);
    }
    dispatch(std::move(*parsed), head, keep);
  }

  // Queues the request on its lane and watches the socket while it waits and runs.
  void dispatch(HttpRequest req, bool head, bool keep) {
    const bool heavy = server_.opt.is_heavy && server_.opt.is_heavy(req);
    WorkLane& lane = heavy ? server_.heavy : server_.light;
    req.cancel = CancelToken::make();
    req.cpu_budget_s = heavy ? server_.opt.heavy_budget_s : server_.opt.light_budget_s;
    token_ = req.cancel;
    head_ = head;
    keep_ = keep;
    WorkLane::Job job{req.cancel, [self = shared_from_this(), req = std::move(req)] { self->work(req); }};
    if (!lane.try_push(std::move(job))) return send(busy(heavy), head, !keep);
    watch();
  }

  HttpResponse busy(bool heavy) const {
    HttpResponse r = json_refusal(503, heavy ? "busy: every worker for plan, sweep, calibrate, train-plan and "
                                               "tradeoff is taken and its queue is full; retry shortly"
                                             : "busy: every worker is taken and the queue is full; retry shortly");
    r.headers.emplace_back("Retry-After", std::to_string(server_.opt.retry_after_s));
    return r;
  }

  // On a worker: the handler's answer, handed back to the session's strand.
  void work(const HttpRequest& req) {
    HttpResponse r;
    try {
      r = server_.handler(req);
    } catch (const std::exception& e) {
      r = plain(500, std::string("internal error: ") + e.what() + "\n");
    }
    asio::post(stream_.get_executor(),
               [self = shared_from_this(), r = std::move(r)]() mutable { self->on_done(std::move(r)); });
  }

  // While the work runs: a read on the socket, so a close or reset is seen
  // (and cancels the work). Bytes that arrive (a pipelined request) are kept
  // in buffer_ for the next read(), up to a head's worth.
  void watch() {
    watching_ = true;
    stream_.expires_never();
    stream_.async_read_some(buffer_.prepare(1024), beast::bind_front_handler(&Session::on_watch, shared_from_this()));
  }

  void on_watch(beast::error_code ec, size_t n) {
    watching_ = false;
    if (!ec) {
      buffer_.commit(n);
    } else if (ec != asio::error::operation_aborted) {
      gone_ = true;  // closed or reset: nobody waits for the answer
      token_.cancel();
    }
    if (done_) return finish();
    if (!ec && buffer_.size() < server_.opt.max_header_bytes) watch();
  }

  void on_done(HttpResponse r) {
    result_ = std::move(r);
    done_ = true;
    if (!watching_) return finish();
    beast::error_code ignored;
    stream_.socket().cancel(ignored);  // on_watch finishes
  }

  void finish() {
    done_ = false;
    if (!gone_) send(std::move(result_), head_, !keep_);
  }

  void send(HttpResponse r, bool head, bool close) {
    // Answers held for clients that do not read them are bounded in all: past
    // the cap, the next answer is a short 503 instead.
    const size_t bytes = head ? 0 : r.body.size();
    if (bytes > 0 && server_.queued_bytes.fetch_add(bytes) + bytes > server_.opt.max_queued_bytes) {
      server_.queued_bytes.fetch_sub(bytes);
      r = json_refusal(503, "busy: the answers waiting for clients to read them fill the server's " +
                                std::to_string(server_.opt.max_queued_bytes >> 20) + " MiB; retry shortly");
      r.headers.emplace_back("Retry-After", std::to_string(server_.opt.retry_after_s));
      close = true;
    } else {
      held_ = bytes;
    }
    close_ = close;
    res_ = {};
    res_.version(11);
    res_.result(static_cast<unsigned>(r.status));
    res_.set(http::field::content_type, r.content_type);
    res_.set(http::field::cache_control, "no-store");
    res_.set("X-Content-Type-Options", "nosniff");
    res_.set("X-Frame-Options", "DENY");
    res_.set("Content-Security-Policy", kContentSecurityPolicy);
    res_.set("Referrer-Policy", "no-referrer");
    for (const auto& [name, value] : r.headers) res_.set(name, value);
    res_.keep_alive(!close);
    if (head) {
      res_.content_length(r.body.size());  // the GET's length, no body
    } else {
      res_.body() = std::move(r.body);
      res_.prepare_payload();
    }
    stream_.expires_after(server_.opt.write_deadline);
    http::async_write(stream_, res_, beast::bind_front_handler(&Session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, size_t) {
    server_.queued_bytes.fetch_sub(held_);
    held_ = 0;
    if (ec) return;
    if (!close_) return read();
    // Half-close, then read what the client still sends until it closes (at
    // most a second): closing with unread bytes would reset the connection
    // and could discard the answer before the client reads it.
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(std::chrono::seconds(1));
    drain();
  }

  void drain() {
    stream_.async_read_some(asio::buffer(scratch_), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (!ec) self->drain();
    });
  }

  // Listed in server_.idle while a read waits for a request.
  void list() {
    std::lock_guard lock(server_.idle_mu);
    if (listed_) return;
    idle_pos_ = server_.idle.insert(server_.idle.end(), {weak_from_this(), std::chrono::steady_clock::now()});
    listed_ = true;
  }
  void unlist() {
    std::lock_guard lock(server_.idle_mu);
    if (listed_) server_.idle.erase(idle_pos_);
    listed_ = false;
  }

  friend struct HttpServer::Impl;
  beast::tcp_stream stream_;
  HttpServer::Impl& server_;
  // Guarded by server_.idle_mu.
  bool listed_ = false;
  std::list<HttpServer::Impl::Idle>::iterator idle_pos_;
  bool waiting_ = false;  // a read for the next request is pending
  size_t held_ = 0;       // this session's part of server_.queued_bytes
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  bool close_ = false;
  char scratch_[1024];
  // The request at work (dispatch .. finish).
  CancelToken token_;
  HttpResponse result_;
  bool head_ = false, keep_ = false;
  bool watching_ = false;  // a watch() read is pending
  bool done_ = false;      // the answer is in result_, not yet sent
  bool gone_ = false;      // the client closed while the work ran
};

}  // namespace

void HttpServer::Impl::accept() {
  if (stopping.load()) return;
  acceptor.async_accept(asio::make_strand(io), [this](const beast::error_code& ec, tcp::socket socket) {
    on_accept(ec, std::move(socket));
  });
}

void HttpServer::Impl::on_accept(const beast::error_code& ec, tcp::socket socket) {
  if (stopping.load() || ec == asio::error::operation_aborted) return;
  if (!ec) {
    open.fetch_add(1);
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);  // an answer is one write; send it now
    std::make_shared<Session>(std::move(socket), *this)->start();
  } else if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space || ec == asio::error::no_memory) {
    // Out of file descriptors or memory: the connection waits in the listen queue; try again shortly.
    accept_retry.expires_after(std::chrono::milliseconds(100));
    accept_retry.async_wait([this](const beast::error_code& e) {
      if (!e) accept();
    });
    return;
  }
  if (open.load() > opt.max_connections) {
    // Over the cap: leave further connections in the listen queue until a
    // session closes, and close the longest-idle one to make room.
    accept_paused.store(true);
    if (open.load() <= opt.max_connections && accept_paused.exchange(false)) return accept();
    return make_room();
  }
  accept();
}

// On the accept strand, while accepting is paused: evicts the session that has
// waited longest for a request, once it has waited idle_grace (a newcomer's
// request may be on its way); its close resumes accepting. None idle: the next
// session to close resumes it.
void HttpServer::Impl::make_room() {
  if (stopping.load() || !accept_paused.load()) return;
  const auto now = std::chrono::steady_clock::now();
  std::shared_ptr<Session> victim;
  std::optional<std::chrono::steady_clock::time_point> later;
  {
    std::lock_guard lock(idle_mu);
    for (auto it = idle.begin(); it != idle.end(); ++it) {
      std::shared_ptr<Session> s = it->session.lock();
      if (!s) continue;  // closing: its destructor unlists it
      if (now - it->since < opt.idle_grace) {
        later = it->since + opt.idle_grace;
        break;
      }
      victim = std::move(s);
      victim->listed_ = false;
      idle.erase(it);
      break;
    }
  }
  if (victim) {
    asio::post(victim->executor(), [victim] { victim->evict(); });
  } else if (later) {
    room_retry.expires_at(*later);
    room_retry.async_wait([this](const beast::error_code& e) {
      if (!e) make_room();
    });
  }
}

void HttpServer::Impl::session_closed() {
  open.fetch_sub(1);
  // (The evicted session was chosen when accepting paused: its close resumes it here.)
  if (!stopping.load() && accept_paused.exchange(false)) asio::post(accept_strand, [this] { accept(); });
}

void HttpServer::Impl::stop() {
  if (stopping.exchange(true)) return;
  light.cancel_all();  // the work in flight sees its token cancelled
  heavy.cancel_all();
  io.stop();  // every thread returns from run() once its current handler ends
}

HttpServer::HttpServer(HttpHandler handler, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(handler), options)) {}

HttpServer::~HttpServer() { stop(); }

Status HttpServer::listen(const std::string& host, int port) {
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("--port", "must be 0 to 65535 (0: any free port), got " + std::to_string(port));
  }
  beast::error_code ec;
  const asio::ip::address addr = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec) {
    return Status::InvalidArgument("--host", "must be a numeric IPv4 or IPv6 address (127.0.0.1, 0.0.0.0, ::1) or "
                                             "localhost, got '" + host + "'");
  }
  const tcp::endpoint endpoint(addr, static_cast<unsigned short>(port));
  tcp::acceptor& a = impl_->acceptor;
  if (a.open(endpoint.protocol(), ec); ec) return Status::IoError("--host: cannot open a socket: " + ec.message());
  a.set_option(asio::socket_base::reuse_address(true), ec);
  a.bind(endpoint, ec);
  if (!ec) a.listen(impl_->opt.backlog, ec);
  if (ec) {
    beast::error_code ignored;
    a.close(ignored);
    return Status::InvalidArgument("--port", "cannot listen on " + host + " port " + std::to_string(port) + ": " +
                                                 ec.message());
  }
  port_ = a.local_endpoint(ec).port();
  impl_->loopback = addr.is_loopback() || (addr.is_v6() && addr.to_v6().is_v4_mapped() &&
                                           asio::ip::make_address_v4(asio::ip::v4_mapped, addr.to_v6()).is_loopback());
  return Status::Ok();
}

int HttpServer::serve() {
  Impl& s = *impl_;
  if (s.opt.stop_on_signals) {
    s.signals.add(SIGINT);
    s.signals.add(SIGTERM);
    s.signals.async_wait([&s](const beast::error_code& ec, int signal) {
      if (ec) return;
      s.stop_signal.store(signal);
      s.stop();
    });
  }
  asio::post(s.accept_strand, [&s] { s.accept(); });
  int n = s.opt.threads;
  if (n <= 0) n = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 2, 8);
  std::vector<std::thread> threads;
  for (int i = 1; i < n; ++i) {
    try {
      threads.emplace_back([&s] { s.io.run(); });
    } catch (const std::system_error&) {
      break;  // fewer threads than asked: serve with those there are
    }
  }
  s.io.run();
  for (std::thread& t : threads) t.join();
  s.light.join();  // stop() cancelled their work
  s.heavy.join();
  beast::error_code ignored;
  s.acceptor.close(ignored);
  s.signals.clear(ignored);
  return s.stop_signal.load();
}

void HttpServer::stop() { impl_->stop(); }

size_t HttpServer::idle_connections() const {
  std::lock_guard lock(impl_->idle_mu);
  return impl_->idle.size();
}

size_t HttpServer::queued_bytes() const { return impl_->queued_bytes.load(); }

}  // namespace modelcalc
