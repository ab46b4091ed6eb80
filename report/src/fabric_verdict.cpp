// The Fabric verdict (fabric_verdict.h): the links and nodes as
// fabric_judge.cpp judges them, the compute probe by the bootstrap, the
// allreduce's bus bandwidth, and the suspects named from all of it.
#include "distbench/report/fabric_verdict.h"

#include <cpprest/json.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "fabric_judge.h"
#include "fabric_plan_internal.h"

namespace distbench::report {
namespace {

using fabric_detail::FabricGroupLink;
using fabric_detail::FabricJudgement;

// Above this many nodes the others' per-node medians are one number, the
// line: resampling a thousand of them for each node costs seconds and the
// median of a thousand barely moves.
constexpr int kResampleOthersUpTo = 64;

double median(std::vector<double> values) { return values.empty() ? 0 : medianInPlace(values); }

std::string label(const FabricNode& n) {
  return n.node.empty() ? n.name : n.name + " (" + n.node + ")";
}

std::string fraction(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", x);
  return text;
}

// Compute: FLOP/s per node against the others' median (or the baseline's),
// by bootstrapMedianChange on seconds per probe.
void judgeCompute(const FabricMeasurements& m, const FabricVerdictOptions& options,
                  FabricVerdict& v) {
  const int n = static_cast<int>(m.nodes.size());
  if (m.probeFlop <= 0) return;
  std::vector<double> medianSeconds(n, 0);
  std::vector<double> all;
  for (int i = 0; i < n && i < static_cast<int>(m.probeSeconds.size()); ++i) {
    if (m.probeSeconds[i].empty()) continue;
    medianSeconds[i] = median(m.probeSeconds[i]);
    all.push_back(medianSeconds[i]);
  }
  if (all.empty()) return;
  std::vector<double> baselineSeconds;
  if (options.baseline && options.baseline->probeFlop > 0) {
    // The baseline's probe may be another size: its seconds at this probe's FLOP.
    const double scale = m.probeFlop / options.baseline->probeFlop;
    for (const std::vector<double>& s : options.baseline->probeSeconds) {
      if (!s.empty()) baselineSeconds.push_back(median(s) * scale);
    }
  }
  const bool fromBaseline = !baselineSeconds.empty();
  v.lineCompute = m.probeFlop / median(fromBaseline ? baselineSeconds : all);
  const double slower = 1 / (1 - options.thresholdPercent / 100) - 1;  // in seconds
  for (int i = 0; i < n; ++i) {
    if (medianSeconds[i] <= 0) continue;
    std::vector<double> base = baselineSeconds;
    if (!fromBaseline) {
      for (int k = 0; k < n; ++k) {
        if (k != i && medianSeconds[k] > 0) base.push_back(medianSeconds[k]);
      }
      if (base.empty()) continue;  // one node: nothing to compare with
      if (n > kResampleOthersUpTo) base = {median(base)};
    }
    BootstrapOptions bootstrap = options.bootstrap;
    bootstrap.seed += static_cast<uint64_t>(i);
    const MedianChange change = bootstrapMedianChange(base, m.probeSeconds[i], bootstrap);
    const double line = m.probeFlop / median(base);
    FabricNodeVerdict& node = v.nodes[i];
    node.compute.value = m.probeFlop / medianSeconds[i];
    node.compute.low = line / (1 + change.high);
    node.compute.high = line / (1 + change.low);
    if (change.low > slower) {
      node.computeStatus = FabricStatus::Slow;
    } else if (change.high > slower) {
      node.computeStatus = FabricStatus::Inconclusive;
    }
  }
}

void nameSuspects(const FabricMeasurements& m, const FabricJudgement& j, FabricVerdict& v) {
  const std::vector<std::vector<int>> groups = fabric_detail::nodeGroups(m.nodes);
  const double keep = 1 - v.thresholdPercent / 100;
  for (const FabricNodeVerdict& node : v.nodes) {
    const bool leaning = node.bandwidth.value < j.slowBelow;
    if (node.link == FabricStatus::Slow || (node.link == FabricStatus::Inconclusive && leaning)) {
      FabricSuspect s;
      s.what = "node";
      s.where = label(m.nodes[node.index]);
      s.nodes = {node.index};
      s.estimate = node.bandwidth;
      s.line = v.lineBandwidth;
      s.status = node.link;
      s.evidence = "its links are slow with " + std::to_string(node.slowPeers) + " of its " +
                   std::to_string(node.peersMeasured) + " peers, at " +
                   fraction(node.bandwidth.value / v.lineBandwidth) + " of the line" +
                   (node.link == FabricStatus::Slow
                        ? ""
                        : std::string(": too few peers, or too few slow ones, to name it"));
      v.suspects.push_back(s);
    }
  }
  std::set<std::pair<int, int>> namedGroups;
  for (const FabricGroupLink& g : j.groupLinks) {
    if (g.status != FabricStatus::Slow) continue;
    namedGroups.insert({g.groupA, g.groupB});
    FabricSuspect s;
    s.what = "link";
    s.where =
        "group " + m.nodes[groups[g.groupA][0]].group + " - " + m.nodes[groups[g.groupB][0]].group;
    s.nodes = groups[g.groupA];
    s.nodes.insert(s.nodes.end(), groups[g.groupB].begin(), groups[g.groupB].end());
    std::sort(s.nodes.begin(), s.nodes.end());
    s.estimate = g.bandwidth;
    s.line = v.lineBandwidth;
    s.evidence = std::to_string(g.slowPairs) + " of the " + std::to_string(g.pairs) +
                 " pairs measured across the two groups are slow, at " +
                 fraction(g.bandwidth.value / v.lineBandwidth) +
                 " of the line, and no slow node explains them";
    v.suspects.push_back(s);
  }
  for (const FabricLinkVerdict& l : v.links) {
    const int ga = j.group[l.a], gb = j.group[l.b];
    if (namedGroups.count({std::min(ga, gb), std::max(ga, gb)})) continue;
    const bool undecided = l.status == FabricStatus::Slow && l.blame.empty();
    const bool leaning = l.status == FabricStatus::Inconclusive && l.bandwidth.value < j.slowBelow;
    if (!(l.blame == "link" || undecided || leaning)) continue;
    const FabricNodeVerdict& a = v.nodes[l.a];
    const FabricNodeVerdict& b = v.nodes[l.b];
    FabricSuspect s;
    s.what = "link";
    s.where = m.nodes[l.a].name + "-" + m.nodes[l.b].name;
    s.nodes = {l.a, l.b};
    s.estimate = l.bandwidth;
    s.line = v.lineBandwidth;
    s.status = l.blame == "link" ? FabricStatus::Slow : FabricStatus::Inconclusive;
    const std::string at = "at " + fraction(l.bandwidth.value / v.lineBandwidth) + " of the line";
    if (l.blame == "link") {
      s.evidence = at + "; " + m.nodes[l.a].name + " and " + m.nodes[l.b].name +
                   " are fine with their " + std::to_string(a.peersMeasured - 1) + " and " +
                   std::to_string(b.peersMeasured - 1) + " other peers";
    } else if (undecided) {
      s.evidence = at + "; too few other peers measured to tell the link from its nodes";
    } else {
      s.evidence = at + ", but its interval reaches " + fraction(keep) + " of the line";
    }
    v.suspects.push_back(s);
  }
  for (const FabricNodeVerdict& node : v.nodes) {
    const bool leaning = node.compute.value < keep * v.lineCompute;
    if (node.computeStatus == FabricStatus::Slow ||
        (node.computeStatus == FabricStatus::Inconclusive && leaning)) {
      FabricSuspect s;
      s.what = "compute";
      s.where = label(m.nodes[node.index]);
      s.nodes = {node.index};
      s.estimate = node.compute;
      s.line = v.lineCompute;
      s.status = node.computeStatus;
      s.evidence = "its probe runs at " + fraction(node.compute.value / v.lineCompute) +
                   " of the " + (v.lineSource == "baseline" ? "baseline's" : "others'") +
                   " median FLOP/s";
      v.suspects.push_back(s);
    }
  }
  // Slow first, then inconclusive; within each the furthest below its line first.
  std::stable_sort(v.suspects.begin(), v.suspects.end(),
                   [](const FabricSuspect& x, const FabricSuspect& y) {
                     if (x.status != y.status) return x.status == FabricStatus::Slow;
                     return x.estimate.value / x.line < y.estimate.value / y.line;
                   });
}

web::json::value estimateJson(const FabricEstimate& e) {
  web::json::value v = web::json::value::object(true);
  v["value"] = web::json::value::number(e.value);
  v["low"] = web::json::value::number(e.low);
  v["high"] = web::json::value::number(e.high);
  return v;
}

}  // namespace

const char* toString(FabricStatus s) {
  switch (s) {
    case FabricStatus::Ok:
      return "ok";
    case FabricStatus::Slow:
      return "slow";
    case FabricStatus::Inconclusive:
      return "inconclusive";
  }
  return "ok";
}

FabricVerdict judgeFabric(const FabricMeasurements& m, const FabricVerdictOptions& options) {
  fabric_detail::FabricJudgeOptions judge;
  judge.thresholdPercent = options.thresholdPercent;
  judge.confidence = options.bootstrap.confidence;
  judge.baseline = options.baseline;
  judge.roundNormalise = options.roundNormalise;
  const FabricJudgement j = fabric_detail::judgeLinks(m, judge);

  FabricVerdict v;
  v.thresholdPercent = options.thresholdPercent;
  v.bytes = j.bytes;
  v.lineBandwidth = j.line;
  v.lineSource = j.lineSource;
  v.nodes = j.nodes;
  v.links = j.links;
  const int n = static_cast<int>(m.nodes.size());
  v.pairsTotal = n * (n - 1) / 2;
  std::set<std::pair<int, int>> pairs;
  for (const FabricPairSamples& p : m.pairs) pairs.insert({p.a, p.b});
  v.pairsMeasured = static_cast<int>(pairs.size());
  judgeCompute(m, options, v);
  if (options.baseline && v.lineCompute > 0 && options.baseline->probeFlop > 0) {
    v.lineSource = "baseline";
  }
  if (n >= 2 && !m.allreduceSeconds.empty()) {
    const double busBytes = 2.0 * (n - 1) / n * static_cast<double>(m.allreduceBytes);
    const FabricEstimate s =
        fabric_detail::medianInterval(m.allreduceSeconds, options.bootstrap.confidence);
    v.allreduceBusBandwidth =
        FabricEstimate{busBytes / s.value, busBytes / s.high, busBytes / s.low};
  }
  nameSuspects(m, j, v);
  return v;
}

std::string fabricVerdictToJson(const FabricVerdict& v, const FabricMeasurements& m) {
  using web::json::value;
  value root = value::object(true);
  value line = value::object(true);
  line["bandwidth"] = value::number(v.lineBandwidth);
  line["compute"] = value::number(v.lineCompute);
  line["source"] = value::string(v.lineSource);
  root["line"] = line;
  root["thresholdPercent"] = value::number(v.thresholdPercent);
  root["bytes"] = value::number(v.bytes);
  root["pairsMeasured"] = value::number(v.pairsMeasured);
  root["pairsTotal"] = value::number(v.pairsTotal);
  value nodes = value::array(v.nodes.size());
  for (size_t i = 0; i < v.nodes.size(); ++i) {
    const FabricNodeVerdict& n = v.nodes[i];
    value x = value::object(true);
    x["index"] = value::number(n.index);
    x["name"] = value::string(m.nodes[n.index].name);
    x["node"] = value::string(m.nodes[n.index].node);
    x["bandwidth"] = estimateJson(n.bandwidth);
    x["link"] = value::string(toString(n.link));
    x["peersMeasured"] = value::number(n.peersMeasured);
    x["slowPeers"] = value::number(n.slowPeers);
    x["compute"] = estimateJson(n.compute);
    x["computeStatus"] = value::string(toString(n.computeStatus));
    nodes[i] = x;
  }
  root["nodes"] = nodes;
  value links = value::array(v.links.size());
  for (size_t i = 0; i < v.links.size(); ++i) {
    const FabricLinkVerdict& l = v.links[i];
    value x = value::object(true);
    x["a"] = value::number(l.a);
    x["b"] = value::number(l.b);
    x["bandwidth"] = estimateJson(l.bandwidth);
    x["latency"] = estimateJson(l.latency);
    x["status"] = value::string(toString(l.status));
    x["blame"] = value::string(l.blame);
    links[i] = x;
  }
  root["links"] = links;
  value suspects = value::array(v.suspects.size());
  for (size_t i = 0; i < v.suspects.size(); ++i) {
    const FabricSuspect& s = v.suspects[i];
    value x = value::object(true);
    x["what"] = value::string(s.what);
    x["where"] = value::string(s.where);
    value indices = value::array(s.nodes.size());
    for (size_t k = 0; k < s.nodes.size(); ++k) indices[k] = value::number(s.nodes[k]);
    x["nodes"] = indices;
    x["estimate"] = estimateJson(s.estimate);
    x["line"] = value::number(s.line);
    x["status"] = value::string(toString(s.status));
    x["evidence"] = value::string(s.evidence);
    suspects[i] = x;
  }
  root["suspects"] = suspects;
  root["allreduceBusBandwidth"] =
      v.allreduceBusBandwidth ? estimateJson(*v.allreduceBusBandwidth) : value::null();
  return root.serialize();
}

}  // namespace distbench::report
