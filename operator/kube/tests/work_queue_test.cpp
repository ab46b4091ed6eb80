#include "distbench/kube/work_queue.h"

#include <gtest/gtest.h>

#include <future>
#include <stdexcept>
#include <string>
#include <vector>

#include "manual_clock.h"

namespace distbench::kube {
namespace {

using namespace std::chrono_literals;
using testing::ManualClock;

constexpr Clock::Duration kNoWait = Clock::Duration::zero();
// Real time allowed for another thread to react; only a bug waits this long.
constexpr auto kRealTimeLimit = 10s;

// get() on another thread, so that one that wrongly blocks fails the test
// instead of hanging it.
std::optional<std::string> getOrFail(WorkQueue& queue, Clock::Duration timeout) {
  auto result = std::async(std::launch::async, [&] { return queue.get(timeout); });
  if (result.wait_for(kRealTimeLimit) != std::future_status::ready) {
    ADD_FAILURE() << "get() still blocked after 10 s";
    queue.shutDown();
  }
  return result.get();
}

// Declared after a test's futures, so that a get() that a bug left blocked is
// woken before the future's destructor waits for it.
struct ShutDownAtExit {
  ~ShutDownAtExit() { queue.shutDown(); }
  WorkQueue& queue;
};

TEST(WorkQueue, DeduplicatesAKeyAddedBeforeItIsTaken) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  queue.add("a");
  queue.add("a");
  queue.add("a");
  queue.add("b");
  EXPECT_EQ(queue.length(), 2u);
  EXPECT_EQ(queue.get(kNoWait), "a");
  EXPECT_EQ(queue.get(kNoWait), "b");
  EXPECT_EQ(queue.get(kNoWait), std::nullopt);
}

TEST(WorkQueue, KeyAddedWhileProcessedIsHandedOutOnceAfterDone) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  queue.add("a");
  ASSERT_EQ(queue.get(kNoWait), "a");
  queue.add("a");
  queue.add("a");
  EXPECT_EQ(queue.length(), 0u);
  EXPECT_EQ(queue.get(kNoWait), std::nullopt);
  queue.done("a");
  EXPECT_EQ(queue.length(), 1u);
  EXPECT_EQ(queue.get(kNoWait), "a");
  queue.done("a");
  EXPECT_EQ(queue.get(kNoWait), std::nullopt);
}

TEST(WorkQueue, WaitingWorkerIsNotHandedAKeyAnotherWorkerHolds) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  queue.add("a");
  ASSERT_EQ(queue.get(kNoWait), "a");
  auto second = std::async(std::launch::async, [&] { return queue.get(1h); });
  ShutDownAtExit wake{queue};
  // "a" first: a queue that ignored the processing set would hand it out.
  queue.add("a");
  queue.add("b");
  ASSERT_EQ(second.wait_for(kRealTimeLimit), std::future_status::ready);
  EXPECT_EQ(second.get(), "b");
  queue.done("a");
  EXPECT_EQ(queue.get(kNoWait), "a");
}

TEST(WorkQueue, AddAfterHandsKeysOutInDeadlineOrder) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  queue.addAfter("c", 30ms);
  queue.addAfter("a", 10ms);
  queue.addAfter("b", 20ms);
  EXPECT_EQ(queue.length(), 0u);
  clock.advance(10ms - 1ns);
  EXPECT_EQ(queue.get(kNoWait), std::nullopt);
  clock.advance(1ns);
  EXPECT_EQ(queue.get(kNoWait), "a");
  clock.advance(15ms);
  EXPECT_EQ(queue.get(kNoWait), "b");
  EXPECT_EQ(queue.get(kNoWait), std::nullopt);
  clock.advance(5ms);
  EXPECT_EQ(queue.get(kNoWait), "c");
}

TEST(WorkQueue, AddAfterKeepsTheEarliestDeadline) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  queue.addAfter("a", 50ms);
  queue.addAfter("a", 10ms);
  queue.addAfter("a", 30ms);
  clock.advance(10ms);
  EXPECT_EQ(queue.get(kNoWait), "a");
  queue.done("a");
  // The later deadlines were merged into the first, not left to fire again.
  clock.advance(1h);
  EXPECT_EQ(queue.length(), 0u);
}

