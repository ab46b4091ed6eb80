// The probes and /metrics over real loopback sockets, as the kubelet and
// Prometheus reach them: right status, body and content type per path, and
// wrong paths and methods refused rather than answered.
#include "distbench/http/http_endpoints.h"

#include <arpa/inet.h>
#include <cpprest/http_client.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "distbench/process/eventually.h"

namespace distbench::http {
namespace {

using namespace std::chrono_literals;
using web::http::methods;
using web::http::status_codes;

struct Reply {
  int status = 0;
  std::string contentType;
  std::string body;
  std::string allow;
};

Reply call(int port, const web::http::method& method, const std::string& path) {
  web::http::client::http_client_config config;
  config.set_timeout(std::chrono::seconds(10));
  web::http::client::http_client client("http://127.0.0.1:" + std::to_string(port), config);
  web::http::http_response response = client.request(method, path).get();
  Reply reply;
  reply.status = response.status_code();
  reply.contentType = response.headers().content_type();
  reply.body = response.extract_utf8string(true).get();
  if (response.headers().has("Allow")) reply.allow = response.headers()["Allow"];
  return reply;
}

class HttpEndpointsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    endpoints_.start();
    port_ = endpoints_.port();
    ASSERT_GT(port_, 0);
  }

  std::atomic<bool> ready_{false};
  std::atomic<int> scrapes_{0};
  HttpEndpoints endpoints_{"127.0.0.1:0",
                           [this] {
                             ++scrapes_;
                             return std::string("# TYPE up gauge\nup 1\n");
                           },
                           [this] { return ready_.load(); }};
  int port_ = 0;
};

TEST_F(HttpEndpointsTest, MetricsServesTheCallbackAsPrometheusText) {
  const Reply reply = call(port_, methods::GET, "/metrics");
  EXPECT_EQ(reply.status, status_codes::OK);
  EXPECT_EQ(reply.body, "# TYPE up gauge\nup 1\n");
  EXPECT_EQ(reply.contentType.rfind("text/plain; version=0.0.4", 0), 0u) << reply.contentType;
  EXPECT_EQ(scrapes_, 1);
}

TEST_F(HttpEndpointsTest, HealthzIsOkWhileServing) {
  const Reply reply = call(port_, methods::GET, "/healthz");
  EXPECT_EQ(reply.status, status_codes::OK);
  EXPECT_EQ(reply.body, "ok\n");
}

TEST_F(HttpEndpointsTest, ReadyzFollowsTheCallback) {
  Reply reply = call(port_, methods::GET, "/readyz");
  EXPECT_EQ(reply.status, status_codes::ServiceUnavailable);
  EXPECT_EQ(reply.body, "not ready\n");
  ready_ = true;
  reply = call(port_, methods::GET, "/readyz");
  EXPECT_EQ(reply.status, status_codes::OK);
  EXPECT_EQ(reply.body, "ok\n");
}

TEST_F(HttpEndpointsTest, UnknownPathsAre404AndOtherMethods405) {
  EXPECT_EQ(call(port_, methods::GET, "/").status, status_codes::NotFound);
  EXPECT_EQ(call(port_, methods::GET, "/metricsx").status, status_codes::NotFound);
  const Reply post = call(port_, methods::POST, "/metrics");
  EXPECT_EQ(post.status, status_codes::MethodNotAllowed);
  EXPECT_EQ(post.allow, "GET");
  EXPECT_EQ(call(port_, methods::PUT, "/readyz").status, status_codes::MethodNotAllowed);
  EXPECT_EQ(scrapes_, 0);
}

TEST_F(HttpEndpointsTest, StopClosesThePort) {
  endpoints_.stop();
  EXPECT_THROW(call(port_, methods::GET, "/healthz"), std::exception);
  endpoints_.stop();  // idempotent
}

TEST(HttpEndpoints, ThrowingCallbacksAnswer500And503WithTheReason) {
  HttpEndpoints endpoints(
      "127.0.0.1:0", []() -> std::string { throw std::runtime_error("registry gone\nmore"); },
      []() -> bool { throw std::runtime_error("informers not synced"); });
  endpoints.start();
  const Reply metrics = call(endpoints.port(), methods::GET, "/metrics");
  EXPECT_EQ(metrics.status, status_codes::InternalError);
  EXPECT_EQ(metrics.body, "metrics failed: registry gone\n");
  const Reply ready = call(endpoints.port(), methods::GET, "/readyz");
  EXPECT_EQ(ready.status, status_codes::ServiceUnavailable);
  EXPECT_EQ(ready.body, "not ready: informers not synced\n");
}

