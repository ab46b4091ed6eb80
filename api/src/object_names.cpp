#include "distbench/api/object_names.h"

namespace distbench::api {

std::string configMapName(const std::string& benchmark) { return benchmark + "-config"; }
std::string workersServiceName(const std::string& benchmark) { return benchmark + "-workers"; }
std::string masterServiceName(const std::string& benchmark) { return benchmark + "-master"; }
std::string networkPolicyName(const std::string& benchmark) { return benchmark + "-gang"; }
std::string reportConfigMapName(const std::string& benchmark) { return benchmark + "-report"; }
std::string runKeySecretName(const std::string& benchmark) { return benchmark + "-run-key"; }

std::string podNamePrefix(const std::string& benchmark) { return benchmark + "-"; }

std::string podName(const std::string& benchmark, Role role, int roleIndex) {
  // The master is a one-pod gang of its own: "-0" keeps pod names uniform.
  if (role == Role::Master) return podNamePrefix(benchmark) + "master-0";
  return podNamePrefix(benchmark) + toString(role) + "-" + std::to_string(roleIndex);
}

}  // namespace distbench::api
