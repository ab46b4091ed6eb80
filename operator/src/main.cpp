// distbench-operator: reconciles DistBenchmark resources into gangs of pods.
// Lifecycle: load config, start the caches, serve /metrics and probes, win
// the Lease (when electing), reconcile until SIGTERM or SIGINT, then drain
// and hand the Lease back. A replica that loses the Lease exits at once, as
// client-go's controllers do, so it can never act beside the new leader.
#include <malloc.h>
#include <prometheus/metric_family.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "distbench/http/http_endpoints.h"
#include "distbench/kube/event_recorder.h"
#include "distbench/kube/kube_config.h"
#include "distbench/kube/leader_election.h"
#include "distbench/kube/log.h"
#include "distbench/operator/controller.h"
#include "distbench/operator/operator_env.h"
#include "distbench/operator/operator_flags.h"
#include "distbench/operator/operator_metrics.h"
#include "distbench/operator/schedule_controller.h"
#include "distbench/operator/schedule_metrics.h"

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
      log::info("stopping", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
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

 private:
  sigset_t signals_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool requested_ = false;
};

ControllerOptions controllerOptions(const OperatorFlags& flags, EventRecorder& recorder,
                                    const std::shared_ptr<OperatorMetrics>& metrics) {
  ControllerOptions options;
  options.ns = flags.ns;
  options.workers = flags.workers;
  options.createFailureTimeout = std::chrono::seconds(
      static_cast<int64_t>(std::ceil(flags.createFailureTimeoutSeconds)));
  options.reportFetchTimeout = std::chrono::seconds(
      static_cast<int64_t>(std::ceil(flags.reportFetchTimeoutSeconds)));
  options.cluster.metricsFrom = web::json::value::parse(flags.workerMetricsFrom);
  options.cluster.workerImages = {flags.workerImage, flags.cudaWorkerImage};
  options.cluster.allowPrivilegedOverrides = flags.allowPrivilegedOverrides;
  options.queue.observer = metrics;
  options.onEvent = [&recorder](const web::json::value& object, bool warning,
                                const std::string& reason, const std::string& message) {
    const auto& meta = object.at("metadata");
    const std::string key = meta.at("namespace").as_string() + "/" + meta.at("name").as_string();
    (warning ? log::warn : log::info)(message, {{"key", key}, {"reason", reason}});
    recorder.record(object, warning ? EventType::Warning : EventType::Normal, reason, message);
  };
  options.onReconciled = [&metrics](const std::string& key, std::chrono::duration<double> took,
                                    const Result& result, const std::string* error) {
    if (error != nullptr) {
      metrics->observeReconcile(took, ReconcileOutcome::Error);
      log::error("reconcile failed; retrying with backoff", {{"key", key}, {"error", *error}});
      return;
    }
    const bool requeue = result.requeue || result.requeueAfter.count() > 0;
    metrics->observeReconcile(took, requeue ? ReconcileOutcome::Requeue : ReconcileOutcome::Success);
    log::debug("reconciled", {{"key", key},
                              {"seconds", std::to_string(took.count())},
                              {"requeueAfterMs", std::to_string(result.requeueAfter.count())}});
  };
  return options;
}

ScheduleControllerOptions scheduleOptions(const ControllerOptions& benchmarks,
                                          const OperatorFlags& flags) {
  ScheduleControllerOptions options;
  options.ns = benchmarks.ns;
  options.informer = benchmarks.informer;
  options.onReconciled = benchmarks.onReconciled;
  options.reconciler.onEvent = benchmarks.onEvent;
  options.reconciler.allowPrivilegedOverrides = flags.allowPrivilegedOverrides;
  return options;
}

// The schedule controller, when the API server serves schedules; nothing
// (and a log line saying how to turn them on) when it does not.
std::unique_ptr<ScheduleController> scheduleController(KubeClient& client,
                                                       ScheduleControllerOptions options) {
  try {
    if (!schedulesServed(client, options.ns)) {
      log::warn("DistBenchmarkSchedules are off: the API server does not serve them; apply "
                "crds/distbench.io_distbenchmarkschedules.yaml (Helm installs a chart's CRDs "
                "only on first install) and restart the operator",
                {});
      return nullptr;
    }
  } catch (const KubeApiError& e) {
    log::warn("DistBenchmarkSchedules are off: could not ask the API server whether it serves "
              "them",
              {{"error", e.what()}});
    return nullptr;
  }
  return std::make_unique<ScheduleController>(client, std::move(options));
}

LeaderElectionOptions leaderElectionOptions(const OperatorFlags& flags) {
  LeaderElectionOptions le;
  le.ns = flags.leaderElectionNamespace.empty() ? envOr(kEnvPodNamespace, "default")
                                                : flags.leaderElectionNamespace;
  le.leaseName = flags.leaderElectionId;
  le.identity = envOr(kEnvPodName, "");
  le.leaseDuration = ms(flags.leaseDurationSeconds);
  le.renewDeadline = ms(flags.renewDeadlineSeconds);
  le.retryPeriod = ms(flags.retryPeriodSeconds);
  return le;
}

