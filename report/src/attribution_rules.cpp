#include "attribution_rules.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "distbench/report/bit_rate.h"
#include "distbench/report/percentiles.h"
#include "host_sharing.h"

namespace distbench::report::attribution_detail {
namespace {

std::string format(const char* pattern, double v) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, v);
  return text;
}

std::optional<double> optionalNumber(const value& object, const std::string& name) {
  const value* v = member(object, name);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->as_double();
}

// max(egress, ingress) bytes: the busier direction is the one the link limits.
double linkBytes(const value& rank) {
  double bytes = 0;
  for (const char* direction : {"egress", "ingress"}) {
    const value* d = member(rank, direction);
    if (d == nullptr || !d->is_object()) continue;
    bytes = std::max(bytes, numberAt(*d, "bytes").value_or(0));
  }
  return bytes;
}

}  // namespace

const value* member(const value& object, const std::string& name) {
  if (!object.is_object() || !object.has_field(name)) return nullptr;
  return &object.at(name);
}

std::optional<double> numberAt(const value& object, const std::string& name) {
  return optionalNumber(object, name);
}

std::optional<double> phaseMean(const value& phases, const std::string& name) {
  const value* phase = member(phases, name);
  if (phase == nullptr) return std::nullopt;
  return numberAt(*phase, "mean");
}

std::optional<double> phaseMedian(const value& phases, const std::string& name) {
  const value* phase = member(phases, name);
  if (phase == nullptr) return std::nullopt;
  if (const std::optional<double> p50 = numberAt(*phase, "p50")) return p50;
  return numberAt(*phase, "mean");
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return percentileLinear(values, 50);
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / values.size();
}

double p50(std::vector<double> values) { return median(std::move(values)); }

std::string boundOf(double exposedShare) {
  if (exposedShare > kCommunicationBound) return "communication";
  if (exposedShare < kComputeBound) return "compute";
  return "mixed";
}

std::string seconds(double s) {
  if (s >= 1) return format("%.2f s", s);
  if (s >= 0.1) return format("%.3f s", s);
  if (s >= 1e-3) return format("%.3g ms", s * 1e3);
  return format("%.3g us", s * 1e6);
}

std::string percent(double share) { return format("%.0f%%", share * 100); }

Local readLocal(const Report& report) {
  Local local;
  if (report.localJson.empty()) return local;
  const value root = value::parse(report.localJson);
  local.present = true;
  local.unshapedBitsPerSecond = numberAt(root, "unshapedBitsPerSecond");
  const value* ranks = member(root, "ranks");
  if (ranks == nullptr || !ranks->is_array()) return local;
  for (const value& r : ranks->as_array()) {
    const std::optional<double> rank = numberAt(r, "rank");
    if (!rank) continue;
    LocalRank lr;
    lr.rank = static_cast<int>(*rank);
    const value* name = member(r, "name");
    if (name != nullptr && name->is_string()) lr.name = name->as_string();
    lr.linkBitsPerSecond = numberAt(r, "linkBitsPerSecond");
    if (lr.linkBitsPerSecond && *lr.linkBitsPerSecond <= 0) lr.linkBitsPerSecond.reset();
    lr.linkBytes = linkBytes(r);
    lr.cpuLimit = numberAt(r, "cpuLimit");
    lr.throttledSeconds = numberAt(r, "throttledSeconds");
    local.ranks.push_back(lr);
  }
  return local;
}

std::string rankName(const Report& report, const Local& local, int rank) {
  for (const LocalRank& r : local.ranks) {
    if (r.rank == rank && !r.name.empty()) return r.name;
  }
  if (rank == 0) return "master";
  if (report.kind == "HybridDDPRPC" && rank <= report.parameterServers) {
    return "ps" + std::to_string(rank - 1);
  }
  const int firstTrainer = report.kind == "HybridDDPRPC" ? 1 + report.parameterServers : 1;
  return "trainer" + std::to_string(rank - firstTrainer);
}

double stragglerFactor(const Report& report) {
  return ranksOutnumberCpus(report) ? kSharedCoresStragglerFactor : kStragglerFactor;
}

