#include "distbench/worker/collectives/collectives_metrics.h"

#include <map>
#include <mutex>

#include "distbench/worker/common/metric_families.h"

namespace distbench::worker {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Histogram;

struct CollectivesRankMetrics::Impl {
  Family<Histogram>* collective = nullptr;
  Family<Counter>* collectiveBytes = nullptr;
  std::mutex mutex;  // guards the lazily created series below
  std::map<std::string, Histogram*> byCase;
  std::map<std::string, Counter*> bytesByOp;
};

CollectivesRankMetrics::CollectivesRankMetrics(const MetricsEndpoint& endpoint)
    : impl_(std::make_unique<Impl>()) {
  impl_->collective =
      &histogramFamily(endpoint, "distbench_collective_seconds",
                       "One measured collective on this rank, by op, dtype and size in bytes.");
  impl_->collectiveBytes =
      &counterFamily(endpoint, "distbench_collective_bytes_total",
                     "Bytes moved by measured collectives (nccl-tests' size).");
}

CollectivesRankMetrics::~CollectivesRankMetrics() = default;

void CollectivesRankMetrics::observeCollective(const std::string& op, const std::string& dtype,
                                               int64_t bytes, double seconds) {
  auto& m = *impl_;
  Histogram* h;
  Counter* moved;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    const std::string key = op + "/" + dtype + "/" + std::to_string(bytes);
    auto it = m.byCase.find(key);
    h = it != m.byCase.end()
            ? it->second
            : (m.byCase[key] = &m.collective->Add(
                   {{"op", op}, {"dtype", dtype}, {"bytes", std::to_string(bytes)}},
                   secondsBuckets()));
    auto c = m.bytesByOp.find(op);
    moved = c != m.bytesByOp.end() ? c->second
                                   : (m.bytesByOp[op] = &m.collectiveBytes->Add({{"op", op}}));
  }
  h->Observe(seconds);
  moved->Increment(static_cast<double>(bytes));
}

}  // namespace distbench::worker
