// The objects a DistBenchmark becomes: names, wiring, labels and owners.
#include "distbench/operator/benchmarks/desired_objects.h"

#include <gtest/gtest.h>

#include <map>

#include "distbench/api/presets.h"
#include "distbench/api/resource_estimate.h"
#include "distbench/api/spec_yaml.h"
#include "distbench/api/worker_env.h"
#include "support/tutorial_benchmark.h"

namespace distbench::op {
namespace {

using web::json::value;


std::map<std::string, value> envOf(const value& pod) {
  std::map<std::string, value> env;
  for (const value& e : pod.at("spec").at("containers").at(0).at("env").as_array()) {
    env[e.at("name").as_string()] = e;
  }
  return env;
}

void expectOwnedAndLabelled(const value& object) {
  const value& meta = object.at("metadata");
  EXPECT_EQ(meta.at("namespace").as_string(), "bench");
  EXPECT_EQ(meta.at("labels").at(kLabelBenchmark).as_string(), "tut");
  const value& ref = meta.at("ownerReferences").at(0);
  EXPECT_EQ(ref.at("uid").as_string(), "1234-uid");
  EXPECT_EQ(ref.at("kind").as_string(), "DistBenchmark");
  EXPECT_TRUE(ref.at("controller").as_bool());
  EXPECT_TRUE(ref.at("blockOwnerDeletion").as_bool());
}

TEST(DesiredObjects, PodsPerRankWiredThroughTheMasterServiceIp) {
  const std::vector<value> pods =
      desiredPods(tutorialBenchmark(), kTutorialOwner, "10.0.0.7", 2, ClusterOptions{});
  ASSERT_EQ(pods.size(), 4u);
  const char* names[] = {"tut-master-0", "tut-ps-0", "tut-trainer-0", "tut-trainer-1"};
  const char* roles[] = {"master", "ps", "trainer", "trainer"};
  for (int i = 0; i < 4; ++i) {
    const value& pod = pods[i];
    expectOwnedAndLabelled(pod);
    EXPECT_EQ(pod.at("metadata").at("name").as_string(), names[i]);
    EXPECT_EQ(pod.at("metadata").at("labels").at(kLabelRole).as_string(), roles[i]);
    EXPECT_EQ(pod.at("metadata").at("labels").at(kLabelRank).as_string(), std::to_string(i));
    EXPECT_EQ(pod.at("metadata").at("labels").at(kLabelGang).as_string(), "2");
    EXPECT_EQ(pod.at("metadata").at("labels").at(kLabelRun).as_string(), kTutorialOwner.uid);
    EXPECT_EQ(pod.at("spec").at("hostname").as_string(), names[i]);
    EXPECT_EQ(pod.at("spec").at("subdomain").as_string(), "tut-workers");
    EXPECT_EQ(pod.at("spec").at("restartPolicy").as_string(), "Never");
    // So that SIGTERM ends a worker still loading its libraries.
    EXPECT_TRUE(pod.at("spec").at("shareProcessNamespace").as_bool());
    auto env = envOf(pod);
    EXPECT_EQ(env.at("RANK").at("value").as_string(), std::to_string(i));
    EXPECT_EQ(env.at("WORLD_SIZE").at("value").as_string(), "4");
    EXPECT_EQ(env.at("MASTER_ADDR").at("value").as_string(), "10.0.0.7");
    EXPECT_EQ(env.at("DISTBENCH_ROLE").at("value").as_string(), roles[i]);
    EXPECT_EQ(env.at("DISTBENCH_CONFIG").at("value").as_string(), "/etc/distbench/config.yaml");
    EXPECT_EQ(env.at("POD_IP").at("valueFrom").at("fieldRef").at("fieldPath").as_string(),
              "status.podIP");
    const value& container = pod.at("spec").at("containers").at(0);
    // No image in the resource: the operator's default for the device.
    EXPECT_EQ(container.at("image").as_string(), defaultCpuWorkerImage());
    EXPECT_EQ(container.at("volumeMounts").at(0).at("mountPath").as_string(), "/etc/distbench");
    EXPECT_EQ(pod.at("spec").at("volumes").at(0).at("configMap").at("name").as_string(),
              "tut-config");
  }
  // Only the master listens for rendezvous.
  EXPECT_EQ(pods[0].at("spec").at("containers").at(0).at("ports").size(), 2u);
  EXPECT_EQ(pods[1].at("spec").at("containers").at(0).at("ports").size(), 1u);
}

TEST(DesiredObjects, ConfigMapHoldsTheResolvedSpec) {
  const value cm = desiredConfigMap(tutorialBenchmark(), kTutorialOwner);
  expectOwnedAndLabelled(cm);
  EXPECT_EQ(cm.at("metadata").at("name").as_string(), "tut-config");
  EXPECT_EQ(api::parseDistBenchmark(cm.at("data").at(kConfigFile).as_string()), tutorialBenchmark());
}

TEST(DesiredObjects, ServicesPublishNotReadyPodsAndOnlyThisRunsPods) {
  const value headless = desiredHeadlessService(tutorialBenchmark(), kTutorialOwner);
  expectOwnedAndLabelled(headless);
  EXPECT_EQ(headless.at("metadata").at("name").as_string(), "tut-workers");
  EXPECT_EQ(headless.at("spec").at("clusterIP").as_string(), "None");
  EXPECT_TRUE(headless.at("spec").at("publishNotReadyAddresses").as_bool());
  // The run's UID too: a pod planted before the resource existed, labelled
  // with its name, is not selected.
  EXPECT_EQ(headless.at("spec").at("selector").size(), 2u);
  EXPECT_EQ(headless.at("spec").at("selector").at(kLabelRun).as_string(), kTutorialOwner.uid);

  const value master = desiredMasterService(tutorialBenchmark(), kTutorialOwner);
  expectOwnedAndLabelled(master);
  EXPECT_EQ(master.at("metadata").at("name").as_string(), "tut-master");
  EXPECT_TRUE(master.at("spec").at("publishNotReadyAddresses").as_bool());
  // No selector: the operator writes the endpoints (desiredMasterEndpoints).
  EXPECT_FALSE(master.at("spec").has_field("selector"));
  EXPECT_EQ(master.at("spec").at("ports").at(0).at("port").as_integer(), 29500);
}

TEST(DesiredObjects, MasterEndpointsNameTheMasterPodAndItsStorePort) {
  value pod = value::object();
  pod["metadata"]["name"] = value::string("tut-master-0");
  pod["metadata"]["uid"] = value::string("pod-uid-1");
  pod["status"]["podIP"] = value::string("198.18.0.7");
  const value e = desiredMasterEndpoints(tutorialBenchmark(), kTutorialOwner, pod);
  expectOwnedAndLabelled(e);
  EXPECT_EQ(e.at("kind").as_string(), "Endpoints");
  EXPECT_EQ(e.at("metadata").at("name").as_string(), "tut-master");  // the Service's name
  ASSERT_EQ(e.at("subsets").size(), 1u);
  const value& subset = e.at("subsets").at(0);
  ASSERT_EQ(subset.at("addresses").size(), 1u);
  EXPECT_EQ(subset.at("addresses").at(0).at("ip").as_string(), "198.18.0.7");
  const value& target = subset.at("addresses").at(0).at("targetRef");
  EXPECT_EQ(target.at("kind").as_string(), "Pod");
  EXPECT_EQ(target.at("name").as_string(), "tut-master-0");
  EXPECT_EQ(target.at("uid").as_string(), "pod-uid-1");
  EXPECT_EQ(subset.at("ports").at(0).at("name").as_string(), "store");
  EXPECT_EQ(subset.at("ports").at(0).at("port").as_integer(), 29500);
}

api::DistBenchmark withTemplates() {
  api::DistBenchmark b = tutorialBenchmark();
  b.spec.runPolicy.activeDeadlineSeconds = 600;
  api::PodTemplates& t = b.spec.podTemplates;
  t.master.image = "example/master:1";
  t.master.requests = {{"cpu", "500m"}};
  t.trainer.requests = {{"cpu", "2"}, {"memory", "4Gi"}};
  t.trainer.limits = {{"nvidia.com/gpu", "1"}};
  t.trainer.nodeSelector = {{"nvidia.com/gpu.present", "true"}};
  t.trainer.tolerations = {{"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt},
                           {"spot", "Equal", "true", "NoExecute", 30},
                           {"", "Exists", "", "", std::nullopt}};
  return b;
}

api::Role roleOf(const value& pod) {
  const std::string role = pod.at("metadata").at("labels").at(kLabelRole).as_string();
  return role == "master" ? api::Role::Master
                          : role == "ps" ? api::Role::ParameterServer : api::Role::Trainer;
}

// Only the memory the estimate gives: no other resource, no placement.
TEST(DesiredObjects, PodsWithoutTemplatesGetNoSchedulingFields) {
  const api::DistBenchmark b = tutorialBenchmark();
  for (const value& pod : desiredPods(b, kTutorialOwner, "10.0.0.7", 0, ClusterOptions{})) {
    EXPECT_FALSE(pod.at("spec").has_field("nodeSelector"));
    EXPECT_FALSE(pod.at("spec").has_field("tolerations"));
    const api::MemoryResources m = api::defaultMemory(b.spec, roleOf(pod));
    EXPECT_EQ(pod.at("spec").at("containers").at(0).at("resources").serialize(),
              R"({"limits":{"memory":")" + m.limit + R"("},"requests":{"memory":")" + m.request +
                  R"("}})");
  }
}

