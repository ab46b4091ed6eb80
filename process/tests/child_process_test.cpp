#include "distbench/process/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "distbench/process/process_gone.h"

namespace distbench::process {
namespace {

ExitStatus waitFor(ChildProcess& child) {
  for (int i = 0; i < 500; ++i) {
    if (auto status = child.pollExit()) return *status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "child " << child.pid() << " did not exit within 5 s";
  return {};
}

std::string readAll(int fd) {
  std::string text;
  char buffer[4096];
  for (int i = 0; i < 500; ++i) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, n);
    } else if (n == 0) {
      return text;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return text;
}

TEST(ExitStatus, Describe) {
  EXPECT_EQ((ExitStatus{false, 1, 0}).describe(), "exited with status 1");
  EXPECT_EQ((ExitStatus{true, 0, SIGKILL}).describe(), "killed by signal 9 (Killed)");
  EXPECT_EQ((ExitStatus{true, 0, SIGTERM}).describe(), "killed by signal 15 (Terminated)");
  EXPECT_TRUE((ExitStatus{false, 0, 0}).success());
  EXPECT_FALSE((ExitStatus{true, 0, SIGTERM}).success());
}

TEST(ChildProcess, ExitCodeAndBothStreams) {
  ChildProcess child = ChildProcess::spawn({"sh", "-c", "echo out; echo err >&2; exit 4"}, {});
  EXPECT_EQ(readAll(child.stdoutFd()), "out\n");
  EXPECT_EQ(readAll(child.stderrFd()), "err\n");
  ExitStatus status = waitFor(child);
  EXPECT_FALSE(status.signaled);
  EXPECT_EQ(status.code, 4);
  EXPECT_FALSE(child.running());
}

TEST(ChildProcess, StdinIsDevNull) {
  ChildProcess child = ChildProcess::spawn({"cat"}, {});
  EXPECT_EQ(readAll(child.stdoutFd()), "");
  EXPECT_TRUE(waitFor(child).success());
}

TEST(ChildProcess, RunsInItsOwnProcessGroup) {
  ChildProcess child = ChildProcess::spawn({"sh", "-c", "cut -d' ' -f5 /proc/$$/stat"}, {});
  std::string pgid = readAll(child.stdoutFd());
  waitFor(child);
  EXPECT_EQ(std::stoi(pgid), child.pid());
}

TEST(ChildProcess, MissingProgramIsASpawnError) {
  try {
    ChildProcess::spawn({"/no/such/program"}, {});
    FAIL() << "expected SpawnError";
  } catch (const SpawnError& error) {
    EXPECT_STREQ(error.what(), "/no/such/program: No such file or directory");
  }
  EXPECT_THROW(ChildProcess::spawn({}, {}), SpawnError);
}

TEST(ChildProcess, SignalsIgnoredByUsAreNotIgnoredByTheChild) {
  struct sigaction ignore {};
  struct sigaction previous {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGTERM, &ignore, &previous), 0);
  ChildProcess child = ChildProcess::spawn({"sleep", "30"}, {});
  ::sigaction(SIGTERM, &previous, nullptr);
  child.signalGroup(SIGTERM);
  ExitStatus status = waitFor(child);
  EXPECT_TRUE(status.signaled);
  EXPECT_EQ(status.signal, SIGTERM);
}

TEST(ChildProcess, ExitStatusCarriesTheChildsCpuSeconds) {
  // About 0.3 s of pure user time: the shell spins until 0.3 s have passed.
  ChildProcess child = ChildProcess::spawn(
      {"/bin/sh", "-c", "end=$(( $(date +%s%N) + 300000000 )); "
                        "while [ $(date +%s%N) -lt $end ]; do :; done"},
      {});
  ExitStatus status = waitFor(child);
  EXPECT_TRUE(status.success());
  // The loop forks date, whose time counts too (wait4 includes reaped
  // children); well below the 0.3 s only if nothing was counted at all.
  EXPECT_GT(status.cpuSeconds, 0.1);
  EXPECT_LT(status.cpuSeconds, 5.0);
}

// The steps before exec fail with the step named; no root needed, since an
// fd of the wrong kind fails as surely as a missing privilege.
TEST(ChildProcess, NetnsThatIsNotANamespaceIsASpawnError) {
  int notANamespace = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  SpawnOptions options;
  options.netnsFd = notANamespace;
  try {
    ChildProcess::spawn({"/bin/true"}, {}, options);
    ADD_FAILURE() << "spawned despite an fd that is no network namespace";
  } catch (const SpawnError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot enter its network namespace (setns)"),
              std::string::npos)
        << error.what();
  }
  ::close(notANamespace);
}

TEST(ChildProcess, CgroupThatCannotBeJoinedIsASpawnError) {
  int readOnly = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  SpawnOptions options;
  options.cgroupProcsFd = readOnly;
  try {
    ChildProcess::spawn({"/bin/true"}, {}, options);
    ADD_FAILURE() << "spawned despite a cgroup.procs it cannot write";
  } catch (const SpawnError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot move into its cgroup"), std::string::npos)
        << error.what();
  }
  ::close(readOnly);
}

TEST(ChildProcess, DestructorKillsARunningChild) {
  pid_t pid;
  {
    ChildProcess child = ChildProcess::spawn({"sleep", "60"}, {});
    pid = child.pid();
    ASSERT_TRUE(child.running());
  }
  EXPECT_TRUE(processGone(pid));
}

}  // namespace
}  // namespace distbench::process
