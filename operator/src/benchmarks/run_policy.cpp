#include "distbench/operator/benchmarks/run_policy.h"

#include <algorithm>

#include "distbench/operator/common/status_conditions.h"

namespace distbench::op {

using std::chrono::milliseconds;

std::chrono::seconds boundedSeconds(int64_t seconds) {
  return std::chrono::seconds(std::min<int64_t>(seconds, 10LL * 365 * 24 * 3600));
}

milliseconds until(kube::SystemTime when, kube::SystemTime now) {
  const auto left = std::chrono::duration_cast<milliseconds>(when - now);
  return std::max(left, milliseconds(0)) + milliseconds(1000);
}

Verdict specChanged(int64_t createdFrom, int64_t generation) {
  if (createdFrom <= 0 || createdFrom >= generation) return {};
  return {"SpecChanged",
          "spec changed while the run was in progress (generation " +
              std::to_string(createdFrom) + " to " + std::to_string(generation) +
              "); a benchmark's spec is fixed once it has pods: delete and re-create it to "
              "run another",
          {}};
}

Verdict activeDeadline(const api::RunPolicy& policy, kube::SystemTime start, kube::SystemTime now) {
  if (!policy.activeDeadlineSeconds) return {};
  const kube::SystemTime deadline = start + boundedSeconds(*policy.activeDeadlineSeconds);
  if (now >= deadline) {
    return {kCondDeadlineExceeded,
            "ran longer than activeDeadlineSeconds (" +
                std::to_string(*policy.activeDeadlineSeconds) + " s)",
            {}};
  }
  return {"", "", until(deadline, now)};
}

Verdict createRefused(const std::string& message, kube::SystemTime since,
                      std::chrono::seconds limit, kube::SystemTime now) {
  if (now - since >= limit) {
    return {"CreateFailed",
            message + " (still refused after " + std::to_string(limit.count()) + " s)",
            {}};
  }
  const auto left = std::chrono::duration_cast<milliseconds>(since + limit - now);
  // Often enough to see a quota freed soon, seldom enough not to hammer
  // an API server that keeps refusing.
  return {"", message, std::clamp(left, milliseconds(500), milliseconds(5000))};
}

std::optional<milliseconds> ttlLeft(const api::RunPolicy& policy, kube::SystemTime completion,
                                    kube::SystemTime now) {
  if (!policy.ttlSecondsAfterFinished) return std::nullopt;
  const kube::SystemTime expiry = completion + boundedSeconds(*policy.ttlSecondsAfterFinished);
  if (now >= expiry) return milliseconds(0);
  return until(expiry, now);
}

GangDecision decideGang(const GangState& g, const GangFacts& facts, const api::RunPolicy& policy,
                        int rendezvousTimeoutSeconds, kube::SystemTime now) {
  using Action = GangDecision::Action;
  if (g.succeeded(facts.trainers)) {
    return {Action::Succeed, "", "",
            "master and " + std::to_string(facts.trainers) + " trainers succeeded", {}};
  }

  // A pod being deleted (by a user, a drain, an eviction) is a rank lost:
  // waiting for it to finish terminating would only delay the restart.
  const std::vector<const PodState*> failed = g.failedPods();
  if (!failed.empty() || !facts.lost.empty()) {
    const std::string what = describePods(failed) +
                             (failed.empty() || facts.lost.empty() ? "" : "; ") + facts.lost;
    // The peers of an OOM-killed or evicted rank fail on their own errors
    // (the verdict, a closed connection): the cause is the one Kubernetes
    // names, whichever rank it is on. A rank that gave up waiting (its own
    // rendezvous timeout) for one that cannot start failed because of it.
    std::string cause = firstCause(failed);
    // A refusal's peers exit 2 too when they end on its verdict, and 1 when
    // they found it gone before the verdict: a refusal among the failed
    // pods is the cause, whichever of them failed first, unless Kubernetes
    // ended one of them.
    const auto refused =
        std::find_if(failed.begin(), failed.end(), [](const PodState* p) { return p->refused(); });
    if (cause.empty() && refused != failed.end()) {
      return {Action::Fail, kCondRankRefused, kCondRankRefused,
              describePods({*refused}) +
                  "; the run is refused (exit code 2): not restarted, as another gang would be "
                  "refused the same way",
              {}};
    }
    if (cause.empty()) cause = firstCause(g.pendingPods());
    if (facts.gang >= policy.backoffLimit) {
      return {Action::Fail, cause.empty() ? kCondBackoffLimitExceeded : cause,
              kCondBackoffLimitExceeded,
              what + "; backoffLimit " + std::to_string(policy.backoffLimit) + " reached", {}};
    }
    // DDP cannot go on with a rank missing: the whole gang starts over.
    return {Action::Restart, cause.empty() ? "RankFailed" : cause, "",
            what + "; restarting the gang (restart " + std::to_string(facts.gang + 1) + " of " +
                std::to_string(policy.backoffLimit) + ")",
            {}};
  }

  if (g.allStarted(facts.ranks)) {
    return {Action::Run, "AllRanksStarted", "",
            "all " + std::to_string(facts.ranks) + " ranks started", {}};
  }
  if (facts.running) return {};

  // A rank that cannot start (unschedulable, image missing) would leave the
  // others to time out at the store and crash-loop through the backoff
  // limit; the run ends once, with the reason.
  const std::vector<const PodState*> pending = g.pendingPods();
  const std::string since = g.startedAt();
  const kube::SystemTime gangStart = kube::parseRfc3339(since).value_or(now);
  const kube::SystemTime deadline = gangStart + boundedSeconds(rendezvousTimeoutSeconds);
  if (!since.empty() && now >= deadline) {
    const std::string cause = firstCause(pending);
    return {Action::Fail, cause.empty() ? kCondRendezvousTimeout : cause, kCondRendezvousTimeout,
            std::to_string(pending.size()) + " of " + std::to_string(facts.ranks) +
                " ranks not started within rendezvousTimeoutSeconds (" +
                std::to_string(rendezvousTimeoutSeconds) + " s): " + describePods(pending),
            {}};
  }
  return {Action::Wait, "", "",
          std::to_string(facts.ranks - static_cast<int>(pending.size())) + " of " +
              std::to_string(facts.ranks) + " ranks started" +
              (pending.empty() ? "" : "; waiting for " + describePods(pending, 512)),
          until(deadline, now)};
}

}  // namespace distbench::op
