#include "common/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace distbench::worker {
namespace {

using prometheus::Counter;
using prometheus::Histogram;

// 10 us .. 100 s in 1-2-5 steps: covers a loopback RPC and a slow epoch, and
// the le labels print as written (no 8.000000000000001e-05).
Histogram::BucketBoundaries secondsBuckets() {
  Histogram::BucketBoundaries b;
  for (const char* decade : {"e-5", "e-4", "e-3", "e-2", "e-1", "e0", "e1"}) {
    for (const char* mantissa : {"1", "2", "5"}) {
      b.push_back(std::stod(std::string(mantissa) + decade));
    }
  }
  b.push_back(100);
  return b;
}

}  // namespace

struct WorkerMetrics::Impl {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  std::unique_ptr<prometheus::Exposer> exposer;
  std::string endpoint;
  prometheus::Labels labels;

  // Training families, and the series of them that observations go to.
  prometheus::Family<Histogram>* iterationFamily = nullptr;
  prometheus::Family<Histogram>* forwardFamily = nullptr;
  prometheus::Family<Histogram>* backwardFamily = nullptr;
  prometheus::Family<Histogram>* allreduceFamily = nullptr;
  prometheus::Family<Histogram>* allreduceWaitFamily = nullptr;
  prometheus::Family<Histogram>* optimizerFamily = nullptr;
  prometheus::Family<Counter>* examplesFamily = nullptr;
  prometheus::Family<Counter>* allreduceBytesFamily = nullptr;
  prometheus::Family<Histogram>* collective = nullptr;
  prometheus::Family<Counter>* collectiveBytes = nullptr;

  Histogram* epoch = nullptr;
  Histogram* iteration = nullptr;
  Histogram* forward = nullptr;
  Histogram* backward = nullptr;
  Histogram* allreduce = nullptr;
  Histogram* allreduceWait = nullptr;
  Histogram* optimizer = nullptr;
  Counter* examples = nullptr;
  Counter* epochs = nullptr;
  Counter* warmupEpochs = nullptr;
  Counter* allreduceBytes = nullptr;
  prometheus::Family<Histogram>* rpc = nullptr;
  prometheus::Family<Histogram>* service = nullptr;
  prometheus::Family<Counter>* rpcBytes = nullptr;

  std::mutex mutex;  // guards the lazily created per-op series below
  std::map<std::string, Histogram*> rpcByOp, serviceByOp;
  std::map<std::string, Counter*> sentByOp, receivedByOp;
  std::map<std::string, Histogram*> collectiveByCase;
  std::map<std::string, Counter*> collectiveBytesByOp;

  prometheus::Family<Histogram>& histogramFamily(const std::string& name, const std::string& help) {
    return prometheus::BuildHistogram().Name(name).Help(help).Labels(labels).Register(*registry);
  }
  prometheus::Family<Counter>& counterFamily(const std::string& name, const std::string& help) {
    return prometheus::BuildCounter().Name(name).Help(help).Labels(labels).Register(*registry);
  }
  Histogram& histogram(const std::string& name, const std::string& help) {
    return histogramFamily(name, help).Add({}, secondsBuckets());
  }

  void trainingFamilies(const std::string& forwardHelp, const std::string& optimizerHelp) {
    iterationFamily =
        &histogramFamily("distbench_iteration_seconds",
                         "Wall time of one batch: forward, backward, allreduce, step.");
    forwardFamily = &histogramFamily("distbench_forward_seconds", forwardHelp);
    backwardFamily = &histogramFamily("distbench_backward_seconds",
                                      "Backward pass (DDP allreduces overlap it).");
    allreduceFamily =
        &histogramFamily("distbench_allreduce_seconds",
                         "One DDP gradient bucket's allreduce, launch to completion.");
    allreduceWaitFamily =
        &histogramFamily("distbench_allreduce_wait_seconds",
                         "Allreduce time left after backward: what overlap did not hide.");
    optimizerFamily = &histogramFamily("distbench_optimizer_step_seconds", optimizerHelp);
    examplesFamily = &counterFamily("distbench_examples_total",
                                    "Training examples processed, warm-up included.");
    allreduceBytesFamily =
        &counterFamily("distbench_allreduce_bytes_total", "Bytes allreduced by DDP.");
  }

  void selectSeries(const prometheus::Labels& extra) {
    iteration = &iterationFamily->Add(extra, secondsBuckets());
    forward = &forwardFamily->Add(extra, secondsBuckets());
    backward = &backwardFamily->Add(extra, secondsBuckets());
    allreduce = &allreduceFamily->Add(extra, secondsBuckets());
    allreduceWait = &allreduceWaitFamily->Add(extra, secondsBuckets());
    optimizer = &optimizerFamily->Add(extra, secondsBuckets());
    examples = &examplesFamily->Add(extra);
    allreduceBytes = &allreduceBytesFamily->Add(extra);
  }
  Counter& counter(const std::string& name, const std::string& help,
                   const prometheus::Labels& extra = {}) {
    return prometheus::BuildCounter().Name(name).Help(help).Labels(labels).Register(*registry).Add(
        extra);
  }
};

