// distbench-operator: reconciles DistBenchmark resources into gangs of pods.
// Lifecycle: load config, serve /metrics and probes, start the caches, win
// the Lease (when electing), reconcile until SIGTERM or SIGINT, then drain
// and hand the Lease back. A replica that loses the Lease (an API server
// outage longer than the renew deadline, say) takes no more keys at once,
// lets the reconciles in hand finish before anyone else can take the Lease
// over, and campaigns again in the same process; only a reconcile still
// running by then makes it exit, so it can never act beside a new leader.
#include <malloc.h>
#include <prometheus/metric_family.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "distbench/http/http_endpoints.h"
#include "distbench/kube/event_recorder.h"
#include "distbench/kube/kube_config.h"
#include "distbench/kube/leader_election.h"
#include "distbench/kube/log.h"
#include "distbench/operator/benchmarks/benchmark_controller.h"
#include "distbench/operator/benchmarks/suspect_node_marks.h"
#include "distbench/operator/common/operator_env.h"
#include "distbench/operator/common/operator_flags.h"
#include "distbench/operator/common/operator_metrics.h"
#include "distbench/operator/preflight/preflight_controller.h"
#include "distbench/operator/preflight/preflight_metrics.h"
#include "distbench/operator/schedules/schedule_controller.h"
#include "distbench/operator/schedules/schedule_metrics.h"

#ifndef DISTBENCH_VERSION
#define DISTBENCH_VERSION "dev"
#endif

namespace distbench::op {
namespace {

using namespace std::chrono_literals;

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

std::string envOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

// SIGTERM and SIGINT, taken by one thread with sigwait. Construct it before
// any other thread starts: they inherit the blocked mask.
class StopSignals {
 public:
  StopSignals() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGTERM);
    sigaddset(&signals_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
  }

  void listen() {
    std::thread([this] {
      int sig = 0;
      sigwait(&signals_, &sig);
      kube::log::info("stopping", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
      std::lock_guard<std::mutex> lock(mu_);
      requested_ = true;
      wake_.notify_all();
    }).detach();  // sigwait has no timeout; the process ends under it
  }

  bool requested() {
    std::lock_guard<std::mutex> lock(mu_);
    return requested_;
  }

  // Until a stop signal, calling `idle` every `period`.
  void wait(std::chrono::milliseconds period, const std::function<void()>& idle) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!wake_.wait_for(lock, period, [&] { return requested_; })) idle();
  }

  // Sleeps for `period`; false when a stop signal came first.
  bool sleep(std::chrono::milliseconds period) {
    std::unique_lock<std::mutex> lock(mu_);
    return !wake_.wait_for(lock, period, [&] { return requested_; });
  }

 private:
  sigset_t signals_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool requested_ = false;
};

// Each Event in the log and to the API server.
kube::EventSink logAndRecord(kube::EventRecorder& recorder) {
  return [&recorder](const web::json::value& object, bool warning, const std::string& reason,
                     const std::string& message) {
    const auto& meta = object.at("metadata");
    const std::string key = meta.at("namespace").as_string() + "/" + meta.at("name").as_string();
    (warning ? kube::log::warn : kube::log::info)(message, {{"key", key}, {"reason", reason}});
    recorder.record(object, warning ? kube::EventType::Warning : kube::EventType::Normal, reason,
                    message);
  };
}

// Each reconcile in the metrics and the log.
kube::OnReconciled observeReconciles(const std::shared_ptr<OperatorMetrics>& metrics) {
  return [&metrics](const std::string& key, std::chrono::duration<double> took,
                    const kube::Result& result, const std::string* error) {
    if (error != nullptr) {
      metrics->observeReconcile(took, ReconcileOutcome::Error);
      kube::log::error("reconcile failed; retrying with backoff",
                       {{"key", key}, {"error", *error}});
      return;
    }
    const bool requeue = result.requeue || result.requeueAfter.count() > 0;
    metrics->observeReconcile(took,
                              requeue ? ReconcileOutcome::Requeue : ReconcileOutcome::Success);
    kube::log::debug("reconciled",
                     {{"key", key},
                      {"seconds", std::to_string(took.count())},
                      {"requeueAfterMs", std::to_string(result.requeueAfter.count())}});
  };
}