// Each role's memory follows its own estimate: a parameter server holds its
// shard, so a bigger table raises its request and no one else's.
TEST(DesiredObjects, MemoryRequestsAndLimitsFollowTheEstimate) {
  api::DistBenchmark b = tutorialBenchmark();
  auto memoryOf = [](const api::DistBenchmark& bench) {
    std::map<std::string, std::string> out;
    for (const value& pod : desiredPods(bench, kTutorialOwner, "10.0.0.7", 0, ClusterOptions{})) {
      const value& r = pod.at("spec").at("containers").at(0).at("resources");
      out[pod.at("metadata").at("name").as_string()] =
          r.at("requests").at("memory").as_string() + "/" + r.at("limits").at("memory").as_string();
    }
    return out;
  };
  const auto before = memoryOf(b);
  b.spec.benchmark.hybridDDPRPC.numEmbeddings = int64_t{1} << 22;
  b.spec.benchmark.hybridDDPRPC.embeddingDim = 256;  // a 4 GiB shard
  const auto after = memoryOf(b);
  for (const auto& [name, memory] : after) {
    SCOPED_TRACE(name);
    if (name.find("-ps-") != std::string::npos) {
      const api::MemoryResources m = api::defaultMemory(b.spec, api::Role::ParameterServer);
      EXPECT_EQ(memory, m.request + "/" + m.limit);
      EXPECT_GT(api::rankMemoryBytes(b.spec, api::Role::ParameterServer), int64_t{4} << 30);
    } else {
      EXPECT_EQ(memory, before.at(name));
    }
  }
}

