#include "distbench/operator/benchmarks/reconciler.h"

#include <algorithm>
#include <future>
#include <mutex>
#include <stdexcept>

#include "distbench/api/object_names.h"
#include "distbench/api/pod_security_profile.h"
#include "distbench/api/rank_layout.h"
#include "distbench/api/renderer.h"
#include "distbench/api/run_key.h"
#include "distbench/api/spec_error.h"
#include "distbench/api/spec_yaml.h"
#include "distbench/kube/json_fields.h"
#include "distbench/kube/parallel_for.h"
#include "distbench/operator/benchmarks/desired_objects.h"
#include "distbench/operator/benchmarks/failed_rank_logs.h"
#include "distbench/operator/benchmarks/master_endpoints.h"
#include "distbench/operator/benchmarks/rank_log_tail.h"
#include "distbench/operator/benchmarks/run_bottleneck.h"
#include "distbench/operator/benchmarks/run_finish.h"
#include "distbench/operator/benchmarks/run_policy.h"
#include "distbench/operator/benchmarks/run_progress.h"
#include "distbench/operator/benchmarks/run_report.h"
#include "distbench/operator/common/crd_names.h"
#include "distbench/operator/common/finite_status.h"
#include "distbench/operator/common/labels.h"
#include "distbench/operator/common/ownership.h"

namespace distbench::op {
namespace {

using std::chrono::seconds;
using web::json::value;

std::string labelOf(const value& object) {
  return kube::stringField(object.at("metadata"), "labels", kLabelBenchmark);
}

std::string kindOf(const value& object) { return kube::stringField(object, "kind"); }

// A delete's precondition: the object as read, not whatever has its name by
// the time the request lands.
std::string uidOf(const value& object) { return kube::stringField(object, "metadata", "uid"); }

const char* kPhase = "phase";

std::string networkPoliciesPath(const std::string& ns, const std::string& name = "") {
  return kube::groupPath("networking.k8s.io", "v1", ns, "networkpolicies", name);
}

}  // namespace

// The status context (kube/status_context.h) with the spec as parsed.
struct Reconciler::Context : kube::StatusContext {
  api::DistBenchmark benchmark;
  bool specValid = false;

