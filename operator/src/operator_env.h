// The environment the operator reads about itself, set by the chart's
// Deployment from the downward API (charts/distbench-operator/templates/
// deployment.yaml). The workers' environment is api/worker_env.h; POD_NAME
// means the same in both, so it is named once, there.
#pragma once

#include "distbench/api/worker_env.h"

namespace distbench::op {

// The Lease holder's identity (leader election); unset: the host name.
inline constexpr const char* kEnvPodName = api::kEnvPodName;
// Where the Lease lives unless --leader-election-namespace says; unset:
// "default".
inline constexpr const char* kEnvPodNamespace = "POD_NAMESPACE";
// The Events' source host; unset: HOSTNAME.
inline constexpr const char* kEnvNodeName = "NODE_NAME";
inline constexpr const char* kEnvHostname = "HOSTNAME";

}  // namespace distbench::op
