// Rank 0 hosts a c10d::TCPStore; every rank checks in, and every rank waits
// (up to the rendezvous timeout) for all others, naming the missing ones when
// that time runs out. Then the Gloo groups: a global one for control and
// parameter-server traffic, and a trainer-only one for DDP.
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <functional>
#include <memory>

#include "comm/groups_wanted.h"
#include "comm/process_group.h"
#include "common/worker_identity.h"

namespace c10d {
class Store;
}

namespace distbench::worker {

struct RendezvousTimeouts {
  std::chrono::milliseconds rendezvous{300000};
  std::chrono::milliseconds peer{60000};
};

class Rendezvous {
 public:
  // Blocks until every rank has joined; throws PeerError naming the missing
  // ranks after `timeouts.rendezvous`. `checkedIn` runs once this rank has
  // checked in, so the store is up (the termination watch starts there).
  Rendezvous(const WorkerIdentity& identity, RendezvousTimeouts timeouts, GroupsWanted groups = {},
             const std::function<void()>& checkedIn = {});
  ~Rendezvous();

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
  WorkerIdentity identity_;
  RendezvousTimeouts timeouts_;
  c10::intrusive_ptr<c10d::Store> store_;
  std::unique_ptr<ProcessGroup> global_;
  std::unique_ptr<ProcessGroup> trainers_;
};

}  // namespace distbench::worker
