#include "distbench/worker/fabric/fabric_rounds.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace distbench::worker {
namespace {

// This trainer's peer in `round`, or -1 when it rests.
int peerIn(const report::FabricRound& round, int me) {
  for (const auto& [a, b] : round) {
    if (a == me) return b;
    if (b == me) return a;
  }
  return -1;
}

// Every trainer's received samples of one round: [trainer][size][sample].
using RoundSamples = std::vector<std::vector<std::vector<double>>>;

// Measures `round` with `transfers` and allgathers what each trainer
// received, so every trainer holds the whole round.
RoundSamples measureRound(ProcessGroup& group, const report::FabricRound& round,
                          const PairTransferPlan& transfers) {
  const int n = group.size();
  const int64_t sizes = static_cast<int64_t>(transfers.messageBytes.size());
  const int64_t perSize = transfers.samplesPerPair;
  const auto cpu = at::TensorOptions().dtype(at::kDouble);
  const auto onDevice = cpu.device(group.device().torchDevice());
  // What this trainer received, per size: zeros when resting.
  at::Tensor mine = at::zeros({sizes * perSize}, cpu);
  const int peer = peerIn(round, group.rank());
  if (peer >= 0) {
    const std::vector<std::vector<double>> got = measurePair(group, peer, transfers);
    double* out = mine.data_ptr<double>();
    for (int64_t s = 0; s < sizes; ++s) {
      for (int64_t i = 0; i < perSize; ++i) {
        out[s * perSize + i] = got[static_cast<size_t>(s)][static_cast<size_t>(i)];
      }
    }
  }
  at::Tensor all = at::empty({n * sizes * perSize}, onDevice);
  group.allgather(mine.to(onDevice), all).wait();
  const at::Tensor everyone = all.cpu().contiguous();
  const double* values = everyone.data_ptr<double>();
  RoundSamples out(static_cast<size_t>(n));
  for (int t = 0; t < n; ++t) {
    for (int64_t s = 0; s < sizes; ++s) {
      const double* begin = values + (t * sizes + s) * perSize;
      out[static_cast<size_t>(t)].emplace_back(begin, begin + perSize);
    }
  }
  return out;
}

void checkRound(const report::FabricRound& round, int index, int n,
                std::set<std::pair<int, int>>& measured) {
  for (const auto& pair : round) {
    if (pair.first < 0 || pair.second >= n || pair.first >= pair.second ||
        !measured.insert(pair).second) {
      throw std::runtime_error("fabric: the planner's round " + std::to_string(index) +
                               " holds pair " + std::to_string(pair.first) + "-" +
                               std::to_string(pair.second) + ", out of range or measured before");
    }
  }
}

// Appends `round`'s samples (from `got`) to `sofar` and to what `me` received.
void record(const report::FabricRound& round, int index, const RoundSamples& got,
            const PairTransferPlan& transfers, int me, report::FabricMeasurements& sofar,
            std::vector<FabricReceived>& received) {
  for (const auto& [a, b] : round) {
    for (size_t s = 0; s < transfers.messageBytes.size(); ++s) {
      report::FabricPairSamples p;
      p.a = a;
      p.b = b;
      p.bytes = transfers.messageBytes[s];
      p.aToB = got[static_cast<size_t>(b)][s];
      p.bToA = got[static_cast<size_t>(a)][s];
      p.round = index;
      if (me == a || me == b) {
        received.push_back({index, me == a ? b : a, p.bytes, me == a ? p.bToA : p.aToB});
      }
      sofar.pairs.push_back(std::move(p));
    }
  }
}

// Up to allPairsUpTo nodes the plan is the round robin whatever is measured
// (fabric_plan.h), so it runs samplesPerPair times over with one sample per
// pass: a link's samples then spread over the whole phase, and a burst of
// outside load (another job on a shared machine) lands on one sample of
// many links rather than on every sample of the few it met.
// Every pair once, and a round for each node on its own: past this the
// planner is at fault.
int maxAdaptiveRounds(int n) { return n * (n - 1) / 2 + n; }

std::vector<FabricReceived> runPasses(ProcessGroup& group, const PairTransferPlan& transfers,
                                      report::FabricMeasurements& sofar,
                                      const std::function<void()>& betweenRounds) {
  const int n = group.size();
  const std::vector<report::FabricRound> rounds = report::roundRobinRounds(n);
  // (round, a, b, bytes) -> the pair's samples so far.
  std::map<std::tuple<int, int, int, int64_t>, report::FabricPairSamples> pairs;
  std::vector<FabricReceived> received;
  std::set<std::pair<int, int>> measured;
  for (size_t r = 0; r < rounds.size(); ++r)
    checkRound(rounds[r], static_cast<int>(r), n, measured);
  for (int pass = 0; pass < transfers.samplesPerPair; ++pass) {
    PairTransferPlan one{transfers.messageBytes, pass == 0 ? transfers.warmupSamples : 0, 1};
    for (size_t r = 0; r < rounds.size(); ++r) {
      report::FabricMeasurements scratch;
      std::vector<FabricReceived> mine;
      record(rounds[r], static_cast<int>(r), measureRound(group, rounds[r], one), one, group.rank(),
             scratch, mine);
      for (report::FabricPairSamples& p : scratch.pairs) {
        report::FabricPairSamples& into = pairs[{p.round, p.a, p.b, p.bytes}];
        if (into.aToB.empty()) {
          into = std::move(p);
          continue;
        }
        into.aToB.insert(into.aToB.end(), p.aToB.begin(), p.aToB.end());
        into.bToA.insert(into.bToA.end(), p.bToA.begin(), p.bToA.end());
      }
      if (betweenRounds) betweenRounds();
    }
  }
  for (auto& [key, p] : pairs) {
    if (p.a == group.rank() || p.b == group.rank()) {
      const bool first = p.a == group.rank();
      received.push_back({p.round, first ? p.b : p.a, p.bytes, first ? p.bToA : p.aToB});
    }
    sofar.pairs.push_back(std::move(p));
  }
  return received;
}

}  // namespace

