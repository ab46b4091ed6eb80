#include "operator_flags.h"

#include <gtest/gtest.h>

namespace distbench::op {
namespace {

TEST(OperatorFlags, DefaultsWorkInACluster) {
  const OperatorFlags f = parseOperatorFlags({});
  EXPECT_EQ(f.kubeconfig, "");
  EXPECT_EQ(f.ns, "");
  EXPECT_EQ(f.workers, 4);
  EXPECT_EQ(f.httpAddress, "0.0.0.0:8080");
  EXPECT_FALSE(f.leaderElect);
  EXPECT_EQ(f.leaderElectionId, "distbench-operator");
  EXPECT_EQ(f.logFormat, "json");
}

TEST(OperatorFlags, BothSpellingsOfValues) {
  const OperatorFlags f = parseOperatorFlags({"--workers=8", "--namespace", "bench", "--leader-elect",
                                              "--http-address", "127.0.0.1:0", "--log-format=text"});
  EXPECT_EQ(f.workers, 8);
  EXPECT_EQ(f.ns, "bench");
  EXPECT_TRUE(f.leaderElect);
  EXPECT_EQ(f.httpAddress, "127.0.0.1:0");
  EXPECT_EQ(f.logFormat, "text");
  EXPECT_FALSE(parseOperatorFlags({"--leader-elect=false"}).leaderElect);
}

TEST(OperatorFlags, BadInputNamesTheFlag) {
  auto error = [](std::vector<std::string> args) {
    try {
      parseOperatorFlags(args);
    } catch (const FlagError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error({"--workers", "0"}), "--workers: expected a whole number >= 1, got \"0\"");
  EXPECT_EQ(error({"--workers"}), "--workers: needs a value");
  EXPECT_EQ(error({"--log-level=loud"}),
            "--log-level: expected one of debug, info, warn, error, got \"loud\"");
  EXPECT_EQ(error({"--http-address", "8080"}), "--http-address: expected HOST:PORT, got \"8080\"");
  EXPECT_EQ(error({"--http-address", ":99999"}), "--http-address: port must be 0-65535, got \"99999\"");
  EXPECT_EQ(error({"--frobnicate"}), "unknown flag --frobnicate (see --help)");
  EXPECT_NE(error({"--leader-elect", "--lease-duration", "5", "--renew-deadline", "10"})
                .find("lease-duration > renew-deadline"),
            std::string::npos);
}

}  // namespace
}  // namespace distbench::op
