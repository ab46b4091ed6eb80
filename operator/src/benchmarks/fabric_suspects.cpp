#include "distbench/operator/benchmarks/fabric_suspects.h"

#include <algorithm>

#include "distbench/kube/bounded_message.h"
#include "distbench/report/fabric_verdict.h"

namespace distbench::op {
namespace {

using web::json::value;

value estimateJson(const report::FabricEstimate& e) {
  value out = value::object();
  out["value"] = value::number(e.value);
  out["low"] = value::number(e.low);
  out["high"] = value::number(e.high);
  return out;
}

// The Kubernetes nodes a suspect names, else its ranks' labels (a run
// placed without node names: a local report stored by hand).
std::vector<std::string> placesOf(const report::FabricSuspect& s,
                                  const report::FabricMeasurements& m) {
  std::vector<std::string> out;
  for (int index : s.nodes) {
    if (index < 0 || static_cast<size_t>(index) >= m.nodes.size()) continue;
    const report::FabricNode& n = m.nodes[static_cast<size_t>(index)];
    out.push_back(n.node.empty() ? n.name : n.node);
  }
  return out;
}

std::string reasonOf(const report::FabricSuspect& s) {
  if (s.what == "link") return kEventSuspectLink;
  if (s.what == "compute") return kEventSlowCompute;
  return kEventSuspectNode;
}

value suspectJson(const report::FabricSuspect& s, const report::FabricMeasurements& m) {
  value out = value::object();
  out["what"] = value::string(s.what);
  out["where"] = value::string(kube::boundedMessage(s.where, 256));
  std::vector<value> nodes;
  for (const std::string& place : placesOf(s, m))
    if (nodes.size() < kMaxSuspectNodes) nodes.push_back(value::string(place));
  out["nodes"] = value::array(nodes);
  out["status"] = value::string(s.status == report::FabricStatus::Slow ? "Slow" : "Inconclusive");
  out["estimate"] = estimateJson(s.estimate);
  out["line"] = value::number(s.line);
  out["unit"] = value::string(s.what == "compute" ? "FLOP/s" : "bytes/s");
  out["evidence"] = value::string(kube::boundedMessage(s.evidence, 512));
  return out;
}

}  // namespace

FabricOutcome fabricOutcome(const report::Report& run, double thresholdPercent,
                            const report::FabricMeasurements* baseline) {
  const report::FabricMeasurements m = report::parseFabric(run.resultsJson, "report");
  report::FabricVerdictOptions options;
  options.thresholdPercent = thresholdPercent;
  options.baseline = baseline;
  const report::FabricVerdict v = report::judgeFabric(m, options);

  FabricOutcome out;
  value& st = out.status;
  value line = value::object();
  line["bandwidthBytesPerSecond"] = value::number(v.lineBandwidth);
  line["computeFlops"] = value::number(v.lineCompute);
  line["source"] = value::string(v.lineSource);
  st["line"] = line;
  st["thresholdPercent"] = value::number(thresholdPercent);
  st["nodes"] = value::number(static_cast<int64_t>(m.nodes.size()));
  st["pairsMeasured"] = value::number(v.pairsMeasured);
  st["pairsTotal"] = value::number(v.pairsTotal);
  std::vector<value> suspects;
  size_t slow = 0, inconclusive = 0;
  std::vector<std::string> undecided;
  for (const report::FabricSuspect& s : v.suspects) {
    if (suspects.size() < kMaxStatusSuspects) suspects.push_back(suspectJson(s, m));
    if (s.status != report::FabricStatus::Slow) {
      ++inconclusive;
      undecided.push_back(s.where);
      continue;
    }
    ++slow;
    if (slow <= kMaxSuspectEvents) out.events.push_back({true, reasonOf(s), s.evidence});
    if (s.what == "link") continue;  // both ends are fine elsewhere: no node to mark
    for (int index : s.nodes) {
      if (index < 0 || static_cast<size_t>(index) >= m.nodes.size()) continue;
      const std::string& node = m.nodes[static_cast<size_t>(index)].node;
      if (!node.empty()) out.marks.push_back({node, s.what, s.evidence});
    }
  }
  st["suspects"] = value::array(suspects);
  st["suspectsOmitted"] = value::number(static_cast<int64_t>(v.suspects.size() - suspects.size()));
  if (slow > kMaxSuspectEvents) {
    out.events.push_back({true, "MoreSuspects",
                          std::to_string(slow - kMaxSuspectEvents) +
                              " more slow suspects; status.fabric.suspects and the stored "
                              "report list them"});
  }
  if (inconclusive > 0) {
    std::string list;
    for (size_t i = 0; i < undecided.size() && i < 8; ++i) list += (i ? ", " : "") + undecided[i];
    if (undecided.size() > 8) list += ", ...";
    out.events.push_back({false, kEventFabricInconclusive,
                          kube::boundedMessage(std::to_string(inconclusive) +
                                               " inconclusive (the interval straddles the line; "
                                               "measure again with more samplesPerPair): " +
                                               list)});
  }
  if (v.suspects.empty()) {
    out.events.push_back({false, kEventFabricHealthy,
                          "no suspect: every node, link and compute probe of " +
                              std::to_string(m.nodes.size()) + " nodes within " +
                              std::to_string(static_cast<int>(thresholdPercent)) + " % of the " +
                              v.lineSource + " line (" + std::to_string(v.pairsMeasured) + " of " +
                              std::to_string(v.pairsTotal) + " pairs measured)"});
  }
  return out;
}

}  // namespace distbench::op
