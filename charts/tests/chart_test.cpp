// charts/distbench-operator: lint, render, the CRD's single source, the
// Grafana dashboard's PromQL, and (ChartCluster*) the rendered objects,
// a real `helm install` and its RBAC against a real kube-apiserver.
#include <cpprest/json.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "chart_test_env.h"
#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"

#ifndef DISTBENCH_SOURCE_DIR
#error "DISTBENCH_SOURCE_DIR must name the repository root"
#endif
#ifndef DISTBENCH_VERSION
#error "DISTBENCH_VERSION must be the project's version"
#endif

namespace distbench::charttest {
namespace {

using process::BinaryResult;
using process::slurp;

const std::string kRoot = DISTBENCH_SOURCE_DIR;
const std::string kChart = kRoot + "/charts/distbench-operator";
const std::string kCrdName = "distbench.io_distbenchmarks.yaml";
const std::string kNamespace = "distbench-system";
const std::string kRelease = "rel";
const std::string kFullname = "rel-distbench-operator";

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string join(const std::vector<std::string>& args) {
  std::string line;
  for (const auto& a : args) line += (line.empty() ? "" : " ") + quote(a);
  return line;
}

// Runs helm or kubectl with its state (helm's cache and config, kubectl's
// discovery cache) in a private directory, never in $HOME.
class Runner {
 public:
  Runner() : dir_("distbench-chart-") {}
  const std::string& dir() const { return dir_.path(); }

  BinaryResult helm(const std::vector<std::string>& args) const {
    const std::string d = dir_.path();
    return run("env HELM_CACHE_HOME=" + quote(d + "/helm-cache") + " HELM_CONFIG_HOME=" +
               quote(d + "/helm-config") + " HELM_DATA_HOME=" + quote(d + "/helm-data") + " " +
               quote(tools().helm) + " " + join(args));
  }
  BinaryResult kubectl(const std::vector<std::string>& args) const {
    return run(quote(tools().kubectl) + " --cache-dir=" + quote(dir_.path() + "/kube-cache") + " " +
               join(args));
  }
  std::string write(const std::string& name, const std::string& content) const {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << content;
    return path;
  }

 private:
  BinaryResult run(const std::string& command) const {
    return process::runCaptured(command, dir_.path() + "/out", dir_.path() + "/err");
  }
  process::TempDir dir_;
};

std::string describe(const BinaryResult& r) {
  return "exit " + std::to_string(r.exitCode) + "\n--- stdout\n" + r.out.substr(0, 6000) +
         "\n--- stderr\n" + r.err.substr(0, 6000);
}

// The rendered manifest's objects, keyed "Kind/name".
std::map<std::string, YAML::Node> objects(const std::string& manifest) {
  std::map<std::string, YAML::Node> byKey;
  for (const YAML::Node& doc : YAML::LoadAll(manifest)) {
    if (!doc.IsMap()) continue;
    byKey[doc["kind"].as<std::string>() + "/" + doc["metadata"]["name"].as<std::string>()] = doc;
  }
  return byKey;
}

std::vector<std::string> strings(const YAML::Node& seq) {
  std::vector<std::string> out;
  if (seq && seq.IsSequence())
    for (const auto& n : seq) out.push_back(n.as<std::string>());
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// `helm template rel CHART -n distbench-system --set ... [extra]`; fails the
// test when helm does. Without --kube-version, helm assumes its own
// Kubernetes version (recent: policy/v1 and the rest).
std::string render(const Runner& r, const std::vector<std::string>& sets = {},
                   const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"template", kRelease, kChart, "--namespace", kNamespace};
  args.insert(args.end(), extra.begin(), extra.end());
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  BinaryResult res = r.helm(args);
  EXPECT_EQ(res.exitCode, 0) << "helm " << join(args) << ": " << describe(res);
  return res.out;
}

const YAML::Node& need(const std::map<std::string, YAML::Node>& objs, const std::string& key) {
  static const YAML::Node none;
  auto it = objs.find(key);
  if (it == objs.end()) {
    std::string have;
    for (const auto& [k, v] : objs) have += " " + k;
    ADD_FAILURE() << "no " << key << " in the rendered chart; it has:" << have;
    return none;
  }
  return it->second;
}

// The rules of a (Cluster)Role as "group/resource:verb" strings.
std::set<std::string> grants(const YAML::Node& role) {
  std::set<std::string> g;
  for (const auto& rule : role["rules"])
    for (const auto& group : strings(rule["apiGroups"]))
      for (const auto& res : strings(rule["resources"]))
        for (const auto& verb : strings(rule["verbs"])) g.insert(group + "/" + res + ":" + verb);
  return g;
}

// What the operator calls, exactly (docs/deploy.md, RBAC): no more, so a
// right the code stopped using leaves the chart too. The RBAC audit test
// (operator/tests/rbac_audit_test.cpp) checks these rules against the
// requests a real run of the operator makes.
const std::vector<std::string> kClusterGrants = {
    "distbench.io/distbenchmarks:get",
    "distbench.io/distbenchmarks:list",
    "distbench.io/distbenchmarks:watch",
    "distbench.io/distbenchmarks:delete",
    "distbench.io/distbenchmarks:create",  // a schedule's runs
    "distbench.io/distbenchmarks/status:update",
    "distbench.io/distbenchmarkschedules:get",
    "distbench.io/distbenchmarkschedules:list",
    "distbench.io/distbenchmarkschedules:watch",
    "distbench.io/distbenchmarkschedules/status:update",
    "/configmaps:update",  // a schedule's rolling baseline
    "/pods:get",
    "/pods:list",
    "/pods:watch",
    "/pods:create",
    "/pods/log:get",
    "/endpoints:get",
    "/endpoints:create",
    "/endpoints:update",
    "/secrets:get",
    "/secrets:create",
    "/secrets:delete",
    "/pods:delete",
    "/services:get",
    "/services:list",
    "/services:watch",
    "/services:create",
    "/services:delete",
    "/configmaps:get",
    "/configmaps:list",
    "/configmaps:watch",
    "/configmaps:create",
    "/configmaps:delete",
    "networking.k8s.io/networkpolicies:get",
    "networking.k8s.io/networkpolicies:list",
    "networking.k8s.io/networkpolicies:watch",
    "networking.k8s.io/networkpolicies:create",
    "networking.k8s.io/networkpolicies:delete",
    "/events:create",
    "/events:patch",
};
const std::vector<std::string> kLeaseGrants = {"coordination.k8s.io/leases:get",
                                               "coordination.k8s.io/leases:create",
                                               "coordination.k8s.io/leases:update"};

// ---------------------------------------------------------------------------
// Chart metadata and lint

TEST(Chart, VersionFollowsTheProject) {
  YAML::Node chart = YAML::LoadFile(kChart + "/Chart.yaml");
  EXPECT_EQ(chart["apiVersion"].as<std::string>(), "v2");
  EXPECT_EQ(chart["name"].as<std::string>(), "distbench-operator");
  EXPECT_EQ(chart["version"].as<std::string>(), DISTBENCH_VERSION)
      << "the chart's version moves with project(distbench VERSION ...)";
  EXPECT_EQ(chart["appVersion"].as<std::string>(), DISTBENCH_VERSION);
}

TEST(Chart, LintsCleanWithEveryValueSet) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  const std::vector<std::vector<std::string>> valueSets = {
      {},
      {"serviceMonitor.enabled=true", "serviceMonitor.workers.namespaces={bench}"},
      {"prometheusRule.enabled=true", "prometheusRule.labels.release=prom"},
      {"watchNamespace=bench", "leaderElection.enabled=false", "replicas=1"},
      {"networkPolicy.operator.namespaces={monitoring}", "spread.whenUnsatisfiable=DoNotSchedule"},
      {"grafanaDashboard.enabled=false", "rbac.create=false", "serviceAccount.create=false"},
      {"worker.image.tag=nightly", "worker.cudaImage.repository=registry.example/w-cuda"},
      {"fabric.suspectNodes=taint", "watchNamespace=bench"},
  };
  for (const auto& sets : valueSets) {
    std::vector<std::string> args = {"lint", "--strict", kChart};
    for (const auto& s : sets) {
      args.push_back("--set");
      args.push_back(s);
    }
    BinaryResult res = r.helm(args);
    EXPECT_EQ(res.exitCode, 0) << "helm " << join(args) << ": " << describe(res);
    EXPECT_NE(res.out.find("0 chart(s) failed"), std::string::npos) << res.out;
  }
}

// ---------------------------------------------------------------------------
// The CRD: one source of truth

TEST(ChartCrd, IsTheRepositorysCrd) {
  // Every CRD of crds/ ships with the chart, unchanged.
  for (const std::string& name : {kCrdName, std::string("distbench.io_distbenchmarkschedules.yaml"),
                                 std::string("distbench.io_distbenchpreflightpolicies.yaml")}) {
    const std::string root = slurp(kRoot + "/crds/" + name);
    const std::string inChart = slurp(kChart + "/crds/" + name);
    ASSERT_FALSE(root.empty()) << name;
    EXPECT_EQ(inChart, root) << "charts/distbench-operator/crds/" << name
                             << " must be the symlink ../../../crds/" << name
                             << " (or at least byte-identical to it)";
  }
}

TEST(ChartCrd, HelmShipsItFromTheSymlink) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  BinaryResult res = r.helm({"show", "crds", kChart});
  ASSERT_EQ(res.exitCode, 0) << describe(res);
  EXPECT_NE(res.out.find(slurp(kRoot + "/crds/" + kCrdName)), std::string::npos)
      << "helm show crds does not carry crds/" << kCrdName << ": " << res.out.substr(0, 400);

