// The parameter-server protocol between ranks as threads of this process:
// the real server and client code over a real link (ps_link.h) and real
// Gloo pairs (the master's), with one rank breaking the protocol on purpose. Also run under ThreadSanitizer
// (DISTBENCH_TSAN in worker/tests/CMakeLists.txt): the server's threads
// share the shard.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "distbench/worker/comm/framed_socket.h"
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

// A link between trainer0 and ps0, as ps_link.h makes one, without the
// hello: {the server's end, the trainer's end}.
std::pair<FramedSocket, FramedSocket> link(const MessageSizes& sizes) {
  FrameListener listener("127.0.0.1");
  const std::pair<std::string, int> at = splitHostPort(listener.address());
  FramedSocket trainerEnd = FramedSocket::connect(at.first, at.second, "ps0 (rank 1)",
                                                  static_cast<size_t>(sizes.reply),
                                                  std::chrono::seconds(30));
  const int fd = listener.accept(std::chrono::seconds(30));
  return {FramedSocket(fd, "trainer0 (rank 2)", static_cast<size_t>(sizes.request),
                       std::chrono::seconds(30)),
          std::move(trainerEnd)};
}

// Runs the PS until it throws; `threwPeerError` says whether that was a
// PeerError (a refused request), rethrown for the rank's error text. The
// failed server leaves its threads in receives on the group and recording
// into the metrics: both outlive the test, as the worker keeps them until it
// exits (KindRun::metricsKeptUntilExit).
void runServerUntilItRefuses(ProcessGroup& g, FramedSocket trainerLink,
                             const api::HybridDDPRPCSpec& spec, bool& threwPeerError) {
  auto* endpoint = new MetricsEndpoint("ps-test", "ps", kPs, 0);
  auto* metrics = new ParameterServerMetrics(*endpoint);
  std::vector<FramedSocket> links;
  links.push_back(std::move(trainerLink));
  try {
    runHybridParameterServer(psIdentity(), g, std::move(links), *metrics, {spec, ""});
  } catch (const PeerError&) {
    threwPeerError = true;
    throw;
  }
}

// What three ranks say when trainer0, once the master has created the
// shard, sends what `trainerSends` writes on its link: the parameter server
// is expected to refuse it (psThrewPeerError tells whether it did so by a
// PeerError).
struct Refusal {
  std::vector<std::string> errors;
  bool psThrewPeerError = false;
};
Refusal refusalOf(const char* name, const api::HybridDDPRPCSpec& spec,
                  const std::function<void(FramedSocket&, const MessageSizes&)>& trainerSends) {
  const MessageSizes sizes = messageSizes(spec);
  std::promise<void> masterCreated;
  std::shared_future<void> created = masterCreated.get_future().share();
  Refusal r;
  auto ends = link(sizes);
  FramedSocket& serverEnd = ends.first;
  FramedSocket& trainerEnd = ends.second;
  r.errors = runRanksCollectingErrors(kWorld, name, [&](int rank, ProcessGroup& g) {
    if (rank == 0) {
      createShardAsTheMaster(g, spec, sizes);
      masterCreated.set_value();
    } else if (rank == kPs) {
      runServerUntilItRefuses(g, std::move(serverEnd), spec, r.psThrewPeerError);
    } else {
      created.wait();
      trainerSends(trainerEnd, sizes);
    }
  }, loopbackGloo(), /*keepGroups=*/true);
  return r;
}

TEST(ParameterServerProtocol, CreateShardFromATrainerIsRefusedNamingIt) {
  const api::HybridDDPRPCSpec spec;
  // trainer0 resends the master's create, well-formed, mid-run.
  const Refusal r = refusalOf("ps-create", spec, [&](FramedSocket& toPs, const MessageSizes&) {
    const Header h = createShard(spec);
    toPs.send(h.data(), kHeaderBytes);
  });
  EXPECT_EQ(r.errors[0], "");
  EXPECT_EQ(r.errors[kTrainer], "");
  EXPECT_TRUE(r.psThrewPeerError) << r.errors[kPs];
  EXPECT_NE(r.errors[kPs].find("create_shard from rank 2 refused"), std::string::npos)
      << r.errors[kPs];
}

