// Synthetic reports for the attribution tests (report/tests, cli/tests), in
// the shape /work's issue-22 contract gives the worker's and `distbench
// run`'s additions: DDP rows with perRank and gradientBytes, hybrid trainers
// with bytesPerStep, and the `local` block with each rank's link and
// counters. Built in code so each test shows the one figure it varies.
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>
#include <vector>

#include "distbench/report/report.h"
#include "distbench/report/report_json.h"

namespace distbench::report::testing {

inline constexpr int kAttributionSamples = 10;

// `n` copies of `x`: a phase whose mean is exactly `x`.
inline web::json::value constantSummary(double x, int n = kAttributionSamples) {
  return web::json::value::parse(summaryToJson(std::vector<double>(n, x)));
}

// A phase split of `compute` seconds as a CPU ResNet's step splits it.
inline web::json::value ddpPhases(double compute, double wait, int n = kAttributionSamples) {
  web::json::value p = web::json::value::object(true);
  p["forward"] = constantSummary(0.3 * compute, n);
  p["backward"] = constantSummary(0.6 * compute, n);
  p["allreduceWait"] = constantSummary(wait, n);
  p["optimizerStep"] = constantSummary(0.1 * compute, n);
  return p;
}

// One DDP rank's means per iteration. Its iteration is compute + wait.
struct RankTiming {
  int rank = 1;
  double compute = 0.1;
  double wait = 0.01;
};

inline Series attributionSeries(const std::string& group, const std::string& row, int ranks,
                                std::vector<double> samples, const std::string& sampleOf) {
  Series s;
  s.group = group;
  s.row = row;
  s.ranks = ranks;
  s.sampleOf = sampleOf;
  s.workPerSample = 4;
  s.samples = std::move(samples);
  return s;
}

// A DDP sweep of one model: "no ddp" (trainer 0 alone, `ranks[0]`'s
// compute, no wait) and one row of every rank in `ranks`. `perRank` false:
// a report from before rows[].perRank; `gradientBytes` 0: without it.
inline Report ddpAttributionReport(const std::vector<RankTiming>& ranks, bool perRank = true,
                                   double gradientBytes = 0) {
  using web::json::value;
  const std::string group = "smallcnn with batch size 4";
  const int n = static_cast<int>(ranks.size());
  Report r;
  r.name = "attribution";
  r.kind = "DDP";
  r.backend = "gloo";
  r.device = "cpu";
  r.trainers = n;
  r.worldSize = n + 1;
  r.series.push_back(attributionSeries(
      group, "no ddp", 1, std::vector<double>(kAttributionSamples, ranks[0].compute), "iteration"));
  std::vector<double> pooled;
  value perRankJson = value::array();
  std::vector<double> fwd, bwd, wait, opt;
  for (const RankTiming& t : ranks) {
    for (int i = 0; i < kAttributionSamples; ++i) {
      pooled.push_back(t.compute + t.wait);
      fwd.push_back(0.3 * t.compute);
      bwd.push_back(0.6 * t.compute);
      wait.push_back(t.wait);
      opt.push_back(0.1 * t.compute);
    }
    value entry = value::object(true);
    entry["rank"] = value::number(t.rank);
    value phases = ddpPhases(t.compute, t.wait);
    phases["iteration"] = constantSummary(t.compute + t.wait);
    entry["phases"] = phases;
    perRankJson[perRankJson.size()] = entry;
  }
  const std::string label = "1M/" + std::to_string(n) + "R";
  r.series.push_back(attributionSeries(group, label, n, pooled, "iteration"));

  value noDdp = value::object(true);
  noDdp["row"] = value::string("no ddp");
  noDdp["ranks"] = value::number(1);
  noDdp["ddp"] = value::boolean(false);
  noDdp["series"] = value::number(0);
  noDdp["phases"] = ddpPhases(ranks[0].compute, 0);
  value all = value::object(true);
  all["row"] = value::string(label);
  all["ranks"] = value::number(n);
  all["ddp"] = value::boolean(true);
  all["series"] = value::number(1);
  value phases = value::object(true);
  phases["forward"] = value::parse(summaryToJson(fwd));
  phases["backward"] = value::parse(summaryToJson(bwd));
  phases["allreduceWait"] = value::parse(summaryToJson(wait));
  phases["optimizerStep"] = value::parse(summaryToJson(opt));
  all["phases"] = phases;
  if (perRank) all["perRank"] = perRankJson;
  if (gradientBytes > 0) all["gradientBytes"] = value::number(gradientBytes);
  value model = value::object(true);
  model["model"] = value::string("smallcnn");
  model["rows"] = value::array({noDdp, all});
  value results = value::object(true);
  results["models"] = value::array({model});
  r.resultsJson = results.serialize();
  return r;
}

// One rank of `local.ranks`: its link (nullopt: unshaped) and the bytes its
// busier direction moved over the whole run.
struct LocalRankLink {
  LocalRankLink(int rank, std::string name, std::optional<double> bitsPerSecond, double bytes,
                std::optional<double> cpuLimit = std::nullopt)
      : rank(rank),
        name(std::move(name)),
        bitsPerSecond(bitsPerSecond),
        bytes(bytes),
        cpuLimit(cpuLimit) {}
  int rank = 0;
  std::string name;
  std::optional<double> bitsPerSecond;
  double bytes = 0;
  std::optional<double> cpuLimit;
};

inline std::string localJson(const std::vector<LocalRankLink>& ranks, const std::string& links,
                             const std::string& slow = "") {
  using web::json::value;
  value local = value::object(true);
  local["links"] = value::string(links);
  local["slow"] = value::string(slow);
  local["latencyEmulated"] = value::boolean(false);
  value list = value::array();
  for (const LocalRankLink& l : ranks) {
    value r = value::object(true);
    r["rank"] = value::number(l.rank);
    r["name"] = value::string(l.name);
    r["address"] = value::string("198.18.0." + std::to_string(16 + l.rank));
    r["linkBitsPerSecond"] = l.bitsPerSecond ? value::number(*l.bitsPerSecond) : value::null();
    r["cpuLimit"] = l.cpuLimit ? value::number(*l.cpuLimit) : value::null();
    r["cpuSeconds"] = value::null();
    r["throttledSeconds"] = l.cpuLimit ? value::number(1.5) : value::null();
    for (const char* direction : {"egress", "ingress"}) {
      if (!l.bitsPerSecond) {
        r[direction] = value::null();
        continue;
      }
      value counters = value::object(true);
      counters["bytes"] = value::number(l.bytes);
      counters["packets"] = value::number(l.bytes / 1500);
      counters["overlimits"] = value::number(0);
      counters["drops"] = value::number(0);
      r[direction] = counters;
    }
    list[list.size()] = r;
  }
  local["ranks"] = list;
  return local.serialize();
}

// One hybrid trainer's mean seconds per batch in each phase.
struct TrainerTiming {
  double lookup = 0.002, forward = 0.01, backward = 0.02, push = 0.003, allreduceWait = 0.005,
         optimizerStep = 0.001;
  double bytesPerStep = 0;  // sent + received, split evenly; 0: not in the report
  double batch() const {
    return lookup + forward + backward + push + allreduceWait + optimizerStep;
  }
};

// Master rank 0, parameter servers 1..P, trainers after them.
inline Report hybridAttributionReport(const std::vector<TrainerTiming>& trainers,
                                      int parameterServers = 1, int batchesPerEpoch = 10) {
  using web::json::value;
  Report r;
  r.name = "attribution";
  r.kind = "HybridDDPRPC";
  r.backend = "gloo";
  r.device = "cpu";
  r.trainers = static_cast<int>(trainers.size());
  r.parameterServers = parameterServers;
  r.worldSize = 1 + parameterServers + r.trainers;
  value list = value::array();
  std::vector<double> all;
  for (size_t t = 0; t < trainers.size(); ++t) {
    const TrainerTiming& timing = trainers[t];
    const std::vector<double> epochs(kAttributionSamples, timing.batch() * batchesPerEpoch);
    all.insert(all.end(), epochs.begin(), epochs.end());
    Series s = attributionSeries("HybridDDPRPC", "Trainer" + std::to_string(t), 1, epochs, "epoch");
    s.groupKey = {{"batchesPerEpoch", std::to_string(batchesPerEpoch)}};
    r.series.push_back(s);
    value entry = value::object(true);
    entry["name"] = value::string("Trainer" + std::to_string(t));
    entry["rank"] = value::number(static_cast<int>(1 + parameterServers + t));
    entry["series"] = value::number(static_cast<int>(t));
    value phases = value::object(true);
    phases["lookup"] = constantSummary(timing.lookup);
    phases["forward"] = constantSummary(timing.forward);
    phases["backward"] = constantSummary(timing.backward);
    phases["push"] = constantSummary(timing.push);
    phases["allreduceWait"] = constantSummary(timing.allreduceWait);
    phases["optimizerStep"] = constantSummary(timing.optimizerStep);
    entry["phases"] = phases;
    if (timing.bytesPerStep > 0) {
      entry["bytesPerStep"]["sent"] = value::number(timing.bytesPerStep / 2);
      entry["bytesPerStep"]["received"] = value::number(timing.bytesPerStep / 2);
    }
    list[t] = entry;
  }
  Series pooled = attributionSeries("HybridDDPRPC", "All", r.trainers, all, "epoch");
  pooled.groupKey = {{"batchesPerEpoch", std::to_string(batchesPerEpoch)}};
  r.series.push_back(pooled);
  value results = value::object(true);
  results["trainers"] = list;
  results["all"]["series"] = value::number(static_cast<int>(trainers.size()));
  r.resultsJson = results.serialize();
  return r;
}

// Two sizes of one allreduce between two ranks.
inline Report collectivesAttributionReport() {
  Report r;
  r.name = "attribution";
  r.kind = "Collectives";
  r.backend = "gloo";
  r.device = "cpu";
  r.trainers = 2;
  r.worldSize = 3;
  for (const char* size : {"1024", "1048576"}) {
    Series s = attributionSeries("allreduce float32", size, 2,
                                 std::vector<double>(kAttributionSamples, 0.001), "op");
    s.workUnit = "bytes";
    r.series.push_back(s);
  }
  r.resultsJson =
      R"({"ranks":2,"ops":[{"op":"allreduce","dtype":"float32","bytes":1024,"series":0},)"
      R"({"op":"allreduce","dtype":"float32","bytes":1048576,"series":1}]})";
  return r;
}

}  // namespace distbench::report::testing
