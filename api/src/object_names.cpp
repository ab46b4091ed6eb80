#include "distbench/api/object_names.h"

namespace distbench::api {

std::string configMapName(const std::string& benchmark) { return benchmark + "-config"; }
std::string workersServiceName(const std::string& benchmark) { return benchmark + "-workers"; }
std::string masterServiceName(const std::string& benchmark) { return benchmark + "-master"; }
std::string networkPolicyName(const std::string& benchmark) { return benchmark + "-gang"; }
std::string reportConfigMapName(const std::string& benchmark) { return benchmark + "-report"; }
std::string rankLogsConfigMapName(const std::string& benchmark) { return benchmark + "-logs"; }
std::string runKeySecretName(const std::string& benchmark) { return benchmark + "-run-key"; }

std::string rankLogKey(int gang, const std::string& rankLabel) {
  return "gang-" + std::to_string(gang) + "." + rankLabel + ".log";
}

std::optional<RankLogKey> parseRankLogKey(const std::string& key) {
  const std::string prefix = "gang-";
  const std::string suffix = ".log";
  if (key.rfind(prefix, 0) != 0) return std::nullopt;
  const std::size_t dot = key.find('.', prefix.size());
  if (dot == std::string::npos || dot == prefix.size() || dot - prefix.size() > 9)
    return std::nullopt;
  if (key.size() <= dot + 1 + suffix.size() ||
      key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  RankLogKey parsed;
  for (std::size_t i = prefix.size(); i < dot; ++i) {
    if (key[i] < '0' || key[i] > '9') return std::nullopt;
    parsed.gang = parsed.gang * 10 + (key[i] - '0');
  }
  parsed.rankLabel = key.substr(dot + 1, key.size() - suffix.size() - dot - 1);
  return parsed;
}

std::string podNamePrefix(const std::string& benchmark) { return benchmark + "-"; }

std::string podName(const std::string& benchmark, Role role, int roleIndex) {
  // The master is a one-pod gang of its own: "-0" keeps pod names uniform.
  if (role == Role::Master) return podNamePrefix(benchmark) + "master-0";
  return podNamePrefix(benchmark) + toString(role) + "-" + std::to_string(roleIndex);
}

}  // namespace distbench::api
