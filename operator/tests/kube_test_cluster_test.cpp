// The fixture itself against the real server: TLS verified with its CA, token
// authentication, RBAC, users without rights, PodSecurityPolicy admission, the
// audit log, objects kept in etcd across an apiserver restart and across an
// outage of the whole control plane, and the controller-manager's service
// accounts and garbage collection, which the operator relies on.
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "distbench/testing/kube/audit_log.h"
#include "distbench/testing/kube/control_plane_outage.h"
#include "distbench/testing/kube/kube_test_env.h"

namespace distbench::kubetest {
namespace {

using web::http::methods;
using Clock = std::chrono::steady_clock;

std::string str(const web::json::value& v) { return utility::conversions::to_utf8string(v.as_string()); }

void createNamespace(const std::string& name) {
  Response r = call(methods::POST, "/api/v1/namespaces",
                    R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + name + R"("}})");
  ASSERT_TRUE(r.status == 201 || r.status == 409) << r.status << " " << r.body;
}

std::string configMap(const std::string& name, const std::string& value, const std::string& owner = "") {
  std::string meta = R"("name":")" + name + R"(")";
  if (!owner.empty())
    meta += R"(,"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":")" + owner +
            R"(","controller":true,"blockOwnerDeletion":true}])";
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{)" + meta + R"(},"data":{"key":")" + value +
         R"("}})";
}

// One request with `user`'s token.
Response callAs(const std::string& user, const web::http::method& method, const std::string& path,
                const std::string& body = "", const std::string& contentType = "application/yaml") {
  KubeTestCluster* c = sharedCluster();
  web::http::client::http_client client(utility::conversions::to_string_t(c->url()), c->clientConfig());
  web::http::http_request request(method);
  request.set_request_uri(utility::conversions::to_string_t(path));
  request.headers().add("Authorization", "Bearer " + utility::conversions::to_string_t(c->token(user)));
  if (!body.empty()) request.set_body(body, contentType);
  web::http::http_response response = client.request(request).get();
  return Response{response.status_code(), response.extract_utf8string(true).get()};
}

// A pod with the given container securityContext (YAML flow mapping).
std::string pod(const std::string& name, const std::string& securityContext) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\nspec:\n  automountServiceAccountToken: false\n  containers:\n  - name: c\n    image: busybox\n    securityContext: " + securityContext +
         "\n";
}

void bindUser(const std::string& ns, const std::string& name, const std::string& clusterRole,
              const std::string& user) {
  Response r = call(methods::POST, "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings",
                    "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: " + name +
                        "\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: " + clusterRole +
                        "}\nsubjects:\n- {kind: User, apiGroup: rbac.authorization.k8s.io, name: " + user + "}\n",
                    "application/yaml");
  ASSERT_TRUE(r.status == 201 || r.status == 409) << r.status << " " << r.body;
}

std::string pspOf(const Response& created) {
  const web::json::value annotations = created.json().at("metadata").at("annotations");
  return str(annotations.at("kubernetes.io/psp"));
}

class KubeTestClusterTest : public KubeTest {};

TEST_F(KubeTestClusterTest, ServesVersion) {
  Response r = call(methods::GET, "/version");
  ASSERT_EQ(r.status, 200) << r.body;
  std::string version = str(r.json().at("gitVersion"));
  EXPECT_EQ(version.rfind("v1.20", 0), 0u) << version;
}

TEST_F(KubeTestClusterTest, CreatesNamespaceAndConfigMap) {
  Response ns = call(methods::POST, "/api/v1/namespaces",
                     R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fixture-basic"}})");
  ASSERT_EQ(ns.status, 201) << ns.body;
  Response created = call(methods::POST, "/api/v1/namespaces/fixture-basic/configmaps", configMap("cm", "hello"));
  ASSERT_EQ(created.status, 201) << created.body;
  Response got = call(methods::GET, "/api/v1/namespaces/fixture-basic/configmaps/cm");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(str(got.json().at("data").at("key")), "hello");
}

