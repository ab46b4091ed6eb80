#include "operator_flags.h"

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

double positiveSeconds(const std::string& flag, const std::string& text) {
  try {
    size_t used = 0;
    const double s = std::stod(text, &used);
    if (used == text.size() && s > 0) return s;
  } catch (const std::exception&) {
  }
  throw FlagError(flag + ": expected seconds > 0, got \"" + text + "\"");
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
  --log-format json|text          default json
  --log-level debug|info|warn|error  default info
  --version, --help
)";
}

}  // namespace distbench::op
