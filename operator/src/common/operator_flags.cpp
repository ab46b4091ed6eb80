#include "distbench/operator/common/operator_flags.h"

#include <cpprest/json.h>

#include <functional>
#include <map>
#include <sstream>

namespace distbench::op {
namespace {

int positiveInt(const std::string& flag, const std::string& text) {
  try {
    size_t used = 0;
    const int n = std::stoi(text, &used);
    if (used == text.size() && n >= 1) return n;
  } catch (const std::exception&) {
  }
  throw FlagError(flag + ": expected a whole number >= 1, got \"" + text + "\"");
}

// Seconds > 0, or >= 0 where `zeroAllowed` (0 turns something off).
double seconds(const std::string& flag, const std::string& text, bool zeroAllowed) {
  try {
    size_t used = 0;
    const double s = std::stod(text, &used);
    // A day at most: anything longer is a typo, and becomes an integer later.
    if (used == text.size() && s <= 86400 && (s > 0 || (zeroAllowed && s == 0))) return s;
  } catch (const std::exception&) {
  }
  throw FlagError(flag + ": expected seconds " + (zeroAllowed ? ">= 0" : "> 0") +
                  " and at most 86400, got \"" + text + "\"");
}

double positiveSeconds(const std::string& flag, const std::string& text) {
  return seconds(flag, text, false);
}

double nonNegativeSeconds(const std::string& flag, const std::string& text) {
  return seconds(flag, text, true);
}

std::string oneOf(const std::string& flag, const std::string& text,
                  const std::vector<std::string>& allowed) {
  for (const std::string& a : allowed)
    if (a == text) return text;
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw FlagError(flag + ": expected one of " + list + ", got \"" + text + "\"");
}

bool boolean(const std::string& flag, const std::string& text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  throw FlagError(flag + ": expected true or false, got \"" + text + "\"");
}

void checkAddress(const std::string& flag, const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) throw FlagError(flag + ": expected HOST:PORT, got \"" + text + "\"");
  const std::string port = text.substr(colon + 1);
  try {
    size_t used = 0;
    const int p = std::stoi(port, &used);
    if (used == port.size() && p >= 0 && p <= 65535) return;
  } catch (const std::exception&) {
  }
  throw FlagError(flag + ": port must be 0-65535, got \"" + port + "\"");
}

// An image reference as a pod's container takes it: not empty, and no
// whitespace, which no registry, repository or tag may hold (a value pasted
// with a stray space would otherwise fail every benchmark at its pod).
std::string imageReference(const std::string& flag, const std::string& text) {
  if (text.empty()) throw FlagError(flag + ": must not be empty");
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
      throw FlagError(flag + ": an image reference has no whitespace, got \"" + text + "\"");
  }
  return text;
}

// A list of core NetworkPolicyPeers: what the chart renders from
// networkPolicy.metricsFrom. Checked here so a typo stops the operator at
// start, not every benchmark at its NetworkPolicy create.
std::string networkPolicyPeers(const std::string& flag, const std::string& text) {
  web::json::value peers;
  try {
    peers = web::json::value::parse(text);
  } catch (const std::exception& e) {
    throw FlagError(flag + ": expected a JSON list of NetworkPolicyPeers, got \"" + text +
                    "\": " + e.what());
  }
  if (!peers.is_array()) throw FlagError(flag + ": expected a JSON list, got \"" + text + "\"");
  for (size_t i = 0; i < peers.size(); ++i) {
    const web::json::value& peer = peers.at(i);
    const std::string at = flag + "[" + std::to_string(i) + "]";
    if (!peer.is_object() || peer.size() == 0)
      throw FlagError(at + ": expected an object with podSelector, namespaceSelector or ipBlock");
    for (const auto& [key, v] : peer.as_object()) {
      if (key != "podSelector" && key != "namespaceSelector" && key != "ipBlock")
        throw FlagError(at + ": unknown field \"" + key +
                        "\" (a NetworkPolicyPeer has podSelector, namespaceSelector, ipBlock)");
      if (!v.is_object()) throw FlagError(at + "." + key + ": expected an object");
    }
  }
  return peers.serialize();
}

}  // namespace

