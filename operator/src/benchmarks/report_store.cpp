#include "distbench/operator/benchmarks/report_store.h"

#include "distbench/api/object_names.h"
#include "distbench/kube/bounded_message.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/benchmarks/desired_objects.h"
#include "distbench/operator/benchmarks/fabric_suspects.h"
#include "distbench/operator/benchmarks/run_report.h"
#include "distbench/operator/common/ownership.h"
#include "distbench/report/fabric.h"

namespace distbench::op {

using web::json::value;

std::optional<std::chrono::milliseconds> ReportStore::store(
    ReportContext& ctx, const EnsureConfigMap& ensureConfigMap) {
  const std::string pod = api::podName(ctx.name, api::Role::Master, 0);
  auto notStored = [&](const std::string& reason, const std::string& message) {
    setConditionStatus(ctx.status, kCondReportStored, "False", reason, message, ctx.nowText,
                       ctx.generation);
    ctx.events.push_back({true, reason, message});
    if (ctx.benchmark.spec.baseline) {
      setConditionStatus(ctx.status, kCondRegressionDetected, "Unknown", "NoReport",
                         "nothing to compare with the baseline: " + message, ctx.nowText,
                         ctx.generation);
    }
  };
  std::string log;
  try {
    log = client_.getText(kube::corePath(ctx.ns, "pods", pod) + "/log?" + masterLogQuery(),
                          masterLogLimitBytes());
  } catch (const kube::ResponseTooLarge&) {
    // Whoever answered ignored limitBytes: no more than the bound was read.
    const ExtractedReport tooLarge = masterLogTooLarge(pod);
    notStored(tooLarge.reason, tooLarge.message);
    return std::nullopt;
  } catch (const kube::KubeApiError& e) {
    const kube::SystemTime done =
        kube::parseRfc3339(kube::stringField(ctx.status, "completionTime")).value_or(ctx.now);
    // The pods are kept until this is settled, so a kubelet that answers
    // late still has the log; a pod that is gone, or that no kubelet ran,
    // never will.
    const bool transient = e.code() == 0 || e.code() >= 500;  // the kubelet, not the request
    if (transient && ctx.now - done < fetchTimeout_) return std::chrono::milliseconds(2000);
    notStored("ReportUnavailable", "could not read pod " + pod + "'s log: " + e.what());
    return std::nullopt;
  }
  ExtractedReport extracted = reportFromMasterLog(log, pod);
  if (!extracted.found) {
    notStored(extracted.reason, extracted.message);
    return std::nullopt;
  }
  value data = value::object();
  data[api::kReportKey] = value::string(extracted.json);
  bool diffCut = false;
  std::optional<report::Report> baselineReport;
  if (ctx.benchmark.spec.baseline) {
    // Cut to what the ConfigMap holds beside the report: a long diff must
    // not cost the report.
    const std::string diff = boundedDiff(compareBaseline(ctx, extracted.parsed, &baselineReport),
                                         extracted.json.size(), &diffCut);
    if (!diff.empty()) data[kBaselineDiffKey] = value::string(diff);
  }
  if (extracted.parsed.kind == api::toString(api::BenchmarkKind::Fabric))
    judgeFabric(ctx, extracted.parsed, baselineReport);
  const std::string cm = api::reportConfigMapName(ctx.name);
  try {
    ensureConfigMap(desiredReportConfigMap(ctx.benchmark, {ctx.name, ctx.uid}, data));
  } catch (const NameConflict& e) {
    notStored(kCondNameConflict, e.what());
    return std::nullopt;
  } catch (const kube::KubeApiError& e) {
    if (!e.refused()) throw;
    notStored("ReportRefused", "the API server refused ConfigMap " + cm + ": " + e.what());
    return std::nullopt;
  }
  const std::string message =
      std::string(api::kReportKey) + " (" + std::to_string(extracted.json.size()) +
      " bytes) in ConfigMap " + cm +
      (diffCut ? std::string("; ") + kBaselineDiffKey + " cut to fit beside it" : "");
  setConditionStatus(ctx.status, kCondReportStored, "True", "ReportStored", message, ctx.nowText,
                     ctx.generation);
  ctx.events.push_back({false, "ReportStored", message});
  ctx.status["report"]["configMap"] = value::string(cm);
  ctx.status["report"]["bytes"] = value::number(static_cast<int64_t>(extracted.json.size()));
  return std::nullopt;
}

void ReportStore::judgeFabric(ReportContext& ctx, const report::Report& run,
                              const std::optional<report::Report>& baseline) {
  std::optional<report::FabricMeasurements> baselineFabric;
  if (baseline && baseline->kind == run.kind) {
    try {
      baselineFabric = report::parseFabric(baseline->resultsJson, "baseline");
    } catch (const report::ReportError& e) {
      ctx.events.push_back({true, "BaselineIncomparable",
                            std::string("the fabric verdict uses the group's line: ") + e.what()});
    }
  }
  FabricOutcome outcome;
  try {
    outcome = fabricOutcome(run, ctx.benchmark.spec.benchmark.fabric.thresholdPercent,
                            baselineFabric ? &*baselineFabric : nullptr);
  } catch (const report::ReportError& e) {
    ctx.events.push_back({true, "FabricUnreadable", e.what()});
    return;
  }
  ctx.status["fabric"] = outcome.status;
  for (kube::StatusEvent& e : outcome.events) ctx.events.push_back(std::move(e));
  const std::string benchmark = ctx.ns + "/" + ctx.name;
  for (const SuspectNodeMark& mark : outcome.marks) {
    if (suspectNodes_ == SuspectNodeAction::None) break;
    const std::string refused = markSuspectNode(client_, mark, suspectNodes_, benchmark);
    ctx.events.push_back(refused.empty()
                             ? kube::StatusEvent{false, "NodeMarked",
                                                 std::string(toString(suspectNodes_)) + " " +
                                                     kSuspectNodeKey + "=" + mark.what +
                                                     " on node " + mark.node}
                             : kube::StatusEvent{true, "NodeNotMarked", refused});
  }
}

std::string ReportStore::compareBaseline(ReportContext& ctx, const report::Report& run,
                                         std::optional<report::Report>* baselineReport) {
  const api::Baseline& baseline = *ctx.benchmark.spec.baseline;
  const std::string source = baselineSource(baseline);
  const api::ConfigMapKeyRef where = baselineLocation(baseline);
  auto unknown = [&](const std::string& reason, const std::string& message) {
    setConditionStatus(ctx.status, kCondRegressionDetected, "Unknown", reason, message, ctx.nowText,
                       ctx.generation);
    ctx.events.push_back({true, reason, message});
  };
  // One answer for a ConfigMap that is not there and one that does not
  // opt in: a benchmark learns nothing of ConfigMaps it may not read.
  auto notFound = [&] {
    unknown("BaselineNotFound",
            baseline.configMap
                ? "ConfigMap " + where.name + " not found, or not labelled " + kBaselineLabel +
                      "=true (only such ConfigMaps, and DistBenchmarks' reports, serve as a "
                      "baseline)"
                : "ConfigMap " + where.name + " not found, or not benchmark " +
                      baseline.benchmark.value_or("") +
                      "'s: it has stored no report (has it Succeeded?)");
  };
  value found;
  try {
    found = client_.get(kube::corePath(ctx.ns, "configmaps", where.name));
  } catch (const kube::KubeApiError& e) {
    if (!e.notFound()) throw;
    notFound();
    return "";
  }
  if (!servesAsBaseline(found, baseline)) {
    notFound();
    return "";
  }
  const std::string baselineJson = kube::stringField(found, "data", where.key.c_str());
  if (baselineJson.empty()) {
    unknown("BaselineNotFound", "ConfigMap " + where.name + " has no key " + where.key);
    return "";
  }
  const BaselineOutcome outcome =
      compareWithBaseline(run, baselineJson, source, baseline.thresholdPercent);
  if (outcome.baseline) *baselineReport = outcome.baseline;
  value summary = value::object();
  summary["source"] = value::string(source);
  summary["thresholdPercent"] = value::number(baseline.thresholdPercent);
  summary["comparedRows"] = value::number(outcome.comparedRows);
  summary["regressedRows"] = value::number(outcome.regressedRows);
  if (!outcome.worstRow.empty())
    summary["worstRow"] = value::string(kube::boundedMessage(outcome.worstRow));
  ctx.status["baseline"] = summary;
  if (!outcome.compared()) {
    unknown(outcome.reason, outcome.message);
    return "";
  }
  setConditionStatus(ctx.status, kCondRegressionDetected, outcome.conditionStatus, outcome.reason,
                     outcome.message, ctx.nowText, ctx.generation);
  ctx.events.push_back({outcome.regressedRows > 0, outcome.reason, outcome.message});
  return outcome.diffText;
}

}  // namespace distbench::op
