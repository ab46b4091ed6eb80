#include "distbench/worker/hybrid/ps_link.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distbench/api/rank_layout.h"
#include "distbench/worker/comm/peer_error.h"

namespace distbench::worker {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kHelloMagic = "distbench-ps-link/1";
constexpr size_t kMaxHello = 512;
constexpr const char* kAccepted = "ok";
// A connection that says nothing is dropped after this, so that it cannot
// hold up the trainers behind it for a whole peer timeout.
constexpr std::chrono::milliseconds kHelloTimeout{10000};

std::chrono::milliseconds leftUntil(Clock::time_point end) {
  return std::max(std::chrono::milliseconds(0),
                  std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()));
}

std::string inSeconds(std::chrono::milliseconds t) {
  return std::to_string(t.count() / 1000) + "." + std::to_string(t.count() % 1000 / 100) + " s";
}

// Compares without returning early, so the time taken says nothing of how
// much of a guessed key was right (its length is no secret).
bool sameKey(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string bindAddressOf(const WorkerIdentity& id) {
  return id.bindAddress.empty() ? "127.0.0.1" : id.bindAddress;
}

}  // namespace

std::string psLinkKey(int psIndex) { return "hybrid/ps" + std::to_string(psIndex) + "/link"; }

std::string linkHello(int trainerRank, const std::string& runKey) {
  return std::string(kHelloMagic) + "\n" + std::to_string(trainerRank) + "\n" + runKey;
}

std::string checkLinkHello(const std::string& hello, const WorkerIdentity& server,
                           int* trainerIndex) {
  std::istringstream lines(hello);
  std::string magic, rank, key;
  std::getline(lines, magic);
  std::getline(lines, rank);
  std::getline(lines, key, '\0');
  if (magic != kHelloMagic) return "not a distbench parameter-server link";
  if (rank.empty() || rank.size() > 9 || rank.find_first_not_of("0123456789") != std::string::npos)
    return "the hello names no rank";
  const int r = std::stoi(rank);
  const api::TopologySpec topology = server.topology();
  int index = -1;
  for (int t = 0; t < server.numTrainers; ++t)
    if (api::trainerRank(topology, t) == r) index = t;
  if (index < 0) return "rank " + rank + " is not a trainer";
  if (!sameKey(key, server.runKey)) return "the run key is not this run's";
  *trainerIndex = index;
  return "";
}

TrainerLinkListener::TrainerLinkListener(const WorkerIdentity& identity, c10d::Store& store,
                                         size_t maxFrame, std::chrono::milliseconds peerTimeout)
    : identity_(identity),
      maxFrame_(std::max(maxFrame, kMaxHello)),
      peerTimeout_(peerTimeout),
      listener_(bindAddressOf(identity)) {
  const std::string address = listener_.address();
  store.set(psLinkKey(identity.roleIndex), std::vector<uint8_t>(address.begin(), address.end()));
}

std::vector<FramedSocket> TrainerLinkListener::acceptAll(std::chrono::milliseconds within) {
  const WorkerIdentity& id = identity_;
  const auto end = Clock::now() + within;
  std::vector<FramedSocket> links(static_cast<size_t>(id.numTrainers));
  int connected = 0;
  while (connected < id.numTrainers) {
    const int fd = listener_.accept(leftUntil(end));
    if (fd < 0) {
      std::string missing;
      for (int t = 0; t < id.numTrainers; ++t) {
        if (links[t].open()) continue;
        missing +=
            (missing.empty() ? "" : ", ") + describeRank(id.numParameterServers, id.numTrainers,
                                                         api::trainerRank(id.topology(), t));
      }
      throw PeerError("parameter server: no link from " + missing + " within " + inSeconds(within));
    }
    FramedSocket link(fd, "a connecting peer", maxFrame_, std::min(peerTimeout_, kHelloTimeout));
    std::string why;
    int t = -1;
    try {
      std::string hello(kMaxHello, '\0');
      hello.resize(link.receive(hello.data(), hello.size()));
      why = checkLinkHello(hello, id, &t);
      if (why.empty() && links[t].open())
        why = "trainer " + std::to_string(t) + " is linked already";
      if (why.empty()) {
        link.send(kAccepted, 2);
        link.setPeer(describeRank(id.numParameterServers, id.numTrainers,
                                  api::trainerRank(id.topology(), t)));
        link.setTimeout(peerTimeout_);
        links[t] = std::move(link);
        ++connected;
        continue;
      }
      const std::string refusal = "refused: " + why;
      link.send(refusal.data(), refusal.size());
    } catch (const std::exception& e) {
      why = e.what();
    }
    std::fprintf(stderr, "%s: refused a link: %s\n", id.label().c_str(), why.c_str());
  }
  return links;
}

std::vector<FramedSocket> connectToParameterServers(const WorkerIdentity& id, c10d::Store& store,
                                                    size_t maxFrame,
                                                    std::chrono::milliseconds within,
                                                    std::chrono::milliseconds peerTimeout) {
  const auto end = Clock::now() + within;
  std::vector<FramedSocket> links;
  for (int p = 0; p < id.numParameterServers; ++p) {
    const std::string name =
        describeRank(id.numParameterServers, id.numTrainers, api::parameterServerRank(p));
    std::string address;
    try {
      store.wait({psLinkKey(p)}, std::max(leftUntil(end), std::chrono::milliseconds(1)));
      const std::vector<uint8_t> v = store.get(psLinkKey(p));
      address.assign(v.begin(), v.end());
    } catch (const std::exception& e) {
      const std::string what = e.what();
      throw PeerError(name + " published no link address within " + inSeconds(within) + ": " +
                      what.substr(0, what.find('\n')));
    }
    std::pair<std::string, int> hostPort;
    try {
      hostPort = splitHostPort(address);
    } catch (const std::invalid_argument& e) {
      throw PeerError(name + " published a link address that is " + e.what());
    }
    const auto connectWithin =
        std::min(peerTimeout, std::max(leftUntil(end), std::chrono::milliseconds(1)));
    FramedSocket link = FramedSocket::connect(hostPort.first, hostPort.second, name,
                                              std::max(maxFrame, kMaxHello), connectWithin);
    const std::string hello = linkHello(id.rank, id.runKey);
    link.send(hello.data(), hello.size());
    std::string answer(kMaxHello, '\0');
    answer.resize(link.receive(answer.data(), answer.size()));
    if (answer != kAccepted) throw PeerError(name + " did not take this trainer's link: " + answer);
    link.setTimeout(peerTimeout);
    links.push_back(std::move(link));
  }
  return links;
}

}  // namespace distbench::worker