int run(const OperatorFlags& flags) {
  StopSignals stop;
  const KubeConfig config = loadConfig(flags.kubeconfig, flags.context);
  log::info("starting", {{"version", DISTBENCH_VERSION},
                         {"config", config.source},
                         {"namespace", flags.ns.empty() ? "(all)" : flags.ns},
                         {"workers", std::to_string(flags.workers)},
                         {"workerImage", flags.workerImage},
                         {"cudaWorkerImage", flags.cudaWorkerImage}});
  KubeClient client(config);
  auto metrics = std::make_shared<OperatorMetrics>();
  EventRecorder recorder(client, "distbench-operator",
                         envOr(kEnvNodeName, envOr(kEnvHostname, "")));
  const ControllerOptions benchmarkOptions = controllerOptions(flags, recorder, metrics);
  Controller controller(client, benchmarkOptions);
  std::unique_ptr<ScheduleController> schedules =
      scheduleController(client, scheduleOptions(benchmarkOptions, flags));
  ScheduleMetrics scheduleMetrics;
  if (schedules) {
    metrics->addInformer("distbenchmarkschedules", schedules->schedules());
    metrics->addInformer("distbenchmarks", schedules->runs());
    metrics->addFamilies([&] { return scheduleMetrics.collect(schedules->schedules().list()); });
  }
  metrics->addInformer("distbenchmarks", controller.benchmarks());
  metrics->addInformer("pods", controller.pods());
  metrics->addInformer("services", controller.services());
  metrics->addInformer("configmaps", controller.configMaps());
  metrics->addInformer("networkpolicies", controller.networkPolicies());

  distbench::http::HttpEndpoints endpoints(
      flags.httpAddress,
      [&] {
        metrics->setBenchmarkPhases(controller.phaseCounts());
        return metrics->scrape();
      },
      // Ready once the caches are filled: a standby is ready to take over.
      [&] { return controller.synced() && (!schedules || schedules->synced()); },
      [](const std::string& what, const std::string& error) { log::error(what, {{"error", error}}); });
  endpoints.start();
  log::info("serving /metrics, /healthz, /readyz", {{"port", std::to_string(endpoints.port())}});

  stop.listen();

  controller.startInformers();
  if (schedules) schedules->startInformers();
  if (!controller.waitForSync(120s) || (schedules && !schedules->waitForSync(120s))) {
    log::error("caches did not sync within 120 s; check RBAC and the API server", {});
    return 1;
  }
  log::info("caches synced", {});

  std::unique_ptr<LeaderElector> elector;
  if (flags.leaderElect) {
    const LeaderElectionOptions le = leaderElectionOptions(flags);
    elector = std::make_unique<LeaderElector>(config, le);
    elector->run(
        [&] {
          metrics->setLeader(true);
          log::info("became leader", {{"identity", elector->identity()}});
          controller.startWorkers();
          if (schedules) schedules->startWorkers();
        },
        [&] {
          metrics->setLeader(false);
          if (stop.requested()) return;
          // Another replica may already be acting: not one more reconcile.
          log::error("lost leadership; exiting", {{"identity", elector->identity()}});
          std::_Exit(1);
        });
    log::info("waiting for leadership", {{"lease", le.ns + "/" + le.leaseName}});
  } else {
    metrics->setLeader(true);
    controller.startWorkers();
    if (schedules) schedules->startWorkers();
  }

  // Bursts of watch events and requests leave freed memory in the heap;
  // handing it back now and then keeps RSS near what is live.
  stop.wait(5s, [] { malloc_trim(0); });
  const bool schedulesDrained = !schedules || schedules->stop(ms(flags.shutdownTimeoutSeconds));
  const bool drained = controller.stop(ms(flags.shutdownTimeoutSeconds)) && schedulesDrained;
  recorder.flush(2s);
  if (!drained) {
    // Its requests are bounded by the client's timeout, but waiting for
    // them would outlast the pod's grace period. The Lease is not released:
    // a successor must not start while that reconcile may still write.
    log::error("a reconcile was still running at the shutdown timeout; exiting without it", {});
    std::_Exit(1);
  }
  // After the workers: the next leader must not overlap with our last reconcile.
  if (elector) elector->stop(true);
  endpoints.stop();
  log::info("stopped", {});
  return 0;
}

}  // namespace
}  // namespace distbench::op

int main(int argc, char** argv) {
  using namespace distbench::op;
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
  log::setFormat(flags.logFormat == "text" ? log::Format::Text : log::Format::Json);
  log::setLevel(log::parseLevel(flags.logLevel).value_or(log::Level::Info));
  try {
    return run(flags);
  } catch (const std::exception& e) {
    log::error("fatal", {{"error", e.what()}});
    return 1;
  }
}