TEST(WorkQueue, AddAfterWithoutDelayIsAdd) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  queue.addAfter("a", 0ms);
  queue.addAfter("b", -5ms);
  EXPECT_EQ(queue.get(kNoWait), "a");
  EXPECT_EQ(queue.get(kNoWait), "b");
}

TEST(WorkQueue, BlockedGetWakesForAnAdd) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  auto got = std::async(std::launch::async, [&] { return queue.get(1h); });
  ShutDownAtExit wake{queue};
  queue.add("a");
  ASSERT_EQ(got.wait_for(kRealTimeLimit), std::future_status::ready);
  EXPECT_EQ(got.get(), "a");
}

TEST(WorkQueue, BlockedGetWakesWhenADelayedKeyComesDue) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  auto got = std::async(std::launch::async, [&] { return queue.get(1h); });
  ShutDownAtExit wake{queue};
  queue.addAfter("a", 10ms);
  EXPECT_EQ(got.wait_for(20ms), std::future_status::timeout);
  clock.advance(10ms);
  ASSERT_EQ(got.wait_for(kRealTimeLimit), std::future_status::ready);
  EXPECT_EQ(got.get(), "a");
}

TEST(WorkQueue, GetTimesOutOnTheQueueClock) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  auto got = std::async(std::launch::async, [&] { return queue.get(1s); });
  ShutDownAtExit wake{queue};
  EXPECT_TRUE(clock.awaitWaiters(1));
  clock.advance(999ms);
  EXPECT_EQ(got.wait_for(20ms), std::future_status::timeout);
  clock.advance(1ms);
  ASSERT_EQ(got.wait_for(kRealTimeLimit), std::future_status::ready);
  EXPECT_EQ(got.get(), std::nullopt);
}

TEST(WorkQueue, GetTimesOutInRealTime) {
  WorkQueue queue;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(queue.get(20ms), std::nullopt);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
}

TEST(WorkQueue, RateLimitedAddWaitsForTheKeysBackoffAndForgetResetsIt) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  for (Clock::Duration expected : {5ms, 10ms, 20ms}) {
    queue.addRateLimited("a");
    clock.advance(expected - 1ns);
    EXPECT_EQ(queue.get(kNoWait), std::nullopt) << "before " << expected.count() << " ns";
    clock.advance(1ns);
    EXPECT_EQ(queue.get(kNoWait), "a") << "at " << expected.count() << " ns";
    queue.done("a");
  }
  EXPECT_EQ(queue.numRequeues("a"), 3);
  queue.forget("a");
  EXPECT_EQ(queue.numRequeues("a"), 0);
  queue.addRateLimited("a");
  clock.advance(5ms);
  EXPECT_EQ(queue.get(kNoWait), "a");
}

TEST(WorkQueue, BackoffIsPerKey) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  for (int i = 0; i < 3; ++i) queue.addRateLimited("a");
  queue.addRateLimited("b");
  EXPECT_EQ(queue.numRequeues("a"), 3);
  EXPECT_EQ(queue.numRequeues("b"), 1);
  clock.advance(5ms);
  // "a" was first due at 5 ms too: the later, longer delays do not push back
  // the earliest deadline.
  EXPECT_EQ(queue.length(), 2u);
}

TEST(WorkQueue, BackoffBaseAndCapAreConfigurable) {
  ManualClock clock;
  WorkQueueOptions options;
  options.baseBackoff = 1ms;
  options.maxBackoff = 4ms;
  WorkQueue queue(options, clock);
  for (Clock::Duration expected : {1ms, 2ms, 4ms, 4ms, 4ms}) {
    queue.addRateLimited("a");
    clock.advance(expected - 1ns);
    EXPECT_EQ(queue.length(), 0u) << "before " << expected.count() << " ns";
    clock.advance(1ns);
    EXPECT_EQ(queue.get(kNoWait), "a") << "at " << expected.count() << " ns";
    queue.done("a");
  }
}