BenchmarkControllerOptions controllerOptions(const OperatorFlags& flags,
                                             kube::EventRecorder& recorder,
                                             const std::shared_ptr<OperatorMetrics>& metrics) {
  BenchmarkControllerOptions options;
  options.ns = flags.ns;
  options.runtime.workers = flags.workers;
  options.createFailureTimeout =
      std::chrono::seconds(static_cast<int64_t>(std::ceil(flags.createFailureTimeoutSeconds)));
  options.reportFetchTimeout =
      std::chrono::seconds(static_cast<int64_t>(std::ceil(flags.reportFetchTimeoutSeconds)));
  options.progressInterval =
      std::chrono::seconds(static_cast<int64_t>(std::ceil(flags.progressIntervalSeconds)));
  options.suspectNodes =
      parseSuspectNodeAction(flags.suspectNodes).value_or(SuspectNodeAction::None);
  options.cluster.metricsFrom = web::json::value::parse(flags.workerMetricsFrom);
  options.cluster.workerImages = {flags.workerImage, flags.cudaWorkerImage};
  options.cluster.allowPrivilegedOverrides = flags.allowPrivilegedOverrides;
  options.runtime.queue.observer = metrics;
  options.onEvent = logAndRecord(recorder);
  options.runtime.onReconciled = observeReconciles(metrics);
  return options;
}

// What the other controllers take from the run controller's options: the
// informers' settings, and the runtime's reconcile observer (metrics) and
// gate (leadership).
template <typename Options>
Options withSharedRuntime(const BenchmarkControllerOptions& benchmarks) {
  Options options;
  options.informer = benchmarks.informer;
  options.runtime.onReconciled = benchmarks.runtime.onReconciled;
  options.runtime.mayReconcile = benchmarks.runtime.mayReconcile;
  return options;
}

ScheduleControllerOptions scheduleOptions(const BenchmarkControllerOptions& benchmarks,
                                          const OperatorFlags& flags) {
  auto options = withSharedRuntime<ScheduleControllerOptions>(benchmarks);
  options.ns = benchmarks.ns;
  options.reconciler.onEvent = benchmarks.onEvent;
  options.reconciler.allowPrivilegedOverrides = flags.allowPrivilegedOverrides;
  return options;
}

// A part of the operator that runs only where the API server serves its
// resources (their CRDs installed: Helm installs a chart's CRDs once, never
// on upgrade), and says why in the log where it does not.
struct OptionalPart {
  std::string serves;  // "DistBenchmarkSchedules", for "whether it serves ..."
  // What is not served ("" when everything is); throws KubeApiError when
  // the API server cannot tell.
  std::function<std::string()> missing;
  std::function<std::string(const std::string& missing)> offMessage;
  std::string refusedMessage;  // the API server refused to say (RBAC)
};

// Whether the API server serves `part`, asked until it says. Only a 404
// that lasts 5 s means no: a restarting API server answers 404 for every
// custom resource until it has read the CRDs back. A server that is down
// or failing (an operator started during an outage) is asked again, 1 s,
// 2 s, 4 s, then every 5 s, for as long as that lasts, so that an outage
// never turns a part off for the life of the process. Nullopt: a stop
// signal came first.
std::optional<bool> servedOnceAnswered(const OptionalPart& part, StopSignals& stop) {
  constexpr auto kLogEvery = 60s;  // a long outage is said once a minute
  constexpr auto kNotServedFor = 5s;
  std::chrono::milliseconds backoff = 1s;
  std::optional<std::chrono::steady_clock::time_point> lastLogged, firstNotFound;
  for (;;) {
    try {
      const std::string missing = part.missing();
      if (missing.empty()) return true;
      const auto now = std::chrono::steady_clock::now();
      if (!firstNotFound) firstNotFound = now;
      if (now - *firstNotFound < kNotServedFor) {
        if (!stop.sleep(1s)) return std::nullopt;
        continue;
      }
      kube::log::warn(part.offMessage(missing), {});
      return false;
    } catch (const kube::KubeApiError& e) {
      if (!e.unavailable()) {
        // Forbidden and the like: asking again gets the same answer.
        kube::log::warn(part.refusedMessage, {{"error", e.what()}});
        return false;
      }
      const auto now = std::chrono::steady_clock::now();
      if (!lastLogged || now - *lastLogged >= kLogEvery) {
        lastLogged = now;
        kube::log::warn("cannot ask the API server whether it serves " + part.serves +
                            "; asking again until it answers (not ready until then)",
                        {{"error", e.what()}, {"retryInMs", std::to_string(backoff.count())}});
      }
      if (!stop.sleep(backoff)) return std::nullopt;
      backoff = std::min<std::chrono::milliseconds>(backoff * 2, 5s);
    }
  }
}

