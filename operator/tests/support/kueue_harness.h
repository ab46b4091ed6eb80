// Plays Kueue's part, and only that part, around distbench's preflight gate
// on the test API server: Kueue v0.15.8's status writes to a Workload, step
// for step as its documentation and code describe them (docs/preflight.md,
// "What the tests play", lists each). kueue.x-k8s.io/v1beta1; whole lists
// (the tests' API server cannot merge a Workload's lists by key); non-empty
// strings where Kueue writes "" (that server refuses an empty string where
// the CRD had a default).
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>
#include <vector>

#include "distbench/kube/kube_client.h"

namespace distbench::kubetest {

class KueueHarness {
 public:
  // Workloads in `ns`.
  KueueHarness(kube::KubeClient& client, std::string ns);

  // An AdmissionCheck (cluster-scoped) for `controllerName`, whose
  // parameters name the DistBenchPreflightPolicy `policy` ("" for none).
  web::json::value createAdmissionCheck(const std::string& name, const std::string& controllerName,
                                        const std::string& policy);
  // A Workload with one pod set "main" of `count` pods, queued where its
  // ClusterQueue has `checks`: each gets its Pending entry (Kueue's P1).
  web::json::value createWorkload(const std::string& name, int count,
                                  const std::vector<std::string>& checks);
  // Quota reserved (P2): status.admission with the pod set's topology
  // assignment, one pod on each of `hostnames` at the kubernetes.io/hostname
  // level; nullopt: a flavor only (topology-aware scheduling off).
  // QuotaReserved True; a True Evicted flips to False, "Previously: ...".
  void reserveQuota(const std::string& name,
                    const std::optional<std::vector<std::string>>& hostnames);
  // What Kueue's workload controller does next from the check states:
  // every check Ready: Admitted (R1); a Retry: evicted, every non-Pending
  // check reset to Pending (a Retry's retryCount + 1), the quota released
  // (R2); a Rejected: deactivated (spec.active false), evicted, the quota
  // released (R3). Returns "Admitted", "Evicted", "Deactivated" or "" (no
  // step: a check still Pending).
  std::string step(const std::string& name);

  web::json::value get(const std::string& name);
  // The entry of `check` in status.admissionChecks (null when absent).
  web::json::value checkState(const std::string& name, const std::string& check);
  std::string path(const std::string& name) const;

 private:
  // GET, change, PUT to /status; again on 409.
  template <typename Change>
  void writeStatus(const std::string& name, Change change);

  kube::KubeClient& client_;
  std::string ns_;
};

}  // namespace distbench::kubetest
