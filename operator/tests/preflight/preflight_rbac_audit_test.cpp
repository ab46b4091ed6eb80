// The chart's rules for the preflight gate against what the gate really
// calls (support/rbac_audit.h): `helm template --set preflight.enabled=true`
// renders the operator's ClusterRole with the Workload rules and the
// cluster-wide -preflight ClusterRole; both are bound to the user
// "distbench-operator", and the gate's two controllers run as that user
// through every path that talks to the API: the AdmissionCheck's Active
// condition; a check run created, a slow node tainted, Retry, a second
// attempt, Rejected, the runs deleted; a Workload without node names
// rejected. Then the audit log: every request allowed and covered, and
// every rule that enabling the gate adds used.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "distbench/kube/kube_config.h"
#include "distbench/testing/kube/audit_log.h"
#include "support/preflight_gate_test.h"
#include "support/rbac_audit.h"

namespace distbench::op {
namespace {

using kubetest::AuditRequest;
using kubetest::KubeTestCluster;

const std::string kRelease = "rbac-gate";
const std::string kReleaseNamespace = "rbac-gate-system";

class PreflightRbacAuditTest : public PreflightGateTest {};

TEST_F(PreflightRbacAuditTest, TheChartGrantsTheGateExactlyWhatItCalls) {
  // 1. The chart's rules with and without the gate; the enabled ones bound.
  std::string noHelm;
  const std::string helm = kubetest::helmOrWhyNot(noHelm);
  if (helm.empty()) GTEST_SKIP() << noHelm;
  const auto enabled = kubetest::renderChart(helm, kRelease, kReleaseNamespace, dir_->path(),
                                             "--set preflight.enabled=true");
  const auto plain = kubetest::renderChart(helm, kRelease, kReleaseNamespace, dir_->path());
  if (HasFailure()) return;
  const std::string mainKey = "ClusterRole/" + kRelease + "-distbench-operator";
  const std::string gateKey = mainKey + "-preflight";
  ASSERT_TRUE(enabled.count(mainKey) && enabled.count(gateKey) && plain.count(mainKey))
      << "helm template rendered no " << mainKey << " or " << gateKey;
  ASSERT_FALSE(plain.count(gateKey)) << gateKey << " rendered with the gate off";

  std::set<AuditRequest> granted = kubetest::rulesOf(enabled.at(mainKey), "");
  const std::set<AuditRequest> gateRules = kubetest::rulesOf(enabled.at(gateKey), "");
  granted.insert(gateRules.begin(), gateRules.end());
  // What enabling the gate adds is what this scenario answers for; the
  // rest of the ClusterRole is the run controller's (rbac_audit_test.cpp).
  std::set<AuditRequest> added = gateRules;
  const std::set<AuditRequest> before = kubetest::rulesOf(plain.at(mainKey), "");
  for (const AuditRequest& r : kubetest::rulesOf(enabled.at(mainKey), ""))
    if (!before.count(r)) added.insert(r);

  const std::string rbac = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
  for (const std::string& key : {mainKey, gateKey}) {
    YAML::Emitter out;
    out << enabled.at(key);
    kubetest::applyAsAdmin(rbac, out.c_str());
    const std::string role = enabled.at(key)["metadata"]["name"].as<std::string>();
    kubetest::bindToUser("ClusterRoleBinding", "", role, "ClusterRole", role,
                         KubeTestCluster::kOperatorUser);
  }
  if (HasFailure()) return;

  // 2. The gate as that user, through every path that talks to the API.
  const std::uint64_t auditFrom = kubetest::auditLogSize(cluster_->auditLogPath());
  const std::string userKubeconfig = dir_->path() + "/operator.kubeconfig";
  cluster_->writeKubeconfig(userKubeconfig, KubeTestCluster::kOperatorUser);
  gateClient_ = std::make_unique<kube::KubeClient>(kube::loadKubeconfig(userKubeconfig));

  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy("  suspectNodes: Taint\n");
  start();
  ASSERT_TRUE(eventually([&] { return activeStatus() == "True/Active"; })) << activeStatus();

  // A slow node: Retry, the node tainted; a second attempt; Rejected.
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  const std::string first = onlyRun();
  finishRun(first, 1);
  ASSERT_TRUE(eventually([&] { return state("train") == "Retry"; })) << message("train");
  // Not fatal: a refused patch is better named by the audit below.
  EXPECT_TRUE(eventually([&] { return nodeTainted(hosts_[1]); }, 10s));
  ASSERT_EQ(kueue_->step("train"), "Evicted");
  kueue_->reserveQuota("train", hosts_);
  std::string second;
  ASSERT_TRUE(eventually([&] {
    const std::vector<std::string> names = runNames();
    return names.size() == 1 && (second = names.front()) != first;
  })) << "a second attempt's run";
  finishRun(second, 1);
  ASSERT_TRUE(eventually([&] { return state("train") == "Rejected"; })) << message("train");
  ASSERT_TRUE(eventually([&] { return runNames().empty(); })) << "the runs are deleted";

  // A Workload whose nodes the gate cannot know.
  kueue_->createWorkload("untopo", 2, {check_});
  kueue_->reserveQuota("untopo", std::nullopt);
  ASSERT_TRUE(eventually([&] { return state("untopo") == "Rejected"; })) << message("untopo");
  stop();

  // 3. The audit log.
  const std::vector<kubetest::AuditRecord> records =
      kubetest::auditedRequests(*cluster_, KubeTestCluster::kOperatorUser, auditFrom, ns_);
  if (records.empty()) return;  // auditedRequests said why
  kubetest::expectRequestsMatchRules(records, granted, added, KubeTestCluster::kOperatorUser);
}

}  // namespace
}  // namespace distbench::op