  std::string phase() const { return kube::stringField(status, kPhase); }
  void setPhase(const std::string& phase, const std::string& message) {
    status[kPhase] = value::string(phase);
    status["message"] = value::string(statusMessage(message));
  }
  // Sets a condition; a change to True is an Event once status is written.
  void transition(const std::string& type, bool isTrue, const std::string& reason,
                  const std::string& message, bool warning) {
    if (setCondition(status, type, isTrue, reason, message, nowText, generation) && isTrue)
      events.push_back({warning, reason, message});
  }
  // Sets a condition to False only if it was ever set.
  void clear(const std::string& type, const std::string& reason, const std::string& message) {
    if (status.has_field("conditions")) {
      for (const value& c : status.at("conditions").as_array())
        if (c.at("type").as_string() == type) {
          setCondition(status, type, false, reason, message, nowText, generation);
          return;
        }
    }
  }
};

Reconciler::Reconciler(kube::KubeClient& client, const kube::Informer& pods,
                       const kube::Informer& services, const kube::Informer& configMaps,
                       const kube::Informer& networkPolicies, Options options)
    : client_(client),
      pods_(pods),
      services_(services),
      configMaps_(configMaps),
      networkPolicies_(networkPolicies),
      options_(std::move(options)),
      reports_(client, options_.reportFetchTimeout, options_.suspectNodes),
      requestHelpers_(options_.requestHelpers),
      logClient_(client.config(), options_.logReadTimeout) {
  if (options_.createParallelism < 1) options_.createParallelism = 1;
}

kube::Result Reconciler::reconcile(const std::string& key) {
  Context ctx;
  if (!ctx.open(client_, key, [](const std::string& ns, const std::string& name) {
        return kube::groupPath(kGroup, kVersion, ns, kPlural, name);
      })) {
    forgetProgress(ctx.ns, ctx.name);
    deleteOrphans(ctx.ns, ctx.name);
    return kube::Result::awaitChange();
  }
  // The garbage collector removes the children; nothing to decide.
  if (ctx.deleting()) {
    forgetProgress(ctx.ns, ctx.name);
    return kube::Result::awaitChange();
  }
  ctx.stamp(options_.now());
  std::string invalid;
  try {
    ctx.benchmark = api::parseDistBenchmark(ctx.object.serialize());
    if (!options_.cluster.allowPrivilegedOverrides) api::requireRestrictedProfile(ctx.benchmark);
    ctx.specValid = true;
  } catch (const api::SpecError& e) {
    ctx.benchmark.metadata.name = ctx.name;
    ctx.benchmark.metadata.namespace_ = ctx.ns;
    invalid = std::string("invalid spec: ") + e.what();
  }
  switch (runStage(ctx.specValid, ctx.phase())) {
    case RunStage::RefuseSpec:
      return refuseSpec(ctx, invalid);
    case RunStage::Finished:
      return finished(ctx);
    case RunStage::Live:
      break;
  }
  return reconcileLive(ctx);
}

kube::Result Reconciler::refuseSpec(Context& ctx, const std::string& message) {
  // The API server's schema cannot express every rule (no CEL in 1.20);
  // what it let through is refused here, in status.
  ctx.setPhase("Failed", message);
  ctx.status["completionTime"] = value::string(ctx.nowText);
  ctx.transition(kCondFailed, true, "InvalidSpec", message, true);
  if (!writeStatus(ctx)) return kube::Result::retry();
  return kube::Result::awaitChange();
}

kube::Result Reconciler::fail(Context& ctx, const std::string& reason, const std::string& message,
                              const std::string& condition) {
  ctx.setPhase("Failed", message);
  ctx.status["completionTime"] = value::string(ctx.nowText);
  ctx.clear(kCondRunning, reason, message);
  ctx.clear(kCondRestarting, reason, message);
  ctx.transition(kCondFailed, true, reason, message, true);
  setCondition(ctx.status, condition.empty() ? reason : condition, true, reason, message,
               ctx.nowText, ctx.generation);
  if (!writeStatus(ctx)) return kube::Result::retry();
  return finished(ctx);
}

kube::Result Reconciler::createRefused(Context& ctx, const std::string& what) {
  const std::string message = "the API server refused to create " + what;
  // The condition keeps its first transition time: that is when the
  // bounded wait began.
  const kube::SystemTime since =
      conditionIsTrue(ctx.status, kCondCreateFailed)
          ? kube::parseRfc3339(conditionSince(ctx.status, kCondCreateFailed)).value_or(ctx.now)
          : ctx.now;
  const Verdict v = op::createRefused(message, since, options_.createFailureTimeout, ctx.now);
  if (v.endsRun()) return fail(ctx, v.reason, v.message);
  // Each refusal is an Event (aggregated by count).
  setCondition(ctx.status, kCondCreateFailed, true, "CreateRefused", message, ctx.nowText,
               ctx.generation);
  ctx.events.push_back({true, "CreateFailed", message});
  ctx.setPhase("Pending", message);
  if (!writeStatus(ctx)) return kube::Result::retry();
  return kube::Result::after(v.wakeIn);
}

void Reconciler::ensureRunKeySecret(Context& ctx) {
  const std::string memo = ctx.ns + "/" + ctx.name + "/" + ctx.uid;
  {
    std::lock_guard<std::mutex> lock(memoMutex_);
    if (runKeySecrets_.count(memo)) return;
  }
  // A Secret found is this benchmark's (ensure checks the owner) and keeps
  // its key: pods already running read that one.
  ensure(nullptr, kube::corePath(ctx.ns, "secrets"),
         desiredRunKeySecret(ctx.benchmark, {ctx.name, ctx.uid}, api::newRunKey()));
  std::lock_guard<std::mutex> lock(memoMutex_);
  runKeySecrets_.insert(memo);
}

std::string Reconciler::ensureSharedChildren(Context& ctx) {
  const api::DistBenchmark& b = ctx.benchmark;
  const Owner owner{ctx.name, ctx.uid};
  // None of them depends on another, and the pods (created after all of
  // them) need only the master Service's ClusterIP: one round trip for
  // the five instead of five in a row. The NetworkPolicy still exists
  // before any pod does.
  std::string masterAddr;
  const std::vector<std::function<void()>> creates = {
      [&] { ensureRunKeySecret(ctx); },
      [&] {
        ensure(&configMaps_, kube::corePath(ctx.ns, "configmaps"), desiredConfigMap(b, owner));
      },
      [&] {
        ensure(&services_, kube::corePath(ctx.ns, "services"), desiredHeadlessService(b, owner));
      },
      [&] {
        ensure(&networkPolicies_, networkPoliciesPath(ctx.ns),
               desiredNetworkPolicy(b, owner, options_.cluster));
      },
      [&] { masterAddr = ensureMasterService(ctx); },
  };
  kube::parallelForEach(
      creates, static_cast<int>(creates.size()),
      [](const std::function<void()>& create) { create(); }, &requestHelpers_);
  return masterAddr;
}

kube::Result Reconciler::reconcileLive(Context& ctx) {
  const api::DistBenchmark& b = ctx.benchmark;
  const Owner owner{ctx.name, ctx.uid};
  const api::RunPolicy& policy = b.spec.runPolicy;

  if (const Verdict v = specChanged(conditionGeneration(ctx.status, kCondCreated), ctx.generation);
      v.endsRun())
    return fail(ctx, v.reason, v.message);

  // The deadline counts from the first attempt to create anything, and is
  // checked before any request that could fail or be refused: it holds in
  // every state the run can be in.
  if (ctx.phase().empty()) ctx.setPhase("Pending", "creating pods");
  if (!ctx.status.has_field("restartCount")) ctx.status["restartCount"] = value::number(0);
  if (!ctx.status.has_field("startTime")) ctx.status["startTime"] = value::string(ctx.nowText);
  std::chrono::milliseconds wake{0};
  auto wakeBy = [&wake](std::chrono::milliseconds w) {
    if (wake.count() == 0 || w < wake) wake = w;
  };
  {
    const auto start =
        kube::parseRfc3339(kube::stringField(ctx.status, "startTime")).value_or(ctx.now);
    const Verdict v = activeDeadline(policy, start, ctx.now);
    if (v.endsRun()) return fail(ctx, v.reason, v.message);
    if (v.wakeIn.count() > 0) wakeBy(v.wakeIn);
  }

  std::string masterAddr;
  try {
    masterAddr = ensureSharedChildren(ctx);
  } catch (const NameConflict& e) {
    return fail(ctx, kCondNameConflict, e.what());
  } catch (const kube::KubeApiError& e) {
    // An answer that will not change by asking again (a refusal), or may
    // not for long (a webhook that is down): bounded by the same deadline.
    if (!e.refused() && !e.serverFailed()) throw;
    return createRefused(ctx, e.what());
  }

  GangObservation observed;
  observed.uid = ctx.uid;
  observed.gang = static_cast<int>(kube::intField(ctx.status, "restartCount", 0));
  observed.running = ctx.phase() == "Running";
  observed.pods = ownedPods(ctx);
  observed.desired = desiredPods(b, owner, masterAddr, observed.gang, options_.cluster);
  const GangPlan plan = planGang(observed, b.spec, ctx.now);
  if (plan.decision.wakeIn.count() > 0) wakeBy(plan.decision.wakeIn);
  return carryOut(ctx, plan, wake);
}

kube::Result Reconciler::carryOut(Context& ctx, const GangPlan& plan,
                                  std::chrono::milliseconds wake) {
  if (!plan.stale.empty()) {
    deletePods(plan.stale, false);
    if (!writeStatus(ctx)) return kube::Result::retry();
    return kube::Result::after(std::chrono::seconds(1));
  }
  if (auto early = createGangPods(ctx, plan)) return *early;
  ensureMasterEndpoints(ctx, plan.desired, plan.current);
  ctx.status["master"] = roleCountsJson(plan.state.master);
  ctx.status["parameterServers"] = roleCountsJson(plan.state.parameterServers);
  ctx.status["trainers"] = roleCountsJson(plan.state.trainers);
  return apply(ctx, plan.decision, plan.state, plan.current, wake);
}

std::optional<kube::Result> Reconciler::createGangPods(Context& ctx, const GangPlan& plan) {
  const std::vector<value>& missing = plan.create;
  if (!missing.empty()) {
    std::vector<std::string> refused;
    try {
      refused = createPods(missing, ctx.ns, ctx.uid);
    } catch (const NameConflict& e) {
      return fail(ctx, kCondNameConflict, e.what());
    }
    if (!refused.empty()) {
      std::string what;
      for (const std::string& r : refused) what += (what.empty() ? "" : "; ") + r;
      return createRefused(ctx, what);
    }
    const api::TopologySpec& t = ctx.benchmark.spec.topology;
    const std::string what = "master, " + std::to_string(t.parameterServers) +
                             " parameter servers and " + std::to_string(t.trainers) + " trainers";
    const int gang = static_cast<int>(kube::intField(ctx.status, "restartCount", 0));
    if (gang == 0) {
      ctx.transition(kCondCreated, true, "PodsCreated",
                     "created " + what +
                         (ctx.benchmark.spec.local ? "; spec.local is ignored in a cluster" : ""),
                     false);
    } else if (missing.size() == plan.desired.size()) {
      ctx.events.push_back(
          {false, "GangCreated", "created gang " + std::to_string(gang) + ": " + what});
    }
  }
  ctx.clear(kCondCreateFailed, "PodsCreated", "every pod of the gang was created");
  return std::nullopt;
}

kube::Result Reconciler::apply(Context& ctx, const GangDecision& d, const GangState& g,
                               const std::vector<value>& current, std::chrono::milliseconds wake) {
  using Action = GangDecision::Action;
  switch (d.action) {
    case Action::Succeed:
      for (const PodState& p : g.pods) {
        if (p.role != "master") continue;
        std::string refused;
        const std::optional<value> summary = resultSummary(p, &refused);
        // The run succeeded all the same; only its summary stays out of status.
        if (!refused.empty())
          ctx.events.push_back({true, "ResultsRefused", refused + "; status.results left unset"});
        if (!summary) continue;
        ctx.status["results"] = *summary;
        if (std::optional<std::string> bottleneck = bottleneckOf(*summary)) {
          ctx.status["bottleneck"] = value::string(*bottleneck);
          ctx.events.push_back({false, kEventBottleneck, *bottleneck});
        }
      }
      // Every trainer finished: whatever the last read saw, all is done.
      if (ctx.status.has_field("progress")) {
        value& p = ctx.status["progress"];
        if (p.has_field("total") && p.has_field("done") &&
            kube::intField(p, "done") != kube::intField(p, "total")) {
          p["done"] = p.at("total");
          p["observedTime"] = value::string(ctx.nowText);
        }
      }
      ctx.setPhase("Succeeded", d.message);
      ctx.status["completionTime"] = value::string(ctx.nowText);
      ctx.clear(kCondRunning, "Finished", d.message);
      ctx.clear(kCondRestarting, "Finished", d.message);
      ctx.transition(kCondSucceeded, true, "AllRanksSucceeded", d.message, false);
      if (!writeStatus(ctx)) return kube::Result::retry();
      return finished(ctx);
    case Action::Fail:
      // cleanPodPolicy may delete the failed pods with the run.
      keepFailedRankLogs(ctx, g);
      return fail(ctx, d.reason, d.message, d.condition);
    case Action::Restart: {
      keepFailedRankLogs(ctx, g);
      // Written before the pods go: a crash in between restarts no gang twice.
      const int64_t gang = kube::intField(ctx.status, "restartCount", 0);
      ctx.status["restartCount"] = value::number(gang + 1);
      // The new gang starts from nothing, and its trainer 0 is read at once.
      if (ctx.status.has_field("progress")) ctx.status.erase("progress");
      forgetProgress(ctx.ns, ctx.name);
      ctx.setPhase("Pending", d.message);
      ctx.clear(kCondRunning, "Restarting", d.message);
      ctx.transition(kCondRestarting, true, d.reason, d.message, true);
      if (!writeStatus(ctx)) return kube::Result::retry();
      deletePods(current, false);
      return kube::Result::after(std::chrono::seconds(1));
    }
    case Action::Run:
      ctx.setPhase("Running", d.message);
      ctx.transition(kCondRunning, true, d.reason, d.message, false);
      ctx.clear(kCondRestarting, "GangRunning", d.message);
      followProgress(ctx, g, wake);
      break;
    case Action::Wait:
      ctx.setPhase("Pending", d.message);
      break;
    case Action::Keep:
      if (ctx.phase() == "Running") followProgress(ctx, g, wake);
      break;
  }
  if (!writeStatus(ctx)) return kube::Result::retry();
  return wake.count() > 0 ? kube::Result::after(wake) : kube::Result::awaitChange();
}

void Reconciler::keepFailedRankLogs(Context& ctx, const GangState& g) {
  const std::vector<const PodState*> ranks = ranksToKeepLogsOf(g);
  if (ranks.empty()) return;
  const int gang = static_cast<int>(kube::intField(ctx.status, "restartCount", 0));
  // In parallel, each request with the log client's timeout, so a kubelet
  // that does not answer holds the restart up by seconds, not the API
  // client's 30.
  std::vector<std::optional<std::string>> logs(ranks.size());
  std::vector<std::string> unread(ranks.size());
  kube::parallelFor(
      ranks.size(), static_cast<int>(ranks.size()),
      [&](size_t i) {
        try {
          std::string text = keptLogText(
              readRankLog(ctx.ns, ranks[i]->name, kFailedLogReadLines, kFailedLogReadBytes));
          if (text.empty())
            unread[i] = "it printed nothing";
          else
            logs[i] = std::move(text);
        } catch (const kube::KubeApiError& e) {
          unread[i] = e.what();
        }
      },
      &requestHelpers_);
  std::map<std::string, std::string> added;
  std::string kept;
  std::string notKept;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const std::string label = api::rankLabel(ctx.benchmark.spec.topology, ranks[i]->rank);
    if (logs[i]) {
      added[api::rankLogKey(gang, label)] = *logs[i];
      kept += (kept.empty() ? "" : ", ") + label;
    } else {
      notKept += (notKept.empty() ? "" : "; ") + label + "'s log could not be read: " + unread[i];
    }
  }
  const std::string cm = api::rankLogsConfigMapName(ctx.name);
  if (!notKept.empty())
    ctx.events.push_back(
        {true, "RankLogsNotKept", "gang " + std::to_string(gang) + ": " + notKept});
  if (added.empty()) return;
  try {
    // Read from the server: the cache keeps no ConfigMap's data.
    const value found = ensure(nullptr, kube::corePath(ctx.ns, "configmaps"),
                               desiredRankLogsConfigMap(ctx.benchmark, {ctx.name, ctx.uid},
                                                        keptRankLogs(value::null(), added)));
    // Made with these logs, or there from an earlier gang: then rewritten
    // (update, as the chart's RBAC has it; a 409 from a stale cache reads
    // it again).
    auto keep = [&](value object) {
      const value data = object.has_field("data") ? object.at("data") : value::object();
      const bool kept = std::all_of(added.begin(), added.end(), [&](const auto& a) {
        return data.has_field(a.first) && data.at(a.first).is_string() &&
               data.at(a.first).as_string() == a.second;
      });
      if (kept) return;
      object["data"] = keptRankLogs(data, added);
      client_.replace(kube::corePath(ctx.ns, "configmaps", cm), object);
    };
    try {
      keep(found);
    } catch (const kube::KubeApiError& e) {
      if (!e.conflict()) throw;
      keep(client_.get(kube::corePath(ctx.ns, "configmaps", cm)));
    }
    ctx.events.push_back({false, "RankLogsKept",
                          "the last lines of " + kept + " (gang " + std::to_string(gang) +
                              ") are kept in ConfigMap " + cm});
  } catch (const NameConflict& e) {
    ctx.events.push_back({true, "RankLogsNotKept", e.what()});
  } catch (const kube::KubeApiError& e) {
    ctx.events.push_back(
        {true, "RankLogsNotKept", "ConfigMap " + cm + " could not be written: " + e.what()});
  }
}

