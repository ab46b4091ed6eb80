// The links that carry HybridDDPRPC's parameter-server calls: one TCP
// connection per (trainer, parameter server) pair, framed and bounded by
// the peer timeout (comm/framed_socket.h), in place of Gloo's point-to-point
// messages over the global group, whose per-message handshake and thread
// hand-offs cost more than the calls themselves on a crowded machine. As
// torch.distributed.rpc keeps a transport of its own beside c10d's groups,
// so does this.
//
// Each parameter server listens on its bind address and publishes
// "address:port" in the run's store (under the run key, so only the gang
// finds it); each trainer connects and says who it is with the run key.
// A connection that cannot say so is refused and closed, so a process that
// reaches the port but is not in the gang serves no lookups and sees none.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "distbench/worker/comm/framed_socket.h"
#include "distbench/worker/common/worker_identity.h"

namespace c10d {
class Store;
}

namespace distbench::worker {

// The store key under which parameter server `psIndex` publishes its address.
std::string psLinkKey(int psIndex);

// A parameter server's links, one per trainer, in trainer order. The
// listener exists (and its address is published) from construction, so
// trainers may connect before accept() is called.
class TrainerLinkListener {
 public:
  // `maxFrame`: the largest request a trainer may send.
  TrainerLinkListener(const WorkerIdentity& identity, c10d::Store& store, size_t maxFrame,
                      std::chrono::milliseconds peerTimeout);

  // Every trainer's link, once each has connected and said who it is;
  // throws PeerError naming the trainers that did not within `within`.
  // Connections that fail the hello are refused (and said on stderr).
  std::vector<FramedSocket> acceptAll(std::chrono::milliseconds within);

 private:
  WorkerIdentity identity_;
  size_t maxFrame_;
  std::chrono::milliseconds peerTimeout_;
  FrameListener listener_;
};

// A trainer's links to every parameter server, in parameter-server order,
// each with its hello answered; PeerError naming the server otherwise.
// `maxFrame`: the largest reply a server may send.
std::vector<FramedSocket> connectToParameterServers(const WorkerIdentity& identity,
                                                    c10d::Store& store, size_t maxFrame,
                                                    std::chrono::milliseconds within,
                                                    std::chrono::milliseconds peerTimeout);

// The hello a trainer sends (the protocol's name and version, its global
// rank, the run key) and its checks, for tests.
std::string linkHello(int trainerRank, const std::string& runKey);
// "" when `hello` is a valid trainer's of this run, else why not.
std::string checkLinkHello(const std::string& hello, const WorkerIdentity& server,
                           int* trainerIndex);

}  // namespace distbench::worker
