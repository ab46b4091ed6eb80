#include "distbench/api/benchmark_spec.h"

#include <tuple>

namespace distbench::api {

bool operator==(const ObjectMeta& a, const ObjectMeta& b) {
  return std::tie(a.name, a.namespace_, a.labels, a.annotations) ==
         std::tie(b.name, b.namespace_, b.labels, b.annotations);
}

bool operator==(const TopologySpec& a, const TopologySpec& b) {
  return a.trainers == b.trainers && a.parameterServers == b.parameterServers;
}

bool operator==(const HybridDDPRPCSpec& a, const HybridDDPRPCSpec& b) {
  return std::tie(a.numEmbeddings, a.embeddingDim, a.embeddingMode, a.denseLayers, a.epochs,
                  a.warmupEpochs, a.batchesPerEpoch, a.minBagIndices, a.maxBagIndices,
                  a.maxOffsetStep, a.learningRate, a.parameterServerMode) ==
         std::tie(b.numEmbeddings, b.embeddingDim, b.embeddingMode, b.denseLayers, b.epochs,
                  b.warmupEpochs, b.batchesPerEpoch, b.minBagIndices, b.maxBagIndices,
                  b.maxOffsetStep, b.learningRate, b.parameterServerMode);
}

bool operator==(const DDPSpec& a, const DDPSpec& b) {
  return std::tie(a.models, a.batchSize, a.imageSize, a.numClasses, a.warmupIterations,
                  a.iterations, a.learningRate, a.momentum, a.weightDecay, a.ranksPerMachine) ==
         std::tie(b.models, b.batchSize, b.imageSize, b.numClasses, b.warmupIterations,
                  b.iterations, b.learningRate, b.momentum, b.weightDecay, b.ranksPerMachine);
}

bool operator==(const CollectivesSpec& a, const CollectivesSpec& b) {
  return std::tie(a.ops, a.dtypes, a.minBytes, a.maxBytes, a.stepFactor, a.warmupIterations,
                  a.iterations) == std::tie(b.ops, b.dtypes, b.minBytes, b.maxBytes, b.stepFactor,
                                            b.warmupIterations, b.iterations);
}

bool operator==(const FabricSpec& a, const FabricSpec& b) {
  return std::tie(a.messageBytes, a.warmupSamples, a.samplesPerPair, a.computeProbeSize,
                  a.computeProbeSamples, a.allreduceBytes, a.allreduceIterations,
                  a.thresholdPercent, a.allPairsUpTo, a.nodes, a.onePerNode) ==
         std::tie(b.messageBytes, b.warmupSamples, b.samplesPerPair, b.computeProbeSize,
                  b.computeProbeSamples, b.allreduceBytes, b.allreduceIterations,
                  b.thresholdPercent, b.allPairsUpTo, b.nodes, b.onePerNode);
}

bool operator==(const BenchmarkSpec& a, const BenchmarkSpec& b) {
  return std::tie(a.kind, a.seed, a.bucketCapMB, a.hybridDDPRPC, a.ddp, a.collectives, a.fabric) ==
         std::tie(b.kind, b.seed, b.bucketCapMB, b.hybridDDPRPC, b.ddp, b.collectives, b.fabric);
}

bool operator==(const RuntimeSpec& a, const RuntimeSpec& b) {
  return std::tie(a.backend, a.device, a.gpusPerRank, a.masterPort, a.metricsPort,
                  a.rendezvousTimeoutSeconds, a.peerTimeoutSeconds, a.metricsLingerSeconds,
                  a.intraOpThreads, a.image) ==
         std::tie(b.backend, b.device, b.gpusPerRank, b.masterPort, b.metricsPort,
                  b.rendezvousTimeoutSeconds, b.peerTimeoutSeconds, b.metricsLingerSeconds,
                  b.intraOpThreads, b.image);
}

bool operator==(const RunPolicy& a, const RunPolicy& b) {
  return std::tie(a.backoffLimit, a.activeDeadlineSeconds, a.ttlSecondsAfterFinished,
                  a.cleanPodPolicy) == std::tie(b.backoffLimit, b.activeDeadlineSeconds,
                                                b.ttlSecondsAfterFinished, b.cleanPodPolicy);
}

bool operator==(const Toleration& a, const Toleration& b) {
  return std::tie(a.key, a.operator_, a.value, a.effect, a.tolerationSeconds) ==
         std::tie(b.key, b.operator_, b.value, b.effect, b.tolerationSeconds);
}

bool operator==(const SeccompProfile& a, const SeccompProfile& b) {
  return std::tie(a.type, a.localhostProfile) == std::tie(b.type, b.localhostProfile);
}

bool operator==(const PodSecurityOverrides& a, const PodSecurityOverrides& b) {
  return std::tie(a.runAsNonRoot, a.runAsUser, a.runAsGroup, a.fsGroup, a.seccompProfile) ==
         std::tie(b.runAsNonRoot, b.runAsUser, b.runAsGroup, b.fsGroup, b.seccompProfile);
}

bool operator==(const ContainerSecurityOverrides& a, const ContainerSecurityOverrides& b) {
  return std::tie(a.allowPrivilegeEscalation, a.readOnlyRootFilesystem, a.capabilitiesAdd,
                  a.capabilitiesDrop) == std::tie(b.allowPrivilegeEscalation,
                                                  b.readOnlyRootFilesystem, b.capabilitiesAdd,
                                                  b.capabilitiesDrop);
}

bool operator==(const PodTemplate& a, const PodTemplate& b) {
  return std::tie(a.image, a.requests, a.limits, a.nodeSelector, a.tolerations,
                  a.podSecurityContext, a.securityContext) ==
         std::tie(b.image, b.requests, b.limits, b.nodeSelector, b.tolerations,
                  b.podSecurityContext, b.securityContext);
}

bool operator==(const PodTemplates& a, const PodTemplates& b) {
  return std::tie(a.master, a.parameterServer, a.trainer) ==
         std::tie(b.master, b.parameterServer, b.trainer);
}

bool operator==(const ConfigMapKeyRef& a, const ConfigMapKeyRef& b) {
  return std::tie(a.name, a.key) == std::tie(b.name, b.key);
}

bool operator==(const Baseline& a, const Baseline& b) {
  return std::tie(a.benchmark, a.configMap, a.thresholdPercent) ==
         std::tie(b.benchmark, b.configMap, b.thresholdPercent);
}

bool operator==(const LocalLinks& a, const LocalLinks& b) {
  return std::tie(a.bandwidth, a.ranks) == std::tie(b.bandwidth, b.ranks);
}

bool operator==(const LocalSlowRank& a, const LocalSlowRank& b) { return a.cpu == b.cpu; }

bool operator==(const LocalSpec& a, const LocalSpec& b) {
  return std::tie(a.links, a.slow) == std::tie(b.links, b.slow);
}

bool operator==(const DistBenchmarkSpec& a, const DistBenchmarkSpec& b) {
  return a.topology == b.topology && a.benchmark == b.benchmark && a.runtime == b.runtime &&
         a.runPolicy == b.runPolicy && a.podTemplates == b.podTemplates &&
         a.baseline == b.baseline && a.local == b.local;
}

bool operator==(const DistBenchmark& a, const DistBenchmark& b) {
  return a.apiVersion == b.apiVersion && a.kind == b.kind && a.metadata == b.metadata &&
         a.spec == b.spec;
}

// These spellings are the YAML/JSON enum values; the parser matches against them.
const char* toString(BenchmarkKind kind) {
  switch (kind) {
    case BenchmarkKind::HybridDDPRPC:
      return "HybridDDPRPC";
    case BenchmarkKind::DDP:
      return "DDP";
    case BenchmarkKind::Collectives:
      return "Collectives";
    case BenchmarkKind::Fabric:
      return "Fabric";
  }
  return "?";
}

const char* toString(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::AllReduce:
      return "allreduce";
    case CollectiveOp::AllGather:
      return "allgather";
    case CollectiveOp::Broadcast:
      return "broadcast";
    case CollectiveOp::Reduce:
      return "reduce";
    case CollectiveOp::Scatter:
      return "scatter";
    case CollectiveOp::Gather:
      return "gather";
    case CollectiveOp::ReduceScatter:
      return "reducescatter";
    case CollectiveOp::AllToAll:
      return "alltoall";
    case CollectiveOp::SendRecv:
      return "sendrecv";
  }
  return "?";
}

