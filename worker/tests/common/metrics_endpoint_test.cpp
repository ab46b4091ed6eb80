// Where a rank's /metrics listens: every interface in a pod, loopback for
// `distbench run` (DISTBENCH_METRICS_ADDRESS), read back from the kernel's
// table of listening sockets rather than from what the endpoint says.
#include "distbench/worker/common/metrics.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "distbench/process/free_ports.h"

namespace distbench::worker {
namespace {

// The local address of the IPv4 socket listening on `port`, as
// /proc/net/tcp writes it ("0100007F" is 127.0.0.1), or "" when none is.
std::string listeningAddress(int port) {
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // the header
  char wantedPort[8];
  std::snprintf(wantedPort, sizeof wantedPort, "%04X", port);
  while (std::getline(table, line)) {
    char local[64], remote[64], state[8];
    int slot = 0;
    if (std::sscanf(line.c_str(), " %d: %63s %63s %7s", &slot, local, remote, state) != 4) continue;
    const std::string address = local;
    if (std::string(state) == "0A" && address.substr(address.find(':') + 1) == wantedPort) {
      return address.substr(0, address.find(':'));
    }
  }
  return "";
}

TEST(MetricsEndpoint, ListensOnLoopbackWhenAskedTo) {
  const int port = process::pickFreePorts(1)[0];
  MetricsEndpoint endpoint("b", "trainer", 2, port, "127.0.0.1");
  EXPECT_EQ(endpoint.endpoint(), "http://127.0.0.1:" + std::to_string(port) + "/metrics");
  EXPECT_EQ(listeningAddress(port), "0100007F");
}

TEST(MetricsEndpoint, ListensOnEveryInterfaceByDefault) {
  const int port = process::pickFreePorts(1)[0];
  MetricsEndpoint endpoint("b", "trainer", 2, port);
  EXPECT_EQ(listeningAddress(port), "00000000");
}

TEST(MetricsEndpoint, ABadAddressIsAnErrorNamingIt) {
  const int port = process::pickFreePorts(1)[0];
  try {
    MetricsEndpoint endpoint("b", "trainer", 2, port, "192.0.2.77");  // not this machine's
    FAIL() << "bound to an address this machine does not have";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("192.0.2.77:" + std::to_string(port)), std::string::npos)
        << e.what();
  }
}

// A port another socket listens on: the error says why (bind's errno).
TEST(MetricsEndpoint, ATakenPortIsAnErrorSayingWhy) {
  process::LoopbackPort taken;
  taken.listen();
  const int port = taken.port();
  try {
    MetricsEndpoint endpoint("b", "trainer", 2, port, "127.0.0.1");
    FAIL() << "served on a port another socket listens on";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << what;
    EXPECT_NE(what.find("in use"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace distbench::worker
