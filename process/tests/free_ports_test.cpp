#include "distbench/process/free_ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <set>

namespace distbench::process {
namespace {

TEST(PickFreePorts, PortsAreDistinctAndInRange) {
  std::vector<int> ports = pickFreePorts(18);
  ASSERT_EQ(ports.size(), 18u);
  std::set<int> distinct(ports.begin(), ports.end());
  EXPECT_EQ(distinct.size(), ports.size());
  for (int port : ports) {
    EXPECT_GT(port, 0);
    EXPECT_LT(port, 65536);
  }
}

TEST(PickFreePorts, EveryPortCanBeBoundAndListenedOnAtOnce) {
  std::vector<int> ports = pickFreePorts(8);
  std::vector<int> sockets;
  for (int port : ports) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockets.push_back(fd);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0)
        << "port " << port << " is not free";
    EXPECT_EQ(::listen(fd, 1), 0);
  }
  for (int fd : sockets) ::close(fd);
}

TEST(PickFreePorts, ZeroPortsIsEmpty) { EXPECT_TRUE(pickFreePorts(0).empty()); }

}  // namespace
}  // namespace distbench::process