const char* toString(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return "float32";
    case DType::Float64:
      return "float64";
    case DType::Float16:
      return "float16";
    case DType::BFloat16:
      return "bfloat16";
    case DType::Int32:
      return "int32";
    case DType::Int64:
      return "int64";
  }
  return "?";
}

int dtypeSize(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return 4;
    case DType::Float64:
      return 8;
    case DType::Float16:
      return 2;
    case DType::BFloat16:
      return 2;
    case DType::Int32:
      return 4;
    case DType::Int64:
      return 8;
  }
  return 1;
}

const char* toString(EmbeddingMode mode) {
  switch (mode) {
    case EmbeddingMode::Sum:
      return "sum";
    case EmbeddingMode::Mean:
      return "mean";
    case EmbeddingMode::Max:
      return "max";
  }
  return "?";
}

const char* toString(ParameterServerMode mode) {
  switch (mode) {
    case ParameterServerMode::Async:
      return "Async";
    case ParameterServerMode::Sync:
      return "Sync";
  }
  return "?";
}

const char* toString(Backend backend) {
  switch (backend) {
    case Backend::Gloo:
      return "gloo";
    case Backend::NCCL:
      return "nccl";
  }
  return "?";
}

const char* toString(Device device) {
  switch (device) {
    case Device::CPU:
      return "cpu";
    case Device::CUDA:
      return "cuda";
  }
  return "?";
}

const char* toString(CleanPodPolicy policy) {
  switch (policy) {
    case CleanPodPolicy::Running:
      return "Running";
    case CleanPodPolicy::All:
      return "All";
    case CleanPodPolicy::None:
      return "None";
  }
  return "?";
}

}  // namespace distbench::api
