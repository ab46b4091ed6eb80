#include "distbench/worker/comm/rendezvous.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <thread>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/comm/rendezvous_check_in.h"
#include "distbench/worker/comm/run_store.h"

namespace distbench::worker {
namespace {

using Clock = std::chrono::steady_clock;

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

c10::intrusive_ptr<c10d::Store> connectStore(const WorkerIdentity& id,
                                             std::chrono::milliseconds timeout) {
  const bool isServer = id.role == api::Role::Master;
  try {
    return connectRunStore(id, isServer, timeout);
  } catch (const std::exception& e) {
    if (isServer) {
      throw PeerError("rendezvous: cannot host the store on port " + std::to_string(id.masterPort) +
                      ": " + firstLine(e.what()));
    }
    throw PeerError("rendezvous: cannot reach the master (rank 0) at " + id.masterAddr + ":" +
                    std::to_string(id.masterPort) + " within " +
                    std::to_string(timeout.count() / 1000) + " s: " + firstLine(e.what()));
  }
}

constexpr const char* kJoinedCount = "distbench/joined";
constexpr const char* kFailedKey = "distbench/rendezvous-failed";
constexpr const char* kFailureSeenKey = "distbench/rendezvous-failure-seen";

std::string readString(c10d::Store& store, const std::string& key) {
  std::vector<uint8_t> v = store.get(key);
  return std::string(v.begin(), v.end());
}

std::string missingRanks(c10d::Store& store, const WorkerIdentity& id) {
  std::string missing;
  for (int r : ranksNotCheckedIn(store, id.worldSize))
    missing += (missing.empty() ? "" : ", ") + describeRank(id.numParameterServers, id.numTrainers, r);
  return missing;
}

// Polls the check-ins until every rank is in. Polling, not
// Store::wait: a timed-out wait leaves TCPStore's client socket unusable for
// the questions that follow. The master hosts the store, so when its time is
// up it publishes the verdict and keeps the store up until the others have
// read it (or a few seconds pass): every rank then names the same missing
// ranks, whichever gave up first.
void awaitEveryone(c10d::Store& store, const WorkerIdentity& id, Clock::time_point deadline,
                   std::chrono::milliseconds total) {
  const bool isMaster = id.role == api::Role::Master;
  try {
    while (Clock::now() < deadline) {
      // The counter is the cheap question; the keys are the answer (a
      // repeated add may have pushed the counter too far).
      if (store.add(kJoinedCount, 0) >= id.worldSize && everyRankCheckedIn(store, id.worldSize))
        return;
      if (!isMaster && store.check({kFailedKey})) {
        std::string verdict = readString(store, kFailedKey);
        store.add(kFailureSeenKey, 1);
        throw PeerError(verdict);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const std::string verdict = "rendezvous timed out after " +
                                std::to_string(total.count() / 1000) + " s: missing " +
                                missingRanks(store, id);
    if (isMaster) {
      store.set(kFailedKey, std::vector<uint8_t>(verdict.begin(), verdict.end()));
      const int64_t others =
          id.worldSize - 1 - static_cast<int64_t>(ranksNotCheckedIn(store, id.worldSize).size());
      const auto grace = Clock::now() + std::chrono::seconds(3);
      while (store.add(kFailureSeenKey, 0) < others && Clock::now() < grace) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    throw PeerError(verdict);
  } catch (const PeerError&) {
    throw;
  } catch (const std::exception& e) {
    throw PeerError("rendezvous: lost the store hosted by the master (rank 0) after " +
                    std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                       total - (deadline - Clock::now()))
                                       .count()) +
                    " s: " + firstLine(e.what()));
  }
}

}  // namespace

Rendezvous::Rendezvous(const WorkerIdentity& id, RendezvousTimeouts timeouts,
                       const std::function<void()>& checkedIn)
    : identity_(id), timeouts_(timeouts) {
  const auto deadline = Clock::now() + timeouts.rendezvous;
  store_ = connectStore(id, timeouts.rendezvous);
  checkInWithRetries(deadline);
  if (checkedIn) checkedIn();
  awaitEveryone(*store_, id, deadline, timeouts.rendezvous);
}

// A connection that breaks or answers nonsense during the check-in is tried
// again on a new one: in a cluster the master's Service may route a new
// connection to the previous gang's master for a few seconds after a gang
// restart, and a broken stream was seen there (std::bad_alloc reading an
// answer). The check-in is idempotent (rendezvous_check_in.h), so asking
// again is safe. The master hosts the store and has nothing to reconnect to.
void Rendezvous::checkInWithRetries(std::chrono::steady_clock::time_point deadline) {
  constexpr int kAttempts = 5;
  constexpr std::chrono::seconds kPause{1};
  constexpr std::chrono::seconds kReconnectTimeout{10};
  const WorkerIdentity& id = identity_;
  const std::string me = checkInIdentity(id);
  for (int attempt = 1;; ++attempt) {
    try {
      checkInRank(*store_, id.rank, me);
      store_->add(kJoinedCount, 1);
      return;
    } catch (const PeerError&) {
      throw;
    } catch (const std::exception& e) {
      const std::string why = firstLine(e.what());
      if (id.role == api::Role::Master || attempt == kAttempts || Clock::now() + kPause >= deadline)
        throw PeerError("rendezvous: lost the store hosted by the master (rank 0) while checking in" +
                        std::string(attempt > 1 ? " (" + std::to_string(attempt) + " connections)" : "") +
                        ": " + why);
      std::cerr << id.label() << ": the store connection failed while checking in (" << why
                << "); connecting again\n";
    }
    std::this_thread::sleep_for(kPause);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    store_ = connectStore(id, std::min<std::chrono::milliseconds>(left, kReconnectTimeout));
  }
}

void Rendezvous::formGroups(GroupsWanted groups, const TrainerGroupSettings& trainers) {
  const WorkerIdentity& id = identity_;
  const int P = id.numParameterServers;
  const int T = id.numTrainers;
  trainerSettings_ = trainers;
  if (groups.global) {
    GroupOptions options;  // Gloo on the CPU: control and parameter-server traffic
    options.hostname = id.bindAddress;
    options.timeout = timeouts_.peer;
    global_ = std::make_unique<ProcessGroup>(
        c10::make_intrusive<c10d::PrefixStore>("global", store_), id.rank, id.worldSize, options,
        [P, T](int r) { return r < 0 ? std::string("all ranks") : describeRank(P, T, r); });
  }
  if (groups.trainers && id.role == api::Role::Trainer) trainers_ = trainerSubgroup("trainers", T);
}

Rendezvous::~Rendezvous() = default;

ProcessGroup& Rendezvous::global() {
  if (!global_) throw std::logic_error("no global group was formed");
  return *global_;
}

ProcessGroup& Rendezvous::trainers() {
  if (!trainers_) throw std::logic_error("only trainers have the trainer group");
  return *trainers_;
}

std::unique_ptr<ProcessGroup> Rendezvous::trainerSubgroup(const std::string& name, int size) {
  const int P = identity_.numParameterServers;
  const int T = identity_.numTrainers;
  if (identity_.role != api::Role::Trainer || identity_.roleIndex >= size) {
    throw std::logic_error("trainerSubgroup: " + identity_.label() + " is not one of its " +
                           std::to_string(size) + " trainers");
  }
  GroupOptions options;
  options.backend = trainerSettings_.backend;
  options.device = trainerSettings_.device;
  options.hostname = identity_.bindAddress;
  options.timeout = timeouts_.peer;
  return std::make_unique<ProcessGroup>(
      c10::make_intrusive<c10d::PrefixStore>(name, store_), identity_.roleIndex, size, options,
      [P, T](int i) {
        return i < 0 ? std::string("the other trainers") : describeRank(P, T, 1 + P + i);
      });
}

}  // namespace distbench::worker