// A template that names memory, in either map, decides alone.
TEST(DesiredObjects, ATemplatesMemoryOverridesTheEstimate) {
  api::DistBenchmark b = tutorialBenchmark();
  b.spec.podTemplates.trainer.requests = {{"memory", "3Gi"}};
  b.spec.podTemplates.parameterServer.limits = {{"memory", "5Gi"}};
  for (const value& pod : desiredPods(b, kTutorialOwner, "10.0.0.7", 0, ClusterOptions{})) {
    const value& r = pod.at("spec").at("containers").at(0).at("resources");
    switch (roleOf(pod)) {
      case api::Role::Trainer:
        EXPECT_EQ(r.serialize(), R"({"requests":{"memory":"3Gi"}})");
        break;
      case api::Role::ParameterServer:
        EXPECT_EQ(r.serialize(), R"({"limits":{"memory":"5Gi"}})");
        break;
      case api::Role::Master:
        EXPECT_TRUE(r.at("requests").has_field("memory"));
        break;
    }
  }
}

TEST(DesiredObjects, ScratchEmptyDirHasASizeLimit) {
  for (const value& pod :
       desiredPods(tutorialBenchmark(), kTutorialOwner, "10.0.0.7", 0, ClusterOptions{})) {
    int scratch = 0;
    for (const value& v : pod.at("spec").at("volumes").as_array()) {
      if (!v.has_field("emptyDir")) continue;
      ++scratch;
      EXPECT_EQ(v.at("emptyDir").at("sizeLimit").as_string(), kScratchSizeLimit);
    }
    EXPECT_EQ(scratch, 1) << pod.serialize();
  }
}