TEST(HttpEndpoints, APortAnotherProcessHoldsFailsStart) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length), 0);
  const int taken = ntohs(addr.sin_port);

  HttpEndpoints endpoints(
      "127.0.0.1:" + std::to_string(taken), [] { return std::string(); }, [] { return true; });
  EXPECT_THROW(endpoints.start(), std::runtime_error);
  ::close(fd);
}

// cpprest, left to itself, would let the second listener's failure take the
// first one down with it.
TEST(HttpEndpoints, APortThisProcessServesFailsStartAndKeepsTheFirst) {
  HttpEndpoints first(
      "127.0.0.1:0", [] { return std::string(); }, [] { return true; });
  first.start();
  HttpEndpoints second(
      "127.0.0.1:" + std::to_string(first.port()), [] { return std::string(); },
      [] { return true; });
  EXPECT_THROW(second.start(), std::runtime_error);
  EXPECT_EQ(call(first.port(), methods::GET, "/healthz").status, status_codes::OK);

  // Once the first has stopped, the address is free again.
  const int port = first.port();
  first.stop();
  HttpEndpoints third(
      "127.0.0.1:" + std::to_string(port), [] { return std::string(); }, [] { return true; });
  third.start();
  EXPECT_EQ(call(port, methods::GET, "/healthz").status, status_codes::OK);
}

TEST(HttpEndpoints, AnEmptyHostListensOnEveryInterface) {
  HttpEndpoints endpoints(
      ":0", [] { return std::string(); }, [] { return true; });
  endpoints.start();
  EXPECT_EQ(call(endpoints.port(), methods::GET, "/healthz").status, status_codes::OK);
}

