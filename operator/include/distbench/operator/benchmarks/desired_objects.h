// What a DistBenchmark becomes in the cluster, as the JSON the API server
// takes: a ConfigMap with the worker config, a headless Service that gives
// every pod a DNS name, a ClusterIP Service in front of the master (its IP
// is MASTER_ADDR, so no rank waits for DNS records that may not exist yet)
// whose endpoints the operator writes itself, and a pod per rank. Built from the shared renderer, so pods get exactly
// the environment local runs get. Everything carries the distbench.io labels
// (common/labels.h) and a controller ownerReference to the resource.
#pragma once

#include <cpprest/json.h>

#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/operator/common/labels.h"
#include "distbench/operator/common/worker_images.h"

namespace distbench::op {

inline constexpr const char* kConfigFile = "config.yaml";
inline constexpr const char* kConfigDir = "/etc/distbench";
// The run key's Secret (desiredRunKeySecret), mounted read-only into every
// gang pod: its one data key, and where the ranks find it.
inline constexpr const char* kRunKeyFile = "key";
inline constexpr const char* kRunKeyDir = "/var/run/distbench/run-key";

// Where the worker may write: an emptyDir, since the root filesystem is
// read-only under the restricted profile.
inline constexpr const char* kScratchDir = "/tmp";
// Its emptyDir's sizeLimit: the worker writes only small files there.
inline constexpr const char* kScratchSizeLimit = "1Gi";
// Seconds between SIGTERM and SIGKILL for gang pods: every role exits
// promptly on SIGTERM, so a deleted rank frees its gang in seconds.
inline constexpr int kTerminationGraceSeconds = 5;
// The restricted profile's user: the worker image's own non-root user.
inline constexpr int64_t kWorkerUid = 65532;
// The extended resource the NVIDIA device plugin advertises: a container
// asking for N gets N GPUs, numbered from 0 inside it.
inline constexpr const char* kGpuResource = "nvidia.com/gpu";

struct Owner {
  std::string name;
  std::string uid;
};

// Operator-wide choices for what is rendered (chart values, flags).
struct ClusterOptions {
  // NetworkPolicyPeers allowed to scrape the gang's metrics port; empty:
  // any source (the metrics port is the one open to pods outside the gang).
  web::json::value metricsFrom = web::json::value::array();
  // The worker image of pods whose resource names none, by device.
  WorkerImages workerImages;
  // Accept podTemplates overrides that leave Pod Security "restricted"
  // (api/pod_security_profile.h); false: such a benchmark is InvalidSpec.
  bool allowPrivilegedOverrides = false;
};

web::json::value desiredConfigMap(const api::DistBenchmark& b, const Owner& owner);
// <name>-report, holding `data` (the run's report, and the diff against
// spec.baseline): created once the run has Succeeded and kept after
// clean-up, until the benchmark itself goes.
web::json::value desiredReportConfigMap(const api::DistBenchmark& b, const Owner& owner,
                                        web::json::value data);
// <name>-logs, holding `data` (failed_rank_logs.h): made at the first gang
// restart or failure, kept until the benchmark itself goes.
web::json::value desiredRankLogsConfigMap(const api::DistBenchmark& b, const Owner& owner,
                                          web::json::value data);
web::json::value desiredHeadlessService(const api::DistBenchmark& b, const Owner& owner);
// <name>-run-key: `runKey` (api/run_key.h), which only the gang's pods mount,
// so that a client that reaches the master's store cannot name the run's
// keys in it. Immutable: one key for the benchmark's lifetime, every gang.
web::json::value desiredRunKeySecret(const api::DistBenchmark& b, const Owner& owner,
                                     const std::string& runKey);
// No selector: a label is no proof of membership (anyone who may create a
// pod may label it role=master), so the operator writes the Service's
// endpoints itself from the master pod it created (desiredMasterEndpoints).
web::json::value desiredMasterService(const api::DistBenchmark& b, const Owner& owner);
// The master Service's Endpoints: `masterPod`'s IP (status.podIP, which must
// be set) and the store port, the pod named in targetRef. Not-ready
// addresses count: ranks reach the store during rendezvous, before any
// readiness could be known.
web::json::value desiredMasterEndpoints(const api::DistBenchmark& b, const Owner& owner,
                                        const web::json::value& masterPod);
// The same with no address: while the gang has no master pod with an IP.
web::json::value desiredMasterEndpoints(const api::DistBenchmark& b, const Owner& owner);
// Ingress to the gang's pods only from pods of the same benchmark, except
// the metrics port, open to `options.metricsFrom`: no other pod can reach
// the master's store or the ranks' Gloo and parameter-server ports.
web::json::value desiredNetworkPolicy(const api::DistBenchmark& b, const Owner& owner,
                                      const ClusterOptions& options);
// The Pod Security Standards "restricted" profile, with the role template's
// overrides applied: {pod securityContext, container securityContext}.
std::pair<web::json::value, web::json::value> securityContexts(const api::PodTemplate& t);
// `masterAddr`: the master Service's ClusterIP. `gang`: how many times the
// gang has been restarted, so a new gang's pods never mix with the old.
// `options.workerImages`: the image of pods whose resource names none. With
// device cuda every trainer requests spec.runtime.gpusPerRank GPUs
// (kGpuResource, limits and requests alike) unless its template names them.
std::vector<web::json::value> desiredPods(const api::DistBenchmark& b, const Owner& owner,
                                          const std::string& masterAddr, int gang,
                                          const ClusterOptions& options);

}  // namespace distbench::op
