// The report side of a Succeeded run in the cluster: the report read from
// the master's log (run_report.h says how, purely) is stored in the
// benchmark's <name>-report ConfigMap and compared with spec.baseline, and
// the outcome is written into the status the reconciler is about to write
// (ReportStored, RegressionDetected, status.report, status.baseline) with
// its Events. The reconciler only decides when; this decides what.
#pragma once

#include <cpprest/json.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/rfc3339.h"
#include "distbench/kube/status_context.h"
#include "distbench/operator/benchmarks/suspect_node_marks.h"
#include "distbench/operator/common/status_conditions.h"
#include "distbench/report/report.h"

namespace distbench::op {

// The run whose report is stored, and the status and Events it adds to.
struct ReportContext {
  const std::string& ns;
  const std::string& name;
  const std::string& uid;
  int64_t generation;
  const api::DistBenchmark& benchmark;
  kube::SystemTime now;
  const std::string& nowText;
  web::json::value& status;
  std::vector<kube::StatusEvent>& events;
};

class ReportStore {
 public:
  // Creates `configMap` unless it exists as this benchmark's; throws
  // NameConflict (ownership.h) when the name is someone else's, and what
  // KubeClient throws.
  using EnsureConfigMap = std::function<void(const web::json::value& configMap)>;

  // `fetchTimeout`: how long after completion a log the kubelet cannot
  // serve yet is asked for again, before ReportStored False.
  // `suspectNodes`: what a Fabric run's slow nodes get (suspect_node_marks.h).
  ReportStore(kube::KubeClient& client, std::chrono::seconds fetchTimeout,
              SuspectNodeAction suspectNodes = SuspectNodeAction::None)
      : client_(client), fetchTimeout_(fetchTimeout), suspectNodes_(suspectNodes) {}

  // Reads, stores and compares, into ctx.status and ctx.events. A wait
  // when the log should be asked for again; nothing when it is settled
  // (stored, or said why not).
  std::optional<std::chrono::milliseconds> store(ReportContext& ctx,
                                                 const EnsureConfigMap& ensureConfigMap);

 private:
  // spec.baseline's report, compared with this run's `run`, into status.
  // Returns the diff table for the report ConfigMap ("" if none).
  // `baselineReport` gets the baseline's report where one was read.
  std::string compareBaseline(ReportContext& ctx, const report::Report& run,
                              std::optional<report::Report>* baselineReport);
  // A Fabric run's verdict into status.fabric and Events, and its slow
  // nodes marked as suspectNodes_ says.
  void judgeFabric(ReportContext& ctx, const report::Report& run,
                   const std::optional<report::Report>& baseline);

  kube::KubeClient& client_;
  std::chrono::seconds fetchTimeout_;
  SuspectNodeAction suspectNodes_;
};

}  // namespace distbench::op
