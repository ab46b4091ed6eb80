#include "distbench/operator/benchmarks/rank_log_tail.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "distbench/kube/kube_client.h"

namespace distbench::op {
namespace {

// A kubelet's answer to tailLines / limitBytes: the last `lines` lines of
// `log`, then the first `bytes` of those.
struct Kubelet {
  explicit Kubelet(std::string text, bool ignoring = false)
      : log(std::move(text)), ignoresLimit(ignoring) {}

  std::string log;
  bool ignoresLimit;
  std::vector<std::string> asked;

  std::string operator()(const std::string& query, std::size_t maxBytes) {
    asked.push_back(query);
    const std::size_t lines = std::stoul(query.substr(query.find("tailLines=") + 10));
    std::vector<std::string> all;
    for (std::size_t at = 0; at < log.size();) {
      const std::size_t end = log.find('\n', at);
      all.push_back(log.substr(at, end - at + 1));
      at = end + 1;
    }
    std::string tail;
    for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i)
      tail += all[i];
    if (ignoresLimit && tail.size() > maxBytes) throw kube::ResponseTooLarge(200, maxBytes, "big");
    const std::size_t bytes = std::stoul(query.substr(query.find("limitBytes=") + 11));
    return tail.substr(0, bytes);
  }
};

TEST(RankLogTail, ALogWithinTheBoundIsReadOnce) {
  Kubelet kubelet("a\nb\nc\n");
  EXPECT_EQ(readLogTail(std::ref(kubelet), 2, 100), "b\nc\n");
  EXPECT_EQ(kubelet.asked, std::vector<std::string>{"container=worker&tailLines=2&limitBytes=100"});
}

TEST(RankLogTail, LinesPastTheBoundAreAskedForAgainFewer) {
  std::string log;
  for (int i = 0; i < 100; ++i) log += std::string(50, 'x') + "\n";
  log += "the newest\n";
  Kubelet kubelet(log);
  // 100 lines of 51 bytes pass 1000; the kubelet would cut the newest off.
  const std::string tail = readLogTail(std::ref(kubelet), 100, 1000);
  EXPECT_EQ(tail.substr(tail.size() - 11), "the newest\n") << tail;
  EXPECT_LT(tail.size(), 1000u);
  Kubelet ignoring(log, true);
  const std::string again = readLogTail(std::ref(ignoring), 100, 1000);
  EXPECT_EQ(again.substr(again.size() - 11), "the newest\n");
  // 100 lines, then 25 (still 1235 bytes), then 6.
  EXPECT_EQ(ignoring.asked,
            (std::vector<std::string>{"container=worker&tailLines=100&limitBytes=1000",
                                      "container=worker&tailLines=25&limitBytes=1000",
                                      "container=worker&tailLines=6&limitBytes=1000"}));
}

TEST(RankLogTail, ALastLineLongerThanTheBoundGivesItsStart) {
  Kubelet kubelet("short\n" + std::string(5000, 'y') + "\n");
  EXPECT_EQ(readLogTail(std::ref(kubelet), 100, 1000), std::string(1000, 'y'));
  EXPECT_EQ(kubelet.asked.back(), "container=worker&tailLines=1&limitBytes=1000");
  Kubelet ignoring("short\n" + std::string(5000, 'y') + "\n", true);
  EXPECT_EQ(readLogTail(std::ref(ignoring), 100, 1000), "");
}

}  // namespace
}  // namespace distbench::op
