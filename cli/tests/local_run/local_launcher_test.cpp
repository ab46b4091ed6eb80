#include "distbench/cli/local_run/local_launcher.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "distbench/process/temp_dir.h"
#include "local_run/launcher_test_util.h"

namespace distbench::cli {
namespace {

using api::Role;
using testing::CapturedOutput;
using process::processGone;
using process::TempDir;
using testing::shellRank;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

LaunchOptions fastOptions() {
  LaunchOptions options;
  options.gracePeriod = std::chrono::milliseconds(2000);
  options.timeout = std::chrono::seconds(30);
  return options;
}

TEST(LocalLauncher, AllRanksSucceedAndEveryLineArrivesPrefixed) {
  CapturedOutput out;
  std::vector<api::RankProcess> ranks = {
      shellRank("master", 0, Role::Master, "echo 'master log' >&2; echo 'Trainer0: p50: 0.1s'"),
      shellRank("ps0", 1, Role::ParameterServer, "echo 'ps stdout'; echo 'ps stderr' >&2"),
      shellRank("trainer0", 2, Role::Trainer, "echo 'trainer stdout'; echo 'trainer stderr' >&2"),
  };
  LaunchResult result = LocalLauncher(ranks, out, fastOptions()).run();

  EXPECT_EQ(result.outcome, LaunchOutcome::Succeeded) << out.all();
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_EQ(out.results, (std::vector<std::string>{"Trainer0: p50: 0.1s"}));
  // "[trainer0]" is the widest label: everyone's text starts in column 12.
  EXPECT_TRUE(out.contains("[master]   master log")) << out.all();
  EXPECT_TRUE(out.contains("[ps0]      ps stdout")) << out.all();
  EXPECT_TRUE(out.contains("[ps0]      ps stderr")) << out.all();
  EXPECT_TRUE(out.contains("[trainer0] trainer stdout")) << out.all();
  EXPECT_TRUE(out.contains("[trainer0] trainer stderr")) << out.all();
  EXPECT_FALSE(out.contains("Trainer0: p50")) << "the master's stdout is not log output";
  for (const char* label : {"master", "ps0", "trainer0"}) {
    EXPECT_GT(out.startedPid(label), 0) << label << "\n" << out.all();
  }
  EXPECT_TRUE(out.contains("distbench: started ps0 (rank 1, pid ")) << out.all();
}

TEST(LocalLauncher, StartLineShowsTheMetricsEndpoint) {
  CapturedOutput out;
  api::RankProcess rank = shellRank("master", 0, Role::Master, "true");
  rank.env.push_back({api::kEnvMetricsPort, "45678"});
  LaunchResult result = LocalLauncher({rank}, out, fastOptions()).run();
  EXPECT_EQ(result.outcome, LaunchOutcome::Succeeded);
  int line = out.find("distbench: started master (rank 0, pid ");
  ASSERT_GE(line, 0) << out.all();
  EXPECT_NE(out.logs[line].find("), metrics http://127.0.0.1:45678/metrics"), std::string::npos)
      << out.logs[line];
}

TEST(LocalLauncher, ChildGetsParentEnvironmentPlusRankEnv) {
  ::setenv("DISTBENCH_TEST_INHERITED", "from-parent", 1);
  ::setenv("DISTBENCH_TEST_OVERRIDDEN", "parent-value", 1);
  CapturedOutput out;
  api::RankProcess rank = shellRank(
      "master", 0, Role::Master,
      "echo \"$DISTBENCH_TEST_INHERITED $DISTBENCH_TEST_OVERRIDDEN $RANK_ONLY\"");
  rank.env = {{"DISTBENCH_TEST_OVERRIDDEN", "rank-value"}, {"RANK_ONLY", "yes"}};
  LaunchResult result = LocalLauncher({rank}, out, fastOptions()).run();
  ::unsetenv("DISTBENCH_TEST_INHERITED");
  ::unsetenv("DISTBENCH_TEST_OVERRIDDEN");
  EXPECT_EQ(result.outcome, LaunchOutcome::Succeeded);
  EXPECT_EQ(out.results, (std::vector<std::string>{"from-parent rank-value yes"}));
}

TEST(LocalLauncher, MasterStdoutPassesThroughUnprefixedEvenInPieces) {
  CapturedOutput out;
  std::vector<api::RankProcess> ranks = {
      shellRank("master", 0, Role::Master,
                "printf 'Trainer0: p50: 0.376s  185/s\\n'; printf 'All: '; sleep 0.2; "
                "printf 'p50: 0.5s\\r\\n'; printf 'no newline at the end'"),
      shellRank("trainer0", 1, Role::Trainer, "printf 'partial '; sleep 0.2; printf 'trainer line'"),
  };
  LaunchResult result = LocalLauncher(ranks, out, fastOptions()).run();
  EXPECT_EQ(result.outcome, LaunchOutcome::Succeeded);
  EXPECT_EQ(out.results, (std::vector<std::string>{"Trainer0: p50: 0.376s  185/s", "All: p50: 0.5s",
                                                   "no newline at the end"}));
  EXPECT_TRUE(out.contains("[trainer0] partial trainer line")) << out.all();
}

TEST(LocalLauncher, ProgressLinesAreConsumedNotLogged) {
  CapturedOutput out;
  std::vector<api::RankProcess> ranks = {
      shellRank("trainer1", 4, Role::Trainer,
                "echo '@@distbench-progress epoch=1 total=2' >&2; echo 'real log' >&2; "
                "echo '@@distbench-progress epoch=2 total=2' >&2; "
                "echo '@@distbench-progress on stdout is just text'"),
  };
  LaunchResult result = LocalLauncher(ranks, out, fastOptions()).run();
  EXPECT_EQ(result.outcome, LaunchOutcome::Succeeded);
  ASSERT_EQ(out.progressEvents.size(), 2u);
  EXPECT_EQ(out.progressEvents[0], std::make_tuple(4, std::string("trainer1"), 1L, 2L));
  EXPECT_EQ(out.progressEvents[1], std::make_tuple(4, std::string("trainer1"), 2L, 2L));
  EXPECT_TRUE(out.contains("[trainer1] real log"));
  EXPECT_FALSE(out.contains("epoch=")) << out.all();
  EXPECT_TRUE(out.contains("[trainer1] @@distbench-progress on stdout is just text"));
}

TEST(LocalLauncher, FailedRankStopsTheOthersAndIsNamed) {
  TempDir dir;
  const std::string pidFile = dir.path() + "/grandchild.pid";
  CapturedOutput out;
  LaunchOptions options = fastOptions();
  options.gracePeriod = std::chrono::seconds(5);
  std::vector<api::RankProcess> ranks = {
      // A background grandchild too: the whole process group must go.
      shellRank("master", 0, Role::Master,
                "sleep 60 & echo $! > " + pidFile + "; wait"),
      shellRank("ps0", 1, Role::ParameterServer, "sleep 60"),
      shellRank("trainer0", 2, Role::Trainer,
                "while [ ! -s " + pidFile + " ]; do sleep 0.02; done; "
                "echo 'loading' >&2; echo 'boom: peer exploded' >&2; exit 3"),
  };
  auto start = Clock::now();
  LaunchResult result = LocalLauncher(ranks, out, options).run();
  double elapsed = secondsSince(start);

  EXPECT_EQ(result.outcome, LaunchOutcome::RankFailed) << out.all();
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.failedRank, "trainer0");
  EXPECT_LT(elapsed, 5.0) << "SIGTERM should end the sleepers at once";

