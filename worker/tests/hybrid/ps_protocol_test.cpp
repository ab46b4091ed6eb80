// The parameter-server protocol between ranks as threads of this process:
// the real server and client code over real Gloo pairs, with one rank
// breaking the protocol on purpose. Also run under ThreadSanitizer
// (DISTBENCH_TSAN in worker/tests/CMakeLists.txt): the server's threads
// share the shard.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <future>
#include <limits>

#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/common/metrics.h"
#include "distbench/worker/hybrid/hybrid_metrics.h"
#include "distbench/worker/hybrid/parameter_server.h"
#include "distbench/worker/hybrid/ps_client.h"
#include "distbench/worker/hybrid/wire.h"
#include "distbench/worker/hybrid/wire_buffer.h"
#include "support/thread_ranks.h"

namespace distbench::worker {
namespace {

// One PS and one trainer: master = rank 0, ps0 = rank 1, trainer0 = rank 2.
constexpr int kWorld = 3;
constexpr int kPs = 1;
constexpr int kTrainer = 2;

WorkerIdentity psIdentity() {
  WorkerIdentity id;
  id.role = api::Role::ParameterServer;
  id.rank = kPs;
  id.roleIndex = 0;
  id.worldSize = kWorld;
  id.numParameterServers = 1;
  id.numTrainers = 1;
  return id;
}

Header createShard(const api::HybridDDPRPCSpec& spec) {
  return {static_cast<int64_t>(Op::CreateShard), 0, spec.numEmbeddings, spec.embeddingDim,
          static_cast<int64_t>(spec.embeddingMode), 7, doubleBits(spec.learningRate), 0};
}

// As runHybridMaster creates the shard: the request, then the PS's reply.
void createShardAsTheMaster(ProcessGroup& g, const api::HybridDDPRPCSpec& spec,
                            const MessageSizes& sizes) {
  at::Tensor request = newMessage(sizes.request);
  at::Tensor reply = newMessage(sizes.reply);
  writeHeader(request, createShard(spec));
  PendingOp answered = g.recv(reply, kPs, kTagReply);
  g.send(request, kPs, kTagRequest).wait();
  answered.wait();
}

// Runs the PS until it throws; `threwPeerError` says whether that was a
// PeerError (a refused request), rethrown for the rank's error text. The
// failed server leaves its threads in receives on the group and recording
// into the metrics: both outlive the test, as the worker keeps them until it
// exits (KindRun::metricsKeptUntilExit).
void runServerUntilItRefuses(ProcessGroup& g, const api::HybridDDPRPCSpec& spec,
                             bool& threwPeerError) {
  auto* endpoint = new MetricsEndpoint("ps-test", "ps", kPs, 0);
  auto* metrics = new ParameterServerMetrics(*endpoint);
  try {
    runHybridParameterServer(psIdentity(), g, *metrics, {spec, ""});
  } catch (const PeerError&) {
    threwPeerError = true;
    throw;
  }
}

TEST(ParameterServerProtocol, CreateShardFromATrainerIsRefusedNamingIt) {
  const api::HybridDDPRPCSpec spec;
  const MessageSizes sizes = messageSizes(spec);
  std::promise<void> masterCreated;
  std::shared_future<void> created = masterCreated.get_future().share();
  bool psThrewPeerError = false;
  const auto errors = runRanksCollectingErrors(kWorld, "ps-create", [&](int rank, ProcessGroup& g) {
    if (rank == 0) {
      createShardAsTheMaster(g, spec, sizes);
      masterCreated.set_value();
    } else if (rank == kPs) {
      runServerUntilItRefuses(g, spec, psThrewPeerError);
    } else {  // trainer0 resends the master's create, well-formed, mid-run
      created.wait();
      at::Tensor request = newMessage(sizes.request);
      writeHeader(request, createShard(spec));
      g.send(request, kPs, kTagRequest).wait();
    }
  }, loopbackGloo(), /*keepGroups=*/true);
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[kTrainer], "");
  EXPECT_TRUE(psThrewPeerError) << errors[kPs];
  EXPECT_NE(errors[kPs].find("create_shard from rank 2 refused"), std::string::npos) << errors[kPs];
}

// A well-formed lookup whose step is INT64_MIN: before, an Async server
// served it and counted it under that key (and the step after it computed
// INT64_MIN - 2); now it is refused, naming the step the trainer is at.
TEST(ParameterServerProtocol, LookupForAStepOutOfOrderIsRefused) {
  const api::HybridDDPRPCSpec spec;  // Async, the default
  const MessageSizes sizes = messageSizes(spec);
  std::promise<void> masterCreated;
  std::shared_future<void> created = masterCreated.get_future().share();
  bool psThrewPeerError = false;
  const auto errors = runRanksCollectingErrors(kWorld, "ps-step", [&](int rank, ProcessGroup& g) {
    if (rank == 0) {
      createShardAsTheMaster(g, spec, sizes);
      masterCreated.set_value();
    } else if (rank == kPs) {
      runServerUntilItRefuses(g, spec, psThrewPeerError);
    } else {  // trainer0, once the shard exists: one index, one bag, step INT64_MIN
      created.wait();
      at::Tensor request = newMessage(sizes.request);
      writeHeader(request, LookupRequest{0, std::numeric_limits<int64_t>::min(), 1, 1}.encode());
      int64_t* payload = payloadOf<int64_t>(request);
      payload[0] = 0;  // index
      payload[1] = 0;  // offset
      g.send(request, kPs, kTagRequest).wait();
    }
  }, loopbackGloo(), /*keepGroups=*/true);
  EXPECT_EQ(errors[0], "");
  EXPECT_TRUE(psThrewPeerError) << errors[kPs];
  EXPECT_NE(errors[kPs].find("lookup from rank 2 refused: lookup for step -9223372036854775808, "
                             "expected step 0"),
            std::string::npos)
      << errors[kPs];
}

TEST(ParameterServerProtocol, ClientRefusesAReplyAnnouncingMoreThanItsBuffer) {
  const api::HybridDDPRPCSpec spec;
  const MessageSizes sizes = messageSizes(spec);
  bool clientThrewPeerError = false;
  const auto errors = runRanksCollectingErrors(kWorld, "ps-reply", [&](int rank, ProcessGroup& g) {
    if (rank == kPs) {  // a PS whose reply says [2^31, 2^31] floats: 2^64 bytes
      at::Tensor request = newMessage(sizes.request);
      g.recv(request, kTrainer, kTagRequest).wait();
      at::Tensor reply = newMessage(sizes.reply);
      const int64_t huge = int64_t{1} << 31;
      writeHeader(reply, {static_cast<int64_t>(Op::Lookup), huge, huge, 0, 0, 0, 0, 0});
      g.send(reply, kTrainer, kTagReply).wait();
    } else if (rank == kTrainer) {
      MetricsEndpoint endpoint("ps-test", "trainer", kTrainer, 0);
      HybridTrainerMetrics metrics(endpoint);
      ParameterServerClient client(g, 1, 0, spec.embeddingDim, sizes, metrics);
      try {
        client.lookup(0, at::zeros({4}, at::kLong), at::zeros({1}, at::kLong));
      } catch (const PeerError&) {
        clientThrewPeerError = true;
        throw;
      }
    }
  });
  EXPECT_TRUE(clientThrewPeerError) << errors[kTrainer];
  EXPECT_NE(errors[kTrainer].find("lookup reply from rank 1 refused: reply header bags"),
            std::string::npos)
      << errors[kTrainer];
}

}  // namespace
}  // namespace distbench::worker
