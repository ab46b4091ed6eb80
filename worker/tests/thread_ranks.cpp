#include "thread_ranks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

namespace distbench::worker {

std::vector<std::string> runRanksCollectingErrors(int world, const std::string& name,
                                                  const RankBody& body) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(world);
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        ProcessGroup group(c10::make_intrusive<c10d::PrefixStore>(name, store), r, world,
                           "127.0.0.1", std::chrono::seconds(30),
                           [](int k) { return "rank " + std::to_string(k); });
        body(r, group);
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

void runRanks(int world, const std::string& name, const RankBody& body) {
  auto errors = runRanksCollectingErrors(world, name, body);
  for (int r = 0; r < world; ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
}

}  // namespace distbench::worker
