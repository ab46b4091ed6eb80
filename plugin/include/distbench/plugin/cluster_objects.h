// The distbench objects of the cluster, read through kubectl as JSON.
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>
#include <vector>

#include "distbench/plugin/kubectl.h"

namespace distbench::plugin {

// `kubectl get RESOURCE NAME -o json`; nullopt when there is no such
// object; KubectlError for anything else (no CRD, RBAC, no server).
std::optional<web::json::value> getObject(const Kubectl& kubectl, const std::string& resource,
                                          const std::string& name);
// `kubectl get RESOURCE -o json`'s items (extra: e.g. "--all-namespaces").
std::vector<web::json::value> listObjects(const Kubectl& kubectl, const std::string& resource,
                                          const std::vector<std::string>& extra = {});

inline constexpr const char* kBenchmarks = "distbenchmarks.distbench.io";
inline constexpr const char* kSchedules = "distbenchmarkschedules.distbench.io";

}  // namespace distbench::plugin