  int failure = out.find("distbench: trainer0 (rank 2) failed: exited with status 3");
  ASSERT_GE(failure, 0) << out.all();
  int tail = out.find("distbench: last 2 lines of trainer0's stderr:");
  ASSERT_GT(tail, failure) << out.all();
  ASSERT_LT(static_cast<std::size_t>(tail + 2), out.logs.size());
  EXPECT_EQ(out.logs[tail + 1], "[trainer0] loading");
  EXPECT_EQ(out.logs[tail + 2], "[trainer0] boom: peer exploded");
  EXPECT_TRUE(out.contains("distbench: stopping 2 ranks")) << out.all();
  EXPECT_TRUE(out.contains("distbench: stopped ps0 (rank 1): killed by signal 15 (Terminated)"))
      << out.all();
  EXPECT_FALSE(out.contains("SIGKILL")) << out.all();

  pid_t master = out.startedPid("master");
  pid_t ps = out.startedPid("ps0");
  ASSERT_GT(master, 0);
  ASSERT_GT(ps, 0);
  EXPECT_TRUE(processGone(master));
  EXPECT_TRUE(processGone(ps));
  std::ifstream grandchildPid(pidFile);
  pid_t grandchild = 0;
  ASSERT_TRUE(grandchildPid >> grandchild);
  // Reparented to init once its shell died, so it may take a moment to be reaped.
  for (int i = 0; i < 100 && !processGone(grandchild); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(processGone(grandchild)) << "the background sleep outlived its rank";
}

TEST(LocalLauncher, RankKilledBySignalIsReportedWithTheSignalName) {
  CapturedOutput out;
  std::vector<api::RankProcess> ranks = {
      shellRank("master", 0, Role::Master, "sleep 60"),
      shellRank("trainer1", 4, Role::Trainer, "kill -9 $$"),
  };
  auto start = Clock::now();
  LaunchResult result = LocalLauncher(ranks, out, fastOptions()).run();
  EXPECT_LT(secondsSince(start), 5.0);
  EXPECT_EQ(result.outcome, LaunchOutcome::RankFailed);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.failedRank, "trainer1");
  EXPECT_TRUE(out.contains("distbench: trainer1 (rank 4) failed: killed by signal 9 (Killed)"))
      << out.all();
  EXPECT_TRUE(out.contains("distbench: trainer1 wrote nothing to stderr")) << out.all();
}

TEST(LocalLauncher, RankIgnoringSigtermIsKilledAfterTheGracePeriod) {
  TempDir dir;
  const std::string ready = dir.path() + "/ready";
  CapturedOutput out;
  LaunchOptions options = fastOptions();
  options.gracePeriod = std::chrono::milliseconds(600);
  std::vector<api::RankProcess> ranks = {
      // sleep inherits the ignored SIGTERM from the shell.
      shellRank("master", 0, Role::Master, "trap '' TERM; touch " + ready + "; sleep 60"),
      shellRank("trainer0", 1, Role::Trainer,
                "while [ ! -e " + ready + " ]; do sleep 0.02; done; exit 1"),
  };
  auto start = Clock::now();
  LaunchResult result = LocalLauncher(ranks, out, options).run();
  double elapsed = secondsSince(start);

  EXPECT_EQ(result.outcome, LaunchOutcome::RankFailed);
  EXPECT_EQ(result.failedRank, "trainer0");
  EXPECT_GE(elapsed, 0.6) << "SIGKILL came before the grace period was over";
  EXPECT_LT(elapsed, 5.0);
  int escalation =
      out.find("distbench: master (rank 0) did not stop within 0.6 s of SIGTERM; sending SIGKILL");
  ASSERT_GE(escalation, 0) << out.all();
  EXPECT_GT(out.find("distbench: stopped master (rank 0): killed by signal 9 (Killed)"), escalation)
      << out.all();
  EXPECT_TRUE(processGone(out.startedPid("master")));
}

TEST(LocalLauncher, DeadlineTearsDownTheRun) {
  CapturedOutput out;
  LaunchOptions options = fastOptions();
  options.timeout = std::chrono::milliseconds(500);
  std::vector<api::RankProcess> ranks = {
      shellRank("master", 0, Role::Master, "sleep 60"),
      shellRank("ps0", 1, Role::ParameterServer, "true"),
      shellRank("trainer0", 2, Role::Trainer, "sleep 60"),
  };
  auto start = Clock::now();
  LaunchResult result = LocalLauncher(ranks, out, options).run();
  double elapsed = secondsSince(start);

  EXPECT_EQ(result.outcome, LaunchOutcome::TimedOut);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_GE(elapsed, 0.5);
  EXPECT_LT(elapsed, 5.0);
  EXPECT_TRUE(out.contains("distbench: timed out after 0.5 s (--timeout); still running: master, "
                           "trainer0; stopping 2 ranks"))
      << out.all();
  EXPECT_TRUE(processGone(out.startedPid("master")));
  EXPECT_TRUE(processGone(out.startedPid("trainer0")));
}

TEST(LocalLauncher, InterruptTearsDownWithTheSignalsExitStatus) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  unsigned char sig = SIGINT;
  ASSERT_EQ(::write(fds[1], &sig, 1), 1);
  CapturedOutput out;
  LaunchOptions options = fastOptions();
  options.interruptFd = fds[0];
  std::vector<api::RankProcess> ranks = {
      shellRank("master", 0, Role::Master, "sleep 60"),
      shellRank("trainer0", 1, Role::Trainer, "sleep 60"),
  };
  auto start = Clock::now();
  LaunchResult result = LocalLauncher(ranks, out, options).run();
  ::close(fds[0]);
  ::close(fds[1]);