std::string Reconciler::readRankLog(const std::string& ns, const std::string& pod,
                                    std::size_t lines, std::size_t bytes) {
  return readLogTail(
      [&](const std::string& query, std::size_t maxBytes) {
        return logClient_.getText(kube::corePath(ns, "pods", pod) + "/log?" + query, maxBytes);
      },
      lines, bytes);
}

void Reconciler::forgetProgress(const std::string& ns, const std::string& name) {
  const std::string prefix = ns + "/" + name + "/";
  std::lock_guard<std::mutex> lock(memoMutex_);
  for (auto it = progressDue_.lower_bound(prefix);
       it != progressDue_.end() && it->first.compare(0, prefix.size(), prefix) == 0;)
    it = progressDue_.erase(it);
}

void Reconciler::followProgress(Context& ctx, const GangState& g, std::chrono::milliseconds& wake) {
  const auto interval =
      std::chrono::duration_cast<std::chrono::milliseconds>(options_.progressInterval);
  if (interval.count() <= 0) return;
  const int gang = static_cast<int>(kube::intField(ctx.status, "restartCount", 0));
  const std::string pod = api::podName(ctx.name, api::Role::Trainer, 0);
  const bool running = std::any_of(g.pods.begin(), g.pods.end(), [&](const PodState& p) {
    return p.name == pod && p.gang == gang && p.phase == "Running" && !p.deleting;
  });
  // Until it runs, its log has nothing to say; its change of phase brings
  // the next reconcile.
  if (!running) return;
  auto wakeAt = [&](kube::SystemTime due) {
    const auto in = std::max(std::chrono::milliseconds(1),
                             std::chrono::duration_cast<std::chrono::milliseconds>(due - ctx.now));
    if (wake.count() == 0 || in < wake) wake = in;
  };
  const std::string key = ctx.ns + "/" + ctx.name + "/" + ctx.uid;
  {
    std::lock_guard<std::mutex> lock(memoMutex_);
    auto due = progressDue_.find(key);
    if (due != progressDue_.end() && ctx.now < due->second) {
      wakeAt(due->second);
      return;
    }
  }
  std::optional<api::Progress> progress;
  // A kubelet that does not answer is asked again later, not every interval.
  auto next = ctx.now + interval;
  try {
    progress =
        api::lastProgress(readRankLog(ctx.ns, pod, kProgressLogTailLines, kProgressLogLimitBytes));
  } catch (const kube::KubeApiError& e) {
    // No answer in time, or the kubelet failing: not every interval. A
    // plain refusal (no such container yet) is asked again as usual.
    if (e.unavailable())
      next = ctx.now + std::max<std::chrono::milliseconds>(interval, seconds(60));
  }
  {
    std::lock_guard<std::mutex> lock(memoMutex_);
    progressDue_[key] = next;
  }
  wakeAt(next);
  if (progress && progressMoved(ctx.status, *progress, gang))
    ctx.status["progress"] = progressStatus(*progress, gang, ctx.nowText);
}

