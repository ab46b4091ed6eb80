// The Fabric kind's verdict in the cluster: what the operator writes as
// status.fabric, the Events that name the suspect nodes, and which nodes it
// may mark. Pure, from the run's report (and a baseline's measurements
// where spec.baseline gives one): the verdict is report::judgeFabric's, the
// same one `distbench run` prints and `distbench report` draws.
#pragma once

#include <cpprest/json.h>

#include <cstddef>
#include <string>
#include <vector>

#include "distbench/kube/status_context.h"
#include "distbench/operator/common/status_conditions.h"
#include "distbench/report/fabric.h"
#include "distbench/report/report.h"

namespace distbench::op {

// The status carries this many suspects, slow ones first; the rest are
// counted (status.fabric.suspectsOmitted) and in the stored report.
inline constexpr std::size_t kMaxStatusSuspects = 16;
// Nodes one suspect lists (a link between two groups names many).
inline constexpr std::size_t kMaxSuspectNodes = 16;
// One Warning Event per slow suspect up to this many, then one Event that
// counts the others: a fabric with 200 bad nodes must not flood Events.
inline constexpr std::size_t kMaxSuspectEvents = 8;

// Event reasons.
inline constexpr const char* kEventSuspectNode = "SuspectNode";
inline constexpr const char* kEventSuspectLink = "SuspectLink";
inline constexpr const char* kEventSlowCompute = "SlowCompute";
inline constexpr const char* kEventFabricInconclusive = "FabricInconclusive";
inline constexpr const char* kEventFabricHealthy = "FabricHealthy";

// A Kubernetes node the verdict found slow, in its own right (its links
// with most peers, or its compute probe): what a node mark says.
struct SuspectNodeMark {
  std::string node;  // the Kubernetes node name
  std::string what;  // "node" | "compute"
  std::string evidence;
};

struct FabricOutcome {
  web::json::value status = web::json::value::object();  // status.fabric
  std::vector<kube::StatusEvent> events;
  std::vector<SuspectNodeMark> marks;  // only slow node/compute suspects on named nodes
};

// Throws report::ReportError where the report's results hold no readable
// fabric measurements.
FabricOutcome fabricOutcome(const report::Report& run, double thresholdPercent,
                            const report::FabricMeasurements* baseline = nullptr);

}  // namespace distbench::op
