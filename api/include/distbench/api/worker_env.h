// Every environment variable a worker rank reads or is given, in one place,
// so that the renderer, `distbench run`, the operator and the worker cannot
// spell a name differently (docs/architecture.md, "Ranks and the environment
// contract"). The comment on each group says who sets it, because not all of
// them come out of api::render.
#pragma once

namespace distbench::api {

// Set by the renderer for every rank.
inline constexpr const char* kEnvRank = "RANK";
inline constexpr const char* kEnvWorldSize = "WORLD_SIZE";
inline constexpr const char* kEnvMasterAddr = "MASTER_ADDR";
inline constexpr const char* kEnvMasterPort = "MASTER_PORT";
inline constexpr const char* kEnvRole = "DISTBENCH_ROLE";
inline constexpr const char* kEnvRoleIndex = "DISTBENCH_ROLE_INDEX";
inline constexpr const char* kEnvNumPs = "DISTBENCH_NUM_PS";
inline constexpr const char* kEnvNumTrainers = "DISTBENCH_NUM_TRAINERS";
inline constexpr const char* kEnvConfig = "DISTBENCH_CONFIG";
inline constexpr const char* kEnvBenchmarkName = "DISTBENCH_BENCHMARK";
inline constexpr const char* kEnvMetricsPort = "DISTBENCH_METRICS_PORT";
inline constexpr const char* kEnvMetricsLinger = "DISTBENCH_METRICS_LINGER_SECONDS";
// Set by the renderer only when RenderOptions::metricsAddress is (`distbench
// run`: 127.0.0.1). Unset, as in pods, /metrics listens on every interface,
// since a scraper reaches a pod at its IP.
inline constexpr const char* kEnvMetricsAddress = "DISTBENCH_METRICS_ADDRESS";

// Set by the renderer on trainers only, the ranks that use GPUs, with
// torchrun's names and meaning: among the trainers that share this rank's
// node, this rank's index and their count. In pods (one rank each) 0 and 1;
// with RenderOptions::ranksShareHost (`distbench run`) the trainer index and
// the number of trainers. A CUDA trainer picks its GPU from LOCAL_RANK
// (modulo the GPUs it sees), and NCCL refuses more ranks on a node than it
// sees GPUs. Set whatever the device; CPU runs ignore them.
inline constexpr const char* kEnvLocalRank = "LOCAL_RANK";
inline constexpr const char* kEnvLocalWorldSize = "LOCAL_WORLD_SIZE";

// Trainers print progress lines (progress_line.h): `distbench run` shows
// them, the operator reads trainer 0's into status.progress. Any value
// turns it on.
inline constexpr const char* kEnvProgress = "DISTBENCH_PROGRESS";

// Set by the operator on worker pods from the downward API, since only the
// kubelet knows them: the address Gloo binds to (status.podIP) and the pod's
// own name (metadata.name). Unset outside a cluster.
inline constexpr const char* kEnvPodIp = "POD_IP";
inline constexpr const char* kEnvPodName = "POD_NAME";
// Set by the operator on Fabric trainer pods from the downward API
// (spec.nodeName): the node a rank measures, named in the Fabric report.
// Unset outside a cluster, where each rank is its own "node".
inline constexpr const char* kEnvNodeName = "DISTBENCH_NODE_NAME";

// Set by the operator on the master pod only, so that it can read the full
// JSON report from the pod's log (pods/log) after the run: the master then
// prints it to stdout in a frame (distbench/report/report_log.h). Any
// non-empty value turns it on; the pods need no API credentials for it.
inline constexpr const char* kEnvReportToLog = "DISTBENCH_REPORT_TO_LOG";

// Set by the renderer when RenderOptions::runKeyFile is (the operator: a
// file of the run's Secret; `distbench run`: a file in its temporary
// directory, mode 0600). The file holds the run key (api/run_key.h): every
// key a rank reads or writes in the rendezvous store lives under a prefix
// made from it, so a client that reached the store without the key can
// neither join the gang nor touch its control keys. Unset: no prefix.
inline constexpr const char* kEnvRunKeyFile = "DISTBENCH_RUN_KEY_FILE";

// Set by nobody in production: tests point the master's result summary at a
// file of their own instead of /dev/termination-log.
inline constexpr const char* kEnvTerminationLog = "DISTBENCH_TERMINATION_LOG";

}  // namespace distbench::api
