// The probes and /metrics over real loopback sockets, as the kubelet and
// Prometheus reach them: right status, body and content type per path, and
// wrong paths and methods refused rather than answered.
#include "distbench/kube/http_endpoints.h"

#include <arpa/inet.h>
#include <cpprest/http_client.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>

namespace distbench::op {
namespace {

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
}  // namespace distbench::op
