// Rank 0 hosts a c10d::TCPStore; every rank checks in, and every rank waits
// (up to the rendezvous timeout) for all others, naming the missing ones when
// that time runs out. Then, once each rank knows its device, the groups: a
// global Gloo one on the CPU for control and parameter-server traffic, and a
// trainer-only one for DDP and collectives, on the trainers' backend and
// device (spec.runtime).
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <functional>
#include <memory>

#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/common/groups_wanted.h"
#include "distbench/worker/common/worker_identity.h"

namespace c10d {
class Store;
}

namespace distbench::worker {

struct RendezvousTimeouts {
  std::chrono::milliseconds rendezvous{300000};
  std::chrono::milliseconds peer{60000};
};

// What the trainers' groups run on: spec.runtime.backend, and this
// trainer's device (the CPU, or its GPU).
struct TrainerGroupSettings {
  api::Backend backend = api::Backend::Gloo;
  ComputeDevice device = ComputeDevice::cpu();
};

class Rendezvous {
 public:
  // Blocks until every rank has joined; throws PeerError naming the missing
  // ranks after `timeouts.rendezvous`. `checkedIn` runs once this rank has
  // checked in, so the store is up (the termination watch starts there).
  Rendezvous(const WorkerIdentity& identity, RendezvousTimeouts timeouts,
             const std::function<void()>& checkedIn = {});
  ~Rendezvous();

  // Forms the groups `groups` asks for; every rank calls it. Trainers'
  // groups, these and later subgroups, run on `trainers`.
  void formGroups(GroupsWanted groups, const TrainerGroupSettings& trainers = {});

  ProcessGroup& global();
  // Trainers only: group rank = trainer index.
  ProcessGroup& trainers();
  // A group of trainers 0..size-1 (this rank is trainer `roleIndex`), kept
  // apart from other groups by `name`. Every member must ask for it.
  std::unique_ptr<ProcessGroup> trainerSubgroup(const std::string& name, int size);

  // The rendezvous store the master hosts, for coordination that outlives a
  // single peer timeout (DDP sweeps, collectives).
  const c10::intrusive_ptr<c10d::Store>& store() const { return store_; }
  const WorkerIdentity& identity() const { return identity_; }
  RendezvousTimeouts timeouts() const { return timeouts_; }

 private:
  void checkInWithRetries(std::chrono::steady_clock::time_point deadline);

  WorkerIdentity identity_;
  RendezvousTimeouts timeouts_;
  TrainerGroupSettings trainerSettings_;
  c10::intrusive_ptr<c10d::Store> store_;
  std::unique_ptr<ProcessGroup> global_;
  std::unique_ptr<ProcessGroup> trainers_;
};

}  // namespace distbench::worker
