// Rank 0 hosts a c10d::TCPStore; every rank checks in, and every rank waits
// (up to the rendezvous timeout) for all others, naming the missing ones when
// that time runs out. Then the Gloo groups: a global one for control and
// parameter-server traffic, and a trainer-only one for DDP.
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <memory>

#include "process_group.h"
#include "worker_identity.h"

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
  // ranks after `timeouts.rendezvous`.
  Rendezvous(const WorkerIdentity& identity, RendezvousTimeouts timeouts);
  ~Rendezvous();

  ProcessGroup& global() { return *global_; }
  // Trainers only: group rank = trainer index.
  ProcessGroup& trainers();

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  std::unique_ptr<ProcessGroup> global_;
  std::unique_ptr<ProcessGroup> trainers_;
};

}  // namespace distbench::worker