TEST(WorkQueue, AKeyTheApiServerDidNotAnswerIsRetriedWithinFiveSeconds) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  // 30 s of failures while the server is down: 5 ms, 10 ms, ... then 5 s.
  Clock::Duration down{};
  while (down < 30s) {
    queue.addRateLimited("a", RetryCause::kUnavailable);
    ASSERT_EQ(queue.get(kNoWait), std::nullopt);
    Clock::Duration waited{};
    while (!queue.length()) {
      clock.advance(1ms);
      waited += 1ms;
      ASSERT_LE(waited, 5s) << "after " << std::chrono::duration<double>(down).count() << " s down";
    }
    down += waited;
    ASSERT_EQ(queue.get(kNoWait), "a");
    queue.done("a");
  }
  // Any other failure still backs off as client-go's: the count went on.
  const int failures = queue.numRequeues("a");
  queue.addRateLimited("a");
  clock.advance(5s);
  EXPECT_EQ(queue.length(), 0u) << failures << " failures";
}

TEST(WorkQueue, InterruptWakesBlockedGetsAndKeepsTheKeys) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  queue.addAfter("later", 1h);
  std::vector<std::future<std::optional<std::string>>> gets;
  ShutDownAtExit shutDown{queue};
  for (int i = 0; i < 3; ++i)
    gets.push_back(std::async(std::launch::async, [&] { return queue.get(1h); }));
  // Each getter inside get() before the interrupt, or it would not see it.
  ASSERT_TRUE(clock.awaitWaiters(3));
  queue.interrupt();
  for (auto& got : gets) {
    ASSERT_EQ(got.wait_for(kRealTimeLimit), std::future_status::ready);
    EXPECT_EQ(got.get(), std::nullopt);
  }
  EXPECT_FALSE(queue.shuttingDown());
  queue.add("now");
  EXPECT_EQ(queue.get(kNoWait), "now");
  clock.advance(1h);
  EXPECT_EQ(queue.get(kNoWait), "later");
}

TEST(WorkQueue, OverallRateLimitCapsThroughput) {
  ManualClock clock;
  // A negligible per-key backoff, so that the default bucket (10 qps, burst
  // 100) is what sets the pace.
  WorkQueueOptions options;
  options.baseBackoff = 1ns;
  WorkQueue queue(options, clock);
  for (int i = 0; i < 150; ++i) queue.addRateLimited("k" + std::to_string(i));

  // The burst goes at once, then one key every 100 ms. 1 us of slack absorbs
  // the bucket's floating-point arithmetic.
  const Clock::TimePoint start = clock.now();
  auto readyAt = [&](Clock::Duration since) {
    clock.advance(start + since - clock.now());
    return queue.length();
  };
  EXPECT_EQ(readyAt(1us), 100u);
  EXPECT_EQ(readyAt(100ms - 1us), 100u);
  EXPECT_EQ(readyAt(100ms + 1us), 101u);
  EXPECT_EQ(readyAt(1s + 1us), 110u);
  EXPECT_EQ(readyAt(5s - 1us), 149u);
  EXPECT_EQ(readyAt(5s + 1us), 150u);

  // The bucket was empty at 5 s and refills at 10 qps: full again by 15 s.
  readyAt(15s);
  for (int i = 0; i < 101; ++i) queue.addRateLimited("later" + std::to_string(i));
  EXPECT_EQ(readyAt(15s + 1us), 250u);
  EXPECT_EQ(readyAt(15s + 100ms + 1us), 251u);
}

TEST(WorkQueue, RateLimitedDelayIsTheLongerOfBackoffAndBucket) {
  ManualClock clock;
  WorkQueueOptions options;
  options.baseBackoff = 100ms;
  options.qps = 1;
  options.burst = 1;
  WorkQueue queue(options, clock);
  queue.addRateLimited("a");  // the bucket's only token: backoff decides, 100 ms
  queue.addRateLimited("b");  // a borrowed token: the bucket decides, 1 s
  clock.advance(100ms);
  EXPECT_EQ(queue.get(kNoWait), "a");
  EXPECT_EQ(queue.get(kNoWait), std::nullopt);
  clock.advance(900ms - 1us);
  EXPECT_EQ(queue.get(kNoWait), std::nullopt);
  clock.advance(2us);
  EXPECT_EQ(queue.get(kNoWait), "b");
}

