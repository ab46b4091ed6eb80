#include "distbench/cli/arg_parser.h"

#include <gtest/gtest.h>

#include "distbench/cli/run_command.h"

namespace distbench::cli {
namespace {

ArgParser parser() { return ArgParser({{"--report", true}, {"--no-report", false}}); }

std::string usageError(const std::vector<std::string>& args) {
  try {
    parseRunArgs(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ArgParser, FlagsWithSeparateAndInlineValues) {
  ParsedArgs a = parser().parse({"spec.yaml", "--report", "r.json"});
  EXPECT_EQ(a.value("--report"), "r.json");
  EXPECT_EQ(a.positionals(), (std::vector<std::string>{"spec.yaml"}));
  ParsedArgs b = parser().parse({"--report=x.json", "--no-report"});
  EXPECT_EQ(b.value("--report"), "x.json");
  EXPECT_TRUE(b.has("--no-report"));
  EXPECT_FALSE(b.has("--help"));
}

TEST(ArgParser, UnknownFlagIsNamed) {
  try {
    parser().parse({"spec.yaml", "--reprot", "x"});
    FAIL() << "expected UsageError";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "unknown flag --reprot");
  }
  EXPECT_THROW(parser().parse({"--bogus=1"}), UsageError);
}

TEST(ArgParser, MissingValueAndUnwantedValueAreErrors) {
  EXPECT_THROW(parser().parse({"--report"}), UsageError);
  EXPECT_THROW(parser().parse({"--no-report=yes"}), UsageError);
}

TEST(ArgParser, HelpInBothSpellingsAndDoubleDash) {
  EXPECT_TRUE(parser().parse({"-h"}).has("--help"));
  EXPECT_TRUE(parser().parse({"--help"}).has("--help"));
  ParsedArgs a = parser().parse({"--", "--report", "-"});
  EXPECT_FALSE(a.has("--report"));
  EXPECT_EQ(a.positionals(), (std::vector<std::string>{"--report", "-"}));
}

TEST(ParseRunArgs, Defaults) {
  RunSettings s = parseRunArgs({"spec.yaml"});
  EXPECT_EQ(s.source.file, "spec.yaml");
  EXPECT_TRUE(s.source.preset.empty());
  EXPECT_TRUE(s.writeReport);
  EXPECT_TRUE(s.reportPath.empty());
  EXPECT_TRUE(s.workerBinary.empty());
  EXPECT_EQ(s.metricsLingerSeconds, 0);
  EXPECT_TRUE(s.prometheusSdPath.empty());
  EXPECT_EQ(s.metricsAddress, "127.0.0.1");
  EXPECT_EQ(s.timeout, std::chrono::seconds(3600));
  EXPECT_EQ(s.gracePeriod, std::chrono::seconds(5));
}

TEST(ParseRunArgs, EveryFlag) {
  RunSettings s = parseRunArgs({"--preset", "tutorial", "--worker", "/w", "--report", "r.json",
                                "--dump-state", "/tmp/d", "--metrics-linger", "7", "--timeout",
                                "1.5", "--grace-period=0.25"});
  EXPECT_EQ(s.source.preset, "tutorial");
  EXPECT_EQ(s.workerBinary, "/w");
  EXPECT_EQ(s.reportPath, "r.json");
  EXPECT_EQ(s.dumpStateDir, "/tmp/d");
  EXPECT_EQ(s.metricsLingerSeconds, 7);
  EXPECT_EQ(s.timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(s.gracePeriod, std::chrono::milliseconds(250));
  EXPECT_FALSE(parseRunArgs({"x.yaml", "--no-report"}).writeReport);
}

// A scraper needs the last values to stay up a little; an explicit linger wins.
TEST(ParseRunArgs, PrometheusTargetsLingerUnlessToldOtherwise) {
  RunSettings s = parseRunArgs({"x.yaml", "--prometheus-sd", "/tmp/t.json"});
  EXPECT_EQ(s.prometheusSdPath, "/tmp/t.json");
  EXPECT_EQ(s.metricsLingerSeconds, 10);
  EXPECT_EQ(parseRunArgs({"x.yaml", "--metrics-linger", "3", "--prometheus-sd", "t.json"})
                .metricsLingerSeconds,
            3);
  EXPECT_EQ(parseRunArgs({"x.yaml", "--metrics-address", "0.0.0.0"}).metricsAddress, "0.0.0.0");
}

TEST(ParseRunArgs, ErrorsNameTheFlag) {
  EXPECT_EQ(usageError({"x.yaml", "--metrics-address", "localhost"}),
            "--metrics-address needs an IPv4 address such as 127.0.0.1 or 0.0.0.0, not "
            "'localhost'");
  EXPECT_EQ(usageError({"x.yaml", "--prometheus-sd", ""}), "--prometheus-sd needs a file name");
  EXPECT_EQ(usageError({"x.yaml", "--frobnicate"}), "unknown flag --frobnicate");
  EXPECT_EQ(usageError({"x.yaml", "--timeout", "soon"}),
            "--timeout needs a number of seconds >= 0, not 'soon'");
  EXPECT_EQ(usageError({"x.yaml", "--timeout", "0"}), "--timeout must be more than 0 seconds");
  EXPECT_EQ(usageError({"x.yaml", "--metrics-linger", "-1"}),
            "--metrics-linger needs a whole number >= 0, not '-1'");
  EXPECT_EQ(usageError({"x.yaml", "--report", "r", "--no-report"}),
            "--report and --no-report contradict each other");
}

TEST(ParseRunArgs, ExactlyOneSpecSource) {
  EXPECT_EQ(usageError({}), "missing FILE (or --preset NAME)");
  EXPECT_EQ(usageError({"a.yaml", "--preset", "default"}), "give a FILE or --preset NAME, not both");
  EXPECT_EQ(usageError({"a.yaml", "b.yaml"}), "unexpected argument 'b.yaml'");
  EXPECT_TRUE(parseRunArgs({"--help"}).help);
}

TEST(RunSandboxArgs, KeepsTheTextAsGiven) {
  RunSettings s = parseRunArgs({"x.yaml", "--links", "bandwidth=1gbit;rank5=100mbit", "--slow",
                                "rank3=cpu:50%"});
  EXPECT_EQ(s.links.text, "bandwidth=1gbit;rank5=100mbit");
  EXPECT_EQ(s.slow.text, "rank3=cpu:50%");
  EXPECT_EQ(s.links.defaultBitsPerSecond, 1e9);
  ASSERT_EQ(s.slow.cpu.size(), 1u);
  EXPECT_EQ(s.slow.cpu[0].second, 0.5);
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
