// distbench-fabric-simulate: the Fabric planner and verdict on made-up
// fabrics (fabric_simulate.h), many seeds, to measure what they find and at
// what cost: N nodes in groups (leaf switches), lognormal noise, one bad
// node (its NIC at 25-50 %) and one bad link between two groups (or, with
// no groups, between two nodes), planNextRound round by round until the
// plan ends, then judgeFabric. Prints per run and in sum: found or missed,
// false alarms, pairs measured against all pairs, rounds. --check exits 1
// unless every run found both, named nothing else and stayed within the
// pair budget: ctest runs it so (docs/performance.md has the figures).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "distbench/report/bootstrap.h"
#include "distbench/report/fabric_plan.h"
#include "distbench/report/fabric_simulate.h"
#include "distbench/report/fabric_verdict.h"

namespace {

using namespace distbench::report;

struct Options {
  int nodes = 256;
  int groupSize = 16;
  int seeds = 5;
  uint64_t firstSeed = 1;
  double sampleSigma = 0.1;
  double roundSigma = 0.05;
  double linkSigma = 0.05;
  double badNodeLow = 0.25, badNodeHigh = 0.5;
  double badLink = 0.5;
  bool healthy = false;  // nothing wrong: false alarms only
  bool check = false;
  bool verbose = false;
  bool roundNormalise = true;
  double spreadSigmas = 3;
  FabricPlanOptions plan;
  double threshold = 25;
};

const char* kUsage =
    "usage: distbench-fabric-simulate [--nodes N] [--group-size G (0: no groups)]\n"
    "  [--seeds S] [--first-seed K] [--noise SIGMA] [--round-noise SIGMA]\n"
    "  [--link-noise SIGMA] [--bad-node LOW HIGH] [--bad-link FACTOR] [--healthy]\n"
    "  [--threshold PERCENT] [--share MAX_PAIR_SHARE] [--all-pairs-up-to N]\n"
    "  [--no-round-normalise] [--spread-sigmas K] [--verbose] [--check]\n";

struct Run {
  bool nodeFound = false, linkFound = false;
  int falseAlarms = 0;
  int pairs = 0, allPairs = 0, rounds = 0;
};

Run simulate(const Options& o, uint64_t seed) {
  FabricWorld w;
  w.nodes = fabricNodes(o.nodes, o.groupSize);
  w.seed = seed;
  w.sampleSigma = o.sampleSigma;
  w.roundSigma = o.roundSigma;
  w.linkSigma = o.linkSigma;
  std::mt19937_64 rng(seed);
  int badNode = -1;
  std::vector<int> badLinkNodes;
  std::string badGroupLink;
  if (!o.healthy) {
    badNode = static_cast<int>(UniformIndex(o.nodes)(rng));
    w.nodeFactor[badNode] = o.badNodeLow + (o.badNodeHigh - o.badNodeLow) *
                                               (static_cast<double>(rng() >> 11) * 0x1.0p-53);
    if (o.groupSize > 0 && o.nodes / o.groupSize >= 2) {
      const int groups = o.nodes / o.groupSize;
      int a = static_cast<int>(UniformIndex(groups)(rng)), b = a;
      while (b == a) b = static_cast<int>(UniformIndex(groups)(rng));
      if (a > b) std::swap(a, b);
      const std::string ga = "rack" + std::to_string(a), gb = "rack" + std::to_string(b);
      w.groupFactor[{std::min(ga, gb), std::max(ga, gb)}] = o.badLink;
      badGroupLink = "group " + ga + " - " + gb;
    } else {
      int a = badNode, b = badNode;
      while (a == badNode) a = static_cast<int>(UniformIndex(o.nodes)(rng));
      while (b == badNode || b == a) b = static_cast<int>(UniformIndex(o.nodes)(rng));
      if (a > b) std::swap(a, b);
      w.pairFactor[{a, b}] = o.badLink;
      badLinkNodes = {a, b};
    }
  }
  FabricPlanOptions plan = o.plan;
  plan.seed = seed;
  plan.thresholdPercent = o.threshold;
  FabricMeasurements m = startMeasurements(w, rng);
  Run run;
  for (;; ++run.rounds) {
    const FabricRound round = planNextRound(m, plan);
    if (round.empty() || run.rounds > 100000) break;
    measureRound(w, round, run.rounds, m, rng);
  }
  FabricVerdictOptions verdictOptions;
  verdictOptions.thresholdPercent = o.threshold;
  verdictOptions.roundNormalise = o.roundNormalise;
  verdictOptions.spreadSigmas = o.spreadSigmas;
  const FabricVerdict v = judgeFabric(m, verdictOptions);
  run.pairs = v.pairsMeasured;
  run.allPairs = v.pairsTotal;
  for (const FabricSuspect& s : v.suspects) {
    if (s.status != FabricStatus::Slow) continue;
    if (s.what == "node" && s.nodes == std::vector<int>{badNode}) {
      run.nodeFound = true;
    } else if (s.what == "link" && !badGroupLink.empty() && s.where == badGroupLink) {
      run.linkFound = true;
    } else if (s.what == "link" && !badLinkNodes.empty() && s.nodes == badLinkNodes) {
      run.linkFound = true;
    } else {
      ++run.falseAlarms;
      if (o.verbose)
        std::printf("  seed %llu false alarm: %s %s: %s\n", static_cast<unsigned long long>(seed),
                    s.what.c_str(), s.where.c_str(), s.evidence.c_str());
    }
  }
  if (o.verbose) {
    std::printf(
        "seed %llu: node %s, link %s, %d false alarms, %d of %d pairs (%.2f %%), %d rounds\n",
        static_cast<unsigned long long>(seed), run.nodeFound ? "found" : "MISSED",
        run.linkFound ? "found" : "MISSED", run.falseAlarms, run.pairs, run.allPairs,
        100.0 * run.pairs / run.allPairs, run.rounds);
  }
  return run;
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n%s", name, kUsage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (a == "--nodes") {
      o.nodes = std::atoi(next("--nodes"));
    } else if (a == "--group-size") {
      o.groupSize = std::atoi(next("--group-size"));
    } else if (a == "--seeds") {
      o.seeds = std::atoi(next("--seeds"));
    } else if (a == "--first-seed") {
      o.firstSeed = std::strtoull(next("--first-seed"), nullptr, 10);
    } else if (a == "--noise") {
      o.sampleSigma = std::atof(next("--noise"));
    } else if (a == "--round-noise") {
      o.roundSigma = std::atof(next("--round-noise"));
    } else if (a == "--link-noise") {
      o.linkSigma = std::atof(next("--link-noise"));
    } else if (a == "--bad-node") {
      o.badNodeLow = std::atof(next("--bad-node"));
      o.badNodeHigh = std::atof(next("--bad-node"));
    } else if (a == "--bad-link") {
      o.badLink = std::atof(next("--bad-link"));
    } else if (a == "--healthy") {
      o.healthy = true;
    } else if (a == "--threshold") {
      o.threshold = std::atof(next("--threshold"));
    } else if (a == "--share") {
      o.plan.maxPairShare = std::atof(next("--share"));
    } else if (a == "--all-pairs-up-to") {
      o.plan.allPairsUpTo = std::atoi(next("--all-pairs-up-to"));
    } else if (a == "--spread-sigmas") {
      o.spreadSigmas = std::atof(next("--spread-sigmas"));
    } else if (a == "--no-round-normalise") {
      o.roundNormalise = false;
    } else if (a == "--verbose") {
      o.verbose = true;
    } else if (a == "--check") {
      o.check = true;
    } else {
      std::fprintf(stderr, "unknown flag %s\n%s", a.c_str(), kUsage);
      std::exit(2);
    }
  }
  if (o.nodes < 2 || o.seeds < 1 || o.groupSize < 0) {
    std::fprintf(stderr, "--nodes must be at least 2, --seeds at least 1\n%s", kUsage);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  int nodes = 0, links = 0, alarmRuns = 0, alarms = 0, overBudget = 0;
  double share = 0, maxShare = 0;
  int rounds = 0, maxRounds = 0;
  for (int s = 0; s < o.seeds; ++s) {
    const Run r = simulate(o, o.firstSeed + s);
    nodes += r.nodeFound;
    links += r.linkFound;
    alarms += r.falseAlarms;
    alarmRuns += r.falseAlarms > 0;
    const double runShare = static_cast<double>(r.pairs) / r.allPairs;
    share += runShare;
    maxShare = std::max(maxShare, runShare);
    if (o.nodes > o.plan.allPairsUpTo && runShare > o.plan.maxPairShare) ++overBudget;
    rounds += r.rounds;
    maxRounds = std::max(maxRounds, r.rounds);
  }
  std::printf(
      "nodes %d, groups of %d, noise %.2f (round %.2f, link %.2f), %s, threshold %g %%, "
      "rounds %s, spread %g sigmas, %d seeds\n",
      o.nodes, o.groupSize, o.sampleSigma, o.roundSigma, o.linkSigma,
      o.healthy ? "nothing wrong" : "one bad node and one bad link", o.threshold,
      o.roundNormalise ? "normalised" : "as measured", o.spreadSigmas, o.seeds);
  if (!o.healthy) {
    std::printf("bad node found: %d/%d\nbad link found: %d/%d\n", nodes, o.seeds, links, o.seeds);
  }
  std::printf("runs with a false alarm: %d/%d (%d false alarms)\n", alarmRuns, o.seeds, alarms);
  std::printf("pairs measured: %.2f %% of all pairs on average, %.2f %% at most\n",
              100 * share / o.seeds, 100 * maxShare);
  std::printf("rounds: %.1f on average, %d at most\n", static_cast<double>(rounds) / o.seeds,
              maxRounds);
  if (!o.check) return 0;
  const bool ok =
      (o.healthy || (nodes == o.seeds && links == o.seeds)) && alarms == 0 && overBudget == 0;
  std::printf("%s\n", ok ? "check: ok" : "check: FAILED");
  return ok ? 0 : 1;
}
