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
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "http_server.h"
#include "web_api.h"

namespace modelcalc {
namespace {

constexpr int kGuardSeconds = 60;  // a hang guard only: nothing here takes more than a fraction of it

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  const timeval tv{kGuardSeconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string read_to_end(int fd) {
  std::string reply;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) reply.append(buf, static_cast<size_t>(n));
  return reply;
}

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
  EXPECT_EQ(read_to_end(fd).find("heavy"), std::string::npos);  // no answer after stop
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
