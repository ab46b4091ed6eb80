// DDP: one attribution per row of the sweep. Exposed communication is
// allreduceWait, the part of the bucket allreduces backward did not hide;
// compute is forward + backward + optimizerStep. In a synchronous step every
// rank's iteration takes as long as the slowest rank's, so the straggler
// shows only per rank: more compute and less waiting than the others.
#include <algorithm>

#include "attribution_rules.h"
#include "straggler_interval.h"

namespace distbench::report::attribution_detail {
namespace {

constexpr const char* kNoSamplesNote =
    "no per-iteration samples in this report (perRank[].phaseSamples, a worker from before "
    "them): the straggler is judged by medians against a fixed factor, without an interval";

const char* const kPhases[] = {"forward", "backward", "allreduceWait", "optimizerStep"};

void addShares(RowAttribution& out, const value& phases, double meanStep) {
  double sum = 0;
  for (const char* phase : kPhases) {
    const double share = phaseMean(phases, phase).value_or(0) / meanStep;
    out.shares[phase] = share;
    sum += share;
  }
  // The loop between phases, the data, the timers: what no phase holds.
  out.shares["other"] = std::max(0.0, 1 - sum);
}

std::vector<RankCompute> perRankCompute(const value& perRank) {
  std::vector<RankCompute> ranks;
  if (!perRank.is_array()) return ranks;
  for (const value& entry : perRank.as_array()) {
    const std::optional<double> rank = numberAt(entry, "rank");
    const value* phases = member(entry, "phases");
    if (!rank || phases == nullptr) continue;
    const auto fwd = phaseMedian(*phases, "forward");
    const auto bwd = phaseMedian(*phases, "backward");
    const auto opt = phaseMedian(*phases, "optimizerStep");
    const auto wait = phaseMedian(*phases, "allreduceWait");
    if (!fwd || !bwd || !opt || !wait) continue;
    ranks.push_back({static_cast<int>(*rank), *fwd + *bwd + *opt, *wait});
  }
  return ranks;
}

// Per iteration, each rank's own work: the iteration less its
// allreduceWait, what it spent waiting for the others. Absent where a rank
// has no perRank[].phaseSamples (a report from before them).
std::optional<std::vector<RankSamples>> ownWorkSamples(const value& perRank) {
  std::vector<RankSamples> ranks;
  if (!perRank.is_array() || perRank.size() == 0) return std::nullopt;
  for (const value& entry : perRank.as_array()) {
    const std::optional<double> rank = numberAt(entry, "rank");
    const value* samples = member(entry, "phaseSamples");
    const value* iteration = samples ? member(*samples, "iteration") : nullptr;
    const value* wait = samples ? member(*samples, "allreduceWait") : nullptr;
    if (!rank || iteration == nullptr || wait == nullptr || !iteration->is_array() ||
        !wait->is_array()) {
      return std::nullopt;
    }
    RankSamples r{static_cast<int>(*rank), {}};
    for (size_t i = 0; i < iteration->size() && i < wait->size(); ++i) {
      const value& it = iteration->at(i);
      const value& w = wait->at(i);
      if (it.is_number() && w.is_number()) r.samples.push_back(it.as_double() - w.as_double());
    }
    ranks.push_back(std::move(r));
  }
  return ranks;
}

// Whether `rank` trained in the row: from perRank where the report has it,
// else by the sweep's layout (a row of R ranks is trainers 0..R-1, global
// ranks 1..R).
bool takesPart(const value& row, int rank, int rowRanks) {
  const value* perRank = member(row, "perRank");
  if (perRank != nullptr && perRank->is_array() && perRank->size() > 0) {
    for (const value& entry : perRank->as_array())
      if (numberAt(entry, "rank").value_or(-1) == rank) return true;
    return false;
  }
  return rank >= 1 && rank <= rowRanks;
}

RowAttribution attributeRow(const Report& report, const Series& s, const value& row,
                            const Local& local, const std::optional<LinkFinding>& link,
                            double measured) {
  RowAttribution out;
  out.group = s.group;
  out.row = s.row;
  out.sampleOf = s.sampleOf;
  out.stepSeconds = p50(s.samples);
  const double meanStep = mean(s.samples);
  const value* phases = member(row, "phases");
  const std::optional<double> wait = phases ? phaseMean(*phases, "allreduceWait") : std::nullopt;
  if (!wait || !(meanStep > 0)) {
    out.bound = "unknown";
    out.note = "the report has no phase timings for this row";
    return out;
  }
  addShares(out, *phases, meanStep);
  out.exposedShare = *wait / meanStep;
  out.bound = boundOf(*out.exposedShare);

  const value* ddpFlag = member(row, "ddp");
  const bool ddp = ddpFlag == nullptr || !ddpFlag->is_boolean() || ddpFlag->as_bool();
  const int ranks = static_cast<int>(numberAt(row, "ranks").value_or(s.ranks));
  if (!ddp || ranks < 2) return out;  // nobody to wait for, nothing on a link

  double excess = 0;
  bool stalled = false;  // a significant excess that matters, named or not
  const value* perRank = member(row, "perRank");
  if (perRank == nullptr) {
    out.note = "no per-rank timings in this report (rows[].perRank): no straggler search";
  } else if (const auto samples = ownWorkSamples(*perRank)) {
    const StragglerInterval t = testStraggler(*samples, kStragglerMinStepShare * meanStep);
    const std::string name = rankName(report, local, t.rank);
    const std::string evidence =
        intervalEvidence(t, "own work (iteration less allreduceWait)", "iteration") +
        cpuCapText(t.rank, local);
    out.stragglerCheck = StragglerCheck{verdictName(t.verdict), name + ": " + evidence, "", ""};
    stalled = t.significant && t.excess >= t.minExcess;
    if (t.verdict == StragglerInterval::Verdict::Named) {
      out.straggler = Straggler{t.rank, name, t.excess, evidence};
      excess = t.excess;
    }
  } else {
    if (auto found = findStraggler(perRankCompute(*perRank), meanStep, stragglerFactor(report))) {
      out.straggler = Straggler{found->rank, rankName(report, local, found->rank), found->excess,
                                stragglerEvidence(*found, local, "iteration")};
      excess = found->excess;
      stalled = true;
    }
    out.note = kNoSamplesNote;
    out.stragglerCheck = StragglerCheck{out.straggler ? "named" : "none", kNoSamplesNote, "", ""};
  }
  if (perRank != nullptr && perRank->is_array()) {
    std::vector<int> ranks;
    for (const value& entry : perRank->as_array())
      if (const auto rank = numberAt(entry, "rank")) ranks.push_back(static_cast<int>(*rank));
    applyThrottleCounters(out, report, local, ranks, measured, stalled, excess);
  }

  double saving = 0;
  if (link && takesPart(row, link->rank, ranks)) {
    out.link = toSlowLink(*link);
    // Ring allreduce: each rank sends and receives 2(p-1)/p of the gradients
    // per step. Without the byte count, the link's share of the whole run
    // stands in for its share of this row's step.
    const std::optional<double> gradientBytes = numberAt(row, "gradientBytes");
    const double slowSeconds =
        gradientBytes ? 2.0 * (ranks - 1) / ranks * *gradientBytes * 8 / link->bitsPerSecond
                      : link->runShare * meanStep;
    saving = linkSaving(slowSeconds, *link, *wait);
  }
  setWhatIf(out, excess, saving, 0);
  return out;
}

}  // namespace

std::vector<RowAttribution> attributeDdp(const Report& report, const value& results,
                                         const Local& local,
                                         const std::optional<LinkFinding>& link) {
  std::vector<RowAttribution> rows;
  const double measured = measuredSeconds(report, results);
  const value* models = member(results, "models");
  if (models == nullptr || !models->is_array()) return rows;
  for (const value& model : models->as_array()) {
    const value* modelRows = member(model, "rows");
    if (modelRows == nullptr || !modelRows->is_array()) continue;
    for (const value& row : modelRows->as_array()) {
      const std::optional<double> index = numberAt(row, "series");
      if (!index || *index < 0 || *index >= static_cast<double>(report.series.size())) continue;
      rows.push_back(attributeRow(report, report.series[static_cast<size_t>(*index)], row, local,
                                  link, measured));
    }
  }
  return rows;
}

}  // namespace distbench::report::attribution_detail
