#include "http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace modelcalc {

namespace {

constexpr size_t kMaxHead = 16 * 1024;
constexpr int kTimeoutSeconds = 10;

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

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Internal Server Error";
  }
}

void send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client went away or timed out: nothing to tell it
    data.remove_prefix(static_cast<size_t>(n));
  }
}

void send_response(int fd, const HttpResponse& r) {
  std::string head = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) +
                     "\r\nContent-Type: " + r.content_type + "\r\nContent-Length: " + std::to_string(r.body.size()) +
                     "\r\nConnection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
                     "Content-Security-Policy: default-src 'none'; connect-src 'self'; "
                     "script-src 'unsafe-inline'; style-src 'unsafe-inline'\r\n\r\n";
  send_all(fd, head);
  send_all(fd, r.body);
}

HttpResponse plain(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

}  // namespace

Result<HttpRequest> parse_request_target(std::string_view target) {
  if (target.empty() || target[0] != '/') {
    return Status::InvalidArgument("request", "the target must be a path starting with '/'");
  }
  HttpRequest req;
  const size_t q = target.find('?');
  const std::string_view path = target.substr(0, q);
  MC_ASSIGN_OR_RETURN(req.path, decode(path, false));
  if (q == std::string_view::npos) return req;
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

HttpServer::HttpServer(HttpHandler handler) : handler_(std::move(handler)) {}

HttpServer::~HttpServer() {
  stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  for (int fd : wake_) {
    if (fd >= 0) ::close(fd);
  }
}

Status HttpServer::listen(const std::string& host, int port) {
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("--port", "must be 0 to 65535 (0: any free port), got " + std::to_string(port));
  }
  const std::string numeric = host == "localhost" ? "127.0.0.1" : host;
  sockaddr_storage addr{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (inet_pton(AF_INET, numeric.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    len = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, numeric.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    len = sizeof(sockaddr_in6);
  } else {
    return Status::InvalidArgument("--host", "must be a numeric IPv4 or IPv6 address (127.0.0.1, 0.0.0.0, ::1) or "
                                             "localhost, got '" + host + "'");
  }
  const int fd = ::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IoError(std::string("--host: cannot open a socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 64) != 0) {
    const int e = errno;
    ::close(fd);
    return Status::InvalidArgument("--port", "cannot listen on " + host + " port " + std::to_string(port) + ": " +
                                                 std::strerror(e));
  }
  sockaddr_storage bound{};
  socklen_t bound_len = sizeof(bound);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bound_len);
  port_ = ntohs(bound.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                                           : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  if (::pipe2(wake_, O_CLOEXEC) != 0) {
    ::close(fd);
    return Status::IoError(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  listen_fd_ = fd;
  return Status::Ok();
}

void HttpServer::serve() {
  while (!stopping_.load()) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0 || stopping_.load()) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const timeval tv{kTimeoutSeconds, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (active_ >= kMaxConnections) {
        send_response(fd, plain(503, "too many connections at once; retry\n"));
        ::close(fd);
        continue;
      }
      ++active_;
    }
    std::thread([this, fd] {
      handle(fd);
      ::close(fd);
      std::lock_guard<std::mutex> lock(mu_);
      --active_;
      idle_.notify_all();
    }).detach();
  }
}

void HttpServer::stop() {
  if (!stopping_.exchange(true) && wake_[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_[1], &byte, 1);
  }
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return active_ == 0; });
}

void HttpServer::handle(int fd) {
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (head.size() > kMaxHead) {
      send_response(fd, plain(431, "the request head exceeds 16 KiB\n"));
      return;
    }
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // closed, or silent for kTimeoutSeconds
    head.append(buf, static_cast<size_t>(n));
  }
  const size_t line_end = head.find("\r\n");
  const std::string_view line(head.data(), line_end);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.substr(sp2 + 1).substr(0, 5) != "HTTP/") {
    send_response(fd, plain(400, "malformed request line\n"));
    return;
  }
  if (line.substr(0, sp1) != "GET") {
    send_response(fd, plain(405, "only GET\n"));
    return;
  }
  auto req = parse_request_target(line.substr(sp1 + 1, sp2 - sp1 - 1));
  if (!req.ok()) {
    send_response(fd, plain(400, req.status().message() + "\n"));
    return;
  }
  HttpResponse r;
  try {
    r = handler_(*req);
  } catch (const std::exception& e) {
    r = plain(500, std::string("internal error: ") + e.what() + "\n");
  }
  send_response(fd, r);
}

}  // namespace modelcalc
