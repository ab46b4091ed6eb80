// HybridDDPRPC: one attribution per trainer (bound and shares) and one for
// `All`, which carries the run's straggler, link and what-if. Exposed
// communication is lookup + push + allreduceWait: a trainer computes nothing
// while it waits for the parameter servers. Phases are seconds per batch
// and the series are per epoch, so per-batch figures are scaled by
// batchesPerEpoch to the row's unit.
#include <algorithm>
#include <cstdio>

#include "attribution_rules.h"

namespace distbench::report::attribution_detail {
namespace {

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

// A parameter server the trainers wait for: its service time per step (one
// lookup, one pushGrad, one step request from each trainer) above
// kStragglerFactor × the others' median. Excess per batch.
std::optional<Straggler> slowParameterServer(const Report& report, const value& results,
                                             const Local& local) {
  const value* servers = member(results, "parameterServers");
  if (servers == nullptr || !servers->is_array() || servers->size() < 2) return std::nullopt;
  std::vector<std::pair<int, double>> service;
  for (const value& ps : servers->as_array()) {
    const value* s = member(ps, "service");
    const std::optional<double> rank = numberAt(ps, "rank");
    if (s == nullptr || !rank) return std::nullopt;
    double sum = 0;
    for (const char* op : {"lookup", "pushGrad", "step"}) {
      const value* summary = member(*s, op);
      sum += summary ? numberAt(*summary, "mean").value_or(0) : 0;
    }
    service.emplace_back(static_cast<int>(*rank), sum);
  }
  auto slowest = std::max_element(service.begin(), service.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
  std::vector<double> others;
  for (const auto& entry : service)
    if (&entry != &*slowest) others.push_back(entry.second);
  const double othersMedian = median(others);
  if (!(slowest->second > kStragglerFactor * othersMedian)) return std::nullopt;
  char text[160];
  std::snprintf(text, sizeof text,
                "service time per step %.2fx the other parameter servers' median",
                othersMedian > 0 ? slowest->second / othersMedian : 0.0);
  return Straggler{slowest->first, rankName(report, local, slowest->first),
                   slowest->second - othersMedian, text};
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
  } else if (auto ps = slowParameterServer(report, results, local)) {
    excess = ps->excessSeconds;
    ps->excessSeconds *= batches;
    out.straggler = ps;
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
    out.straggler.reset();
    excess = 0;
  }
  setWhatIf(out, excess * batches, saving * batches, 0);
  rows.push_back(std::move(out));
  return rows;
}

}  // namespace distbench::report::attribution_detail
