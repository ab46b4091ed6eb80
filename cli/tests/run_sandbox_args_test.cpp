// `distbench run --links/--slow/--clean-up` on the command line: bad text
// is a usage error (exit 2) before anything starts, naming flag and entry.
#include <gtest/gtest.h>

#include "distbench/cli/arg_parser.h"
#include "distbench/cli/run_command.h"

namespace distbench::cli {
namespace {

std::string usageError(const std::vector<std::string>& args) {
  try {
    parseRunArgs(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(RunSandboxArgs, KeepsTheTextAsGiven) {
  RunSettings s = parseRunArgs({"x.yaml", "--links", "bandwidth=1gbit;rank5=100mbit", "--slow",
                                "rank3=cpu:50%"});
  EXPECT_EQ(s.links, "bandwidth=1gbit;rank5=100mbit");
  EXPECT_EQ(s.slow, "rank3=cpu:50%");
  EXPECT_FALSE(s.cleanUp);
}

TEST(RunSandboxArgs, BadTextIsAUsageError) {
  EXPECT_NE(usageError({"x.yaml", "--links", "latency=10ms"}).find("latency cannot be emulated"),
            std::string::npos);
  EXPECT_NE(usageError({"x.yaml", "--links", "rank1=quick"}).find("--links: rank1=quick"),
            std::string::npos);
  EXPECT_NE(usageError({"x.yaml", "--slow", "rank1=gpu:50%"}).find("--slow: rank1=gpu:50%"),
            std::string::npos);
}

TEST(RunSandboxArgs, MetricsFlagsAreRefusedWithLinksAndSaySo) {
  for (const char* flag : {"--prometheus-sd", "--metrics-address"}) {
    std::string error = usageError({"x.yaml", "--links", "bandwidth=1gbit", flag, "0.0.0.0"});
    EXPECT_NE(error.find(std::string(flag) + " cannot be used with --links"), std::string::npos)
        << error;
    EXPECT_NE(error.find("cannot be reached from this one"), std::string::npos) << error;
  }
  // --slow alone keeps every rank where distbench runs: metrics work.
  EXPECT_EQ(usageError({"x.yaml", "--slow", "rank1=cpu:50%", "--prometheus-sd", "t.json"}),
            "(no error)");
}

TEST(RunSandboxArgs, CleanUpNeedsNoSpec) {
  EXPECT_TRUE(parseRunArgs({"--clean-up"}).cleanUp);
}

}  // namespace
}  // namespace distbench::cli
