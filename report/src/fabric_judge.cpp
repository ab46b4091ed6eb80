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

// The line: the median over nodes of each node's median link. A slow node
// slows n - 1 of the n (n - 1) / 2 links, half of them at four nodes, and
// would drag a median over links; it moves one of the n node medians.
double nodeMedianLine(int n, const std::vector<std::pair<std::pair<int, int>, double>>& links) {
  std::vector<std::vector<double>> perNode(n);
  for (const auto& [ends, value] : links) {
    perNode[ends.first].push_back(value);
    perNode[ends.second].push_back(value);
  }
  std::vector<double> medians;
  for (std::vector<double>& values : perNode) {
    if (!values.empty()) medians.push_back(medianInPlace(values));
  }
  return median(medians);
}

// A baseline's line at `bytes`, from its links as measured (those judged).
double baselineLine(const FabricMeasurements& m, int64_t bytes) {
  std::vector<std::pair<std::pair<int, int>, double>> links;
  const bool acrossNodes = measuresAcrossNodes(m);
  for (const FabricPairSamples& p : m.pairs) {
    if (p.bytes == bytes && judged(m, p, acrossNodes)) {
      links.push_back({{p.a, p.b}, bytes / quantileInterval(pooled(p), kLinkQuantile, 0).value});
    }
  }
  return nodeMedianLine(static_cast<int>(m.nodes.size()), links);
}

}  // namespace

void classify(FabricJudgement& j, const FabricMeasurements& m, const FabricJudgeOptions& options,
              const std::vector<std::vector<int>>& groups);

// Pairs measured in the same round share the machine: each link's figure
// divided by its round's median, times the run's. The round's median is
// taken over its links whose ends a first judging found fine (no slow or
// inconclusive node), so that a round of suspects paired with good nodes
// keeps its slow links slow; a round with fewer than three such links is
// left as measured.
void normaliseRounds(FabricJudgement& j, const FabricMeasurements& m,
                     const FabricJudgeOptions& options,
                     const std::vector<std::vector<int>>& groups) {
  // Against the group's own line: a run slower than its baseline everywhere
  // still has rounds to compare with each other.
  FabricJudgeOptions group = options;
  group.baseline = nullptr;
  FabricJudgement first = j;
  classify(first, m, group, groups);
  std::vector<double> values;
  for (const FabricLinkVerdict& l : j.links) values.push_back(l.bandwidth.value);
  const double runMedian = median(values);
  std::map<int, std::vector<size_t>> rounds;
  for (size_t i = 0; i < j.links.size(); ++i) rounds[j.linkRound[i]].push_back(i);
  for (const auto& [round, members] : rounds) {
    std::vector<double> clean;
    for (size_t i : members) {
      const FabricLinkVerdict& l = j.links[i];
      if (first.nodes[l.a].link == FabricStatus::Ok && first.nodes[l.b].link == FabricStatus::Ok) {
        clean.push_back(l.bandwidth.value);
      }
    }
    if (clean.size() < kMinLinksForRound) continue;
    const double roundMedian = median(clean);
    for (size_t i : members) {
      j.links[i].bandwidth = scaled(j.links[i].bandwidth, runMedian / roundMedian);
    }
  }
}

// The standard deviation of normal log deviations from their absolute
// values, the largest 10 % left out: E[z^2 | |z| < 1.645] = 0.6232.
double trimmedSpread(std::vector<double> deviations) {
  if (deviations.empty()) return 0;
  std::sort(deviations.begin(), deviations.end());
  const size_t keep = std::max<size_t>(1, deviations.size() * 9 / 10);
  double sum = 0;
  for (size_t i = 0; i < keep; ++i) sum += deviations[i] * deviations[i];
  return std::sqrt(sum / keep / 0.6232);
}

double spreadMultiplier(double sigmas, size_t tests) {
  if (sigmas <= 0 || tests == 0) return sigmas;
  // The z whose upper tail is 0.025 / tests: of that many healthy links
  // (or probes), one in forty runs has one past it.
  const double tail = 0.025 / static_cast<double>(tests);
  double low = 0, high = 40;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (low + high);
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > tail ? low : high) = mid;
  }
  return std::max(sigmas, 0.5 * (low + high));
}

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

