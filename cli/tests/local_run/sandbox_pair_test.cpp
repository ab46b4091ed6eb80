// A pair link (`--links trainer0-trainer1=RATE`) for real: root only
// (ctest label sandbox). The sandbox is made as `distbench run` makes it,
// and TCP transfers between its namespaces are timed by the receiver, so
// the test sees what the kernel does with the htb classes and u32 filters:
// the pair runs at its rate both ways, and the same ranks' other links do
// not.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <vector>

#include "distbench/cli/local_run/net_sandbox.h"
#include "distbench/cli/local_run/sandbox_plan.h"
#include "local_run/sandbox_run_support.h"

namespace distbench::cli {
namespace {

using namespace sandbox_testing;

std::vector<api::RankProcess> threeRanks() {
  std::vector<api::RankProcess> ranks;
  const char* labels[] = {"master", "trainer0", "trainer1"};
  for (int i = 0; i < 3; ++i) {
    api::RankProcess rank;
    rank.rank = i;
    rank.rankLabel = labels[i];
    rank.role = i == 0 ? api::Role::Master : api::Role::Trainer;
    ranks.push_back(rank);
  }
  return ranks;
}

sockaddr_in addressOf(int rank, int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, rankAddress(rank).c_str(), &address.sin_addr);
  return address;
}

void writeAll(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n <= 0) ::_exit(3);
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

// Forked children only make syscalls: the receiver enters `to`'s namespace,
// listens, says so, and reports the seconds from accept to EOF; the sender
// enters `from`'s and writes `bytes`. -1 on any failure or after 20 s.
double transferSeconds(const LocalSandbox& sandbox, int from, int to, long long bytes, int port) {
  int ready[2];
  int result[2];
  if (::pipe(ready) != 0 || ::pipe(result) != 0) return -1;
  pid_t receiver = ::fork();
  if (receiver == 0) {
    if (::setns(sandbox.spawnOptions(to).netnsFd, CLONE_NEWNET) != 0) ::_exit(1);
    int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    int on = 1;
    ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in address = addressOf(to, port);
    if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener, 1) != 0) {
      ::_exit(2);
    }
    writeAll(ready[1], "r", 1);
    int peer = ::accept(listener, nullptr, nullptr);
    const auto started = std::chrono::steady_clock::now();
    std::vector<char> buffer(1 << 16);
    while (::read(peer, buffer.data(), buffer.size()) > 0) {
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    writeAll(result[1], &seconds, sizeof seconds);
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(result[1]);
  pid_t sender = -1;
  double seconds = -1;
  pollfd readyPoll{ready[0], POLLIN, 0};
  char byte = 0;
  if (::poll(&readyPoll, 1, 5000) == 1 && ::read(ready[0], &byte, 1) == 1) {
    sender = ::fork();
    if (sender == 0) {
      if (::setns(sandbox.spawnOptions(from).netnsFd, CLONE_NEWNET) != 0) ::_exit(1);
      int socket = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address = addressOf(to, port);
      if (::connect(socket, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::_exit(2);
      }
      std::vector<char> buffer(1 << 16, 'x');
      for (long long left = bytes; left > 0;) {
        const std::size_t chunk = static_cast<std::size_t>(std::min<long long>(left, 1 << 16));
        writeAll(socket, buffer.data(), chunk);
        left -= static_cast<long long>(chunk);
      }
      ::close(socket);
      ::_exit(0);
    }
    pollfd resultPoll{result[0], POLLIN, 0};
    if (::poll(&resultPoll, 1, 20000) != 1 ||
        ::read(result[0], &seconds, sizeof seconds) != sizeof seconds) {
      seconds = -1;
    }
  }
  for (pid_t pid : {receiver, sender}) {
    if (pid <= 0) continue;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  for (int fd : {ready[0], result[0]}) ::close(fd);
  return seconds;
}

class SandboxPair : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = skipReason();
    if (!reason.empty()) GTEST_SKIP() << reason;
    ASSERT_EQ(leftovers(), std::vector<std::string>{}) << "left by someone before this test";
  }
  void TearDown() override {
    if (IsSkipped()) return;
    EXPECT_EQ(joined(leftovers()), "") << "the sandbox was not removed";
  }
};

// trainer0-trainer1 at 20mbit; trainer1 has 200mbit of its own, trainer0
// and the master none. 2.5 MB is a second at 20mbit, a tenth at 200mbit.
TEST_F(SandboxPair, PairRunsAtItsRateBothWaysAndTheRanksOtherLinksDoNot) {
  const double pairRate = 20e6;
  const double ownRate = 200e6;
  const long long bytes = 2500000;
  std::optional<LocalSandbox> sandbox;
  try {
    sandbox.emplace(
        planSandbox("0e0e0e0e", threeRanks(), {{2, ownRate}}, {}, true, {{{1, 2}, pairRate}}));
  } catch (const SandboxRefused& error) {
    FAIL() << error.what();
  }
  const double bits = static_cast<double>(bytes) * 8.0;
  const double t0ToT1 = transferSeconds(*sandbox, 1, 2, bytes, 5001);
  const double t1ToT0 = transferSeconds(*sandbox, 2, 1, bytes, 5002);
  const double t0ToMaster = transferSeconds(*sandbox, 1, 0, bytes, 5003);
  const double t1ToMaster = transferSeconds(*sandbox, 2, 0, bytes, 5004);
  const double masterToT1 = transferSeconds(*sandbox, 0, 2, bytes, 5005);
  std::printf(
      "[ figure ] 2.5 MB over trainer0-trainer1=20mbit: %.1f Mbit/s, back %.1f Mbit/s; "
      "trainer0->master (unshaped) %.1f Mbit/s; trainer1 (200mbit) ->master %.1f, "
      "master-> %.1f Mbit/s\n",
      bits / t0ToT1 / 1e6, bits / t1ToT0 / 1e6, bits / t0ToMaster / 1e6, bits / t1ToMaster / 1e6,
      bits / masterToT1 / 1e6);
  for (double seconds : {t0ToT1, t1ToT0, t0ToMaster, t1ToMaster, masterToT1}) {
    ASSERT_GT(seconds, 0) << "a transfer failed or took over 20 s";
  }
  // The pair holds its rate both ways: never above it (the 32 KiB burst is
  // noise), and on a loaded machine within a couple of times of it.
  for (double seconds : {t0ToT1, t1ToT0}) {
    EXPECT_GT(bits / seconds, 0.5 * pairRate);
    EXPECT_LT(bits / seconds, 1.1 * pairRate);
  }
  // The same ranks' other links: trainer0 unshaped, trainer1 at its own rate
  // both ways, not at the pair's.
  EXPECT_GT(bits / t0ToMaster, 5 * pairRate);
  for (double seconds : {t1ToMaster, masterToT1}) {
    EXPECT_GT(bits / seconds, 3 * pairRate);
    EXPECT_LT(bits / seconds, 1.1 * ownRate);
  }
  // What each end sent through the pair's class is counted.
  const std::map<int, RankCounters> counters = sandbox->readCounters();
  ASSERT_TRUE(counters.at(1).sentToPeer.count(2));
  ASSERT_TRUE(counters.at(2).sentToPeer.count(1));
  EXPECT_GT(counters.at(1).sentToPeer.at(2).bytes, bytes);
  EXPECT_GT(counters.at(2).sentToPeer.at(1).bytes, bytes);
  EXPECT_GT(counters.at(1).sentToPeer.at(2).overlimits, 0);
  EXPECT_EQ(sandbox->tearDown(), "");
}

}  // namespace
}  // namespace distbench::cli
