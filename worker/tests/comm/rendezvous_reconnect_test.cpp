// A rank whose store connection breaks while it checks in connects again
// (Rendezvous::checkInWithRetries): after a gang restart on a real node, a
// trainer's check-in read nonsense from its connection (std::bad_alloc) and
// the whole gang was restarted a second time. A proxy in front of a real
// TCPStore answers a connection with garbage, as that one did.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <thread>
#include <vector>

#include "distbench/process/free_ports.h"
#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/comm/rendezvous.h"

namespace distbench::worker {
namespace {

using Clock = std::chrono::steady_clock;
using ::testing::HasSubstr;

int listenOn(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0)
    throw std::runtime_error("proxy: cannot listen on " + std::to_string(port));
  return fd;
}

int connectTo(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void pump(int from, int to) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(from, buf, sizeof buf);
    if (n <= 0 || ::write(to, buf, static_cast<size_t>(n)) != n) break;
  }
  ::shutdown(to, SHUT_WR);
}

// Forwards 127.0.0.1:port to the store at 127.0.0.1:storePort, except the
// connections `garbles` picks: those get 8 bytes of 0xff after their first
// request (an answer whose length no client can allocate), then EOF.
class GarblingProxy {
 public:
  GarblingProxy(int port, int storePort, std::function<bool(int)> garbles)
      : listener_(listenOn(port)), storePort_(storePort), garbles_(std::move(garbles)) {
    acceptor_ = std::thread([this] { acceptLoop(); });
  }
  ~GarblingProxy() {
    stop_ = true;
    acceptor_.join();
    ::close(listener_);
    for (auto& t : pumps_) t.join();
    for (int fd : fds_) ::close(fd);
  }
  int connections() const { return count_; }

 private:
  void acceptLoop() {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) continue;
      fds_.push_back(client);
      if (garbles_(++count_)) {
        pumps_.emplace_back([client] {
          char buf[256];
          pollfd p{client, POLLIN, 0};
          if (::poll(&p, 1, 5000) > 0 && ::read(client, buf, sizeof buf) > 0) {
            const std::vector<unsigned char> junk(8, 0xff);
            [[maybe_unused]] ssize_t n = ::write(client, junk.data(), junk.size());
          }
          ::shutdown(client, SHUT_RDWR);
        });
        continue;
      }
      const int store = connectTo(storePort_);
      if (store < 0) continue;
      fds_.push_back(store);
      pumps_.emplace_back([client, store] { pump(client, store); });
      pumps_.emplace_back([client, store] { pump(store, client); });
    }
  }

  int listener_;
  int storePort_;
  std::function<bool(int)> garbles_;
  std::atomic<bool> stop_{false};
  std::atomic<int> count_{0};
  std::thread acceptor_;
  std::vector<std::thread> pumps_;
  std::vector<int> fds_;
};

WorkerIdentity rank(api::Role role, int r, int port) {
  WorkerIdentity id;
  id.role = role;
  id.rank = r;
  id.roleIndex = 0;
  id.worldSize = 2;
  id.numTrainers = 1;
  id.masterAddr = "127.0.0.1";
  id.masterPort = port;
  id.bindAddress = "127.0.0.1";
  return id;
}

TEST(RendezvousReconnect, ABrokenConnectionDuringCheckInIsReplacedAndTheRankJoins) {
  const std::vector<int> ports = process::pickFreePorts(2);
  RendezvousTimeouts timeouts;
  timeouts.rendezvous = std::chrono::seconds(30);
  auto master = std::async(std::launch::async, [&] {
    Rendezvous r(rank(api::Role::Master, 0, ports[0]), timeouts);
  });
  GarblingProxy proxy(ports[1], ports[0], [](int n) { return n == 1; });
  EXPECT_NO_THROW(Rendezvous(rank(api::Role::Trainer, 1, ports[1]), timeouts));
  master.get();
  EXPECT_GE(proxy.connections(), 2);
}

TEST(RendezvousReconnect, AConnectionThatNeverWorksEndsTheRankInBoundedTimeNamingTheMaster) {
  const std::vector<int> ports = process::pickFreePorts(2);
  RendezvousTimeouts timeouts;
  timeouts.rendezvous = std::chrono::seconds(8);
  GarblingProxy proxy(ports[1], ports[0], [](int) { return true; });
  const auto start = Clock::now();
  try {
    Rendezvous r(rank(api::Role::Trainer, 1, ports[1]), timeouts);
    FAIL() << "joined through a proxy that answers nothing but garbage";
  } catch (const PeerError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the master (rank 0)"));
  }
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
}

}  // namespace
}  // namespace distbench::worker
