// What one check's DistBenchmark says, read from the object the API server
// returns: still running, or finished with the Fabric verdict the operator
// wrote to status.fabric once the report was stored (fabric_suspects.h), or
// failed. Pure.
#pragma once

#include <cpprest/json.h>

#include <string>
#include <vector>

namespace distbench::op {

enum class CheckRunOutcome {
  Running,       // not finished, or finished and its report not stored yet
  Healthy,       // nothing named
  Slow,          // a node, link or compute named slow
  Inconclusive,  // nothing slow, something whose interval straddles the line
  Failed,        // the run failed, or its report could not be stored or judged
};

const char* toString(CheckRunOutcome outcome);

struct CheckRunVerdict {
  CheckRunOutcome outcome = CheckRunOutcome::Running;
  // One line a person can act on: the figures and intervals of the
  // suspects, or the line the nodes met, or why the run failed.
  std::string summary;
  // Kubernetes nodes named slow in their own right (a node or its compute,
  // not a link between two fine nodes): what a policy may mark.
  std::vector<std::string> slowNodes;
};

CheckRunVerdict readCheckRunVerdict(const web::json::value& benchmark);

}  // namespace distbench::op
