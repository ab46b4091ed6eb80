// One DistBenchmark's reconcile: from the resource (read fresh from the API
// server, so decisions never rest on a status older than our last write)
// and the cached children, create what is missing, follow the gang, apply
// the run policy, and write status. Every step is idempotent, so a reconcile
// interrupted anywhere (crash, lost leadership, 409) is simply run again.
//
// Order of effects, so that a crash between two of them never leads astray:
//  - children are created from the spec and the gang number in status;
//  - a decision that changes the gang (restart) or ends the run is written
//    to status first; pods are deleted after the write succeeded;
//  - pods of an older gang are deleted, and the new gang created only once
//    they are gone (pod names are stable, so old and new never mix).
#pragma once

#include <cpprest/json.h>

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/parallel_for.h"
#include "distbench/kube/reconcile_result.h"
#include "distbench/kube/status_context.h"
#include "distbench/operator/benchmarks/desired_objects.h"
#include "distbench/operator/benchmarks/gang_plan.h"
#include "distbench/operator/benchmarks/gang_state.h"
#include "distbench/operator/benchmarks/report_store.h"
#include "distbench/operator/benchmarks/run_finish.h"
#include "distbench/operator/benchmarks/run_policy.h"
#include "distbench/operator/common/crd_names.h"
#include "distbench/operator/common/status_conditions.h"
#include "distbench/report/report.h"

namespace distbench::op {

class Reconciler {
 public:
  struct Options {
    kube::EventSink onEvent;
    std::function<kube::SystemTime()> now = [] { return std::chrono::system_clock::now(); };
    // Concurrent creates and deletes per reconcile: the default gang (17
    // pods) goes up in one round trip instead of 17.
    int createParallelism = 24;
    // The threads all reconciles together may add for that (each holds a
    // connection while its request is out): a burst of new benchmarks
    // shares them rather than taking workers x createParallelism.
    int requestHelpers = 32;
    // How long the API server may go on refusing to create a child
    // (admission, quota, a LimitRange) before the run fails (CreateFailed):
    // long enough for a quota freed by other work, short enough that a
    // misconfiguration is reported as one.
    std::chrono::seconds createFailureTimeout{60};
    // How long after Succeeded the operator goes on asking for the master's
    // log (its kubelet may be slow to answer, or briefly unreachable) before
    // it records ReportStored False (ReportUnavailable) and cleans up.
    std::chrono::seconds reportFetchTimeout{60};
    // How often status.progress of a Running benchmark is brought up to
    // date from trainer 0's log (run_progress.h); 0: never.
    std::chrono::seconds progressInterval{10};
    // How long one read of a rank's log (progress, a failed rank's lines)
    // may take: a kubelet that does not answer must not hold a restart up
    // for the API client's whole timeout.
    std::chrono::seconds logReadTimeout{10};
    // What a Fabric run's slow nodes get (suspect_node_marks.h).
    SuspectNodeAction suspectNodes = SuspectNodeAction::None;
    ClusterOptions cluster;
  };

  // The informers cache the children (pods, Services, ConfigMaps carrying
  // kLabelBenchmark) and must outlive the reconciler.
  Reconciler(kube::KubeClient& client, const kube::Informer& pods, const kube::Informer& services,
             const kube::Informer& configMaps, const kube::Informer& networkPolicies,
             Options options);

  // `key`: "namespace/name". Throws KubeApiError (retried with backoff).
  kube::Result reconcile(const std::string& key);

 private:
  struct Context;

