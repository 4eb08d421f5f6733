// `modelcalc serve` over real sockets on loopback: the server on a free port
// in a thread, cpp-httplib's client (an HTTP implementation independent of
// Beast's) or raw bytes asking it, the answers compared with run_cli's for the
// same arguments (one engine, one answer). Bounded: every loop has a fixed
// count, every socket a generous timeout that only guards against a hang; no
// test asserts a duration.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "http_server.h"
#include "test_socket.h"
#include "test_util.h"
#include "web_api.h"

namespace modelcalc {
namespace {

using test_socket::connect_to;
using test_socket::kGuardSeconds;
using test_socket::read_to_end;
using test_socket::send_all;

// The raw reply to `request` sent as is (for what httplib's client would not
// send). The server must close the connection after it (an error, HTTP/1.0 or
// "Connection: close"), or this waits for the guard timeout.
std::string raw(int port, const std::string& request) {
  const int fd = connect_to(port);
  EXPECT_GE(fd, 0);
  if (fd < 0) return {};
  EXPECT_TRUE(send_all(fd, request));
  std::string reply = read_to_end(fd);
  ::close(fd);
  return reply;
}

// The value of header `name` in a raw reply's head ("" if absent).
std::string header(const std::string& reply, const std::string& name) {
  const std::string head = reply.substr(0, reply.find("\r\n\r\n"));
  const size_t at = head.find("\r\n" + name + ": ");
  if (at == std::string::npos) return {};
  const size_t from = at + 4 + name.size();
  return head.substr(from, head.find("\r\n", from) - from);
}

class Server {
 public:
  explicit Server(HttpServerOptions options = {}) : server_(handle_web_request, options) {
    EXPECT_TRUE(server_.listen("127.0.0.1", 0).ok());  // 0: the kernel picks a free port
    EXPECT_GT(server_.port(), 0);
    thread_ = std::thread([this] { server_.serve(); });
  }
  ~Server() {
    server_.stop();
    thread_.join();
  }
  int port() const { return server_.port(); }
  std::unique_ptr<httplib::Client> client() const {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", port());
    c->set_read_timeout(kGuardSeconds, 0);
    c->set_write_timeout(kGuardSeconds, 0);
    c->set_keep_alive(true);
    return c;
  }

 private:
  HttpServer server_;
  std::thread thread_;
};

class ServeTest : public ::testing::Test {
 protected:
  std::string raw(const std::string& request) { return modelcalc::raw(server_.port(), request); }

