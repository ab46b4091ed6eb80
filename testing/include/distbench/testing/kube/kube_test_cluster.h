// A real Kubernetes control plane on loopback for the operator tests: etcd,
// kube-apiserver and, on request, kube-controller-manager, each a child
// process on free 127.0.0.1 ports, with certificates, keys and data in a
// private temporary directory. Never an imitation of the API: the operator is
// tested against the server it will meet in a cluster (docs/testing.md).
//
// The binaries come from scripts/install-kube-apiserver.sh: kube-apiserver and
// kube-controller-manager from $DISTBENCH_KUBE_BIN, else
// ${DISTBENCH_KUBE_CACHE:-$HOME/.cache/distbench/kube}/bin; etcd from the same
// directory when it is there, else PATH.
//
// Authentication: static bearer tokens. "distbench-admin" is in group
// system:masters (all rights under RBAC); "distbench-operator" and
// "distbench-user" are in no group but system:authenticated, so they hold
// only what a test binds to them. Anonymous requests are turned off, so a
// request without a token gets 401.
//
// Admission: the default plugins plus PodSecurityPolicy, so every pod
// create needs a PSP its creator (or the pod's service account) may `use`.
// The fixture installs two: kPrivilegedPsp, which admits anything (the
// admin may use every PSP, so tests that create pods as the admin are not
// affected), and kRestrictedPsp, the Kubernetes documentation's
// "restricted" example, with the ClusterRole restrictedPspClusterRole()
// granting `use` on it alone, for tests that bind a user to it.
//
// Audit: every request is logged at Metadata level (deletes at Request
// level, with their DeleteOptions), one JSON object a line, to
// auditLogPath() (audit_log.h reads it).
//
// The child processes die with the thread that started them (they carry
// PR_SET_PDEATHSIG, which Linux ties to the forking thread): construct the
// cluster, and call startControllerManager() and the start and restart
// functions, from a thread that outlives the cluster, such as the test's
// main thread.
#pragma once

#include <cpprest/http_client.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace distbench::kubetest {

// The cluster failed to start or a wait timed out; what() ends with the
// relevant server log's last lines.
class KubeTestClusterError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KubeTestCluster {
 public:
  struct Options {
    // How long to wait for etcd to listen and for /readyz to answer 200.
    std::chrono::seconds startTimeout{120};
    // Extra kube-apiserver flags, e.g. "--feature-gates=...".
    std::vector<std::string> extraApiServerFlags;
  };

  // Generates certificates and keys, starts etcd and kube-apiserver and waits
  // until /readyz answers 200. Throws KubeTestClusterError.
  KubeTestCluster();
  explicit KubeTestCluster(Options options);
  // Stops every process (SIGTERM, then SIGKILL) and removes the directory.
  ~KubeTestCluster();
  KubeTestCluster(const KubeTestCluster&) = delete;
  KubeTestCluster& operator=(const KubeTestCluster&) = delete;

  // Starts kube-controller-manager with the garbage collector, namespace,
  // serviceaccount and serviceaccount-token controllers, and waits until the
  // "default" ServiceAccount of namespace "default" exists. No-op when it is
  // already running. Throws KubeTestClusterError.
  void startControllerManager();

  // Stops kube-apiserver (SIGTERM; SIGKILL 3 s later if open watches still
  // hold it) and starts it again on the same port, etcd and its data
  // untouched; returns once /readyz answers 200 again. Clients see their
  // connections and watches drop and connections refused while it is down.
  void restartApiServer();

  // The two halves of restartApiServer(), for an outage of a test's
  // choosing: clients are refused until startApiServer() returns (with
  // /readyz 200, which needs etcd up). Each is a no-op when the server
  // already is where it asks. Throws KubeTestClusterError.
  void stopApiServer();
  void startApiServer();
  // etcd likewise (SIGTERM, then SIGKILL after 15 s), started again on the
  // same ports and data directory: every object and resourceVersion is kept.
  // Stop kube-apiserver first and start it after, as a control plane that
  // goes away as a whole; kube-apiserver left running without etcd answers
  // 5xx or hangs its requests until etcd is back.
  void stopEtcd();
  void startEtcd();

  // "https://127.0.0.1:<port>"
  std::string url() const;
  // PEM of the CA that signed the serving certificate (and the
  // service-account root CA the controller-manager hands to pods).
  std::string caFile() const;
  // A serving certificate for 127.0.0.1 that caFile() signed, and its key:
  // what a kubelet played by a test shows the API server, which checks
  // kubelets against caFile().
  std::string servingCertFile() const;
  std::string servingKeyFile() const;
  // The users of the token file.
  static constexpr const char* kAdminUser = "distbench-admin";        // system:masters
  static constexpr const char* kOperatorUser = "distbench-operator";  // no rights until bound
  static constexpr const char* kPlainUser = "distbench-user";         // no rights until bound
  // Bearer token of kAdminUser.
  std::string token() const;
  // Bearer token of one of the users above; throws KubeTestClusterError
  // naming the user when there is no such user.
  std::string token(const std::string& user) const;
  // A kubeconfig for this cluster: server url(), certificate-authority
  // caFile(), the admin's (or `user`'s) token; context "distbench-test".
  void writeKubeconfig(const std::string& path) const;
  void writeKubeconfig(const std::string& path, const std::string& user) const;

  // The PodSecurityPolicies installed at start, and the ClusterRole that
  // grants `use` on the restricted one only.
  static constexpr const char* kPrivilegedPsp = "distbench-test-privileged";
  static constexpr const char* kRestrictedPsp = "distbench-test-restricted";
  static std::string restrictedPspClusterRole() { return "distbench-test-restricted-psp"; }

  // kube-apiserver's audit log (JSON lines, Metadata level and deletes at
  // Request level, every request of every user since the cluster started,
  // restarts included).
  std::string auditLogPath() const;

  // An HTTP client configuration that verifies the server against caFile()
  // (the token is not in it: add "Authorization: Bearer <token()>").
  web::http::client::http_client_config clientConfig(
      std::chrono::seconds timeout = std::chrono::seconds(30)) const;

  // Private directory holding certificates, data and logs.
  std::string directory() const;
  // Last `lines` lines of a process's combined stdout and stderr.
  std::string apiServerLogTail(int lines = 40) const;
  std::string etcdLogTail(int lines = 40) const;
  std::string controllerManagerLogTail(int lines = 40) const;

  // Where kube-apiserver and kube-controller-manager are looked up (see above).
  static std::string binDir();

 private:
  // POST of a YAML object; 409 (already there) is fine.
  void createAsAdmin(const std::string& path, const std::string& yaml);

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace distbench::kubetest