  // And a packaged chart holds the file's content, not a dangling link.
  BinaryResult pkg = r.helm({"package", kChart, "--destination", r.dir()});
  ASSERT_EQ(pkg.exitCode, 0) << describe(pkg);
  BinaryResult listing = process::runCaptured(
      "tar -xzOf " + quote(r.dir() + "/distbench-operator-" DISTBENCH_VERSION ".tgz") +
          " distbench-operator/crds/" + kCrdName,
      r.dir() + "/tar.out", r.dir() + "/tar.err");
  ASSERT_EQ(listing.exitCode, 0) << describe(listing);
  EXPECT_EQ(listing.out, slurp(kRoot + "/crds/" + kCrdName));
}

// ---------------------------------------------------------------------------
// helm template

TEST(ChartTemplate, DefaultsRenderTheOperatorWithLeaderElection) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  auto objs = objects(render(r));
  const std::set<std::string> expected = {"ServiceAccount/" + kFullname,
                                          "ClusterRole/" + kFullname,
                                          "ClusterRoleBinding/" + kFullname,
                                          "Role/" + kFullname + "-leader-election",
                                          "RoleBinding/" + kFullname + "-leader-election",
                                          "Service/" + kFullname + "-metrics",
                                          "Deployment/" + kFullname,
                                          "PodDisruptionBudget/" + kFullname,
                                          "NetworkPolicy/" + kFullname,
                                          "ConfigMap/" + kFullname + "-dashboard"};
  std::set<std::string> got;
  for (const auto& [k, v] : objs) got.insert(k);
  EXPECT_EQ(got, expected)
      << "serviceMonitor and prometheusRule are off by default: no ServiceMonitor, no "
         "PodMonitor, no PrometheusRule";

  const YAML::Node& deploy = need(objs, "Deployment/" + kFullname);
  ASSERT_TRUE(deploy);
  EXPECT_EQ(deploy["metadata"]["namespace"].as<std::string>(), kNamespace);
  EXPECT_EQ(deploy["spec"]["replicas"].as<int>(), 2);
  const YAML::Node pod = deploy["spec"]["template"]["spec"];
  EXPECT_EQ(pod["serviceAccountName"].as<std::string>(), kFullname);
  EXPECT_TRUE(pod["securityContext"]["runAsNonRoot"].as<bool>());
  EXPECT_NE(pod["securityContext"]["runAsUser"].as<int>(), 0);
  ASSERT_EQ(pod["containers"].size(), 1u);
  const YAML::Node c = pod["containers"][0];
  EXPECT_EQ(c["image"].as<std::string>(), "distbench/operator:" DISTBENCH_VERSION);
  EXPECT_TRUE(c["securityContext"]["readOnlyRootFilesystem"].as<bool>());
  EXPECT_FALSE(c["securityContext"]["allowPrivilegeEscalation"].as<bool>());
  EXPECT_TRUE(contains(strings(c["securityContext"]["capabilities"]["drop"]), "ALL"));

  const auto args = strings(c["args"]);
  for (const std::string& a : std::vector<std::string>{
           "--leader-elect", "--leader-election-id=distbench-operator",
           "--leader-election-namespace=" + kNamespace, "--workers=4",
           "--http-address=0.0.0.0:8080", "--log-format=json", "--log-level=info",
           // The images dockerfiles/ builds at this version, for benchmarks that name none.
           "--worker-image=distbench/worker:" DISTBENCH_VERSION,
           "--cuda-worker-image=distbench/worker-cuda:" DISTBENCH_VERSION})
    EXPECT_TRUE(contains(args, a)) << "no " << a << " in the operator's args";
  for (const auto& a : args)
    EXPECT_NE(a.rfind("--namespace", 0), 0u) << "watches every namespace by default";

  std::map<std::string, std::string> fieldEnv;
  for (const auto& e : c["env"])
    if (e["valueFrom"])
      fieldEnv[e["name"].as<std::string>()] =
          e["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>();
  EXPECT_EQ(fieldEnv["POD_NAME"], "metadata.name");
  EXPECT_EQ(fieldEnv["POD_NAMESPACE"], "metadata.namespace");

  ASSERT_EQ(c["ports"].size(), 1u);
  EXPECT_EQ(c["ports"][0]["name"].as<std::string>(), "http");
  EXPECT_EQ(c["ports"][0]["containerPort"].as<int>(), 8080);
  EXPECT_EQ(c["livenessProbe"]["httpGet"]["path"].as<std::string>(), "/healthz");
  EXPECT_EQ(c["livenessProbe"]["httpGet"]["port"].as<std::string>(), "http");
  EXPECT_EQ(c["readinessProbe"]["httpGet"]["path"].as<std::string>(), "/readyz");
  EXPECT_EQ(c["readinessProbe"]["httpGet"]["port"].as<std::string>(), "http");

  // The Deployment selects its own pods, and the Service selects them too.
  const YAML::Node podLabels = deploy["spec"]["template"]["metadata"]["labels"];
  for (const auto& kv : deploy["spec"]["selector"]["matchLabels"])
    EXPECT_EQ(podLabels[kv.first.as<std::string>()].as<std::string>(), kv.second.as<std::string>());
  const YAML::Node& svc = need(objs, "Service/" + kFullname + "-metrics");
  ASSERT_TRUE(svc);
  for (const auto& kv : svc["spec"]["selector"])
    EXPECT_EQ(podLabels[kv.first.as<std::string>()].as<std::string>(), kv.second.as<std::string>());
  EXPECT_EQ(svc["spec"]["ports"][0]["targetPort"].as<std::string>(), "http");
  // Not the benchmark pods' label: the operator's pods must not look like
  // benchmark pods to the worker PodMonitor.
  EXPECT_NE(podLabels["app.kubernetes.io/name"].as<std::string>(), "distbench");

  // RBAC: exactly what the operator calls, bound to its account.
  const auto cluster = grants(need(objs, "ClusterRole/" + kFullname));
  EXPECT_EQ(cluster, std::set<std::string>(kClusterGrants.begin(), kClusterGrants.end()))
      << "the ClusterRole's rules differ from what the operator calls";
  const auto lease = grants(need(objs, "Role/" + kFullname + "-leader-election"));
  EXPECT_EQ(lease, std::set<std::string>(kLeaseGrants.begin(), kLeaseGrants.end()))
      << "the leader-election Role's rules differ from what leader election calls";
  for (const std::string& key : std::vector<std::string>{
           "ClusterRoleBinding/" + kFullname, "RoleBinding/" + kFullname + "-leader-election"}) {
    const YAML::Node& b = need(objs, key);
    ASSERT_TRUE(b);
    EXPECT_EQ(b["subjects"][0]["kind"].as<std::string>(), "ServiceAccount") << key;
    EXPECT_EQ(b["subjects"][0]["name"].as<std::string>(), kFullname) << key;
    EXPECT_EQ(b["subjects"][0]["namespace"].as<std::string>(), kNamespace) << key;
  }

  // The dashboard ConfigMap carries the file as it is, for Grafana's sidecar.
  const YAML::Node& dash = need(objs, "ConfigMap/" + kFullname + "-dashboard");
  ASSERT_TRUE(dash);
  EXPECT_EQ(dash["metadata"]["labels"]["grafana_dashboard"].as<std::string>(), "1");
  EXPECT_EQ(dash["data"]["distbench.json"].as<std::string>() + "\n",
            slurp(kChart + "/dashboards/distbench.json"));
}

