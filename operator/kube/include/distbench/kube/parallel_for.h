// Runs one piece of work per item with up to N at once: the requests a
// reconcile makes that do not depend on one another (a gang's pods, the
// shared children) go out together instead of one round trip after
// another. Pull-based: each thread takes the next index as soon as it is
// done, so one slow request does not hold back a whole batch.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <future>
#include <vector>

namespace distbench::kube {

// The helper threads (each with its connection) that every parallelFor of
// a process may have at once: a burst of reconciles, each wanting a gang's
// worth of requests in flight, then shares this many instead of
// multiplying the operator's memory by its workers.
class HelperBudget {
 public:
  explicit HelperBudget(int helpers) : free_(helpers) {}
  bool tryTake() {
    int n = free_.load();
    while (n > 0)
      if (free_.compare_exchange_weak(n, n - 1)) return true;
    return false;
  }
  void giveBack() { ++free_; }

 private:
  std::atomic<int> free_;
};

// Calls work(i) for every i in [0, count), at most `parallelism` at a time
// (the calling thread is one of them, and with a `budget` each other thread
// is one taken from it: when none is left the calling thread does the work
// alone). Returns once every call has ended, so nothing outlives the
// caller's data; then rethrows the exception of the lowest index that
// threw.
template <typename F>
void parallelFor(size_t count, int parallelism, F work, HelperBudget* budget = nullptr) {
  if (count == 0) return;
  const size_t threads = std::min(count, static_cast<size_t>(std::max(parallelism, 1)));
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(count);  // by item: each slot has one writer
  auto drain = [&] {
    for (size_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::future<void>> helpers;
  helpers.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t) {
    if (budget && !budget->tryTake()) break;
    helpers.push_back(std::async(std::launch::async, [&] {
      drain();
      if (budget) budget->giveBack();
    }));
  }
  drain();
  for (auto& h : helpers) h.get();
  if (!failed) return;
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

// The same over a vector's elements.
template <typename T, typename F>
void parallelForEach(const std::vector<T>& items, int parallelism, F work,
                     HelperBudget* budget = nullptr) {
  parallelFor(
      items.size(), parallelism, [&](size_t i) { work(items[i]); }, budget);
}

}  // namespace distbench::kube
