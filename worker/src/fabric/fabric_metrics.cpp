#include "distbench/worker/fabric/fabric_metrics.h"

#include <prometheus/gauge.h>

#include "distbench/worker/common/metric_families.h"

namespace distbench::worker {

double fabricStatusValue(report::FabricStatus status) {
  switch (status) {
    case report::FabricStatus::Ok:
      return 0;
    case report::FabricStatus::Slow:
      return 1;
    case report::FabricStatus::Inconclusive:
      return 2;
  }
  return 2;
}

void exportFabricVerdict(const MetricsEndpoint& endpoint, const report::FabricMeasurements& m,
                         const report::FabricVerdict& verdict) {
  auto& bandwidth = gaugeFamily(
      endpoint, "distbench_fabric_link_bandwidth_bytes_per_second",
      "A node's estimated point-to-point bandwidth over its measured peers (largest size).");
  auto& compute = gaugeFamily(endpoint, "distbench_fabric_compute_flops",
                              "A node's estimated compute probe rate, FLOP/s.");
  auto& status =
      gaugeFamily(endpoint, "distbench_fabric_node_status",
                  "A node's verdict, by what (link, compute): 0 ok, 1 slow, 2 inconclusive.");
  for (const report::FabricNodeVerdict& v : verdict.nodes) {
    const report::FabricNode& node = m.nodes.at(static_cast<size_t>(v.index));
    const std::map<std::string, std::string> labels = {{"trainer", node.name}, {"node", node.node}};
    bandwidth.Add(labels).Set(v.bandwidth.value);
    compute.Add(labels).Set(v.compute.value);
    std::map<std::string, std::string> link = labels;
    link["what"] = "link";
    status.Add(link).Set(fabricStatusValue(v.link));
    std::map<std::string, std::string> gemm = labels;
    gemm["what"] = "compute";
    status.Add(gemm).Set(fabricStatusValue(v.computeStatus));
  }
}

}  // namespace distbench::worker