  Server server_;
  std::unique_ptr<httplib::Client> client_ = server_.client();
};

const char* const kSizeQuery = "/api/size?model=llama-3.1-8b&gpu=h100";

TEST_F(ServeTest, SizeIsTheClisJsonDocument) {
  auto res = client_->Get(kSizeQuery);
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  const CliRun cli = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--json"});
  ASSERT_EQ(cli.status, 0);
  EXPECT_EQ(res->body, cli.out);
  // llama-3.1-8b has 8,030,261,248 parameters (HF config: 32 layers × 218,112,000 + 2 × 128,256 × 4096 + 4096).
  EXPECT_EQ(nlohmann::json::parse(res->body)["params"]["total"].get<int64_t>(),
            int64_t{32} * 218'112'000 + int64_t{2} * 128'256 * 4096 + 4096);
}

TEST_F(ServeTest, TheStringsAreTheTextReports) {
  auto res = client_->Get(std::string(kSizeQuery) + "&strings=true");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const nlohmann::json j = nlohmann::json::parse(res->body);
  const std::string text = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100"}).out;
  // The count of SizeIsTheClisJsonDocument, grouped as the text prints exact counts.
  EXPECT_EQ(j["strings"]["params.total"].get<std::string>().rfind("8,030,261,248", 0), 0u);
  for (const char* key : {"params.total", "decode_step.seconds", "decode_step.tokens_per_s_aggregate",
                          "memory_per_gpu.weights", "memory_per_gpu.max_sequences"}) {
    ASSERT_TRUE(j["strings"].contains(key)) << key;
    EXPECT_NE(text.find(j["strings"][key].get<std::string>()), std::string::npos) << key;
  }
  // Without the switch the document is the plain --json one.
  EXPECT_FALSE(nlohmann::json::parse(client_->Get(kSizeQuery)->body).contains("strings"));
}

TEST_F(ServeTest, TheTextReportIsTheClis) {
  auto res = client_->Get("/api/text/size?model=llama-3.1-8b&gpu=h100&explain=true&kv_dtype=fp8");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(res->body, run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--explain", "--kv-dtype",
                                 "fp8"}).out);
}

TEST_F(ServeTest, PicturesAndTheHtmlPageAreTheClisWithoutAFile) {
  auto svg = client_->Get("/api/svg/roofline?model=llama-3.1-8b&gpu=h100&batch=1,16");
  ASSERT_TRUE(svg);
  EXPECT_EQ(svg->status, 200);
  EXPECT_EQ(svg->get_header_value("Content-Type"), "image/svg+xml");
  const CliRun cli = run_args({"roofline", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "1,16", "--plot", "-"});
  ASSERT_EQ(cli.status, 0) << cli.err;
  EXPECT_EQ(svg->body, cli.out);
  EXPECT_NE(svg->body.find("<svg"), std::string::npos);
  EXPECT_NE(svg->body.find("decode_b16"), std::string::npos);  // the batch-16 operating point

  const std::string plan = "/api/svg/plan?model=llama-3.1-8b&isl=512&osl=128&qps=1&tpot=50ms&gpu=h100&max_gpus=2";
  auto frontier = client_->Get(plan);
  ASSERT_TRUE(frontier);
  EXPECT_EQ(frontier->status, 200);
  EXPECT_NE(frontier->body.find("<svg"), std::string::npos);

  auto page = client_->Get("/api/html/size?model=llama-3.1-8b&gpu=h100");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(page->get_header_value("Content-Disposition"), "attachment; filename=\"modelcalc-size.html\"");
  EXPECT_EQ(page->body, run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--report", "-"}).out);
  EXPECT_NE(page->body.find("<svg"), std::string::npos);

  // No picture of size, no page of roofline; and the endpoint's own flag stays refused.
  EXPECT_EQ(client_->Get("/api/svg/size?model=llama-3.1-8b")->status, 404);
  EXPECT_EQ(client_->Get("/api/html/roofline?gpu=h100")->status, 404);
  EXPECT_EQ(client_->Get("/api/svg/roofline?gpu=h100&plot=x.svg")->status, 400);
}

TEST_F(ServeTest, BadInputIs400WithTheClisReasonUnderTheWebsKey) {
  auto res = client_->Get("/api/size?model=llama-3.1-8b&seq=abc");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  const CliRun cli = run_args({"size", "--model", "llama-3.1-8b", "--seq", "abc", "--json"});
  ASSERT_EQ(cli.status, 2);
  // The CLI's line names the flag (--seq); the web's the field's key (context); the reason is one text.
  const std::string prefix = "modelcalc: error: --seq: ";
  ASSERT_EQ(cli.err.rfind(prefix, 0), 0u) << cli.err;
  EXPECT_EQ("context: " + cli.err.substr(prefix.size()),
            nlohmann::json::parse(res->body)["error"].get<std::string>() + "\n");
}

TEST_F(ServeTest, AnEmptyValueIsRefusedAndSwallowsNothing) {
  // "?model&gpu=h100": the value of model is empty; gpu=h100 must not become it.
  for (const char* q : {"/api/size?model&gpu=h100", "/api/size?model=&gpu=h100"}) {
    auto res = client_->Get(q);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << q;
    EXPECT_EQ(nlohmann::json::parse(res->body)["error"].get<std::string>(), "model: needs a value, got an empty string")
        << q;
  }
  const CliRun cli = run_args({"size", "--model", "", "--gpu", "h100", "--json"});
  EXPECT_EQ(cli.err, "modelcalc: error: --model: needs a value, got an empty string\n");
}

TEST_F(ServeTest, FileFlagsAreRefused) {
  for (const char* q : {"/api/size?model=llama-3.1-8b&report=%2Ftmp%2Fx.html", "/api/size?config=%2Fetc%2Fpasswd",
                        "/api/text/roofline?gpu=h100&plot=x.svg", "/api/paged-kv?lens_file=%2Fetc%2Fpasswd"}) {
    auto res = client_->Get(q);
    ASSERT_TRUE(res) << q;
    EXPECT_EQ(res->status, 400) << q;
    const std::string e = nlohmann::json::parse(res->body)["error"];
    EXPECT_NE(e.find(": names a file on the server"), std::string::npos) << q << ": " << e;
  }
}

TEST_F(ServeTest, ThePageUnknownPathsAndTheSecurityHeaders) {
  auto page = client_->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<title>modelcalc</title>"), std::string::npos);
  EXPECT_EQ(page->body, std::string(web_index_html()));
  // Unknown pages, unknown commands, the server itself, a path under a command.
  for (const char* p : {"/nosuch", "/api/nosuch", "/api/text/nosuch", "/api/serve?port=1", "/api/size/x", "/api/",
                        "/index.htm"}) {
    auto res = client_->Get(p);
    ASSERT_TRUE(res) << p;
    EXPECT_EQ(res->status, 404) << p;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << p;
  }
  // Every answer, good or bad, carries the same protective headers.
  for (const char* p : {"/", kSizeQuery, "/api/size?seq=abc", "/nosuch"}) {
    auto res = client_->Get(p);
    ASSERT_TRUE(res) << p;
    EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff") << p;
    EXPECT_EQ(res->get_header_value("X-Frame-Options"), "DENY") << p;
    EXPECT_NE(res->get_header_value("Content-Security-Policy").find("frame-ancestors 'none'"), std::string::npos) << p;
    EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store") << p;
  }
}

TEST_F(ServeTest, PlanWithNothingMeetingItsTargetsIs200WithItsClosestMisses) {
  // A 1 ms TPOT on one H100: llama-3.1-8b's 16 GB of weights take ~5 ms to read once.
  const std::string q = "/api/plan?model=llama-3.1-8b&isl=512&osl=128&qps=1&tpot=1ms&gpu=h100&max_gpus=1";
  auto res = client_->Get(q);
  ASSERT_TRUE(res);
  const CliRun cli = run_args({"plan", "--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--qps", "1",
                               "--tpot", "1ms", "--gpu", "h100", "--max-gpus", "1", "--json"});
  ASSERT_EQ(cli.status, 1) << cli.err;
  EXPECT_EQ(res->status, 200);
  nlohmann::json web = nlohmann::json::parse(res->body), expected = cli.json();
  web.erase("seconds");  // the search's own wall time
  expected.erase("seconds");
  EXPECT_EQ(web, expected);
}

TEST_F(ServeTest, OnlyGetAndHeadWithAllow) {
  for (const char* method : {"POST", "PUT", "DELETE", "OPTIONS", "PATCH"}) {
    const std::string reply = raw(std::string(method) + " /api/size HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n"
                                  "Connection: close\r\n\r\n");
    EXPECT_EQ(reply.rfind("HTTP/1.1 405 ", 0), 0u) << method << ": " << reply;
    EXPECT_EQ(header(reply, "Allow"), "GET, HEAD") << method;
  }
  // HEAD: the GET's head, its length, no body.
  const std::string head = raw("HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(head.rfind("HTTP/1.1 200 ", 0), 0u) << head;
  EXPECT_EQ(header(head, "Content-Length"), std::to_string(web_index_html().size()));
  EXPECT_EQ(head.substr(head.find("\r\n\r\n") + 4), "");
}

TEST_F(ServeTest, ParsingIsStrict) {
  struct Case {
    std::string request;
    const char* status;
  };
  const std::string big_head = "GET /" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
  const Case cases[] = {
      {"GET / HTTP/1.1\r\n\r\n", "400"},                                          // HTTP/1.1 without Host
      {"GET / HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\n\r\n", "400"},   // Host twice
      {"GET / HTTP/1.1\r\nHost : localhost\r\n\r\n", "400"},                      // space before the colon
      {"GET / HTTP/1.1\r\nHost: localhost\r\nno colon here\r\n\r\n", "400"},     // a field line without one
      // Beast's parser takes HTTP/1.0 and HTTP/1.1 only; any other version is malformed to it.
      {"GET / HTTP/2.0\r\nHost: localhost\r\n\r\n", "400"},
      {"GET / HTTP/1.2\r\nHost: localhost\r\n\r\n", "400"},
      {"GET / HTTP/x\r\nHost: localhost\r\n\r\n", "400"},                         // not a version at all
      {"GET / HTTPS/1.1\r\nHost: localhost\r\n\r\n", "400"},
      {"GET  / HTTP/1.1\r\nHost: localhost\r\n\r\n", "400"},                      // two spaces
      {"GET / HTTP/1.1 x\r\nHost: localhost\r\n\r\n", "400"},
      {"GARBAGE\r\n\r\n", "400"},
      {"GET http://localhost/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", "400"},  // not origin-form
      {"GET /api/size?model=%zz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", "400"},
      {big_head, "431"},                                                          // a head over 16 KiB
      {"GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n", "413"},  // a body over 64 KiB
      {"GET / HTTP/1.0\r\n\r\n", "200"},                                          // HTTP/1.0 may omit Host
  };
  for (const Case& c : cases) {
    const std::string reply = raw(c.request);
    EXPECT_EQ(reply.rfind("HTTP/1.1 " + std::string(c.status) + " ", 0), 0u)
        << c.request.substr(0, 80) << "\n -> " << reply.substr(0, reply.find("\r\n"));
    EXPECT_EQ(header(reply, "X-Frame-Options"), "DENY");
  }
}

TEST_F(ServeTest, KeepAliveAnswersEveryRequestOnOneConnection) {
  // Three requests in one write, the last asking to close: three answers, in order, then the close.
  const std::string reply = raw(
      "GET /api/models HTTP/1.1\r\nHost: localhost\r\n\r\n"
      "GET /nosuch HTTP/1.1\r\nHost: localhost\r\n\r\n"
      "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  const size_t a = reply.find("HTTP/1.1 200 "), b = reply.find("HTTP/1.1 404 "), c = reply.rfind("HTTP/1.1 200 ");
  ASSERT_NE(a, std::string::npos) << reply.substr(0, 200);
  ASSERT_NE(b, std::string::npos);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_EQ(header(reply.substr(c), "Connection"), "close");
}

TEST_F(ServeTest, OnALoopbackAddressOnlyLocalHostNamesAreAnswered) {
  // DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 sends Host: evil.example.
  EXPECT_EQ(raw("GET /api/models HTTP/1.1\r\nHost: evil.example:" + std::to_string(server_.port()) + "\r\n\r\n")
                .rfind("HTTP/1.1 403 ", 0), 0u);
  EXPECT_EQ(raw("GET / HTTP/1.1\r\nhOsT:  evil.example \r\n\r\n").rfind("HTTP/1.1 403 ", 0), 0u);
  EXPECT_EQ(raw("GET / HTTP/1.0\r\nHost: evil.example\r\n\r\n").rfind("HTTP/1.1 403 ", 0), 0u);
  EXPECT_EQ(raw("GET / HTTP/1.1\r\nHost: localhost:1\r\nConnection: close\r\n\r\n").rfind("HTTP/1.1 200 ", 0), 0u);
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.1.2.3:8080"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_TRUE(is_loopback_host("[::1]:8080"));
  EXPECT_TRUE(is_loopback_host("[::1]"));
  EXPECT_FALSE(is_loopback_host("[::2]:8080"));
  EXPECT_FALSE(is_loopback_host("[::1]x"));
  EXPECT_FALSE(is_loopback_host("128.0.0.1"));
  EXPECT_FALSE(is_loopback_host("localhost.evil.example"));
  EXPECT_FALSE(is_loopback_host("127.0.0.1.evil.example"));
  EXPECT_FALSE(is_loopback_host(""));
}

// A page on another site (or another port of this machine) may not use the
// server: <img src="http://127.0.0.1:8080/api/calibrate?..."> carries
// Sec-Fetch-Site: cross-site, a fetch() Origin: http://evil.example. The page's
// own requests (same-origin), typed URLs (none) and clients that send neither
// header (curl, scripts) are served.
TEST_F(ServeTest, CrossSiteRequestsAreRefusedOwnAndOriginlessOnesServed) {
  const std::string port = std::to_string(server_.port());
  const auto get = [&](const std::string& path, const std::string& fields) {
    return raw("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + fields + "Connection: close\r\n\r\n");
  };
  const std::string refused[] = {
      "Sec-Fetch-Site: cross-site\r\n",
      "Sec-Fetch-Site: same-site\r\n",                                     // another port of localhost
      "Origin: http://evil.example\r\n",
      "Origin: http://127.0.0.1:1\r\n",                                    // this machine, another port
      "Origin: https://127.0.0.1:" + port + "\r\n",                        // another scheme
      "Origin: null\r\n",                                                  // a sandboxed frame, a file:// page
      "Origin: http://127.0.0.1:" + port + "\r\nSec-Fetch-Site: cross-site\r\n",
  };
  for (const std::string& fields : refused) {
    const std::string reply = get("/api/models", fields);
    EXPECT_EQ(reply.rfind("HTTP/1.1 403 ", 0), 0u) << fields << " -> " << reply.substr(0, reply.find("\r\n"));
    EXPECT_EQ(header(reply, "Content-Type"), "application/json") << fields;
    const std::string body = reply.substr(reply.find("\r\n\r\n") + 4);
    EXPECT_EQ(std::count(body.begin(), body.end(), '\n'), 1) << body;
    EXPECT_TRUE(nlohmann::json::parse(body).contains("error")) << body;
  }
  const std::string served[] = {
      "",                                                                     // curl, a script
      "Sec-Fetch-Site: same-origin\r\nOrigin: http://127.0.0.1:" + port + "\r\n",  // the page's fetch()
      "Origin: http://127.0.0.1:" + port + "\r\n",                         // a fetch() from the page
      "Sec-Fetch-Site: none\r\n",                                          // a typed URL
  };
  for (const std::string& fields : served) {
    const std::string reply = get("/api/models", fields);
    EXPECT_EQ(reply.rfind("HTTP/1.1 200 ", 0), 0u) << fields << " -> " << reply.substr(0, reply.find("\r\n"));
  }
  // A link from another site opens the page, but does not run a command.
  const std::string link = "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: navigate\r\n";
  EXPECT_EQ(get("/", link).rfind("HTTP/1.1 200 ", 0), 0u);
  EXPECT_EQ(get("/api/models", link).rfind("HTTP/1.1 403 ", 0), 0u);
  EXPECT_EQ(get("/", "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\n").rfind("HTTP/1.1 403 ", 0), 0u);
}

TEST(ServeCrossSiteTest, TheRule) {
  const auto refused = [](CrossSiteFields f) { return cross_site_refusal(f).has_value(); };
  EXPECT_FALSE(refused({"localhost:8080", "", "", "", "/api/size"}));
  EXPECT_FALSE(refused({"localhost:8080", "http://localhost:8080", "same-origin", "cors", "/api/size"}));
  EXPECT_FALSE(refused({"[::1]:8080", "http://[::1]:8080", "", "", "/api/size"}));
  EXPECT_FALSE(refused({"LocalHost:8080", "http://localhost:8080", "", "", "/api/size"}));  // names ignore case
  EXPECT_TRUE(refused({"localhost:8080", "http://127.0.0.1:8080", "", "", "/api/size"}));  // another origin
  EXPECT_TRUE(refused({"", "http://localhost", "", "", "/"}));            // HTTP/1.0 without Host: no own origin
  EXPECT_TRUE(refused({"localhost:8080", "http://localhost:8080x", "", "", "/"}));
  EXPECT_TRUE(refused({"localhost:8080", "", "cross-site", "cors", "/"}));
  EXPECT_TRUE(refused({"localhost:8080", "", "something-new", "", "/api/size"}));
  EXPECT_FALSE(refused({"localhost:8080", "", "cross-site", "navigate", "/index.html"}));
  EXPECT_TRUE(refused({"localhost:8080", "", "cross-site", "navigate", "/api/calibrate"}));
}

// The load test: 50 clients, each 200 requests on its own kept-alive
// connection, all at once. Every answer is the CLI's document: no 503, no
// reset, no mixed-up body.
TEST_F(ServeTest, FiftyClientsTwoHundredRequestsEachWithoutAnError) {
  constexpr int kClients = 50, kRequests = 200;
  const std::string expected = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--json"}).out;
  std::atomic<int> ok{0}, errors{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&] {
      auto c = server_.client();
      for (int r = 0; r < kRequests; ++r) {
        auto res = c->Get(kSizeQuery);
        (res && res->status == 200 && res->body == expected ? ok : errors).fetch_add(1);
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(ok.load(), kClients * kRequests);
}

// 100 connections that send nothing or half a request hold no thread: a
// normal request is answered while they stay open.
TEST_F(ServeTest, IdleAndSlowClientsDoNotLockOthersOut) {
  std::vector<int> idle;
  for (int i = 0; i < 100; ++i) {
    const int fd = connect_to(server_.port());
    ASSERT_GE(fd, 0);
    if (i % 2 == 1) {
      ASSERT_TRUE(send_all(fd, "GET / HTTP/1.1\r\nHo"));  // half a head, then silence
    }
    idle.push_back(fd);
  }
  auto res = client_->Get(kSizeQuery);
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  for (int fd : idle) ::close(fd);
}

// The deadline is the whole request's, not each read's: a client sending a
// byte every 20 ms (each read succeeds) is cut off after 300 ms. With a
// per-read timeout it would be served bytes forever; the loop's bound (600
// bytes, 12 s) only guards against that.
TEST(ServeDeadlineTest, ATricklingRequestIsCutOffAtItsDeadline) {
  HttpServerOptions o;
  o.request_deadline = std::chrono::milliseconds(300);
  Server server(o);
  const int fd = connect_to(server.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd, "GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: "));
  bool closed = false;
  for (int i = 0; i < 600 && !closed; ++i) {
    char c;
    const ssize_t n = ::recv(fd, &c, 1, MSG_DONTWAIT);
    closed = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) || !send_all(fd, "a");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(closed) << "the server kept reading a request past its deadline";
  ::close(fd);
}

// More clients at once than the server holds connections: the rest wait in
// the listen queue and are answered, none refused.
TEST(ServeQueueTest, ABurstBeyondTheConnectionLimitQueuesInsteadOfRefusing) {
  HttpServerOptions o;
  o.max_connections = 2;
  o.threads = 2;
  Server server(o);
  constexpr int kClients = 16;
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&] {
      const std::string reply =
          raw(server.port(), "GET /api/models HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
      if (reply.rfind("HTTP/1.1 200 ", 0) == 0) ok.fetch_add(1);
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(ok.load(), kClients);
}

TEST(ServeStopTest, StopReturnsWithConnectionsStillOpen) {
  auto server = std::make_unique<Server>();
  std::vector<int> open;
  for (int i = 0; i < 3; ++i) open.push_back(connect_to(server->port()));
  ASSERT_TRUE(send_all(open[0], "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"));  // kept alive after its answer
  char buf[256];
  ASSERT_GT(::recv(open[0], buf, sizeof(buf), 0), 0);
  server.reset();  // stop() and join: must not wait for the clients
  for (int fd : open) {
    EXPECT_EQ(read_to_end(fd).find("HTTP/1.1"), std::string::npos);  // closed, nothing more sent
    ::close(fd);
  }
}

// run_cli from several threads at once (the server's pool): every answer is
// the one the same request gets alone. Under the sanitize build this is the
// race detector's test of run_cli's shared state (catalogs, presets, caches).
HttpRequest get(std::string path, std::vector<std::pair<std::string, std::string>> query) {
  HttpRequest r;
  r.path = std::move(path);
  r.query = std::move(query);
  return r;
}

TEST(ServeConcurrencyTest, CommandsInParallelGiveTheAnswersTheyGetAlone) {
  using Q = std::vector<std::pair<std::string, std::string>>;
  const std::vector<HttpRequest> requests = {
      get("/api/size", Q{{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"strings", "true"}}),
      get("/api/text/size", Q{{"model", "mixtral-8x7b-v0.1"}, {"gpu", "mi300x"}, {"explain", "true"}}),
      get("/api/svg/roofline", Q{{"model", "llama-3.1-8b"}, {"gpu", "h100,mi300x"}}),
      get("/api/sweep", Q{{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"batch", "1:64:x2"}, {"seq", "8192"}}),
      get("/api/kv-budget", Q{{"model", "llama-3.1-8b"}, {"gpu", "h100"}}),
      get("/api/gpus", Q{}),
      get("/api/models", Q{}),
      get("/api/size", Q{{"model", "llama-3.1-8b"}, {"seq", "12x"}}),  // bad input: the same line each time
      get("/api/html/size", Q{{"model", "llama-3.1-8b"}, {"gpu", "h100"}}),
  };
  std::vector<HttpResponse> alone;
  for (const HttpRequest& r : requests) alone.push_back(handle_web_request(r));
  for (const HttpResponse& r : alone) ASSERT_FALSE(r.body.empty());
  constexpr int kThreads = 4, kRounds = 3;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        for (size_t i = 0; i < requests.size(); ++i) {
          const size_t k = (i + static_cast<size_t>(t)) % requests.size();  // each thread in another order
          const HttpResponse r = handle_web_request(requests[k]);
          if (r.status != alone[k].status || r.body != alone[k].body) mismatches.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(ServeRequestTest, ParsesTargets) {
  auto r = parse_request_target("/api/size?model=llama-3.1-8b&seq=8K&x=a+b%2Cc&&flag&empty=");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->path, "/api/size");
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(r->query, (std::vector<P>{{"model", "llama-3.1-8b"}, {"seq", "8K"}, {"x", "a b,c"}, {"flag", ""},
                                      {"empty", ""}}));
  EXPECT_EQ(parse_request_target("/a%20b?k=v#frag")->path, "/a b");
  EXPECT_EQ(parse_request_target("/a?k=v#frag")->query, (std::vector<P>{{"k", "v"}}));
  EXPECT_EQ(parse_request_target("/a#x?k=v")->path, "/a");
  EXPECT_TRUE(parse_request_target("/a#x?k=v")->query.empty());
  EXPECT_FALSE(parse_request_target("http://x/").ok());
  EXPECT_FALSE(parse_request_target("").ok());
  EXPECT_FALSE(parse_request_target("/?a=%4").ok());
  EXPECT_FALSE(parse_request_target("/?a=%g0").ok());
  EXPECT_FALSE(parse_request_target("/?a=%00").ok());
}

TEST(ServeRequestTest, AnOverlongAnswerIsRefusedNotHeld) {
  // 2 × 1000 × 1000 rows of JSON (hundreds of bytes each) exceed 16 MiB; the sweep stops at the limit.
  HttpRequest req;
  req.path = "/api/sweep";
  req.query = {{"model", "llama-3.1-8b"}, {"gpu", "h100,mi300x"}, {"seq", "1:1000"}, {"batch", "1:1000"}};
  const HttpResponse r = handle_web_request(req);
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("exceeds 16 MiB"), std::string::npos) << r.body;
}

TEST(ServeCommandTest, BadHostAndPortAreOneLineErrors) {
  // None of these may start a server: each is refused before listening.
  for (const char* port : {"-1", "65536", "1e3", "8080x", "nan", "99999999999999999999", " 80"}) {
    const CliRun r = run_args({"serve", "--port", port});
    EXPECT_EQ(r.status, 2) << port;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--port"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  for (const char* host : {"example.com", "999.1.1.1", "::g", "127.0.0.1 "}) {
    const CliRun r = run_args({"serve", "--host", host, "--port", "0"});
    EXPECT_EQ(r.status, 2) << host;
    EXPECT_NE(r.err.find("--host"), std::string::npos) << r.err;
  }
}

TEST(ServeCommandTest, BadLaneSizesAreOneLineErrors) {
  // The lanes' bounds (cmd_serve.cc): workers 1..256, queues 0..1,000,000, the budget 0..86,400 CPU seconds.
  // Each bad value is refused before listening, naming the flag typed.
  const std::vector<std::pair<const char*, std::vector<const char*>>> bad = {
      {"--light-workers", {"0", "257", "-1", "1.5", "nan", "4x"}},
      {"--heavy-workers", {"0", "257", "1e9", ""}},
      {"--light-queue", {"-1", "1000001", "inf"}},
      {"--heavy-queue", {"-1", "1000001", "2.5"}},
      {"--heavy-budget", {"-1", "86401", "nan", "inf", "1e400"}},
  };
  for (const auto& [flag, values] : bad) {
    for (const char* v : values) {
      const CliRun r = run_args({"serve", "--port", "0", flag, v});
      EXPECT_EQ(r.status, 2) << flag << " " << v;
      EXPECT_EQ(line_count(r.err), 1) << r.err;
      EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
      EXPECT_TRUE(r.out.empty()) << flag << " " << v;
    }
  }
}

// ---------------------------------------------------------------- one request, one answer (issue #30)
// The web decodes its query into the command's typed request and renders it
// with the CLI's own renderer: for the same request the bytes are the CLI's.
HttpResponse web_get(const std::string& path, std::vector<std::pair<std::string, std::string>> query) {
  HttpRequest req;
  req.path = path;
  req.query = std::move(query);
  return handle_web_request(req);
}

struct SameRequest {
  const char* command;
  std::vector<std::pair<std::string, std::string>> query;  // the web's keys
  std::vector<std::string> args;                           // the same request as CLI flags
};

TEST(ServeAnswerTest, EveryTypedCommandAnswersTheClisDocumentForTheSameRequest) {
  const std::vector<SameRequest> corpus = {
      {"size", {{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"batch", "8"}, {"kv_dtype", "fp8"}},
       {"--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "8", "--kv-dtype", "fp8", "--json"}},
      {"kv-budget", {{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"context", "32K"}},
       {"--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "32K", "--json"}},
      {"cost", {{"price_per_hour", "2.50"}, {"tokens_per_s", "1000"}, {"gpus", "8"}},
       {"--price-per-hour", "2.50", "--tokens-per-s", "1000", "--gpus", "8", "--json"}},
      {"diagnose",
       {{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"phase", "decode"}, {"batch", "8"}, {"tokens_per_s", "40"}},
       {"--model", "llama-3.1-8b", "--gpu", "h100", "--phase", "decode", "--batch", "8", "--tokens-per-s", "40",
        "--json"}},
      {"roofline", {{"gpu", "h100"}, {"intensity", "100"}}, {"--gpu", "h100", "--intensity", "100", "--json"}},
      {"plan",
       {{"model", "llama-3.1-8b"}, {"isl", "512"}, {"osl", "128"}, {"qps", "1"}, {"tpot", "50ms"}, {"gpu", "h100"},
        {"max_gpus", "2"}},
       {"--model", "llama-3.1-8b", "--isl", "512", "--osl", "128", "--qps", "1", "--tpot", "50ms", "--gpu", "h100",
        "--max-gpus", "2", "--json"}},
      {"sweep", {{"model", "llama-3.1-8b"}, {"gpu", "h100,mi300x"}, {"batch", "1,8"}},
       {"--model", "llama-3.1-8b", "--gpu", "h100,mi300x", "--batch", "1,8", "--format", "json"}},
  };
  for (const SameRequest& c : corpus) {
    const HttpResponse web = web_get("/api/" + std::string(c.command), c.query);
    std::vector<std::string> args{c.command};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const CliRun cli = run_args(args);
    ASSERT_EQ(cli.status, 0) << c.command << ": " << cli.err;
    EXPECT_EQ(web.status, 200) << c.command << ": " << web.body;
    // The CLI's proposals carry the user's command line, changed ("command"); the web has none. Plan's search
    // time ("seconds") is the one figure that differs.
    nlohmann::json w = nlohmann::json::parse(web.body), l = without_commands(nlohmann::json::parse(cli.out));
    if (std::string_view(c.command) == "plan") {
      w.erase("seconds");
      l.erase("seconds");
    }
    EXPECT_EQ(w, l) << c.command;
  }
  // One figure derived by hand: $2.50 · 8 GPUs / (1000 tokens/s · 3600 s) · 1e6 = $5.5556 per 1M tokens.
  const HttpResponse cost = web_get("/api/cost", corpus[2].query);
  EXPECT_NEAR(nlohmann::json::parse(cost.body)["usd_per_million_tokens"].get<double>(), 20 / 3.6, 1e-12);
}

TEST(ServeAnswerTest, AKeyIsTheFieldsNameItsFlagOrItsShortFlag) {
  // The hand-typed shape of SizeIsTheClisJsonDocument's llama-3.1-8b, its layer count given three ways.
  const std::vector<std::pair<std::string, std::string>> shape = {
      {"hidden", "4096"}, {"heads", "32"}, {"kv_heads", "8"}, {"ffn", "14336"}, {"vocab", "128256"}, {"glu", "true"}};
  std::string first;
  for (const char* key : {"layers", "L"}) {
    auto q = shape;
    q.emplace_back(key, "32");
    const HttpResponse r = web_get("/api/size", q);
    ASSERT_EQ(r.status, 200) << key << ": " << r.body;
    // 32 · (2·4096·4096 + 2·4096·1024 + 3·4096·14336) + 2·128256·4096 (untied): the seed's count without norms.
    const int64_t per_layer = 2 * int64_t{4096} * 4096 + 2 * int64_t{4096} * 1024 + 3 * int64_t{4096} * 14336;
    EXPECT_EQ(nlohmann::json::parse(r.body)["params"]["total"].get<int64_t>(),
              32 * per_layer + 2 * int64_t{128256} * 4096) << key;
    if (first.empty()) first = r.body;
    EXPECT_EQ(r.body, first) << key;
  }
  auto dashed = shape;
  dashed[2].first = "kv-heads";
  dashed.emplace_back("layers", "32");
  EXPECT_EQ(web_get("/api/size", dashed).body, first);
}

TEST(ServeAnswerTest, ErrorsNameTheWebsKeyWithTheClisReason) {
  const HttpResponse web = web_get("/api/size", {{"model", "llama-3.1-8b"}, {"seq", "abc"}});
  EXPECT_EQ(web.status, 400);
  const std::string e = nlohmann::json::parse(web.body)["error"];
  const CliRun cli = run_args({"size", "--model", "llama-3.1-8b", "--seq", "abc", "--json"});
  ASSERT_EQ(cli.status, 2);
  // The CLI names the flag (--seq), the web the field's key (context); the reason is one text.
  ASSERT_EQ(cli.err.rfind("modelcalc: error: --seq: ", 0), 0u) << cli.err;
  EXPECT_EQ("context: " + cli.err.substr(std::string("modelcalc: error: --seq: ").size()), e + "\n");

  const auto error_of = [](const char* path, std::vector<std::pair<std::string, std::string>> q) {
    const HttpResponse r = web_get(path, std::move(q));
    EXPECT_EQ(r.status, 400) << path;
    return nlohmann::json::parse(r.body)["error"].get<std::string>();
  };
  EXPECT_EQ(error_of("/api/size", {{"model", "llama-3.1-8b"}, {"dp_attention", "maybe"}}),
            "dp_attention: is a switch: give true or false, got 'maybe'");
  EXPECT_EQ(error_of("/api/size", {{"model", ""}, {"gpu", "h100"}}), "model: needs a value, got an empty string");
  EXPECT_EQ(error_of("/api/size", {{"nosuch", "1"}}).rfind("nosuch: is not a field of size", 0), 0u);
  EXPECT_EQ(error_of("/api/size", {{"config", "/etc/passwd"}}).rfind("config: names a file on the server", 0), 0u);
  EXPECT_EQ(error_of("/api/plan", {{"model", "llama-3.1-8b"}, {"osl", "128"}}).rfind("isl: is required", 0), 0u);
  // --compare reads a file on the CLI; over the web only its keyword for the compiled-in runs.
  const std::vector<std::pair<std::string, std::string>> plan = {
      {"model", "deepseek-r1"}, {"isl", "1024"}, {"osl", "1024"}, {"gpu", "b200"}};
  auto with_compare = [&](const char* v) {
    auto q = plan;
    q.emplace_back("compare", v);
    return q;
  };
  EXPECT_EQ(error_of("/api/plan", with_compare("/etc/passwd")).rfind("compare: names a file on the server", 0), 0u);
  const HttpResponse ok = web_get("/api/plan", with_compare("shared"));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_FALSE(nlohmann::json::parse(ok.body)["frontier"]["measured"].empty());
}

}  // namespace
}  // namespace modelcalc
