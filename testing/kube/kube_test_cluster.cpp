#include "distbench/testing/kube/kube_test_cluster.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "distbench/process/child_process.h"
#include "distbench/process/free_ports.h"
#include "distbench/process/temp_dir.h"

namespace distbench::kubetest {

using process::ChildProcess;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

std::string envOr(const char* name, const std::string& fallback) {
  const char* value = ::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

std::string logTail(const std::string& path, int lines) {
  std::ifstream in(path);
  if (!in) return "(no log at " + path + ")";
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string text;
  for (const auto& l : last) text += "    " + l + "\n";
  return text.empty() ? "(empty log " + path + ")" : text;
}

std::string withTail(const std::string& message, const std::string& name, const std::string& log) {
  return message + "\n  last lines of " + name + "'s log (" + log + "):\n" + logTail(log, 30);
}

// An executable: `name` in `dir` when it is there, else on PATH; empty when
// neither.
std::string findProgram(const std::string& dir, const std::string& name, bool pathFallback) {
  fs::path candidate = fs::path(dir) / name;
  if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  if (!pathFallback) return {};
  std::string path = envOr("PATH", "/usr/local/bin:/usr/bin:/bin");
  std::stringstream parts(path);
  std::string entry;
  while (std::getline(parts, entry, ':')) {
    if (entry.empty()) continue;
    fs::path p = fs::path(entry) / name;
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return {};
}

// Starts argv with stdout and stderr appended to `log` (a shell redirection
// in front of exec, so nothing has to drain pipes while the test runs).
ChildProcess startLogged(const std::vector<std::string>& argv, const std::string& log) {
  {
    std::ofstream marker(log, std::ios::app);
    marker << "==== distbench test fixture: starting";
    for (const auto& a : argv) marker << ' ' << a;
    marker << "\n";
  }
  std::vector<std::string> shell = {"/bin/sh", "-c", "exec \"$@\" >>\"$DISTBENCH_CHILD_LOG\" 2>&1", "sh"};
  shell.insert(shell.end(), argv.begin(), argv.end());
  ChildProcess child = ChildProcess::spawn(shell, {{"DISTBENCH_CHILD_LOG", log}});
  child.closeStdout();
  child.closeStderr();
  return child;
}

// SIGTERM to the group, SIGKILL after `grace`; every wait bounded.
void stopProcess(std::optional<ChildProcess>& child,
                 std::chrono::milliseconds grace = std::chrono::seconds(15)) {
  if (!child) return;
  auto waitExit = [&](std::chrono::milliseconds limit) {
    auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      if (child->pollExit()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return child->pollExit().has_value();
  };
  if (child->running()) {
    child->signalGroup(SIGTERM);
    if (!waitExit(grace)) {
      child->signalGroup(SIGKILL);
      if (!waitExit(std::chrono::seconds(5))) child->abandon();
    }
  }
  child.reset();
}

// Runs a short tool (openssl) to completion; throws with its output on
// failure or after `timeout`.
void runTool(const std::vector<std::string>& argv, const std::string& log,
             std::chrono::seconds timeout = std::chrono::seconds(60)) {
  std::optional<ChildProcess> child;
  try {
    child.emplace(startLogged(argv, log));
  } catch (const std::exception& e) {
    throw KubeTestClusterError(argv[0] + ": " + e.what());
  }
  auto deadline = Clock::now() + timeout;
  while (!child->pollExit()) {
    if (Clock::now() > deadline) {
      stopProcess(child);
      throw KubeTestClusterError(withTail(argv[0] + " did not finish within " +
                                              std::to_string(timeout.count()) + " s",
                                          argv[0], log));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!child->exitStatus()->success()) {
    std::string command;
    for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;
    throw KubeTestClusterError(
        withTail(command + ": " + child->exitStatus()->describe(), argv[0], log));
  }
}

bool tcpListening(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

std::string randomToken() {
  std::random_device random;
  static const char hex[] = "0123456789abcdef";
  std::string token;
  for (int i = 0; i < 40; ++i) token += hex[random() % 16];
  return token;
}

void writeFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::trunc);
  out << content;
  if (!out.flush()) throw KubeTestClusterError("cannot write " + path);
}

// Every request, at Metadata level (who, what, which object, the answer's
// code; no bodies), but deletes at Request level: their body is the
// DeleteOptions, whose preconditions a test checks. RequestReceived is left
// out: each request then logs once when answered (a watch also when its
// stream starts).
const char* kAuditPolicy = R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Request
    verbs: ["delete"]
  - level: Metadata
)";

// Admits anything: the admin (system:masters may use every PSP) creates
// pods as it did before PodSecurityPolicy admission was on. Of the PSPs a
// creator may use, admission prefers one that admits the pod unchanged, so
// the admin's pods get this one and are not mutated.
const char* kPrivilegedPspYaml = R"(apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata:
  name: distbench-test-privileged
  annotations:
    seccomp.security.alpha.kubernetes.io/allowedProfileNames: "*"
spec:
  privileged: true
  allowPrivilegeEscalation: true
  allowedCapabilities: ["*"]
  volumes: ["*"]
  hostNetwork: true
  hostPorts: [{min: 0, max: 65535}]
  hostIPC: true
  hostPID: true
  runAsUser: {rule: RunAsAny}
  seLinux: {rule: RunAsAny}
  supplementalGroups: {rule: RunAsAny}
  fsGroup: {rule: RunAsAny}
)";

// The Kubernetes documentation's "restricted" example (without AppArmor,
// which this API server cannot check against a node).
const char* kRestrictedPspYaml = R"(apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata:
  name: distbench-test-restricted
  annotations:
    seccomp.security.alpha.kubernetes.io/allowedProfileNames: "docker/default,runtime/default"
    seccomp.security.alpha.kubernetes.io/defaultProfileName: "runtime/default"
spec:
  privileged: false
  allowPrivilegeEscalation: false
  requiredDropCapabilities: ["ALL"]
  volumes: ["configMap", "emptyDir", "projected", "secret", "downwardAPI", "persistentVolumeClaim"]
  hostNetwork: false
  hostIPC: false
  hostPID: false
  runAsUser: {rule: MustRunAsNonRoot}
  seLinux: {rule: RunAsAny}
  supplementalGroups:
    rule: MustRunAs
    ranges: [{min: 1, max: 65535}]
  fsGroup:
    rule: MustRunAs
    ranges: [{min: 1, max: 65535}]
  readOnlyRootFilesystem: false
)";

const char* kRestrictedPspRoleYaml = R"(apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: distbench-test-restricted-psp
rules:
  - apiGroups: ["policy"]
    resources: ["podsecuritypolicies"]
    resourceNames: ["distbench-test-restricted"]
    verbs: ["use"]
)";

}  // namespace

