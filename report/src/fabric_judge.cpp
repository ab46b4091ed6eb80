// Links, nodes and pairs of groups judged against the line
// (fabric_judge.h): the part of the Fabric verdict the planner shares.
#include "fabric_judge.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "distbench/report/bootstrap.h"
#include "fabric_plan_internal.h"

namespace distbench::report::fabric_detail {
namespace {

double median(std::vector<double> values) { return values.empty() ? 0 : medianInPlace(values); }

int64_t largestSize(const FabricMeasurements& m) {
  int64_t bytes = 0;
  for (const FabricPairSamples& p : m.pairs) bytes = std::max(bytes, p.bytes);
  return bytes;
}

std::vector<double> pooled(const FabricPairSamples& p) {
  std::vector<double> samples = p.aToB;
  samples.insert(samples.end(), p.bToA.begin(), p.bToA.end());
  return samples;
}

// bytes/s from an interval on seconds: the slow end of the seconds is the
// low end of the bandwidth.
FabricEstimate rate(double bytes, const FabricEstimate& seconds) {
  FabricEstimate e;
  if (seconds.value <= 0) return e;
  e.value = bytes / seconds.value;
  e.low = bytes / seconds.high;
  e.high = bytes / seconds.low;
  return e;
}

FabricEstimate scaled(FabricEstimate e, double factor) {
  e.value *= factor;
  e.low *= factor;
  e.high *= factor;
  return e;
}

FabricStatus against(const FabricEstimate& e, double slowBelow) {
  if (e.high < slowBelow) return FabricStatus::Slow;
  if (e.low >= slowBelow) return FabricStatus::Ok;
  return FabricStatus::Inconclusive;
}

// The median link bandwidth at `bytes` of a run, raw: a baseline's line.
double medianBandwidth(const FabricMeasurements& m, int64_t bytes) {
  std::vector<double> values;
  for (const FabricPairSamples& p : m.pairs) {
    if (p.bytes != bytes) continue;
    values.push_back(bytes / median(pooled(p)));
  }
  return median(values);
}

}  // namespace

FabricEstimate medianInterval(std::vector<double> samples, double confidence) {
  FabricEstimate e;
  const int n = static_cast<int>(samples.size());
  if (n == 0) return e;
  std::sort(samples.begin(), samples.end());
  e.value = n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  // [x(k), x(n+1-k)] covers the median with probability 1 - 2 P(B <= k-1),
  // B ~ Binomial(n, 1/2).
  const double alpha = 1 - confidence;
  const double logAll = std::lgamma(n + 1.0) - n * std::log(2.0);
  auto pmf = [&](int j) {
    return std::exp(logAll - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0));
  };
  int k = 1;
  double below = pmf(0);  // P(B <= k - 1)
  for (int next = 2; next <= (n + 1) / 2; ++next) {
    below += pmf(next - 1);
    if (2 * below > alpha) break;
    k = next;
  }
  e.low = samples[k - 1];
  e.high = samples[n - k];
  return e;
}