WorkerMetrics::WorkerMetrics(const std::string& benchmark, const std::string& kind,
                             const std::string& role, int rank, int port)
    : impl_(std::make_unique<Impl>()) {
  auto& m = *impl_;
  m.labels = {{"benchmark", benchmark}, {"role", role}, {"rank", std::to_string(rank)}};
  // Each role and kind registers only what it records, so a scrape shows no
  // empty families of another.
  if (role == "trainer" && kind == "HybridDDPRPC") {
    m.trainingFamilies("Forward pass: parameter-server lookups, dense layers, loss.",
                       "Distributed optimizer step: local SGD plus every PS step RPC.");
    m.selectSeries({});
    m.epoch = &m.histogram("distbench_epoch_seconds", "Wall time of one measured training epoch.");
    m.epochs = &m.counter("distbench_epochs_total", "Epochs completed, measured.");
    m.warmupEpochs = &m.counter("distbench_warmup_epochs_total", "Warm-up epochs completed.");
    m.rpc = &m.histogramFamily("distbench_rpc_seconds",
                               "Trainer-side round trip of one parameter-server call, by op.");
    m.rpcBytes = &m.counterFamily("distbench_rpc_bytes_total",
                                  "Parameter-server call payload bytes, by op and direction.");
  }
  if (role == "trainer" && kind == "DDP") {
    m.trainingFamilies("Forward pass and loss.", "SGD step (momentum, weight decay).");
  }
  if (role == "trainer" && kind == "Collectives") {
    m.collective =
        &m.histogramFamily("distbench_collective_seconds",
                           "One measured collective on this rank, by op, dtype and size in bytes.");
    m.collectiveBytes = &m.counterFamily("distbench_collective_bytes_total",
                                         "Bytes moved by measured collectives (nccl-tests' size).");
  }
  if (role == "ps") {
    m.service = &m.histogramFamily("distbench_ps_service_seconds",
                                   "Parameter-server time to serve one request, by op.");
  }
  prometheus::BuildGauge()
      .Name("distbench_build_info")
      .Help("Always 1; labels carry the version.")
      .Labels(m.labels)
      .Register(*m.registry)
      .Add({{"version", DISTBENCH_VERSION}})
      .Set(1);

  if (port > 0) {
    const std::string address = "0.0.0.0:" + std::to_string(port);
    try {
      m.exposer = std::make_unique<prometheus::Exposer>(address);
    } catch (const std::exception& e) {
      throw std::runtime_error("metrics: cannot serve on port " + std::to_string(port) + ": " +
                               e.what());
    }
    m.exposer->RegisterCollectable(m.registry);
    m.endpoint = "http://" + address + "/metrics";
  }
}

WorkerMetrics::~WorkerMetrics() = default;

void WorkerMetrics::observeEpoch(double seconds, int64_t examples, bool warmup) {
  impl_->examples->Increment(static_cast<double>(examples));
  if (warmup) {
    impl_->warmupEpochs->Increment();
    return;
  }
  impl_->epochs->Increment();
  impl_->epoch->Observe(seconds);
}
void WorkerMetrics::selectTrainingSeries(const std::string& model, int worldSize) {
  impl_->selectSeries({{"model", model}, {"world_size", std::to_string(worldSize)}});
}

void WorkerMetrics::observeCollective(const std::string& op, const std::string& dtype,
                                      int64_t bytes, double seconds) {
  auto& m = *impl_;
  Histogram* h;
  Counter* moved;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    const std::string key = op + "/" + dtype + "/" + std::to_string(bytes);
    auto it = m.collectiveByCase.find(key);
    h = it != m.collectiveByCase.end()
            ? it->second
            : (m.collectiveByCase[key] = &m.collective->Add(
                   {{"op", op}, {"dtype", dtype}, {"bytes", std::to_string(bytes)}},
                   secondsBuckets()));
    auto c = m.collectiveBytesByOp.find(op);
    moved = c != m.collectiveBytesByOp.end()
                ? c->second
                : (m.collectiveBytesByOp[op] = &m.collectiveBytes->Add({{"op", op}}));
  }
  h->Observe(seconds);
  moved->Increment(static_cast<double>(bytes));
}

void WorkerMetrics::observeIteration(double s) { impl_->iteration->Observe(s); }
void WorkerMetrics::observeExamples(int64_t examples) {
  impl_->examples->Increment(static_cast<double>(examples));
}
void WorkerMetrics::observeForward(double s) { impl_->forward->Observe(s); }
void WorkerMetrics::observeBackward(double s) { impl_->backward->Observe(s); }
void WorkerMetrics::observeAllreduce(double s, int64_t bytes) {
  impl_->allreduce->Observe(s);
  impl_->allreduceBytes->Increment(static_cast<double>(bytes));
}
void WorkerMetrics::observeAllreduceWait(double s) { impl_->allreduceWait->Observe(s); }
void WorkerMetrics::observeOptimizerStep(double s) { impl_->optimizer->Observe(s); }

void WorkerMetrics::observeRpc(const std::string& op, double seconds, int64_t bytesSent,
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

void WorkerMetrics::observeService(const std::string& op, double seconds) {
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

std::string WorkerMetrics::endpoint() const { return impl_->endpoint; }

void WorkerMetrics::linger(int seconds) const {
  if (impl_->exposer && seconds > 0) std::this_thread::sleep_for(std::chrono::seconds(seconds));
}

}  // namespace distbench::worker