// kube-apiserver on SIGTERM waits (up to a minute) for open requests, and a
// watch never ends by itself: past this it gets SIGKILL.
constexpr std::chrono::seconds kApiServerGrace{3};

struct KubeTestCluster::State {
  Options options;
  process::TempDir dir{"distbench-kube-"};
  std::string kubeBin;
  std::string etcdBin;
  int etcdClientPort = 0;
  int etcdPeerPort = 0;
  int apiPort = 0;
  std::map<std::string, std::string> tokens;  // user -> token
  std::optional<ChildProcess> etcd;
  std::optional<ChildProcess> apiServer;
  std::optional<ChildProcess> controllerManager;

  std::string file(const std::string& name) const { return dir.path() + "/" + name; }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(apiPort); }

  void stopAll() {
    // Reverse order: the controller-manager and the apiserver still talk to
    // what comes after them.
    stopProcess(controllerManager);
    stopProcess(apiServer, kApiServerGrace);
    stopProcess(etcd);
  }
};

std::string KubeTestCluster::binDir() {
  std::string home = envOr("HOME", "/root");
  std::string cache = envOr("DISTBENCH_KUBE_CACHE", home + "/.cache/distbench/kube");
  return envOr("DISTBENCH_KUBE_BIN", cache + "/bin");
}

KubeTestCluster::KubeTestCluster() : KubeTestCluster(Options{}) {}

