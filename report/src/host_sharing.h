// Whether a run's ranks shared one host's cores, as far as a report can
// tell: the attribution's straggler rule and the prediction's contention
// both ask. Private to the report library.
#pragma once

#include "distbench/report/report.h"

namespace distbench::report {

// A CPU run with more ranks than its host (the master's) has CPUs: every
// local run of that size, and a cluster run whose ranks landed on one node.
inline bool ranksOutnumberCpus(const Report& report) {
  return report.device != "cuda" && report.host.logicalCpus > 0 &&
         report.worldSize > report.host.logicalCpus;
}

}  // namespace distbench::report