  EXPECT_LT(secondsSince(start), 5.0);
  EXPECT_EQ(result.outcome, LaunchOutcome::Interrupted);
  EXPECT_EQ(result.exitCode, 130);
  EXPECT_EQ(result.interruptSignal, SIGINT);
  EXPECT_TRUE(out.contains("distbench: interrupted, stopping 2 ranks")) << out.all();
  EXPECT_TRUE(processGone(out.startedPid("master")));
  EXPECT_TRUE(processGone(out.startedPid("trainer0")));
}

TEST(LocalLauncher, SecondInterruptSkipsTheGracePeriod) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  unsigned char signals[2] = {SIGTERM, SIGTERM};
  ASSERT_EQ(::write(fds[1], signals, 2), 2);
  CapturedOutput out;
  LaunchOptions options = fastOptions();
  options.gracePeriod = std::chrono::seconds(20);
  options.interruptFd = fds[0];
  std::vector<api::RankProcess> ranks = {
      shellRank("master", 0, Role::Master, "trap '' TERM; sleep 60"),
  };
  auto start = Clock::now();
  LaunchResult result = LocalLauncher(ranks, out, options).run();
  ::close(fds[0]);
  ::close(fds[1]);
  EXPECT_LT(secondsSince(start), 5.0);
  EXPECT_EQ(result.exitCode, 143);
  EXPECT_TRUE(out.contains("distbench: interrupted again, killing 1 rank")) << out.all();
}