TEST(DesiredObjects, RunKeySecretIsOwnedImmutableAndHoldsTheKey) {
  const value secret = desiredRunKeySecret(tutorialBenchmark(), kTutorialOwner, "k3y");
  expectOwnedAndLabelled(secret);
  EXPECT_EQ(secret.at("kind").as_string(), "Secret");
  EXPECT_EQ(secret.at("metadata").at("name").as_string(), "tut-run-key");
  EXPECT_TRUE(secret.at("immutable").as_bool());
  EXPECT_EQ(secret.at("stringData").at(kRunKeyFile).as_string(), "k3y");
}

// Every rank reads the key from the Secret's volume, read-only, where
// DISTBENCH_RUN_KEY_FILE points; no rank gets the key in its environment.
TEST(DesiredObjects, EveryPodMountsTheRunKeyWhereItsEnvironmentSays) {
  for (const value& pod :
       desiredPods(tutorialBenchmark(), kTutorialOwner, "10.0.0.7", 0, ClusterOptions{})) {
    SCOPED_TRACE(pod.at("metadata").at("name").as_string());
    std::string volumeName;
    for (const value& v : pod.at("spec").at("volumes").as_array()) {
      if (v.has_field("secret")) {
        EXPECT_EQ(v.at("secret").at("secretName").as_string(), "tut-run-key");
        volumeName = v.at("name").as_string();
      }
    }
    ASSERT_FALSE(volumeName.empty()) << pod.serialize();
    std::string mountPath;
    for (const value& m : pod.at("spec").at("containers").at(0).at("volumeMounts").as_array()) {
      if (m.at("name").as_string() != volumeName) continue;
      mountPath = m.at("mountPath").as_string();
      EXPECT_TRUE(m.at("readOnly").as_bool());
    }
    const auto env = envOf(pod);
    ASSERT_TRUE(env.count(api::kEnvRunKeyFile)) << pod.serialize();
    EXPECT_EQ(env.at(api::kEnvRunKeyFile).at("value").as_string(),
              mountPath + "/" + kRunKeyFile);
  }
}