TEST_F(KubeTestClusterTest, RejectsRequestsWithoutValidToken) {
  Response none = call(methods::GET, "/api/v1/namespaces", "", "", /*authenticated=*/false);
  EXPECT_EQ(none.status, 401) << none.body;

  web::http::client::http_client client(utility::conversions::to_string_t(cluster_->url()),
                                        cluster_->clientConfig());
  web::http::http_request request(methods::GET);
  request.set_request_uri("/api/v1/namespaces");
  request.headers().add("Authorization", "Bearer not-the-token");
  EXPECT_EQ(client.request(request).get().status_code(), 401);
}

TEST_F(KubeTestClusterTest, VerifiesServerCertificate) {
  // Without the cluster's CA the handshake must fail: TLS is really checked.
  web::http::client::http_client_config config;
  config.set_timeout(std::chrono::seconds(10));
  web::http::client::http_client client(utility::conversions::to_string_t(cluster_->url()), config);
  EXPECT_THROW(client.request(methods::GET, "/version").get(), web::http::http_exception);
}

TEST_F(KubeTestClusterTest, WritesKubeconfig) {
  std::string path = cluster_->directory() + "/test.kubeconfig";
  cluster_->writeKubeconfig(path);
  YAML::Node config = YAML::LoadFile(path);
  std::string context = config["current-context"].as<std::string>();
  ASSERT_EQ(context, "distbench-test");
  EXPECT_EQ(config["clusters"][0]["cluster"]["server"].as<std::string>(), cluster_->url());
  std::string ca = config["clusters"][0]["cluster"]["certificate-authority"].as<std::string>();
  EXPECT_EQ(ca, cluster_->caFile());
  EXPECT_TRUE(std::filesystem::exists(ca));
  EXPECT_EQ(config["users"][0]["user"]["token"].as<std::string>(), cluster_->token());
}

TEST_F(KubeTestClusterTest, UsersOtherThanTheAdminHoldNothingUntilBound) {
  for (const char* user : {KubeTestCluster::kOperatorUser, KubeTestCluster::kPlainUser}) {
    EXPECT_EQ(callAs(user, methods::GET, "/api/v1/namespaces/default/pods").status, 403) << user;
    EXPECT_NE(cluster_->token(user), cluster_->token()) << user;
  }
  EXPECT_THROW(cluster_->token("nobody"), KubeTestClusterError);

  std::string path = cluster_->directory() + "/operator.kubeconfig";
  cluster_->writeKubeconfig(path, KubeTestCluster::kOperatorUser);
  YAML::Node config = YAML::LoadFile(path);
  EXPECT_EQ(config["users"][0]["name"].as<std::string>(), KubeTestCluster::kOperatorUser);
  EXPECT_EQ(config["users"][0]["user"]["token"].as<std::string>(),
            cluster_->token(KubeTestCluster::kOperatorUser));
  EXPECT_EQ(config["contexts"][0]["context"]["user"].as<std::string>(), KubeTestCluster::kOperatorUser);
}

