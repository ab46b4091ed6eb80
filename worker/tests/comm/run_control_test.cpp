// Store waits end on their own: a trainer that keeps its heartbeat but never
// arrives (stuck in a loop, say) cannot hold a barrier or the master's
// collect forever. Ranks as threads of this process, each with its own
// rendezvous over a real TCPStore on loopback.
#include "distbench/worker/comm/run_control.h"

#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include "distbench/process/free_ports.h"
#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/comm/rendezvous.h"

namespace distbench::worker {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr milliseconds kPeerTimeout{1000};  // progress window: 2 s

WorkerIdentity identity(api::Role role, int rank, int trainers, int port) {
  WorkerIdentity id;
  id.role = role;
  id.rank = rank;
  id.roleIndex = role == api::Role::Trainer ? rank - 1 : 0;
  id.worldSize = 1 + trainers;
  id.numTrainers = trainers;
  id.masterAddr = "127.0.0.1";
  id.masterPort = port;
  id.bindAddress = "127.0.0.1";
  return id;
}

// Runs `body(rank, rendezvous)` for the master and `trainers` trainers, each
// on a thread with its own rendezvous; `released` lets ranks that only keep
// the store or their heartbeat up wait for the end of the test.
class StoreRanks {
 public:
  using Body = std::function<void(int rank, Rendezvous&)>;

  StoreRanks(int trainers, Body body) {
    const int port = process::pickFreePorts(1).at(0);
    RendezvousTimeouts timeouts;
    timeouts.rendezvous = seconds(30);
    timeouts.peer = kPeerTimeout;
    for (int r = 0; r <= trainers; ++r) {
      const WorkerIdentity id =
          identity(r == 0 ? api::Role::Master : api::Role::Trainer, r, trainers, port);
      threads_.emplace_back([id, timeouts, body] {
        Rendezvous rendezvous(id, timeouts);
        body(id.rank, rendezvous);
      });
    }
  }
  ~StoreRanks() {
    release();
    for (auto& t : threads_) t.join();
  }
  void release() {
    std::call_once(releaseOnce_, [this] { release_.set_value(); });
  }
  void awaitRelease() const { released_.wait(); }

 private:
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
  std::once_flag releaseOnce_;
  std::vector<std::thread> threads_;
};

TEST(RunControl, BarrierNamesTheTrainerThatKeepsBeatingButNeverArrives) {
  std::promise<std::string> outcome;
  auto result = outcome.get_future();
  const auto start = Clock::now();
  StoreRanks ranks(2, [&](int rank, Rendezvous& rendezvous) {
    if (rank == 0) return ranks.awaitRelease();  // keeps the store up
    if (rank == 2) {                               // alive, but never at the barrier
      StoreHeartbeat heartbeat(rendezvous);
      return ranks.awaitRelease();
    }
    RunControl control(rendezvous);
    try {
      control.barrier("row", 2);
      outcome.set_value("barrier passed");
    } catch (const PeerError& e) {
      outcome.set_value(e.what());
    }
  });
  ASSERT_EQ(result.wait_for(seconds(20)), std::future_status::ready) << "barrier still waiting";
  const auto took = Clock::now() - start;
  const std::string message = result.get();
  EXPECT_NE(message.find("barrier row: trainer1 (rank 2) did not arrive"), std::string::npos)
      << message;
  // The 2 s window, plus rendezvous and polling, well below the test limit.
  EXPECT_LT(took, seconds(8)) << message;
  ranks.release();
}

TEST(RunControl, CollectNamesTheTrainerThatKeepsBeatingButNeverDelivers) {
  std::promise<std::string> outcome;
  auto result = outcome.get_future();
  const auto start = Clock::now();
  StoreRanks ranks(1, [&](int rank, Rendezvous& rendezvous) {
    if (rank == 1) {
      StoreHeartbeat heartbeat(rendezvous);
      return ranks.awaitRelease();
    }
    RunControl control(rendezvous);
    try {
      control.collect("params/0", 0);
      outcome.set_value("collected");
    } catch (const PeerError& e) {
      outcome.set_value(e.what());
    }
    ranks.awaitRelease();  // the store stays up until the trainer is done with it
  });
  ASSERT_EQ(result.wait_for(seconds(20)), std::future_status::ready) << "collect still waiting";
  const auto took = Clock::now() - start;
  const std::string message = result.get();
  EXPECT_NE(message.find("master: no params/0 results from trainer0 (rank 1)"), std::string::npos)
      << message;
  EXPECT_LT(took, seconds(8)) << message;
  ranks.release();
}

TEST(RunControl, ProgressKeepsABarrierWaiting) {
  // trainer1 takes three windows to arrive but marks progress meanwhile, as
  // a DDP row's iterations do: the barrier waits for it.
  std::promise<std::string> outcome;
  auto result = outcome.get_future();
  StoreRanks ranks(2, [&](int rank, Rendezvous& rendezvous) {
    if (rank == 0) return ranks.awaitRelease();
    RunControl control(rendezvous);
    if (rank == 2) {
      const auto until = Clock::now() + 3 * control.progressWindow();
      while (Clock::now() < until) {
        control.checkStillOn();
        std::this_thread::sleep_for(milliseconds(50));
      }
    }
    try {
      control.barrier("slow", 2);
      if (rank == 1) outcome.set_value("passed");
    } catch (const PeerError& e) {
      if (rank == 1) outcome.set_value(e.what());
    }
  });
  ASSERT_EQ(result.wait_for(seconds(30)), std::future_status::ready);
  EXPECT_EQ(result.get(), "passed");
  ranks.release();
}

}  // namespace
}  // namespace distbench::worker
