// The operator's HTTP port: /metrics for Prometheus, /healthz for the
// liveness probe, /readyz for the readiness probe. Everything else is 404, and
// anything but GET 405, so that a probe or scraper pointed at the wrong path
// fails loudly instead of reading something that looks right.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace distbench::op {

class HttpEndpoints {
 public:
  // `address`: "host:port", e.g. "0.0.0.0:8080", or ":8080" for every
  // interface; port 0 picks a free one (port() tells which). `metrics` renders
  // /metrics (OperatorMetrics::scrape); `ready` answers /readyz. Both run on
  // cpprest's threads, several at a time, and must be thread-safe; one that
  // throws makes a 500 (/metrics) or a 503 (/readyz) carrying the message.
  HttpEndpoints(std::string address, std::function<std::string()> metrics,
                std::function<bool()> ready);
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

}  // namespace distbench::op