TEST(ChartTemplate, ServiceMonitorAndWorkerPodMonitorWhenEnabled) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  auto objs = objects(render(r, {"serviceMonitor.enabled=true", "serviceMonitor.labels.release=prom",
                                 "serviceMonitor.workers.namespaces={bench,bench-gpu}"}));
  const YAML::Node& sm = need(objs, "ServiceMonitor/" + kFullname);
  const YAML::Node& pm = need(objs, "PodMonitor/" + kFullname + "-workers");
  const YAML::Node& svc = need(objs, "Service/" + kFullname + "-metrics");
  ASSERT_TRUE(sm && pm && svc);
  EXPECT_EQ(sm["apiVersion"].as<std::string>(), "monitoring.coreos.com/v1");
  EXPECT_EQ(sm["metadata"]["labels"]["release"].as<std::string>(), "prom");
  // It selects the metrics Service and scrapes its port by name.
  for (const auto& kv : sm["spec"]["selector"]["matchLabels"])
    EXPECT_EQ(svc["metadata"]["labels"][kv.first.as<std::string>()].as<std::string>(),
              kv.second.as<std::string>());
  EXPECT_EQ(sm["spec"]["endpoints"][0]["port"].as<std::string>(),
            svc["spec"]["ports"][0]["name"].as<std::string>());
  EXPECT_EQ(sm["spec"]["endpoints"][0]["path"].as<std::string>(), "/metrics");
  // The schedule gauges' own namespace label must win over the target's.
  EXPECT_TRUE(sm["spec"]["endpoints"][0]["honorLabels"].as<bool>(false));
  // The PodMonitor selects the benchmark pods by the labels the operator
  // gives them (operator/src/benchmarks/desired_objects.cpp) and their "metrics" port.
  EXPECT_EQ(pm["spec"]["selector"]["matchLabels"]["app.kubernetes.io/managed-by"].as<std::string>(),
            "distbench-operator");
  EXPECT_EQ(pm["spec"]["podMetricsEndpoints"][0]["port"].as<std::string>(), "metrics");
  EXPECT_EQ(strings(pm["spec"]["namespaceSelector"]["matchNames"]),
            (std::vector<std::string>{"bench", "bench-gpu"}));
  EXPECT_FALSE(pm["spec"]["namespaceSelector"]["any"]) << "only the namespaces the values name";

  auto noWorkers =
      objects(render(r, {"serviceMonitor.enabled=true", "serviceMonitor.workers.enabled=false"}));
  EXPECT_TRUE(noWorkers.count("ServiceMonitor/" + kFullname));
  EXPECT_FALSE(noWorkers.count("PodMonitor/" + kFullname + "-workers"));
}

const std::string kRulesFile = kChart + "/rules/distbench-rules.yaml";
const std::vector<std::string> kAlerts = {"DistbenchPreflightRejectsMoreThanItAdmits",
                                          "DistbenchRegression", "DistbenchRunsFailing",
                                          "DistbenchScheduleStale"};

