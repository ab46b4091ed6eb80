// Coordination through the rendezvous store, for benchmarks whose phases can
// outlast any single peer timeout (a DDP sweep row of a large model, a
// collective size sweep): Gloo waits are bounded by the peer timeout, so
// instead trainers heartbeat into the store from a thread, the master watches
// the heartbeats, and trainers hand their measurements to the master as store
// values. When a trainer falls silent the master publishes a verdict that
// every waiting rank reads and exits on; when the master dies the store goes
// with it, and every trainer's next store call fails naming it.
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distbench/worker/common/worker_identity.h"

namespace c10d {
class Store;
}

namespace distbench::worker {

class Rendezvous;

// Trainer side: bumps this trainer's heartbeat counter every `interval` over
// its own store connection (store clients are not shared across threads).
class StoreHeartbeat {
 public:
  // Beats four times per peer timeout (within limits).
  explicit StoreHeartbeat(const Rendezvous& rendezvous);
  ~StoreHeartbeat();
  StoreHeartbeat(const StoreHeartbeat&) = delete;
  StoreHeartbeat& operator=(const StoreHeartbeat&) = delete;

 private:
  void loop(std::chrono::milliseconds interval);

  c10::intrusive_ptr<c10d::Store> store_;
  std::string key_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

// Every wait on the store has a bound of its own, besides the heartbeats
// (which prove a trainer alive, not moving): trainers mark progress (every
// iteration or case, each result, barrier arrival and finish; at most eight
// times a window), and a store wait in which neither the awaited thing nor
// any trainer's progress has moved for `progressWindow` ends the run with a
// verdict naming the ranks that did not arrive.
class RunControl {
 public:
  // `progressWindow`: the longest a trainer may go between two progress
  // marks; 0 means twice the peer timeout (one DDP iteration, whose every
  // Gloo wait is bounded by the peer timeout, fits easily).
  explicit RunControl(Rendezvous& rendezvous,
                      std::chrono::milliseconds progressWindow = std::chrono::milliseconds(0));
  ~RunControl();

  // Trainers: hand `values` to the master under `key`.
  void publish(const std::string& key, const std::vector<double>& values);
  // Trainers: wait until trainers 0..count-1 reached `name`. Throws
  // PeerError with the master's verdict if it gives up on someone meanwhile,
  // or, naming the trainers missing, when nobody progressed for the window.
  void barrier(const std::string& name, int count);

  // Trainers: throws PeerError if the master has called the run off (or is
  // gone), and marks progress. One store round trip (two when a mark is
  // due): cheap enough to ask every iteration.
  void checkStillOn();
  // Trainers: the last store call. The master keeps the store up until
  // every trainer has made it.
  void finish();

  // Master: trainer `trainer`'s values under `key`, waiting as long as every
  // trainer keeps its heartbeat and someone progresses. A trainer silent for
  // the peer timeout, or no progress for the window, ends the run: the
  // verdict is published and thrown as PeerError.
  std::vector<double> collect(const std::string& key, int trainer);
  // Master: waits until every trainer has called finish(), watching the
  // heartbeats of those that have not.
  void awaitFinished();
  // Tell every rank the run is over because of `verdict`, and throw it.
  [[noreturn]] void abort(const std::string& verdict);

  std::chrono::milliseconds progressWindow() const { return progressWindow_; }

 private:
  // Trainers: adds to the progress counter unless it did so less than an
  // eighth of the window ago.
  void markProgress();
  // Waiters: throws (after publishing a verdict) when neither `arrived` nor
  // the progress counter has changed for the window. `missing` names who.
  class StallWatch;
  std::string windowText() const;
  std::string resultKey(const std::string& key, int trainer) const;
  void throwIfVerdict();
  // Throws (after publishing a verdict) when a trainer not in `done` has
  // been silent for the peer timeout.
  void watchHeartbeats(const std::vector<bool>& done);
  template <typename F>
  auto storeCall(const char* what, F&& call) -> decltype(call());

  c10::intrusive_ptr<c10d::Store> store_;
  WorkerIdentity id_;
  std::chrono::milliseconds peerTimeout_;
  std::chrono::milliseconds progressWindow_;
  std::chrono::steady_clock::time_point lastMark_{};
  // Master: each trainer's last heartbeat count and when it last changed.
  std::vector<int64_t> beats_;
  std::vector<std::chrono::steady_clock::time_point> lastBeat_;
};

}  // namespace distbench::worker
