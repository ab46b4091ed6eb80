// distbench-operator's speed against a real kube-apiserver + etcd on
// loopback, with the operator as its own process (as in a cluster), each
// figure beside the same work done by a bare client (bare_client.h: the
// same objects, created as fast as the API server takes them):
//  1. create → every child of a 17-pod benchmark (the default topology:
//     master, 8 parameter servers, 8 trainers; plus the run key Secret,
//     the ConfigMap, 2 Services and the NetworkPolicy) seen through a
//     watch, one benchmark at a time, operator and bare client in turn:
//     p50/p90 of each and their ratio;
//  2. 100 benchmarks created at once: time until all 2,200 children exist,
//     for each, and the ratio;
//  3. the operator's resident memory with those 100 benchmarks;
//  4. reconcile latency quantiles from the operator's own histogram.
// Goals (issue 30): p50 of 1 ≤ 50 ms, 2 ≤ 3 s, each ≤ 1.2× the bare
// client's; 3 ≤ 40 MB.
//
//   distbench-operator-bench [--runs 20] [--burst 100] [--workers 4]
// (--help prints the flags; a bad flag exits 2 before anything starts)
#include <cpprest/http_client.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bare_client.h"
#include "distbench/benchmarks/integer_flag.h"
#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/kube_config.h"
#include "distbench/kube/parallel_for.h"
#include "distbench/operator/benchmarks/reconciler.h"
#include "distbench/operator/common/labels.h"
#include "distbench/testing/kube/kube_test_cluster.h"
#include "distbench/testing/kube/operator_process.h"

using namespace distbench;
using web::json::value;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// 17 pods, the run key Secret, the ConfigMap, 2 Services, the NetworkPolicy.
constexpr int kChildrenPerBenchmark = 17 + 1 + 1 + 2 + 1;

constexpr const char* kUsage =
    "usage: distbench-operator-bench [--runs N] [--burst N] [--workers N]\n"
    "\n"
    "Starts etcd and kube-apiserver on loopback (the operator tests' fixture; see\n"
    "scripts/install-kube-apiserver.sh), runs the built distbench-operator as a\n"
    "process and measures create -> children latency and a burst of creates, each\n"
    "beside a bare client that creates the same objects, the operator's memory and\n"
    "its reconcile latency quantiles.\n"
    "\n"
    "  --runs N      benchmarks created one at a time for the latency (default 20)\n"
    "  --burst N     benchmarks created at once (default 100)\n"
    "  --workers N   the operator's --workers (default 4)\n"
    "  --help        this text\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A whole decimal integer in [1, 100000], or a UsageError naming the flag.
int positiveFlag(const std::string& flag, const std::string& text) {
  return static_cast<int>(distbench::bench::integerFlag<UsageError>(flag, text, 1, 100000));
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

value yamlToJson(const YAML::Node& n) {
  if (n.IsMap()) {
    value o = value::object();
    for (const auto& kv : n) o[kv.first.as<std::string>()] = yamlToJson(kv.second);
    return o;
  }
  if (n.IsSequence()) {
    value a = value::array();
    for (size_t i = 0; i < n.size(); ++i) a[i] = yamlToJson(n[i]);
    return a;
  }
  if (n.IsNull()) return value::null();
  const std::string s = n.Scalar();
  if (n.Tag() == "!") return value::string(s);  // quoted in the file
  if (s == "true" || s == "false") return value::boolean(s == "true");
  try {
    size_t used = 0;
    const long long i = std::stoll(s, &used);
    if (used == s.size()) return value::number(static_cast<int64_t>(i));
    const double d = std::stod(s, &used);
    if (used == s.size()) return value::number(d);
  } catch (const std::exception&) {
  }
  return value::string(s);
}

void installCrd(kube::KubeClient& client) {
  const value crd = yamlToJson(YAML::Load(readFile(DISTBENCH_CRD_FILE)));
  try {
    client.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  } catch (const kube::KubeApiError& e) {
    if (!e.alreadyExists()) throw;
  }
  const auto end = Clock::now() + 60s;
  while (Clock::now() < end) {
    try {
      client.get(kube::groupPath(op::kGroup, op::kVersion, "default", op::kPlural));
      return;
    } catch (const kube::KubeApiError&) {
      std::this_thread::sleep_for(200ms);
    }
  }
  throw std::runtime_error("the CRD was not served within 60 s");
}

// Counts each benchmark's children ("namespace/benchmark") as the watches
// deliver them, and their deletion.
class ChildTracker {
 public:
  void seen(const std::string& benchmark, const std::string& key, bool deleted) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& s = children_[benchmark];
    if (deleted) {
      s.erase(key);
      if (s.empty()) cv_.notify_all();
      return;
    }
    s.insert(key);
    if (static_cast<int>(s.size()) == kChildrenPerBenchmark && !complete_.count(benchmark)) {
      complete_[benchmark] = Clock::now();
      cv_.notify_all();
    }
  }
  bool waitComplete(const std::vector<std::string>& names, std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] {
      for (const auto& n : names)
        if (!complete_.count(n)) return false;
      return true;
    });
  }
  bool waitGone(const std::string& name, std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return children_[name].empty(); });
  }
  Clock::time_point completedAt(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    return complete_.at(name);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::set<std::string>> children_;
  std::map<std::string, Clock::time_point> complete_;
};

