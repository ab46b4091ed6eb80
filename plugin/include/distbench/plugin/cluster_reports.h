// The reports the operator stored, as the CLI's report commands read them
// (cli/report_loader.h): a run's report is ConfigMap <run>-report, key
// report.json, and its source is "configmap/<run>-report", so that the page
// `kubectl distbench report RUN` writes is the page `distbench report
// configmap/RUN-report` writes from that ConfigMap saved at that path.
#pragma once

#include <cpprest/json.h>

#include <string>

#include "distbench/cli/report_loader.h"
#include "distbench/plugin/kubectl.h"
#include "distbench/plugin/run_view.h"

namespace distbench::plugin {

// A name on the plugin's command line as a report source: a DistBenchmark
// NAME is "configmap/NAME-report"; "configmap/X" stays; a path to a file
// that exists (contains '/' or ends in .json) stays a file.
std::string reportSource(const std::string& name);

// Reads "configmap/X" from the cluster (the run's state named when it has
// stored no report: still running, failed), anything else as a file.
cli::ReportLoader clusterReports(const Kubectl& kubectl);

// What the stored report of `run` (the DistBenchmark as read) adds to its
// status (run_view.h); empty before ReportStored, or when the report cannot
// be read: what the caller prints does not depend on it.
StoredOutput storedOutput(const Kubectl& kubectl, const web::json::value& run);

}  // namespace distbench::plugin
