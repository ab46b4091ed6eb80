#include "distbench/plugin/cluster_reports.h"

#include <cpprest/json.h>
#include <sys/stat.h>

#include "distbench/api/object_names.h"
#include "distbench/plugin/kubectl_error.h"
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

// Why run `name` has no report ConfigMap, from the run itself.
std::string whyNoReport(const Kubectl& kubectl, const std::string& configMap) {
  const std::string suffix = "-report";
  if (configMap.size() <= suffix.size() ||
      configMap.compare(configMap.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return "no ConfigMap " + configMap;
  }
  const std::string run = configMap.substr(0, configMap.size() - suffix.size());
  const KubectlResult r = kubectl.run({"get", "distbenchmark", run, "-o", "json"});
  if (!r.ok()) {
    if (classifyKubectlFailure(r.err) == KubectlFailure::NotFound) {
      return "no DistBenchmark " + run + " (and no ConfigMap " + configMap + ")";
    }
    return explainKubectlFailure({"get", "distbenchmark", run}, r);
  }
  const web::json::value b = web::json::value::parse(r.out);
  const std::string phase = textAt(fieldAt(b, "status"), "phase");
  return "DistBenchmark " + run + " has stored no report (phase " +
         (phase.empty() ? std::string("not yet set") : phase) +
         (textAt(fieldAt(b, "status"), "message").empty()
              ? ""
              : ": " + textAt(fieldAt(b, "status"), "message")) +
         "); the operator stores it once the run has Succeeded";
}

}  // namespace

std::string reportSource(const std::string& name) {
  if (name.rfind(kConfigMapPrefix, 0) == 0) return name;
  const bool pathLike = name.find('/') != std::string::npos ||
                        (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0);
  if (pathLike && isFile(name)) return name;
  return kConfigMapPrefix + api::reportConfigMapName(name);
}

cli::ReportLoader clusterReports(const Kubectl& kubectl) {
  return [&kubectl](const std::string& source) {
    if (source.rfind(kConfigMapPrefix, 0) != 0) return report::loadReportFile(source);
    const std::string name = source.substr(kConfigMapPrefix.size());
    const std::vector<std::string> args = {"get", "configmap", name, "-o", "json"};
    const KubectlResult r = kubectl.run(args);
    if (!r.ok()) {
      if (classifyKubectlFailure(r.err) == KubectlFailure::NotFound) {
        throw report::ReportError(whyNoReport(kubectl, name));
      }
      throw KubectlError(explainKubectlFailure(args, r));
    }
    const web::json::value cm = web::json::value::parse(r.out);
    const std::string json = textAt(fieldAt(cm, "data"), api::kReportKey);
    if (json.empty()) {
      throw report::ReportError("ConfigMap " + name + " has no key " + api::kReportKey);
    }
    return report::parseReport(json, source);
  };
}

std::string storedAttribution(const Kubectl& kubectl, const std::string& run) {
  try {
    return report::formatAttributionFooter(
        report::attribute(clusterReports(kubectl)(reportSource(run))));
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace distbench::plugin
