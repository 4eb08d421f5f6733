// The server's worker lanes, over real sockets on loopback, with a test
// handler that loops polling its cancel token: a request at work sees its
// client go, a full heavy lane leaves the light one serving, a full queue is
// 503 with Retry-After at once, stop() cancels the work in flight. And the web
// handler's searches honour the token (request_context.h). Deterministic: the
// tests wait for states (a request started, a token cancelled) in bounded
// loops; the time limits only guard against a hang, no test asserts a duration.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "http_server.h"
#include "test_socket.h"
#include "web_api.h"

namespace modelcalc {
namespace {

using test_socket::connect_to;
using test_socket::kGuardSeconds;
using test_socket::read_to_end;
using test_socket::send_all;

// A GET of `path` that asks the server to close after the answer.
std::string get(std::string_view path) {
  return "GET " + std::string(path) + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
}

// The raw reply to GET `path` (the server closes after it).
std::string fetch(int port, std::string_view path) {
  const int fd = connect_to(port);
  EXPECT_GE(fd, 0);
  if (fd < 0) return {};
  EXPECT_TRUE(send_all(fd, get(path)));
  std::string reply = read_to_end(fd);
  ::close(fd);
  return reply;
}

// Polls `done` every millisecond until it holds or the guard passes; whether it held.
bool wait_for(const std::function<bool()>& done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(kGuardSeconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// What the test handler saw. /heavy/... runs on the heavy lane and loops until
// its token is cancelled or `release` is set; /light answers at once.
struct Probe {
  std::atomic<int> started{0};    // heavy requests that began work
  std::atomic<int> cancelled{0};  // heavy requests that saw their token cancelled
  std::atomic<bool> release{false};
  std::atomic<double> budget{-1};  // the last heavy request's cpu_budget_s
};

HttpResponse text(std::string body) {
  HttpResponse r;
  r.body = std::move(body);
  return r;
}

HttpServerOptions lanes() {
  HttpServerOptions o;
  o.threads = 2;
  o.light_workers = 1;
  o.heavy_workers = 1;
  o.heavy_queue = 0;  // one heavy request at work, none waiting: the next one is refused
  o.heavy_budget_s = 7;
  o.is_heavy = [](const HttpRequest& r) { return r.path.starts_with("/heavy"); };
  return o;
}

HttpHandler looping(Probe& p) {
  return [&p](const HttpRequest& r) {
    if (!r.path.starts_with("/heavy")) return text("light\n");
    p.budget.store(r.cpu_budget_s);
    p.started.fetch_add(1);
    wait_for([&] { return r.cancel.cancelled() || p.release.load(); });
    if (r.cancel.cancelled()) p.cancelled.fetch_add(1);
    return text("heavy\n");
  };
}

class LaneServer {
 public:
  explicit LaneServer(Probe& p) : server_(looping(p), lanes()) {
    EXPECT_TRUE(server_.listen("127.0.0.1", 0).ok());
    thread_ = std::thread([this] { server_.serve(); });
  }
  ~LaneServer() { stop(); }
  void stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return server_.port(); }

 private:
  HttpServer server_;
  std::thread thread_;
};

TEST(HttpServerLaneTest, ARequestAtWorkIsCancelledWhenItsClientCloses) {
  Probe p;
  LaneServer server(p);
  const int fd = connect_to(server.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd, get("/heavy")));
  ASSERT_TRUE(wait_for([&] { return p.started.load() == 1; }));
  // The lane's budget reaches the handler: heavy_budget_s = 7 in lanes().
  EXPECT_EQ(p.budget.load(), 7.0);
  ::close(fd);  // nobody waits for the answer now
  // The handler loops until its token is cancelled (release is never set), so
  // it returns only through the close: one request, one cancellation.
  EXPECT_TRUE(wait_for([&] { return p.cancelled.load() == 1; }));
  EXPECT_EQ(p.cancelled.load(), 1);
}

TEST(HttpServerLaneTest, AFullHeavyLaneLeavesTheLightLaneServingAndRefusesTheNextSearchWith503) {
  Probe p;
  LaneServer server(p);
  const int fd = connect_to(server.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd, get("/heavy/1")));
  ASSERT_TRUE(wait_for([&] { return p.started.load() == 1; }));  // the one heavy worker is taken
  // The light lane has its own worker: answered while the search runs.
  const std::string light = fetch(server.port(), "/light");
  EXPECT_EQ(light.rfind("HTTP/1.1 200 ", 0), 0u) << light;
  EXPECT_NE(light.find("\r\n\r\nlight\n"), std::string::npos) << light;
  // heavy_queue = 0: no room to wait, so the second search is refused at once
  // (it never reaches the handler: started stays 1).
  const std::string refused = fetch(server.port(), "/heavy/2");
  EXPECT_EQ(refused.rfind("HTTP/1.1 503 ", 0), 0u) << refused;
  EXPECT_NE(refused.find("\r\nRetry-After: 1\r\n"), std::string::npos) << refused;  // retry_after_s's default
  EXPECT_NE(refused.find("{\"error\": \"busy: "), std::string::npos) << refused;
  EXPECT_EQ(p.started.load(), 1);
  p.release.store(true);  // the first search ends and is answered
  const std::string first = read_to_end(fd);
  ::close(fd);
  EXPECT_NE(first.find("\r\n\r\nheavy\n"), std::string::npos) << first;
  EXPECT_EQ(p.cancelled.load(), 0);  // its client waited: never cancelled
}

TEST(HttpServerLaneTest, StopWithWorkInFlightReturnsAndTheWorkSawCancellation) {
  Probe p;
  LaneServer server(p);
  const int fd = connect_to(server.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd, get("/heavy")));
  ASSERT_TRUE(wait_for([&] { return p.started.load() == 1; }));
  // serve() returns only after joining the workers; the handler returns only
  // when cancelled (release is never set): stop() must have cancelled it.
  server.stop();
  EXPECT_EQ(p.cancelled.load(), 1);
  // No answer after stop: nothing to read (the socket may stay open until the server is destroyed, so a
  // blocking read would wait for the guard).
  char c;
  EXPECT_LE(::recv(fd, &c, 1, MSG_DONTWAIT), 0);
  ::close(fd);
}