TEST(DesiredObjects, EachPodTakesItsRolesTemplate) {
  const std::vector<value> pods =
      desiredPods(withTemplates(), kTutorialOwner, "10.0.0.7", 0, ClusterOptions{});
  ASSERT_EQ(pods.size(), 4u);

  const value& master = pods[0].at("spec");
  const value& masterContainer = master.at("containers").at(0);
  EXPECT_EQ(masterContainer.at("image").as_string(), "example/master:1");
  // The template's cpu, and the memory estimate the template leaves to it.
  const api::MemoryResources masterMemory = api::defaultMemory(withTemplates().spec, api::Role::Master);
  EXPECT_EQ(masterContainer.at("resources").serialize(),
            R"({"limits":{"memory":")" + masterMemory.limit + R"("},"requests":{"cpu":"500m","memory":")" +
                masterMemory.request + R"("}})");
  EXPECT_FALSE(master.has_field("nodeSelector"));
  EXPECT_FALSE(master.has_field("tolerations"));

  // No template for the parameter server: the default image and memory, nothing else.
  const value& ps = pods[1].at("spec");
  EXPECT_EQ(ps.at("containers").at(0).at("image").as_string(), defaultCpuWorkerImage());
  EXPECT_EQ(ps.at("containers").at(0).at("resources").at("requests").size(), 1u);
  EXPECT_FALSE(ps.has_field("nodeSelector"));
  EXPECT_FALSE(ps.has_field("tolerations"));

  for (int i : {2, 3}) {
    const value& spec = pods[i].at("spec");
    const value& container = spec.at("containers").at(0);
    EXPECT_EQ(container.at("image").as_string(), defaultCpuWorkerImage());
    const value& resources = container.at("resources");
    EXPECT_EQ(resources.at("requests").at("cpu").as_string(), "2");
    EXPECT_EQ(resources.at("requests").at("memory").as_string(), "4Gi");
    EXPECT_EQ(resources.at("limits").serialize(), R"({"nvidia.com/gpu":"1"})");
    EXPECT_EQ(spec.at("nodeSelector").serialize(), R"({"nvidia.com/gpu.present":"true"})");
    // As core/v1 writes them: empty fields left out, tolerationSeconds a number.
    const value& tolerations = spec.at("tolerations");
    ASSERT_EQ(tolerations.size(), 3u);
    const value& gpu = tolerations.at(0);
    EXPECT_EQ(gpu.size(), 3u);
    EXPECT_EQ(gpu.at("key").as_string(), "nvidia.com/gpu");
    EXPECT_EQ(gpu.at("operator").as_string(), "Exists");
    EXPECT_EQ(gpu.at("effect").as_string(), "NoSchedule");
    const value& spot = tolerations.at(1);
    EXPECT_EQ(spot.size(), 5u);
    EXPECT_EQ(spot.at("value").as_string(), "true");
    EXPECT_EQ(spot.at("effect").as_string(), "NoExecute");
    ASSERT_TRUE(spot.at("tolerationSeconds").is_integer());
    EXPECT_EQ(spot.at("tolerationSeconds").as_number().to_int64(), 30);
    EXPECT_EQ(tolerations.at(2).serialize(), R"({"operator":"Exists"})");
  }
  // Everything else is as without templates.
  const std::vector<value> plain =
      desiredPods(tutorialBenchmark(), kTutorialOwner, "10.0.0.7", 0, ClusterOptions{});
  for (std::size_t i = 0; i < pods.size(); ++i) {
    value a = pods[i];
    value b = plain[i];
    auto drop = [](value& object, const char* key) {
      if (object.has_field(key)) object.erase(key);
    };
    for (value* pod : {&a, &b}) {
      value& spec = pod->at("spec");
      drop(spec, "nodeSelector");
      drop(spec, "tolerations");
      drop(spec.at("containers").at(0), "resources");
      drop(spec.at("containers").at(0), "image");
    }
    EXPECT_EQ(a.serialize(), b.serialize()) << i;
  }
}

TEST(DesiredObjects, ConfigMapCarriesTemplatesAndRunPolicy) {
  const value cm = desiredConfigMap(withTemplates(), kTutorialOwner);
  EXPECT_EQ(api::parseDistBenchmark(cm.at("data").at(kConfigFile).as_string()), withTemplates());
}

TEST(DesiredObjects, DdpKindHasMasterAndTrainersOnly) {
  api::DistBenchmark b = api::preset("ddp-cpu");
  b.metadata.namespace_ = "bench";
  const std::vector<value> pods = desiredPods(b, {"ddp-cpu", "u"}, "10.0.0.9", 0, ClusterOptions{});
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(pods[2].at("metadata").at("name").as_string(), "ddp-cpu-trainer-1");
}

}  // namespace
}  // namespace distbench::op