OperatorFlags parseOperatorFlags(const std::vector<std::string>& args) {
  OperatorFlags f;
  using Setter = std::function<void(const std::string& flag, const std::string& value)>;
  const std::map<std::string, Setter> valued = {
      {"--kubeconfig", [&](auto&, auto& v) { f.kubeconfig = v; }},
      {"--context", [&](auto&, auto& v) { f.context = v; }},
      {"--namespace", [&](auto&, auto& v) { f.ns = v; }},
      {"--workers", [&](auto& k, auto& v) { f.workers = positiveInt(k, v); }},
      {"--http-address", [&](auto& k, auto& v) { checkAddress(k, v), f.httpAddress = v; }},
      {"--leader-election-namespace", [&](auto&, auto& v) { f.leaderElectionNamespace = v; }},
      {"--leader-election-id", [&](auto& k, auto& v) {
         if (v.empty()) throw FlagError(k + ": must not be empty");
         f.leaderElectionId = v;
       }},
      {"--lease-duration", [&](auto& k, auto& v) { f.leaseDurationSeconds = positiveSeconds(k, v); }},
      {"--renew-deadline", [&](auto& k, auto& v) { f.renewDeadlineSeconds = positiveSeconds(k, v); }},
      {"--retry-period", [&](auto& k, auto& v) { f.retryPeriodSeconds = positiveSeconds(k, v); }},
      {"--shutdown-timeout", [&](auto& k, auto& v) { f.shutdownTimeoutSeconds = positiveSeconds(k, v); }},
      {"--create-failure-timeout",
       [&](auto& k, auto& v) { f.createFailureTimeoutSeconds = positiveSeconds(k, v); }},
      {"--report-fetch-timeout",
       [&](auto& k, auto& v) { f.reportFetchTimeoutSeconds = positiveSeconds(k, v); }},
      {"--progress-interval",
       [&](auto& k, auto& v) { f.progressIntervalSeconds = nonNegativeSeconds(k, v); }},
      {"--worker-metrics-from",
       [&](auto& k, auto& v) { f.workerMetricsFrom = networkPolicyPeers(k, v); }},
      {"--worker-image", [&](auto& k, auto& v) { f.workerImage = imageReference(k, v); }},
      {"--cuda-worker-image", [&](auto& k, auto& v) { f.cudaWorkerImage = imageReference(k, v); }},
      {"--suspect-nodes",
       [&](auto& k, auto& v) { f.suspectNodes = oneOf(k, v, {"none", "label", "taint"}); }},
      {"--log-format", [&](auto& k, auto& v) { f.logFormat = oneOf(k, v, {"json", "text"}); }},
      {"--log-level",
       [&](auto& k, auto& v) { f.logLevel = oneOf(k, v, {"debug", "info", "warn", "error"}); }},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool hasValue = false;
    if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      hasValue = true;
    }
    if (flag == "--help" || flag == "-h") {
      f.help = true;
    } else if (flag == "--version") {
      f.version = true;
    } else if (flag == "--leader-elect") {
      f.leaderElect = hasValue ? boolean(flag, value) : true;
    } else if (flag == "--preflight") {
      f.preflight = hasValue ? boolean(flag, value) : true;
    } else if (flag == "--allow-privileged-overrides") {
      f.allowPrivilegedOverrides = hasValue ? boolean(flag, value) : true;
    } else if (auto it = valued.find(flag); it != valued.end()) {
      if (!hasValue) {
        if (i + 1 >= args.size()) throw FlagError(flag + ": needs a value");
        value = args[++i];
      }
      it->second(flag, value);
    } else {
      throw FlagError("unknown flag " + flag + " (see --help)");
    }
  }
  // client-go's rule for leader election timings.
  if (f.leaderElect && !(f.leaseDurationSeconds > f.renewDeadlineSeconds &&
                         f.renewDeadlineSeconds > 1.2 * f.retryPeriodSeconds)) {
    throw FlagError("--lease-duration, --renew-deadline, --retry-period: need lease-duration > "
                    "renew-deadline > 1.2 * retry-period");
  }
  return f;
}

std::string operatorUsage() {
  // The image defaults carry the version, so they are not in the literal.
  std::string images = "  --worker-image IMAGE            the worker image of benchmarks that ";
  images += "name none\n                                  (default " + defaultCpuWorkerImage();
  images += ")\n  --cuda-worker-image IMAGE       the same for spec.runtime.device cuda\n";
  images += "                                  (default " + defaultCudaWorkerImage() + ")\n";
  return R"(usage: distbench-operator [flags]

Reconciles distbench.io/v1alpha1 DistBenchmark resources into pods.

  --kubeconfig PATH               kubeconfig (default: $KUBECONFIG, else in-cluster)
  --context NAME                  kubeconfig context (default: current-context)
  --namespace NS                  watch one namespace (default: all)
  --workers N                     concurrent reconciles (default 4)
  --http-address HOST:PORT        /metrics, /healthz, /readyz (default 0.0.0.0:8080)
  --leader-elect[=true|false]     elect one active replica on a Lease (default false)
  --leader-election-namespace NS  the Lease's namespace (default: $POD_NAMESPACE, else default)
  --leader-election-id NAME       the Lease's name (default distbench-operator)
  --lease-duration S              default 15
  --renew-deadline S              default 10
  --retry-period S                default 2
  --shutdown-timeout S            wait for reconciles in flight on SIGTERM (default 10)
  --create-failure-timeout S      how long the API server may refuse a benchmark's pods
                                  (admission, quota) before it fails: CreateFailed (default 60)
  --report-fetch-timeout S        how long after Succeeded to keep asking for the master's log,
                                  which carries the report, while its kubelet does not
                                  answer: then ReportStored False (default 60)
  --progress-interval S           how often a Running benchmark's status.progress is read from
                                  trainer 0's log (default 10; 0: never)
  --worker-metrics-from JSON      NetworkPolicyPeers that may scrape gang pods' metrics port,
                                  e.g. '[{"namespaceSelector":{"matchLabels":{"name":"monitoring"}}}]'
                                  (default [], any source)
)" + images + R"(  --allow-privileged-overrides[=true|false]
                                  accept podTemplates security overrides that Pod Security
                                  "restricted" forbids (root, Unconfined seccomp, added
                                  capabilities, privilege escalation); default false: such a
                                  benchmark fails with InvalidSpec
  --suspect-nodes none|label|taint
                                  what a node a Fabric run finds slow gets: nothing (default),
                                  the label distbench.io/suspect, or that NoSchedule taint;
                                  label and taint need RBAC to get and patch nodes
  --preflight[=true|false]        run the preflight gate, Kueue's AdmissionCheck controller for
                                  controllerName distbench.io/preflight (default false); needs
                                  Kueue's CRDs (kueue.x-k8s.io/v1beta1) and
                                  crds/distbench.io_distbenchpreflightpolicies.yaml
  --log-format json|text          default json
  --log-level debug|info|warn|error  default info
  --version, --help
)";
}

}  // namespace distbench::op