OptionalPart schedulesPart(kube::KubeClient& client, const std::string& ns) {
  return {"DistBenchmarkSchedules",
          [&client, ns] { return schedulesServed(client, ns) ? "" : "distbenchmarkschedules"; },
          [](const std::string&) {
            return std::string(
                "DistBenchmarkSchedules are off: the API server does not serve them; apply "
                "crds/distbench.io_distbenchmarkschedules.yaml (Helm installs a chart's CRDs "
                "only on first install) and restart the operator");
          },
          "DistBenchmarkSchedules are off: the API server refused to say whether it serves "
          "them (check the operator's RBAC: list distbenchmarkschedules)"};
}

OptionalPart preflightPart(kube::KubeClient& client) {
  return {"the preflight gate's resources",
          [&client] { return preflightMissingResources(client); },
          [](const std::string& missing) {
            return "the preflight gate is off: the API server does not serve " + missing +
                   "; install Kueue v0.15 or later (kueue.x-k8s.io/v1beta1) and apply "
                   "crds/distbench.io_distbenchpreflightpolicies.yaml, then restart the "
                   "operator (docs/preflight.md)";
          },
          "the preflight gate is off: the API server refused to say whether it serves Kueue's "
          "Workloads and AdmissionChecks (check the operator's RBAC: the chart's "
          "preflight.enabled grants it)"};
}

kube::LeaderElectionOptions leaderElectionOptions(const OperatorFlags& flags) {
  kube::LeaderElectionOptions le;
  le.ns = flags.leaderElectionNamespace.empty() ? envOr(kEnvPodNamespace, "default")
                                                : flags.leaderElectionNamespace;
  le.leaseName = flags.leaderElectionId;
  le.identity = envOr(kEnvPodName, "");
  le.leaseDuration = ms(flags.leaseDurationSeconds);
  le.renewDeadline = ms(flags.renewDeadlineSeconds);
  le.retryPeriod = ms(flags.retryPeriodSeconds);
  return le;
}

// The operator's process from start to exit: what run() holds, made in
// this order and unmade in reverse, and the named steps of its lifecycle.
class Operator {
 public:
  // StopSignals first: it blocks the signals every later thread inherits.
  explicit Operator(const OperatorFlags& flags)
      : flags_(flags),
        config_(loadConfigSayingStarting(flags)),
        client_(config_),
        metrics_(std::make_shared<OperatorMetrics>()),
        recorder_(client_, "distbench-operator", envOr(kEnvNodeName, envOr(kEnvHostname, ""))),
        le_(flags.leaderElect ? std::optional(leaderElectionOptions(flags)) : std::nullopt),
        elector_(le_ ? std::make_unique<kube::LeaderElector>(config_, *le_) : nullptr),
        benchmarkOptions_(benchmarkOptions()),
        controller_(client_, benchmarkOptions_),
        electionGuard_{elector_.get()},
        endpoints_(
            flags.httpAddress, [this] { return scrape(); }, [this] { return ready(); },
            [](const std::string& what, const std::string& error) {
              kube::log::error(what, {{"error", error}});
            }) {
    metrics_->addInformer("distbenchmarks", controller_.benchmarks());
    metrics_->addInformer("pods", controller_.pods());
    metrics_->addInformer("services", controller_.services());
    metrics_->addInformer("configmaps", controller_.configMaps());
    metrics_->addInformer("networkpolicies", controller_.networkPolicies());
  }

  int run() {
    // Before anything that waits on the API server: the liveness probe must
    // answer while it is down.
    endpoints_.start();
    kube::log::info("serving /metrics, /healthz, /readyz",
                    {{"port", std::to_string(endpoints_.port())}});
    stop_.listen();
    controller_.startInformers();
    if (!decideOptionalParts()) {
      kube::log::info("stopped before the caches synced", {});
      return 0;
    }
    if (!waitForCaches()) {
      kube::log::error("caches did not sync within 120 s; check RBAC and the API server", {});
      return 1;
    }
    kube::log::info("caches synced", {});
    if (elector_) {
      campaign();
    } else {
      metrics_->setLeader(true);
      startWorkers();
    }
    // Bursts of watch events and requests leave freed memory in the heap;
    // handing it back now and then keeps RSS near what is live.
    stop_.wait(5s, [] { malloc_trim(0); });
    return shutdown();
  }

 private:
  // The first log line names the config the operator found.
  static kube::KubeConfig loadConfigSayingStarting(const OperatorFlags& flags) {
    kube::KubeConfig config = kube::loadConfig(flags.kubeconfig, flags.context);
    kube::log::info("starting", {{"version", DISTBENCH_VERSION},
                                 {"config", config.source},
                                 {"namespace", flags.ns.empty() ? "(all)" : flags.ns},
                                 {"workers", std::to_string(flags.workers)},
                                 {"workerImage", flags.workerImage},
                                 {"cudaWorkerImage", flags.cudaWorkerImage}});
    return config;
  }

