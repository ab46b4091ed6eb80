#include "distbench/worker/comm/run_control.h"

#include <algorithm>
#include <cstring>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/comm/rendezvous.h"
#include "distbench/worker/comm/run_store.h"
#include "distbench/worker/comm/run_verdict.h"

namespace distbench::worker {
namespace {

using Clock = std::chrono::steady_clock;

// Idle ranks poll while others measure: rarely enough to cost them no CPU.
constexpr auto kPoll = std::chrono::milliseconds(20);

std::string heartbeatKey(int trainer) {
  return "distbench/run/heartbeat/" + std::to_string(trainer);
}

// Bumped by trainers as they move on (RunControl::markProgress).
constexpr const char* kProgressKey = "distbench/run/progress";
// How often a waiter asks whether anyone moved.
constexpr auto kStallPoll = std::chrono::milliseconds(200);

std::string arrivedKey(const std::string& barrierKey, int trainer) {
  return barrierKey + "/arrived/" + std::to_string(trainer);
}

std::string finishedKey(int trainer) { return "distbench/run/finished/" + std::to_string(trainer); }

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

std::vector<uint8_t> toBytes(const std::vector<double>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(double));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<double> fromBytes(const std::vector<uint8_t>& bytes) {
  std::vector<double> values(bytes.size() / sizeof(double));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(double));
  return values;
}

}  // namespace

StoreHeartbeat::StoreHeartbeat(const Rendezvous& rendezvous)
    : key_(heartbeatKey(rendezvous.identity().roleIndex)) {
  const WorkerIdentity& id = rendezvous.identity();
  const auto interval = std::clamp(rendezvous.timeouts().peer / 4, std::chrono::milliseconds(100),
                                   std::chrono::milliseconds(5000));
  store_ = connectRunStore(id, /*host=*/false,
                           std::max(interval * 4, std::chrono::milliseconds(1000)));
  store_->add(key_, 1);
  thread_ = std::thread([this, interval] { loop(interval); });
}

StoreHeartbeat::~StoreHeartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void StoreHeartbeat::loop(std::chrono::milliseconds interval) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, interval, [this] { return stop_; })) {
    try {
      store_->add(key_, 1);
    } catch (const std::exception&) {
      // The master is gone; the main thread's next store call says so.
      return;
    }
  }
}

RunControl::RunControl(Rendezvous& rendezvous, std::chrono::milliseconds progressWindow)
    : store_(rendezvous.store()),
      id_(rendezvous.identity()),
      peerTimeout_(rendezvous.timeouts().peer),
      progressWindow_(progressWindow.count() > 0 ? progressWindow : 2 * peerTimeout_),
      beats_(id_.numTrainers, -1),
      lastBeat_(id_.numTrainers, Clock::now()) {}

RunControl::~RunControl() = default;

// The waiting side of progress: what the waiter sees arrive (results,
// barrier arrivals, finished trainers) or the trainers' progress counter
// must move at least once a window.
class RunControl::StallWatch {
 public:
  explicit StallWatch(RunControl& control) : control_(control) {}

  // Asks the store at most every kStallPoll; true once nothing moved for
  // the window.
  bool stalled(int64_t arrived) {
    const auto now = Clock::now();
    if (now < nextAsk_) return false;
    nextAsk_ = now + kStallPoll;
    const int64_t progress = control_.store_->add(kProgressKey, 0);
    if (arrived != arrived_ || progress != progress_) {
      arrived_ = arrived;
      progress_ = progress;
      since_ = now;
      return false;
    }
    return now - since_ > control_.progressWindow_;
  }

 private:
  RunControl& control_;
  int64_t arrived_ = -1;
  int64_t progress_ = -1;
  Clock::time_point since_ = Clock::now();
  Clock::time_point nextAsk_ = Clock::now();
};

std::string RunControl::windowText() const {
  return std::to_string(progressWindow_.count() / 1000) +
         " s (a window derived from spec.runtime.peerTimeoutSeconds)";
}

void RunControl::markProgress() {
  const auto now = Clock::now();
  if (lastMark_ != Clock::time_point{} && now - lastMark_ < progressWindow_ / 8) return;
  lastMark_ = now;
  store_->add(kProgressKey, 1);
}

template <typename F>
auto RunControl::storeCall(const char* what, F&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const PeerError&) {
    throw;
  } catch (const std::exception& e) {
    throw PeerError(std::string(what) +
                    ": lost the store hosted by the master (rank 0): " + firstLine(e.what()));
  }
}

std::string RunControl::resultKey(const std::string& key, int trainer) const {
  return "distbench/run/result/" + key + "/" + std::to_string(trainer);
}

