// One reconcile of a live run's gang, decided in one place from what was
// observed (the benchmark's pods, the pods this gang should have, the run's
// status) and nothing else, so that every case is a row of a table test
// (operator/tests/benchmarks/gang_plan_test.cpp) and the reconciler only carries the
// plan out (Reconciler::carryOut).
#pragma once

#include <cpprest/json.h>

#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/kube/rfc3339.h"
#include "distbench/operator/benchmarks/gang_state.h"
#include "distbench/operator/benchmarks/run_policy.h"

namespace distbench::op {

struct GangObservation {
  std::string uid;       // the resource's
  int gang = 0;          // status.restartCount: the gang that should run
  bool running = false;  // status.phase is Running: every rank had started
  // The benchmark's pods (Reconciler::ownedPods: its label and some
  // DistBenchmark's controller reference), in any order.
  std::vector<web::json::value> pods;
  // This gang's pods as desiredPods renders them.
  std::vector<web::json::value> desired;
};

struct GangPlan {
  // Pods of an older gang, or of a same-named earlier resource: deleted
  // first, and nothing else happens until they are gone, so that no rank of
  // the new gang meets a rank of the old.
  std::vector<web::json::value> stale;
  // This gang's pods that do not exist yet. None once the gang ran: a pod
  // gone from a running gang is a lost rank (in `lost`), since recreating
  // it alone would send one fresh rank into ranks already past rendezvous.
  std::vector<web::json::value> create;
  // "<pod>: deleted while the gang ran", "; " joined.
  std::string lost;
  std::vector<web::json::value> desired;
  // This gang's pods once `create` is done (the created ones as desired,
  // Pending), their state, and what the run does next (decideGang). Not
  // decided while `stale` is not empty.
  std::vector<web::json::value> current;
  GangState state;
  GangDecision decision;
};

GangPlan planGang(const GangObservation& observed, const api::DistBenchmarkSpec& spec,
                  kube::SystemTime now);

}  // namespace distbench::op
