// `modelcalc serve` over real sockets: the server on a free port in a thread,
// cpp-httplib's client (an HTTP implementation independent of
// http_server.cc) asking it, the answers compared with run_cli's for the same
// arguments (one engine, one answer).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "http_server.h"
#include "test_util.h"
#include "web_api.h"

namespace modelcalc {
namespace {

class ServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.listen("127.0.0.1", 0).ok());  // 0: the kernel picks a free port
    ASSERT_GT(server_.port(), 0);
    thread_ = std::thread([this] { server_.serve(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_.port());
    client_->set_read_timeout(60, 0);  // a sanitized build is slow; no test waits on it otherwise
  }
  void TearDown() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  // The raw reply to `request` sent as is (for what httplib's client would not send).
  std::string raw(const std::string& request) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(server_.port()));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    EXPECT_EQ(::send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
    std::string reply;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) reply.append(buf, static_cast<size_t>(n));
    ::close(fd);
    return reply;
  }

  HttpServer server_{handle_web_request};
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ServeTest, SizeIsTheClisJsonDocument) {
  auto res = client_->Get("/api/size?model=llama-3.1-8b&gpu=h100");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  const CliRun cli = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--json"});
  ASSERT_EQ(cli.status, 0);
  EXPECT_EQ(nlohmann::json::parse(res->body), cli.json());
  // llama-3.1-8b has 8,030,261,248 parameters (HF config: 32 layers × 218,112,000 + 2 × 128,256 × 4096 + 4096).
  EXPECT_EQ(nlohmann::json::parse(res->body)["params"]["total"].get<int64_t>(),
            int64_t{32} * 218'112'000 + int64_t{2} * 128'256 * 4096 + 4096);
}

TEST_F(ServeTest, TheTextReportIsTheClis) {
  auto res = client_->Get("/api/text/size?model=llama-3.1-8b&gpu=h100&explain=true&kv_dtype=fp8");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(res->body, run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--explain", "--kv-dtype",
                                 "fp8"}).out);
}

TEST_F(ServeTest, BadInputIs400WithTheClisLine) {
  auto res = client_->Get("/api/size?model=llama-3.1-8b&seq=abc");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  const CliRun cli = run_args({"size", "--model", "llama-3.1-8b", "--seq", "abc", "--json"});
  ASSERT_EQ(cli.status, 2);
  // The CLI's line, without its "modelcalc: error: " prefix and newline.
  EXPECT_EQ("modelcalc: error: " + nlohmann::json::parse(res->body)["error"].get<std::string>() + "\n", cli.err);
  EXPECT_NE(cli.err.find("--seq"), std::string::npos);
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
  auto res = client_->Get("/api/serve?port=1");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
}

TEST_F(ServeTest, ThePageAndUnknownPaths) {
  auto res = client_->Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(res->body.find("<title>modelcalc</title>"), std::string::npos);
  EXPECT_EQ(res->body, std::string(web_index_html()));
  auto missing = client_->Get("/nosuch");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
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

TEST_F(ServeTest, OnlyWellFormedGets) {
  EXPECT_EQ(raw("POST /api/size HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 405 ", 0), 0u);
  EXPECT_EQ(raw("GARBAGE\r\n\r\n").rfind("HTTP/1.1 400 ", 0), 0u);
  EXPECT_EQ(raw("GET /api/size?model=%zz HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 400 ", 0), 0u);
  EXPECT_EQ(raw("GET /" + std::string(20000, 'a')).rfind("HTTP/1.1 431 ", 0), 0u);  // a head over 16 KiB
  const std::string ok = raw("GET /api/models HTTP/1.0\r\n\r\n");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 ", 0), 0u);
  EXPECT_NE(ok.find("\r\nConnection: close\r\n"), std::string::npos);
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

}  // namespace
}  // namespace modelcalc