  // Failed with reason InvalidSpec (a spec the API server let through).
  kube::Result refuseSpec(Context& ctx, const std::string& message);
  // Observe (children, pods), plan (gang_plan.h), carry the plan out.
  kube::Result reconcileLive(Context& ctx);
  // The one place a GangPlan is carried out: stale pods deleted (and
  // nothing else), missing pods created, the master's Endpoints and the
  // role counts written, then the decision applied.
  kube::Result carryOut(Context& ctx, const GangPlan& plan, std::chrono::milliseconds wake);
  // Creates plan.create. A result when the reconcile ends here (a create
  // refused, a name taken).
  std::optional<kube::Result> createGangPods(Context& ctx, const GangPlan& plan);
  // Carries out the run policy's decision on the gang: status, Events,
  // pod deletes; `wake` is when a deadline next needs a look.
  kube::Result apply(Context& ctx, const GangDecision& decision, const GangState& gang,
                     const std::vector<web::json::value>& current, std::chrono::milliseconds wake);
  // Reads trainer 0's progress into status.progress when it is due
  // (Options::progressInterval), and brings `wake` to the next read.
  void followProgress(Context& ctx, const GangState& gang, std::chrono::milliseconds& wake);
  // Drops the progress memo of benchmark `name`, whatever its UID.
  void forgetProgress(const std::string& ns, const std::string& name);
  // The end of pod `pod`'s worker log (rank_log_tail.h) through logClient_.
  // Throws KubeApiError.
  std::string readRankLog(const std::string& ns, const std::string& pod, std::size_t lines,
                          std::size_t bytes);
  // Keeps the last lines of the gang's failed ranks in <name>-logs
  // (failed_rank_logs.h) before the gang's pods go; a Warning Event when
  // they cannot be kept, which never holds up the restart or the failure.
  void keepFailedRankLogs(Context& ctx, const GangState& gang);
  // Ends the run: phase Failed, the Failed condition and an Event with
  // `reason`, condition `condition` (the rule that ended the run; default
  // `reason`, when the rule is the cause) True, then clean-up.
  kube::Result fail(Context& ctx, const std::string& reason, const std::string& message,
                    const std::string& condition = "");
  // The API server refused to create `what`: a condition and an Event, and
  // Failed (CreateFailed) once it has refused for createFailureTimeout.
  kube::Result createRefused(Context& ctx, const std::string& what);
  // ConfigMap, Services and NetworkPolicy; returns the master's ClusterIP.
  std::string ensureSharedChildren(Context& ctx);
  // Deletes the children of a benchmark that no longer exists (whatever the
  // garbage collector has not yet removed): objects with its label and a
  // DistBenchmark's controller reference, never one that only has the label.
  void deleteOrphans(const std::string& ns, const std::string& name);
  // The run key Secret of benchmark `name`: `uid`'s (its controller
  // reference), or with `uid` empty any DistBenchmark's of that name.
  void deleteRunKeySecret(const std::string& ns, const std::string& name, const std::string& uid);
  // Creates `object` at `collection` unless the cache has it; AlreadyExists
  // is success. Returns the object as the server has it (or the cache).
  // No cache (nullptr): reads it from the server first, creating it on 404.
  web::json::value ensure(const kube::Informer* cache, const std::string& collection,
                          const web::json::value& object);
  // The run key's Secret, made once per benchmark: created with a new key,
  // or found (this benchmark's) and kept. Not watched (the operator needs no
  // list of every Secret), so what was ensured is remembered instead.
  void ensureRunKeySecret(Context& ctx);
  std::string ensureMasterService(Context& ctx);
  // Points the master Service at the master pod of `current` (this gang's,
  // created by this operator) once it has an IP, and at nothing until then
  // (a new gang's master replaces the old's). Written when that differs
  // from the memo, after a read: Endpoints of that name found, whoever
  // wrote them, are replaced unless they already say it (a restarted
  // operator then only fills its memo).
  void ensureMasterEndpoints(Context& ctx, const std::vector<web::json::value>& desired,
                             const std::vector<web::json::value>& current);
  // Creates the pods; returns "<pod>: <server's message>" for each the API
  // server refused (other errors are thrown).
  std::vector<std::string> createPods(const std::vector<web::json::value>& pods,
                                      const std::string& ns, const std::string& uid);
  // The benchmark's pods: its label and a DistBenchmark's controller
  // reference (this one's or a same-named earlier resource's). Pods that
  // only carry the label are someone else's and left alone.
  std::vector<web::json::value> ownedPods(const Context& ctx) const;
  // Deletes the pods as planPodDeletes (run_finish.h) says.
  void deletePods(const std::vector<web::json::value>& pods, bool onlyUnfinished);
  // Pods, Services, NetworkPolicy, ConfigMap and run key of a finished run,
  // as `plan` (by cleanPodPolicy) says.
  void cleanUp(Context& ctx, const CleanUpPlan& plan);
  // Carries out planFinish (run_finish.h): the report stored, clean-up,
  // the counts, the status, the TTL.
  kube::Result finished(Context& ctx);
  // The report of a Succeeded run, stored (report_store.h); a wait when it
  // is not to be had yet.
  std::optional<std::chrono::milliseconds> storeReport(Context& ctx);
  // Writes ctx.status if it differs from what the server has. False on 409.
  bool writeStatus(Context& ctx);

  kube::KubeClient& client_;
  const kube::Informer& pods_;
  const kube::Informer& services_;
  const kube::Informer& configMaps_;
  const kube::Informer& networkPolicies_;
  Options options_;
  ReportStore reports_;
  kube::HelperBudget requestHelpers_;
  // The client's credentials with Options::logReadTimeout.
  kube::KubeClient logClient_;
  // "<ns>/<master Service>" -> "<pod IP> <pod UID>" last written, so a
  // reconcile writes the Endpoints only when they change.
  std::mutex memoMutex_;
  std::map<std::string, std::string> masterEndpoints_;
  // "<ns>/<name>/<uid>" -> when its trainer 0's log is next read for progress.
  std::map<std::string, kube::SystemTime> progressDue_;
  // "<ns>/<name>/<uid>" of benchmarks whose run key Secret exists.
  std::set<std::string> runKeySecrets_;
};

}  // namespace distbench::op
