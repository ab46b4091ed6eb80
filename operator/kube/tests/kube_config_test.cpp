// kubeconfig and in-cluster loading: what kubectl accepts, we accept; what
// would weaken TLS or leave us without credentials is refused, naming where.
#include "distbench/kube/kube_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "distbench/process/temp_dir.h"

namespace distbench::kube {
namespace {

using ::testing::HasSubstr;

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string kubeconfig(const std::string& cluster, const std::string& user,
                       const std::string& extraContext = "") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: admin\n"
         "clusters:\n- name: local\n  cluster:\n" +
         cluster +
         "users:\n- name: admin\n  user:\n" + user +
         "contexts:\n- name: admin\n  context: {cluster: local, user: admin, namespace: bench}\n" +
         extraContext;
}

std::string loadError(const std::string& path, const std::string& context = "") {
  try {
    loadKubeconfig(path, context);
  } catch (const KubeConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(KubeConfig, TokenAndCaFileRelativeToTheKubeconfig) {
  process::TempDir dir;
  write(dir.path() + "/ca.crt", "CA PEM");
  write(dir.path() + "/config",
        kubeconfig("    server: https://127.0.0.1:6443\n    certificate-authority: ca.crt\n",
                   "    token: abc123\n"));
  const KubeConfig c = loadKubeconfig(dir.path() + "/config");
  EXPECT_EQ(c.server, "https://127.0.0.1:6443");
  EXPECT_EQ(c.caPem, "CA PEM");
  EXPECT_EQ(c.token, "abc123");
  EXPECT_EQ(c.namespace_, "bench");
  EXPECT_THAT(c.source, HasSubstr("context admin"));
}

TEST(KubeConfig, ClientCertificateFromBase64Data) {
  process::TempDir dir;
  // base64("CERT") = Q0VSVA==, base64("KEY!") = S0VZIQ==, base64("CA") = Q0E=
  write(dir.path() + "/config",
        kubeconfig("    server: https://k8s:443\n    certificate-authority-data: Q0E=\n",
                   "    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZIQ==\n"));
  const KubeConfig c = loadKubeconfig(dir.path() + "/config");
  EXPECT_EQ(c.caPem, "CA");
  EXPECT_EQ(c.clientCertPem, "CERT");
  EXPECT_EQ(c.clientKeyPem, "KEY!");
  EXPECT_TRUE(c.token.empty());
}

TEST(KubeConfig, NamedContextAndTokenFile) {
  process::TempDir dir;
  write(dir.path() + "/tok", "from-file\n");
  write(dir.path() + "/config2",
        "current-context: admin\nclusters:\n- name: local\n  cluster: {server: 'https://a:1'}\n"
        "users:\n- name: admin\n  user: {token: first}\n- name: second\n  user: {tokenFile: tok}\n"
        "contexts:\n- name: admin\n  context: {cluster: local, user: admin}\n"
        "- name: other\n  context: {cluster: local, user: second}\n");
  const KubeConfig c = loadKubeconfig(dir.path() + "/config2", "other");
  EXPECT_EQ(c.token, "from-file");
  EXPECT_EQ(c.tokenFile, dir.path() + "/tok");
  EXPECT_EQ(c.namespace_, "default");
}

TEST(KubeConfig, RefusesWhatWouldWeakenTlsOrLeaveNoCredentials) {
  process::TempDir dir;
  const std::string path = dir.path() + "/config";
  write(path, kubeconfig("    server: https://a:1\n    insecure-skip-tls-verify: true\n",
                         "    token: t\n"));
  EXPECT_THAT(loadError(path), HasSubstr("clusters[local].cluster.insecure-skip-tls-verify: "
                                         "refused; distbench always verifies TLS"));
  write(path, kubeconfig("    server: http://a:1\n", "    token: t\n"));
  EXPECT_THAT(loadError(path), HasSubstr("clusters[local].cluster.server: must be an https:// URL"));
  write(path, kubeconfig("    server: https://a:1\n", "    username: bob\n"));
  EXPECT_THAT(loadError(path),
              HasSubstr("users[admin].user: has no token, tokenFile or client certificate"));
  write(path, kubeconfig("    server: https://a:1\n", "    client-certificate-data: Q0E=\n"));
  EXPECT_THAT(loadError(path), HasSubstr("client-certificate and client-key go together"));
  write(path, kubeconfig("    server: https://a:1\n", "    token: t\n"));
  EXPECT_THAT(loadError(path, "nope"), HasSubstr("no contexts entry named \"nope\""));
  EXPECT_THAT(loadError(dir.path() + "/missing"), HasSubstr("kubeconfig " + dir.path()));
}

TEST(KubeConfig, InClusterFromTheServiceAccount) {
  process::TempDir dir;
  const std::string sa = dir.path() + "/var/run/secrets/kubernetes.io/serviceaccount";
  ASSERT_EQ(std::system(("mkdir -p " + sa).c_str()), 0);
  write(sa + "/token", "sa-token\n");
  write(sa + "/ca.crt", "SA CA");
  write(sa + "/namespace", "distbench-system");
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  const KubeConfig c = loadInClusterConfig(dir.path());
  EXPECT_EQ(c.server, "https://10.96.0.1:443");
  EXPECT_EQ(c.token, "sa-token");
  EXPECT_EQ(c.caPem, "SA CA");
  EXPECT_EQ(c.namespace_, "distbench-system");
  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  EXPECT_EQ(loadInClusterConfig(dir.path()).server, "https://[fd00::1]:443");
  unsetenv("KUBERNETES_SERVICE_HOST");
  try {
    loadInClusterConfig(dir.path());
    FAIL();
  } catch (const KubeConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("KUBERNETES_SERVICE_HOST"));
  }
  unsetenv("KUBERNETES_SERVICE_PORT");
}

}  // namespace
}  // namespace distbench::kube