FabricJudgement judgeLinks(const FabricMeasurements& m, const FabricJudgeOptions& options) {
  FabricJudgement j;
  const int n = static_cast<int>(m.nodes.size());
  j.bytes = largestSize(m);
  j.nodes.resize(n);
  j.inconclusivePeers.assign(n, 0);
  for (int i = 0; i < n; ++i) j.nodes[i].index = i;
  const std::vector<std::vector<int>> groups = nodeGroups(m.nodes);
  j.group.assign(n, 0);
  for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
    for (int i : groups[g]) j.group[i] = g;
  }
  if (j.bytes == 0) return j;

  // Latency: the smallest size, where it differs from the largest.
  int64_t smallest = j.bytes;
  for (const FabricPairSamples& p : m.pairs) smallest = std::min(smallest, p.bytes);
  std::map<std::pair<int, int>, const FabricPairSamples*> small;
  if (smallest < j.bytes) {
    for (const FabricPairSamples& p : m.pairs) {
      if (p.bytes == smallest) small[{p.a, p.b}] = &p;
    }
  }

  for (const FabricPairSamples& p : m.pairs) {
    if (p.bytes != j.bytes) continue;
    FabricLinkVerdict link;
    link.a = p.a;
    link.b = p.b;
    link.bandwidth =
        rate(static_cast<double>(p.bytes), medianInterval(pooled(p), options.confidence));
    const auto latency = small.find({p.a, p.b});
    if (latency != small.end()) {
      link.latency = medianInterval(pooled(*latency->second), options.confidence);
    }
    j.links.push_back(link);
    j.linkRound.push_back(p.round);
  }
  std::vector<double> values;
  for (const FabricLinkVerdict& l : j.links) values.push_back(l.bandwidth.value);
  const double runMedian = median(values);

  if (options.roundNormalise) {
    std::map<int, std::vector<size_t>> rounds;
    for (size_t i = 0; i < j.links.size(); ++i) rounds[j.linkRound[i]].push_back(i);
    for (const auto& [round, members] : rounds) {
      // A round of a few pairs, or of suspects only, has no median to trust.
      if (members.size() < 3 || 2 * members.size() < static_cast<size_t>(0.75 * n)) continue;
      std::vector<double> inRound;
      for (size_t i : members) inRound.push_back(j.links[i].bandwidth.value);
      const double roundMedian = median(inRound);
      if (roundMedian <= 0) continue;
      for (size_t i : members)
        j.links[i].bandwidth = scaled(j.links[i].bandwidth, runMedian / roundMedian);
    }
  }

  values.clear();
  for (const FabricLinkVerdict& l : j.links) values.push_back(l.bandwidth.value);
  j.line = median(values);
  if (options.baseline) {
    const double base = medianBandwidth(*options.baseline, j.bytes);
    if (base > 0) {
      j.line = base;
      j.lineSource = "baseline";
    }
  }
  j.slowBelow = (1 - options.thresholdPercent / 100) * j.line;

  std::vector<std::vector<double>> nodeValues(n);
  for (FabricLinkVerdict& l : j.links) {
    l.status = against(l.bandwidth, j.slowBelow);
    for (int end : {l.a, l.b}) {
      FabricNodeVerdict& node = j.nodes[end];
      ++node.peersMeasured;
      if (l.status == FabricStatus::Slow) ++node.slowPeers;
      if (l.status == FabricStatus::Inconclusive) ++j.inconclusivePeers[end];
      nodeValues[end].push_back(l.bandwidth.value);
    }
  }
  for (int i = 0; i < n; ++i) {
    FabricNodeVerdict& node = j.nodes[i];
    node.bandwidth = medianInterval(nodeValues[i], options.confidence);
    const int peers = node.peersMeasured;
    if (peers >= kMinPeersForNode && 2 * node.slowPeers > peers) {
      node.link = FabricStatus::Slow;
    } else if ((2 * (node.slowPeers + j.inconclusivePeers[i]) > peers &&
                node.bandwidth.value < j.slowBelow) ||
               (node.slowPeers > 0 && peers < kMinPeersForNode)) {
      // Most of its links might be slow and their median is: or a slow link
      // with too few peers to tell the node from the link.
      node.link = FabricStatus::Inconclusive;
    }
  }

  for (FabricLinkVerdict& l : j.links) {
    if (l.status != FabricStatus::Slow) continue;
    const FabricNodeVerdict& a = j.nodes[l.a];
    const FabricNodeVerdict& b = j.nodes[l.b];
    if (a.link == FabricStatus::Slow || b.link == FabricStatus::Slow) {
      l.blame = "node";
    } else if (a.link == FabricStatus::Ok && b.link == FabricStatus::Ok && a.peersMeasured > 2 &&
               b.peersMeasured > 2) {
      l.blame = "link";  // both ends fine with at least two other peers
    }
  }

  // Pairs of groups: every pair across two groups that no slow node explains.
  std::map<std::pair<int, int>, std::vector<size_t>> across;
  for (size_t i = 0; i < j.links.size(); ++i) {
    const FabricLinkVerdict& l = j.links[i];
    const int ga = j.group[l.a], gb = j.group[l.b];
    if (ga == gb || l.blame == "node") continue;
    if (groups[ga].size() == 1 && groups[gb].size() == 1) continue;  // a pair: the link itself
    across[{std::min(ga, gb), std::max(ga, gb)}].push_back(i);
  }
  for (const auto& [key, members] : across) {
    FabricGroupLink g;
    g.groupA = key.first;
    g.groupB = key.second;
    std::vector<double> bw;
    for (size_t i : members) {
      ++g.pairs;
      if (j.links[i].status == FabricStatus::Slow) ++g.slowPairs;
      bw.push_back(j.links[i].bandwidth.value);
    }
    if (g.slowPairs == 0) continue;
    g.bandwidth = medianInterval(bw, options.confidence);
    if (2 * g.slowPairs > g.pairs) {
      g.status = g.pairs >= kMinPairsForGroupLink ? FabricStatus::Slow : FabricStatus::Inconclusive;
    }
    if (g.status == FabricStatus::Slow) {
      for (size_t i : members) {
        if (j.links[i].status == FabricStatus::Slow) j.links[i].blame = "link";
      }
    }
    j.groupLinks.push_back(g);
  }
  return j;
}

}  // namespace distbench::report::fabric_detail