void RunControl::publish(const std::string& key, const std::vector<double>& values) {
  storeCall("publishing results", [&] {
    store_->set(resultKey(key, id_.roleIndex), toBytes(values));
    markProgress();
  });
}

void RunControl::throwIfVerdict() {
  if (auto verdict = readVerdict(*store_)) throw PeerError(verdict->text);
}

void RunControl::barrier(const std::string& name, int count) {
  const std::string key = "distbench/run/barrier/" + name;
  storeCall("waiting for the other trainers", [&] {
    store_->set(arrivedKey(key, id_.roleIndex), std::vector<uint8_t>{1});
    store_->add(key, 1);
    markProgress();
    StallWatch stall(*this);
    for (;;) {
      const int64_t arrived = store_->add(key, 0);
      if (arrived >= count) return;
      throwIfVerdict();
      if (stall.stalled(arrived)) {
        std::string missing;
        for (int t = 0; t < count; ++t) {
          if (store_->check({arrivedKey(key, t)})) continue;
          missing += (missing.empty() ? "" : ", ") +
                     describeRank(id_.numParameterServers, id_.numTrainers,
                                  api::trainerRank(id_.topology(), t));
        }
        abort(id_.label() + ": barrier " + name + ": " + missing +
              " did not arrive, and no trainer progressed for " + windowText());
      }
      std::this_thread::sleep_for(kPoll);
    }
  });
}

void RunControl::checkStillOn() {
  storeCall("checking in with the master", [&] {
    throwIfVerdict();
    markProgress();
  });
}

void RunControl::finish() {
  storeCall("finishing", [&] {
    store_->set(finishedKey(id_.roleIndex), std::vector<uint8_t>{1});
    markProgress();
  });
}

void RunControl::awaitFinished() {
  storeCall("waiting for the trainers to finish", [&] {
    std::vector<bool> done(id_.numTrainers, false);
    StallWatch stall(*this);
    while (std::find(done.begin(), done.end(), false) != done.end()) {
      for (int t = 0; t < id_.numTrainers; ++t) {
        if (!done[t]) done[t] = store_->check({finishedKey(t)});
      }
      watchHeartbeats(done);
      if (stall.stalled(std::count(done.begin(), done.end(), true))) {
        std::string missing;
        for (int t = 0; t < id_.numTrainers; ++t) {
          if (done[t]) continue;
          missing += (missing.empty() ? "" : ", ") +
                     describeRank(id_.numParameterServers, id_.numTrainers,
                                  api::trainerRank(id_.topology(), t));
        }
        abort("master: " + missing + " did not finish, and no trainer progressed for " +
              windowText());
      }
      std::this_thread::sleep_for(kPoll);
    }
  });
}

void RunControl::watchHeartbeats(const std::vector<bool>& done) {
  const auto now = Clock::now();
  for (int t = 0; t < id_.numTrainers; ++t) {
    if (done[t]) continue;
    const int64_t beats = store_->add(heartbeatKey(t), 0);
    if (beats != beats_[t]) {
      beats_[t] = beats;
      lastBeat_[t] = now;
    } else if (now - lastBeat_[t] > peerTimeout_) {
      const int rank = api::trainerRank(id_.topology(), t);
      abort("master: no heartbeat from " +
            describeRank(id_.numParameterServers, id_.numTrainers, rank) + " for " +
            std::to_string(peerTimeout_.count() / 1000) +
            " s (spec.runtime.peerTimeoutSeconds): it died or hangs");
    }
  }
}

std::vector<double> RunControl::collect(const std::string& key, int trainer) {
  const std::string k = resultKey(key, trainer);
  return storeCall("collecting results", [&] {
    auto nextWatch = Clock::now();
    StallWatch stall(*this);
    while (!store_->check({k})) {
      if (Clock::now() >= nextWatch) {
        watchHeartbeats(std::vector<bool>(id_.numTrainers, false));
        nextWatch = Clock::now() + std::chrono::milliseconds(200);
      }
      if (stall.stalled(0)) {
        abort("master: no " + key + " results from " +
              describeRank(id_.numParameterServers, id_.numTrainers,
                           api::trainerRank(id_.topology(), trainer)) +
              ", and no trainer progressed for " + windowText());
      }
      std::this_thread::sleep_for(kPoll);
    }
    return fromBytes(store_->get(k));
  });
}

void RunControl::abort(const std::string& verdict) {
  try {
    publishVerdict(*store_, verdict);
    // Give waiting trainers a moment to read it before the store goes away.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  } catch (const std::exception&) {
    // The verdict is still ours to report.
  }
  throw PeerError(verdict);
}

}  // namespace distbench::worker