kube::Result Reconciler::finished(Context& ctx) {
  forgetProgress(ctx.ns, ctx.name);
  FinishFacts facts;
  facts.succeeded = ctx.phase() == "Succeeded";
  facts.specValid = ctx.specValid;
  facts.reportStored = hasCondition(ctx.status, kCondReportStored);
  facts.policy = ctx.benchmark.spec.runPolicy;
  facts.completion =
      kube::parseRfc3339(kube::stringField(ctx.status, "completionTime")).value_or(ctx.now);
  facts.now = ctx.now;
  const FinishPlan plan = planFinish(facts);
  if (plan.storeReport) {
    if (auto wait = storeReport(ctx)) return kube::Result::after(*wait);
  }
  cleanUp(ctx, plan.cleanUp);
  if (plan.zeroActiveCounts) {
    for (const char* role : {"master", "parameterServers", "trainers"}) {
      if (!ctx.status.has_field(role)) continue;
      ctx.status[role]["active"] = value::number(0);
      ctx.status[role]["ready"] = value::number(0);
    }
  }
  if (!writeStatus(ctx)) return kube::Result::retry();
  switch (plan.ttl) {
    case FinishPlan::Ttl::Keep:
      return kube::Result::awaitChange();
    case FinishPlan::Ttl::Wait:
      return kube::Result::after(plan.ttlLeft);
    case FinishPlan::Ttl::Delete:
      break;
  }
  // This incarnation only: one deleted and created again under the same
  // name since our read is not ours to remove (a 409 then counts as done).
  client_.remove(kube::groupPath(kGroup, kVersion, ctx.ns, kPlural, ctx.name),
                 kube::DeleteOptions{std::nullopt, ctx.uid});
  return kube::Result::awaitChange();
}