std::optional<StragglerFinding> findStraggler(const std::vector<RankCompute>& ranks,
                                              double stepSeconds, double factor, double minShare) {
  if (ranks.size() < 2) return std::nullopt;
  size_t slowest = 0;
  for (size_t i = 1; i < ranks.size(); ++i)
    if (ranks[i].compute > ranks[slowest].compute) slowest = i;
  std::vector<double> others;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i == slowest) continue;
    others.push_back(ranks[i].compute);
    // The others wait for it: a rank that waits longer than someone is no straggler.
    if (ranks[i].wait < ranks[slowest].wait) return std::nullopt;
  }
  const double othersMedian = median(others);
  if (!(ranks[slowest].compute > factor * othersMedian)) return std::nullopt;
  if (!(ranks[slowest].compute - othersMedian >= minShare * stepSeconds)) {
    return std::nullopt;
  }
  return StragglerFinding{ranks[slowest].rank, ranks[slowest].compute - othersMedian, othersMedian,
                          ranks[slowest].compute};
}

std::string stragglerEvidence(const StragglerFinding& s, const Local& local,
                              const std::string& perWhat, const std::string& what) {
  std::string text = what + " " + format("%.2f", s.compute / s.othersMedian) +
                     "x the others' median (" + seconds(s.compute) + " vs " +
                     seconds(s.othersMedian) + " per " + perWhat + "), the smallest allreduceWait";
  return text + cpuCapText(s.rank, local);
}

std::string cpuCapText(int rank, const Local& local) {
  std::string text;
  for (const LocalRank& r : local.ranks) {
    if (r.rank != rank || !r.cpuLimit) continue;
    text += "; CPU capped at " + format("%.0f%%", *r.cpuLimit * 100);
    if (r.throttledSeconds) text += ", throttled " + seconds(*r.throttledSeconds);
  }
  return text;
}

std::optional<StarvedFinding> findStarved(const Local& local, const std::vector<int>& ranks,
                                          double measured, double minShare) {
  if (!(measured > 0)) return std::nullopt;
  std::optional<StarvedFinding> most;
  double runnerUp = 0;
  for (const LocalRank& r : local.ranks) {
    if (std::find(ranks.begin(), ranks.end(), r.rank) == ranks.end()) continue;
    const double throttled = r.throttledSeconds.value_or(0);
    if (!most || throttled > most->throttledSeconds) {
      if (most) runnerUp = std::max(runnerUp, most->throttledSeconds);
      most = StarvedFinding{r.rank, throttled, std::min(1.0, throttled / measured), ""};
    } else {
      runnerUp = std::max(runnerUp, throttled);
    }
  }
  if (!most || most->share < minShare || runnerUp * 2 > most->throttledSeconds) {
    return std::nullopt;
  }
  most->evidence = "CPU throttled " + seconds(most->throttledSeconds) + " by its cgroup, " +
                   percent(most->share) + " of the measured run (" + seconds(measured) +
                   "); the others " +
                   (runnerUp > 0 ? "at most " + seconds(runnerUp) : "not at all") +
                   cpuCapText(most->rank, local);
  return most;
}

void applyThrottleCounters(RowAttribution& row, const Report& report, const Local& local,
                           const std::vector<int>& ranks, double measured, bool stalled,
                           double& excess) {
  if (!row.stragglerCheck) return;
  StragglerCheck& check = *row.stragglerCheck;
  check.timingVerdict = check.verdict;
  check.timingName = row.straggler ? row.straggler->name : "";
  std::optional<StarvedFinding> starved = findStarved(local, ranks, measured, kStarvedShare);
  std::string why;
  if (!starved && stalled) {
    starved = findStarved(local, ranks, measured, kThrottleDoubtShare);
    why = "; its stalls land in the collective and make the others look slower";
  }
  if (starved) {
    const std::string name = rankName(report, local, starved->rank);
    check.evidence += "; CPU throttle: " + name + ": " + starved->evidence + why;
    check.verdict = "named";
    if (row.straggler && row.straggler->rank == starved->rank) return;
    row.straggler = Straggler{starved->rank, name, 0, starved->evidence + why};
    excess = 0;
    return;
  }
  if (!row.straggler || !(measured > 0)) return;
  for (const LocalRank& r : local.ranks) {
    if (r.rank == row.straggler->rank || !r.throttledSeconds ||
        std::find(ranks.begin(), ranks.end(), r.rank) == ranks.end() ||
        *r.throttledSeconds < kThrottleDoubtShare * measured) {
      continue;
    }
    check.verdict = "inconclusive";
    check.evidence += "; but " + rankName(report, local, r.rank) + " was CPU-throttled " +
                      seconds(*r.throttledSeconds) + " (" +
                      percent(*r.throttledSeconds / measured) +
                      " of the run), as were others: a throttled rank's stalls land in the "
                      "collective and can make the others look slower, so " +
                      row.straggler->name + " is not named";
    row.straggler.reset();
    excess = 0;
    return;
  }
}