value benchmark(const std::string& name) {
  value b = value::object();
  b["apiVersion"] = value::string("distbench.io/v1alpha1");
  b["kind"] = value::string("DistBenchmark");
  b["metadata"]["name"] = value::string(name);
  b["spec"] = value::object();  // the default: 8 parameter servers, 8 trainers
  return b;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

// The operator's reconciles so far (its histogram's count, all results).
double reconcileCount(const std::string& metrics) {
  double total = 0;
  std::istringstream lines(metrics);
  std::string line;
  const std::string prefix = "distbench_operator_reconcile_duration_seconds_count";
  while (std::getline(lines, line))
    if (line.rfind(prefix, 0) == 0) total += std::stod(line.substr(line.rfind(' ') + 1));
  return total;
}

// histogram_quantile over the operator's reconcile histogram (all results).
double histogramQuantile(const std::string& metrics, double q) {
  std::map<double, double> buckets;
  std::istringstream lines(metrics);
  std::string line;
  const std::string prefix = "distbench_operator_reconcile_duration_seconds_bucket{";
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const auto le = line.find("le=\"");
    const std::string bound = line.substr(le + 4, line.find('"', le + 4) - le - 4);
    const double b = bound == "+Inf" ? 1e300 : std::stod(bound);
    buckets[b] += std::stod(line.substr(line.rfind(' ') + 1));
  }
  if (buckets.empty()) return -1;
  const double total = buckets.rbegin()->second;
  const double rank = q * total;
  double prevBound = 0, prevCount = 0;
  for (const auto& [bound, count] : buckets) {
    if (count >= rank) {
      if (bound >= 1e300) return prevBound;
      return prevBound +
             (bound - prevBound) * (rank - prevCount) / std::max(count - prevCount, 1e-9);
    }
    prevBound = bound;
    prevCount = count;
  }
  return prevBound;
}

// User + system CPU seconds a process has used.
double cpuSeconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string f;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14) utime = std::stol(f);
    if (i == 15) stime = std::stol(f);
  }
  return static_cast<double>(utime + stime) / sysconf(_SC_CLK_TCK);
}

long rssKb(int pid, const char* field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size()));
  return -1;
}