std::optional<std::chrono::milliseconds> Reconciler::storeReport(Context& ctx) {
  ReportContext report{ctx.ns,  ctx.name,    ctx.uid,    ctx.generation, ctx.benchmark,
                       ctx.now, ctx.nowText, ctx.status, ctx.events};
  const auto ensureConfigMap = [&](const value& configMap) {
    ensure(&configMaps_, kube::corePath(ctx.ns, "configmaps"), configMap);
  };
  return reports_.store(report, ensureConfigMap);
}

void Reconciler::cleanUp(Context& ctx, const CleanUpPlan& plan) {
  {
    std::lock_guard<std::mutex> lock(memoMutex_);
    masterEndpoints_.erase(ctx.ns + "/" + api::masterServiceName(ctx.name));
    runKeySecrets_.erase(ctx.ns + "/" + ctx.name + "/" + ctx.uid);
  }
  if (plan.pods) deletePods(ownedPods(ctx), plan.onlyUnfinishedPods);
  // Only what this benchmark controls, and only the object the cache
  // showed (its UID a precondition).
  std::vector<std::pair<std::string, kube::DeleteOptions>> deletes;
  auto collect = [&](const kube::Informer& cache, const std::string& name,
                     const std::string& path) {
    auto cached = cache.get(ctx.ns + "/" + name);
    if (cached && !isDeleting(*cached) && isController(*cached, ctx.uid))
      deletes.push_back({path, kube::DeleteOptions{std::nullopt, uidOf(*cached)}});
  };
  if (plan.services) {
    for (const std::string& svc :
         {api::workersServiceName(ctx.name), api::masterServiceName(ctx.name)})
      collect(services_, svc, kube::corePath(ctx.ns, "services", svc));
  }
  if (plan.networkPolicy) {
    const std::string policyName = api::networkPolicyName(ctx.name);
    collect(networkPolicies_, policyName, networkPoliciesPath(ctx.ns, policyName));
  }
  if (plan.configMap) {
    const std::string cm = api::configMapName(ctx.name);
    collect(configMaps_, cm, kube::corePath(ctx.ns, "configmaps", cm));
  }
  kube::parallelForEach(
      deletes, options_.createParallelism,
      [this](const auto& d) { client_.remove(d.first, d.second); }, &requestHelpers_);
  if (plan.runKey) deleteRunKeySecret(ctx.ns, ctx.name, ctx.uid);
}

