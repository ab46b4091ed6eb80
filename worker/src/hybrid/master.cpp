#include "distbench/worker/hybrid/master.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "distbench/api/rank_layout.h"
#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/hybrid/wire.h"
#include "distbench/worker/hybrid/wire_buffer.h"
#include "distbench/worker/hybrid/wire_limits.h"

namespace distbench::worker {
namespace {

// Sends headers[i] to ranks[i] (parameter servers) and waits for each reply.
void callEach(ProcessGroup& global, const std::vector<int>& ranks,
              const std::vector<Header>& headers, MessageSizes sizes) {
  std::vector<at::Tensor> requests, replies;
  std::vector<PendingOp> sends, received;
  for (size_t i = 0; i < ranks.size(); ++i) {
    replies.push_back(newMessage(sizes.reply));
    received.push_back(global.recv(replies.back(), ranks[i], kTagReply));
  }
  for (size_t i = 0; i < ranks.size(); ++i) {
    requests.push_back(newMessage(sizes.request));
    writeHeader(requests.back(), headers[i]);
    sends.push_back(global.send(requests.back(), ranks[i], kTagRequest));
  }
  for (auto& r : received) r.wait();
  for (auto& s : sends) s.wait();
}

void sendToTrainers(ProcessGroup& global, const api::TopologySpec& topology, Op op) {
  at::Tensor header = packHeader(Signal{op}.encode());
  std::vector<PendingOp> sends;
  for (int t = 0; t < topology.trainers; ++t) {
    sends.push_back(global.send(header, api::trainerRank(topology, t), kTagControl));
  }
  for (auto& s : sends) s.wait();
}

// What the master accepts from `trainer` (known by the sender's rank): its
// heartbeats, and its epoch reports in order, each once, none past the last,
// with times the report can hold (JSON has no NaN or infinity).
bool isExpected(const ReportMessage& m, int trainer, int epochsSeen, int total) {
  switch (opOf(m)) {
    case Op::Heartbeat:
      return HeartbeatReport::decode(m).trainer == trainer;
    case Op::EpochDone: {
      const EpochDoneReport report = EpochDoneReport::decode(m);
      const auto isTime = [](double s) { return std::isfinite(s) && s >= 0; };
      const EpochTraffic& bytes = report.traffic;
      return report.trainer == trainer && report.epoch == epochsSeen && report.epoch < total &&
             isTime(report.seconds) &&
             std::all_of(report.phases.begin(), report.phases.end(), isTime) &&
             bytes.psBytesSent >= 0 && bytes.psBytesReceived >= 0 && bytes.allreduceBytes >= 0;
    }
    default:
      return false;
  }
}

std::string laggards(const std::vector<int>& epochsSeen, const api::TopologySpec& topology) {
  const int fewest = *std::min_element(epochsSeen.begin(), epochsSeen.end());
  std::string names;
  for (int t = 0; t < topology.trainers; ++t) {
    if (epochsSeen[t] == fewest) {
      names += (names.empty() ? "" : ", ") +
               api::rankLabel(topology, api::trainerRank(topology, t)) + " (rank " +
               std::to_string(api::trainerRank(topology, t)) + ")";
    }
  }
  return names + " after " + std::to_string(fewest) + " epoch(s)";
}

std::vector<int> parameterServerRanks(const api::TopologySpec& topology) {
  std::vector<int> ranks;
  for (int p = 0; p < topology.parameterServers; ++p) ranks.push_back(api::parameterServerRank(p));
  return ranks;
}

// Each parameter server creates its embedding shard; then the trainers start.
void createShards(const api::DistBenchmark& benchmark, ProcessGroup& global,
                  const std::vector<int>& psRanks) {
  const auto& hybrid = benchmark.spec.benchmark.hybridDDPRPC;
  std::vector<Header> create;
  for (int p = 0; p < static_cast<int>(psRanks.size()); ++p) {
    CreateShardRequest request;
    request.shard = p;
    request.numEmbeddings = hybrid.numEmbeddings;
    request.embeddingDim = hybrid.embeddingDim;
    request.mode = static_cast<int64_t>(hybrid.embeddingMode);
    request.seed = benchmark.spec.benchmark.seed;
    request.learningRate = hybrid.learningRate;
    create.push_back(request.encode());
  }
  callEach(global, psRanks, create, messageSizes(hybrid));
  std::cerr << "master: " << psRanks.size() << " embedding shard(s) of " << hybrid.numEmbeddings
            << "x" << hybrid.embeddingDim << " created; starting "
            << benchmark.spec.topology.trainers << " trainer(s)\n";
  sendToTrainers(global, benchmark.spec.topology, Op::Start);
}

// The trainers' epoch reports as they arrive: per trainer its results, the
// examples and the bytes of the measured epochs, and how many it reported.
struct EpochTally {
  std::vector<TrainerResult> results;
  std::vector<EpochTraffic> measuredBytes;  // summed over the measured epochs
  std::vector<int> epochsSeen;
  std::vector<double> examples;
};

EpochTally emptyTally(const api::TopologySpec& topology) {
  const int T = topology.trainers;
  EpochTally tally{std::vector<TrainerResult>(T), std::vector<EpochTraffic>(T),
                   std::vector<int>(T, 0), std::vector<double>(T, 0)};
  for (int t = 0; t < T; ++t) {
    tally.results[t].name = "Trainer" + std::to_string(t);
    tally.results[t].rank = api::trainerRank(topology, t);
    for (const char* name : kPhaseNames) tally.results[t].phases.push_back({name, {}});
  }
  return tally;
}

void addEpoch(EpochTally& tally, int trainer, const EpochDoneReport& report) {
  ++tally.epochsSeen[trainer];
  if (report.warmup) return;
  TrainerResult& result = tally.results[trainer];
  result.epochSeconds.push_back(report.seconds);
  tally.examples[trainer] += static_cast<double>(report.examples);
  for (int p = 0; p < kPhaseCount; ++p) result.phases[p].seconds.push_back(report.phases[p]);
  // A peer's numbers: summed without overflowing unnoticed.
  EpochTraffic& sum = tally.measuredBytes[trainer];
  sum.psBytesSent = checkedAdd(sum.psBytesSent, report.traffic.psBytesSent, "bytes sent");
  sum.psBytesReceived =
      checkedAdd(sum.psBytesReceived, report.traffic.psBytesReceived, "bytes received");
  sum.allreduceBytes =
      checkedAdd(sum.allreduceBytes, report.traffic.allreduceBytes, "allreduce bytes");
}

// Until every trainer reported every epoch. Trainers report every epoch
// and, within long epochs, send heartbeats, so each wait here is bounded by
// the peer timeout however long epochs are.
void collectEpochs(ProcessGroup& global, const api::TopologySpec& topology, int total,
                   EpochTally& tally) {
  const int T = topology.trainers;
  for (int reports = 0; reports < T * total;) {
    at::Tensor message = newMessage(kReportBytes);
    PendingOp op = global.recvAnySource(message, kTagControl);
    try {
      op.wait();
    } catch (const PeerError& e) {
      throw PeerError(std::string("master: no word from ") + laggards(tally.epochsSeen, topology) +
                      ": " + e.what());
    }
    const ReportMessage m = readReport(message);
    const Op kind = opOf(m);
    // The sender decides which trainer this is, not the message.
    const int trainer = op.sourceRank() - api::trainerRank(topology, 0);
    if (trainer < 0 || trainer >= T || !isExpected(m, trainer, tally.epochsSeen[trainer], total)) {
      throw PeerError("master: unexpected " + std::string(toString(kind)) + " message from " +
                      global.peerName(op.sourceRank()));
    }
    if (kind == Op::Heartbeat) continue;
    ++reports;
    addEpoch(tally, trainer, EpochDoneReport::decode(m));
  }
}

// Examples per epoch and bytes per measured step, from the tally.
void finishTrainers(EpochTally& tally, const api::HybridDDPRPCSpec& hybrid,
                    HybridMasterOutput& out) {
  const double measuredSteps = static_cast<double>(hybrid.epochs) * hybrid.batchesPerEpoch;
  for (size_t t = 0; t < tally.results.size(); ++t) {
    TrainerResult& result = tally.results[t];
    result.examplesPerEpoch =
        tally.examples[t] / std::max<size_t>(1, result.epochSeconds.size());
    TrainerTraffic traffic;
    if (measuredSteps > 0) {
      traffic.bytesSentPerStep = tally.measuredBytes[t].psBytesSent / measuredSteps;
      traffic.bytesReceivedPerStep = tally.measuredBytes[t].psBytesReceived / measuredSteps;
      traffic.denseGradientBytes = tally.measuredBytes[t].allreduceBytes / measuredSteps;
    }
    out.traffic.trainers.push_back(traffic);
  }
  out.trainers = std::move(tally.results);
}

// Parameter servers first (they may dump state), then release the trainers.
void shutDown(ProcessGroup& global, const api::DistBenchmark& benchmark,
              const std::vector<int>& psRanks) {
  const std::vector<Header> shutdown(psRanks.size(), Signal{Op::Shutdown}.encode());
  callEach(global, psRanks, shutdown, messageSizes(benchmark.spec.benchmark.hybridDDPRPC));
  sendToTrainers(global, benchmark.spec.topology, Op::Finish);
}

// Each server published before answering the Shutdown; the master hosts
// the store, so the stats are here even once the server has exited.
void addParameterServerStats(const std::vector<int>& psRanks,
                             const std::function<ParameterServerStats(int)>& readStats,
                             HybridMasterOutput& out) {
  if (!readStats) return;
  for (int p = 0; p < static_cast<int>(psRanks.size()); ++p) {
    ParameterServerResult ps;
    ps.name = "PS" + std::to_string(p);
    ps.rank = psRanks[p];
    ps.stats = readStats(p);
    out.traffic.parameterServers.push_back(std::move(ps));
  }
}

}  // namespace

HybridMasterOutput runHybridMaster(const api::DistBenchmark& benchmark, ProcessGroup& global,
                                   const std::function<ParameterServerStats(int)>& readStats) {
  const auto& topology = benchmark.spec.topology;
  const auto& hybrid = benchmark.spec.benchmark.hybridDDPRPC;
  const std::vector<int> psRanks = parameterServerRanks(topology);
  createShards(benchmark, global, psRanks);

  EpochTally tally = emptyTally(topology);
  collectEpochs(global, topology, hybrid.warmupEpochs + hybrid.epochs, tally);
  HybridMasterOutput out;
  finishTrainers(tally, hybrid, out);

  shutDown(global, benchmark, psRanks);
  addParameterServerStats(psRanks, readStats, out);
  return out;
}

}  // namespace distbench::worker
