// The operator's work queue, with client-go's workqueue semantics
// (RateLimitingInterface over a delaying queue):
//  - keys are deduplicated: adding a key that is already waiting is a no-op;
//  - a key is handed to one worker at a time: a key added while it is being
//    processed waits, once, until that worker calls done();
//  - addAfter() delays a key, keeping the earliest of several deadlines;
//  - addRateLimited() delays a key by the larger of its own exponential
//    backoff and an overall token bucket; forget() resets the backoff;
//    a retry because the API server did not answer backs off only up to
//    unavailableMaxBackoff, so work resumes soon after it is back;
//  - shutDown() refuses new keys and drops delayed ones, but get() keeps
//    handing out the ready ones so that workers drain the queue;
//  - interrupt() only wakes the getters: workers that must stop taking
//    keys (leadership lost) leave every key where it is.
// Delayed keys become ready lazily, whenever the queue is next used (every
// get() waits no longer than the earliest deadline), so no timer thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "distbench/kube/clock.h"
#include "distbench/kube/exponential_backoff.h"
#include "distbench/kube/token_bucket.h"
#include "distbench/kube/work_queue_observer.h"

namespace distbench::kube {

struct WorkQueueOptions {
  Clock::Duration baseBackoff = ExponentialBackoff::kDefaultBase;
  Clock::Duration maxBackoff = ExponentialBackoff::kDefaultMax;
  // The cap for RetryCause::kUnavailable. client-go's 1000 s cap suits an
  // error that repeats (a refused object); after an API server outage, a
  // key that failed all along would next be tried up to as long after the
  // server's return as the outage lasted, which a schedule's
  // startingDeadlineSeconds may not allow.
  Clock::Duration unavailableMaxBackoff = std::chrono::seconds(5);
  double qps = TokenBucket::kDefaultQps;
  int burst = TokenBucket::kDefaultBurst;
  // Null: no metrics.
  std::shared_ptr<WorkQueueObserver> observer;
};

// Why a key is retried (addRateLimited).
enum class RetryCause {
  kFailed,       // the reconcile failed, or asked to be retried
  kUnavailable,  // the API server did not answer: no connection, 5xx, 429
};

class WorkQueue {
 public:
  // Throws std::invalid_argument for backoff or rate options out of range.
  // `clock` must outlive the queue.
  explicit WorkQueue(WorkQueueOptions options = {}, Clock& clock = steadyClock());
  // No thread may still be inside get().
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void add(const std::string& key);
  // A non-positive delay is add().
  void addAfter(const std::string& key, Clock::Duration delay);
  void addRateLimited(const std::string& key, RetryCause cause = RetryCause::kFailed);
  // The key succeeded: its next addRateLimited() starts from the base delay.
  void forget(const std::string& key);
  // Consecutive addRateLimited() calls since the last forget().
  int numRequeues(const std::string& key) const;

  // The next ready key, which the caller now owns until done(key). Waits until
  // one is ready or `timeout` passes on the queue's clock (nullopt), or the
  // queue is shut down and has no ready key left (nullopt).
  std::optional<std::string> get(Clock::Duration timeout);
  void done(const std::string& key);

  void shutDown();
  bool shuttingDown() const;
  // Every get() waiting now returns nullopt at once, as on its timeout; the
  // queue itself is unchanged.
  void interrupt();
  // Keys ready to be handed out now.
  std::size_t length();

 private:
  using Waiting = std::set<std::tuple<Clock::TimePoint, std::uint64_t, std::string>>;

  void addAfterLocked(const std::string& key, Clock::Duration delay, Clock::TimePoint now);
  // Marks `key` due since `dueAt`; false when it already was.
  bool makeDueLocked(const std::string& key, Clock::TimePoint dueAt);
  void promoteDueLocked(Clock::TimePoint now);

  Clock& clock_;
  Clock::WatchId jumpWatch_ = 0;
  std::shared_ptr<WorkQueueObserver> observer_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool shuttingDown_ = false;
  std::uint64_t interrupts_ = 0;
  Clock::Duration unavailableMaxBackoff_;
  // Due keys not yet handed out, each with the time it became due: the dirty
  // set of client-go. Those not being processed are also in ready_, in order.
  std::unordered_map<std::string, Clock::TimePoint> dirty_;
  std::deque<std::string> ready_;
  // Keys handed out and not yet done, with the time get() returned them.
  std::unordered_map<std::string, Clock::TimePoint> processing_;
  // Delayed keys by deadline; the sequence number keeps equal deadlines FIFO.
  Waiting waiting_;
  std::unordered_map<std::string, Waiting::iterator> waitingByKey_;
  std::uint64_t waitingSeq_ = 0;
  ExponentialBackoff backoff_;
  TokenBucket bucket_;
};

}  // namespace distbench::kube
