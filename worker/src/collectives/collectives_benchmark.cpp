#include "distbench/worker/collectives/collectives_benchmark.h"

#include <cpprest/json.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "distbench/worker/collectives/collective_plan.h"
#include "distbench/worker/collectives/collective_runner.h"
#include "distbench/worker/collectives/collectives_metrics.h"
#include "distbench/worker/comm/rendezvous.h"
#include "distbench/worker/comm/run_control.h"
#include "distbench/worker/common/progress_reporter.h"

namespace distbench::worker {
namespace {

constexpr const char* kResultsKey = "collectives";

std::vector<CollectiveCase> planOf(const api::DistBenchmark& b) {
  return planCollectives(b.spec.benchmark.collectives, b.spec.topology.trainers);
}

// Ranks mark progress between cases (never between measured ops, which
// a store round trip would disturb); a case is warmupIterations +
// iterations ops, each bounded by the peer timeout.
std::chrono::milliseconds progressWindowOf(const Rendezvous& rendezvous,
                                           const api::DistBenchmark& b) {
  const auto& k = b.spec.benchmark.collectives;
  const int64_t ops = std::max<int64_t>(0, k.warmupIterations) + std::max<int64_t>(0, k.iterations);
  return rendezvous.timeouts().peer * (ops + 2);
}

}  // namespace

void runCollectivesRank(Rendezvous& rendezvous, const api::DistBenchmark& benchmark,
                        CollectivesRankMetrics& metrics, bool progressLines) {
  StoreHeartbeat heartbeat(rendezvous);
  RunControl control(rendezvous, progressWindowOf(rendezvous, benchmark));
  const std::vector<CollectiveCase> plan = planOf(benchmark);
  ProgressReporter progress(progressLines, "cases", static_cast<long>(plan.size()));
  // Called before each case.
  const std::vector<std::vector<double>> perCase = runCollectives(
      plan, benchmark.spec.benchmark.collectives, rendezvous.trainers(), &metrics, [&] {
        control.checkStillOn();
        progress.beginStep();
      });
  progress.finish();
  // Cases back to back; every case has the same number of iterations.
  std::vector<double> flat;
  for (const auto& samples : perCase) flat.insert(flat.end(), samples.begin(), samples.end());
  control.publish(kResultsKey, flat);
  control.finish();
}

std::vector<CollectiveResult> runCollectivesMaster(Rendezvous& rendezvous,
                                                   const api::DistBenchmark& benchmark) {
  const WorkerIdentity& id = rendezvous.identity();
  RunControl control(rendezvous, progressWindowOf(rendezvous, benchmark));
  const std::vector<CollectiveCase> plan = planOf(benchmark);
  const size_t iterations = static_cast<size_t>(benchmark.spec.benchmark.collectives.iterations);
  std::vector<std::vector<std::vector<double>>> perRank;
  for (int t = 0; t < id.numTrainers; ++t) {
    const std::vector<double> flat = control.collect(kResultsKey, t);
    if (flat.size() != plan.size() * iterations) {
      control.abort(
          "master: " + describeRank(0, id.numTrainers, api::trainerRank(id.topology(), t)) +
          " sent " + std::to_string(flat.size()) + " collective timings, expected " +
          std::to_string(plan.size() * iterations));
    }
    std::vector<std::vector<double>> cases;
    for (size_t c = 0; c < plan.size(); ++c) {
      cases.emplace_back(flat.begin() + c * iterations, flat.begin() + (c + 1) * iterations);
    }
    perRank.push_back(std::move(cases));
  }
  control.awaitFinished();
  const api::RuntimeSpec& runtime = benchmark.spec.runtime;
  return combineRanks(plan, perRank, id.numTrainers, [&](api::CollectiveOp op) {
    return implementationOf(op, runtime.backend, runtime.device);
  });
}

void addCollectivesResults(report::Report& report, int ranks,
                           const std::vector<CollectiveResult>& results) {
  using web::json::value;
  value ops = value::array();
  for (size_t i = 0; i < results.size(); ++i) {
    const CollectiveResult& r = results[i];
    const std::string op = api::toString(r.c.op);
    const std::string dtype = api::toString(r.c.dtype);
    report::Series s;
    s.group = op + " " + dtype;
    s.groupKey = {{"op", op}, {"dtype", dtype}};
    s.row = std::to_string(r.c.bytes);
    s.ranks = ranks;
    s.sampleOf = "op";
    s.workPerSample = static_cast<double>(r.c.bytes);
    s.workUnit = "bytes";
    s.samples = r.samples;

    value o = value::object();
    o["op"] = value::string(op);
    o["dtype"] = value::string(dtype);
    o["bytes"] = value::number(r.c.bytes);
    o["elements"] = value::number(r.c.elements);
    o["series"] = value::number(static_cast<int>(report.series.size()));
    o["correct"] = value::boolean(true);  // a wrong result ends the run instead
    value latency = value::object();
    latency["p50"] = value::number(r.p50);
    latency["p95"] = value::number(r.p95);
    latency["min"] = value::number(r.min);
    latency["max"] = value::number(r.max);
    o["latency"] = latency;
    // A median of 0 s (a clock too coarse for the size) has no bandwidth:
    // JSON has no infinity, and a report holding one could not be read back.
    auto finite = [](double x) { return std::isfinite(x) ? value::number(x) : value::null(); };
    o["algbwGBps"] = finite(r.algbwGBps);
    o["busbwFactor"] = value::number(r.busbwFactor);
    o["busbwGBps"] = finite(r.busbwGBps);
    o["implementation"] = value::string(r.implementation);
    ops[i] = o;
    report.series.push_back(std::move(s));
  }
  value results_ = value::object();
  results_["ranks"] = value::number(ranks);
  results_["ops"] = ops;
  report.resultsJson = results_.serialize();
}

}  // namespace distbench::worker
