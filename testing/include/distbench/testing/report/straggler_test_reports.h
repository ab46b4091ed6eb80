// Synthetic reports with per-step samples for the straggler tests
// (report/tests/straggler_test.cpp): DDP perRank[].phaseSamples, hybrid
// trainers[].phaseSamples and parameterServers[].serviceSamples, as the
// worker writes them. Each rank's samples are its median times a lognormal
// noise drawn from a fixed seed, so a table of cases shows the one figure
// each varies (the noise, a rank's slowdown, a server's load) and every run
// of the tests sees the same samples.
#pragma once

#include <cpprest/json.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "distbench/report/report.h"
#include "distbench/report/report_json.h"

namespace distbench::report::testing {

// One rank's own work per step (seconds, the median), the wait it adds to
// it, and the relative noise of the own work (the sd of its log).
struct SampledRank {
  double own = 0.1;
  double wait = 0.02;
  double noise = 0.1;
};

// `n` draws of `median` × exp(noise × N(0, 1)), or `fixed` where given.
inline std::vector<double> noisySamples(double median, double noise, int n, std::mt19937_64& rng,
                                        const std::vector<double>& fixed = {}) {
  if (!fixed.empty()) return fixed;
  std::normal_distribution<double> normal(0, 1);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(median * std::exp(noise * normal(rng)));
  return out;
}

inline web::json::value jsonArray(const std::vector<double>& values) {
  web::json::value out = web::json::value::array(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = web::json::value::number(values[i]);
  return out;
}

inline std::vector<double> scaled(const std::vector<double>& values, double factor) {
  std::vector<double> out;
  for (double v : values) out.push_back(v * factor);
  return out;
}

// A DDP sweep's one row of every rank (global ranks 1..n), `iterations`
// samples each; `ownOverride[i]`, where not empty, is rank i's own work
// exactly (for a case that must straddle).
inline Report ddpSampledReport(const std::vector<SampledRank>& ranks, int iterations = 40,
                               uint64_t seed = 7,
                               const std::vector<std::vector<double>>& ownOverride = {}) {
  using web::json::value;
  std::mt19937_64 rng(seed);
  const int n = static_cast<int>(ranks.size());
  Report r;
  r.name = "straggler";
  r.kind = "DDP";
  r.backend = "gloo";
  r.device = "cpu";
  r.trainers = n;
  r.worldSize = n + 1;
  std::vector<double> pooled;
  value perRank = value::array();
  for (int i = 0; i < n; ++i) {
    const SampledRank& t = ranks[i];
    const std::vector<double> own = noisySamples(
        t.own, t.noise, iterations, rng,
        i < static_cast<int>(ownOverride.size()) ? ownOverride[i] : std::vector<double>{});
    std::vector<double> iteration, wait(own.size(), t.wait);
    for (double o : own) iteration.push_back(o + t.wait);
    pooled.insert(pooled.end(), iteration.begin(), iteration.end());
    value phases = value::object(true), samples = value::object(true);
    const std::pair<const char*, std::vector<double>> split[] = {
        {"iteration", iteration},
        {"forward", scaled(own, 0.3)},
        {"backward", scaled(own, 0.6)},
        {"allreduceWait", wait},
        {"optimizerStep", scaled(own, 0.1)}};
    for (const auto& [name, values] : split) {
      phases[name] = value::parse(summaryToJson(values));
      samples[name] = jsonArray(values);
    }
    value entry = value::object(true);
    entry["rank"] = value::number(i + 1);
    entry["phases"] = phases;
    entry["phaseSamples"] = samples;
    perRank[i] = entry;
  }
  Series s;
  s.group = "smallcnn with batch size 4";
  s.row = "1M/" + std::to_string(n) + "R";
  s.ranks = n;
  s.sampleOf = "iteration";
  s.workPerSample = 4;
  s.samples = pooled;
  r.series.push_back(s);
  value row = value::object(true);
  row["row"] = value::string(s.row);
  row["ranks"] = value::number(n);
  row["ddp"] = value::boolean(true);
  row["series"] = value::number(0);
  value phases = value::object(true);
  for (const char* phase : {"forward", "backward", "allreduceWait", "optimizerStep"}) {
    phases[phase] = perRank[0].at("phases").at(phase);
  }
  row["phases"] = phases;
  row["perRank"] = perRank;
  value model = value::object(true);
  model["model"] = value::string("smallcnn");
  model["rows"] = value::array({row});
  value results = value::object(true);
  results["models"] = value::array({model});
  r.resultsJson = results.serialize();
  return r;
}

// A hybrid trainer's own work per batch, split over its phases in fixed
// shares; `lookupExtra` adds to its lookup alone (a trainer slowed in one
// phase only).
struct SampledTrainer {
  SampledRank timing;
  double lookupExtra = 0;
};

// A parameter server's per-request service time and its request bytes per step.
struct SampledServer {
  double service = 0.001;
  double noise = 0.1;
  double requestBytes = 20000;
};

// Master 0, parameter servers 1..P, trainers after them; `epochs` samples
// per trainer, batchesPerEpoch batches an epoch, each server a sample per
// step (epochs × batches).
inline Report hybridSampledReport(const std::vector<SampledTrainer>& trainers,
                                  const std::vector<SampledServer>& servers, int epochs = 30,
                                  int batchesPerEpoch = 5, uint64_t seed = 11,
                                  const std::string& mode = "Async") {
  using web::json::value;
  std::mt19937_64 rng(seed);
  Report r;
  r.name = "straggler";
  r.kind = "HybridDDPRPC";
  r.backend = "gloo";
  r.device = "cpu";
  r.trainers = static_cast<int>(trainers.size());
  r.parameterServers = static_cast<int>(servers.size());
  r.worldSize = 1 + r.parameterServers + r.trainers;
  const std::map<std::string, std::string> key = {
      {"batchesPerEpoch", std::to_string(batchesPerEpoch)}, {"parameterServerMode", mode}};
  value list = value::array();
  std::vector<double> all;
  for (size_t t = 0; t < trainers.size(); ++t) {
    const SampledTrainer& tr = trainers[t];
    const std::vector<double> own = noisySamples(tr.timing.own, tr.timing.noise, epochs, rng);
    std::vector<double> epochSeconds, lookup, wait(own.size(), tr.timing.wait);
    for (double o : own) {
      lookup.push_back(0.2 * o + tr.lookupExtra);
      epochSeconds.push_back((o + tr.lookupExtra + tr.timing.wait) * batchesPerEpoch);
    }
    all.insert(all.end(), epochSeconds.begin(), epochSeconds.end());
    Series s;
    s.group = "HybridDDPRPC";
    s.groupKey = key;
    s.row = "Trainer" + std::to_string(t);
    s.ranks = 1;
    s.sampleOf = "epoch";
    s.workPerSample = 4;
    s.samples = epochSeconds;
    r.series.push_back(s);
    value phases = value::object(true), samples = value::object(true);
    const std::pair<const char*, std::vector<double>> split[] = {
        {"lookup", lookup},
        {"forward", scaled(own, 0.3)},
        {"backward", scaled(own, 0.3)},
        {"push", scaled(own, 0.1)},
        {"allreduceWait", wait},
        {"optimizerStep", scaled(own, 0.1)}};
    for (const auto& [name, values] : split) {
      phases[name] = value::parse(summaryToJson(values));
      samples[name] = jsonArray(values);
    }
    value entry = value::object(true);
    entry["name"] = value::string(s.row);
    entry["rank"] = value::number(static_cast<int>(1 + servers.size() + t));
    entry["series"] = value::number(static_cast<int>(t));
    entry["phases"] = phases;
    entry["phaseSamples"] = samples;
    list[t] = entry;
  }
  Series pooled;
  pooled.group = "HybridDDPRPC";
  pooled.groupKey = key;
  pooled.row = "All";
  pooled.ranks = r.trainers;
  pooled.sampleOf = "epoch";
  pooled.workPerSample = 4.0 * r.trainers;
  pooled.samples = all;
  r.series.push_back(pooled);
  value serverList = value::array();
  for (size_t p = 0; p < servers.size(); ++p) {
    const SampledServer& ps = servers[p];
    const std::vector<double> service =
        noisySamples(ps.service, ps.noise, epochs * batchesPerEpoch, rng);
    value entry = value::object(true);
    entry["name"] = value::string("PS" + std::to_string(p));
    entry["rank"] = value::number(static_cast<int>(1 + p));
    value perStep = value::object(true);
    perStep["received"] = value::number(ps.requestBytes);
    perStep["sent"] = value::number(ps.requestBytes * 10);
    entry["bytesPerStep"] = perStep;
    value summaries = value::object(true);
    summaries["lookup"] = value::parse(summaryToJson(service));
    summaries["pushGrad"] = value::parse(summaryToJson(service));
    summaries["step"] = value::parse(summaryToJson(service));
    entry["service"] = summaries;
    entry["serviceSamples"] = jsonArray(service);
    serverList[p] = entry;
  }
  value results = value::object(true);
  results["trainers"] = list;
  results["all"]["series"] = value::number(static_cast<int>(trainers.size()));
  results["parameterServers"] = serverList;
  r.resultsJson = results.serialize();
  return r;
}

// One rank's CPU cap and what its cgroup throttled, for `local`.
struct ThrottledRank {
  int rank = 0;
  std::string name;
  double cpuLimit = 0.25;
  double throttledSeconds = 0;
};

// A `local` block of `distbench run --slow`: every rank listed unshaped,
// the given ones capped.
inline std::string throttleLocalJson(const std::vector<ThrottledRank>& capped, int worldSize,
                                     const std::vector<std::string>& names) {
  using web::json::value;
  value ranks = value::array();
  for (int r = 0; r < worldSize; ++r) {
    value entry = value::object(true);
    entry["rank"] = value::number(r);
    entry["name"] = value::string(names[static_cast<size_t>(r)]);
    entry["linkBitsPerSecond"] = value::null();
    entry["cpuLimit"] = value::null();
    entry["throttledSeconds"] = value::null();
    for (const ThrottledRank& c : capped) {
      if (c.rank != r) continue;
      entry["cpuLimit"] = value::number(c.cpuLimit);
      entry["throttledSeconds"] = value::number(c.throttledSeconds);
    }
    ranks[static_cast<size_t>(r)] = entry;
  }
  value local = value::object(true);
  local["links"] = value::string("");
  local["slow"] = value::string("capped");
  local["ranks"] = ranks;
  return local.serialize();
}

}  // namespace distbench::report::testing
