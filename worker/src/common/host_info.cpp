#include "distbench/worker/common/host_info.h"

#include <unistd.h>

#include <fstream>
#include <thread>

namespace distbench::worker {

report::Host readHostInfo() {
  report::Host info;
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) == 0) info.hostname = name;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos)
        info.cpuModel = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
  info.logicalCpus = static_cast<int>(std::thread::hardware_concurrency());
  return info;
}

}  // namespace distbench::worker