TEST(ChartTemplate, PrometheusRuleIsThePlainRulesFile) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  auto off = objects(render(r));
  for (const auto& [key, obj] : off)
    EXPECT_NE(obj["kind"].as<std::string>(), "PrometheusRule") << "off by default: " << key;

  auto objs =
      objects(render(r, {"prometheusRule.enabled=true", "prometheusRule.labels.release=prom",
                         "prometheusRule.namespace=monitoring"}));
  const YAML::Node& rule = need(objs, "PrometheusRule/" + kFullname);
  ASSERT_TRUE(rule);
  EXPECT_EQ(rule["apiVersion"].as<std::string>(), "monitoring.coreos.com/v1");
  EXPECT_EQ(rule["metadata"]["namespace"].as<std::string>(), "monitoring");
  EXPECT_EQ(rule["metadata"]["labels"]["release"].as<std::string>(""), "prom");
  EXPECT_EQ(rule["metadata"]["labels"]["app.kubernetes.io/part-of"].as<std::string>(""),
            "distbench");
  ASSERT_EQ(rule["spec"].size(), 1u) << "spec holds the groups and nothing else";

  // The groups are the plain rules file's, as Prometheus reads it: the
  // same YAML once parsed (helm indents it and keeps its comments).
  const YAML::Node plain = YAML::LoadFile(kRulesFile);
  ASSERT_TRUE(plain["groups"] && plain["groups"].IsSequence()) << kRulesFile;
  EXPECT_EQ(YAML::Dump(rule["spec"]["groups"]), YAML::Dump(plain["groups"]))
      << "the PrometheusRule's groups differ from " << kRulesFile;
  // Prometheus's own template actions survive helm untouched.
  EXPECT_NE(YAML::Dump(rule["spec"]["groups"]).find("{{ $labels.schedule }}"), std::string::npos);

  // The three alerts, each with a severity and a runbook-style text.
  std::set<std::string> alerts;
  for (const auto& group : plain["groups"])
    for (const auto& rl : group["rules"]) {
      const std::string name = rl["alert"].as<std::string>("");
      alerts.insert(name);
      EXPECT_FALSE(rl["labels"]["severity"].as<std::string>("").empty()) << name;
      EXPECT_FALSE(rl["annotations"]["summary"].as<std::string>("").empty()) << name;
      EXPECT_NE(rl["annotations"]["description"].as<std::string>("").find("What to check"),
                std::string::npos)
          << name;
      if (group["name"].as<std::string>("") != "distbench-schedules") continue;
      EXPECT_NE(rl["expr"].as<std::string>("").find("by (namespace, schedule)"), std::string::npos)
          << name << ": one series per schedule, whichever replica exports it";
    }
  EXPECT_EQ(alerts, std::set<std::string>(kAlerts.begin(), kAlerts.end()));
}

// The operator's pod labels, from the rendered Deployment.
YAML::Node operatorPodLabels(const std::map<std::string, YAML::Node>& objs) {
  return need(objs, "Deployment/" + kFullname)["spec"]["template"]["metadata"]["labels"];
}

// A matchLabels selector that selects pods with these labels, and selects
// something (an empty selector would select every pod of the namespace).
void expectSelects(const YAML::Node& matchLabels, const YAML::Node& podLabels,
                   const std::string& what) {
  ASSERT_TRUE(matchLabels && matchLabels.IsMap() && matchLabels.size() > 0)
      << what << ": no matchLabels";
  for (const auto& kv : matchLabels)
    EXPECT_EQ(podLabels[kv.first.as<std::string>()].as<std::string>(""),
              kv.second.as<std::string>())
        << what << " selects " << kv.first.as<std::string>();
}

TEST(ChartTemplate, DisruptionBudgetAndSpreadKeepAStandby) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  auto objs = objects(render(r));
  const YAML::Node podLabels = operatorPodLabels(objs);
  ASSERT_TRUE(podLabels);

  // A drain evicts one replica at a time: the other stays to hold the Lease.
  const YAML::Node& pdb = need(objs, "PodDisruptionBudget/" + kFullname);
  ASSERT_TRUE(pdb);
  EXPECT_EQ(pdb["apiVersion"].as<std::string>(), "policy/v1");
  EXPECT_EQ(pdb["metadata"]["namespace"].as<std::string>(), kNamespace);
  EXPECT_EQ(pdb["spec"]["maxUnavailable"].as<int>(), 1);
  EXPECT_FALSE(pdb["spec"]["minAvailable"]);
  expectSelects(pdb["spec"]["selector"]["matchLabels"], podLabels, "the PodDisruptionBudget");
  // Before 1.21 (Debian 12 ships 1.20) only policy/v1beta1 serves it.
  auto old = objects(render(r, {}, {"--kube-version", "1.20.2"}));
  EXPECT_EQ(need(old, "PodDisruptionBudget/" + kFullname)["apiVersion"].as<std::string>(""),
            "policy/v1beta1");

  // The two replicas spread over nodes.
  const YAML::Node pod = need(objs, "Deployment/" + kFullname)["spec"]["template"]["spec"];
  ASSERT_EQ(pod["topologySpreadConstraints"].size(), 1u);
  const YAML::Node spread = pod["topologySpreadConstraints"][0];
  EXPECT_EQ(spread["topologyKey"].as<std::string>(), "kubernetes.io/hostname");
  EXPECT_EQ(spread["maxSkew"].as<int>(), 1);
  EXPECT_EQ(spread["whenUnsatisfiable"].as<std::string>(), "ScheduleAnyway")
      << "a single-node cluster must still run both replicas";
  expectSelects(spread["labelSelector"]["matchLabels"], podLabels, "the spread constraint");

  auto hard = objects(render(r, {"spread.whenUnsatisfiable=DoNotSchedule",
                                 "spread.topologyKey=topology.kubernetes.io/zone"}));
  const YAML::Node hardSpread = need(hard, "Deployment/" + kFullname)["spec"]["template"]["spec"]
                                    ["topologySpreadConstraints"][0];
  EXPECT_EQ(hardSpread["whenUnsatisfiable"].as<std::string>(""), "DoNotSchedule");
  EXPECT_EQ(hardSpread["topologyKey"].as<std::string>(""), "topology.kubernetes.io/zone");

  // Constraints of one's own replace the chart's.
  auto own = objects(render(r, {"topologySpreadConstraints[0].maxSkew=2",
                                "topologySpreadConstraints[0].topologyKey=rack",
                                "topologySpreadConstraints[0].whenUnsatisfiable=DoNotSchedule"}));
  const YAML::Node ownPod = need(own, "Deployment/" + kFullname)["spec"]["template"]["spec"];
  ASSERT_EQ(ownPod["topologySpreadConstraints"].size(), 1u);
  EXPECT_EQ(ownPod["topologySpreadConstraints"][0]["topologyKey"].as<std::string>(""), "rack");

  // One replica: no budget (it would block every drain) and nothing to spread.
  auto single = objects(render(r, {"replicas=1", "leaderElection.enabled=false"}));
  EXPECT_FALSE(single.count("PodDisruptionBudget/" + kFullname));
  EXPECT_FALSE(need(single, "Deployment/" + kFullname)["spec"]["template"]["spec"]
                   ["topologySpreadConstraints"]);
  auto off = objects(render(r, {"podDisruptionBudget.enabled=false", "spread.enabled=false"}));
  EXPECT_FALSE(off.count("PodDisruptionBudget/" + kFullname));
  EXPECT_FALSE(
      need(off, "Deployment/" + kFullname)["spec"]["template"]["spec"]["topologySpreadConstraints"]);
}

// The one ingress rule of the operator's NetworkPolicy: its ports and peers.
struct OperatorIngress {
  std::vector<std::pair<int, std::string>> ports;  // port, protocol
  YAML::Node from;
};
OperatorIngress operatorIngress(const std::map<std::string, YAML::Node>& objs) {
  OperatorIngress in;
  const YAML::Node& np = need(objs, "NetworkPolicy/" + kFullname);
  if (!np) return in;
  EXPECT_EQ(np["metadata"]["namespace"].as<std::string>(), kNamespace);
  expectSelects(np["spec"]["podSelector"]["matchLabels"], operatorPodLabels(objs),
                "the NetworkPolicy");
  EXPECT_EQ(strings(np["spec"]["policyTypes"]), std::vector<std::string>{"Ingress"})
      << "egress stays open: the operator calls the API server";
  EXPECT_EQ(np["spec"]["ingress"].size(), 1u);
  const YAML::Node rule = np["spec"]["ingress"][0];
  for (const auto& p : rule["ports"])
    in.ports.emplace_back(p["port"].as<int>(), p["protocol"].as<std::string>());
  in.from = rule["from"];
  return in;
}

