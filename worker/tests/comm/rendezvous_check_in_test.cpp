// A rank's check-in is idempotent for its own process and refuses another
// process under the same rank, naming both (rendezvous_check_in.h): a gang
// restart on a real node once failed with "joined twice" and nothing to
// say which processes met.
#include "distbench/worker/comm/rendezvous_check_in.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distbench/process/free_ports.h"
#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/comm/store_connection.h"

namespace distbench::worker {
namespace {

using ::testing::HasSubstr;

struct StorePair {
  c10::intrusive_ptr<c10d::Store> host;
  c10::intrusive_ptr<c10d::Store> client;
};

StorePair realStore() {
  const int port = process::pickFreePorts(1).at(0);
  StorePair s;
  s.host = connectTcpStore("127.0.0.1", port, /*isServer=*/true, std::chrono::seconds(10));
  s.client = connectTcpStore("127.0.0.1", port, /*isServer=*/false, std::chrono::seconds(10));
  return s;
}

TEST(RendezvousCheckIn, ThisProcessAskingAgainIsNotASecondJoin) {
  StorePair s = realStore();
  checkInRank(*s.client, 1, "ps0 (rank 1), pid 7, tag 0000abcd");
  EXPECT_NO_THROW(checkInRank(*s.client, 1, "ps0 (rank 1), pid 7, tag 0000abcd"));
  EXPECT_NO_THROW(checkInRank(*s.host, 1, "ps0 (rank 1), pid 7, tag 0000abcd"));
}

TEST(RendezvousCheckIn, AnotherProcessUnderTheSameRankIsRefusedNamingBoth) {
  StorePair s = realStore();
  checkInRank(*s.host, 3, "trainer1 (rank 3) in pod a at 10.0.0.5, pid 1, tag 11111111");
  try {
    checkInRank(*s.client, 3, "trainer1 (rank 3) in pod a at 10.0.0.9, pid 1, tag 22222222");
    FAIL() << "a second process under rank 3 was let in";
  } catch (const PeerError& e) {
    EXPECT_THAT(e.what(), HasSubstr("rank 3 joined twice"));
    EXPECT_THAT(e.what(), HasSubstr("at 10.0.0.5, pid 1, tag 11111111 checked in first"));
    EXPECT_THAT(e.what(), HasSubstr("then trainer1 (rank 3) in pod a at 10.0.0.9"));
  }
}

TEST(RendezvousCheckIn, EveryRankIsInOnlyWhenEachKeyIs) {
  StorePair s = realStore();
  EXPECT_FALSE(everyRankCheckedIn(*s.client, 3));
  EXPECT_EQ(ranksNotCheckedIn(*s.client, 3), (std::vector<int>{0, 1, 2}));
  checkInRank(*s.host, 0, "master");
  checkInRank(*s.client, 2, "trainer0");
  // The same rank twice from one process does not stand in for rank 1.
  checkInRank(*s.client, 2, "trainer0");
  EXPECT_FALSE(everyRankCheckedIn(*s.client, 3));
  EXPECT_EQ(ranksNotCheckedIn(*s.host, 3), (std::vector<int>{1}));
  checkInRank(*s.client, 1, "ps0");
  EXPECT_TRUE(everyRankCheckedIn(*s.host, 3));
  EXPECT_TRUE(ranksNotCheckedIn(*s.client, 3).empty());
}

TEST(RendezvousCheckIn, AnIdentityNamesTheRankThePodAndIsThisProcesssAlone) {
  WorkerIdentity id;
  id.role = api::Role::ParameterServer;
  id.rank = 1;
  id.roleIndex = 0;
  id.worldSize = 4;
  id.numParameterServers = 1;
  id.numTrainers = 2;
  ::setenv("POD_NAME", "hybrid-ps-0", 1);
  ::setenv("POD_IP", "198.18.0.9", 1);
  const std::string a = checkInIdentity(id);
  const std::string b = checkInIdentity(id);
  ::unsetenv("POD_NAME");
  ::unsetenv("POD_IP");
  EXPECT_THAT(a, HasSubstr("ps0 (rank 1) in pod hybrid-ps-0 at 198.18.0.9, pid "));
  EXPECT_THAT(a, HasSubstr(", tag "));
  // Two processes forked from one parent (same pid in two pods) still differ.
  EXPECT_NE(a, b);
  const std::string local = checkInIdentity(id);
  EXPECT_EQ(local.find(" in pod "), std::string::npos) << local;
}

}  // namespace
}  // namespace distbench::worker
