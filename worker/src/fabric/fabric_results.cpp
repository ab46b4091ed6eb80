#include "distbench/worker/fabric/fabric_results.h"

#include <cpprest/json.h>

namespace distbench::worker {
namespace {

std::string nodeLabel(const report::FabricMeasurements& m, int index) {
  return m.nodes.at(static_cast<size_t>(index)).name;
}

}  // namespace

void addFabricResults(report::Report& report, const report::FabricMeasurements& m,
                      const report::FabricVerdict& verdict) {
  const int nodes = static_cast<int>(m.nodes.size());
  const std::string bytes = std::to_string(m.allreduceBytes);
  if (!m.allreduceSeconds.empty()) {
    report::Series s;
    s.group = "allreduce";
    s.groupKey = {{"op", "allreduce"}, {"nodes", std::to_string(nodes)}};
    s.row = bytes;
    s.ranks = nodes;
    s.sampleOf = "op";
    s.workPerSample = static_cast<double>(m.allreduceBytes);
    s.workUnit = "bytes";
    s.samples = m.allreduceSeconds;
    report.series.push_back(std::move(s));
  }
  // The probe's work is FLOP, which a series cannot carry as a unit: one
  // GEMM per sample ("examples"), so its rate is GEMMs per second.
  for (int i = 0; i < nodes; ++i) {
    report::Series s;
    s.group = "compute probe";
    s.groupKey = {{"probeFlop", std::to_string(static_cast<int64_t>(m.probeFlop))},
                  {"device", m.probeDevice}};
    s.row = nodeLabel(m, i);
    s.ranks = 1;
    s.sampleOf = "op";
    s.workPerSample = 1;
    s.workUnit = "examples";
    s.samples = m.probeSeconds.at(static_cast<size_t>(i));
    report.series.push_back(std::move(s));
  }
  for (const report::FabricPairSamples& p : m.pairs) {
    report::Series s;
    s.group = "link " + std::to_string(p.bytes);
    s.groupKey = {{"op", "sendrecv"}, {"bytes", std::to_string(p.bytes)}};
    s.row = nodeLabel(m, p.a) + "-" + nodeLabel(m, p.b);
    s.ranks = 2;
    s.sampleOf = "op";
    s.workPerSample = static_cast<double>(p.bytes);
    s.workUnit = "bytes";
    s.samples = p.aToB;
    s.samples.insert(s.samples.end(), p.bToA.begin(), p.bToA.end());
    report.series.push_back(std::move(s));
  }
  web::json::value results = web::json::value::object();
  results["fabric"] = web::json::value::parse(report::fabricToJson(m));
  results["fabricVerdict"] = web::json::value::parse(report::fabricVerdictToJson(verdict, m));
  report.resultsJson = results.serialize();
}

}  // namespace distbench::worker