TEST(ChartTemplate, NetworkPolicyAdmitsOnlyTheHttpPortFromNamedPeers) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  const std::vector<std::pair<int, std::string>> http = {{8080, "TCP"}};

  // Defaults: the HTTP port (metrics and probes), from every pod in the
  // cluster: one peer, an empty namespaceSelector and nothing else.
  OperatorIngress def = operatorIngress(objects(render(r)));
  EXPECT_EQ(def.ports, http);
  ASSERT_TRUE(def.from && def.from.IsSequence()) << "a rule without from admits every source";
  ASSERT_EQ(def.from.size(), 1u);
  ASSERT_TRUE(def.from[0]["namespaceSelector"].IsMap());
  EXPECT_EQ(def.from[0]["namespaceSelector"].size(), 0u);
  EXPECT_FALSE(def.from[0]["podSelector"] || def.from[0]["ipBlock"]);

  // Named namespaces and peers replace "every pod", and the port follows httpPort.
  OperatorIngress named = operatorIngress(objects(
      render(r, {"httpPort=9090", "networkPolicy.operator.namespaces={monitoring,ops}",
                 "networkPolicy.operator.from[0].ipBlock.cidr=10.1.0.0/16"})));
  EXPECT_EQ(named.ports, (std::vector<std::pair<int, std::string>>{{9090, "TCP"}}));
  ASSERT_EQ(named.from.size(), 3u);
  EXPECT_EQ(named.from[0]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
                .as<std::string>(""),
            "monitoring");
  EXPECT_EQ(named.from[1]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
                .as<std::string>(""),
            "ops");
  EXPECT_EQ(named.from[2]["ipBlock"]["cidr"].as<std::string>(""), "10.1.0.0/16");
  for (const auto& peer : named.from) {
    if (peer["namespaceSelector"]) {
      EXPECT_GT(peer["namespaceSelector"].size(), 0u) << "no catch-all once peers are named";
    }
  }

  OperatorIngress onlyFrom = operatorIngress(objects(render(
      r, {"networkPolicy.operator.from[0].podSelector.matchLabels.app=prometheus"})));
  ASSERT_EQ(onlyFrom.from.size(), 1u);
  EXPECT_EQ(onlyFrom.from[0]["podSelector"]["matchLabels"]["app"].as<std::string>(""),
            "prometheus");

  auto off = objects(render(r, {"networkPolicy.operator.enabled=false"}));
  EXPECT_FALSE(off.count("NetworkPolicy/" + kFullname));
}

TEST(ChartTemplate, WorkerPodMonitorScrapesOnlyNamedNamespaces) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  // Neither serviceMonitor.workers.namespaces nor watchNamespace: the chart
  // refuses, naming the value, rather than select every namespace.
  std::vector<std::string> args = {"template", kRelease, kChart, "--namespace", kNamespace,
                                   "--set", "serviceMonitor.enabled=true"};
  BinaryResult res = r.helm(args);
  EXPECT_NE(res.exitCode, 0) << "the PodMonitor rendered with no namespace named: " << res.out;
  EXPECT_NE(res.err.find("serviceMonitor.workers.namespaces"), std::string::npos) << describe(res);

  // Named namespaces win over watchNamespace.
  auto objs = objects(render(r, {"serviceMonitor.enabled=true", "watchNamespace=bench",
                                 "serviceMonitor.workers.namespaces={team-a}"}));
  const YAML::Node sel = need(objs, "PodMonitor/" + kFullname + "-workers")["spec"]
                                                                            ["namespaceSelector"];
  EXPECT_EQ(strings(sel["matchNames"]), std::vector<std::string>{"team-a"});
  EXPECT_FALSE(sel["any"]);

  // Without the PodMonitor nothing needs naming.
  auto noWorkers = objects(
      render(r, {"serviceMonitor.enabled=true", "serviceMonitor.workers.enabled=false"}));
  EXPECT_TRUE(noWorkers.count("ServiceMonitor/" + kFullname));
}

TEST(ChartTemplate, OneWatchedNamespaceBindsTheRoleThereOnly) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  auto objs = objects(render(r, {"watchNamespace=bench", "serviceMonitor.enabled=true"}));
  EXPECT_FALSE(objs.count("ClusterRoleBinding/" + kFullname));
  const YAML::Node& rb = need(objs, "RoleBinding/" + kFullname);
  ASSERT_TRUE(rb);
  EXPECT_EQ(rb["metadata"]["namespace"].as<std::string>(), "bench");
  EXPECT_EQ(rb["roleRef"]["kind"].as<std::string>(), "ClusterRole");
  const auto args = strings(
      need(objs, "Deployment/" + kFullname)["spec"]["template"]["spec"]["containers"][0]["args"]);
  EXPECT_TRUE(contains(args, "--namespace=bench"));
  EXPECT_EQ(strings(need(objs, "PodMonitor/" + kFullname +
                                   "-workers")["spec"]["namespaceSelector"]["matchNames"]),
            std::vector<std::string>{"bench"});
}

TEST(ChartTemplate, MarkingSuspectNodesAddsOnlyTheNodeRuleAndTheFlag) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  const std::string key = "ClusterRole/" + kFullname + "-suspect-nodes";
  auto off = objects(render(r));
  EXPECT_FALSE(off.count(key)) << "no right on nodes by default";
  EXPECT_TRUE(contains(strings(need(off, "Deployment/" + kFullname)["spec"]["template"]["spec"]
                                   ["containers"][0]["args"]),
                       "--suspect-nodes=none"));

  // Bound cluster-wide even for one watched namespace: nodes have none.
  auto on = objects(render(r, {"fabric.suspectNodes=label", "watchNamespace=bench"}));
  const YAML::Node& role = need(on, key);
  ASSERT_TRUE(role);
  ASSERT_EQ(role["rules"].size(), 1u);
  EXPECT_EQ(strings(role["rules"][0]["resources"]), std::vector<std::string>{"nodes"});
  EXPECT_EQ(strings(role["rules"][0]["verbs"]), (std::vector<std::string>{"get", "patch"}));
  EXPECT_EQ(need(on, "ClusterRoleBinding/" + kFullname + "-suspect-nodes")["roleRef"]["name"]
                .as<std::string>(),
            kFullname + "-suspect-nodes");
  EXPECT_TRUE(contains(strings(need(on, "Deployment/" + kFullname)["spec"]["template"]["spec"]
                                  ["containers"][0]["args"]),
                       "--suspect-nodes=label"));

  // A value the operator would refuse fails the install, naming it.
  std::vector<std::string> args = {"template", kRelease, kChart, "--set", "fabric.suspectNodes=cordon"};
  BinaryResult bad = r.helm(args);
  EXPECT_NE(bad.exitCode, 0);
  EXPECT_NE((bad.out + bad.err).find("fabric.suspectNodes"), std::string::npos) << describe(bad);
}

