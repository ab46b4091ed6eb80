#include "distbench/kube/work_queue.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace distbench::kube {

WorkQueue::WorkQueue(WorkQueueOptions options, Clock& clock)
    : clock_(clock),
      observer_(options.observer ? std::move(options.observer)
                                 : std::make_shared<WorkQueueObserver>()),
      unavailableMaxBackoff_(options.unavailableMaxBackoff),
      backoff_(options.baseBackoff, options.maxBackoff),
      bucket_(options.qps, options.burst, clock.now()) {
  if (unavailableMaxBackoff_ < options.baseBackoff)
    throw std::invalid_argument("work queue: unavailableMaxBackoff must be at least baseBackoff");
  jumpWatch_ = clock_.watchJumps([this] {
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
  });
}

// Not under mu_: the clock may be calling the watch right now, and that call
// takes mu_.
WorkQueue::~WorkQueue() { clock_.unwatchJumps(jumpWatch_); }

void WorkQueue::add(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shuttingDown_) return;
  if (makeDueLocked(key, clock_.now())) cv_.notify_all();
}

void WorkQueue::addAfter(const std::string& key, Clock::Duration delay) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shuttingDown_) return;
  observer_->retried();
  addAfterLocked(key, delay, clock_.now());
}

void WorkQueue::addRateLimited(const std::string& key, RetryCause cause) {
  std::lock_guard<std::mutex> lock(mu_);
  // Before touching the limiters: a refused retry must not count as a failure
  // or spend a token.
  if (shuttingDown_) return;
  Clock::TimePoint now = clock_.now();
  // Both limiters always advance, as client-go's MaxOfRateLimiter: the bucket
  // spends a token even when the key's own backoff is the longer wait.
  Clock::Duration perKey = cause == RetryCause::kUnavailable
                               ? backoff_.next(key, unavailableMaxBackoff_)
                               : backoff_.next(key);
  Clock::Duration overall = bucket_.reserve(now);
  observer_->retried();
  addAfterLocked(key, std::max(perKey, overall), now);
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  backoff_.forget(key);
}

int WorkQueue::numRequeues(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return backoff_.failures(key);
}

std::optional<std::string> WorkQueue::get(Clock::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const Clock::TimePoint deadline = addSaturating(clock_.now(), timeout);
  const std::uint64_t interrupts = interrupts_;
  for (;;) {
    Clock::TimePoint now = clock_.now();
    promoteDueLocked(now);
    // Ready keys before the shutdown check: that is what lets workers drain.
    if (!ready_.empty()) {
      std::string key = std::move(ready_.front());
      ready_.pop_front();
      auto due = dirty_.find(key);
      observer_->queueLatency(now - due->second);
      dirty_.erase(due);
      processing_.emplace(key, now);
      observer_->depth(ready_.size());
      return key;
    }
    if (shuttingDown_ || now >= deadline || interrupts_ != interrupts) return std::nullopt;
    Clock::TimePoint wakeAt = deadline;
    if (!waiting_.empty()) wakeAt = std::min(wakeAt, std::get<0>(*waiting_.begin()));
    clock_.waitUntil(lock, cv_, wakeAt);
  }
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = processing_.find(key);
  if (it == processing_.end()) return;
  observer_->workDuration(clock_.now() - it->second);
  processing_.erase(it);
  // Added again while it was being processed: its turn has come.
  if (dirty_.count(key) != 0) {
    ready_.push_back(key);
    observer_->depth(ready_.size());
    cv_.notify_all();
  }
}

void WorkQueue::shutDown() {
  std::lock_guard<std::mutex> lock(mu_);
  shuttingDown_ = true;
  waiting_.clear();
  waitingByKey_.clear();
  cv_.notify_all();
}

void WorkQueue::interrupt() {
  std::lock_guard<std::mutex> lock(mu_);
  ++interrupts_;
  cv_.notify_all();
}

bool WorkQueue::shuttingDown() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shuttingDown_;
}

std::size_t WorkQueue::length() {
  std::lock_guard<std::mutex> lock(mu_);
  promoteDueLocked(clock_.now());
  return ready_.size();
}

void WorkQueue::addAfterLocked(const std::string& key, Clock::Duration delay,
                               Clock::TimePoint now) {
  if (delay <= Clock::Duration::zero()) {
    if (makeDueLocked(key, now)) cv_.notify_all();
    return;
  }
  Clock::TimePoint dueAt = addSaturating(now, delay);
  auto existing = waitingByKey_.find(key);
  if (existing != waitingByKey_.end()) {
    if (std::get<0>(*existing->second) <= dueAt) return;
    waiting_.erase(existing->second);
    waitingByKey_.erase(existing);
  }
  waitingByKey_.emplace(key, waiting_.emplace(dueAt, waitingSeq_++, key).first);
  // Waiting getters computed how long to sleep from the old earliest deadline.
  cv_.notify_all();
}

bool WorkQueue::makeDueLocked(const std::string& key, Clock::TimePoint dueAt) {
  if (!dirty_.emplace(key, dueAt).second) return false;
  observer_->added();
  // Handed out when its current reconcile is done, not to a second worker now.
  if (processing_.count(key) != 0) return true;
  ready_.push_back(key);
  observer_->depth(ready_.size());
  return true;
}

void WorkQueue::promoteDueLocked(Clock::TimePoint now) {
  bool promoted = false;
  while (!waiting_.empty() && std::get<0>(*waiting_.begin()) <= now) {
    auto first = waiting_.begin();
    // Due since its deadline, not since we noticed: queue latency stays honest
    // when no one looked for a while.
    makeDueLocked(std::get<2>(*first), std::get<0>(*first));
    waitingByKey_.erase(std::get<2>(*first));
    waiting_.erase(first);
    promoted = true;
  }
  // The caller takes at most one; other getters may be asleep until a later
  // deadline of their own.
  if (promoted) cv_.notify_all();
}

}  // namespace distbench::kube
