// Made-up Fabric measurements (fabric_simulate.h).
#include "distbench/report/fabric_simulate.h"

#include <cmath>
#include <string>

namespace distbench::report {
namespace {

double uniform01(std::mt19937_64& rng) {
  return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
}

double lognormal(double sigma, std::mt19937_64& rng) {
  return sigma > 0 ? std::exp(sigma * standardNormal(rng)) : 1.0;
}

// A lasting factor (a link's, a round's) drawn from its own stream, so it
// does not depend on the order things are measured in.
double lasting(uint64_t seed, uint64_t what, uint64_t key, double sigma) {
  std::mt19937_64 rng(seed ^ (what * 0x9E3779B97F4A7C15ULL) ^ (key * 0xBF58476D1CE4E5B9ULL));
  return lognormal(sigma, rng);
}

template <typename Map, typename Key>
double factorOf(const Map& map, const Key& key) {
  const auto it = map.find(key);
  return it == map.end() ? 1.0 : it->second;
}

}  // namespace

std::vector<FabricNode> fabricNodes(int n, int groupSize) {
  std::vector<FabricNode> nodes;
  for (int i = 0; i < n; ++i) {
    const std::string group = groupSize > 0 ? "rack" + std::to_string(i / groupSize) : "";
    nodes.push_back({i, "trainer" + std::to_string(i), "", group});
  }
  return nodes;
}

double standardNormal(std::mt19937_64& rng) {
  const double u = uniform01(rng);
  const double v = uniform01(rng);
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
}

FabricMeasurements startMeasurements(const FabricWorld& world, std::mt19937_64& rng) {
  FabricMeasurements m;
  m.nodes = world.nodes;
  m.probeFlop = world.probeFlop;
  for (int i = 0; i < static_cast<int>(world.nodes.size()); ++i) {
    const double seconds = world.probeFlop / (world.flops * factorOf(world.computeFactor, i));
    std::vector<double> samples;
    for (int s = 0; s < world.samples; ++s) {
      samples.push_back(seconds * lognormal(world.sampleSigma, rng));
    }
    m.probeSeconds.push_back(samples);
  }
  return m;
}

void measureRound(const FabricWorld& world, const FabricRound& round, int index,
                  FabricMeasurements& m, std::mt19937_64& rng) {
  const double roundFactor = lasting(world.seed, 1, static_cast<uint64_t>(index), world.roundSigma);
  for (const auto& [a, b] : round) {
    const std::string& ga = world.nodes[a].group;
    const std::string& gb = world.nodes[b].group;
    double speed = world.bandwidth *
                   std::min(factorOf(world.nodeFactor, a), factorOf(world.nodeFactor, b)) *
                   factorOf(world.pairFactor, std::make_pair(a, b)) *
                   lasting(world.seed, 2, static_cast<uint64_t>(a) * 1000003u + b, world.linkSigma);
    const std::string& na = world.nodes[a].node;
    if (!na.empty() && na == world.nodes[b].node) speed *= world.sameNodeFactor;
    if (ga != gb && !ga.empty() && !gb.empty()) {
      speed *=
          factorOf(world.groupFactor, ga < gb ? std::make_pair(ga, gb) : std::make_pair(gb, ga));
    }
    for (int64_t bytes : world.sizes) {
      FabricPairSamples p;
      p.a = a;
      p.b = b;
      p.bytes = bytes;
      p.round = index;
      const double seconds = (world.latency + static_cast<double>(bytes) / speed) / roundFactor;
      for (int s = 0; s < world.samples; ++s) {
        p.aToB.push_back(seconds * lognormal(world.sampleSigma, rng));
        p.bToA.push_back(seconds * lognormal(world.sampleSigma, rng));
      }
      m.pairs.push_back(std::move(p));
    }
  }
}

FabricMeasurements measureAllPairs(const FabricWorld& world) {
  std::mt19937_64 rng(world.seed);
  FabricMeasurements m = startMeasurements(world, rng);
  const std::vector<FabricRound> rounds = roundRobinRounds(static_cast<int>(world.nodes.size()));
  for (size_t r = 0; r < rounds.size(); ++r)
    measureRound(world, rounds[r], static_cast<int>(r), m, rng);
  return m;
}

}  // namespace distbench::report