void Reconciler::deleteOrphans(const std::string& ns, const std::string& name) {
  {
    // The Secret itself goes with its owner (the garbage collector).
    std::lock_guard<std::mutex> lock(memoMutex_);
    const std::string prefix = ns + "/" + name + "/";
    for (auto it = runKeySecrets_.lower_bound(prefix);
         it != runKeySecrets_.end() && it->compare(0, prefix.size(), prefix) == 0;)
      it = runKeySecrets_.erase(it);
  }
  std::vector<std::pair<std::string, kube::DeleteOptions>> deletes;
  auto collect = [&](const kube::Informer& cache, auto pathOf) {
    for (const value& o : cache.select(ns + "/", [&](const value& v) {
           return hasBenchmarkLabel(v, name) && controlledByABenchmark(v) && !isDeleting(v);
         }))
      deletes.push_back({pathOf(objectName(o)), kube::DeleteOptions{std::nullopt, uidOf(o)}});
  };
  auto core = [&](const char* plural) {
    return [&ns, plural](const std::string& n) { return kube::corePath(ns, plural, n); };
  };
  collect(services_, core("services"));
  collect(configMaps_, core("configmaps"));
  collect(networkPolicies_, [&ns](const std::string& n) { return networkPoliciesPath(ns, n); });
  kube::parallelForEach(
      deletes, options_.createParallelism,
      [this](const auto& d) { client_.remove(d.first, d.second); }, &requestHelpers_);
  // Pods the garbage collector is deleting too: those whose containers have
  // exited are removed rather than left to their kubelets (deletePods).
  deletePods(pods_.select(ns + "/",
                          [&](const value& v) {
                            return hasBenchmarkLabel(v, name) && controlledByABenchmark(v);
                          }),
             false);
  deleteRunKeySecret(ns, name, "");
}