  BenchmarkControllerOptions benchmarkOptions() {
    BenchmarkControllerOptions options = controllerOptions(flags_, recorder_, metrics_);
    // Exact on the clock, where the election thread may notice a lost Lease
    // only when its renew request gives up.
    if (elector_) options.runtime.mayReconcile = [this] { return elector_->isLeader(); };
    return options;
  }

  std::string scrape() {
    metrics_->setBenchmarkPhases(controller_.phaseCounts());
    return metrics_->scrape();
  }

  // Ready once the caches are filled: a standby is ready to take over.
  bool ready() const {
    if (!partsDecided_.load() || !controller_.synced()) return false;
    for (const kube::Controller* c : optional_)
      if (!c->synced()) return false;
    return true;
  }

  // Which optional controllers run, each once the API server has said
  // whether it serves their resources. False: a stop signal came first.
  bool decideOptionalParts() {
    const std::optional<bool> schedules = servedOnceAnswered(schedulesPart(client_, flags_.ns), stop_);
    if (!schedules) return false;
    if (*schedules) startSchedules();
    if (flags_.preflight) {
      const std::optional<bool> gate = servedOnceAnswered(preflightPart(client_), stop_);
      if (!gate) return false;
      if (*gate) startPreflight();
    }
    partsDecided_ = true;
    return true;
  }

  void startSchedules() {
    schedules_ =
        std::make_unique<ScheduleController>(client_, scheduleOptions(benchmarkOptions_, flags_));
    metrics_->addInformer("distbenchmarkschedules", schedules_->schedules());
    metrics_->addInformer("distbenchmarks", schedules_->runs());
    metrics_->addFamilies(
        [this] { return scheduleMetrics_.collect(schedules_->schedules().list()); });
    schedules_->startInformers();
    optional_.push_back(schedules_.get());
  }

  void startPreflight() {
    auto gate = withSharedRuntime<PreflightControllerOptions>(benchmarkOptions_);
    gate.ns = flags_.ns;
    gate.reconciler.onEvent = benchmarkOptions_.onEvent;
    gate.reconciler.onAnswered = [this](const PreflightAnswered& a) { preflightMetrics_.answered(a); };
    preflight_ = std::make_unique<PreflightController>(client_, gate);
    const auto checks = withSharedRuntime<AdmissionCheckControllerOptions>(benchmarkOptions_);
    admissionChecks_ = std::make_unique<AdmissionCheckController>(client_, checks);
    metrics_->addInformer("workloads", preflight_->primary());
    metrics_->addInformer("admissionchecks", admissionChecks_->primary());
    metrics_->addInformer("distbenchmarks", preflight_->runs());
    metrics_->addFamilies([this] { return preflightMetrics_.collect(); });
    for (kube::Controller* c : {static_cast<kube::Controller*>(preflight_.get()),
                                static_cast<kube::Controller*>(admissionChecks_.get())}) {
      c->startInformers();
      optional_.push_back(c);
    }
    kube::log::info("the preflight gate is on",
                    {{"controllerName", api::kPreflightControllerName}});
  }

  // From the API server's first answer: caches that do not fill by then
  // are a matter of RBAC, which no wait mends.
  bool waitForCaches() {
    const auto startDeadline = std::chrono::steady_clock::now() + 120s;
    auto left = [&] {
      return std::max(0ms, std::chrono::duration_cast<std::chrono::milliseconds>(
                               startDeadline - std::chrono::steady_clock::now()));
    };
    if (!controller_.waitForSync(left())) return false;
    for (const kube::Controller* c : optional_)
      if (!c->waitForSync(left())) return false;
    return true;
  }

  void startWorkers() {
    controller_.startWorkers();
    for (kube::Controller* c : optional_) c->startWorkers();
  }

  // A candidate may take the Lease leaseDuration after it last saw it
  // renewed; this replica stops leading renewDeadline after its last
  // renew. Reconciles in hand must end in between.
  void campaign() {
    const auto drainTimeout =
        std::min(ms(flags_.shutdownTimeoutSeconds), le_->leaseDuration - le_->renewDeadline);
    elector_->run(
        [this] {
          metrics_->setLeader(true);
          kube::log::info("became leader", {{"identity", elector_->identity()}});
          startWorkers();
        },
        [this, drainTimeout] { stoppedLeading(drainTimeout); });
    kube::log::info("waiting for leadership", {{"lease", le_->ns + "/" + le_->leaseName}});
  }

