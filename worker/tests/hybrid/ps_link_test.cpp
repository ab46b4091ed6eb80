// The parameter servers' links: published in the run's store, taken only
// from this run's trainers, each once, and a trainer that never comes is
// named. An in-process store (c10d::HashStore) and real loopback sockets.
#include "distbench/worker/hybrid/ps_link.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <vector>

#include "distbench/worker/comm/peer_error.h"

namespace distbench::worker {
namespace {

using namespace std::chrono_literals;

// One parameter server (rank 1), two trainers (ranks 2 and 3).
WorkerIdentity identity(api::Role role, int rank, int roleIndex, const std::string& key = "k3y") {
  WorkerIdentity id;
  id.role = role;
  id.rank = rank;
  id.roleIndex = roleIndex;
  id.worldSize = 4;
  id.numParameterServers = 1;
  id.numTrainers = 2;
  id.bindAddress = "127.0.0.1";
  id.runKey = key;
  return id;
}

std::vector<FramedSocket> connectAs(c10d::Store& store, int rank, int index,
                                    const std::string& key = "k3y") {
  return connectToParameterServers(identity(api::Role::Trainer, rank, index, key), store, 1024,
                                   5000ms, 5000ms);
}

TEST(PsLink, EveryTrainerIsLinkedInTrainerOrder) {
  c10d::HashStore store;
  TrainerLinkListener listener(identity(api::Role::ParameterServer, 1, 0), store, 1024, 5000ms);
  // Trainer 1 first: the links still come back in trainer order.
  auto t1 = std::async(std::launch::async, [&] { return connectAs(store, 3, 1); });
  std::this_thread::sleep_for(50ms);
  auto t0 = std::async(std::launch::async, [&] { return connectAs(store, 2, 0); });
  std::vector<FramedSocket> links = listener.acceptAll(5000ms);
  std::vector<FramedSocket> from0 = t0.get(), from1 = t1.get();
  ASSERT_EQ(links.size(), 2u);
  ASSERT_EQ(from0.size(), 1u);
  EXPECT_EQ(links[0].peer(), "trainer0 (rank 2)");
  EXPECT_EQ(links[1].peer(), "trainer1 (rank 3)");
  EXPECT_EQ(from1[0].peer(), "ps0 (rank 1)");
  from1[0].send("x", 1);
  char c = 0;
  ASSERT_EQ(links[1].receive(&c, 1), 1u);
  EXPECT_EQ(c, 'x');
}

TEST(PsLink, AnotherRunsKeyIsRefusedAndTheRealTrainersStillGetIn) {
  c10d::HashStore store;
  TrainerLinkListener listener(identity(api::Role::ParameterServer, 1, 0), store, 1024, 5000ms);
  auto outsider = std::async(std::launch::async, [&] { return connectAs(store, 2, 0, "guess"); });
  auto t0 = std::async(std::launch::async, [&] {
    outsider.wait();
    return connectAs(store, 2, 0);
  });
  auto t1 = std::async(std::launch::async, [&] { return connectAs(store, 3, 1); });
  std::vector<FramedSocket> links = listener.acceptAll(5000ms);
  EXPECT_EQ(links.size(), 2u);
  try {
    outsider.get();
    FAIL() << "a trainer with another run's key was linked";
  } catch (const PeerError& e) {
    EXPECT_NE(std::string(e.what()).find("ps0 (rank 1) did not take this trainer's link: refused: "
                                         "the run key is not this run's"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(t0.get().size(), 1u);
  EXPECT_EQ(t1.get().size(), 1u);
}

TEST(PsLink, ATrainerThatNeverComesIsNamed) {
  c10d::HashStore store;
  TrainerLinkListener listener(identity(api::Role::ParameterServer, 1, 0), store, 1024, 5000ms);
  auto t0 = std::async(std::launch::async, [&] { return connectAs(store, 2, 0); });
  try {
    listener.acceptAll(500ms);
    FAIL() << "acceptAll returned without trainer1";
  } catch (const PeerError& e) {
    EXPECT_NE(std::string(e.what()).find("no link from trainer1 (rank 3) within 0.5 s"),
              std::string::npos)
        << e.what();
  }
  t0.get();
}

TEST(PsLink, ATrainerWaitsForTheServersAddressThenNamesIt) {
  c10d::HashStore store;
  try {
    connectToParameterServers(identity(api::Role::Trainer, 2, 0), store, 1024, 300ms, 300ms);
    FAIL() << "connected to a parameter server that never published";
  } catch (const PeerError& e) {
    EXPECT_NE(std::string(e.what()).find("ps0 (rank 1) published no link address"),
              std::string::npos)
        << e.what();
  }
}

TEST(PsLink, TheHelloNamesATrainerOfThisRun) {
  const WorkerIdentity server = identity(api::Role::ParameterServer, 1, 0);
  int t = -1;
  EXPECT_EQ(checkLinkHello(linkHello(3, "k3y"), server, &t), "");
  EXPECT_EQ(t, 1);
  EXPECT_EQ(checkLinkHello(linkHello(1, "k3y"), server, &t), "rank 1 is not a trainer");
  EXPECT_EQ(checkLinkHello(linkHello(0, "k3y"), server, &t), "rank 0 is not a trainer");
  EXPECT_EQ(checkLinkHello(linkHello(2, "k3"), server, &t), "the run key is not this run's");
  EXPECT_EQ(checkLinkHello("GET / HTTP/1.1\r\n\r\n", server, &t),
            "not a distbench parameter-server link");
  EXPECT_EQ(checkLinkHello("distbench-ps-link/1\n-2\nk3y", server, &t), "the hello names no rank");
  EXPECT_EQ(checkLinkHello("distbench-ps-link/1\n99999999999\nk3y", server, &t),
            "the hello names no rank");
}

}  // namespace
}  // namespace distbench::worker
