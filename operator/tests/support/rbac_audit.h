// What the RBAC audit tests share: the chart rendered by `helm template`,
// its roles applied and bound to a user, and the API server's audit log of
// that user compared with the rules: (a) every request allowed and covered
// by a rule, (b) every rule of those the scenario answers for used. A rule
// the code never exercises is a right the operator should not hold; a
// request no rule covers is a 403 in a real cluster.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "distbench/testing/kube/audit_log.h"
#include "distbench/testing/kube/kube_test_cluster.h"

namespace distbench::kubetest {

// $DISTBENCH_RBAC_CHART (another chart directory, e.g. an edited copy, to
// see a test catch a drift), else the repository's chart.
std::string rbacChartDir();

// helm as the chart tests find it (kube_tools.h). Without it, "" and `why` (where it
// looked), and under CI (CI=true) a gtest failure as well: CI does not
// skip the audit.
std::string helmOrWhyNot(std::string& why);

// `helm template RELEASE CHART --namespace NS EXTRA` with helm's state in
// `workDir`; its objects by "Kind/name". A failure is a gtest failure and
// an empty map.
std::map<std::string, YAML::Node> renderChart(const std::string& helm, const std::string& release,
                                              const std::string& ns, const std::string& workDir,
                                              const std::string& extraArgs = "");

// The (apiGroup, resource, verb) a role grants, in `ns` ("" for every
// namespace: a ClusterRole bound cluster-wide). A wildcard or a rule with
// resourceNames is a gtest failure: grant exactly what the code calls.
std::set<AuditRequest> rulesOf(const YAML::Node& role, const std::string& ns);

// Creates a YAML object as the admin; one already there (a rerun in the
// same cluster) is left as it is.
void applyAsAdmin(const std::string& collection, const std::string& yaml);

// A (Cluster)RoleBinding of `role` to `user`.
void bindToUser(const std::string& kind, const std::string& ns, const std::string& name,
                const std::string& roleKind, const std::string& role, const std::string& user);

// The audit events of `user` since byte `from`, once the log holds every
// request answered before now (a marker request of another user, in `ns`,
// shows that).
std::vector<AuditRecord> auditedRequests(const KubeTestCluster& cluster, const std::string& user,
                                         std::uint64_t from, const std::string& ns);

// (a) and (b) above, as gtest expectations, with a table of the requests
// printed: every record allowed, well-formed and covered by `granted`;
// every rule in `mustUse` used.
void expectRequestsMatchRules(const std::vector<AuditRecord>& records,
                              const std::set<AuditRequest>& granted,
                              const std::set<AuditRequest>& mustUse, const std::string& user);

}  // namespace distbench::kubetest
