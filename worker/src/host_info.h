// Facts about the machine a report was taken on.
#pragma once

#include <string>

namespace distbench::worker {

struct HostInfo {
  std::string hostname;
  std::string cpuModel;
  unsigned logicalCpus = 0;
};

HostInfo readHostInfo();

}  // namespace distbench::worker
