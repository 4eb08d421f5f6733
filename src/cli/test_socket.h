// Loopback socket helpers shared by the server tests (http_server_test.cc,
// serve_test.cc): raw bytes to and from a server on 127.0.0.1.
#ifndef MODELCALC_CLI_TEST_SOCKET_H_
#define MODELCALC_CLI_TEST_SOCKET_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace modelcalc::test_socket {

// A hang guard only: a sanitized build is slow, but no test waits this long otherwise.
inline constexpr int kGuardSeconds = 60;

// A connected TCP socket to 127.0.0.1:port with kGuardSeconds send and receive timeouts, or -1.
inline int connect_to(int port) {
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

// Sends all of `data`; false when the peer is gone.
inline bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Everything the server sends until it closes the connection (or the guard times out).
inline std::string read_to_end(int fd) {
  std::string reply;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) reply.append(buf, static_cast<size_t>(n));
  return reply;
}

}  // namespace modelcalc::test_socket

#endif  // MODELCALC_CLI_TEST_SOCKET_H_
