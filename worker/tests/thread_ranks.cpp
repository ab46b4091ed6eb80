#include "thread_ranks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "gpu/torch_cuda.h"

namespace distbench::worker {

GroupOptions loopbackGloo() {
  GroupOptions options;
  options.hostname = "127.0.0.1";
  options.timeout = std::chrono::seconds(30);
  return options;
}

std::vector<std::string> runRanksCollectingErrors(int world, const std::string& name,
                                                  const RankBody& body,
                                                  const GroupOptions& options, bool keepGroups) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(world);
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        // A thread starts on GPU 0; the group's tensors may be elsewhere.
        if (options.device.isCuda()) useCudaDevice(options.device.index());
        auto group = std::make_unique<ProcessGroup>(
            c10::make_intrusive<c10d::PrefixStore>(name, store), r, world, options,
            [](int k) { return "rank " + std::to_string(k); });
        ProcessGroup& g = *group;
        if (keepGroups) group.release();
        body(r, g);
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
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
