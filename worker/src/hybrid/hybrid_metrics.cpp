#include "distbench/worker/hybrid/hybrid_metrics.h"

#include <map>
#include <mutex>

#include "distbench/worker/common/metric_families.h"

namespace distbench::worker {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Histogram;

struct HybridTrainerMetrics::Impl {
  Histogram* epoch = nullptr;
  Counter* epochs = nullptr;
  Counter* warmupEpochs = nullptr;
  Family<Histogram>* rpc = nullptr;
  Family<Counter>* rpcBytes = nullptr;
  std::mutex mutex;  // guards the lazily created per-op series below
  std::map<std::string, Histogram*> rpcByOp;
  std::map<std::string, Counter*> sentByOp, receivedByOp;
};

HybridTrainerMetrics::HybridTrainerMetrics(const MetricsEndpoint& endpoint)
    : TrainingMetrics(endpoint, "Forward pass: parameter-server lookups, dense layers, loss.",
                      "Distributed optimizer step: local SGD plus every PS step RPC."),
      impl_(std::make_unique<Impl>()) {
  selectSeries({});
  auto& m = *impl_;
  m.epoch = &histogramFamily(endpoint, "distbench_epoch_seconds",
                             "Wall time of one measured training epoch.")
                 .Add({}, secondsBuckets());
  m.epochs =
      &counterFamily(endpoint, "distbench_epochs_total", "Epochs completed, measured.").Add({});
  m.warmupEpochs =
      &counterFamily(endpoint, "distbench_warmup_epochs_total", "Warm-up epochs completed.")
           .Add({});
  m.rpc = &histogramFamily(endpoint, "distbench_rpc_seconds",
                           "Trainer-side round trip of one parameter-server call, by op.");
  m.rpcBytes = &counterFamily(endpoint, "distbench_rpc_bytes_total",
                              "Parameter-server call payload bytes, by op and direction.");
}

HybridTrainerMetrics::~HybridTrainerMetrics() = default;

void HybridTrainerMetrics::observeEpoch(double seconds, int64_t examples, bool warmup) {
  observeExamples(examples);
  if (warmup) {
    impl_->warmupEpochs->Increment();
    return;
  }
  impl_->epochs->Increment();
  impl_->epoch->Observe(seconds);
}

void HybridTrainerMetrics::observeRpc(const std::string& op, double seconds, int64_t bytesSent,
                                      int64_t bytesReceived) {
  auto& m = *impl_;
  Histogram* h;
  Counter *sent, *received;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.rpcByOp.find(op);
    if (it == m.rpcByOp.end()) {
      m.rpcByOp[op] = &m.rpc->Add({{"op", op}}, secondsBuckets());
      m.sentByOp[op] = &m.rpcBytes->Add({{"op", op}, {"direction", "sent"}});
      m.receivedByOp[op] = &m.rpcBytes->Add({{"op", op}, {"direction", "received"}});
    }
    h = m.rpcByOp[op];
    sent = m.sentByOp[op];
    received = m.receivedByOp[op];
  }
  h->Observe(seconds);
  sent->Increment(static_cast<double>(bytesSent));
  received->Increment(static_cast<double>(bytesReceived));
}

struct ParameterServerMetrics::Impl {
  Family<Histogram>* service = nullptr;
  std::mutex mutex;  // guards serviceByOp
  std::map<std::string, Histogram*> serviceByOp;
};

ParameterServerMetrics::ParameterServerMetrics(const MetricsEndpoint& endpoint)
    : impl_(std::make_unique<Impl>()) {
  impl_->service = &histogramFamily(endpoint, "distbench_ps_service_seconds",
                                    "Parameter-server time to serve one request, by op.");
}

ParameterServerMetrics::~ParameterServerMetrics() = default;

void ParameterServerMetrics::observeService(const std::string& op, double seconds) {
  auto& m = *impl_;
  Histogram* h;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.serviceByOp.find(op);
    h = it != m.serviceByOp.end()
            ? it->second
            : (m.serviceByOp[op] = &m.service->Add({{"op", op}}, secondsBuckets()));
  }
  h->Observe(seconds);
}

}  // namespace distbench::worker
