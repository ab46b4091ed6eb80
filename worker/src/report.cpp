#include "report.h"

#include <cpprest/json.h>

#include <fstream>
#include <stdexcept>

#include "distbench/api/spec_yaml.h"
#include "distbench/report/percentiles.h"

namespace distbench::worker {
namespace {

using web::json::value;

value summaryJson(const std::vector<double>& seconds, double examplesPerEpoch) {
  const report::Summary s = report::summarize(seconds);
  value v = value::object();
  v["count"] = value::number(static_cast<uint64_t>(s.count));
  v["p50"] = value::number(s.p50);
  v["p75"] = value::number(s.p75);
  v["p90"] = value::number(s.p90);
  v["p95"] = value::number(s.p95);
  v["p99"] = value::number(s.p99);
  v["min"] = value::number(s.min);
  v["max"] = value::number(s.max);
  v["mean"] = value::number(s.mean);
  v["stdev"] = value::number(s.stdev);
  value rate = value::object();
  rate["p50"] = value::number(examplesPerEpoch / s.p50);
  rate["p75"] = value::number(examplesPerEpoch / s.p75);
  rate["p90"] = value::number(examplesPerEpoch / s.p90);
  rate["p95"] = value::number(examplesPerEpoch / s.p95);
  v["examplesPerSecond"] = rate;
  return v;
}

value numbers(const std::vector<double>& xs) {
  value arr = value::array(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) arr[i] = value::number(xs[i]);
  return arr;
}

}  // namespace

std::string buildReportJson(const ReportInput& in) {
  const api::DistBenchmark& b = *in.benchmark;
  value root = value::object();
  root["schemaVersion"] = value::number(kReportSchemaVersion);

  value bench = value::object();
  bench["name"] = value::string(b.metadata.name);
  bench["kind"] = value::string(api::toString(b.spec.benchmark.kind));
  root["benchmark"] = bench;

  value versions = value::object();
  versions["distbench"] = value::string(DISTBENCH_VERSION);
  versions["torch"] = value::string(in.torchVersion);
  root["versions"] = versions;
  root["backend"] = value::string(api::toString(b.spec.runtime.backend));
  root["device"] = value::string(api::toString(b.spec.runtime.device));

  value host = value::object();
  host["hostname"] = value::string(in.host.hostname);
  host["cpuModel"] = value::string(in.host.cpuModel);
  host["logicalCpus"] = value::number(in.host.logicalCpus);
  root["host"] = host;

  value topology = value::object();
  topology["trainers"] = value::number(b.spec.topology.trainers);
  topology["parameterServers"] = value::number(b.spec.topology.parameterServers);
  topology["worldSize"] = value::number(api::worldSize(b.spec));
  root["topology"] = topology;
  root["seed"] = value::number(static_cast<int64_t>(b.spec.benchmark.seed));
  root["config"] = value::parse(api::toJson(b));

  value results = value::object();
  results["unit"] = value::string("seconds/epoch");
  value trainers = value::array(in.trainers.size());
  std::vector<double> pooled;
  double examples = 0;
  for (size_t i = 0; i < in.trainers.size(); ++i) {
    const TrainerResult& t = in.trainers[i];
    value tj = value::object();
    tj["name"] = value::string(t.name);
    tj["rank"] = value::number(t.rank);
    tj["examplesPerEpoch"] = value::number(t.examplesPerEpoch);
    tj["epochSeconds"] = numbers(t.epochSeconds);
    tj["summary"] = summaryJson(t.epochSeconds, t.examplesPerEpoch);
    trainers[i] = tj;
    pooled.insert(pooled.end(), t.epochSeconds.begin(), t.epochSeconds.end());
    examples += t.examplesPerEpoch;
  }
  results["trainers"] = trainers;
  value all = value::object();
  all["name"] = value::string("All");
  all["examplesPerEpoch"] = value::number(examples);
  all["summary"] = summaryJson(pooled, examples);
  results["all"] = all;
  root["results"] = results;
  return root.serialize();
}

void writeReport(const std::string& path, const ReportInput& input) {
  const std::string json = buildReportJson(input);
  std::ofstream out(path, std::ios::trunc);
  out << json << "\n";
  if (!out) throw std::runtime_error("cannot write report " + path);
}

}  // namespace distbench::worker
