#include "distbench/worker/common/metrics.h"

#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "distbench/http/http_endpoints.h"

namespace distbench::worker {

struct MetricsEndpoint::Impl {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  // Served by the same small server as the operator's port (distbench_http),
  // not prometheus-cpp's Exposer: civetweb behind it starts its threads
  // with fixed 100 KiB stacks, which glibc refuses in a process holding
  // more static TLS than that (PyTorch's CUDA wheels: every rank on the
  // lent H200 ran without /metrics). Also bounded per connection, as the
  // operator's port is.
  std::unique_ptr<http::HttpEndpoints> server;
  std::string endpoint;
  prometheus::Labels labels;
};

MetricsEndpoint::MetricsEndpoint(const std::string& benchmark, const std::string& role, int rank,
                                 int port, const std::string& address)
    : impl_(std::make_unique<Impl>()) {
  auto& m = *impl_;
  m.labels = {{"benchmark", benchmark}, {"role", role}, {"rank", std::to_string(rank)}};
  prometheus::BuildGauge()
      .Name("distbench_build_info")
      .Help("Always 1; labels carry the version.")
      .Labels(m.labels)
      .Register(*m.registry)
      .Add({{"version", DISTBENCH_VERSION}})
      .Set(1);

  if (port > 0) {
    const std::string listen = address + ":" + std::to_string(port);
    std::weak_ptr<prometheus::Registry> registry = m.registry;
    m.server = std::make_unique<http::HttpEndpoints>(
        listen,
        [registry] {
          const auto r = registry.lock();
          return r ? prometheus::TextSerializer().Serialize(r->Collect()) : std::string();
        },
        [] { return true; });
    try {
      m.server->start();
    } catch (const std::exception& e) {
      throw std::runtime_error("metrics: cannot serve on " + listen + ": " + e.what());
    }
    m.endpoint = "http://" + listen + "/metrics";
  }
}

MetricsEndpoint::~MetricsEndpoint() = default;

std::string MetricsEndpoint::endpoint() const { return impl_->endpoint; }

void MetricsEndpoint::linger(int seconds) const {
  if (impl_->server && seconds > 0) std::this_thread::sleep_for(std::chrono::seconds(seconds));
}

prometheus::Registry& MetricsEndpoint::registry() const { return *impl_->registry; }

const std::map<std::string, std::string>& MetricsEndpoint::labels() const { return impl_->labels; }

}  // namespace distbench::worker
