#include "distbench/worker/comm/rendezvous_check_in.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distbench/api/worker_env.h"
#include "distbench/worker/comm/peer_error.h"

namespace distbench::worker {
namespace {

std::string joinedKey(int rank) { return "distbench/joined/" + std::to_string(rank); }

std::string envOr(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

}  // namespace

std::string checkInIdentity(const WorkerIdentity& id) {
  std::string out = id.label();
  if (const std::string pod = envOr(api::kEnvPodName); !pod.empty()) out += " in pod " + pod;
  if (const std::string ip = envOr(api::kEnvPodIp); !ip.empty()) out += " at " + ip;
  char tag[16];
  std::snprintf(tag, sizeof tag, "%08x", static_cast<unsigned>(std::random_device{}()));
  return out + ", pid " + std::to_string(::getpid()) + ", tag " + tag;
}

void checkInRank(c10d::Store& store, int rank, const std::string& identity) {
  const std::vector<uint8_t> mine = bytes(identity);
  // Set only if the key is absent; the answer is whatever the key holds.
  const std::vector<uint8_t> held = store.compareSet(joinedKey(rank), {}, mine);
  if (held == mine) return;
  throw PeerError("rendezvous: rank " + std::to_string(rank) + " joined twice: " +
                  std::string(held.begin(), held.end()) + " checked in first, then " + identity +
                  " (two processes given the same RANK, or ranks of two gangs meeting in one store)");
}

std::vector<int> ranksNotCheckedIn(c10d::Store& store, int worldSize) {
  std::vector<int> missing;
  for (int r = 0; r < worldSize; ++r)
    if (!store.check({joinedKey(r)})) missing.push_back(r);
  return missing;
}

bool everyRankCheckedIn(c10d::Store& store, int worldSize) {
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(worldSize));
  for (int r = 0; r < worldSize; ++r) keys.push_back(joinedKey(r));
  return store.check(keys);
}

}  // namespace distbench::worker