TEST(ChartTemplate, ThePreflightGateAddsItsRulesAndFlagOnlyWhenEnabled) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  const std::string key = "ClusterRole/" + kFullname + "-preflight";
  auto resourcesOf = [](const YAML::Node& role) {
    std::vector<std::string> out;
    for (const auto& rule : role["rules"])
      for (const std::string& res : strings(rule["resources"])) out.push_back(res);
    return out;
  };
  auto off = objects(render(r));
  EXPECT_FALSE(off.count(key)) << "no gate, no rights for it, by default";
  EXPECT_FALSE(contains(resourcesOf(need(off, "ClusterRole/" + kFullname)), "workloads"));
  EXPECT_FALSE(contains(strings(need(off, "Deployment/" + kFullname)["spec"]["template"]["spec"]
                                    ["containers"][0]["args"]),
                        "--preflight"));

  auto on = objects(render(r, {"preflight.enabled=true", "watchNamespace=bench"}));
  const YAML::Node& role = need(on, key);
  ASSERT_TRUE(role);
  EXPECT_EQ(resourcesOf(role), (std::vector<std::string>{"admissionchecks", "admissionchecks/status",
                                                         "distbenchpreflightpolicies", "nodes"}));
  EXPECT_EQ(need(on, "ClusterRoleBinding/" + kFullname + "-preflight")["roleRef"]["name"]
                .as<std::string>(),
            kFullname + "-preflight");
  // The Workloads are namespaced: in the operator's own role, bound where it is.
  const std::vector<std::string> main = resourcesOf(need(on, "ClusterRole/" + kFullname));
  EXPECT_TRUE(contains(main, "workloads"));
  EXPECT_TRUE(contains(main, "workloads/status"));
  EXPECT_TRUE(contains(strings(need(on, "Deployment/" + kFullname)["spec"]["template"]["spec"]
                                   ["containers"][0]["args"]),
                       "--preflight"));
}

TEST(ChartTemplate, LeaderElectionOffDropsTheLeaseRole) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  auto objs = objects(render(r, {"leaderElection.enabled=false", "replicas=1", "workers=8",
                                 "logFormat=text", "extraArgs={--log-level=debug}"}));
  EXPECT_FALSE(objs.count("Role/" + kFullname + "-leader-election"));
  const YAML::Node& deploy = need(objs, "Deployment/" + kFullname);
  ASSERT_TRUE(deploy);
  EXPECT_EQ(deploy["spec"]["replicas"].as<int>(), 1);
  const auto args = strings(deploy["spec"]["template"]["spec"]["containers"][0]["args"]);
  for (const auto& a : args) EXPECT_NE(a.rfind("--leader-elect", 0), 0u) << a;
  EXPECT_TRUE(contains(args, "--workers=8"));
  EXPECT_TRUE(contains(args, "--log-format=text"));
  EXPECT_EQ(args.back(), "--log-level=debug") << "extraArgs come last, so they win";
}

TEST(ChartTemplate, WorkerImagesBecomeTheOperatorsFlags) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  auto objs = objects(render(
      r, {"worker.image.repository=registry.example:5000/distbench/worker",
          "worker.image.tag=nightly", "worker.cudaImage.repository=registry.example:5000/w-cuda"}));
  const YAML::Node& deploy = need(objs, "Deployment/" + kFullname);
  ASSERT_TRUE(deploy);
  const auto args = strings(deploy["spec"]["template"]["spec"]["containers"][0]["args"]);
  EXPECT_TRUE(contains(args, "--worker-image=registry.example:5000/distbench/worker:nightly"));
  EXPECT_TRUE(contains(args, "--cuda-worker-image=registry.example:5000/w-cuda:" DISTBENCH_VERSION))
      << "a tag left empty is the chart's appVersion";
  int imageFlags = 0;
  for (const auto& a : args) imageFlags += a.rfind("--worker-image", 0) == 0;
  EXPECT_EQ(imageFlags, 1);
}

TEST(ChartTemplate, PrivilegedOverridesAreOffUnlessAllowed) {
  DISTBENCH_REQUIRE_TOOLS(false);
  Runner r;
  const auto argsWith = [&r](const std::vector<std::string>& sets) {
    auto objs = objects(render(r, sets));
    const YAML::Node& deploy = need(objs, "Deployment/" + kFullname);
    return deploy ? strings(deploy["spec"]["template"]["spec"]["containers"][0]["args"])
                  : std::vector<std::string>{};
  };
  EXPECT_FALSE(contains(argsWith({}), "--allow-privileged-overrides"));
  EXPECT_TRUE(contains(argsWith({"allowPrivilegedOverrides=true"}), "--allow-privileged-overrides"));
}

// ---------------------------------------------------------------------------
// The Grafana dashboard

// Metric names and types from the docs' tables: rows that start
// "| `distbench_x` | histogram |".
std::map<std::string, std::string> documentedMetrics(const std::string& doc) {
  std::map<std::string, std::string> m;
  static const std::regex row(
      R"(^\|\s*`(distbench_[a-z0-9_]+)`\s*\|\s*(histogram|counter|gauge|summary)\s*\|)");
  std::istringstream in(slurp(doc));
  std::string line;
  std::smatch match;
  while (std::getline(in, line))
    if (std::regex_search(line, match, row)) m[match[1]] = match[2];
  return m;
}

void collectExprs(const web::json::value& panels,
                  std::vector<std::pair<std::string, std::string>>& out, std::set<int>& ids) {
  for (const auto& p : panels.as_array()) {
    const std::string title = p.has_field("title") ? p.at("title").as_string() : "";
    EXPECT_TRUE(p.has_field("id")) << "panel " << title;
    if (p.has_field("id")) {
      EXPECT_TRUE(ids.insert(p.at("id").as_integer()).second) << "duplicate panel id in " << title;
    }
    EXPECT_TRUE(p.has_field("gridPos")) << "panel " << title;
    if (p.has_field("panels")) collectExprs(p.at("panels"), out, ids);
    if (!p.has_field("targets")) continue;
    for (const auto& t : p.at("targets").as_array())
      if (t.has_field("expr")) out.emplace_back(title, t.at("expr").as_string());
  }
}