// A well-formed lookup whose step is INT64_MIN: before, an Async server
// served it and counted it under that key (and the step after it computed
// INT64_MIN - 2); now it is refused, naming the step the trainer is at.
TEST(ParameterServerProtocol, LookupForAStepOutOfOrderIsRefused) {
  const api::HybridDDPRPCSpec spec;  // Async, the default
  // One index, one bag, step INT64_MIN.
  const Refusal r = refusalOf("ps-step", spec, [](FramedSocket& toPs, const MessageSizes& sizes) {
    at::Tensor request = newMessage(sizes.request);
    writeHeader(request, LookupRequest{0, std::numeric_limits<int64_t>::min(), 1, 1}.encode());
    int64_t* payload = payloadOf<int64_t>(request);
    payload[0] = 0;  // index
    payload[1] = 0;  // offset
    toPs.send(request.data_ptr(), kHeaderBytes + 2 * sizeof(int64_t));
  });
  EXPECT_EQ(r.errors[0], "");
  EXPECT_TRUE(r.psThrewPeerError) << r.errors[kPs];
  EXPECT_NE(r.errors[kPs].find("lookup from rank 2 refused: lookup for step -9223372036854775808, "
                               "expected step 0"),
            std::string::npos)
      << r.errors[kPs];
}

TEST(ParameterServerProtocol, ClientRefusesAReplyAnnouncingMoreThanItsBuffer) {
  const api::HybridDDPRPCSpec spec;
  const MessageSizes sizes = messageSizes(spec);
  auto ends = link(sizes);
  FramedSocket& serverEnd = ends.first;
  FramedSocket& trainerEnd = ends.second;
  // A PS whose reply says [2^31, 2^31] floats: 2^64 bytes.
  std::thread ps([&sizes, server = std::move(serverEnd)]() mutable {
    at::Tensor request = newMessage(sizes.request);
    server.receive(request.data_ptr(), static_cast<size_t>(request.nbytes()));
    const int64_t huge = int64_t{1} << 31;
    const Header h{static_cast<int64_t>(Op::Lookup), huge, huge, 0, 0, 0, 0, 0};
    server.send(h.data(), kHeaderBytes);
  });
  MetricsEndpoint endpoint("ps-test", "trainer", kTrainer, 0);
  HybridTrainerMetrics metrics(endpoint);
  std::vector<FramedSocket> links;
  links.push_back(std::move(trainerEnd));
  ParameterServerClient client(std::move(links), 0, spec.embeddingDim, sizes, metrics);
  try {
    client.lookup(0, at::zeros({4}, at::kLong), at::zeros({1}, at::kLong));
    FAIL() << "the client took a reply announcing 2^64 bytes";
  } catch (const PeerError& e) {
    EXPECT_NE(std::string(e.what()).find("lookup reply from ps0 (rank 1) refused: reply header bags"),
              std::string::npos)
        << e.what();
  }
  ps.join();
}

TEST(ParameterServerProtocol, AFrameShorterThanItsHeaderAnnouncesIsRefused) {
  const api::HybridDDPRPCSpec spec;
  // A lookup of 50 indices in a frame with room for none.
  const Refusal r = refusalOf("ps-frame", spec, [](FramedSocket& toPs, const MessageSizes&) {
    const Header h = LookupRequest{0, 0, 50, 1}.encode();
    toPs.send(h.data(), kHeaderBytes);
  });
  EXPECT_TRUE(r.psThrewPeerError) << r.errors[kPs];
  EXPECT_NE(r.errors[kPs].find("lookup from rank 2 refused: a lookup frame of 64 bytes, but its "
                               "header announces 472"),
            std::string::npos)
      << r.errors[kPs];
}

}  // namespace
}  // namespace distbench::worker
