#include "distbench/operator/common/benchmark_object.h"

#include "distbench/api/spec_yaml.h"
#include "distbench/kube/json_fields.h"
#include "distbench/kube/kube_client.h"
#include "distbench/operator/common/crd_names.h"

namespace distbench::op {

using web::json::value;

std::string benchmarksPath(const std::string& ns, const std::string& name) {
  return kube::groupPath(kGroup, kVersion, ns, kPlural, name);
}

value benchmarkObject(const api::DistBenchmark& run, const value& owner) {
  value body = value::parse(api::toJson(run));
  value meta = value::object();
  meta["name"] = value::string(run.metadata.name);
  meta["namespace"] = value::string(run.metadata.namespace_);
  meta["labels"] = kube::stringMapJson(run.metadata.labels);
  meta["annotations"] = kube::stringMapJson(run.metadata.annotations);
  meta["ownerReferences"] = value::array({owner});
  body["metadata"] = meta;
  return body;
}

}  // namespace distbench::op