TEST(ChartDashboard, ParsesAndQueriesOnlyDocumentedMetrics) {
  const std::string text = slurp(kChart + "/dashboards/distbench.json");
  ASSERT_FALSE(text.empty());
  web::json::value dash;
  ASSERT_NO_THROW(dash = web::json::value::parse(text)) << "dashboards/distbench.json is not JSON";
  EXPECT_EQ(dash.at("uid").as_string(), "distbench");
  ASSERT_TRUE(dash.at("panels").is_array());

  std::vector<std::pair<std::string, std::string>> exprs;
  std::set<int> ids;
  collectExprs(dash.at("panels"), exprs, ids);
  ASSERT_GE(exprs.size(), 10u);
  // Annotation queries (the regressions of scheduled runs) and template
  // variables query Prometheus too.
  for (const auto& a : dash.at("annotations").at("list").as_array())
    if (a.has_field("expr"))
      exprs.emplace_back("annotation " + a.at("name").as_string(), a.at("expr").as_string());
  std::set<std::string> variables;
  for (const auto& v : dash.at("templating").at("list").as_array()) {
    variables.insert(v.at("name").as_string());
    if (v.has_field("definition"))
      exprs.emplace_back("variable " + v.at("name").as_string(), v.at("definition").as_string());
  }

  // Every metric, the ranks' and the operator's, is documented in
  // docs/metrics.md.
  const auto docs = documentedMetrics(kRoot + "/docs/metrics.md");
  ASSERT_GE(docs.size(), 10u) << "no metric tables found in docs/metrics.md";

  static const std::regex metricName(R"(\bdistbench_[a-zA-Z0-9_]+)");
  static const std::regex histogramSuffix(R"(^(.*)_(bucket|sum|count)$)");
  std::set<std::string> used;
  for (const auto& [panel, expr] : exprs) {
    for (auto it = std::sregex_iterator(expr.begin(), expr.end(), metricName);
         it != std::sregex_iterator(); ++it) {
      std::string name = it->str();
      std::string base = name;
      std::smatch m;
      bool seriesOfHistogram = false;
      if (!docs.count(name) && std::regex_match(name, m, histogramSuffix)) {
        base = m[1];
        seriesOfHistogram = true;
      }
      auto found = docs.find(base);
      if (found == docs.end()) {
        ADD_FAILURE() << "panel \"" << panel << "\" queries " << name
                      << ", which docs/metrics.md does not document (no table row \"| `" << base
                      << "` | type |\"): " << expr;
        continue;
      }
      if (seriesOfHistogram) {
        EXPECT_EQ(found->second, "histogram")
            << "panel \"" << panel << "\" uses " << name << " of a " << found->second;
      }
      used.insert(base);
    }
    if (expr.find("histogram_quantile") != std::string::npos) {
      EXPECT_NE(expr.find("_bucket"), std::string::npos)
          << "panel \"" << panel << "\": histogram_quantile over no buckets: " << expr;
    }
  }

  // What the dashboard is for: worker latency histograms and the operator.
  for (const std::string& m : std::vector<std::string>{
           "distbench_epoch_seconds", "distbench_iteration_seconds", "distbench_allreduce_seconds",
           "distbench_rpc_seconds", "distbench_collective_seconds",
           "distbench_operator_reconcile_duration_seconds", "distbench_operator_workqueue_depth",
           "distbench_operator_benchmarks",
           // The continuous-benchmarking row: p50 per run against the
           // baseline band, regressions, failures, staleness.
           "distbench_schedule_last_run_p50_seconds", "distbench_schedule_baseline_p50_seconds",
           "distbench_schedule_regression_threshold_ratio", "distbench_schedule_regression",
           "distbench_schedule_consecutive_failures",
           "distbench_schedule_last_successful_run_timestamp_seconds"})
    EXPECT_TRUE(used.count(m)) << "the dashboard has no panel on " << m;
  bool regressionAnnotation = false;
  for (const auto& [panel, expr] : exprs)
    if (panel.rfind("annotation ", 0) == 0 &&
        expr.find("distbench_schedule_regression") != std::string::npos)
      regressionAnnotation = true;
  EXPECT_TRUE(regressionAnnotation) << "no annotation marking scheduled runs that regressed";
  for (const char* v : {"namespace", "schedule"})
    EXPECT_TRUE(variables.count(v)) << "no template variable " << v << " for the schedule panels";
  bool p99Reconcile = false;
  for (const auto& [panel, expr] : exprs)
    if (expr.find("histogram_quantile(0.99") != std::string::npos &&
        expr.find("distbench_operator_reconcile_duration_seconds_bucket") != std::string::npos)
      p99Reconcile = true;
  EXPECT_TRUE(p99Reconcile) << "no reconcile p99 panel";

  // Queries go through the dashboard's datasource variable, so the sidecar
  // import works with any Prometheus data source name.
  bool datasourceVar = false;
  for (const auto& v : dash.at("templating").at("list").as_array())
    if (v.at("type").as_string() == "datasource") datasourceVar = true;
  EXPECT_TRUE(datasourceVar);
}

// ---------------------------------------------------------------------------
// Against a real kube-apiserver (etcd + kube-apiserver on loopback)

// Minimal stand-ins for the Prometheus Operator's CRDs: the API server then
// knows the kinds, so the rendered ServiceMonitor, PodMonitor and
// PrometheusRule go through a server-side dry run with the rest (the schema
// itself is not checked).
const char* kMonitoringCrds = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: servicemonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {kind: ServiceMonitor, listKind: ServiceMonitorList, plural: servicemonitors, singular: servicemonitor}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: podmonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {kind: PodMonitor, listKind: PodMonitorList, plural: podmonitors, singular: podmonitor}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: prometheusrules.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {kind: PrometheusRule, listKind: PrometheusRuleList, plural: prometheusrules, singular: prometheusrule}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
)";

class ChartCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    DISTBENCH_REQUIRE_TOOLS(true);
    cluster_ = chartCluster();
    if (!cluster_) GTEST_FAIL() << "the test cluster did not start: " << clusterError();
    kubeconfig_ = runner_.dir() + "/kubeconfig";
    cluster_->writeKubeconfig(kubeconfig_);
    for (const std::string& ns : std::vector<std::string>{kNamespace, "bench"}) {
      BinaryResult res = kubectl({"get", "namespace", ns});
      if (res.exitCode != 0) {
        ASSERT_EQ(kubectl({"create", "namespace", ns}).exitCode, 0) << ns;
      }
    }
  }
  BinaryResult kubectl(std::vector<std::string> args) const {
    args.insert(args.begin(), "--kubeconfig=" + kubeconfig_);
    return runner_.kubectl(args);
  }
  BinaryResult helm(std::vector<std::string> args) const {
    args.push_back("--kubeconfig=" + kubeconfig_);
    return runner_.helm(args);
  }
  void applyForReal(const std::string& file, const std::vector<std::string>& crds) {
    BinaryResult res = kubectl({"apply", "-f", file});
    ASSERT_EQ(res.exitCode, 0) << "kubectl apply -f " << file << ": " << describe(res);
    for (const auto& crd : crds) {
      BinaryResult wait =
          kubectl({"wait", "--for=condition=Established", "--timeout=60s", "crd/" + crd});
      ASSERT_EQ(wait.exitCode, 0) << describe(wait);
    }
  }
  // `kubectl apply --dry-run=server` of a rendered manifest: every object is
  // checked by the API server (schema, defaulting, admission) and none kept.
  void dryRun(const std::string& manifest, const std::string& what) {
    const std::string file = runner_.write("rendered.yaml", manifest);
    BinaryResult res = kubectl({"apply", "--dry-run=server", "-o", "name", "-f", file});
    EXPECT_EQ(res.exitCode, 0) << what << ": " << describe(res);
    size_t lines = 0;
    std::istringstream out(res.out);
    for (std::string l; std::getline(out, l);) lines += !l.empty();
    EXPECT_EQ(lines, objects(manifest).size()) << what << ": not every object was accepted:\n"
                                               << res.out << res.err;
  }

  Runner runner_;
  kubetest::KubeTestCluster* cluster_ = nullptr;
  std::string kubeconfig_;
};