TEST_F(KubeTestClusterTest, PodSecurityPolicyAdmitsPodsByWhatTheirCreatorMayUse) {
  const std::string ns = "fixture-psp";
  createNamespace(ns);
  Response sa = call(methods::POST, "/api/v1/namespaces/" + ns + "/serviceaccounts",
                     R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}})");
  ASSERT_TRUE(sa.status == 201 || sa.status == 409) << sa.body;
  const std::string pods = "/api/v1/namespaces/" + ns + "/pods";
  const std::string user = KubeTestCluster::kPlainUser;

  // The admin may use every policy; its pod, unchanged by either, gets the
  // privileged one, however privileged the pod.
  Response admin = call(methods::POST, pods, pod("admin-root", "{privileged: true}"), "application/yaml");
  ASSERT_EQ(admin.status, 201) << admin.body;
  EXPECT_EQ(pspOf(admin), KubeTestCluster::kPrivilegedPsp);

  // A user who may create pods but use no policy gets none admitted.
  Response role = call(methods::POST, "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles",
                       "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: pods}\n"
                       "rules:\n- {apiGroups: [''], resources: [pods], verbs: [create]}\n",
                       "application/yaml");
  ASSERT_EQ(role.status, 201) << role.body;
  Response roleBinding = call(methods::POST, "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings",
                              "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: pods}\n"
                              "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pods}\n"
                              "subjects:\n- {kind: User, apiGroup: rbac.authorization.k8s.io, name: " + user + "}\n",
                              "application/yaml");
  ASSERT_EQ(roleBinding.status, 201) << roleBinding.body;
  Response none = callAs(user, methods::POST, pods, pod("no-policy", "{runAsUser: 1000}"));
  EXPECT_EQ(none.status, 403) << none.body;
  EXPECT_NE(none.body.find("PodSecurityPolicy: unable to admit pod"), std::string::npos) << none.body;

  // Bound to the restricted policy: a root or privileged pod is refused; a
  // pod within the policy is admitted, defaulted by it.
  bindUser(ns, "restricted-psp", KubeTestCluster::restrictedPspClusterRole(), user);
  ASSERT_FALSE(HasFatalFailure());
  for (const char* refused : {"{privileged: true}", "{runAsUser: 0}", "{allowPrivilegeEscalation: true}",
                              "{capabilities: {add: [NET_ADMIN]}}"}) {
    Response r = callAs(user, methods::POST, pods, pod("refused", refused));
    EXPECT_EQ(r.status, 403) << refused << ": " << r.body;
  }
  Response ok = callAs(user, methods::POST, pods,
                       pod("restricted", "{runAsUser: 1000, allowPrivilegeEscalation: false, "
                                         "capabilities: {drop: [ALL]}}"));
  ASSERT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(pspOf(ok), KubeTestCluster::kRestrictedPsp);
  const web::json::value spec = ok.json().at("spec");
  EXPECT_EQ(spec.at("securityContext").at("fsGroup").as_integer(), 1) << "fsGroup defaulted by the policy";
  EXPECT_EQ(str(ok.json().at("metadata").at("annotations").at("seccomp.security.alpha.kubernetes.io/pod")),
            "runtime/default");
}

TEST_F(KubeTestClusterTest, AuditLogRecordsEveryRequestWithItsUserAndCode) {
  const std::string path = "/api/v1/namespaces/default/configmaps/audit-probe";
  Response r = callAs(KubeTestCluster::kOperatorUser, methods::GET, path);
  ASSERT_EQ(r.status, 403) << r.body;
  std::vector<AuditRecord> records;
  ASSERT_TRUE([&] {
    auto deadline = Clock::now() + std::chrono::seconds(10);
    do {
      records = readAuditLog(cluster_->auditLogPath(), KubeTestCluster::kOperatorUser);
      for (const AuditRecord& rec : records)
        if (rec.requestUri == path) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } while (Clock::now() < deadline);
    return false;
  }()) << "no audit event for GET " << path << " in " << cluster_->auditLogPath();
  bool found = false;
  for (const AuditRecord& rec : records) {
    if (rec.requestUri != path) continue;
    found = true;
    EXPECT_EQ(rec.user, KubeTestCluster::kOperatorUser);
    EXPECT_EQ(rec.verb, "get");
    EXPECT_EQ(rec.apiGroup, "");
    EXPECT_EQ(rec.resource, "configmaps");
    EXPECT_EQ(rec.ns, "default");
    EXPECT_EQ(rec.name, "audit-probe");
    EXPECT_EQ(rec.code, 403);
  }
  EXPECT_TRUE(found);
  const auto byUser = auditRequestsByUser(records);
  ASSERT_EQ(byUser.size(), 1u);
  EXPECT_TRUE(byUser.at(KubeTestCluster::kOperatorUser).count({"", "configmaps", "get", "default"}));
}