long fabricRoundsAtMost(int n, const PairTransferPlan& transfers,
                        const report::FabricPlanOptions& planOptions) {
  if (n <= planOptions.allPairsUpTo) {
    return static_cast<long>(report::roundRobinRounds(n).size()) *
           std::max(0, transfers.samplesPerPair);
  }
  return maxAdaptiveRounds(n);
}

std::vector<FabricReceived> runFabricRounds(ProcessGroup& group, const PairTransferPlan& transfers,
                                            const report::FabricPlanOptions& planOptions,
                                            report::FabricMeasurements& sofar,
                                            const std::function<void()>& betweenRounds) {
  const int n = group.size();
  if (n <= planOptions.allPairsUpTo && sofar.pairs.empty()) {
    return runPasses(group, transfers, sofar, betweenRounds);
  }
  // Past it the next round depends on what has been measured: each round
  // whole, all its samples, before the planner is asked again.
  std::set<std::pair<int, int>> measured;
  std::vector<FabricReceived> received;
  const int maxRounds = maxAdaptiveRounds(n);
  for (int round = 0;; ++round) {
    const report::FabricRound plan = report::planNextRound(sofar, planOptions);
    if (plan.empty()) break;
    if (round >= maxRounds) {
      throw std::runtime_error("fabric: the planner did not finish within " +
                               std::to_string(maxRounds) + " rounds for " + std::to_string(n) +
                               " nodes");
    }
    checkRound(plan, round, n, measured);
    record(plan, round, measureRound(group, plan, transfers), transfers, group.rank(), sofar,
           received);
    if (betweenRounds) betweenRounds();
  }
  return received;
}

}  // namespace distbench::worker
