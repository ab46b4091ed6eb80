#include "run_control.h"

#include <algorithm>
#include <cstring>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "peer_error.h"
#include "rendezvous.h"

namespace distbench::worker {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kVerdictKey = "distbench/run/verdict";
// Idle ranks poll while others measure: rarely enough to cost them no CPU.
constexpr auto kPoll = std::chrono::milliseconds(20);

std::string heartbeatKey(int trainer) {
  return "distbench/run/heartbeat/" + std::to_string(trainer);
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
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(id.masterPort);
  options.isServer = false;
  options.waitWorkers = false;
  options.timeout = std::max(interval * 4, std::chrono::milliseconds(1000));
  store_ = c10::make_intrusive<c10d::TCPStore>(id.masterAddr, options);
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

RunControl::RunControl(Rendezvous& rendezvous)
    : store_(rendezvous.store()),
      id_(rendezvous.identity()),
      peerTimeout_(rendezvous.timeouts().peer),
      beats_(id_.numTrainers, -1),
      lastBeat_(id_.numTrainers, Clock::now()) {}

RunControl::~RunControl() = default;

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
  storeCall("publishing results",
            [&] { store_->set(resultKey(key, id_.roleIndex), toBytes(values)); });
}

void RunControl::throwIfVerdict() {
  if (store_->check({kVerdictKey})) {
    const std::vector<uint8_t> v = store_->get(kVerdictKey);
    throw PeerError(std::string(v.begin(), v.end()));
  }
}

void RunControl::barrier(const std::string& name, int count) {
  const std::string key = "distbench/run/barrier/" + name;
  storeCall("waiting for the other trainers", [&] {
    store_->add(key, 1);
    while (store_->add(key, 0) < count) {
      throwIfVerdict();
      std::this_thread::sleep_for(kPoll);
    }
  });
}

void RunControl::checkStillOn() {
  storeCall("checking in with the master", [&] { throwIfVerdict(); });
}

void RunControl::finish() {
  storeCall("finishing", [&] { store_->set(finishedKey(id_.roleIndex), {1}); });
}

void RunControl::awaitFinished() {
  storeCall("waiting for the trainers to finish", [&] {
    std::vector<bool> done(id_.numTrainers, false);
    while (std::find(done.begin(), done.end(), false) != done.end()) {
      for (int t = 0; t < id_.numTrainers; ++t) {
        if (!done[t]) done[t] = store_->check({finishedKey(t)});
      }
      watchHeartbeats(done);
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
    while (!store_->check({k})) {
      if (Clock::now() >= nextWatch) {
        watchHeartbeats(std::vector<bool>(id_.numTrainers, false));
        nextWatch = Clock::now() + std::chrono::milliseconds(200);
      }
      std::this_thread::sleep_for(kPoll);
    }
    return fromBytes(store_->get(k));
  });
}

void RunControl::abort(const std::string& verdict) {
  try {
    store_->set(kVerdictKey, std::vector<uint8_t>(verdict.begin(), verdict.end()));
    // Give waiting trainers a moment to read it before the store goes away.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  } catch (const std::exception&) {
    // The verdict is still ours to report.
  }
  throw PeerError(verdict);
}

}  // namespace distbench::worker
