// An HTTP port for Prometheus and the kubelet's probes, the operator's and
// each worker rank's: /metrics for Prometheus, /healthz for the liveness
// probe, /readyz for the readiness probe. Everything else is 404, and
// anything but GET 405, so that a probe or scraper pointed at the wrong path
// fails loudly instead of reading something that looks right.
//
// Anyone the network lets reach the port can connect, so what a connection
// may cost is bounded (docs/deploy.md): a small server of its own, not a
// general-purpose one (cpprest's listener read a head and a body of any size
// and kept idle connections for ever). One request per connection, a head of
// at most kMaxHttpHeadBytes within kHttpIoTimeout (else 431 or 408), no
// request body (a Content-Length over 0 or any Transfer-Encoding: 413, the
// body unread), every reply with "Connection: close" and written within
// kHttpIoTimeout, at most kMaxHttpConnections at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace distbench::http {

inline constexpr std::size_t kMaxHttpHeadBytes = 8 * 1024;
inline constexpr std::chrono::milliseconds kHttpIoTimeout{5000};
// At the bound a new connection replaces the oldest one that is not being
// answered (idle, or still sending its head): idle connections cannot keep
// a probe out.
inline constexpr int kMaxHttpConnections = 16;

class HttpEndpoints {
 public:
  // `address`: "host:port", e.g. "0.0.0.0:8080", or ":8080" for every
  // interface; port 0 picks a free one (port() tells which). `metrics` renders
  // /metrics (the operator's OperatorMetrics::scrape, a rank's registry); `ready` answers /readyz. Both run on
  // the endpoints' own thread, one request at a time, beside the rest of the
  // operator, so they must be thread-safe and quick; one that throws makes a
  // 500 (/metrics) or a 503 (/readyz) carrying the message.
  // `onError` hears what goes wrong while serving (a /metrics callback
  // that threw, a failed poll), e.g. to the operator's JSON log; empty:
  // one line on stderr.
  using ErrorSink = std::function<void(const std::string& what, const std::string& error)>;
  HttpEndpoints(std::string address, std::function<std::string()> metrics,
                std::function<bool()> ready, ErrorSink onError = {});
  ~HttpEndpoints();  // stop()
  HttpEndpoints(const HttpEndpoints&) = delete;
  HttpEndpoints& operator=(const HttpEndpoints&) = delete;

  // Listens; throws std::runtime_error when the address cannot be bound.
  // Once only.
  void start();
  // Stops accepting and closes open connections. Idempotent.
  void stop();

  // The port listened on: the one asked for, or the one picked for port 0.
  // 0 before start().
  int port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace distbench::http
