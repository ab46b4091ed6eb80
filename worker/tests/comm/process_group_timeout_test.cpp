// Forming a Gloo group ends at the group's timeout, not at the five times
// it that Gloo allows a pair's first connection (group_formation.h): a peer
// that published its address and then went silent costs peerTimeoutSeconds,
// not 5 x peerTimeoutSeconds.
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO  // Debian's header is empty without it
#endif
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>  // the backend's complete type

#include "distbench/process/eventually.h"
#include "distbench/worker/comm/c10d_backends.h"
#include "distbench/worker/comm/group_formation.h"
#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/comm/process_group.h"

namespace distbench::worker {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A rank's view of the store that holds it right after it has published
// its pair addresses (Gloo's key "<device>/<rank>"; the hostname it writes
// first, "rank_<rank>", is let through): the rank has told its peers where
// to find it and then never connects, as a process stopped or cut off
// after publishing.
class StallAfterPublishing : public c10d::PrefixStore {
 public:
  StallAfterPublishing(const std::string& prefix, c10::intrusive_ptr<c10d::Store> store, int rank)
      : c10d::PrefixStore(prefix, std::move(store)), rank_(std::to_string(rank)) {}
  using c10d::PrefixStore::set;

  void set(const std::string& key, const std::vector<uint8_t>& value) override {
    c10d::PrefixStore::set(key, value);
    if (key.substr(key.rfind('/') + 1) != rank_) return;
    std::unique_lock<std::mutex> lock(mutex_);
    stalled_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return released_; });
  }

  bool awaitStalled(std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [this] { return stalled_; });
  }

  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

 private:
  const std::string rank_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stalled_ = false;
  bool released_ = false;
};

TEST(ProcessGroupTimeout, FormingAGlooGroupGivesUpAtTheTimeoutNamingTheGroup) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  auto silent = c10::make_intrusive<StallAfterPublishing>("formation", store, 1);
  // Gloo lets the lower address listen and the higher connect: the silent
  // peer on 127.0.0.2 is the one that must connect, so this rank waits for
  // it (both are loopback addresses on Linux). The peer publishes once this
  // rank has written its host name, so both start together.
  std::thread peer([silent] {
    try {
      makeGlooBackend(silent, 1, 2, "127.0.0.2", 10s);
    } catch (const std::exception&) {
      // Whatever became of this rank's side is not what is tested.
    }
  });

  GroupOptions options;
  options.hostname = "127.0.0.1";
  options.timeout = 2s;
  const auto start = Clock::now();
  std::string error = "(no error)";
  bool peerError = false;
  try {
    ProcessGroup group(
        c10::make_intrusive<c10d::PrefixStore>("formation", store), 0, 2, options, [](int r) {
          return r < 0 ? std::string("the test group") : "test rank " + std::to_string(r);
        });
  } catch (const PeerError& e) {
    peerError = true;
    error = e.what();
  } catch (const std::exception& e) {
    error = e.what();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("[ figure ] forming a Gloo group with a silent peer, timeout 2 s: %.2f s\n", seconds);
  EXPECT_TRUE(silent->awaitStalled(0s)) << "the peer never published its address: " << error;
  EXPECT_LT(seconds, 3.0) << error;
  EXPECT_TRUE(peerError) << error;
  EXPECT_EQ(error,
            "forming the Gloo group with test rank 1 (2 ranks) failed after at most 2 s: not every "
            "rank connected within the timeout (peerTimeoutSeconds)");

  // The peer connects after all; both sides then finish, so no thread
  // outlives the test.
  silent->release();
  peer.join();
  EXPECT_TRUE(process::eventually([] { return abandonedFormations() == 0; }, 20s))
      << abandonedFormations() << " formation(s) still running";
}

TEST(ProcessGroupTimeout, AFormationInTimeReturnsItsBackendAndAFailureItsError) {
  BackendHandle formed = formWithin([] { return BackendHandle{}; }, 2s, "a group");
  EXPECT_FALSE(formed.backend);
  try {
    formWithin([]() -> BackendHandle { throw std::runtime_error("refused"); }, 2s, "a group");
    FAIL() << "no error";
  } catch (const PeerError&) {
    FAIL() << "a failure before the timeout is not turned into a timeout";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "refused");
  }
}

}  // namespace
}  // namespace distbench::worker
