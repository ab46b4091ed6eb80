#include "distbench/kube/worker_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "distbench/kube/kube_client.h"
#include "distbench/process/eventually.h"
#include "manual_clock.h"

namespace distbench::kube {
namespace {

using namespace std::chrono_literals;
using process::eventually;
using testing::ManualClock;

// Real time allowed for a worker to react; only a bug waits this long.
constexpr auto kRealTimeLimit = 10s;

// Counts done() calls: the pool calls done() last, after any requeue, so a
// test that has seen the nth done() sees everything the nth reconcile caused.
class DoneCounter : public WorkQueueObserver {
 public:
  void workDuration(Clock::Duration) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++done_;
    cv_.notify_all();
  }

  bool waitFor(int count) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kRealTimeLimit, [&] { return done_ >= count; });
  }

  int count() {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int done_ = 0;
};

struct Fixture {
  explicit Fixture(Clock& clock) : queue(optionsWith(counter), clock) {}
  Fixture() : queue(optionsWith(counter)) {}

  static WorkQueueOptions optionsWith(std::shared_ptr<DoneCounter>& counter) {
    counter = std::make_shared<DoneCounter>();
    WorkQueueOptions options;
    options.observer = counter;
    return options;
  }

  std::shared_ptr<DoneCounter> counter;
  WorkQueue queue;
};

WorkerPool::Options workers(int count) {
  WorkerPool::Options options;
  options.workers = count;
  return options;
}

TEST(WorkerPool, ReconcilesDistinctKeysConcurrently) {
  Fixture f;
  std::mutex mu;
  std::condition_variable cv;
  int inFlight = 0;
  int mostInFlight = 0;
  // Each reconcile waits until all four are inside at once: serial workers
  // would each give up after the time limit having seen only themselves.
  WorkerPool pool(
      f.queue,
      [&](const std::string&) {
        std::unique_lock<std::mutex> lock(mu);
        mostInFlight = std::max(mostInFlight, ++inFlight);
        cv.notify_all();
        cv.wait_for(lock, kRealTimeLimit, [&] { return mostInFlight == 4; });
        --inFlight;
        return Result{};
      },
      workers(4));
  pool.start();
  for (const char* key : {"a", "b", "c", "d"}) f.queue.add(key);
  ASSERT_TRUE(f.counter->waitFor(4));
  EXPECT_EQ(mostInFlight, 4);
  EXPECT_TRUE(pool.stop(kRealTimeLimit));
}

TEST(WorkerPool, NeverReconcilesOneKeyOnTwoWorkersAtOnce) {
  Fixture f;
  std::mutex mu;
  std::map<std::string, int> inFlight;
  std::map<std::string, int> reconciles;
  bool overlapped = false;
  WorkerPool pool(
      f.queue,
      [&](const std::string& key) {
        {
          std::lock_guard<std::mutex> lock(mu);
          if (++inFlight[key] > 1) overlapped = true;
          ++reconciles[key];
        }
        // Long enough that the adds below land while the key is in flight.
        std::this_thread::sleep_for(1ms);
        std::lock_guard<std::mutex> lock(mu);
        --inFlight[key];
        return Result{};
      },
      workers(4));
  pool.start();
  for (int i = 0; i < 200; ++i) {
    f.queue.add("a");
    f.queue.add("b");
    std::this_thread::sleep_for(200us);
  }
  ASSERT_TRUE(pool.stop(kRealTimeLimit));
  EXPECT_FALSE(overlapped);
  // Adds during a reconcile came back as later reconciles, not lost.
  EXPECT_GE(reconciles["a"], 2);
  EXPECT_GE(reconciles["b"], 2);
}

TEST(WorkerPool, FailedReconcileIsRetriedWithBackoffAndCounted) {
  ManualClock clock;
  Fixture f(clock);
  std::atomic<int> calls{0};
  std::vector<std::pair<std::string, std::string>> errors;
  WorkerPool::Options options = workers(1);
  options.onError = [&](const std::string& key, const std::string& error) {
    errors.emplace_back(key, error);
  };
  WorkerPool pool(
      f.queue,
      [&](const std::string&) {
        if (++calls <= 2) throw std::runtime_error("boom");
        return Result{};
      },
      options);
  pool.start();

  f.queue.add("a");
  ASSERT_TRUE(f.counter->waitFor(1));
  EXPECT_EQ(pool.errors(), 1u);
  EXPECT_EQ(f.queue.numRequeues("a"), 1);
  clock.advance(5ms - 1ns);
  EXPECT_EQ(f.queue.length(), 0u);
  clock.advance(1ns);
  ASSERT_TRUE(f.counter->waitFor(2));
  EXPECT_EQ(pool.errors(), 2u);
  EXPECT_EQ(f.queue.numRequeues("a"), 2);
  clock.advance(10ms);
  ASSERT_TRUE(f.counter->waitFor(3));
  // Success forgets the failures.
  EXPECT_EQ(f.queue.numRequeues("a"), 0);
  EXPECT_EQ(pool.errors(), 2u);
  EXPECT_TRUE(pool.stop(kRealTimeLimit));
  EXPECT_EQ(calls, 3);
  using Error = std::pair<std::string, std::string>;
  EXPECT_EQ(errors, (std::vector<Error>{{"a", "boom"}, {"a", "boom"}}));
}

