// Gang pods meet every rule of the Pod Security Standards "restricted"
// profile (Kubernetes' pod-security-standards page, the rules a
// `pod-security.kubernetes.io/enforce=restricted` namespace checks), unless
// a role's template relaxes a rule explicitly; and the NetworkPolicy closes
// the gang to other pods.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "distbench/api/presets.h"
#include "distbench/operator/benchmarks/desired_objects.h"
#include "support/tutorial_benchmark.h"

namespace distbench::op {
namespace {

using web::json::value;


const value* field(const value& v, std::initializer_list<const char*> path) {
  const value* at = &v;
  for (const char* p : path) {
    if (!at->is_object() || !at->has_field(p)) return nullptr;
    at = &at->at(p);
  }
  return at;
}

bool isTrue(const value* v) { return v != nullptr && v->is_boolean() && v->as_bool(); }

// Every violation of the restricted profile (baseline rules included), as
// "<pod>: <rule>"; empty when the pod is admitted.
std::vector<std::string> restrictedViolations(const value& pod) {
  std::vector<std::string> out;
  const std::string name = pod.at("metadata").at("name").as_string();
  auto violation = [&](const std::string& rule) { out.push_back(name + ": " + rule); };
  const value& spec = pod.at("spec");
  for (const char* host : {"hostNetwork", "hostPID", "hostIPC"})
    if (isTrue(field(spec, {host}))) violation(std::string(host) + " must be unset or false");
  // Volumes: only the restricted types.
  const std::set<std::string> allowed = {"configMap", "csi", "downwardAPI", "emptyDir",
                                         "ephemeral", "persistentVolumeClaim", "projected",
                                         "secret"};
  if (const value* volumes = field(spec, {"volumes"})) {
    for (const value& v : volumes->as_array())
      for (const auto& [key, unused] : v.as_object())
        if (key != "name" && !allowed.count(key)) violation("volume type " + key + " not allowed");
  }
  const value* podRunAsNonRoot = field(spec, {"securityContext", "runAsNonRoot"});
  const value* podUser = field(spec, {"securityContext", "runAsUser"});
  if (podUser != nullptr && podUser->as_integer() == 0) violation("pod runAsUser must not be 0");
  const value* podSeccomp = field(spec, {"securityContext", "seccompProfile", "type"});
  for (const value& c : spec.at("containers").as_array()) {
    const value* sc = field(c, {"securityContext"});
    auto in = [&](std::initializer_list<const char*> path) {
      return sc == nullptr ? nullptr : field(*sc, path);
    };
    if (isTrue(in({"privileged"}))) violation("privileged must be false");
    if (const value* ports = field(c, {"ports"}))
      for (const value& p : ports->as_array())
        if (field(p, {"hostPort"}) != nullptr) violation("hostPort must be unset");
    const value* ape = in({"allowPrivilegeEscalation"});
    if (ape == nullptr || !ape->is_boolean() || ape->as_bool())
      violation("allowPrivilegeEscalation must be false");
    const value* nonRoot = in({"runAsNonRoot"});
    if (!isTrue(nonRoot ? nonRoot : podRunAsNonRoot)) violation("runAsNonRoot must be true");
    const value* user = in({"runAsUser"});
    if (user != nullptr && user->as_integer() == 0) violation("container runAsUser must not be 0");
    const value* seccomp = in({"seccompProfile", "type"});
    const value* effective = seccomp ? seccomp : podSeccomp;
    if (effective == nullptr ||
        (effective->as_string() != "RuntimeDefault" && effective->as_string() != "Localhost"))
      violation("seccompProfile.type must be RuntimeDefault or Localhost");
    bool dropsAll = false;
    if (const value* drop = in({"capabilities", "drop"}))
      for (const value& d : drop->as_array()) dropsAll = dropsAll || d.as_string() == "ALL";
    if (!dropsAll) violation("capabilities.drop must include ALL");
    if (const value* add = in({"capabilities", "add"}))
      for (const value& a : add->as_array())
        if (a.as_string() != "NET_BIND_SERVICE")
          violation("capabilities.add may only hold NET_BIND_SERVICE, not " + a.as_string());
  }
  return out;
}

std::vector<std::string> violationsOf(const api::DistBenchmark& b) {
  std::vector<std::string> all;
  for (const value& pod : desiredPods(b, kTutorialOwner, "198.19.0.7", 0, ClusterOptions{}))
    for (std::string& v : restrictedViolations(pod)) all.push_back(std::move(v));
  return all;
}

TEST(PodSecurity, EveryGangPodMeetsTheRestrictedProfile) {
  for (const char* preset : {"tutorial", "default", "ddp-cpu", "collectives"}) {
    api::DistBenchmark b = api::preset(preset);
    b.metadata.name = "p";
    EXPECT_EQ(violationsOf(b), std::vector<std::string>{}) << preset;
  }
}

// A GPU needs no privilege: the device plugin hands the container its
// devices, so CUDA pods, whatever their backend, stay restricted too.
TEST(PodSecurity, CudaGangPodsMeetTheRestrictedProfile) {
  for (const char* preset : {"tutorial", "default", "ddp-cpu", "collectives"}) {
    for (api::Backend backend : {api::Backend::NCCL, api::Backend::Gloo}) {
      api::DistBenchmark b = api::preset(preset);
      b.metadata.name = "p";
      b.spec.runtime.device = api::Device::CUDA;
      b.spec.runtime.backend = backend;
      b.spec.runtime.gpusPerRank = 2;
      b.spec.podTemplates.trainer.nodeSelector = {{"nvidia.com/gpu.present", "true"}};
      b.spec.podTemplates.trainer.tolerations = {
          {"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt}};
      EXPECT_EQ(violationsOf(b), std::vector<std::string>{})
          << preset << " " << api::toString(backend);
      // The check saw GPU pods, not CPU ones.
      int gpuPods = 0;
      for (const value& pod : desiredPods(b, kTutorialOwner, "198.19.0.7", 0, ClusterOptions{}))
        gpuPods += field(pod.at("spec").at("containers").at(0),
                         {"resources", "limits", kGpuResource}) != nullptr;
      EXPECT_EQ(gpuPods, b.spec.topology.trainers) << preset;
    }
  }
}

TEST(PodSecurity, TheRootFilesystemIsReadOnlyWithAScratchEmptyDir) {
  for (const value& pod :
       desiredPods(tutorialBenchmark(), kTutorialOwner, "198.19.0.7", 0, ClusterOptions{})) {
    const value& c = pod.at("spec").at("containers").at(0);
    EXPECT_TRUE(isTrue(field(c, {"securityContext", "readOnlyRootFilesystem"})));
    bool scratchMounted = false;
    for (const value& m : c.at("volumeMounts").as_array())
      if (m.at("mountPath").as_string() == kScratchDir) {
        scratchMounted = true;
        const std::string volume = m.at("name").as_string();
        bool isEmptyDir = false;
        for (const value& v : pod.at("spec").at("volumes").as_array())
          if (v.at("name").as_string() == volume) isEmptyDir = v.has_field("emptyDir");
        EXPECT_TRUE(isEmptyDir);
      }
    EXPECT_TRUE(scratchMounted);
    EXPECT_EQ(pod.at("spec").at("terminationGracePeriodSeconds").as_integer(),
              kTerminationGraceSeconds);
    EXPECT_FALSE(pod.at("spec").at("automountServiceAccountToken").as_bool());
    EXPECT_EQ(pod.at("spec").at("securityContext").at("runAsUser").as_integer(), kWorkerUid);
  }
}

TEST(PodSecurity, ARolesTemplateRelaxesOnlyWhatItNames) {
  api::DistBenchmark b = tutorialBenchmark();
  api::PodTemplate& t = b.spec.podTemplates.trainer;
  t.podSecurityContext.runAsNonRoot = false;
  t.podSecurityContext.runAsUser = 0;
  t.securityContext.readOnlyRootFilesystem = false;
  t.securityContext.capabilitiesAdd = std::vector<std::string>{"IPC_LOCK"};
  const std::vector<std::string> v = violationsOf(b);
  // Only the trainers, and only the relaxed rules.
  EXPECT_EQ(v, (std::vector<std::string>{
                   "tut-trainer-0: pod runAsUser must not be 0",
                   "tut-trainer-0: runAsNonRoot must be true",
                   "tut-trainer-0: capabilities.add may only hold NET_BIND_SERVICE, not IPC_LOCK",
                   "tut-trainer-1: pod runAsUser must not be 0",
                   "tut-trainer-1: runAsNonRoot must be true",
                   "tut-trainer-1: capabilities.add may only hold NET_BIND_SERVICE, not IPC_LOCK",
               }));
  const auto [pod, container] = securityContexts(t);
  EXPECT_FALSE(container.at("readOnlyRootFilesystem").as_bool());
  EXPECT_FALSE(container.at("allowPrivilegeEscalation").as_bool());  // not relaxed: kept
  EXPECT_EQ(container.at("capabilities").at("drop").at(0).as_string(), "ALL");
  EXPECT_EQ(pod.at("seccompProfile").at("type").as_string(), "RuntimeDefault");
}

TEST(NetworkPolicy, OnlyTheGangReachesItsPortsAndAnyoneTheMetricsPort) {
  const value np = desiredNetworkPolicy(tutorialBenchmark(), kTutorialOwner, ClusterOptions{});
  EXPECT_EQ(np.at("metadata").at("name").as_string(), "tut-gang");
  EXPECT_EQ(np.at("metadata").at("ownerReferences").at(0).at("uid").as_string(), "1234-uid");
  const value& spec = np.at("spec");
  EXPECT_EQ(spec.at("podSelector").at("matchLabels").at(kLabelBenchmark).as_string(), "tut");
  // And the run's UID: a pod labelled before the resource existed is not
  // the gang, neither guarded as it nor let in by it.
  EXPECT_EQ(spec.at("podSelector").at("matchLabels").at(kLabelRun).as_string(), "1234-uid");
  EXPECT_EQ(spec.at("policyTypes").at(0).as_string(), "Ingress");
  const value& ingress = spec.at("ingress");
  ASSERT_EQ(ingress.size(), 2u);
  // Rule 1: every port, from this benchmark's pods (same namespace) only.
  const value& fromGang = ingress.at(0);
  EXPECT_FALSE(fromGang.has_field("ports"));
  ASSERT_EQ(fromGang.at("from").size(), 1u);
  EXPECT_FALSE(fromGang.at("from").at(0).has_field("namespaceSelector"));
  EXPECT_EQ(fromGang.at("from").at(0).at("podSelector").at("matchLabels").at(kLabelBenchmark).as_string(),
            "tut");
  EXPECT_EQ(fromGang.at("from").at(0).at("podSelector").at("matchLabels").at(kLabelRun).as_string(),
            "1234-uid");
  // Rule 2: the metrics port only, from anywhere by default.
  const value& metrics = ingress.at(1);
  ASSERT_EQ(metrics.at("ports").size(), 1u);
  EXPECT_EQ(metrics.at("ports").at(0).at("port").as_integer(), 9400);
  EXPECT_FALSE(metrics.has_field("from"));

  ClusterOptions monitoringOnly;
  monitoringOnly.metricsFrom = value::parse(
      R"([{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}])");
  const value restricted = desiredNetworkPolicy(tutorialBenchmark(), kTutorialOwner, monitoringOnly);
  EXPECT_EQ(restricted.at("spec").at("ingress").at(1).at("from"), monitoringOnly.metricsFrom);
}

}  // namespace
}  // namespace distbench::op
