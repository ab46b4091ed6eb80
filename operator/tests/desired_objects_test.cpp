// The objects a DistBenchmark becomes: names, wiring, labels and owners.
#include "desired_objects.h"

#include <gtest/gtest.h>

#include <map>

#include "distbench/api/presets.h"
#include "distbench/api/spec_yaml.h"

namespace distbench::op {
namespace {

using web::json::value;

api::DistBenchmark tutorial() {
  api::DistBenchmark b = api::preset("tutorial");
  b.metadata.name = "tut";
  b.metadata.namespace_ = "bench";
  return b;
}

const Owner kOwner{"tut", "1234-uid"};

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
  const std::vector<value> pods = desiredPods(tutorial(), kOwner, "10.0.0.7", 2);
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
    EXPECT_EQ(pod.at("spec").at("hostname").as_string(), names[i]);
    EXPECT_EQ(pod.at("spec").at("subdomain").as_string(), "tut");
    EXPECT_EQ(pod.at("spec").at("restartPolicy").as_string(), "Never");
    auto env = envOf(pod);
    EXPECT_EQ(env.at("RANK").at("value").as_string(), std::to_string(i));
    EXPECT_EQ(env.at("WORLD_SIZE").at("value").as_string(), "4");
    EXPECT_EQ(env.at("MASTER_ADDR").at("value").as_string(), "10.0.0.7");
    EXPECT_EQ(env.at("DISTBENCH_ROLE").at("value").as_string(), roles[i]);
    EXPECT_EQ(env.at("DISTBENCH_CONFIG").at("value").as_string(), "/etc/distbench/config.yaml");
    EXPECT_EQ(env.at("POD_IP").at("valueFrom").at("fieldRef").at("fieldPath").as_string(),
              "status.podIP");
    const value& container = pod.at("spec").at("containers").at(0);
    EXPECT_EQ(container.at("image").as_string(), "distbench/worker:latest");
    EXPECT_EQ(container.at("volumeMounts").at(0).at("mountPath").as_string(), "/etc/distbench");
    EXPECT_EQ(pod.at("spec").at("volumes").at(0).at("configMap").at("name").as_string(),
              "tut-config");
  }
  // Only the master listens for rendezvous.
  EXPECT_EQ(pods[0].at("spec").at("containers").at(0).at("ports").size(), 2u);
  EXPECT_EQ(pods[1].at("spec").at("containers").at(0).at("ports").size(), 1u);
}

TEST(DesiredObjects, ConfigMapHoldsTheResolvedSpec) {
  const value cm = desiredConfigMap(tutorial(), kOwner);
  expectOwnedAndLabelled(cm);
  EXPECT_EQ(cm.at("metadata").at("name").as_string(), "tut-config");
  EXPECT_EQ(api::parseDistBenchmark(cm.at("data").at(kConfigFile).as_string()), tutorial());
}

TEST(DesiredObjects, ServicesPublishNotReadyPodsAndSelectTheirRanks) {
  const value headless = desiredHeadlessService(tutorial(), kOwner);
  expectOwnedAndLabelled(headless);
  EXPECT_EQ(headless.at("spec").at("clusterIP").as_string(), "None");
  EXPECT_TRUE(headless.at("spec").at("publishNotReadyAddresses").as_bool());
  EXPECT_EQ(headless.at("spec").at("selector").size(), 1u);

  const value master = desiredMasterService(tutorial(), kOwner);
  expectOwnedAndLabelled(master);
  EXPECT_EQ(master.at("metadata").at("name").as_string(), "tut-master");
  EXPECT_TRUE(master.at("spec").at("publishNotReadyAddresses").as_bool());
  EXPECT_EQ(master.at("spec").at("selector").at(kLabelRole).as_string(), "master");
  EXPECT_EQ(master.at("spec").at("ports").at(0).at("port").as_integer(), 29500);
}

TEST(DesiredObjects, DdpKindHasMasterAndTrainersOnly) {
  api::DistBenchmark b = api::preset("ddp-cpu");
  b.metadata.namespace_ = "bench";
  const std::vector<value> pods = desiredPods(b, {"ddp-cpu", "u"}, "10.0.0.9", 0);
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(pods[2].at("metadata").at("name").as_string(), "ddp-cpu-trainer-1");
}

}  // namespace
}  // namespace distbench::op
