// How a rank says "I am here" in the rendezvous store, and how the ranks
// learn that every one of them is.
//
// Each process checks in under its rank with an identity no other process
// shares (its label, pod, address, pid and a random tag), written with
// compare-and-set. Asking twice from one process (a request the network or
// the store client sent again) is therefore harmless, and a second process
// under the same rank is refused with both identities named: an operator's
// gang restart that met its previous gang's store, or two pods given one
// RANK, say which is which. Joining is counted by the keys themselves, not
// by a counter that a repeated request would push too far.
#pragma once

#include <string>
#include <vector>

#include "distbench/worker/common/worker_identity.h"

namespace c10d {
class Store;
}

namespace distbench::worker {

// "ps0 (rank 1) in pod hybrid-ps-0 at 198.18.0.9, pid 7, tag 3fa2c1d9";
// pod and address only where the operator set POD_NAME and POD_IP.
std::string checkInIdentity(const WorkerIdentity& id);

// Checks in `rank` as `identity`. Throws PeerError naming both identities
// when another process holds the rank.
void checkInRank(c10d::Store& store, int rank, const std::string& identity);

// Ranks 0..worldSize-1 that have not checked in.
std::vector<int> ranksNotCheckedIn(c10d::Store& store, int worldSize);

// Whether every rank has checked in (one round trip).
bool everyRankCheckedIn(c10d::Store& store, int worldSize);

}  // namespace distbench::worker