TEST_F(ChartCluster, RenderedObjectsPassAServerSideDryRun) {
  applyForReal(kChart + "/crds/" + kCrdName, {"distbenchmarks.distbench.io"});
  applyForReal(runner_.write("monitoring-crds.yaml", kMonitoringCrds),
               {"servicemonitors.monitoring.coreos.com", "podmonitors.monitoring.coreos.com",
                "prometheusrules.monitoring.coreos.com"});

  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"defaults", {}},
      {"serviceMonitor on",
       {"serviceMonitor.enabled=true", "serviceMonitor.workers.namespaces={bench}"}},
      {"prometheusRule on", {"prometheusRule.enabled=true"}},
      {"operator NetworkPolicy from named peers",
       {"networkPolicy.operator.namespaces={monitoring}",
        "networkPolicy.operator.from[0].ipBlock.cidr=10.1.0.0/16",
        "spread.whenUnsatisfiable=DoNotSchedule"}},
      {"one watched namespace", {"watchNamespace=bench", "serviceMonitor.enabled=true"}},
      {"leader election off", {"leaderElection.enabled=false", "replicas=1"}},
  };
  // Rendered for this server's version, as `helm install` does.
  BinaryResult version = kubectl({"version", "-o", "json"});
  ASSERT_EQ(version.exitCode, 0) << describe(version);
  const std::string serverVersion = web::json::value::parse(version.out)
                                        .at("serverVersion")
                                        .at("gitVersion")
                                        .as_string();
  for (const auto& [what, sets] : cases)
    dryRun(render(runner_, sets, {"--kube-version", serverVersion}), what);

  // The example the docs deploy is accepted next to the chart's objects.
  BinaryResult example =
      kubectl({"apply", "--dry-run=server", "-n", "bench", "-f", kRoot + "/examples/small.yaml"});
  EXPECT_EQ(example.exitCode, 0) << describe(example);
}

// A real install: helm creates the CRD from the chart's crds/ and every
// object, and the API server's RBAC authorizer then grants the operator's
// ServiceAccount exactly what its contract needs.
TEST_F(ChartCluster, HelmInstallGrantsTheOperatorItsRbac) {
  // helm installs crds/ only when the CRD is absent: take it away first.
  BinaryResult del = kubectl({"delete", "crd", "distbenchmarks.distbench.io", "--ignore-not-found",
                              "--wait=true", "--timeout=60s"});
  ASSERT_EQ(del.exitCode, 0) << describe(del);

  BinaryResult install = helm({"install", kRelease, kChart, "--namespace", kNamespace});
  ASSERT_EQ(install.exitCode, 0) << describe(install);
  EXPECT_NE(install.out.find("STATUS: deployed"), std::string::npos) << install.out;

  BinaryResult crd = kubectl(
      {"wait", "--for=condition=Established", "--timeout=60s", "crd/distbenchmarks.distbench.io"});
  EXPECT_EQ(crd.exitCode, 0) << "helm did not install the chart's CRD: " << describe(crd);
  for (const std::string& obj : std::vector<std::string>{
           "deployment/" + kFullname, "serviceaccount/" + kFullname,
           "service/" + kFullname + "-metrics", "configmap/" + kFullname + "-dashboard",
           "role/" + kFullname + "-leader-election",
           "rolebinding/" + kFullname + "-leader-election", "poddisruptionbudget/" + kFullname,
           "networkpolicy/" + kFullname})
    EXPECT_EQ(kubectl({"get", "-n", kNamespace, obj}).exitCode, 0) << obj;
  EXPECT_EQ(kubectl({"get", "clusterrole/" + kFullname}).exitCode, 0);
  EXPECT_EQ(kubectl({"get", "clusterrolebinding/" + kFullname}).exitCode, 0);

  const std::string as = "--as=system:serviceaccount:" + kNamespace + ":" + kFullname;
  auto can = [&](const std::string& verb, const std::string& resource, const std::string& ns,
                 const std::string& subresource = "") {
    std::vector<std::string> args = {"auth", "can-i", verb, resource, as, "-n", ns};
    if (!subresource.empty()) args.push_back("--subresource=" + subresource);
    BinaryResult res = kubectl(args);
    const bool yes = res.out.rfind("yes", 0) == 0;
    if (!yes && res.out.rfind("no", 0) != 0)
      ADD_FAILURE() << "kubectl auth can-i: " << describe(res);
    return yes;
  };
  // Benchmarks live in any namespace: check one that is not the release's.
  // Every rule of kClusterGrants is granted there, through the real
  // authorizer.
  // "group/resource[/subresource]:verb" -> kubectl's "resource.group" and
  // --subresource.
  static const std::regex grant(R"(^([^/]*)/([^/:]+)(?:/([^:]+))?:(.+)$)");
  for (const std::string& g : kClusterGrants) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(g, m, grant)) << g;
    const std::string resource = m[1].str().empty() ? m[2].str() : m[2].str() + "." + m[1].str();
    EXPECT_TRUE(can(m[4], resource, "bench", m[3])) << g;
  }
  for (const char* verb : {"get", "create", "update"})
    EXPECT_TRUE(can(verb, "leases.coordination.k8s.io", kNamespace)) << verb << " leases";
  // And no more than that.
  EXPECT_FALSE(can("create", "leases.coordination.k8s.io", "bench"))
      << "leases only in the release namespace";
  // The run key Secret by name only: never a list of every Secret.
  EXPECT_FALSE(can("list", "secrets", "bench"));
  EXPECT_FALSE(can("watch", "secrets", "bench"));
  EXPECT_FALSE(can("update", "secrets", "bench"));
  EXPECT_FALSE(can("update", "distbenchmarks.distbench.io", "bench"));
  EXPECT_FALSE(can("create", "distbenchmarkschedules.distbench.io", "bench"));
  EXPECT_FALSE(can("update", "distbenchmarkschedules.distbench.io", "bench"))
      << "a schedule's spec is its owner's";
  EXPECT_FALSE(can("patch", "distbenchmarks.distbench.io", "bench", "status"));
  EXPECT_FALSE(can("update", "pods", "bench"));
  EXPECT_FALSE(can("patch", "pods", "bench", "status")) << "the kubelet writes pod status";
  EXPECT_FALSE(can("patch", "services", "bench"));
  EXPECT_FALSE(can("list", "events", "bench"));
  EXPECT_FALSE(can("delete", "namespaces", "bench"));

  BinaryResult uninstall = helm({"uninstall", kRelease, "--namespace", kNamespace});
  EXPECT_EQ(uninstall.exitCode, 0) << describe(uninstall);
  EXPECT_NE(kubectl({"get", "-n", kNamespace, "deployment/" + kFullname}).exitCode, 0)
      << "uninstall left the Deployment";
  // helm keeps CRDs on uninstall (resources of that kind would go with it).
  EXPECT_EQ(kubectl({"get", "crd/distbenchmarks.distbench.io"}).exitCode, 0);
}

}  // namespace
}  // namespace distbench::charttest
