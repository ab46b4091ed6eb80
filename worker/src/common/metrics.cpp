#include "distbench/worker/common/metrics.h"

#include <prometheus/exposer.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "distbench/worker/common/metric_families.h"

namespace distbench::worker {
namespace {

// civetweb's error log, its lines joined, each without the "[time] [error]
// [client ...] " civetweb puts before the message.
std::string errorLogText(const std::string& path) {
  std::ifstream in(path);
  std::string line, text;
  while (std::getline(in, line)) {
    const auto prefix = line.rfind("] ");
    if (prefix != std::string::npos) line.erase(0, prefix + 2);
    if (line.empty()) continue;
    text += (text.empty() ? "" : "; ") + line;
  }
  return text;
}

// civetweb says why it could not start (bind's errno, a bad option, a
// thread it could not create) only in its error log, which is off by
// default. The log goes to a file in a directory of its own for the start
// only: read, then removed with its directory, so that civetweb's later
// errors (it opens the file per message) find no directory and write
// nothing. One try: a failed start may keep the port (seen on the lent GPU
// machine, where a second try always said "Address already in use"), so a
// retry would only hide the first reason.
std::unique_ptr<prometheus::Exposer> startExposer(const std::string& listen) {
  char dir[] = "/tmp/distbench-civetweb-XXXXXX";
  if (::mkdtemp(dir) == nullptr) return std::make_unique<prometheus::Exposer>(listen);
  const std::string log = std::string(dir) + "/error.log";
  const auto cleanUp = [&] {
    ::unlink(log.c_str());
    ::rmdir(dir);
  };
  try {
    auto exposer = std::make_unique<prometheus::Exposer>(std::vector<std::string>{
        "listening_ports", listen, "num_threads", "2", "error_log_file", log});
    cleanUp();
    return exposer;
  } catch (const std::exception& e) {
    const std::string reason = errorLogText(log);
    cleanUp();
    throw std::runtime_error("metrics: cannot serve on " + listen + ": " + e.what() +
                             (reason.empty() ? "" : " civetweb: " + reason));
  }
}

}  // namespace

prometheus::Histogram::BucketBoundaries secondsBuckets() {
  prometheus::Histogram::BucketBoundaries b;
  for (const char* decade : {"e-5", "e-4", "e-3", "e-2", "e-1", "e0", "e1"}) {
    for (const char* mantissa : {"1", "2", "5"}) {
      b.push_back(std::stod(std::string(mantissa) + decade));
    }
  }
  b.push_back(100);
  return b;
}

prometheus::Family<prometheus::Histogram>& histogramFamily(const MetricsEndpoint& endpoint,
                                                           const std::string& name,
                                                           const std::string& help) {
  return prometheus::BuildHistogram()
      .Name(name)
      .Help(help)
      .Labels(endpoint.labels())
      .Register(endpoint.registry());
}

prometheus::Family<prometheus::Counter>& counterFamily(const MetricsEndpoint& endpoint,
                                                       const std::string& name,
                                                       const std::string& help) {
  return prometheus::BuildCounter()
      .Name(name)
      .Help(help)
      .Labels(endpoint.labels())
      .Register(endpoint.registry());
}

struct MetricsEndpoint::Impl {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  std::unique_ptr<prometheus::Exposer> exposer;
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
    m.exposer = startExposer(listen);
    m.exposer->RegisterCollectable(m.registry);
    m.endpoint = "http://" + listen + "/metrics";
  }
}

MetricsEndpoint::~MetricsEndpoint() = default;

std::string MetricsEndpoint::endpoint() const { return impl_->endpoint; }

void MetricsEndpoint::linger(int seconds) const {
  if (impl_->exposer && seconds > 0) std::this_thread::sleep_for(std::chrono::seconds(seconds));
}

prometheus::Registry& MetricsEndpoint::registry() const { return *impl_->registry; }

const std::map<std::string, std::string>& MetricsEndpoint::labels() const { return impl_->labels; }

}  // namespace distbench::worker
