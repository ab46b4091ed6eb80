// The one table of benchmark kinds (common/benchmark_kind.h). A switch
// rather than an array, so a kind added to api::BenchmarkKind without an
// entry here is a -Wswitch warning (an error under DISTBENCH_WERROR).
#include <stdexcept>

#include "distbench/worker/common/benchmark_kind.h"

namespace distbench::worker {

const KindEntry& kindEntry(api::BenchmarkKind kind) {
  switch (kind) {
    case api::BenchmarkKind::HybridDDPRPC:
      return hybridKind();
    case api::BenchmarkKind::DDP:
      return ddpKind();
    case api::BenchmarkKind::Collectives:
      return collectivesKind();
    case api::BenchmarkKind::Fabric:
      return fabricKind();
  }
  throw std::invalid_argument("no benchmark kind " + std::to_string(static_cast<int>(kind)));
}

}  // namespace distbench::worker
