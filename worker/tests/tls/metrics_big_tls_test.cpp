// /metrics in a process whose static TLS is larger than a small thread stack
// (worker/tests/tls/big_static_tls.cpp): the endpoint must still serve. On
// the lent H200, with PyTorch's CUDA wheels loaded, civetweb's fixed 100 KiB
// thread stacks could not be created and every rank ran without /metrics.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "distbench/process/free_ports.h"
#include "distbench/worker/common/metrics.h"
#include "support/metrics_scrape.h"

extern "C" std::size_t distbenchBigStaticTlsBytes();

namespace distbench::worker {
namespace {

TEST(MetricsWithBigStaticTls, ServesWhereSmallThreadStacksCannotStart) {
  ASSERT_GE(distbenchBigStaticTlsBytes(), 512u * 1024);
  const int port = process::pickFreePorts(1)[0];
  MetricsEndpoint endpoint("b", "trainer", 1, port, "127.0.0.1");
  const std::string body = testing::scrape(port);
  EXPECT_NE(body.find("distbench_build_info"), std::string::npos) << body;
}

}  // namespace
}  // namespace distbench::worker
