// Where the API server is and how to prove who we are: from a kubeconfig
// file (token, client certificate and key, CA; the current context or a
// named one) or from inside a pod (service-account token and CA, the
// KUBERNETES_SERVICE_HOST/PORT environment). TLS is always verified: a
// kubeconfig that asks to skip verification is refused, not obeyed.
#pragma once

#include <stdexcept>
#include <string>

namespace distbench::kube {

struct KubeConfig {
  std::string server;  // https://host:port
  // The cluster's CA, as PEM text (files are read at load time, so a
  // rotated file does not change a running client underneath it).
  std::string caPem;
  std::string token;
  // Where the token came from, re-read on 401: service-account tokens are
  // rotated in place.
  std::string tokenFile;
  std::string clientCertPem;
  std::string clientKeyPem;
  std::string namespace_ = "default";
  std::string source;  // "kubeconfig /root/.kube/config, context admin" | "in-cluster"
};

struct KubeConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `context` empty: the file's current-context.
KubeConfig loadKubeconfig(const std::string& path, const std::string& context = "");

// `root` stands in for "/" in tests (…/var/run/secrets/kubernetes.io/serviceaccount).
KubeConfig loadInClusterConfig(const std::string& root = "");

// The operator's order: --kubeconfig, then $KUBECONFIG, then in-cluster.
KubeConfig loadConfig(const std::string& kubeconfigFlag, const std::string& context);

}  // namespace distbench::kube
