#include "distbench/kube/kube_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace distbench::kube {
namespace {

std::string readFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw KubeConfigError(what + ": cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// RFC 4648 base64, as kubeconfig's *-data fields carry PEM.
std::string base64Decode(const std::string& in, const std::string& field) {
  static const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int value = 0, bits = -8;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    const size_t d = alphabet.find(c);
    if (d == std::string::npos) throw KubeConfigError(field + ": not base64");
    value = (value << 6) + static_cast<int>(d);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((value >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

// A named entry of one of kubeconfig's lists (clusters, users, contexts).
YAML::Node named(const YAML::Node& root, const std::string& list, const std::string& name,
                 const std::string& where) {
  const YAML::Node items = root[list];
  if (items && items.IsSequence()) {
    for (const YAML::Node& item : items) {
      if (item["name"] && item["name"].as<std::string>() == name) return item;
    }
  }
  throw KubeConfigError(where + ": no " + list + " entry named \"" + name + "\"");
}

std::string scalar(const YAML::Node& node, const std::string& key) {
  return node && node[key] && node[key].IsScalar() ? node[key].as<std::string>() : "";
}

// A file path relative to the kubeconfig's directory, as kubectl resolves it.
std::string resolvePath(const std::string& path, const std::string& kubeconfig) {
  if (path.empty() || path[0] == '/') return path;
  const size_t slash = kubeconfig.rfind('/');
  return slash == std::string::npos ? path : kubeconfig.substr(0, slash + 1) + path;
}

// PEM from either `<key>-data` (base64) or `<key>` (a file).
std::string pemField(const YAML::Node& node, const std::string& key, const std::string& where,
                     const std::string& kubeconfig) {
  const std::string data = scalar(node, key + "-data");
  if (!data.empty()) return base64Decode(data, where + "." + key + "-data");
  const std::string file = scalar(node, key);
  if (!file.empty()) return readFile(resolvePath(file, kubeconfig), where + "." + key);
  return "";
}

}  // namespace

KubeConfig loadKubeconfig(const std::string& path, const std::string& contextName) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw KubeConfigError("kubeconfig " + path + ": " + e.what());
  }
  const std::string where = "kubeconfig " + path;
  const std::string name = contextName.empty() ? scalar(root, "current-context") : contextName;
  if (name.empty()) {
    throw KubeConfigError(where + ": no current-context; pass --context NAME");
  }
  const YAML::Node context = named(root, "contexts", name, where)["context"];
  const std::string clusterName = scalar(context, "cluster");
  const std::string userName = scalar(context, "user");
  const YAML::Node cluster = named(root, "clusters", clusterName, where)["cluster"];
  const YAML::Node user = named(root, "users", userName, where)["user"];

  KubeConfig c;
  c.source = where + ", context " + name;
  c.server = scalar(cluster, "server");
  const std::string clusterPath = where + ": clusters[" + clusterName + "].cluster";
  if (c.server.rfind("https://", 0) != 0) {
    throw KubeConfigError(clusterPath + ".server: must be an https:// URL, got \"" + c.server +
                          "\"");
  }
  if (scalar(cluster, "insecure-skip-tls-verify") == "true") {
    throw KubeConfigError(clusterPath +
                          ".insecure-skip-tls-verify: refused; distbench always verifies TLS");
  }
  c.caPem = pemField(cluster, "certificate-authority", clusterPath, path);

  const std::string userPath = where + ": users[" + userName + "].user";
  c.token = scalar(user, "token");
  c.tokenFile = resolvePath(scalar(user, "tokenFile"), path);
  if (c.token.empty() && !c.tokenFile.empty()) {
    c.token = trim(readFile(c.tokenFile, userPath + ".tokenFile"));
  }
  c.clientCertPem = pemField(user, "client-certificate", userPath, path);
  c.clientKeyPem = pemField(user, "client-key", userPath, path);
  if (c.clientCertPem.empty() != c.clientKeyPem.empty()) {
    throw KubeConfigError(userPath + ": client-certificate and client-key go together");
  }
  if (c.token.empty() && c.clientCertPem.empty()) {
    throw KubeConfigError(userPath + ": has no token, tokenFile or client certificate");
  }
  const std::string ns = scalar(context, "namespace");
  if (!ns.empty()) c.namespace_ = ns;
  return c;
}

KubeConfig loadInClusterConfig(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == 0 || *port == 0) {
    throw KubeConfigError(
        "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set "
        "(not running in a pod? pass --kubeconfig)");
  }
  const std::string dir = root + "/var/run/secrets/kubernetes.io/serviceaccount";
  KubeConfig c;
  c.source = "in-cluster";
  const std::string h = host;
  // An IPv6 service address needs brackets in a URL.
  c.server = "https://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + port;
  c.tokenFile = dir + "/token";
  c.token = trim(readFile(c.tokenFile, "in-cluster config: service-account token"));
  c.caPem = readFile(dir + "/ca.crt", "in-cluster config: service-account CA");
  std::ifstream ns(dir + "/namespace");
  std::string name;
  if (ns && std::getline(ns, name) && !trim(name).empty()) c.namespace_ = trim(name);
  return c;
}

KubeConfig loadConfig(const std::string& kubeconfigFlag, const std::string& context) {
  if (!kubeconfigFlag.empty()) return loadKubeconfig(kubeconfigFlag, context);
  const char* env = std::getenv("KUBECONFIG");
  if (env != nullptr && *env != 0) {
    std::string first = env;
    first = first.substr(0, first.find(':'));  // the first file of a list
    return loadKubeconfig(first, context);
  }
  return loadInClusterConfig();
}

}  // namespace distbench::kube
