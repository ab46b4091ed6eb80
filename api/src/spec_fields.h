// The field tables of the spec sections whose fields are all plain values:
// each section's keys, the member each key holds, and (for enumerations) the
// values a document may spell, written once. spec_yaml.cpp reads a document
// through them and spec_to_tree.cpp writes one, so the two directions cannot
// disagree on a key, a member or (for writing) the order. Internal to
// distbench_api.
//
// A table is a function template that calls `field(key, member[, extra])`
// once per field, in the order the fields are written; `Section` is the
// section type, const for writing. What `field` does with each member
// follows from its type:
//   integer, bool, double, std::string, std::vector<std::string>,
//     std::vector<int64_t>: the plain value
//   std::optional<integer>: only when given / set
//   an enum E, with the values allowed: one of those, by toString
//   std::vector<E>, with the values allowed: a list of them
//   std::vector<std::string> with kDenseLayerTokens: dense layer tokens
//     (strings or integers, spec.benchmark.hybridDDPRPC.denseLayers)
//   std::vector<std::string> with kWrittenWhenGiven: a list written only
//     when not empty, for a list whose absence means "none given"
//     (spec.benchmark.fabric.nodes)
//
// Sections with more to them than that (presence that changes defaults,
// Kubernetes-shaped objects whose optional parts are written only in some
// combinations) keep their hand-written reader and writer.
#pragma once

#include <optional>
#include <type_traits>

#include "distbench/api/benchmark_spec.h"

namespace distbench::api::detail {

template <typename T>
inline constexpr bool kIsOptional = false;
template <typename T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

struct DenseLayerTokens {};
inline constexpr DenseLayerTokens kDenseLayerTokens{};
struct WrittenWhenGiven {};
inline constexpr WrittenWhenGiven kWrittenWhenGiven{};

template <typename Section, typename Field>
void hybridFields(Section& h, Field&& field) {
  static_assert(std::is_same_v<std::remove_const_t<Section>, HybridDDPRPCSpec>);
  field("numEmbeddings", h.numEmbeddings);
  field("embeddingDim", h.embeddingDim);
  field("embeddingMode", h.embeddingMode,
        {EmbeddingMode::Sum, EmbeddingMode::Mean, EmbeddingMode::Max});
  field("denseLayers", h.denseLayers, kDenseLayerTokens);
  field("epochs", h.epochs);
  field("warmupEpochs", h.warmupEpochs);
  field("batchesPerEpoch", h.batchesPerEpoch);
  field("minBagIndices", h.minBagIndices);
  field("maxBagIndices", h.maxBagIndices);
  field("maxOffsetStep", h.maxOffsetStep);
  field("learningRate", h.learningRate);
  field("parameterServerMode", h.parameterServerMode,
        {ParameterServerMode::Async, ParameterServerMode::Sync});
}

template <typename Section, typename Field>
void ddpFields(Section& d, Field&& field) {
  static_assert(std::is_same_v<std::remove_const_t<Section>, DDPSpec>);
  field("models", d.models);
  field("batchSize", d.batchSize);
  field("imageSize", d.imageSize);
  field("numClasses", d.numClasses);
  field("warmupIterations", d.warmupIterations);
  field("iterations", d.iterations);
  field("learningRate", d.learningRate);
  field("momentum", d.momentum);
  field("weightDecay", d.weightDecay);
  field("ranksPerMachine", d.ranksPerMachine);
}

template <typename Section, typename Field>
void collectivesFields(Section& c, Field&& field) {
  static_assert(std::is_same_v<std::remove_const_t<Section>, CollectivesSpec>);
  field("ops", c.ops,
        {CollectiveOp::AllReduce, CollectiveOp::AllGather, CollectiveOp::Broadcast,
         CollectiveOp::Reduce, CollectiveOp::Scatter, CollectiveOp::Gather,
         CollectiveOp::ReduceScatter, CollectiveOp::AllToAll, CollectiveOp::SendRecv});
  field("dtypes", c.dtypes,
        {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16, DType::Int32,
         DType::Int64});
  field("minBytes", c.minBytes);
  field("maxBytes", c.maxBytes);
  field("stepFactor", c.stepFactor);
  field("warmupIterations", c.warmupIterations);
  field("iterations", c.iterations);
}

template <typename Section, typename Field>
void fabricFields(Section& f, Field&& field) {
  static_assert(std::is_same_v<std::remove_const_t<Section>, FabricSpec>);
  field("messageBytes", f.messageBytes);
  field("warmupSamples", f.warmupSamples);
  field("samplesPerPair", f.samplesPerPair);
  field("computeProbeSize", f.computeProbeSize);
  field("computeProbeSamples", f.computeProbeSamples);
  field("allreduceBytes", f.allreduceBytes);
  field("allreduceIterations", f.allreduceIterations);
  field("thresholdPercent", f.thresholdPercent);
  field("allPairsUpTo", f.allPairsUpTo);
  field("nodes", f.nodes, kWrittenWhenGiven);
  field("onePerNode", f.onePerNode);
}

// gpusPerRank is written only when set: it is refused without device cuda.
template <typename Section, typename Field>
void runtimeFields(Section& rt, Field&& field) {
  static_assert(std::is_same_v<std::remove_const_t<Section>, RuntimeSpec>);
  field("backend", rt.backend, {Backend::Gloo, Backend::NCCL});
  field("device", rt.device, {Device::CPU, Device::CUDA});
  field("gpusPerRank", rt.gpusPerRank);
  field("masterPort", rt.masterPort);
  field("metricsPort", rt.metricsPort);
  field("rendezvousTimeoutSeconds", rt.rendezvousTimeoutSeconds);
  field("peerTimeoutSeconds", rt.peerTimeoutSeconds);
  field("metricsLingerSeconds", rt.metricsLingerSeconds);
  field("intraOpThreads", rt.intraOpThreads);
  field("image", rt.image);
}

template <typename Section, typename Field>
void runPolicyFields(Section& rp, Field&& field) {
  static_assert(std::is_same_v<std::remove_const_t<Section>, RunPolicy>);
  field("backoffLimit", rp.backoffLimit);
  field("activeDeadlineSeconds", rp.activeDeadlineSeconds);
  field("ttlSecondsAfterFinished", rp.ttlSecondsAfterFinished);
  field("cleanPodPolicy", rp.cleanPodPolicy,
        {CleanPodPolicy::Running, CleanPodPolicy::All, CleanPodPolicy::None});
}

}  // namespace distbench::api::detail
