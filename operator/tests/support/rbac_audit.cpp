#include "rbac_audit.h"

#include <gtest/gtest.h>

#include <cpprest/http_client.h>
#include <cstdio>
#include <cstdlib>

#include "distbench/process/binary_runner.h"
#include "distbench/testing/kube/kube_test_env.h"
#include "distbench/testing/kube/kube_test_helpers.h"
#include "distbench/testing/kube/kube_tools.h"

#ifndef DISTBENCH_SOURCE_DIR
#error "DISTBENCH_SOURCE_DIR must name the repository root"
#endif

namespace distbench::kubetest {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

std::string rbacChartDir() {
  const std::string other = env("DISTBENCH_RBAC_CHART");
  return other.empty() ? std::string(DISTBENCH_SOURCE_DIR) + "/charts/distbench-operator" : other;
}

std::string helmOrWhyNot(std::string& why) {
  const KubeTools& tools = kubeTools();
  if (!tools.helm.empty()) return tools.helm;
  why = "helm not found (looked in " + tools.searched + "); run scripts/install-helm.sh";
  if (inCi()) ADD_FAILURE() << why << " (CI is set: not skipping)";
  return "";
}

std::map<std::string, YAML::Node> renderChart(const std::string& helm, const std::string& release,
                                              const std::string& ns, const std::string& workDir,
                                              const std::string& extraArgs) {
  std::map<std::string, YAML::Node> byKind;
  const std::string& d = workDir;
  const std::string command = "env HELM_CACHE_HOME='" + d + "/helm-cache' HELM_CONFIG_HOME='" + d +
                              "/helm-config' HELM_DATA_HOME='" + d + "/helm-data' '" + helm +
                              "' template " + release + " '" + rbacChartDir() + "' --namespace " +
                              ns + (extraArgs.empty() ? "" : " " + extraArgs);
  const process::BinaryResult r = process::runCaptured(command, d + "/helm.out", d + "/helm.err");
  if (r.exitCode != 0) {
    ADD_FAILURE() << command << ": exit " << r.exitCode << "\n" << r.err;
    return byKind;
  }
  for (const YAML::Node& doc : YAML::LoadAll(r.out))
    if (doc.IsMap() && doc["kind"])
      byKind[doc["kind"].as<std::string>() + "/" + doc["metadata"]["name"].as<std::string>()] = doc;
  return byKind;
}

std::set<AuditRequest> rulesOf(const YAML::Node& role, const std::string& ns) {
  std::set<AuditRequest> granted;
  for (const YAML::Node& rule : role["rules"]) {
    if (rule["resourceNames"] || rule["nonResourceURLs"])
      ADD_FAILURE() << "rule with resourceNames or nonResourceURLs: extend this test to check it";
    for (const YAML::Node& g : rule["apiGroups"])
      for (const YAML::Node& r : rule["resources"])
        for (const YAML::Node& v : rule["verbs"]) {
          const auto group = g.as<std::string>(), res = r.as<std::string>(), verb = v.as<std::string>();
          if (group == "*" || res == "*" || verb == "*")
            ADD_FAILURE() << "wildcard in " << role["metadata"]["name"]
                          << ": grant exactly what the code calls";
          granted.insert({group, res, verb, ns});
        }
  }
  return granted;
}

void applyAsAdmin(const std::string& collection, const std::string& yaml) {
  Response r = call(web::http::methods::POST, collection, yaml, "application/yaml");
  EXPECT_TRUE(r.status == 201 || r.status == 409)
      << "POST " << collection << ": " << r.status << " " << r.body;
}

void bindToUser(const std::string& kind, const std::string& ns, const std::string& name,
                const std::string& roleKind, const std::string& role, const std::string& user) {
  const std::string collection = "/apis/rbac.authorization.k8s.io/v1/" +
                                 (ns.empty() ? std::string() : "namespaces/" + ns + "/") +
                                 (kind == "ClusterRoleBinding" ? "clusterrolebindings" : "rolebindings");
  applyAsAdmin(collection,
               "apiVersion: rbac.authorization.k8s.io/v1\nkind: " + kind + "\nmetadata:\n  name: " +
                   name + "\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: " + roleKind +
                   "\n  name: " + role +
                   "\nsubjects:\n- kind: User\n  apiGroup: rbac.authorization.k8s.io\n  name: " +
                   user + "\n");
}

std::vector<AuditRecord> auditedRequests(const KubeTestCluster& cluster, const std::string& user,
                                         std::uint64_t from, const std::string& ns) {
  // By a user of its own: the admin's requests fill most of the log.
  const std::string marker = "/api/v1/namespaces/" + ns + "/configmaps/rbac-audit-marker";
  {
    web::http::client::http_client markerClient(cluster.url(), cluster.clientConfig());
    web::http::http_request request(web::http::methods::GET);
    request.set_request_uri(marker);
    request.headers().add("Authorization", "Bearer " + cluster.token(KubeTestCluster::kPlainUser));
    markerClient.request(request).get();
  }
  const bool flushed = eventually([&] {
    for (const AuditRecord& rec : readAuditLog(cluster.auditLogPath(), KubeTestCluster::kPlainUser, from))
      if (rec.requestUri == marker) return true;
    return false;
  });
  EXPECT_TRUE(flushed) << "the marker request never reached " << cluster.auditLogPath();
  std::vector<AuditRecord> records = readAuditLog(cluster.auditLogPath(), user, from);
  EXPECT_FALSE(records.empty()) << "no request of " << user << " in the audit log";
  return records;
}

void expectRequestsMatchRules(const std::vector<AuditRecord>& records,
                              const std::set<AuditRequest>& granted,
                              const std::set<AuditRequest>& mustUse, const std::string& user) {
  auto grantFor = [&](const AuditRequest& used) -> const AuditRequest* {
    for (const AuditRequest& g : granted)
      if (g.apiGroup == used.apiGroup && g.resource == used.resource && g.verb == used.verb &&
          (g.ns.empty() || g.ns == used.ns))
        return &g;
    return nullptr;
  };

  // (a) Every request allowed and covered by a rule.
  std::map<std::string, std::map<int, int>> codes;  // request -> code -> how many
  std::set<std::string> refused, invalid, uncovered, nonResource;
  std::set<AuditRequest> usedGrants;
  for (const AuditRecord& rec : records) {
    const AuditRequest used{rec.apiGroup, rec.resource, rec.verb, rec.ns};
    if (rec.stage == "ResponseComplete" || rec.stage == "Panic") ++codes[used.describe()][rec.code];
    const std::string what = rec.verb + " " + rec.requestUri + " -> " + std::to_string(rec.code);
    if (rec.code == 401 || rec.code == 403) refused.insert(what);
    // What the operator sent was malformed or invalid: a bug of its own,
    // whatever the rules say.
    if (rec.code == 400 || rec.code == 422) invalid.insert(what);
    if (rec.resource.empty()) {
      nonResource.insert(rec.verb + " " + rec.requestUri);
      continue;
    }
    if (const AuditRequest* g = grantFor(used)) usedGrants.insert(*g);
    else uncovered.insert(used.describe());
  }
  std::printf("[ rbac     ] %zu audit events of %s:\n", records.size(), user.c_str());
  for (const auto& [request, byCode] : codes) {
    std::string line;
    for (const auto& [code, n] : byCode) line += " " + std::to_string(code) + "x" + std::to_string(n);
    std::printf("[ rbac     ]   %-70s%s\n", request.c_str(), line.c_str());
  }
  for (const std::string& u : nonResource) std::printf("[ rbac     ]   non-resource: %s\n", u.c_str());

  std::string text;
  for (const std::string& s : refused) text += "\n  " + s;
  EXPECT_TRUE(refused.empty()) << "requests refused (401/403):" << text;
  text.clear();
  for (const std::string& s : invalid) text += "\n  " + s;
  EXPECT_TRUE(invalid.empty()) << "requests the API server found malformed or invalid (400/422):" << text;
  text.clear();
  for (const std::string& s : uncovered) text += "\n  " + s;
  EXPECT_TRUE(uncovered.empty())
      << "MISSING from the chart's rules (requests the operator made that no rule grants; a 403 "
         "in a cluster where nothing else grants them):"
      << text;

  // (b) Every rule the scenario answers for used at least once.
  text.clear();
  for (const AuditRequest& g : mustUse)
    if (!usedGrants.count(g)) text += "\n  " + g.describe();
  EXPECT_TRUE(text.empty())
      << "UNUSED rules (granted by the chart, never called in the scenario): remove them from "
         "charts/distbench-operator/templates, or exercise the path here:"
      << text;
}

}  // namespace distbench::kubetest
