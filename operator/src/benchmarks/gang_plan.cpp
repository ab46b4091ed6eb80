#include "distbench/operator/benchmarks/gang_plan.h"

#include <set>

#include "distbench/operator/common/ownership.h"

namespace distbench::op {

GangPlan planGang(const GangObservation& observed, const api::DistBenchmarkSpec& spec,
                  kube::SystemTime now) {
  GangPlan plan;
  plan.desired = observed.desired;
  for (const web::json::value& pod : observed.pods) {
    const bool thisGang = podState(pod).gang == observed.gang && isController(pod, observed.uid);
    (thisGang ? plan.current : plan.stale).push_back(pod);
  }
  if (!plan.stale.empty()) {
    plan.current.clear();
    return plan;
  }

  std::set<std::string> have;
  for (const web::json::value& pod : plan.current) have.insert(objectName(pod));
  for (const web::json::value& pod : observed.desired) {
    if (have.count(objectName(pod))) continue;
    if (observed.running) {
      plan.lost +=
          (plan.lost.empty() ? "" : "; ") + objectName(pod) + ": deleted while the gang ran";
    } else {
      plan.create.push_back(pod);
      plan.current.push_back(pod);  // Pending until the informer sees it
    }
  }

  plan.state = gangState(plan.current);
  GangFacts facts;
  facts.gang = observed.gang;
  facts.ranks = static_cast<int>(observed.desired.size());
  facts.trainers = spec.topology.trainers;
  facts.running = observed.running;
  facts.lost = plan.lost;
  plan.decision =
      decideGang(plan.state, facts, spec.runPolicy, spec.runtime.rendezvousTimeoutSeconds, now);
  return plan;
}

}  // namespace distbench::op