TEST_F(KubeTestClusterTest, ControllerManagerCreatesServiceAccountsAndCollectsGarbage) {
  ASSERT_NO_THROW(cluster_->startControllerManager());
  createNamespace("fixture-gc");

  // Every new namespace gets its "default" ServiceAccount (pods need it).
  auto deadline = Clock::now() + std::chrono::seconds(60);
  Response sa;
  while ((sa = call(methods::GET, "/api/v1/namespaces/fixture-gc/serviceaccounts/default")).status != 200 &&
         Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(sa.status, 200) << sa.body << "\n" << cluster_->controllerManagerLogTail();

  // An owned object goes when its owner does.
  Response owner = call(methods::POST, "/api/v1/namespaces/fixture-gc/configmaps", configMap("owner", "o"));
  ASSERT_EQ(owner.status, 201) << owner.body;
  std::string uid = str(owner.json().at("metadata").at("uid"));
  Response owned =
      call(methods::POST, "/api/v1/namespaces/fixture-gc/configmaps", configMap("owned", "x", uid));
  ASSERT_EQ(owned.status, 201) << owned.body;
  Response deleted = call(methods::DEL, "/api/v1/namespaces/fixture-gc/configmaps/owner");
  ASSERT_EQ(deleted.status, 200) << deleted.body;

  deadline = Clock::now() + std::chrono::seconds(60);
  Response gone;
  while ((gone = call(methods::GET, "/api/v1/namespaces/fixture-gc/configmaps/owned")).status != 404 &&
         Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(gone.status, 404) << "owned ConfigMap not garbage-collected\n" << cluster_->controllerManagerLogTail();
}

// Last: the restart drops every connection.
TEST_F(KubeTestClusterTest, RestartApiServerKeepsEtcdData) {
  createNamespace("fixture-restart");
  Response created =
      call(methods::POST, "/api/v1/namespaces/fixture-restart/configmaps", configMap("survivor", "kept"));
  ASSERT_EQ(created.status, 201) << created.body;

  std::string url = cluster_->url();
  ASSERT_NO_THROW(cluster_->restartApiServer());
  EXPECT_EQ(cluster_->url(), url);

  Response got = call(methods::GET, "/api/v1/namespaces/fixture-restart/configmaps/survivor");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(str(got.json().at("data").at("key")), "kept");
  EXPECT_EQ(str(got.json().at("metadata").at("uid")), str(created.json().at("metadata").at("uid")));
}

// A control plane that goes away as a whole and comes back with its data:
// what the operator's outage tests stand on.
TEST_F(KubeTestClusterTest, AnOutageOfApiServerAndEtcdRefusesClientsAndKeepsTheData) {
  createNamespace("fixture-outage");
  Response created = call(methods::POST, "/api/v1/namespaces/fixture-outage/configmaps",
                          configMap("kept", "before"));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string url = cluster_->url();
  {
    ControlPlaneOutage outage(*cluster_);
    EXPECT_THROW(call(methods::GET, "/readyz"), std::exception);
    outage.endAfter(std::chrono::seconds(2));
    EXPECT_GE(outage.elapsed(), std::chrono::seconds(2));
  }
  EXPECT_EQ(cluster_->url(), url);
  Response got = call(methods::GET, "/api/v1/namespaces/fixture-outage/configmaps/kept");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(str(got.json().at("data").at("key")), "before");
  EXPECT_EQ(str(got.json().at("metadata").at("uid")), str(created.json().at("metadata").at("uid")));
  // Writes go on from the resourceVersion etcd kept.
  Response updated = call(methods::PUT, "/api/v1/namespaces/fixture-outage/configmaps/kept",
                          configMap("kept", "after"));
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_GT(std::stoll(str(updated.json().at("metadata").at("resourceVersion"))),
            std::stoll(str(created.json().at("metadata").at("resourceVersion"))));
}

}  // namespace
}  // namespace distbench::kubetest
