// Made-up Fabric measurements from a known fabric: the verdict's tests and
// the planner's simulator (benchmarks/fabric) measure a world whose slow
// node, link or compute they chose, with noise of a chosen size, and check
// that the verdict names what was chosen and nothing else. Reproducible
// everywhere: every draw comes from std::mt19937_64 (whose output the
// standard fixes) through a Box-Muller transform of our own, not through
// std::normal_distribution, whose output differs between standard libraries.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "distbench/report/fabric.h"
#include "distbench/report/fabric_plan.h"

namespace distbench::report {

struct FabricWorld {
  std::vector<FabricNode> nodes;
  double bandwidth = 1e9;  // bytes/s of a healthy link
  double latency = 20e-6;  // seconds of a healthy link
  double flops = 50e9;     // a healthy node's probe, FLOP/s
  double probeFlop = 2.0 * 256 * 256 * 256;
  std::vector<int64_t> sizes = {8, 1 << 20};
  int samples = 5;  // per direction, per size; and probe samples per node
  // Lognormal sigmas: of each sample, of each link's lasting speed (healthy
  // links differ a little), and of each round (all pairs of a round share
  // the machine: another job slows them all).
  double sampleSigma = 0.1;
  double linkSigma = 0.03;
  double roundSigma = 0.0;
  // What is wrong, as factors on bandwidth (a link's speed is its slower
  // end's) or on FLOP/s; absent: 1.
  std::map<int, double> nodeFactor;
  std::map<std::pair<int, int>, double> pairFactor;  // first < second
  std::map<std::pair<std::string, std::string>, double>
      groupFactor;  // by FabricNode::group, first < second
  std::map<int, double> computeFactor;
  // Ranks on one Kubernetes node (FabricNode::node, not "") talk through
  // its memory or NVLink: this many times a healthy link's bandwidth.
  double sameNodeFactor = 1;
  uint64_t seed = 1;
};

// `n` nodes "trainer<i>" in groups of `groupSize` ("rack<g>"); 0: no groups.
std::vector<FabricNode> fabricNodes(int n, int groupSize = 0);

// A standard normal draw, the same on every platform.
double standardNormal(std::mt19937_64& rng);

// Measures `round` as the index-th round into `m` (every size of
// world.sizes), drawing the noise from `rng`.
void measureRound(const FabricWorld& world, const FabricRound& round, int index,
                  FabricMeasurements& m, std::mt19937_64& rng);

// The nodes and their probes, no pairs yet.
FabricMeasurements startMeasurements(const FabricWorld& world, std::mt19937_64& rng);

// Every pair, in roundRobinRounds order.
FabricMeasurements measureAllPairs(const FabricWorld& world);

}  // namespace distbench::report
