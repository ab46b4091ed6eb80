#include "bare_client.h"

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "distbench/api/object_names.h"
#include "distbench/api/run_key.h"
#include "distbench/api/spec_yaml.h"
#include "distbench/kube/json_fields.h"
#include "distbench/kube/parallel_for.h"
#include "distbench/operator/benchmarks/desired_objects.h"
#include "distbench/operator/benchmarks/reconciler.h"

namespace distbench::bench {
namespace {

using web::json::value;

std::string networkPolicies(const std::string& ns) {
  return kube::groupPath("networking.k8s.io", "v1", ns, "networkpolicies");
}

value defaultBenchmark(const std::string& name) {
  value b = value::object();
  b["apiVersion"] = value::string("distbench.io/v1alpha1");
  b["kind"] = value::string("DistBenchmark");
  b["metadata"]["name"] = value::string(name);
  b["spec"] = value::object();
  return b;
}

}  // namespace

BareClient::BareClient(kube::KubeClient& client, std::string ns, int parallelism, int helpers)
    : client_(client), ns_(std::move(ns)), parallelism_(parallelism), helpers_(helpers) {}

void BareClient::create(const std::string& name) {
  const value created = client_.create(kube::groupPath(op::kGroup, op::kVersion, ns_, op::kPlural),
                                       defaultBenchmark(name));
  // As the operator reads it: the object as the server has it, defaults and all.
  const api::DistBenchmark b = api::parseDistBenchmark(created.serialize());
  const op::Owner owner{name, created.at("metadata").at("uid").as_string()};
  const op::ClusterOptions cluster;
  std::string masterAddr;
  const std::vector<std::function<void()>> shared = {
      [&] {
        client_.create(kube::corePath(ns_, "secrets"),
                       op::desiredRunKeySecret(b, owner, api::newRunKey()));
      },
      [&] { client_.create(kube::corePath(ns_, "configmaps"), op::desiredConfigMap(b, owner)); },
      [&] {
        client_.create(kube::corePath(ns_, "services"), op::desiredHeadlessService(b, owner));
      },
      [&] { client_.create(networkPolicies(ns_), op::desiredNetworkPolicy(b, owner, cluster)); },
      [&] {
        const value svc =
            client_.create(kube::corePath(ns_, "services"), op::desiredMasterService(b, owner));
        masterAddr = kube::stringField(svc.at("spec"), "clusterIP");
      },
  };
  kube::parallelForEach(
      shared, static_cast<int>(shared.size()), [](const std::function<void()>& f) { f(); },
      &helpers_);
  const std::vector<value> pods = op::desiredPods(b, owner, masterAddr, 0, cluster);
  kube::parallelForEach(
      pods, parallelism_,
      [&](const value& pod) { client_.create(kube::corePath(ns_, "pods"), pod); }, &helpers_);
  std::vector<std::string> paths = {
      kube::corePath(ns_, "secrets", api::runKeySecretName(name)),
      kube::corePath(ns_, "configmaps", api::configMapName(name)),
      kube::corePath(ns_, "services", api::workersServiceName(name)),
      kube::corePath(ns_, "services", api::masterServiceName(name)),
      networkPolicies(ns_) + "/" + api::networkPolicyName(name),
  };
  for (const value& pod : pods)
    paths.push_back(kube::corePath(ns_, "pods", kube::stringField(pod.at("metadata"), "name")));
  std::lock_guard<std::mutex> lock(mutex_);
  made_[name] = std::move(paths);
}

void BareClient::remove(const std::string& name) {
  std::vector<std::string> paths;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = made_.find(name);
    if (it != made_.end()) {
      paths = std::move(it->second);
      made_.erase(it);
    }
  }
  paths.push_back(kube::groupPath(op::kGroup, op::kVersion, ns_, op::kPlural, name));
  kube::parallelForEach(paths, parallelism_, [&](const std::string& path) {
    // Unscheduled pods go at once.
    client_.remove(path, kube::DeleteOptions{0, ""});
  });
}

}  // namespace distbench::bench
