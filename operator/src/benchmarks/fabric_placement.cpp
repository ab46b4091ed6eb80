#include "distbench/operator/benchmarks/fabric_placement.h"

#include "distbench/api/worker_env.h"
#include "distbench/operator/common/labels.h"

namespace distbench::op {

using web::json::value;

void applyFabricPlacement(const api::DistBenchmark& b, const api::RankProcess& rank,
                          const std::string& runUid, value& spec, value& env) {
  if (b.spec.benchmark.kind != api::BenchmarkKind::Fabric || rank.role != api::Role::Trainer)
    return;
  const api::FabricSpec& f = b.spec.benchmark.fabric;

  value nodeName = value::object();
  nodeName["name"] = value::string(api::kEnvNodeName);
  nodeName["valueFrom"]["fieldRef"]["fieldPath"] = value::string("spec.nodeName");
  env[env.size()] = nodeName;

  if (!f.nodes.empty() && rank.roleIndex >= 0 &&
      static_cast<size_t>(rank.roleIndex) < f.nodes.size()) {
    value expression = value::object();
    expression["key"] = value::string(kHostnameTopologyKey);
    expression["operator"] = value::string("In");
    expression["values"] =
        value::array({value::string(f.nodes[static_cast<size_t>(rank.roleIndex)])});
    value term = value::object();
    term["matchExpressions"] = value::array({expression});
    spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        ["nodeSelectorTerms"] = value::array({term});
  }
  if (f.onePerNode) {
    value selector = value::object();
    selector["matchLabels"][kLabelBenchmark] = value::string(b.metadata.name);
    selector["matchLabels"][kLabelRun] = value::string(runUid);
    selector["matchLabels"][kLabelRole] = value::string(api::toString(api::Role::Trainer));
    value term = value::object();
    term["labelSelector"] = selector;
    term["topologyKey"] = value::string(kHostnameTopologyKey);
    spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
        value::array({term});
  }
}

}  // namespace distbench::op
