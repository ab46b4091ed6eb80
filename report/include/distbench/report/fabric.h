// What the Fabric kind measures (spec.benchmark.fabric): per node a compute
// probe, per pair of nodes point-to-point transfers in both directions, and
// the whole group's ring allreduce. Raw samples, so that the verdict
// (fabric_verdict.h) can be computed again by any reader (another baseline,
// another threshold) and the planner (fabric_plan.h) can be simulated on
// made-up measurements. Carried in a report's resultsJson as its "fabric"
// member (docs/report-schema.md). No LibTorch and no cpprest here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::report {

// One measured node: in the cluster a Kubernetes node holding one rank;
// locally a rank in its own network namespace.
struct FabricNode {
  int rank = 0;       // global rank of the process that measured it
  std::string name;   // its rank label: "trainer3"
  std::string node;   // the Kubernetes node name; "" in a local run
  // What the node shares its uplink with (a leaf switch, a rack), so that
  // the planner can look for a bad link between groups; "" where unknown,
  // and then each node is its own group.
  std::string group;
};

// The transfers of one size between nodes a and b: seconds per message,
// each direction, in the order measured (warm-up excluded).
struct FabricPairSamples {
  int a = 0;  // index into FabricMeasurements::nodes, a < b
  int b = 0;
  int64_t bytes = 0;
  std::vector<double> aToB;
  std::vector<double> bToA;
  int round = 0;  // the round (0-based) of disjoint pairs that measured it
};

struct FabricMeasurements {
  std::vector<FabricNode> nodes;
  // Floating-point operations of one probe sample (2 n^3 for an n x n GEMM).
  double probeFlop = 0;
  std::string probeDevice = "cpu";  // cpu | cuda
  // Per node (same index as `nodes`), seconds per probe sample.
  std::vector<std::vector<double>> probeSeconds;
  // Every measured pair and size; a pair appears once per size.
  std::vector<FabricPairSamples> pairs;
  // The whole group's ring allreduce, seconds per iteration as the slowest
  // rank saw it; empty where it did not run.
  int64_t allreduceBytes = 0;
  std::vector<double> allreduceSeconds;
};

// The "fabric" member of resultsJson, as JSON text (an object).
std::string fabricToJson(const FabricMeasurements& m);
// Reads what fabricToJson writes, from a report's whole resultsJson (the
// object holding "fabric"). Throws ReportError naming `source` and the
// field ("results.fabric.pairs[3].aToB: must be a list of numbers"), and
// for indices out of range, a == b, samples that are not positive and
// finite, or a pair and size given twice.
FabricMeasurements parseFabric(const std::string& resultsJson,
                               const std::string& source = "<string>");

}  // namespace distbench::report
