#include "support/thread_ranks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "distbench/worker/gpu/torch_cuda.h"

namespace distbench::worker {

namespace {

// Holds each rank's thread at one point until every rank has reached it,
// or until a deadline.
class RankGate {
 public:
  explicit RankGate(int world) : world_(world) {}

  // Arrives (`ok`: this rank got here as it should) and waits for the
  // others until `timeout` from now. True when every rank arrived, all ok.
  bool arriveAndWait(bool ok, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(m_);
    ++arrived_;
    allOk_ = allOk_ && ok;
    cv_.notify_all();
    const bool all = cv_.wait_for(lock, timeout, [&] { return arrived_ == world_; });
    return all && allOk_;
  }

 private:
  const int world_;
  std::mutex m_;
  std::condition_variable cv_;
  int arrived_ = 0;
  bool allOk_ = true;
};

}  // namespace

GroupOptions loopbackGloo() {
  GroupOptions options;
  options.hostname = "127.0.0.1";
  options.timeout = std::chrono::seconds(30);
  return options;
}

// No rank's group is torn down while another rank may still be joining or
// using it. Gloo's TCP pairs (libgloo 2022-05, LibTorch 1.13) count as
// connected on the connecting side once the kernel has completed the
// handshake, before the listening side has accepted: a rank whose body has
// nothing to do, if it closed its group at once, could close a connection
// its peer had yet to accept. That peer's constructor then failed ("Connection
// closed by peer"), and its own not-yet-connected pairs went with it, so a
// third rank listening for one of them waited out Gloo's initial-connect
// timeout, five times the group's (150 s with loopbackGloo's 30 s), past
// ctest's 120 s. Likewise a rank that closed right after its last send
// completed (Gloo completes a send once the kernel has the bytes) could
// reset the connection before its peer read them. So every rank first waits
// for every group to be built, then runs its body, then waits for every body
// to return before its group goes: both waits end at the group's timeout.
std::vector<std::string> runRanksCollectingErrors(int world, const std::string& name,
                                                  const RankBody& body,
                                                  const GroupOptions& options, bool keepGroups) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(world);
  RankGate built(world);
  RankGate finished(world);
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      std::unique_ptr<ProcessGroup> group;
      try {
        // A thread starts on GPU 0; the group's tensors may be elsewhere.
        if (options.device.isCuda()) useCudaDevice(options.device.index());
        group = std::make_unique<ProcessGroup>(
            c10::make_intrusive<c10d::PrefixStore>(name, store), r, world, options,
            [](int k) { return "rank " + std::to_string(k); });
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
      if (built.arriveAndWait(group != nullptr, options.timeout)) {
        try {
          body(r, *group);
        } catch (const std::exception& e) {
          errors[r] = e.what();
        }
      } else if (group) {
        errors[r] = "not run: the other ranks' groups were not all built within " +
                    std::to_string(options.timeout.count() / 1000) + " s";
      }
      finished.arriveAndWait(true, options.timeout);
      // Left to a role's threads that outlive the body (see keepGroups).
      if (keepGroups) group.release();
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

void runRanks(int world, const std::string& name, const RankBody& body,
              const GroupOptions& options) {
  auto errors = runRanksCollectingErrors(world, name, body, options);
  for (int r = 0; r < world; ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
}

}  // namespace distbench::worker