KubeTestCluster::KubeTestCluster(Options options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.options = std::move(options);

  const std::string hint = " (run scripts/install-kube-apiserver.sh, or point DISTBENCH_KUBE_BIN at "
                           "a directory holding kube-apiserver and kube-controller-manager)";
  std::string bin = binDir();
  if (findProgram(bin, "kube-apiserver", false).empty())
    throw KubeTestClusterError("no kube-apiserver in " + bin + hint);
  s.kubeBin = bin;
  s.etcdBin = findProgram(bin, "etcd", true);
  if (s.etcdBin.empty()) throw KubeTestClusterError("no etcd in " + bin + " nor on PATH" + hint);

  std::vector<int> ports = process::pickFreePorts(3);
  s.etcdClientPort = ports[0];
  s.etcdPeerPort = ports[1];
  s.apiPort = ports[2];
  for (const char* user : {kAdminUser, kOperatorUser, kPlainUser}) s.tokens[user] = randomToken();

  try {
    // Certificates: a CA, the serving certificate it signs (127.0.0.1 and
    // the in-cluster names), and an RSA key pair for service-account tokens.
    const std::string log = s.file("openssl.log");
    runTool({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3",
             "-subj", "/CN=distbench-test-ca", "-keyout", s.file("ca.key"), "-out",
             s.file("ca.crt"), "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
             "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"},
            log);
    writeFile(s.file("serving.ext"),
              "basicConstraints=CA:FALSE\n"
              "keyUsage=critical,digitalSignature,keyEncipherment\n"
              "extendedKeyUsage=serverAuth,clientAuth\n"
              "subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,"
              "DNS:kubernetes.default,DNS:kubernetes.default.svc,"
              "DNS:kubernetes.default.svc.cluster.local\n");
    runTool({"openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=kube-apiserver",
             "-keyout", s.file("apiserver.key"), "-out", s.file("apiserver.csr")},
            log);
    runTool({"openssl", "x509", "-req", "-in", s.file("apiserver.csr"), "-CA", s.file("ca.crt"),
             "-CAkey", s.file("ca.key"), "-set_serial", "2", "-days", "3", "-extfile",
             s.file("serving.ext"), "-out", s.file("apiserver.crt")},
            log);
    runTool({"openssl", "genrsa", "-out", s.file("sa.key"), "2048"}, log);
    runTool({"openssl", "rsa", "-in", s.file("sa.key"), "-pubout", "-out", s.file("sa.pub")}, log);

    // token,user,uid,"groups"
    std::string tokens;
    for (const auto& [user, token] : s.tokens)
      tokens += token + "," + user + "," + user +
                (user == kAdminUser ? ",\"system:masters\"\n" : "\n");
    writeFile(s.file("tokens.csv"), tokens);
    writeFile(s.file("audit-policy.yaml"), kAuditPolicy);

    startEtcd();
    startApiServer();
    const std::string psps = "/apis/policy/v1beta1/podsecuritypolicies";
    createAsAdmin(psps, kPrivilegedPspYaml);
    createAsAdmin(psps, kRestrictedPspYaml);
    createAsAdmin("/apis/rbac.authorization.k8s.io/v1/clusterroles", kRestrictedPspRoleYaml);
  } catch (...) {
    s.stopAll();
    throw;
  }
}

KubeTestCluster::~KubeTestCluster() { state_->stopAll(); }