FabricEstimate quantileInterval(std::vector<double> samples, double q, double confidence) {
  FabricEstimate e;
  const int n = static_cast<int>(samples.size());
  if (n == 0) return e;
  std::sort(samples.begin(), samples.end());
  const double position = q * (n - 1);
  const int below = static_cast<int>(std::floor(position));
  const int above = std::min(below + 1, n - 1);
  e.value = samples[below] + (position - below) * (samples[above] - samples[below]);
  // P(B <= j), B ~ Binomial(n, q): x(l) is below the quantile with
  // probability P(B >= l), x(u) above it with P(B <= u - 1).
  std::vector<double> cdf(n + 1);
  double sum = 0;
  for (int j = 0; j <= n; ++j) {
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) +
                    j * std::log(q) + (n - j) * std::log1p(-q));
    cdf[j] = std::min(1.0, sum);
  }
  const double tail = (1 - confidence) / 2;
  // The largest l (1-based) with P(B <= l - 1) <= tail, the smallest u with
  // P(B >= u) <= tail; at worst the sample's ends.
  int l = 1;
  while (l + 1 <= n && cdf[l] <= tail) ++l;
  int u = n;
  while (u - 1 >= l && 1 - cdf[u - 2] <= tail) --u;
  e.low = samples[l - 1];
  e.high = samples[u - 1];
  e.low = std::min(e.low, e.value);
  e.high = std::max(e.high, e.value);
  return e;
}

bool sameNode(const FabricMeasurements& m, int a, int b) {
  const std::string& x = m.nodes.at(static_cast<size_t>(a)).node;
  return !x.empty() && x == m.nodes.at(static_cast<size_t>(b)).node;
}

bool measuresAcrossNodes(const FabricMeasurements& m) {
  for (const FabricPairSamples& p : m.pairs) {
    if (!sameNode(m, p.a, p.b)) return true;
  }
  return false;
}

bool judged(const FabricMeasurements& m, const FabricPairSamples& p, bool acrossNodes) {
  return !acrossNodes || !sameNode(m, p.a, p.b);
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

  const bool acrossNodes = measuresAcrossNodes(m);
  for (const FabricPairSamples& p : m.pairs) {
    if (p.bytes != j.bytes || !judged(m, p, acrossNodes)) continue;
    FabricLinkVerdict link;
    link.a = p.a;
    link.b = p.b;
    link.bandwidth = rate(static_cast<double>(p.bytes),
                          quantileInterval(pooled(p), kLinkQuantile, options.confidence));
    const auto latency = small.find({p.a, p.b});
    if (latency != small.end()) {
      link.latency = quantileInterval(pooled(*latency->second), kLinkQuantile, options.confidence);
    }
    j.links.push_back(link);
    j.linkRound.push_back(p.round);
  }
  if (options.roundNormalise) normaliseRounds(j, m, options, groups);
  classify(j, m, options, groups);
  return j;
}