  void stoppedLeading(std::chrono::milliseconds drainTimeout) {
    metrics_->setLeader(false);
    if (stop_.requested()) return;
    kube::log::warn("lost leadership; pausing the workers, then campaigning again",
                    {{"identity", elector_->identity()}});
    const auto deadline = std::chrono::steady_clock::now() + drainTimeout;
    bool paused = controller_.pauseWorkers(drainTimeout);
    for (kube::Controller* c : optional_) {
      paused = c->pauseWorkers(std::max(std::chrono::steady_clock::duration::zero(),
                                        deadline - std::chrono::steady_clock::now())) &&
               paused;
    }
    if (!paused) {
      // Another replica may act from now on: not one more write.
      kube::log::error(
          "lost leadership and a reconcile was still running when another replica "
          "may take over; exiting",
          {{"identity", elector_->identity()}, {"drainMs", std::to_string(drainTimeout.count())}});
      std::_Exit(1);
    }
    kube::log::info("workers paused; campaigning for the Lease again",
                    {{"lease", le_->ns + "/" + le_->leaseName}});
  }

  int shutdown() {
    bool drained = true;
    for (auto c = optional_.rbegin(); c != optional_.rend(); ++c) {
      drained = (*c)->stop(ms(flags_.shutdownTimeoutSeconds)) && drained;
    }
    drained = controller_.stop(ms(flags_.shutdownTimeoutSeconds)) && drained;
    recorder_.flush(2s);
    if (!drained) {
      // Its requests are bounded by the client's timeout, but waiting for
      // them would outlast the pod's grace period. The Lease is not
      // released: a successor must not start while that reconcile may
      // still write.
      kube::log::error("a reconcile was still running at the shutdown timeout; exiting without it",
                       {});
      std::_Exit(1);
    }
    // After the workers: the next leader must not overlap with our last reconcile.
    if (elector_) elector_->stop(true);
    endpoints_.stop();
    kube::log::info("stopped", {});
    return 0;
  }

  // Leaving by an exception: no election callback into what goes before it
  // (the Lease then expires by itself).
  struct ElectionGuard {
    kube::LeaderElector* elector;
    ~ElectionGuard() {
      if (elector) elector->stop(false);
    }
  };

  const OperatorFlags& flags_;
  StopSignals stop_;
  const kube::KubeConfig config_;
  kube::KubeClient client_;
  std::shared_ptr<OperatorMetrics> metrics_;
  kube::EventRecorder recorder_;
  std::optional<kube::LeaderElectionOptions> le_;
  std::unique_ptr<kube::LeaderElector> elector_;
  BenchmarkControllerOptions benchmarkOptions_;
  BenchmarkController controller_;
  // The optional controllers: set once, before partsDecided_; read by
  // ready() (another thread) only after it.
  std::unique_ptr<ScheduleController> schedules_;
  std::unique_ptr<PreflightController> preflight_;
  std::unique_ptr<AdmissionCheckController> admissionChecks_;
  std::vector<kube::Controller*> optional_;
  std::atomic<bool> partsDecided_{false};
  ScheduleMetrics scheduleMetrics_;
  PreflightMetrics preflightMetrics_;
  ElectionGuard electionGuard_;
  distbench::http::HttpEndpoints endpoints_;
};

int run(const OperatorFlags& flags) { return Operator(flags).run(); }

}  // namespace
}  // namespace distbench::op

int main(int argc, char** argv) {
  using namespace distbench::op;
  namespace kube = distbench::kube;
  // glibc gives threads their own heaps (up to 8 per core); with informer,
  // worker and request threads that multiplies freed-but-kept memory. Two
  // heaps keep the footprint near what is live at no measurable cost here.
  mallopt(M_ARENA_MAX, 2);
  OperatorFlags flags;
  try {
    flags = parseOperatorFlags(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const FlagError& e) {
    std::cerr << "distbench-operator: " << e.what() << "\n";
    return 2;
  }
  if (flags.help) {
    std::cout << operatorUsage();
    return 0;
  }
  if (flags.version) {
    std::cout << "distbench-operator " << DISTBENCH_VERSION << "\n";
    return 0;
  }
  kube::log::setFormat(flags.logFormat == "text" ? kube::log::Format::Text
                                                 : kube::log::Format::Json);
  kube::log::setLevel(kube::log::parseLevel(flags.logLevel).value_or(kube::log::Level::Info));
  try {
    return run(flags);
  } catch (const std::exception& e) {
    kube::log::error("fatal", {{"error", e.what()}});
    return 1;
  }
}
