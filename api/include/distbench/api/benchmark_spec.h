// The DistBenchmark resource (distbench.io/v1alpha1) as plain C++ values.
// Field names mirror the YAML/JSON keys one to one; defaults are the values of
// PyTorch's DDP+RPC benchmark (seed 000). No LibTorch or YAML types here, so
// the operator, the CLI and the worker can all include this cheaply.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distbench/api/regression_threshold.h"

namespace distbench::api {

inline constexpr const char* kApiVersion = "distbench.io/v1alpha1";
inline constexpr const char* kKind = "DistBenchmark";

struct ObjectMeta {
  std::string name;
  std::string namespace_ = "default";
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};

// metadata as the API server returns it: ObjectMeta and what a controller
// of the resource reads besides (a schedule, a preflight policy).
struct StoredObjectMeta : ObjectMeta {
  std::string uid;
  int64_t generation = 0;
  std::string creationTimestamp;  // RFC 3339, as the API server writes it
};

struct TopologySpec {
  int trainers = 8;  // spec.topology.trainers, >= 1: the ranks that train or communicate
  // HybridDDPRPC: >= 1, default 8. DDP, Collectives and Fabric have none: 0,
  // which is also their default when the field is absent.
  int parameterServers = 8;
};

enum class BenchmarkKind { HybridDDPRPC, DDP, Collectives, Fabric };
enum class EmbeddingMode { Sum, Mean, Max };
// How a parameter server orders lookups against other trainers' updates.
// Async is the seed's behaviour (distributed autograd + DistributedOptimizer:
// each trainer's step lands whenever it arrives). Sync holds a lookup for step
// s until every trainer's step s-1 update is applied, which makes the run
// deterministic and comparable to a single-process reference.
enum class ParameterServerMode { Async, Sync };

// Bounds on what one parameter server holds and one request carries, so
// every size derived from them (shard bytes, a lookup's indices and
// results) fits in 64 bits and in a machine: validation refuses more, and the
// parameter server refuses requests that announce more.
inline constexpr int64_t kMaxNumEmbeddings = int64_t{1} << 31;
inline constexpr int64_t kMaxEmbeddingDim = int64_t{1} << 16;
inline constexpr int64_t kMaxShardBytes = int64_t{16} << 30;  // 16 GiB
inline constexpr int kMaxBagIndices = 1 << 20;

struct HybridDDPRPCSpec {
  int64_t numEmbeddings = 300;  // rows per EmbeddingBag shard
  int64_t embeddingDim = 64;    // columns per shard; dense input = P * dim
  EmbeddingMode embeddingMode = EmbeddingMode::Sum;
  // Dense stack after the concatenated lookups: widths, with "ReLU" where an
  // activation goes. The last entry is the class count (targets 0..N-1).
  std::vector<std::string> denseLayers = {"256", "128", "ReLU", "64", "32", "8"};
  int epochs = 100;
  int warmupEpochs = 5;
  int batchesPerEpoch = 10;
  int minBagIndices = 20;  // indices per batch: uniform in [min, max]
  int maxBagIndices = 50;
  int maxOffsetStep = 10;  // offsets advance by 1..maxOffsetStep
  double learningRate = 0.05;
  ParameterServerMode parameterServerMode = ParameterServerMode::Async;
};

// PyTorch's DDP benchmark (seed 002): image models under DDP, swept over
// world sizes. Defaults are the seed's.
struct DDPSpec {
  // Any of resnet18, resnet50, resnet101, resnext50_32x4d, resnext101_32x8d,
  // smallcnn; each gets its own sweep and table.
  std::vector<std::string> models = {"resnet50", "resnet101", "resnext50_32x4d",
                                     "resnext101_32x8d"};
  int batchSize = 32;   // per replica
  int imageSize = 224;  // square RGB inputs
  int numClasses = 1000;
  int warmupIterations = 5;  // per sweep row, not measured
  int iterations = 10;       // measured per sweep row and rank
  double learningRate = 0.001;
  double momentum = 0.9;
  double weightDecay = 1e-4;
  // What one "machine" of the sweep holds: rows go 1, 2, 4, ... ranks on one
  // machine, then whole machines (the seed's 8 GPUs per machine).
  int ranksPerMachine = 8;
};

// Collective operations, as nccl-tests names its binaries.
enum class CollectiveOp {
  AllReduce,
  AllGather,
  Broadcast,
  Reduce,
  Scatter,
  Gather,
  ReduceScatter,
  AllToAll,
  SendRecv
};
enum class DType { Float32, Float64, Float16, BFloat16, Int32, Int64 };

// Collective benchmarks (seed 003), nccl-tests style: a size sweep per op
// and dtype, every result checked on its first iteration.
struct CollectivesSpec {
  std::vector<CollectiveOp> ops = {
      CollectiveOp::AllReduce,     CollectiveOp::AllGather, CollectiveOp::Broadcast,
      CollectiveOp::Reduce,        CollectiveOp::Scatter,   CollectiveOp::Gather,
      CollectiveOp::ReduceScatter, CollectiveOp::AllToAll,  CollectiveOp::SendRecv};
  std::vector<DType> dtypes = {DType::Float32};
  int64_t minBytes = 1024;
  int64_t maxBytes = 64LL << 20;
  int64_t stepFactor = 4;  // sizes minBytes, minBytes*f, ... up to maxBytes
  int warmupIterations = 5;
  int iterations = 20;
};

// Bounds of the Fabric kind's sizes: a message and the allreduce buffer
// (allocated once per rank; 4 GiB, as a Collectives maxBytes), and the
// compute probe's GEMM side (three n x n float32 matrices: 3 GiB at the
// largest).
inline constexpr int64_t kMaxFabricMessageBytes = int64_t{4} << 30;
inline constexpr int kMaxFabricMessageSizes = 16;
inline constexpr int kMaxFabricProbeSize = 16384;

// Finds the slow node or link of a group (docs/architecture.md, "Fabric"):
// one rank per node, each node's compute probe, every pair's point-to-point
// bandwidth and latency in both directions over rounds of disjoint pairs,
// then the whole group's ring allreduce. The master measures nothing.
struct FabricSpec {
  // Point-to-point message sizes: the smallest gives the latency figure,
  // the largest the bandwidth one.
  std::vector<int64_t> messageBytes = {4096, 4194304};
  int warmupSamples = 1;   // per pair, size and direction, not measured
  int samplesPerPair = 8;  // measured per pair, size and direction
  // The probe's square float32 GEMM side; 0: sized for the device (1024 on
  // the CPU, 10 to 50 ms a sample on one core; 8192 on a GPU).
  int computeProbeSize = 0;
  int computeProbeSamples = 10;
  int64_t allreduceBytes = 4194304;
  int allreduceIterations = 10;
  // The smallest slowdown the verdict names, in percent of the group's
  // figure: how far a node or link lies below its group, not the
  // regression threshold of spec.baseline (regression_threshold.h).
  double thresholdPercent = 25;
  // Up to this many nodes every pair is measured; past it the planner
  // measures a first pass and then around suspects (report/fabric_plan.h).
  int allPairsUpTo = 16;
  // Kubernetes node names, trainer i on nodes[i] (the operator pins the
  // pods); empty: the scheduler chooses. Written only when given.
  std::vector<std::string> nodes;
  // Required pod anti-affinity on kubernetes.io/hostname between the ranks;
  // false lets one node hold several (a one-node test cluster).
  bool onePerNode = true;
};

struct BenchmarkSpec {
  BenchmarkKind kind = BenchmarkKind::HybridDDPRPC;
  int64_t seed = 0;
  double bucketCapMB = 25.0;  // DDP gradient bucket cap; first bucket <= 1 MiB
  // Only the section of `kind` may be given; the others keep their defaults.
  HybridDDPRPCSpec hybridDDPRPC;
  DDPSpec ddp;
  CollectivesSpec collectives;
  FabricSpec fabric;
};

// Gloo on CPU, NCCL on CUDA (one GPU per rank), or Gloo on CUDA tensors,
// where several ranks may share one GPU. NCCL on CPU is refused.
enum class Backend { Gloo, NCCL };
enum class Device { CPU, CUDA };

// spec.runtime.gpusPerRank: what each trainer pod requests as nvidia.com/gpu
// with device cuda. Only trainers compute on a GPU, in every kind; the master
// and the parameter servers (whose embedding shards stay on CPU) ask for none.
inline constexpr int kDefaultGpusPerRank = 1;
inline constexpr int kMaxGpusPerRank = 16;

struct RuntimeSpec {
  Backend backend = Backend::Gloo;
  Device device = Device::CPU;
  // Absent: kDefaultGpusPerRank with device cuda. Only allowed with device
  // cuda, so absent is also what a CPU run has (and what the CRD stores: it
  // cannot default a field whose default depends on another).
  std::optional<int> gpusPerRank;
  int masterPort = 29500;
  int metricsPort = 9400;
  int rendezvousTimeoutSeconds = 300;  // every rank joined, or all give up
  int peerTimeoutSeconds = 60;         // longest wait on any one peer message
  int metricsLingerSeconds = 30;       // keep /metrics up after the run
  // LibTorch intra-op threads per rank. Ranks share the machine's cores, so
  // one each keeps them from preempting one another; 0: LibTorch's default.
  int intraOpThreads = 1;
  // Empty: the operator's default worker image for the device (its
  // --worker-image, or --cuda-worker-image with device cuda), so a resource
  // need not know which image a cluster runs.
  std::string image;
};

// GPUs each trainer requests: 0 on CPU, else gpusPerRank or its default.
inline int gpusPerTrainer(const RuntimeSpec& r) {
  return r.device == Device::CUDA ? r.gpusPerRank.value_or(kDefaultGpusPerRank) : 0;
}

// Which pods the operator deletes once the benchmark has finished
// (Kubeflow's cleanPodPolicy): Running (default) deletes those still running
// or pending, so nothing lingers and finished pods keep their logs; All
// deletes every pod; None leaves them.
enum class CleanPodPolicy { Running, All, None };

// spec.runPolicy: what the operator does when ranks fail or take too long.
struct RunPolicy {
  // Gang restarts allowed after a rank fails; the next failure is Failed
  // (BackoffLimitExceeded). 0: the first failure is final.
  int backoffLimit = 3;
  // Seconds from the first pod's creation until the benchmark is Failed
  // (DeadlineExceeded) and its pods deleted. Absent: no deadline.
  std::optional<int64_t> activeDeadlineSeconds;
  // Seconds after Succeeded or Failed before the resource itself is
  // deleted (and its children with it). Absent: kept.
  std::optional<int64_t> ttlSecondsAfterFinished;
  CleanPodPolicy cleanPodPolicy = CleanPodPolicy::Running;
};

// A Toleration as in core/v1.
struct Toleration {
  std::string key;
  std::string operator_ = "Equal";  // Equal | Exists
  std::string value;
  std::string effect;  // "", NoSchedule, PreferNoSchedule, NoExecute
  std::optional<int64_t> tolerationSeconds;
};

// Overrides of the Pod Security Standards "restricted" profile that gang
// pods get by default (docs/crd-reference.md): an unset field keeps the
// restricted value. Field names are core/v1's.
struct SeccompProfile {
  std::string type;              // RuntimeDefault | Localhost | Unconfined
  std::string localhostProfile;  // Localhost only
};

// spec.podTemplates.<role>.podSecurityContext (core/v1 PodSecurityContext)
struct PodSecurityOverrides {
  std::optional<bool> runAsNonRoot;
  std::optional<int64_t> runAsUser;
  std::optional<int64_t> runAsGroup;
  std::optional<int64_t> fsGroup;
  std::optional<SeccompProfile> seccompProfile;
};

// spec.podTemplates.<role>.securityContext (core/v1 SecurityContext of the
// worker container)
struct ContainerSecurityOverrides {
  std::optional<bool> allowPrivilegeEscalation;
  std::optional<bool> readOnlyRootFilesystem;
  std::optional<std::vector<std::string>> capabilitiesAdd;   // capabilities.add
  std::optional<std::vector<std::string>> capabilitiesDrop;  // capabilities.drop
};

// Where and how one role's pods run. Quantities are Kubernetes quantity
// strings ("2", "500m", "4Gi", "1" for nvidia.com/gpu).
struct PodTemplate {
  std::string image;  // empty: spec.runtime.image, then the operator's default
  std::map<std::string, std::string> requests;  // resources.requests
  std::map<std::string, std::string> limits;    // resources.limits
  std::map<std::string, std::string> nodeSelector;
  std::vector<Toleration> tolerations;
  PodSecurityOverrides podSecurityContext;
  ContainerSecurityOverrides securityContext;
};

// spec.podTemplates: one per role.
struct PodTemplates {
  PodTemplate master;
  PodTemplate parameterServer;
  PodTemplate trainer;
};

// A key of a ConfigMap in the benchmark's namespace.
struct ConfigMapKeyRef {
  std::string name;
  std::string key;
};

// spec.baseline: the report this run's report is compared with once it has
// Succeeded, as `distbench diff --threshold` compares two files. The
// operator does it (docs/crd-reference.md); `distbench run` has no cluster to
// read a baseline from and says so. Exactly one source is set.
struct Baseline {
  // Another DistBenchmark in the same namespace: the report the operator
  // stored for it (ConfigMap <benchmark>-report).
  std::optional<std::string> benchmark;
  // A ConfigMap key holding a report's JSON (`distbench run --report`'s file,
  // put there with kubectl create configmap --from-file).
  std::optional<ConfigMapKeyRef> configMap;
  // A row regresses when its median is slower by more than this many
  // percent and the bootstrap interval of the change lies above 0
  // (regression_threshold.h: its default and rule).
  double thresholdPercent = kDefaultRegressionThresholdPercent;
};

// spec.local: what `distbench run` emulates on one machine, the same as its
// --links and --slow flags (docs/cli.md), which override it. Ranks are named
// "rank5" or by label ("master", "ps0", "trainer2"); rates ("100mbit") and
// caps ("50%", "0.25") are kept as written and checked by validation
// (local_spec.h). The operator ignores the block: it cannot shape a
// cluster's links.
// A pair ("trainer1-trainer3", unordered) is the link between two ranks:
// traffic between them runs at its rate both ways, whatever either rank's
// own rate; each rank's other traffic keeps its own.
struct LocalLinks {
  std::optional<std::string> bandwidth;      // every rank's link
  std::map<std::string, std::string> ranks;  // rank -> its own link's rate
  std::map<std::string, std::string> pairs;  // "rankA-rankB" -> their link's rate
};
struct LocalSlowRank {
  std::string cpu;  // the rank's CPU cap: "50%", or a fraction of one CPU
};
struct LocalSpec {
  std::optional<LocalLinks> links;             // absent: ranks share loopback
  std::map<std::string, LocalSlowRank> slow;   // rank -> its cap
};

struct DistBenchmarkSpec {
  TopologySpec topology;
  BenchmarkSpec benchmark;
  RuntimeSpec runtime;
  RunPolicy runPolicy;
  PodTemplates podTemplates;
  std::optional<Baseline> baseline;  // absent: nothing is compared
  std::optional<LocalSpec> local;    // absent: nothing is emulated
};

struct DistBenchmark {
  std::string apiVersion = kApiVersion;
  std::string kind = kKind;
  ObjectMeta metadata;
  DistBenchmarkSpec spec;
};

// The most ranks (master + parameter servers + trainers) one benchmark may
// have: bounds what the operator renders into one ConfigMap and set of pods,
// and what any rank allocates per peer.
inline constexpr int64_t kMaxWorldSize = 4096;

// Total ranks: master + parameter servers + trainers, in 64 bits so that an
// unvalidated spec cannot overflow it.
inline int64_t worldSize(const DistBenchmarkSpec& s) {
  return 1 + static_cast<int64_t>(s.topology.parameterServers) + s.topology.trainers;
}

// Field-by-field equality: round-trip tests, and the operator's "has the
// spec changed" check.
bool operator==(const ObjectMeta&, const ObjectMeta&);
bool operator==(const TopologySpec&, const TopologySpec&);
bool operator==(const HybridDDPRPCSpec&, const HybridDDPRPCSpec&);
bool operator==(const DDPSpec&, const DDPSpec&);
bool operator==(const CollectivesSpec&, const CollectivesSpec&);
bool operator==(const FabricSpec&, const FabricSpec&);
bool operator==(const BenchmarkSpec&, const BenchmarkSpec&);
bool operator==(const RuntimeSpec&, const RuntimeSpec&);
bool operator==(const RunPolicy&, const RunPolicy&);
bool operator==(const Toleration&, const Toleration&);
bool operator==(const SeccompProfile&, const SeccompProfile&);
bool operator==(const PodSecurityOverrides&, const PodSecurityOverrides&);
bool operator==(const ContainerSecurityOverrides&, const ContainerSecurityOverrides&);
bool operator==(const PodTemplate&, const PodTemplate&);
bool operator==(const PodTemplates&, const PodTemplates&);
bool operator==(const ConfigMapKeyRef&, const ConfigMapKeyRef&);
bool operator==(const Baseline&, const Baseline&);
bool operator==(const LocalLinks&, const LocalLinks&);
bool operator==(const LocalSlowRank&, const LocalSlowRank&);
bool operator==(const LocalSpec&, const LocalSpec&);
bool operator==(const DistBenchmarkSpec&, const DistBenchmarkSpec&);
bool operator==(const DistBenchmark&, const DistBenchmark&);
inline bool operator!=(const ObjectMeta& a, const ObjectMeta& b) { return !(a == b); }
inline bool operator!=(const TopologySpec& a, const TopologySpec& b) { return !(a == b); }
inline bool operator!=(const HybridDDPRPCSpec& a, const HybridDDPRPCSpec& b) { return !(a == b); }
inline bool operator!=(const DDPSpec& a, const DDPSpec& b) { return !(a == b); }
inline bool operator!=(const CollectivesSpec& a, const CollectivesSpec& b) { return !(a == b); }
inline bool operator!=(const FabricSpec& a, const FabricSpec& b) { return !(a == b); }
inline bool operator!=(const BenchmarkSpec& a, const BenchmarkSpec& b) { return !(a == b); }
inline bool operator!=(const RuntimeSpec& a, const RuntimeSpec& b) { return !(a == b); }
inline bool operator!=(const DistBenchmarkSpec& a, const DistBenchmarkSpec& b) { return !(a == b); }
inline bool operator!=(const DistBenchmark& a, const DistBenchmark& b) { return !(a == b); }

const char* toString(BenchmarkKind);
const char* toString(EmbeddingMode);
const char* toString(ParameterServerMode);
const char* toString(CollectiveOp);  // allreduce, allgather, ..., sendrecv
const char* toString(DType);         // float32, float64, float16, bfloat16, int32, int64
// Bytes per element of `dtype`.
int dtypeSize(DType);
const char* toString(Backend);
const char* toString(Device);
const char* toString(CleanPodPolicy);  // Running, All, None

}  // namespace distbench::api