TEST(LocalLauncher, ProgramThatCannotStartEndsTheRun) {
  CapturedOutput out;
  api::RankProcess missing = shellRank("trainer0", 1, Role::Trainer, "");
  missing.command = {"/nonexistent/distbench-worker", "--config", "x"};
  std::vector<api::RankProcess> ranks = {shellRank("master", 0, Role::Master, "sleep 60"), missing};
  auto start = Clock::now();
  LaunchResult result = LocalLauncher(ranks, out, fastOptions()).run();
  EXPECT_LT(secondsSince(start), 5.0);
  EXPECT_EQ(result.outcome, LaunchOutcome::StartFailed);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.failedRank, "trainer0");
  EXPECT_TRUE(out.contains("distbench: cannot start trainer0 (rank 1): "
                           "/nonexistent/distbench-worker: No such file or directory"))
      << out.all();
  EXPECT_TRUE(processGone(out.startedPid("master")));
}

TEST(LocalLauncher, FailureTailKeepsOnlyTheLastLines) {
  CapturedOutput out;
  LaunchOptions options = fastOptions();
  options.failureTailLines = 20;
  std::vector<api::RankProcess> ranks = {
      shellRank("ps1", 2, Role::ParameterServer,
                "i=1; while [ $i -le 30 ]; do echo \"line $i\" >&2; i=$((i+1)); done; "
                "echo '@@distbench-progress epoch=1 total=1' >&2; exit 1"),
  };
  LaunchResult result = LocalLauncher(ranks, out, options).run();
  EXPECT_EQ(result.outcome, LaunchOutcome::RankFailed);
  int tail = out.find("distbench: last 20 lines of ps1's stderr:");
  ASSERT_GE(tail, 0) << out.all();
  ASSERT_EQ(out.logs.size(), static_cast<std::size_t>(tail + 21)) << out.all();
  EXPECT_EQ(out.logs[tail + 1], "[ps1] line 11");
  EXPECT_EQ(out.logs[tail + 20], "[ps1] line 30");
}

TEST(LocalLauncher, NoRanksIsATrivialSuccess) {
  CapturedOutput out;
  LaunchResult result = LocalLauncher({}, out, fastOptions()).run();
  EXPECT_EQ(result.outcome, LaunchOutcome::Succeeded);
  EXPECT_TRUE(out.logs.empty());
}

}  // namespace
}  // namespace distbench::cli