std::optional<LinkFinding> findSlowLink(const Report& report, const Local& local, double measured) {
  struct Candidate {
    const LocalRank* rank;
    double linkSeconds;
  };
  std::vector<Candidate> shaped;
  for (const LocalRank& r : local.ranks) {
    if (r.linkBitsPerSecond) shaped.push_back({&r, r.linkBytes * 8 / *r.linkBitsPerSecond});
  }
  if (shaped.empty() || !(measured > 0)) return std::nullopt;
  std::optional<LinkFinding> best;
  double bestSeconds = 0, runnerUp = 0;
  for (const Candidate& c : shaped) {
    // The others' rate: the median of the other shaped links, else what a
    // probe measured unshaped, else unknown (0): no shaped rank is slower
    // than an unshaped one we know nothing of, except by its counters.
    std::vector<double> rates;
    for (const Candidate& o : shaped)
      if (o.rank != c.rank) rates.push_back(*o.rank->linkBitsPerSecond);
    double others = rates.empty() ? local.unshapedBitsPerSecond.value_or(0) : median(rates);
    const double rate = *c.rank->linkBitsPerSecond;
    const bool slower = others == 0 || rate < kSlowerRate * others;
    if (!slower || c.linkSeconds <= bestSeconds) continue;
    best = LinkFinding{c.rank->rank, rankName(report, local, c.rank->rank),   rate,
                       others,       std::min(1.0, c.linkSeconds / measured), ""};
    bestSeconds = c.linkSeconds;
  }
  if (!best) return std::nullopt;
  for (const Candidate& c : shaped)
    if (c.rank->rank != best->rank) runnerUp = std::max(runnerUp, c.linkSeconds);
  if (bestSeconds < kLinkDominance * runnerUp || best->runShare < kLinkRunShare)
    return std::nullopt;
  const LocalRank* rank = nullptr;
  for (const Candidate& c : shaped)
    if (c.rank->rank == best->rank) rank = c.rank;
  best->evidence = "link counters: " + format("%.3g", rank->linkBytes / 1e6) + " MB at " +
                   formatBitRate(best->bitsPerSecond) + " take " + seconds(bestSeconds) + ", " +
                   percent(best->runShare) + " of the measured run";
  if (runnerUp > 0) {
    best->evidence += ", " + format("%.1f", bestSeconds / runnerUp) + "x the next link's time";
  }
  return best;
}

double linkSaving(double slowSeconds, const LinkFinding& link, double exposedSeconds) {
  const double fastSeconds = link.othersBitsPerSecond > 0
                                 ? slowSeconds * link.bitsPerSecond / link.othersBitsPerSecond
                                 : 0;
  return std::clamp(slowSeconds - fastSeconds, 0.0, std::max(0.0, exposedSeconds));
}

SlowLink toSlowLink(const LinkFinding& link) {
  return SlowLink{link.rank, link.name, link.bitsPerSecond, link.othersBitsPerSecond,
                  link.evidence};
}

void setWhatIf(RowAttribution& row, double excess, double saving, double floorSeconds) {
  if (!row.straggler && !row.link) return;
  // A rank named by its throttle counter has no excess the report can size.
  if (row.straggler && row.straggler->excessSeconds == 0 && !row.link) return;
  row.whatIfSeconds = std::max(floorSeconds, row.stepSeconds - excess - saving);
  std::string who;
  if (row.straggler) who = row.straggler->name + " computed";
  if (row.link) {
    who += (who.empty() ? "" : " and ") + row.link->name + "'s link ran";
  }
  row.whatIf = "if " + who + " as fast as the others";
}

double measuredSeconds(const Report& report, const value& results) {
  double total = 0;
  if (report.kind == "HybridDDPRPC") {
    // `All` pools the trainers, which run side by side: one trainer's time.
    const value* all = member(results, "all");
    const std::optional<double> index = all ? numberAt(*all, "series") : std::nullopt;
    if (index && *index >= 0 && *index < static_cast<double>(report.series.size())) {
      const Series& s = report.series[static_cast<size_t>(*index)];
      for (double x : s.samples) total += x;
      return total / s.ranks;
    }
  }
  for (const Series& s : report.series) {
    double sum = 0;
    for (double x : s.samples) sum += x;
    // DDP pools its ranks' samples; a collective's sample is already the
    // slowest rank's.
    total += report.kind == "DDP" ? sum / s.ranks : sum;
  }
  return total;
}

}  // namespace distbench::report::attribution_detail