// Raw sockets for what no well-behaved client sends: an endless head, a
// body nobody asked for, a connection that says nothing.
class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    connected_ = fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }

  // Sends `bytes` bytes of `text` repeated; stops at the first refusal (the
  // server closed) or once a send has blocked for `patience`. Returns how
  // much went out.
  size_t send(const std::string& text, size_t bytes,
              std::chrono::milliseconds patience = std::chrono::seconds(2)) {
    size_t sent = 0;
    while (sent < bytes) {
      pollfd out{fd_, POLLOUT, 0};
      if (::poll(&out, 1, static_cast<int>(patience.count())) <= 0) break;
      const size_t offset = sent % text.size();
      const size_t chunk = std::min(bytes - sent, text.size() - offset);
      const ssize_t n = ::send(fd_, text.data() + offset, chunk, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    return sent;
  }
  size_t send(const std::string& text) { return send(text, text.size()); }

  // Whether the server has closed (or reset) the connection, without waiting.
  bool closedByServer() {
    char byte;
    const ssize_t n = ::recv(fd_, &byte, 1, MSG_DONTWAIT | MSG_PEEK);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
  }

  // What arrives before the server closes (or resets) the connection, or
  // before `deadline`; `closed` says which.
  std::string receive(std::chrono::milliseconds deadline, bool& closed) {
    std::string got;
    closed = false;
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return got;
      pollfd in{fd_, POLLIN, 0};
      if (::poll(&in, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[4096];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        closed = true;
        return got;
      }
      got.append(buffer, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  bool connected_ = false;
};

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A head that never ends is cut off at 8 KiB: the connection is answered
// 431 or closed long before a megabyte has gone in, and nothing of it is
// held.
TEST_F(HttpEndpointsTest, AnEndlessRequestHeadIsCutOff) {
  RawConnection connection(port_);
  ASSERT_TRUE(connection.connected());
  const auto start = Clock::now();
  size_t sent = connection.send("GET /metrics HTTP/1.1\r\nX: ");
  sent += connection.send(std::string(4096, 'a'), 1 << 20);
  bool closed = false;
  const std::string reply = connection.receive(std::chrono::seconds(3), closed);
  EXPECT_TRUE(closed) << "still open after " << sent << " bytes of head";
  EXPECT_TRUE(reply.empty() || reply.rfind("HTTP/1.1 431 ", 0) == 0) << reply;
  EXPECT_LT(secondsSince(start), 3.0);
  EXPECT_EQ(scrapes_, 0);
  EXPECT_EQ(call(port_, methods::GET, "/healthz").status, status_codes::OK);
}

// A body is refused from its Content-Length or Transfer-Encoding, before it
// is read: nothing here takes one.
TEST_F(HttpEndpointsTest, ARequestBodyIsRefusedWithoutReadingIt) {
  for (const std::string& framing :
       {std::string("Content-Length: 1073741824"), std::string("Transfer-Encoding: chunked")}) {
    RawConnection connection(port_);
    ASSERT_TRUE(connection.connected());
    const auto start = Clock::now();
    connection.send("POST /metrics HTTP/1.1\r\nHost: operator\r\n" + framing + "\r\n\r\n");
    connection.send(std::string(4096, 'b'), 64 << 10);
    bool closed = false;
    const std::string reply = connection.receive(std::chrono::seconds(3), closed);
    EXPECT_EQ(reply.rfind("HTTP/1.1 413 ", 0), 0u) << framing << ": " << reply;
    EXPECT_NE(reply.find("\r\nConnection: close\r\n"), std::string::npos) << reply;
    EXPECT_LT(secondsSince(start), 1.0) << framing;
    EXPECT_TRUE(closed) << framing;
  }
  EXPECT_EQ(call(port_, methods::GET, "/healthz").status, status_codes::OK);
}

// A connection that sends nothing (or half a head) is closed within a few
// seconds, so idle connections cannot pile up.
TEST_F(HttpEndpointsTest, AnIdleConnectionIsClosedWithinSixSeconds) {
  RawConnection silent(port_);
  RawConnection halfHead(port_);
  ASSERT_TRUE(silent.connected() && halfHead.connected());
  halfHead.send("GET /metrics HTTP/1.1\r\nHost: operator\r\n");
  const auto start = Clock::now();
  bool closed = false;
  silent.receive(std::chrono::milliseconds(6500), closed);
  EXPECT_TRUE(closed);
  EXPECT_LT(secondsSince(start), 6.5);
  const std::string reply = halfHead.receive(std::chrono::seconds(1), closed);
  EXPECT_TRUE(closed);
  EXPECT_TRUE(reply.empty() || reply.rfind("HTTP/1.1 408 ", 0) == 0) << reply;
}

// Many idle connections take no probe's place: the probes and the scrape
// still answer at once.
TEST_F(HttpEndpointsTest, ManyIdleConnectionsDoNotStopTheProbes) {
  std::vector<std::unique_ptr<RawConnection>> idle;
  const auto opening = Clock::now();
  for (int i = 0; i < 100; ++i) {
    idle.push_back(std::make_unique<RawConnection>(port_));
    if (i % 2 == 1) idle.back()->send("GET /metrics HTTP/1.1\r\n");
  }
  EXPECT_LT(secondsSince(opening), 1.0) << "a connection waited for a place in the backlog";
  for (const char* path : {"/healthz", "/readyz", "/metrics"}) {
    const auto start = Clock::now();
    const int status = call(port_, methods::GET, path).status;
    EXPECT_NE(status, 0) << path;
    std::printf("[ figure ] %s with 100 idle connections open: %.3f s\n", path,
                secondsSince(start));
    EXPECT_LT(secondsSince(start), 1.0) << path;
  }
  EXPECT_EQ(scrapes_, 1);
  // The server holds at most kMaxHttpConnections: the others it has closed.
  const auto open = [&] {
    return std::count_if(idle.begin(), idle.end(), [](auto& c) { return !c->closedByServer(); });
  };
  EXPECT_TRUE(process::eventually([&] { return open() <= kMaxHttpConnections; }, 2s)) << open();
}

// A keep-alive client still gets its answer, and the connection ends with
// it: every reply says Connection: close.
TEST_F(HttpEndpointsTest, EveryReplyClosesTheConnection) {
  RawConnection connection(port_);
  ASSERT_TRUE(connection.connected());
  connection.send(
      "GET /healthz?verbose=1 HTTP/1.1\r\nHost: operator\r\nConnection: keep-alive\r\n\r\n");
  bool closed = false;
  const std::string reply = connection.receive(std::chrono::seconds(3), closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(reply.rfind("HTTP/1.1 200 ", 0), 0u) << reply;
  EXPECT_NE(reply.find("\r\nConnection: close\r\n"), std::string::npos) << reply;
  EXPECT_EQ(reply.substr(reply.size() - 3), "ok\n") << reply;
}

TEST(HttpEndpoints, MalformedAddressesAreRefused) {
  const auto make = [](const std::string& address) {
    HttpEndpoints endpoints(
        address, [] { return std::string(); }, [] { return true; });
  };
  EXPECT_THROW(make("8080"), std::invalid_argument);
  EXPECT_THROW(make("host:"), std::invalid_argument);
  EXPECT_THROW(make("host:80x"), std::invalid_argument);
  EXPECT_THROW(make("host:70000"), std::invalid_argument);
  EXPECT_NO_THROW(make(":8080"));
}

}  // namespace
}  // namespace distbench::http
