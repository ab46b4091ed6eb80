// HybridDDPRPC: one attribution per trainer (bound and shares) and one for
// `All`, which carries the run's straggler, link and what-if. Exposed
// communication is lookup + push + allreduceWait: a trainer computes nothing
// while it waits for the parameter servers. Phases are seconds per batch
// and the series are per epoch, so per-batch figures are scaled by
// batchesPerEpoch to the row's unit.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attribution_rules.h"
#include "straggler_interval.h"

namespace distbench::report::attribution_detail {
namespace {

constexpr const char* kNoSamplesNote =
    "no per-epoch samples in this report (trainers[].phaseSamples, a worker from before them): "
    "the straggler is judged by medians against a fixed factor, without an interval";

const char* const kPhases[] = {"lookup", "forward",       "backward",
                               "push",   "allreduceWait", "optimizerStep"};

struct TrainerPhases {
  int rank = 0;
  std::map<std::string, double> mean;    // per batch
  std::map<std::string, double> median;  // per batch: the p50 over epochs, for the straggler test
  std::optional<double> bytesPerStep;    // sent + received
  double compute() const {
    return median.at("forward") + median.at("backward") + median.at("optimizerStep");
  }
  double exposed() const { return mean.at("lookup") + mean.at("push") + mean.at("allreduceWait"); }
  double rpc() const { return mean.at("lookup") + mean.at("push"); }
  // A trainer's own part of a step, all but waiting for its peers in the
  // dense allreduce. Its RPCs count: a trainer starved of CPU is slow in
  // them as much as in its (small) dense compute, and its peers wait for it
  // all the same (measured: a trainer capped at 20 % of a CPU added more to
  // its push than to its backward).
  double ownWork() const { return compute() + median.at("lookup") + median.at("push"); }
};

std::optional<TrainerPhases> phasesOf(const value& trainer) {
  const value* phases = member(trainer, "phases");
  const std::optional<double> rank = numberAt(trainer, "rank");
  if (phases == nullptr || !rank) return std::nullopt;
  TrainerPhases t;
  t.rank = static_cast<int>(*rank);
  for (const char* phase : kPhases) {
    const std::optional<double> m = phaseMean(*phases, phase);
    if (!m) return std::nullopt;
    t.mean[phase] = *m;
    t.median[phase] = phaseMedian(*phases, phase).value_or(*m);
  }
  if (const value* bytes = member(trainer, "bytesPerStep")) {
    t.bytesPerStep =
        numberAt(*bytes, "sent").value_or(0) + numberAt(*bytes, "received").value_or(0);
  }
  return t;
}

// A server's two replies per training step: its lookup's and its step's.
constexpr double kRepliesPerStep = 2;
// A parameter server serving this much more than the others' median does
// more work by design (its shard is larger, or its rows hotter).
constexpr double kByDesignLoad = 1.2;

const Series* seriesAt(const Report& report, const value& object);
double batchesPerEpoch(const Series& s);

// One number per measured epoch of `phase` in a trainer's phaseSamples; empty
// where it has none.
std::vector<double> phaseSamplesOf(const value& trainer, const char* phase) {
  std::vector<double> out;
  const value* samples = member(trainer, "phaseSamples");
  const value* list = samples ? member(*samples, phase) : nullptr;
  if (list == nullptr || !list->is_array()) return out;
  for (const value& x : list->as_array()) out.push_back(x.is_number() ? x.as_double() : NAN);
  return out;
}

// Per measured epoch, each trainer's own work per batch: the batch less what
// it waited for the others. In async mode that is its allreduceWait alone
// (the servers serve each trainer as it comes); in sync mode a trainer also
// waits in its lookup and its step for the others' (parameter_server.cpp),
// so its lookup and push are left out too. Every phase counts otherwise: a
// trainer slowed in its compute, its RPCs or between phases is slower in
// this. Absent where a trainer has no phaseSamples (a report from before them).
std::optional<std::vector<RankSamples>> trainerOwnWork(const Report& report, const value& results,
                                                       bool sync) {
  const value* list = member(results, "trainers");
  if (list == nullptr || !list->is_array()) return std::nullopt;
  std::vector<RankSamples> out;
  for (const value& trainer : list->as_array()) {
    const Series* s = seriesAt(report, trainer);
    const std::optional<double> rank = numberAt(trainer, "rank");
    if (s == nullptr || !rank || member(trainer, "phaseSamples") == nullptr) return std::nullopt;
    const double batches = batchesPerEpoch(*s);
    const std::vector<double> wait = phaseSamplesOf(trainer, "allreduceWait");
    const std::vector<double> lookup = phaseSamplesOf(trainer, "lookup");
    const std::vector<double> push = phaseSamplesOf(trainer, "push");
    if (!(batches > 0) || wait.size() != s->samples.size()) return std::nullopt;
    if (sync && (lookup.size() != wait.size() || push.size() != wait.size())) return std::nullopt;
    RankSamples r{static_cast<int>(*rank), {}};
    for (size_t e = 0; e < wait.size(); ++e) {
      const double own = s->samples[e] / batches - wait[e] - (sync ? lookup[e] + push[e] : 0);
      if (std::isfinite(own)) r.samples.push_back(own);
    }
    out.push_back(std::move(r));
  }
  return out;
}

const Series* seriesAt(const Report& report, const value& object) {
  const std::optional<double> index = numberAt(object, "series");
  if (!index || *index < 0 || *index >= static_cast<double>(report.series.size())) return nullptr;
  return &report.series[static_cast<size_t>(*index)];
}

double batchesPerEpoch(const Series& s) {
  auto it = s.groupKey.find("batchesPerEpoch");
  if (it == s.groupKey.end()) return 0;
  try {
    return std::stod(it->second);
  } catch (const std::exception&) {
    return 0;
  }
}

RowAttribution rowOf(const Series& s) {
  RowAttribution out;
  out.group = s.group;
  out.row = s.row;
  out.sampleOf = s.sampleOf;
  out.stepSeconds = p50(s.samples);
  return out;
}

// Shares of the mean batch, bound by the exposed share.
void judge(RowAttribution& out, const std::map<std::string, double>& means, double meanBatch) {
  double sum = 0;
  for (const auto& [phase, seconds] : means) {
    out.shares[phase] = seconds / meanBatch;
    sum += seconds / meanBatch;
  }
  out.shares["other"] = std::max(0.0, 1 - sum);
  out.exposedShare =
      (means.at("lookup") + means.at("push") + means.at("allreduceWait")) / meanBatch;
  out.bound = boundOf(*out.exposedShare);
}

// A parameter server's load per step: the bytes its requests bring in,
// which the lookups' indices are most of. Absent where the report has none.
std::optional<double> loadOf(const value& ps) {
  const value* bytes = member(ps, "bytesPerStep");
  const std::optional<double> received = bytes ? numberAt(*bytes, "received") : std::nullopt;
  if (!received || !(*received > 0)) return std::nullopt;
  return received;
}

// The parameter servers compared among themselves. First their load: one
// that serves more than kByDesignLoad × the others' median per step is
// doing more work by design, which the report says rather than calling it
// a straggler. Then their per-request service time (serviceSamples, sync
// mode's waits for the trainers left out by the server): the interval test.
// A trainer waits on two replies per step from every server (its lookup's
// and its step's, which answers for the push too), so a server's excess per
// request costs it about twice that per batch; the excess must reach
// kStragglerMinStepShare of the batch through those two.
struct ServerVerdict {
  StragglerCheck check;
  std::optional<Straggler> straggler;  // excess per batch
};

std::optional<ServerVerdict> compareParameterServers(const Report& report, const value& results,
                                                     const Local& local, double meanBatch) {
  const value* servers = member(results, "parameterServers");
  if (servers == nullptr || !servers->is_array() || servers->size() < 2) return std::nullopt;
  ServerVerdict out;
  std::vector<std::pair<int, double>> loads;
  std::vector<RankSamples> service;
  bool samples = true;
  for (const value& ps : servers->as_array()) {
    const std::optional<double> rank = numberAt(ps, "rank");
    if (!rank) return std::nullopt;
    if (const std::optional<double> load = loadOf(ps)) loads.emplace_back(*rank, *load);
    const value* list = member(ps, "serviceSamples");
    if (list == nullptr || !list->is_array()) {
      samples = false;
      continue;
    }
    RankSamples r{static_cast<int>(*rank), {}};
    for (const value& x : list->as_array())
      if (x.is_number()) r.samples.push_back(x.as_double());
    service.push_back(std::move(r));
  }
  if (loads.size() == servers->size()) {
    auto heaviest = std::max_element(loads.begin(), loads.end(), [](const auto& a, const auto& b) {
      return a.second < b.second;
    });
    std::vector<double> others;
    for (const auto& l : loads)
      if (&l != &*heaviest) others.push_back(l.second);
    const double othersMedian = median(others);
    if (othersMedian > 0 && heaviest->second >= kByDesignLoad * othersMedian) {
      char text[200];
      std::snprintf(text, sizeof text,
                    " serves %.2fx the others' lookups by design (%.0f vs %.0f request bytes per "
                    "step): more work, not a straggler; not compared",
                    heaviest->second / othersMedian, heaviest->second, othersMedian);
      out.check = {"byDesign", rankName(report, local, heaviest->first) + text, "", ""};
      return out;
    }
  }
  if (!samples) {
    out.check = {"none",
                 "no per-step service samples in this report (parameterServers[].serviceSamples, "
                 "a worker from before them): parameter servers not compared",
                 "", ""};
    return out;
  }
  const StragglerInterval t =
      testStraggler(service, kStragglerMinStepShare * meanBatch / kRepliesPerStep);
  const std::string name = rankName(report, local, t.rank);
  const std::string evidence = intervalEvidence(t, "service time", "request");
  out.check = {verdictName(t.verdict), name + ": " + evidence, "", ""};
  if (t.verdict == StragglerInterval::Verdict::Named) {
    out.straggler = Straggler{t.rank, name, t.excess * kRepliesPerStep, evidence};
  }
  return out;
}

// Without link counters: a trainer whose lookup + push take longer per byte
// than the others' points at its own link (a slow parameter server would
// slow every trainer alike).
std::optional<std::pair<SlowLink, double>> slowTrainerLink(
    const Report& report, const std::vector<TrainerPhases>& trainers, const Local& local,
    double meanBatch) {
  std::vector<const TrainerPhases*> measured;
  for (const TrainerPhases& t : trainers)
    if (t.bytesPerStep && *t.bytesPerStep > 0 && t.rpc() > 0) measured.push_back(&t);
  if (measured.size() < 2) return std::nullopt;
  auto perByte = [](const TrainerPhases* t) { return t->rpc() / *t->bytesPerStep; };
  const TrainerPhases* slowest = *std::max_element(
      measured.begin(), measured.end(), [&](auto* a, auto* b) { return perByte(a) < perByte(b); });
  std::vector<double> others, otherRates;
  for (const TrainerPhases* t : measured) {
    if (t == slowest) continue;
    others.push_back(perByte(t));
    otherRates.push_back(*t->bytesPerStep * 8 / t->rpc());
  }
  const double ratio = perByte(slowest) / median(others);
  if (ratio < kTimedLinkDominance || slowest->rpc() < kLinkRunShare * meanBatch)
    return std::nullopt;
  char text[200];
  std::snprintf(text, sizeof text,
                "lookup + push per byte %.1fx the other trainers' median (no link counters: "
                "rates estimated from the trainers' timings)",
                ratio);
  SlowLink link{slowest->rank, rankName(report, local, slowest->rank),
                *slowest->bytesPerStep * 8 / slowest->rpc(), median(otherRates), text};
  const double saving = std::min(slowest->rpc() - slowest->rpc() / ratio, slowest->exposed());
  return std::make_pair(link, std::max(0.0, saving));
}

// Per batch: the link's traffic time on its own link, from the byte counts
// where the report has them, else its share of the run.
double linkSecondsPerBatch(const LinkFinding& link, const value& results, double meanBatch) {
  for (const char* list : {"trainers", "parameterServers"}) {
    const value* entries = member(results, list);
    if (entries == nullptr || !entries->is_array()) continue;
    for (const value& e : entries->as_array()) {
      if (numberAt(e, "rank").value_or(-1) != link.rank) continue;
      const value* bytes = member(e, "bytesPerStep");
      if (bytes == nullptr) continue;
      const double busier =
          std::max(numberAt(*bytes, "sent").value_or(0), numberAt(*bytes, "received").value_or(0));
      if (busier > 0) return busier * 8 / link.bitsPerSecond;
    }
  }
  return link.runShare * meanBatch;
}

}  // namespace

std::vector<RowAttribution> attributeHybrid(const Report& report, const value& results,
                                            const Local& local,
                                            const std::optional<LinkFinding>& link) {
  std::vector<RowAttribution> rows;
  std::vector<TrainerPhases> trainers;
  const value* trainerList = member(results, "trainers");
  if (trainerList != nullptr && trainerList->is_array()) {
    for (const value& trainer : trainerList->as_array()) {
      const Series* s = seriesAt(report, trainer);
      if (s == nullptr) continue;
      RowAttribution out = rowOf(*s);
      const std::optional<TrainerPhases> phases = phasesOf(trainer);
      const double batches = batchesPerEpoch(*s);
      if (phases && batches > 0 && mean(s->samples) > 0) {
        judge(out, phases->mean, mean(s->samples) / batches);
        trainers.push_back(*phases);
      } else {
        out.bound = "unknown";
        out.note = "the report has no phase timings for this trainer";
      }
      rows.push_back(std::move(out));
    }
  }
  const value* all = member(results, "all");
  const Series* allSeries = all ? seriesAt(report, *all) : nullptr;
  if (allSeries == nullptr) return rows;
  RowAttribution out = rowOf(*allSeries);
  const double batches = batchesPerEpoch(*allSeries);
  const double meanBatch = batches > 0 ? mean(allSeries->samples) / batches : 0;
  if (trainers.empty() || !(meanBatch > 0)) {
    out.bound = "unknown";
    out.note = "the report has no phase timings for the trainers";
    rows.push_back(std::move(out));
    return rows;
  }
  // The trainers' mean phases: side by side they share one step.
  std::map<std::string, double> means;
  for (const TrainerPhases& t : trainers)
    for (const auto& [phase, seconds] : t.mean) means[phase] += seconds / trainers.size();
  judge(out, means, meanBatch);
  const double exposed = means["lookup"] + means["push"] + means["allreduceWait"];

  double excess = 0;  // per batch
  const auto mode = allSeries->groupKey.find("parameterServerMode");
  const bool sync = mode != allSeries->groupKey.end() && mode->second == "Sync";  // api::toString
  std::string evidence;
  std::string verdict = "none";
  bool stalled = false;  // a significant trainer excess that matters, named or not
  if (const auto own = trainerOwnWork(report, results, sync)) {
    const StragglerInterval t = testStraggler(*own, kStragglerMinStepShare * meanBatch);
    const std::string name = rankName(report, local, t.rank);
    const std::string what = sync ? "own work (batch less lookup, push and allreduceWait)"
                                  : "own work (batch less allreduceWait)";
    const std::string text = intervalEvidence(t, what, "batch") + cpuCapText(t.rank, local);
    evidence = "trainers: " + name + ": " + text;
    verdict = verdictName(t.verdict);
    stalled = t.significant && t.excess >= t.minExcess;
    if (t.verdict == StragglerInterval::Verdict::Named) {
      out.straggler = Straggler{t.rank, name, t.excess * batches, text};
      excess = t.excess;
    }
  } else {
    std::vector<RankCompute> compute;
    for (const TrainerPhases& t : trainers) {
      compute.push_back({t.rank, t.ownWork(), t.median.at("allreduceWait")});
    }
    if (auto found =
            findStraggler(compute, meanBatch, stragglerFactor(report), kHybridStragglerMinShare)) {
      out.straggler =
          Straggler{found->rank, rankName(report, local, found->rank), found->excess * batches,
                    stragglerEvidence(*found, local, "batch", "compute + lookup + push")};
      excess = found->excess;
      verdict = "named";
      stalled = true;
    }
    evidence = "trainers: " + std::string(kNoSamplesNote);
    out.note = kNoSamplesNote;
  }
  if (const auto servers = compareParameterServers(report, results, local, meanBatch)) {
    evidence += "; parameter servers: " + servers->check.evidence;
    // A named trainer is what the others wait for; a server is named only
    // where no trainer is, and a server's load by design is said either way.
    if (!out.straggler && servers->straggler) {
      out.straggler = servers->straggler;
      excess = servers->straggler->excessSeconds;
      out.straggler->excessSeconds *= batches;
      verdict = "named";
    } else if (verdict != "named" && servers->check.verdict != "none" &&
               (servers->check.verdict == "byDesign" || verdict == "none")) {
      verdict = servers->check.verdict;
    }
  }
  out.stragglerCheck = StragglerCheck{verdict, evidence, "", ""};
  {
    std::vector<int> ranks;
    for (const TrainerPhases& t : trainers) ranks.push_back(t.rank);
    if (const value* servers = member(results, "parameterServers");
        servers && servers->is_array()) {
      for (const value& ps : servers->as_array())
        if (const auto rank = numberAt(ps, "rank")) ranks.push_back(static_cast<int>(*rank));
    }
    applyThrottleCounters(out, report, local, ranks, measuredSeconds(report, results), stalled,
                          excess);
  }

  double saving = 0;  // per batch
  if (link) {
    out.link = toSlowLink(*link);
    saving = linkSaving(linkSecondsPerBatch(*link, results, meanBatch), *link, exposed);
  } else if (!local.present) {
    if (auto found = slowTrainerLink(report, trainers, local, meanBatch)) {
      out.link = found->first;
      saving = found->second;
    }
  }
  // A trainer on a slow link is slow in its own RPCs too: the link explains
  // it, and counting both would take its time off twice.
  if (out.straggler && out.link && out.straggler->rank == out.link->rank) {
    out.stragglerCheck->verdict = "none";
    out.stragglerCheck->evidence +=
        "; " + out.straggler->name + " is on the slow link, which explains it";
    out.straggler.reset();
    excess = 0;
  }
  setWhatIf(out, excess * batches, saving * batches, 0);
  rows.push_back(std::move(out));
  return rows;
}

}  // namespace distbench::report::attribution_detail
