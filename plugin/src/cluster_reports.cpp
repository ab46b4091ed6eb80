#include "distbench/plugin/cluster_reports.h"

#include <cpprest/json.h>
#include <sys/stat.h>

#include <optional>

#include "distbench/api/object_names.h"
#include "distbench/plugin/cluster_objects.h"
#include "distbench/plugin/object_fields.h"
#include "distbench/report/attribution.h"
#include "distbench/report/report_json.h"

namespace distbench::plugin {
namespace {

const std::string kConfigMapPrefix = "configmap/";

bool isFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Why there is no ConfigMap `configMap` (<run>-report), from the run: a
// run that exists and has stored no report yet is a report that cannot be
// read (ReportError, exit 2, as a missing file); no such run, or a
// cluster that does not answer, is the cluster's (KubectlError, exit 4).
[[noreturn]] void noReport(const Kubectl& kubectl, const std::string& configMap) {
  const std::string suffix = "-report";
  if (configMap.size() <= suffix.size() ||
      configMap.compare(configMap.size() - suffix.size(), suffix.size(), suffix) != 0) {
    throw KubectlError("no ConfigMap " + configMap);
  }
  const std::string run = configMap.substr(0, configMap.size() - suffix.size());
  const std::optional<web::json::value> b = getObject(kubectl, kBenchmarks, run);
  if (!b) throw KubectlError("no DistBenchmark " + run + " (and no ConfigMap " + configMap + ")");
  const web::json::value& status = fieldAt(*b, "status");
  const std::string phase = textAt(status, "phase");
  throw report::ReportError(
      "DistBenchmark " + run + " has stored no report (phase " +
      (phase.empty() ? std::string("not yet set") : phase) +
      (textAt(status, "message").empty() ? "" : ": " + textAt(status, "message")) +
      "); the operator stores it once the run has Succeeded");
}

}  // namespace

std::string reportSource(const std::string& name) {
  if (name.rfind(kConfigMapPrefix, 0) == 0) return name;
  // A path is a file, there or not (the loader says it cannot be read);
  // a bare name ending in .json is a file only where one exists.
  if (name.find('/') != std::string::npos) return name;
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 && isFile(name)) {
    return name;
  }
  return kConfigMapPrefix + api::reportConfigMapName(name);
}

cli::ReportLoader clusterReports(const Kubectl& kubectl) {
  return [&kubectl](const std::string& source) {
    if (source.rfind(kConfigMapPrefix, 0) != 0) return report::loadReportFile(source);
    const std::string name = source.substr(kConfigMapPrefix.size());
    const std::optional<web::json::value> cm = getObject(kubectl, "configmap", name);
    if (!cm) noReport(kubectl, name);
    const std::string json = textAt(fieldAt(*cm, "data"), api::kReportKey);
    if (json.empty()) {
      throw report::ReportError("ConfigMap " + name + " has no key " + api::kReportKey);
    }
    return report::parseReport(json, source);
  };
}

StoredOutput storedOutput(const Kubectl& kubectl, const web::json::value& run) {
  StoredOutput out;
  if (conditionOf(run, "ReportStored") == nullptr) return out;
  try {
    const report::Report r =
        clusterReports(kubectl)(reportSource(textAt(fieldAt(run, "metadata"), "name")));
    out.masterOutput = r.masterOutput;
    if (out.masterOutput.empty())
      out.attribution = report::formatAttributionFooter(report::attribute(r));
  } catch (const std::exception&) {
  }
  return out;
}

}  // namespace distbench::plugin