TEST(WorkerPool, RequeueAfterReconcilesAgainAfterTheDelayAndResetsBackoff) {
  ManualClock clock;
  Fixture f(clock);
  std::atomic<int> calls{0};
  WorkerPool pool(
      f.queue,
      [&](const std::string&) {
        int call = ++calls;
        if (call == 1) throw std::runtime_error("first");
        Result result;
        if (call == 2) result.requeueAfter = 30s;
        return result;
      },
      workers(1));
  pool.start();

  f.queue.add("a");
  ASSERT_TRUE(f.counter->waitFor(1));
  EXPECT_EQ(f.queue.numRequeues("a"), 1);
  clock.advance(5ms);
  ASSERT_TRUE(f.counter->waitFor(2));
  EXPECT_EQ(f.queue.numRequeues("a"), 0);
  clock.advance(30s - 1ms);
  EXPECT_EQ(f.queue.length(), 0u);
  EXPECT_EQ(calls, 2);
  clock.advance(1ms);
  ASSERT_TRUE(f.counter->waitFor(3));
  EXPECT_TRUE(pool.stop(kRealTimeLimit));
  EXPECT_EQ(calls, 3);
}

TEST(WorkerPool, RequeueRetriesWithBackoffWithoutCountingAnError) {
  ManualClock clock;
  Fixture f(clock);
  std::atomic<int> calls{0};
  WorkerPool pool(
      f.queue,
      [&](const std::string&) {
        Result result;
        result.requeue = ++calls == 1;
        return result;
      },
      workers(1));
  pool.start();

  f.queue.add("a");
  ASSERT_TRUE(f.counter->waitFor(1));
  EXPECT_EQ(f.queue.numRequeues("a"), 1);
  EXPECT_EQ(pool.errors(), 0u);
  clock.advance(5ms);
  ASSERT_TRUE(f.counter->waitFor(2));
  EXPECT_EQ(f.queue.numRequeues("a"), 0);
  EXPECT_TRUE(pool.stop(kRealTimeLimit));
  EXPECT_EQ(calls, 2);
}

TEST(WorkerPool, StopDrainsReadyKeysAndJoins) {
  Fixture f;
  std::mutex mu;
  std::vector<std::string> seen;
  WorkerPool pool(
      f.queue,
      [&](const std::string& key) {
        std::this_thread::sleep_for(1ms);
        std::lock_guard<std::mutex> lock(mu);
        seen.push_back(key);
        return Result{};
      },
      workers(2));
  for (int i = 0; i < 20; ++i) f.queue.add("k" + std::to_string(i));
  pool.start();
  ASSERT_TRUE(pool.stop(kRealTimeLimit));
  EXPECT_EQ(seen.size(), 20u);
  EXPECT_EQ(f.queue.length(), 0u);
  f.queue.add("late");
  EXPECT_EQ(f.queue.length(), 0u);
}

TEST(WorkerPool, StopGivesUpOnAStuckReconcileAndTheDestructorStillJoins) {
  Fixture f;
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false;
  bool released = false;
  {
    WorkerPool pool(
        f.queue,
        [&](const std::string&) {
          std::unique_lock<std::mutex> lock(mu);
          entered = true;
          cv.notify_all();
          cv.wait_for(lock, kRealTimeLimit, [&] { return released; });
          return Result{};
        },
        workers(1));
    pool.start();
    f.queue.add("a");
    {
      std::unique_lock<std::mutex> lock(mu);
      ASSERT_TRUE(cv.wait_for(lock, kRealTimeLimit, [&] { return entered; }));
    }
    EXPECT_FALSE(pool.stop(50ms));
    {
      std::lock_guard<std::mutex> lock(mu);
      released = true;
    }
    cv.notify_all();
  }
  EXPECT_EQ(f.counter->count(), 1);
}