TEST(WorkQueue, ShutDownLetsWorkersDrainReadyKeysThenReturnsNullopt) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  queue.add("a");
  queue.add("b");
  queue.addAfter("c", 1s);
  ASSERT_EQ(queue.get(kNoWait), "a");
  queue.shutDown();
  EXPECT_TRUE(queue.shuttingDown());
  queue.add("d");
  queue.addAfter("e", 1ms);
  queue.addRateLimited("f");
  EXPECT_EQ(queue.numRequeues("f"), 0);
  EXPECT_EQ(getOrFail(queue, 1h), "b");
  // Returns at once despite the hour: nothing more can arrive.
  EXPECT_EQ(getOrFail(queue, 1h), std::nullopt);
  clock.advance(1h);
  EXPECT_EQ(queue.length(), 0u);
  queue.done("a");
  EXPECT_EQ(queue.length(), 0u);
}

TEST(WorkQueue, KeyAddedWhileProcessedSurvivesShutDown) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  queue.add("a");
  ASSERT_EQ(queue.get(kNoWait), "a");
  queue.add("a");
  queue.shutDown();
  queue.done("a");
  EXPECT_EQ(getOrFail(queue, 1h), "a");
  EXPECT_EQ(getOrFail(queue, 1h), std::nullopt);
}

TEST(WorkQueue, ShutDownWakesEveryBlockedGet) {
  ManualClock clock;
  WorkQueue queue({}, clock);
  std::vector<std::future<std::optional<std::string>>> gets;
  for (int i = 0; i < 3; ++i) {
    gets.push_back(std::async(std::launch::async, [&] { return queue.get(1h); }));
  }
  queue.shutDown();
  for (auto& got : gets) {
    ASSERT_EQ(got.wait_for(kRealTimeLimit), std::future_status::ready);
    EXPECT_EQ(got.get(), std::nullopt);
  }
}

class RecordingObserver : public WorkQueueObserver {
 public:
  void depth(std::size_t ready) override { depths.push_back(ready); }
  void added() override { ++adds; }
  void queueLatency(Clock::Duration waited) override { latencies.push_back(waited); }
  void workDuration(Clock::Duration worked) override { durations.push_back(worked); }
  void retried() override { ++retries; }

  std::vector<std::size_t> depths;
  int adds = 0;
  std::vector<Clock::Duration> latencies;
  std::vector<Clock::Duration> durations;
  int retries = 0;
};

TEST(WorkQueue, ReportsMetrics) {
  ManualClock clock;
  auto observer = std::make_shared<RecordingObserver>();
  WorkQueueOptions options;
  options.observer = observer;
  WorkQueue queue(options, clock);

  queue.add("a");
  queue.add("a");  // absorbed: not an add
  clock.advance(7ms);
  ASSERT_EQ(queue.get(kNoWait), "a");
  clock.advance(3ms);
  queue.done("a");
  queue.addAfter("b", 5ms);
  queue.addRateLimited("c");  // 5 ms backoff
  clock.advance(8ms);
  ASSERT_EQ(queue.get(kNoWait), "b");

  EXPECT_EQ(observer->adds, 3);
  EXPECT_EQ(observer->retries, 2);
  EXPECT_EQ(observer->depths, (std::vector<std::size_t>{1, 0, 1, 2, 1}));
  // "b" counts from its deadline, not from when get() noticed it.
  EXPECT_EQ(observer->latencies, (std::vector<Clock::Duration>{7ms, 3ms}));
  EXPECT_EQ(observer->durations, (std::vector<Clock::Duration>{3ms}));
}

TEST(WorkQueue, RejectsOutOfRangeOptions) {
  WorkQueueOptions zeroQps;
  zeroQps.qps = 0;
  EXPECT_THROW(WorkQueue{zeroQps}, std::invalid_argument);
  WorkQueueOptions noBurst;
  noBurst.burst = 0;
  EXPECT_THROW(WorkQueue{noBurst}, std::invalid_argument);
  WorkQueueOptions baseAboveMax;
  baseAboveMax.baseBackoff = 2s;
  baseAboveMax.maxBackoff = 1s;
  EXPECT_THROW(WorkQueue{baseAboveMax}, std::invalid_argument);
  WorkQueueOptions unavailableBelowBase;
  unavailableBelowBase.baseBackoff = 2s;
  unavailableBelowBase.maxBackoff = 10s;
  unavailableBelowBase.unavailableMaxBackoff = 1s;
  EXPECT_THROW(WorkQueue{unavailableBelowBase}, std::invalid_argument);
}

}  // namespace
}  // namespace distbench::kube
