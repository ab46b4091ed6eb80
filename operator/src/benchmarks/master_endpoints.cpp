#include "distbench/operator/benchmarks/master_endpoints.h"

#include "distbench/kube/json_fields.h"
#include "distbench/operator/common/labels.h"
#include "distbench/operator/common/ownership.h"

namespace distbench::op {

using web::json::value;

MasterAddress masterAddress(const std::vector<value>& desired, const std::vector<value>& current) {
  std::string masterName;
  for (const value& pod : desired)
    if (kube::stringField(pod.at("metadata"), "labels", kLabelRole) == "master")
      masterName = objectName(pod);
  MasterAddress out;
  for (const value& pod : current)
    if (objectName(pod) == masterName && !isDeleting(pod) &&
        !kube::stringField(pod, "status", "podIP").empty())
      out.pod = &pod;
  if (out.pod != nullptr)
    out.written = kube::stringField(*out.pod, "status", "podIP") + " " +
                  kube::stringField(out.pod->at("metadata"), "uid");
  return out;
}

std::string masterAddressOf(const value& endpoints) {
  const value* subsets = kube::fieldOf(endpoints, "subsets");
  if (subsets == nullptr || !subsets->is_array() || subsets->size() == 0) return "";
  const value* addresses = kube::fieldOf(subsets->at(0), "addresses");
  if (addresses == nullptr || !addresses->is_array() || addresses->size() == 0) return "";
  const value& address = addresses->at(0);
  return kube::stringField(address, "ip") + " " + kube::stringField(address, "targetRef", "uid");
}

EndpointsWrite planEndpointsWrite(const std::optional<value>& found, const std::string& uid,
                                  const std::string& written) {
  if (!found) return EndpointsWrite::Create;
  if (!isController(*found, uid) || masterAddressOf(*found) != written)
    return EndpointsWrite::Replace;
  return EndpointsWrite::None;
}

}  // namespace distbench::op