TEST(HttpServerLaneTest, APipelinedRequestArrivingDuringWorkIsKeptAndAnswered) {
  Probe p;
  LaneServer server(p);
  const int fd = connect_to(server.port());
  ASSERT_GE(fd, 0);
  // Keep-alive first, then a request that closes: both arrive while the first works.
  ASSERT_TRUE(send_all(fd, "GET /heavy HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  ASSERT_TRUE(wait_for([&] { return p.started.load() == 1; }));
  ASSERT_TRUE(send_all(fd, get("/light")));  // read by the watch on the socket, kept for the next read
  p.release.store(true);
  const std::string reply = read_to_end(fd);
  ::close(fd);
  const size_t heavy = reply.find("\r\n\r\nheavy\n"), light = reply.find("\r\n\r\nlight\n");
  EXPECT_NE(heavy, std::string::npos) << reply;
  EXPECT_NE(light, std::string::npos) << reply;
  EXPECT_LT(heavy, light) << reply;  // answered in order
  EXPECT_EQ(p.cancelled.load(), 0);
}

// ---------------------------------------------------------------- connections and queued bytes
// A server with `o` whose handler answers `body` (any path).
class TestServer {
 public:
  TestServer(HttpServerOptions o, std::string body)
      : server_([body = std::move(body)](const HttpRequest&) { return text(body); }, std::move(o)) {
    EXPECT_TRUE(server_.listen("127.0.0.1", 0).ok());
    thread_ = std::thread([this] { server_.serve(); });
  }
  ~TestServer() {
    server_.stop();
    thread_.join();
  }
  int port() const { return server_.port(); }
  const HttpServer& server() const { return server_; }

 private:
  HttpServer server_;
  std::thread thread_;
};

// Whether the server closed `fd`: a read sees the end (or a reset), not "nothing yet".
bool closed_by_server(int fd) {
  char c;
  const ssize_t n = ::recv(fd, &c, 1, 0);  // blocks until the close, or the guard
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

bool still_open(int fd) {
  char c;
  const ssize_t n = ::recv(fd, &c, 1, MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

// max_connections 2, two idle connections, then two newcomers: each newcomer
// over the cap closes the longest-idle connection, so the second is served
// at once. Without eviction it would wait for an idle one's request deadline
// (120 s, past the client's 60 s guard) and this test would fail.
TEST(HttpServerConnectionTest, OverTheCapTheLongestIdleConnectionMakesRoom) {
  HttpServerOptions o;
  o.threads = 2;
  o.max_connections = 2;
  o.idle_grace = std::chrono::milliseconds(0);
  o.request_deadline = std::chrono::milliseconds(120'000);
  TestServer server(o, "ok\n");
  const int first = connect_to(server.port());
  ASSERT_TRUE(wait_for([&] { return server.server().idle_connections() == 1; }));
  const int second = connect_to(server.port());
  ASSERT_TRUE(wait_for([&] { return server.server().idle_connections() == 2; }));
  // A: the third open connection, over the cap: the first (oldest) is closed.
  const int a = connect_to(server.port());
  ASSERT_TRUE(send_all(a, "GET /a HTTP/1.1\r\nHost: localhost\r\n\r\n"));  // kept alive after its answer
  char buf[512];
  ASSERT_GT(::recv(a, buf, sizeof(buf), 0), 0);
  EXPECT_TRUE(closed_by_server(first));
  // B: over the cap again (second and A open): the second, now the oldest idle, makes room.
  const std::string b = fetch(server.port(), "/b");
  EXPECT_EQ(b.rfind("HTTP/1.1 200 ", 0), 0u) << b;
  EXPECT_TRUE(closed_by_server(second));
  EXPECT_TRUE(still_open(a));  // idle since after first and second: kept
  for (int fd : {first, second, a}) ::close(fd);
}

// A connection that has waited less than idle_grace is not evicted: the
// newcomer over the cap is served, and the idle one stays open.
TEST(HttpServerConnectionTest, AConnectionYoungerThanTheGraceIsKept) {
  HttpServerOptions o;
  o.threads = 2;
  o.max_connections = 1;
  o.idle_grace = std::chrono::milliseconds(600'000);
  TestServer server(o, "ok\n");
  const int idle = connect_to(server.port());
  ASSERT_TRUE(wait_for([&] { return server.server().idle_connections() == 1; }));
  const std::string reply = fetch(server.port(), "/");  // accepted over the cap, then accepting pauses
  EXPECT_EQ(reply.rfind("HTTP/1.1 200 ", 0), 0u) << reply;
  EXPECT_TRUE(still_open(idle));
  ::close(idle);
}

// One client that never reads a 32 MiB answer holds it (a loopback socket
// takes a few MiB); with a 48 MiB cap a second such answer would exceed it and
// is refused with 503 at once. Once the first is read the bytes are released.
TEST(HttpServerConnectionTest, AnswersHeldForNonReadersStayUnderTheCap) {
  constexpr size_t kBody = size_t{32} << 20;
  HttpServerOptions o;
  o.threads = 2;
  o.max_queued_bytes = size_t{48} << 20;
  o.write_deadline = std::chrono::milliseconds(120'000);
  TestServer server(o, std::string(kBody, 'x'));
  const int slow = connect_to(server.port());
  ASSERT_GE(slow, 0);
  ASSERT_TRUE(send_all(slow, get("/big")));
  ASSERT_TRUE(wait_for([&] { return server.server().queued_bytes() == kBody; }));  // its write is pending
  const std::string refused = fetch(server.port(), "/big");
  EXPECT_EQ(refused.rfind("HTTP/1.1 503 ", 0), 0u) << refused.substr(0, 200);
  EXPECT_NE(refused.find("\r\nRetry-After: 1\r\n"), std::string::npos) << refused.substr(0, 200);
  EXPECT_NE(refused.find("answers waiting for clients"), std::string::npos) << refused.substr(0, 400);
  EXPECT_EQ(server.server().queued_bytes(), kBody);  // the refusal is not counted, nor held
  const std::string first = read_to_end(slow);  // the slow client reads its answer at last
  ::close(slow);
  EXPECT_GE(first.size(), kBody);
  EXPECT_TRUE(wait_for([&] { return server.server().queued_bytes() == 0; }));
  const std::string later = fetch(server.port(), "/big");
  EXPECT_EQ(later.rfind("HTTP/1.1 200 ", 0), 0u) << later.substr(0, 200);
  EXPECT_GE(later.size(), kBody);
}

// The web handler's searches poll the request's token (request_context.h): a
// token cancelled before they start stops them at their first poll, answered
// as a 400 naming the cancellation.
TEST(HttpServerLaneTest, TheWebSearchesStopOnACancelledToken) {
  struct Case {
    std::string path;
    std::vector<std::pair<std::string, std::string>> query;
  };
  const Case cases[] = {
      {"/api/plan", {{"model", "llama-3.1-8b"}, {"isl", "512"}, {"osl", "128"}, {"qps", "1"}, {"gpu", "h100"}}},
      {"/api/train-plan", {{"model", "llama-3.1-8b"}, {"tokens", "1T"}, {"days", "30"}}},
  };
  for (const Case& c : cases) {
    HttpRequest r;
    r.path = c.path;
    r.query = c.query;
    r.cancel = CancelToken::make();
    r.cancel.cancel();
    const HttpResponse a = handle_web_request(r);
    EXPECT_EQ(a.status, 400) << c.path << ": " << a.body;
    EXPECT_NE(a.body.find("cancelled"), std::string::npos) << c.path << ": " << a.body;
  }
}

TEST(HttpServerLaneTest, TheSearchesRunOnTheHeavyLane) {
  const auto heavy = [](std::string path) {
    HttpRequest r;
    r.path = std::move(path);
    return is_heavy_web_request(r);
  };
  // The searches, at every endpoint that serves them.
  EXPECT_TRUE(heavy("/api/plan"));
  EXPECT_TRUE(heavy("/api/svg/plan"));
  EXPECT_TRUE(heavy("/api/text/sweep"));
  EXPECT_TRUE(heavy("/api/calibrate"));
  EXPECT_TRUE(heavy("/api/train-plan"));
  EXPECT_TRUE(heavy("/api/tradeoff"));
  // Closed-form commands and the page are light.
  EXPECT_FALSE(heavy("/api/size"));
  EXPECT_FALSE(heavy("/api/kv-budget"));
  EXPECT_FALSE(heavy("/api/svg/roofline"));
  EXPECT_FALSE(heavy("/"));
  EXPECT_FALSE(heavy("/api/planx"));
}

}  // namespace
}  // namespace modelcalc