void Reconciler::deleteRunKeySecret(const std::string& ns, const std::string& name,
                                    const std::string& uid) {
  // Not cached (no informer may list Secrets), so asked for by name; the
  // garbage collector may be deleting it too, where one runs.
  const std::string path = kube::corePath(ns, "secrets", api::runKeySecretName(name));
  try {
    const value secret = client_.get(path);
    const bool ours = uid.empty()
                          ? hasBenchmarkLabel(secret, name) && controlledByABenchmark(secret)
                          : isController(secret, uid);
    if (ours && !isDeleting(secret))
      client_.remove(
          path, kube::DeleteOptions{std::nullopt, kube::stringField(secret.at("metadata"), "uid")});
  } catch (const kube::KubeApiError& e) {
    if (!e.notFound()) throw;
  }
}

value Reconciler::ensure(const kube::Informer* cache, const std::string& collection,
                         const value& object) {
  const std::string uid = object.at("metadata").at("ownerReferences").at(0).at("uid").as_string();
  auto checkOwner = [&](const value& found) {
    const ChildClaim claim = claimOf(found, uid, labelOf(object));
    if (claim == ChildClaim::Ours) return true;
    // Left by an earlier resource of the same name: replace it.
    if (claim == ChildClaim::Earlier) {
      if (!isDeleting(found))
        client_.remove(collection + "/" + objectName(found),
                       kube::DeleteOptions{std::nullopt, uidOf(found)});
      throw kube::KubeApiError(
          409, "Conflict",
          kube::objectKey(object) + " belongs to an earlier resource; deleting it first");
    }
    throw NameConflict(kindOf(object) + " " + kube::objectKey(object) +
                       " exists and is not this benchmark's: rename the benchmark, or delete "
                       "that object");
  };
  if (auto cached = cache ? cache->get(kube::objectKey(object)) : std::nullopt) {
    checkOwner(*cached);
    return *cached;
  }
  if (cache == nullptr) {
    // Not watched: read first, so that an operator restarted mid-run finds
    // what is there without a create the server refuses.
    std::optional<value> found;
    try {
      found = client_.get(collection + "/" + objectName(object));
    } catch (const kube::KubeApiError& e) {
      if (!e.notFound()) throw;
    }
    if (found) {
      checkOwner(*found);
      return *found;
    }
  }
  try {
    return client_.create(collection, object);
  } catch (const kube::KubeApiError& e) {
    if (!e.alreadyExists()) throw;
  }
  // Not in the cache yet, or not labelled for it at all: ask.
  const value found = client_.get(collection + "/" + objectName(object));
  checkOwner(found);
  return found;
}

std::string Reconciler::ensureMasterService(Context& ctx) {
  const value svc = ensure(&services_, kube::corePath(ctx.ns, "services"),
                           desiredMasterService(ctx.benchmark, {ctx.name, ctx.uid}));
  const std::string ip = kube::stringField(svc.at("spec"), "clusterIP");
  if (ip.empty() || ip == "None")
    throw kube::KubeApiError(
        0, "", "Service " + api::masterServiceName(ctx.name) + " has no clusterIP yet");
  return ip;
}

