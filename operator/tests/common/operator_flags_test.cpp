#include "distbench/operator/common/operator_flags.h"

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

// Off unless asked for: a tenant's benchmark must not relax its pods below
// Pod Security "restricted" on an operator nobody configured to allow it.
TEST(OperatorFlags, PrivilegedOverridesAreRefusedUnlessAllowed) {
  EXPECT_FALSE(parseOperatorFlags({}).allowPrivilegedOverrides);
  EXPECT_TRUE(parseOperatorFlags({"--allow-privileged-overrides"}).allowPrivilegedOverrides);
  EXPECT_TRUE(parseOperatorFlags({"--allow-privileged-overrides=true"}).allowPrivilegedOverrides);
  EXPECT_FALSE(parseOperatorFlags({"--allow-privileged-overrides=false"}).allowPrivilegedOverrides);
  try {
    parseOperatorFlags({"--allow-privileged-overrides=yes"});
    ADD_FAILURE() << "accepted yes";
  } catch (const FlagError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--allow-privileged-overrides: expected true or false, got \"yes\"");
  }
  EXPECT_NE(operatorUsage().find("--allow-privileged-overrides"), std::string::npos);
}

// The preflight gate needs Kueue and rights on nodes: off unless asked for.
TEST(OperatorFlags, ThePreflightGateIsOffUnlessAsked) {
  EXPECT_FALSE(parseOperatorFlags({}).preflight);
  EXPECT_TRUE(parseOperatorFlags({"--preflight"}).preflight);
  EXPECT_FALSE(parseOperatorFlags({"--preflight=false"}).preflight);
  EXPECT_THROW(parseOperatorFlags({"--preflight=on"}), FlagError);
  EXPECT_NE(operatorUsage().find("--preflight"), std::string::npos);
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
  EXPECT_EQ(error({"--progress-interval=-1"}),
            "--progress-interval: expected seconds >= 0 and at most 86400, got \"-1\"");
  EXPECT_EQ(error({"--create-failure-timeout=0"}),
            "--create-failure-timeout: expected seconds > 0 and at most 86400, got \"0\"");
  EXPECT_EQ(error({"--report-fetch-timeout=inf"}),
            "--report-fetch-timeout: expected seconds > 0 and at most 86400, got \"inf\"");
  EXPECT_EQ(parseOperatorFlags({"--progress-interval=0"}).progressIntervalSeconds, 0);
  EXPECT_EQ(parseOperatorFlags({}).progressIntervalSeconds, 10);
  EXPECT_EQ(error({"--worker-image="}), "--worker-image: must not be empty");
  EXPECT_EQ(error({"--cuda-worker-image", "a/b:1 "}),
            "--cuda-worker-image: an image reference has no whitespace, got \"a/b:1 \"");
}

// The images dockerfiles/ builds at this version, unless the chart says otherwise.
TEST(OperatorFlags, WorkerImagesByDevice) {
  const OperatorFlags defaults = parseOperatorFlags({});
  EXPECT_EQ(defaults.workerImage, std::string("distbench/worker:") + DISTBENCH_VERSION);
  EXPECT_EQ(defaults.cudaWorkerImage, std::string("distbench/worker-cuda:") + DISTBENCH_VERSION);
  const OperatorFlags set = parseOperatorFlags(
      {"--worker-image=registry.example:5000/distbench/worker:0.2.0",
       "--cuda-worker-image=registry.example:5000/distbench/worker-cuda@sha256:abc"});
  EXPECT_EQ(set.workerImage, "registry.example:5000/distbench/worker:0.2.0");
  EXPECT_EQ(set.cudaWorkerImage, "registry.example:5000/distbench/worker-cuda@sha256:abc");
  const std::string usage = operatorUsage();
  EXPECT_NE(usage.find("--worker-image IMAGE"), std::string::npos);
  EXPECT_NE(usage.find("(default " + defaults.cudaWorkerImage + ")"), std::string::npos);
}

}  // namespace
}  // namespace distbench::op
