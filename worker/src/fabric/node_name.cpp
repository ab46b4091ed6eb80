#include "distbench/worker/fabric/node_name.h"

#include <cstdlib>

#include "distbench/api/worker_env.h"

namespace distbench::worker {

std::string nodeNameFromEnvironment() {
  const char* value = std::getenv(api::kEnvNodeName);
  return value != nullptr ? value : "";
}

}  // namespace distbench::worker