void Reconciler::ensureMasterEndpoints(Context& ctx, const std::vector<value>& desired,
                                       const std::vector<value>& current) {
  // Without a master to point at, no address at all: a connection is then
  // refused at once and retried, where one sent to an earlier gang's
  // master (an address that may be gone) waits for a timeout.
  const MasterAddress address = masterAddress(desired, current);
  const value* master = address.pod;
  const std::string& written = address.written;
  const std::string name = api::masterServiceName(ctx.name);
  const std::string key = ctx.ns + "/" + name;
  {
    std::lock_guard<std::mutex> lock(memoMutex_);
    auto it = masterEndpoints_.find(key);
    if (it != masterEndpoints_.end() ? it->second == written : written.empty()) return;
  }
  const Owner owner{ctx.name, ctx.uid};
  value endpoints = master ? desiredMasterEndpoints(ctx.benchmark, owner, *master)
                           : desiredMasterEndpoints(ctx.benchmark, owner);
  try {
    // Read first: after a restart the memo is empty, and what the server
    // has is then most often what this reconcile would write.
    std::optional<value> found;
    try {
      found = client_.get(kube::corePath(ctx.ns, "endpoints", name));
    } catch (const kube::KubeApiError& e) {
      if (!e.notFound()) throw;
    }
    switch (planEndpointsWrite(found, ctx.uid, written)) {
      case EndpointsWrite::None:
        break;
      case EndpointsWrite::Create:
        client_.create(kube::corePath(ctx.ns, "endpoints"), endpoints);
        break;
      case EndpointsWrite::Replace:
        // An earlier gang's, or written by someone else: ours replaces it.
        endpoints["metadata"]["resourceVersion"] = found->at("metadata").at("resourceVersion");
        client_.replace(kube::corePath(ctx.ns, "endpoints", name), endpoints);
        break;
    }
  } catch (const kube::KubeApiError& e) {
    // Refused (RBAC without endpoints, a quota, a namespace being deleted):
    // said, and tried again at the next reconcile, but the run goes on being
    // followed. Ranks that cannot reach the master end by their rendezvous
    // timeout, and this Event says why.
    if (!e.refused()) throw;
    ctx.events.push_back({true, "EndpointsRefused",
                          "the API server refused to write Endpoints " + name + ": " + e.what()});
    return;
  }
  std::lock_guard<std::mutex> lock(memoMutex_);
  masterEndpoints_[key] = written;
}

std::vector<std::string> Reconciler::createPods(const std::vector<value>& pods,
                                                const std::string& ns, const std::string& uid) {
  const std::string collection = kube::corePath(ns, "pods");
  std::mutex mutex;
  std::vector<std::string> refused;
  kube::parallelForEach(
      pods, options_.createParallelism,
      [&](const value& pod) {
        try {
          client_.create(collection, pod);
        } catch (const kube::KubeApiError& e) {
          // A 5xx (an admission webhook that does not answer) counts toward
          // the CreateFailed deadline like a refusal: retried, but not forever.
          if (e.refused() || e.serverFailed()) {
            std::lock_guard<std::mutex> lock(mutex);
            refused.push_back(objectName(pod) + ": " + e.what());
            return;
          }
          if (!e.alreadyExists()) throw;
          // The cache had not caught up with an earlier create (the pod is ours
          // and shows up soon; an older gang's goes on the next pass), or the
          // name belongs to a pod that is not this benchmark's at all.
          const value found = client_.get(collection + "/" + objectName(pod));
          if (claimOf(found, uid, labelOf(pod)) == ChildClaim::Foreign)
            throw NameConflict("Pod " + kube::objectKey(pod) +
                               " exists and is not this benchmark's: rename the benchmark, or "
                               "delete that pod");
        }
      },
      &requestHelpers_);
  std::sort(refused.begin(), refused.end());
  return refused;
}

std::vector<value> Reconciler::ownedPods(const Context& ctx) const {
  const std::string name = ctx.name;
  return pods_.select(ctx.ns + "/" + api::podNamePrefix(name), [&](const value& v) {
    return hasBenchmarkLabel(v, name) && controlledByABenchmark(v);
  });
}

void Reconciler::deletePods(const std::vector<value>& pods, bool onlyUnfinished) {
  kube::parallelForEach(
      planPodDeletes(pods, onlyUnfinished), options_.createParallelism,
      [this](const auto& d) { client_.remove(d.first, d.second); }, &requestHelpers_);
}

bool Reconciler::writeStatus(Context& ctx) {
  if (std::optional<kube::StatusEvent> dropped = dropNonFiniteStatusNumbers(ctx.status))
    ctx.events.push_back(*dropped);
  // Unchanged: nothing is written, and its Events are not sent.
  if (ctx.status == ctx.original) return true;
  if (!ctx.replaceStatus(client_)) return false;
  ctx.flushEvents([this](const value& object, bool warning, const std::string& reason,
                         const std::string& message) {
    if (options_.onEvent) options_.onEvent(object, warning, reason, statusMessage(message));
  });
  return true;
}

}  // namespace distbench::op
