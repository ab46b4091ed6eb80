// What a CUDA run's pods ask of the cluster: GPUs on the trainers only, as
// many as spec.runtime.gpusPerRank says unless the trainer template names
// them itself, the scheduling fields that put them on GPU nodes, and the
// worker image for the device when the resource names none.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "distbench/api/presets.h"
#include "distbench/api/resource_estimate.h"
#include "distbench/api/worker_env.h"
#include "distbench/operator/benchmarks/desired_objects.h"
#include "support/tutorial_benchmark.h"

namespace distbench::op {
namespace {

using web::json::value;

api::DistBenchmark cuda(api::DistBenchmark b, api::Backend backend = api::Backend::NCCL) {
  b.spec.runtime.device = api::Device::CUDA;
  b.spec.runtime.backend = backend;
  return b;
}

// The hybrid tutorial (master, ps0, two trainers) on CUDA.
api::DistBenchmark cudaTutorial() { return cuda(tutorialBenchmark()); }

std::vector<value> podsOf(const api::DistBenchmark& b, const ClusterOptions& options = {}) {
  return desiredPods(b, kTutorialOwner, "198.19.0.7", 0, options);
}

const value& workerOf(const value& pod) { return pod.at("spec").at("containers").at(0); }

std::string roleOf(const value& pod) {
  return pod.at("metadata").at("labels").at(kLabelRole).as_string();
}

api::Role roleEnum(const value& pod) {
  const std::string role = roleOf(pod);
  return role == "master" ? api::Role::Master
                          : role == "ps" ? api::Role::ParameterServer : api::Role::Trainer;
}

// The container's "resources" as JSON text, "" when it has none, leaving
// out the memory every pod gets from b's estimate when its template names
// none (desired_objects_test checks that): what is left is about GPUs.
std::string resourcesOf(const value& pod, const api::DistBenchmark& b) {
  const value& c = workerOf(pod);
  if (!c.has_field("resources")) return "";
  value resources = c.at("resources");
  const api::MemoryResources estimate = api::defaultMemory(b.spec, roleEnum(pod));
  for (const auto& [map, memory] : {std::pair{"requests", estimate.request},
                                    std::pair{"limits", estimate.limit}}) {
    if (!resources.has_field(map)) continue;
    value& entries = resources.at(map);
    if (entries.has_field("memory") && entries.at("memory").as_string() == memory) {
      entries.erase("memory");
      if (entries.size() == 0) resources.erase(map);
    }
  }
  return resources.size() == 0 ? "" : resources.serialize();
}

std::string envOf(const value& pod, const std::string& name) {
  for (const value& e : workerOf(pod).at("env").as_array())
    if (e.at("name").as_string() == name) return e.at("value").as_string();
  return "(unset)";
}

TEST(GpuPods, EveryKindsTrainersGetTheirGpusAndNoOtherRole) {
  for (const char* preset : {"tutorial", "ddp-cpu", "collectives"}) {
    for (api::Backend backend : {api::Backend::NCCL, api::Backend::Gloo}) {
      SCOPED_TRACE(std::string(preset) + " " + api::toString(backend));
      api::DistBenchmark b = cuda(api::preset(preset), backend);
      b.metadata.name = "g";
      int trainers = 0;
      for (const value& pod : podsOf(b)) {
        SCOPED_TRACE(pod.at("metadata").at("name").as_string());
        if (roleOf(pod) == "trainer") {
          ++trainers;
          EXPECT_EQ(resourcesOf(pod, b),
                    R"({"limits":{"nvidia.com/gpu":"1"},"requests":{"nvidia.com/gpu":"1"}})");
        } else {
          EXPECT_EQ(resourcesOf(pod, b), "") << "the master and parameter servers compute on CPU";
        }
      }
      EXPECT_EQ(trainers, b.spec.topology.trainers);
    }
  }
}

TEST(GpuPods, GpusPerRankSetsTheCount) {
  api::DistBenchmark b = cudaTutorial();
  b.spec.runtime.gpusPerRank = 4;
  for (const value& pod : podsOf(b)) {
    if (roleOf(pod) != "trainer") continue;
    EXPECT_EQ(workerOf(pod).at("resources").at("limits").at(kGpuResource).as_string(), "4");
    EXPECT_EQ(workerOf(pod).at("resources").at("requests").at(kGpuResource).as_string(), "4");
  }
}

TEST(GpuPods, CpuRunsRequestNoGpu) {
  const api::DistBenchmark b = tutorialBenchmark();
  for (const value& pod : podsOf(b)) {
    EXPECT_EQ(resourcesOf(pod, b), "") << pod.at("metadata").at("name").as_string();
  }
}

TEST(GpuPods, TheGpusJoinTheTemplatesOtherResources) {
  api::DistBenchmark b = cudaTutorial();
  b.spec.podTemplates.trainer.requests = {{"cpu", "4"}, {"memory", "16Gi"}};
  b.spec.podTemplates.trainer.limits = {{"memory", "16Gi"}};
  const value trainer = podsOf(b).at(2);
  EXPECT_EQ(resourcesOf(trainer, b),
            R"({"limits":{"memory":"16Gi","nvidia.com/gpu":"1"},)"
            R"("requests":{"cpu":"4","memory":"16Gi","nvidia.com/gpu":"1"}})");
}

// A template that names the GPU resource in either map has the last word:
// nothing is added beside it, not even the other map's entry.
TEST(GpuPods, ATrainerTemplateThatNamesGpusWins) {
  api::DistBenchmark limitsOnly = cudaTutorial();
  limitsOnly.spec.runtime.gpusPerRank = 2;
  limitsOnly.spec.podTemplates.trainer.limits = {{kGpuResource, "8"}};
  EXPECT_EQ(resourcesOf(podsOf(limitsOnly).at(3), limitsOnly), R"({"limits":{"nvidia.com/gpu":"8"}})");

  api::DistBenchmark requestsOnly = cudaTutorial();
  requestsOnly.spec.podTemplates.trainer.requests = {{kGpuResource, "1"}, {"cpu", "2"}};
  EXPECT_EQ(resourcesOf(podsOf(requestsOnly).at(3), requestsOnly),
            R"({"requests":{"cpu":"2","nvidia.com/gpu":"1"}})");

  // Another role's template names no GPU for the trainers.
  api::DistBenchmark other = cudaTutorial();
  other.spec.podTemplates.master.limits = {{kGpuResource, "1"}};
  const std::vector<value> pods = podsOf(other);
  EXPECT_EQ(resourcesOf(pods.at(0), other), R"({"limits":{"nvidia.com/gpu":"1"}})");
  EXPECT_EQ(workerOf(pods.at(2)).at("resources").at("limits").at(kGpuResource).as_string(), "1");
}

TEST(GpuPods, TrainersKeepTheirNodeSelectorAndTolerations) {
  api::DistBenchmark b = cudaTutorial();
  api::PodTemplate& t = b.spec.podTemplates.trainer;
  t.nodeSelector = {{"nvidia.com/gpu.present", "true"}};
  t.tolerations = {{"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt}};
  for (const value& pod : podsOf(b)) {
    SCOPED_TRACE(pod.at("metadata").at("name").as_string());
    const value& spec = pod.at("spec");
    if (roleOf(pod) == "trainer") {
      EXPECT_EQ(spec.at("nodeSelector").serialize(), R"({"nvidia.com/gpu.present":"true"})");
      EXPECT_EQ(spec.at("tolerations").serialize(),
                R"([{"effect":"NoSchedule","key":"nvidia.com/gpu","operator":"Exists"}])");
      EXPECT_EQ(workerOf(pod).at("resources").at("limits").at(kGpuResource).as_string(), "1");
    } else {
      EXPECT_FALSE(spec.has_field("nodeSelector"));
      EXPECT_FALSE(spec.has_field("tolerations"));
    }
  }
}

// One rank per pod: each trainer is alone on its node as far as its GPUs go.
TEST(GpuPods, TrainersAreLocalRankZeroOfOne) {
  for (const value& pod : podsOf(cudaTutorial())) {
    SCOPED_TRACE(pod.at("metadata").at("name").as_string());
    const bool trainer = roleOf(pod) == "trainer";
    EXPECT_EQ(envOf(pod, api::kEnvLocalRank), trainer ? "0" : "(unset)");
    EXPECT_EQ(envOf(pod, api::kEnvLocalWorldSize), trainer ? "1" : "(unset)");
  }
}

TEST(WorkerImage, TheDeviceDecidesWhenTheResourceNamesNone) {
  EXPECT_EQ(defaultCpuWorkerImage(), std::string("distbench/worker:") + DISTBENCH_VERSION);
  EXPECT_EQ(defaultCudaWorkerImage(), std::string("distbench/worker-cuda:") + DISTBENCH_VERSION);
  for (const value& pod : podsOf(tutorialBenchmark()))
    EXPECT_EQ(workerOf(pod).at("image").as_string(), defaultCpuWorkerImage());
  // Every role of a CUDA run: one image for the gang.
  for (const value& pod : podsOf(cudaTutorial()))
    EXPECT_EQ(workerOf(pod).at("image").as_string(), defaultCudaWorkerImage());

  ClusterOptions flags;
  flags.workerImages = {"registry.example/w:1", "registry.example/w-cuda:1"};
  EXPECT_EQ(workerOf(podsOf(tutorialBenchmark(), flags).at(0)).at("image").as_string(),
            "registry.example/w:1");
  EXPECT_EQ(workerOf(podsOf(cudaTutorial(), flags).at(0)).at("image").as_string(),
            "registry.example/w-cuda:1");
}

TEST(WorkerImage, AnImageTheResourceNamesWins) {
  ClusterOptions flags;
  flags.workerImages = {"registry.example/w:1", "registry.example/w-cuda:1"};
  api::DistBenchmark b = cudaTutorial();
  b.spec.runtime.image = "mine/worker:2";
  b.spec.podTemplates.parameterServer.image = "mine/ps:3";
  const std::vector<value> pods = podsOf(b, flags);
  EXPECT_EQ(workerOf(pods.at(0)).at("image").as_string(), "mine/worker:2");
  EXPECT_EQ(workerOf(pods.at(1)).at("image").as_string(), "mine/ps:3");
  EXPECT_EQ(workerOf(pods.at(2)).at("image").as_string(), "mine/worker:2");

  // A template's image without spec.runtime.image: the others take the default.
  b.spec.runtime.image.clear();
  const std::vector<value> mixed = podsOf(b, flags);
  EXPECT_EQ(workerOf(mixed.at(1)).at("image").as_string(), "mine/ps:3");
  EXPECT_EQ(workerOf(mixed.at(3)).at("image").as_string(), "registry.example/w-cuda:1");
}

}  // namespace
}  // namespace distbench::op
