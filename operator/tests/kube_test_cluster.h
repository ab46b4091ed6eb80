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
// Authentication: one static bearer token, user "distbench-admin" in group
// system:masters (all rights under RBAC). Anonymous requests are turned off,
// so a request without the token gets 401.
//
// The child processes die with the thread that started them (they carry
// PR_SET_PDEATHSIG, which Linux ties to the forking thread): construct the
// cluster, and call startControllerManager() and restartApiServer(), from a
// thread that outlives the cluster, such as the test's main thread.
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

  // "https://127.0.0.1:<port>"
  std::string url() const;
  // PEM of the CA that signed the serving certificate (and the
  // service-account root CA the controller-manager hands to pods).
  std::string caFile() const;
  // Bearer token of a system:masters user.
  std::string token() const;
  // A kubeconfig for this cluster: server url(), certificate-authority
  // caFile(), the token above; context "distbench-test".
  void writeKubeconfig(const std::string& path) const;

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
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace distbench::kubetest