// A namespace and its default ServiceAccount (pods need one; the bench's
// cluster runs no controller-manager to make it).
void makeNamespace(kube::KubeClient& client, const std::string& name) {
  value nsObject = value::object();
  nsObject["apiVersion"] = value::string("v1");
  nsObject["kind"] = value::string("Namespace");
  nsObject["metadata"]["name"] = value::string(name);
  client.create("/api/v1/namespaces", nsObject);
  value sa = value::object();
  sa["apiVersion"] = value::string("v1");
  sa["kind"] = value::string("ServiceAccount");
  sa["metadata"]["name"] = value::string("default");
  client.create(kube::corePath(name, "serviceaccounts"), sa);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20, burst = 100, workers = 4;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string flag = argv[i];
      if (flag == "--help" || flag == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
      }
      int* target = flag == "--runs"      ? &runs
                    : flag == "--burst"   ? &burst
                    : flag == "--workers" ? &workers
                                          : nullptr;
      if (!target) throw UsageError("unknown flag " + flag);
      if (i + 1 >= argc) throw UsageError(flag + " needs a value");
      *target = positiveFlag(flag, argv[++i]);
    }
  } catch (const UsageError& error) {
    std::fprintf(stderr, "distbench-operator-bench: %s\nsee 'distbench-operator-bench --help'\n",
                 error.what());
    return 2;
  }
  kubetest::KubeTestCluster cluster;
  const std::string dir = cluster.directory();
  cluster.writeKubeconfig(dir + "/bench-kubeconfig");
  kube::KubeClient client(kube::loadKubeconfig(dir + "/bench-kubeconfig"));
  installCrd(client);
  const std::string ns = "bench", bareNs = "bench-bare";
  for (const std::string& n : {ns, bareNs}) makeNamespace(client, n);

  ChildTracker tracker;
  std::vector<std::unique_ptr<kube::Informer>> watches;
  for (const std::string& n : {ns, bareNs}) {
    for (const std::string& collection :
         {kube::corePath(n, "pods"), kube::corePath(n, "services"), kube::corePath(n, "configmaps"),
          kube::corePath(n, "secrets"),
          kube::groupPath("networking.k8s.io", "v1", n, "networkpolicies")}) {
      watches.push_back(std::make_unique<kube::Informer>(client, collection, op::kLabelBenchmark));
      watches.back()->onChange(
          [&tracker, n](const std::string& key, const value& object, bool deleted) {
            tracker.seen(
                n + "/" + object.at("metadata").at("labels").at(op::kLabelBenchmark).as_string(),
                key, deleted);
          });
      watches.back()->start();
      watches.back()->waitForSync(30s);
    }
  }

  const int port = kubetest::freePort();
  kubetest::OperatorProcess operatorProcess(
      DISTBENCH_OPERATOR_BINARY,
      {"--kubeconfig", dir + "/bench-kubeconfig", "--namespace", ns, "--workers",
       std::to_string(workers), "--http-address", "127.0.0.1:" + std::to_string(port),
       "--log-level", "warn"},
      {}, dir + "/operator.log");
  const auto readyBy = Clock::now() + 60s;
  while (kubetest::httpGet(port, "/readyz").status != 200) {
    if (Clock::now() > readyBy) {
      std::fprintf(stderr, "operator not ready:\n%s\n", operatorProcess.log().c_str());
      return 1;
    }
    std::this_thread::sleep_for(50ms);
  }
  const long idleRss = rssKb(operatorProcess.pid(), "VmRSS:");
  const std::string benchmarks = kube::groupPath(op::kGroup, op::kVersion, ns, op::kPlural);
  const op::Reconciler::Options operatorDefaults;
  bench::BareClient bare(client, bareNs, operatorDefaults.createParallelism,
                         operatorDefaults.requestHelpers);
  auto incomplete = [&](const std::string& what) {
    std::fprintf(stderr, "%s: children incomplete after the timeout\n%s\n", what.c_str(),
                 operatorProcess.log().c_str());
    return 1;
  };

  // 1. One at a time, the operator and the bare client in turn, so that
  // whatever the machine does meanwhile falls on both.
  std::vector<double> latencies, bareLatencies;
  for (int i = 0; i < runs; ++i) {
    const std::string name = "single-" + std::to_string(i);
    const auto start = Clock::now();
    client.create(benchmarks, benchmark(name));
    if (!tracker.waitComplete({ns + "/" + name}, 30s)) return incomplete(name);
    latencies.push_back(
        std::chrono::duration<double, std::milli>(tracker.completedAt(ns + "/" + name) - start)
            .count());
    const auto bareStart = Clock::now();
    bare.create(name);
    if (!tracker.waitComplete({bareNs + "/" + name}, 30s)) return incomplete("bare " + name);
    bareLatencies.push_back(std::chrono::duration<double, std::milli>(
                                tracker.completedAt(bareNs + "/" + name) - bareStart)
                                .count());
    client.remove(kube::groupPath(op::kGroup, op::kVersion, ns, op::kPlural, name));
    bare.remove(name);
    // The operator deletes the children of a deleted resource itself.
    if (!tracker.waitGone(ns + "/" + name, 30s) || !tracker.waitGone(bareNs + "/" + name, 30s)) {
      std::fprintf(stderr, "%s: children not deleted within 30 s\n", name.c_str());
      return 1;
    }
  }
  std::printf(
      "create -> all %d children of a 17-pod benchmark (%d runs each, the operator and a "
      "bare client in turn):\n",
      kChildrenPerBenchmark, runs);
  for (const auto& [who, v] :
       {std::pair<const char*, const std::vector<double>&>{"operator", latencies},
        {"bare client", bareLatencies}})
    std::printf("  %-12s p50 %.0f ms   p90 %.0f ms   min %.0f ms   max %.0f ms\n", who,
                quantile(v, 0.5), quantile(v, 0.9), quantile(v, 0.0), quantile(v, 1.0));
  std::printf(
      "  operator / bare client at p50: %.2fx   (goals: operator p50 <= 50 ms, ratio <= 1.2x)\n",
      quantile(latencies, 0.5) / quantile(bareLatencies, 0.5));

  // 2. A burst, created from 8 client threads at once: the bare client's
  // first, removed again, then the operator's, so both meet an API server
  // holding the same objects.
  auto runBurst = [&](const std::string& inNs, const std::function<void(const std::string&)>& make,
                      double& postSeconds) {
    std::vector<std::string> keys;
    for (int i = 0; i < burst; ++i) keys.push_back(inNs + "/burst-" + std::to_string(i));
    const auto burstStart = Clock::now();
    std::atomic<int> next{0};
    std::vector<std::thread> creators;
    for (int t = 0; t < 8; ++t) {
      creators.emplace_back([&] {
        for (int i = next++; i < burst; i = next++) make("burst-" + std::to_string(i));
      });
    }
    for (auto& t : creators) t.join();
    postSeconds = std::chrono::duration<double>(Clock::now() - burstStart).count();
    const bool all = tracker.waitComplete(keys, 120s);
    const double seconds = std::chrono::duration<double>(Clock::now() - burstStart).count();
    return all ? seconds : -1.0;
  };
  double postSeconds = 0, barePostSeconds = 0;
  const double bareSeconds = runBurst(
      bareNs, [&](const std::string& name) { bare.create(name); }, barePostSeconds);
  if (bareSeconds < 0) return incomplete("the bare client's burst");
  {
    std::vector<std::string> names;
    for (int i = 0; i < burst; ++i) names.push_back("burst-" + std::to_string(i));
    kube::parallelForEach(names, 8, [&](const std::string& name) { bare.remove(name); });
    for (const std::string& name : names) {
      if (!tracker.waitGone(bareNs + "/" + name, 60s)) {
        std::fprintf(stderr, "bare %s: children not deleted within 60 s\n", name.c_str());
        return 1;
      }
    }
  }
  const double cpuBefore = cpuSeconds(operatorProcess.pid());
  const double reconcilesBefore = reconcileCount(kubetest::httpGet(port, "/metrics").body);
  const double burstSeconds = runBurst(
      ns, [&](const std::string& name) { client.create(benchmarks, benchmark(name)); },
      postSeconds);
  const double operatorCpu = cpuSeconds(operatorProcess.pid()) - cpuBefore;
  std::this_thread::sleep_for(7s);  // status writes, Events and a heap trim settle
  const long loadedRss = rssKb(operatorProcess.pid(), "VmRSS:");
  std::printf("%d benchmarks created at once (%d pods, %d objects; POSTs took %.1f s):\n", burst,
              burst * 17, burst * kChildrenPerBenchmark, postSeconds);
  if (burstSeconds < 0) return incomplete("the burst");
  std::printf(
      "  all children present in %.1f s   (goal <= 3 s); the operator used %.1f CPU s of the "
      "%.0f the machine had meanwhile (API server, etcd and this program share them)\n",
      burstSeconds, operatorCpu, burstSeconds * std::thread::hardware_concurrency());
  std::printf("  bare client: all children present in %.1f s (its POSTs took %.1f s)\n",
              bareSeconds, barePostSeconds);
  std::printf("  operator / bare client: %.2fx   (goal <= 1.2x)\n", burstSeconds / bareSeconds);
  const std::string metrics = kubetest::httpGet(port, "/metrics").body;
  std::printf(
      "operator memory: VmRSS %.1f MB idle, %.1f MB with %d benchmarks (%d pods cached); "
      "peak VmHWM %.1f MB   (goal <= 40 MB)\n",
      idleRss / 1024.0, loadedRss / 1024.0, burst, burst * 17,
      rssKb(operatorProcess.pid(), "VmHWM:") / 1024.0);
  std::printf(
      "reconcile duration over the whole run (operator histogram): p50 %.1f ms   p99 %.1f ms\n",
      histogramQuantile(metrics, 0.5) * 1000, histogramQuantile(metrics, 0.99) * 1000);
  std::printf("reconciles in the burst: %.1f per benchmark (its creation to 7 s after the last "
              "child)\n",
              (reconcileCount(metrics) - reconcilesBefore) / burst);
  if (const char* out = std::getenv("DISTBENCH_BENCH_SMAPS")) {
    std::ifstream in("/proc/" + std::to_string(operatorProcess.pid()) + "/smaps");
    std::ofstream(out) << in.rdbuf();
    std::ofstream(std::string(out) + ".log") << operatorProcess.log();
  }
  operatorProcess.signal(SIGTERM);
  operatorProcess.wait(15000);
  for (auto& w : watches) w->stop();
  return 0;
}
