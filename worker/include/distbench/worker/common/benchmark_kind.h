// What a benchmark kind (spec.benchmark.kind) registers with the worker, in
// one place: the groups its ranks need, what each of its roles runs, and which series its result summary leads
// with. worker_main.cpp does what every kind shares (flags, identity,
// config, rendezvous, the report files, errors) and leaves the rest to the
// kind's entry. Adding a kind: define its entry in its own folder (as
// hybrid/hybrid_kind.cpp does), declare it below, and add its case to
// kindEntry() in kinds.cpp, which -Wswitch holds to every api::BenchmarkKind.
// No LibTorch here: worker_main.cpp and the tests include this.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/report/report.h"
#include "distbench/worker/common/groups_wanted.h"
#include "distbench/worker/common/result_summary.h"

namespace distbench::worker {

class ComputeDevice;
class MetricsEndpoint;
class Rendezvous;
struct DeviceFacts;
struct WorkerIdentity;

// What a rank of any kind brings to its role.
struct KindRun {
  const WorkerIdentity& identity;
  const api::DistBenchmark& benchmark;
  Rendezvous& rendezvous;  // everyone has joined; the kind's groups exist
  const MetricsEndpoint& metrics;
  // Where this rank computes: a trainer's GPU on a spec.runtime.device cuda
  // run, else the CPU. Trainers' groups already use it.
  const ComputeDevice& device;
  // The master of a cuda run: every trainer's GPU (for the banner; the
  // report gets them after run()). Empty elsewhere.
  const std::vector<DeviceFacts>& gpus;
  std::string dumpStateDir;    // --dump-state: write final parameters there; empty: no
  bool progressLines = false;  // DISTBENCH_PROGRESS: the trainers' lines for `distbench run`

  // The role's own metrics type (hybrid/hybrid_metrics.h, ...), which is
  // what the role's code takes, so a role cannot record another's. It lives
  // until the process exits: on a failure, threads the role started (a
  // parameter server's peer threads, Gloo's completion callbacks) may still
  // record after its code has unwound, and the worker exits without waiting
  // for them.
  template <typename RoleMetrics>
  RoleMetrics& metricsKeptUntilExit() const {
    return *new RoleMetrics(metrics);
  }
};

struct KindEntry {
  api::BenchmarkKind kind;
  // Formed by the rendezvous before run() (docs/architecture.md, "Rendezvous
  // and process groups").
  GroupsWanted groups;
  // This rank's role, whichever identity.role is. The master prints the
  // result table and returns the run's report; other roles return nothing.
  std::optional<report::Report> (*run)(const KindRun& context);
  // The series the result summary leads with (result_summary.h).
  HeadlineRule headline;
};

// The table: the entry of `kind`.
const KindEntry& kindEntry(api::BenchmarkKind kind);

// Each kind's entry, defined in its folder.
const KindEntry& hybridKind();       // hybrid/hybrid_kind.cpp
const KindEntry& ddpKind();          // ddp/ddp_kind.cpp
const KindEntry& collectivesKind();  // collectives/collectives_kind.cpp
const KindEntry& fabricKind();       // fabric/fabric_kind.cpp

}  // namespace distbench::worker
