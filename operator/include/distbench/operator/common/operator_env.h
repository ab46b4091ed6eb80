// The environment the operator reads about itself. The chart's Deployment
// sets POD_NAME and POD_NAMESPACE from the downward API
// (charts/distbench-operator/templates/deployment.yaml); NODE_NAME only if
// extraEnv does; the kubelet sets HOSTNAME. The workers' environment is
// api/worker_env.h; POD_NAME means the same in both, so it is named once,
// there.
#pragma once

#include "distbench/api/worker_env.h"

namespace distbench::op {

// The Lease holder's identity (leader election); unset: the host name.
inline constexpr const char* kEnvPodName = api::kEnvPodName;
// Where the Lease lives unless --leader-election-namespace says; unset:
// "default".
inline constexpr const char* kEnvPodNamespace = "POD_NAMESPACE";
// The Events' source host; unset: HOSTNAME (the pod's host name).
inline constexpr const char* kEnvNodeName = "NODE_NAME";
inline constexpr const char* kEnvHostname = "HOSTNAME";

}  // namespace distbench::op