void KubeTestCluster::startEtcd() {
  State& s = *state_;
  if (s.etcd && s.etcd->running()) return;
  const std::string etcdLog = s.file("etcd.log");
  const std::string client = "http://127.0.0.1:" + std::to_string(s.etcdClientPort);
  const std::string peer = "http://127.0.0.1:" + std::to_string(s.etcdPeerPort);
  try {
    // The same data directory every time: a restart keeps every object.
    s.etcd.emplace(startLogged(
        {s.etcdBin, "--name", "distbench-test", "--data-dir", s.file("etcd-data"),
         "--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls",
         peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "distbench-test=" + peer,
         "--logger", "zap", "--log-level", "warn"},
        etcdLog));
  } catch (const std::exception& e) {
    throw KubeTestClusterError(std::string("etcd: ") + e.what());
  }
  auto deadline = Clock::now() + s.options.startTimeout;
  while (!tcpListening(s.etcdClientPort)) {
    if (auto exit = s.etcd->pollExit())
      throw KubeTestClusterError(withTail("etcd " + exit->describe(), "etcd", etcdLog));
    if (Clock::now() > deadline)
      throw KubeTestClusterError(withTail("etcd did not listen on " + client + " within " +
                                              std::to_string(s.options.startTimeout.count()) + " s",
                                          "etcd", etcdLog));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void KubeTestCluster::stopEtcd() { stopProcess(state_->etcd); }

void KubeTestCluster::stopApiServer() { stopProcess(state_->apiServer, kApiServerGrace); }

void KubeTestCluster::restartApiServer() {
  stopApiServer();
  startApiServer();
}

void KubeTestCluster::startApiServer() {
  State& s = *state_;
  if (s.apiServer && s.apiServer->running()) return;
  const std::string log = s.file("kube-apiserver.log");
  std::vector<std::string> argv = {
      s.kubeBin + "/kube-apiserver",
      "--etcd-servers=http://127.0.0.1:" + std::to_string(s.etcdClientPort),
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      "--secure-port=" + std::to_string(s.apiPort),
      "--insecure-port=0",
      "--cert-dir=" + s.file("apiserver-certs"),
      "--tls-cert-file=" + s.file("apiserver.crt"),
      "--tls-private-key-file=" + s.file("apiserver.key"),
      "--client-ca-file=" + s.file("ca.crt"),
      // A kubelet a test plays (pods/log) must show a certificate this CA
      // signed, as a hardened cluster's kubelets do.
      "--kubelet-certificate-authority=" + s.file("ca.crt"),
      "--token-auth-file=" + s.file("tokens.csv"),
      "--anonymous-auth=false",
      "--authorization-mode=RBAC",
      // In addition to the default plugins, which stay on.
      "--enable-admission-plugins=PodSecurityPolicy",
      "--audit-policy-file=" + s.file("audit-policy.yaml"),
      "--audit-log-path=" + s.file("audit.log"),
      "--audit-log-format=json",
      // Written before the request's handler returns, so a test reading the
      // log after its requests finds them.
      "--audit-log-mode=blocking",
      "--service-account-key-file=" + s.file("sa.pub"),
      "--service-account-signing-key-file=" + s.file("sa.key"),
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      "--service-cluster-ip-range=10.0.0.0/24",
      "--allow-privileged=true",
      "--profiling=false",
      "--v=1",
  };
  argv.insert(argv.end(), s.options.extraApiServerFlags.begin(), s.options.extraApiServerFlags.end());
  try {
    s.apiServer.emplace(startLogged(argv, log));
  } catch (const std::exception& e) {
    throw KubeTestClusterError(std::string("kube-apiserver: ") + e.what());
  }

  // /readyz answers 200 once etcd is reachable and every post-start hook
  // (RBAC bootstrap roles, CRD informers, …) has run.
  auto deadline = Clock::now() + s.options.startTimeout;
  std::string last = "no answer yet";
  web::http::client::http_client client(utility::conversions::to_string_t(s.url()),
                                        clientConfig(std::chrono::seconds(5)));
  while (true) {
    if (auto exit = s.apiServer->pollExit())
      throw KubeTestClusterError(withTail("kube-apiserver " + exit->describe(), "kube-apiserver", log));
    try {
      web::http::http_request request(web::http::methods::GET);
      request.set_request_uri("/readyz");
      request.headers().add("Authorization", "Bearer " + utility::conversions::to_string_t(token()));
      web::http::http_response response = client.request(request).get();
      if (response.status_code() == web::http::status_codes::OK) return;
      last = "HTTP " + std::to_string(response.status_code()) + ": " +
             utility::conversions::to_utf8string(response.extract_string().get()).substr(0, 2000);
    } catch (const std::exception& e) {
      last = e.what();
    }
    if (Clock::now() > deadline)
      throw KubeTestClusterError(withTail("kube-apiserver not ready at " + s.url() + "/readyz within " +
                                              std::to_string(s.options.startTimeout.count()) +
                                              " s; last answer: " + last,
                                          "kube-apiserver", log));
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

void KubeTestCluster::startControllerManager() {
  State& s = *state_;
  if (s.controllerManager && s.controllerManager->running()) return;
  std::string binary = findProgram(s.kubeBin, "kube-controller-manager", false);
  if (binary.empty())
    throw KubeTestClusterError("no kube-controller-manager in " + s.kubeBin +
                               " (run scripts/install-kube-apiserver.sh)");
  const std::string kubeconfig = s.file("controller-manager.kubeconfig");
  writeKubeconfig(kubeconfig);
  const std::string log = s.file("kube-controller-manager.log");
  try {
    s.controllerManager.emplace(startLogged(
        {binary, "--kubeconfig=" + kubeconfig,
         "--controllers=garbagecollector,namespace,serviceaccount,serviceaccount-token",
         "--service-account-private-key-file=" + s.file("sa.key"),
         "--root-ca-file=" + s.file("ca.crt"), "--leader-elect=false",
         "--use-service-account-credentials=false",
         // No serving: nothing to collide with on fixed ports.
         "--port=0", "--secure-port=0", "--profiling=false", "--v=1"},
        log));
  } catch (const std::exception& e) {
    throw KubeTestClusterError(std::string("kube-controller-manager: ") + e.what());
  }

  // The serviceaccount controller creates "default" in every namespace; once
  // it exists for "default", the controllers are running.
  auto deadline = Clock::now() + s.options.startTimeout;
  std::string last = "no answer yet";
  web::http::client::http_client client(utility::conversions::to_string_t(s.url()),
                                        clientConfig(std::chrono::seconds(5)));
  while (true) {
    if (auto exit = s.controllerManager->pollExit())
      throw KubeTestClusterError(
          withTail("kube-controller-manager " + exit->describe(), "kube-controller-manager", log));
    try {
      web::http::http_request request(web::http::methods::GET);
      request.set_request_uri("/api/v1/namespaces/default/serviceaccounts/default");
      request.headers().add("Authorization", "Bearer " + utility::conversions::to_string_t(token()));
      web::http::http_response response = client.request(request).get();
      if (response.status_code() == web::http::status_codes::OK) return;
      last = "HTTP " + std::to_string(response.status_code());
    } catch (const std::exception& e) {
      last = e.what();
    }
    if (Clock::now() > deadline)
      throw KubeTestClusterError(withTail(
          "kube-controller-manager did not create ServiceAccount default/default within " +
              std::to_string(s.options.startTimeout.count()) + " s; last answer: " + last,
          "kube-controller-manager", log));
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

std::string KubeTestCluster::url() const { return state_->url(); }
std::string KubeTestCluster::caFile() const { return state_->file("ca.crt"); }
std::string KubeTestCluster::servingCertFile() const { return state_->file("apiserver.crt"); }
std::string KubeTestCluster::servingKeyFile() const { return state_->file("apiserver.key"); }
std::string KubeTestCluster::token() const { return token(kAdminUser); }
std::string KubeTestCluster::token(const std::string& user) const {
  auto it = state_->tokens.find(user);
  if (it == state_->tokens.end())
    throw KubeTestClusterError("no user \"" + user + "\" in the test cluster's token file");
  return it->second;
}
std::string KubeTestCluster::directory() const { return state_->dir.path(); }
std::string KubeTestCluster::auditLogPath() const { return state_->file("audit.log"); }

// The API server takes YAML bodies as well as JSON.
void KubeTestCluster::createAsAdmin(const std::string& path, const std::string& yaml) {
  web::http::client::http_client client(utility::conversions::to_string_t(url()),
                                        clientConfig(std::chrono::seconds(30)));
  web::http::http_request request(web::http::methods::POST);
  request.set_request_uri(utility::conversions::to_string_t(path));
  request.headers().add("Authorization", "Bearer " + utility::conversions::to_string_t(token()));
  request.set_body(yaml, "application/yaml");
  web::http::http_response response = client.request(request).get();
  if (response.status_code() != 201 && response.status_code() != 409)
    throw KubeTestClusterError("POST " + path + ": HTTP " + std::to_string(response.status_code()) +
                               ": " + response.extract_utf8string(true).get());
}

void KubeTestCluster::writeKubeconfig(const std::string& path) const { writeKubeconfig(path, kAdminUser); }

void KubeTestCluster::writeKubeconfig(const std::string& path, const std::string& user) const {
  writeFile(path,
            "apiVersion: v1\n"
            "kind: Config\n"
            "clusters:\n"
            "- name: distbench-test\n"
            "  cluster:\n"
            "    server: " + url() + "\n"
            "    certificate-authority: " + caFile() + "\n"
            "users:\n"
            "- name: " + user + "\n"
            "  user:\n"
            "    token: " + token(user) + "\n"
            "contexts:\n"
            "- name: distbench-test\n"
            "  context:\n"
            "    cluster: distbench-test\n"
            "    user: " + user + "\n"
            "    namespace: default\n"
            "current-context: distbench-test\n");
}

web::http::client::http_client_config KubeTestCluster::clientConfig(std::chrono::seconds timeout) const {
  web::http::client::http_client_config config;
  config.set_timeout(timeout);
  config.set_validate_certificates(true);
  std::string ca = caFile();
  config.set_ssl_context_callback([ca](boost::asio::ssl::context& context) { context.load_verify_file(ca); });
  return config;
}

std::string KubeTestCluster::apiServerLogTail(int lines) const {
  return logTail(state_->file("kube-apiserver.log"), lines);
}
std::string KubeTestCluster::etcdLogTail(int lines) const { return logTail(state_->file("etcd.log"), lines); }
std::string KubeTestCluster::controllerManagerLogTail(int lines) const {
  return logTail(state_->file("kube-controller-manager.log"), lines);
}

}  // namespace distbench::kubetest
