#include "distbench/worker/fabric/fabric_rounds.h"

#include <ATen/ATen.h>

#include <set>
#include <stdexcept>
#include <string>
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

}  // namespace

std::vector<FabricReceived> runFabricRounds(ProcessGroup& group, const PairTransferPlan& transfers,
                                            const report::FabricPlanOptions& planOptions,
                                            report::FabricMeasurements& sofar,
                                            const std::function<void()>& betweenRounds) {
  const int n = group.size();
  const int me = group.rank();
  const int64_t sizes = static_cast<int64_t>(transfers.messageBytes.size());
  const int64_t perSize = transfers.samplesPerPair;
  const auto cpu = at::TensorOptions().dtype(at::kDouble);
  const auto onDevice = cpu.device(group.device().torchDevice());
  std::set<std::pair<int, int>> measured;
  std::vector<FabricReceived> received;
  const int maxRounds = n * (n - 1) / 2 + n;
  for (int round = 0;; ++round) {
    const report::FabricRound plan = report::planNextRound(sofar, planOptions);
    if (plan.empty()) break;
    if (round >= maxRounds) {
      throw std::runtime_error("fabric: the planner did not finish within " +
                               std::to_string(maxRounds) + " rounds for " + std::to_string(n) +
                               " nodes");
    }
    for (const auto& pair : plan) {
      if (pair.first < 0 || pair.second >= n || pair.first >= pair.second ||
          !measured.insert(pair).second) {
        throw std::runtime_error("fabric: the planner's round " + std::to_string(round) +
                                 " holds pair " + std::to_string(pair.first) + "-" +
                                 std::to_string(pair.second) + ", out of range or measured before");
      }
    }
    // What this trainer received in the round, per size: zeros when resting.
    at::Tensor mine = at::zeros({sizes * perSize}, cpu);
    const int peer = peerIn(plan, me);
    if (peer >= 0) {
      const std::vector<std::vector<double>> got = measurePair(group, peer, transfers);
      double* out = mine.data_ptr<double>();
      for (int64_t s = 0; s < sizes; ++s) {
        for (int64_t i = 0; i < perSize; ++i) {
          out[s * perSize + i] = got[static_cast<size_t>(s)][static_cast<size_t>(i)];
        }
        received.push_back({round, peer, transfers.messageBytes[static_cast<size_t>(s)],
                            got[static_cast<size_t>(s)]});
      }
    }
    at::Tensor all = at::empty({n * sizes * perSize}, onDevice);
    group.allgather(mine.to(onDevice), all).wait();
    const at::Tensor everyone = all.cpu().contiguous();
    const double* values = everyone.data_ptr<double>();
    auto samplesOf = [&](int receiver, int64_t s) {
      const double* begin = values + (receiver * sizes + s) * perSize;
      return std::vector<double>(begin, begin + perSize);
    };
    for (const auto& [a, b] : plan) {
      for (int64_t s = 0; s < sizes; ++s) {
        report::FabricPairSamples p;
        p.a = a;
        p.b = b;
        p.bytes = transfers.messageBytes[static_cast<size_t>(s)];
        p.aToB = samplesOf(b, s);
        p.bToA = samplesOf(a, s);
        p.round = round;
        sofar.pairs.push_back(std::move(p));
      }
    }
    if (betweenRounds) betweenRounds();
  }
  return received;
}

}  // namespace distbench::worker