TEST(WorkerPool, AnApiServerThatDoesNotAnswerIsRetriedWithinTheShorterCap) {
  ManualClock clock;
  std::shared_ptr<DoneCounter> counter;
  WorkQueueOptions options = Fixture::optionsWith(counter);
  options.unavailableMaxBackoff = 10ms;  // base 5 ms: 5, 10, 10, ...
  WorkQueue queue(options, clock);
  std::atomic<int> code{0};  // -1: success
  WorkerPool pool(
      queue,
      [&](const std::string& key) -> Result {
        const int c = key == "refused" ? 403 : code.load();
        if (c < 0) return Result{};
        throw KubeApiError(c, "", "GET /" + key + ": HTTP " + std::to_string(c));
      },
      workers(1));
  pool.start();
  int done = 0;
  // Connection refused, 503, 429: tries 5, 10, then 10 ms apart.
  for (int c : {0, 503, 429}) {
    code = c;
    queue.add("down");
    for (Clock::Duration wait : {0ms, 5ms, 10ms, 10ms}) {
      clock.advance(wait);
      ASSERT_TRUE(counter->waitFor(++done)) << "HTTP " << c << ", after " << wait.count() << " ns";
    }
    EXPECT_EQ(queue.numRequeues("down"), 4);
    code = -1;  // back: the pending retry succeeds and forgets
    clock.advance(10ms);
    ASSERT_TRUE(counter->waitFor(++done));
    EXPECT_EQ(queue.numRequeues("down"), 0);
  }

  // A refusal is no outage: the ordinary backoff, 20 ms before the fourth.
  queue.add("refused");
  for (Clock::Duration wait : {0ms, 5ms, 10ms}) {
    clock.advance(wait);
    ASSERT_TRUE(counter->waitFor(++done));
  }
  clock.advance(10ms);
  EXPECT_EQ(queue.length(), 0u);
  clock.advance(10ms);
  ASSERT_TRUE(counter->waitFor(++done));
  EXPECT_TRUE(pool.stop(kRealTimeLimit));
}

TEST(WorkerPool, PauseEndsTheReconcileInHandTakesNoOtherKeyAndStartGoesOn) {
  Fixture f;
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false;
  bool released = false;
  std::vector<std::string> seen;
  WorkerPool pool(
      f.queue,
      [&](const std::string& key) {
        std::unique_lock<std::mutex> lock(mu);
        seen.push_back(key);
        if (key == "slow") {
          entered = true;
          cv.notify_all();
          cv.wait_for(lock, kRealTimeLimit, [&] { return released; });
        }
        return Result{};
      },
      workers(2));
  pool.start();
  f.queue.add("slow");
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, kRealTimeLimit, [&] { return entered; }));
  }
  auto paused = std::async(std::launch::async, [&] { return pool.pause(kRealTimeLimit); });
  // Not done while "slow" runs; keys added meanwhile wait in the queue.
  EXPECT_EQ(paused.wait_for(50ms), std::future_status::timeout);
  {
    std::lock_guard<std::mutex> lock(mu);
    released = true;
  }
  cv.notify_all();
  ASSERT_EQ(paused.wait_for(kRealTimeLimit), std::future_status::ready);
  EXPECT_TRUE(paused.get());
  f.queue.add("b");
  f.queue.add("c");
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(f.queue.length(), 2u);
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(seen, std::vector<std::string>{"slow"});
  }
  pool.start();
  ASSERT_TRUE(f.counter->waitFor(3));
  EXPECT_TRUE(pool.stop(kRealTimeLimit));
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"b", "c", "slow"}));
}

TEST(WorkerPool, WhileMayReconcileSaysNoKeysWaitUntouchedAndPauseIsAtOnce) {
  ManualClock clock;
  Fixture f(clock);
  std::atomic<bool> leader{false};
  std::atomic<int> calls{0};
  WorkerPool::Options options = workers(2);
  options.mayReconcile = [&] { return leader.load(); };
  WorkerPool pool(
      f.queue,
      [&](const std::string&) {
        ++calls;
        return Result{};
      },
      options);
  pool.start();
  f.queue.add("a");
  f.queue.add("b");
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(calls, 0);
  // Handed back as they were: no failure counted, nothing delayed.
  EXPECT_EQ(f.queue.numRequeues("a"), 0);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(pool.pause(kRealTimeLimit));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_EQ(f.queue.length(), 2u);
  leader = true;
  pool.start();
  ASSERT_TRUE(eventually([&] { return calls == 2; }));
  EXPECT_TRUE(pool.stop(kRealTimeLimit));
}

// A replica that lost the Lease and is then told to shut down: no worker
// runs, so there is nothing to wait for.
TEST(WorkerPool, AStopWhilePausedReturnsAtOnce) {
  Fixture f;
  WorkerPool pool(
      f.queue, [](const std::string&) { return Result{}; }, workers(2));
  pool.start();
  ASSERT_TRUE(pool.pause(kRealTimeLimit));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(pool.stop(kRealTimeLimit));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST(WorkerPool, RejectsZeroWorkersAndASecondStart) {
  Fixture f;
  auto reconcile = [](const std::string&) { return Result{}; };
  EXPECT_THROW(WorkerPool(f.queue, reconcile, workers(0)), std::invalid_argument);
  WorkerPool pool(f.queue, reconcile, workers(1));
  pool.start();
  EXPECT_THROW(pool.start(), std::logic_error);
}

}  // namespace
}  // namespace distbench::kube