// Against the line: each link, then each node by its links, then the blame
// of each slow link, then the pairs of groups. Counts start from zero, so
// that judging twice (before and after normalising rounds) is the same as once.
void classify(FabricJudgement& j, const FabricMeasurements& m, const FabricJudgeOptions& options,
              const std::vector<std::vector<int>>& groups) {
  const int n = static_cast<int>(m.nodes.size());
  j.nodes.assign(n, FabricNodeVerdict{});
  for (int i = 0; i < n; ++i) j.nodes[i].index = i;
  j.inconclusivePeers.assign(n, 0);
  j.groupLinks.clear();
  std::vector<std::pair<std::pair<int, int>, double>> values;
  for (const FabricLinkVerdict& l : j.links) values.push_back({{l.a, l.b}, l.bandwidth.value});
  j.line = nodeMedianLine(n, values);
  // Once more without the nodes whose median link is itself below the
  // threshold: at a few nodes each healthy node's median is taken over few
  // links, one of them the slow node's, and sits low.
  {
    std::vector<int> peers(n, 0);
    std::vector<std::vector<double>> perNode(n);
    for (const auto& [ends, value] : values) {
      perNode[ends.first].push_back(value);
      perNode[ends.second].push_back(value);
    }
    const double below = (1 - options.thresholdPercent / 100) * j.line;
    std::vector<bool> slow(n, false);
    for (int i = 0; i < n; ++i) {
      slow[i] = static_cast<int>(perNode[i].size()) >= kMinPeersForNode &&
                medianInPlace(perNode[i]) < below;
    }
    std::vector<std::pair<std::pair<int, int>, double>> rest;
    for (const auto& link : values) {
      if (!slow[link.first.first] && !slow[link.first.second]) rest.push_back(link);
    }
    if (!rest.empty() && rest.size() < values.size()) j.line = nodeMedianLine(n, rest);
    // How far healthy links stray from the line: the root mean square of
    // their log deviations, the largest tenth left out (a slow link among
    // them would widen it) and scaled back to a normal's standard
    // deviation. A link's interval holds its own samples' noise only; what
    // makes a healthy link lastingly slower (its cable, a slow round the
    // normalisation missed) is in this spread, and a link is named alone
    // only past options.spreadSigmas of it.
    std::vector<double> deviations;
    for (const auto& link : rest) deviations.push_back(std::fabs(std::log(link.second / j.line)));
    j.spread = deviations.size() >= kMinLinksForSpread ? trimmedSpread(deviations) : 0;
  }
  j.lineSource = "group";
  if (options.baseline) {
    const double base = baselineLine(*options.baseline, j.bytes);
    if (base > 0) {
      j.line = base;
      j.lineSource = "baseline";
    }
  }
  j.slowBelow = (1 - options.thresholdPercent / 100) * j.line;
  j.spreadBelow =
      j.line * std::exp(-spreadMultiplier(options.spreadSigmas, j.links.size()) * j.spread);

  std::vector<std::vector<double>> nodeValues(n);
  for (FabricLinkVerdict& l : j.links) {
    l.blame.clear();
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
    // Most of its links slow one by one, or the median of its links slow:
    // a node at 0.7 of the line with 30 peers has links that straddle 0.75
    // one by one, and a median whose interval over its peers does not.
    if (peers >= kMinPeersForNode &&
        (2 * node.slowPeers > peers || node.bandwidth.high < j.slowBelow)) {
      node.link = FabricStatus::Slow;
    } else if ((2 * (node.slowPeers + j.inconclusivePeers[i]) > peers &&
                node.bandwidth.value < j.slowBelow) ||
               (node.slowPeers > 0 && peers < kMinPeersForNode)) {
      // Most of its links might be slow and their median is: or a slow link
      // with too few peers to tell the node from the link.
      node.link = FabricStatus::Inconclusive;
    }
  }
  // A node's link with a slow node is slow because of that node: a node
  // named on such links is counted again without them, and is inconclusive
  // where the rest do not name it. Not where most nodes are slow (a fabric
  // slower than its baseline everywhere): there is no "rest" then.
  int slowNodes = 0;
  for (const FabricNodeVerdict& node : j.nodes) slowNodes += node.link == FabricStatus::Slow;
  std::vector<int> otherSlow(n, 0);
  std::vector<std::vector<double>> otherValues(n);
  for (const FabricLinkVerdict& l : j.links) {
    for (const auto& [end, peer] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
      if (j.nodes[peer].link == FabricStatus::Slow) continue;
      otherValues[end].push_back(l.bandwidth.value);
      if (l.status == FabricStatus::Slow) ++otherSlow[end];
    }
  }
  std::vector<int> demoted;
  for (int i = 0; i < n; ++i) {
    if (j.nodes[i].link != FabricStatus::Slow || 2 * slowNodes >= n) continue;
    const int others = static_cast<int>(otherValues[i].size());
    const bool stillSlow = others >= kMinPeersForNode &&
                           (2 * otherSlow[i] > others ||
                            medianInterval(otherValues[i], options.confidence).high < j.slowBelow);
    if (!stillSlow) demoted.push_back(i);
  }
  for (int i : demoted) j.nodes[i].link = FabricStatus::Inconclusive;

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
  j.withinSpread.assign(j.links.size(), false);
  for (size_t i = 0; i < j.links.size(); ++i) {
    FabricLinkVerdict& l = j.links[i];
    // Named alone, a link must stand out of the healthy links' spread too;
    // a node or a pair of groups is named on many links, and needs not.
    if (l.blame == "link" && l.bandwidth.value >= j.spreadBelow) {
      l.blame.clear();
      j.withinSpread[i] = true;
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
    // Judged as one link: the median of its pairs against the line, the
    // interval over its pairs (which holds how they differ); with too few
    // pairs, inconclusive where most are slow.
    if (g.pairs >= kMinPairsForGroupLink) {
      if (g.bandwidth.high < j.slowBelow) {
        g.status = FabricStatus::Slow;
      } else if (g.bandwidth.value < j.slowBelow) {
        g.status = FabricStatus::Inconclusive;
      }
    } else if (2 * g.slowPairs > g.pairs) {
      g.status = FabricStatus::Inconclusive;
    }
    if (g.status == FabricStatus::Slow) {
      for (size_t i : members) {
        if (j.links[i].status == FabricStatus::Slow) j.links[i].blame = "link";
      }
    }
    j.groupLinks.push_back(g);
  }
}

}  // namespace distbench::report::fabric_detail
