// The built `distbench` executable, end to end. `run` uses fake_worker.sh as
// its worker, so these need no LibTorch and finish in seconds.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "distbench/process/binary_runner.h"
#include "distbench/process/child_process.h"
#include "distbench/process/eventually.h"
#include "distbench/process/temp_dir.h"
#include "local_run/launcher_test_util.h"

namespace distbench::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kSmallSpec = R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: small
spec:
  topology:
    trainers: 2
    parameterServers: 1
)";

constexpr const char* kBadSpec = R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: bad
spec:
  topology:
    trainers: 0
)";

using Result = process::BinaryResult;
using process::ChildProcess;
using process::ExitStatus;
using process::TempDir;
using process::slurp;

class DistbenchBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    write("small.yaml", kSmallSpec);
    write("bad.yaml", kBadSpec);
    fs::create_directory(path("marks"));
    fs::create_directory(path("tmp"));
  }

  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
  }

  // Runs `distbench ARGS` in the test directory with `env` (VAR=value ...)
  // added, and TMPDIR pointing at our tmp/ so leftovers would show.
  Result distbench(const std::string& args, const std::string& env = "") {
    return process::runCaptured("cd '" + dir_.path() + "' && env TMPDIR='" + path("tmp") + "' " +
                                    env + " '" DISTBENCH_BINARY "' " + args,
                                path("stdout"), path("stderr"));
  }

  Result runSmall(const std::string& flags, const std::string& env = "") {
    return distbench("run small.yaml --worker '" FAKE_WORKER "' " + flags,
                     "FAKE_WORKER_MARK_DIR='" + path("marks") + "' " + env);
  }

  // The content of each marks/rank-N.pid as a pid, nullopt where it is not
  // one. fake_worker.sh renames a whole file into place, so a worker killed
  // while writing it leaves only a .partial file, which is not counted.
  std::vector<std::optional<pid_t>> pidFiles() const {
    static const std::regex kPidFile(R"(rank-[0-9]+\.pid)");
    std::vector<std::optional<pid_t>> pids;
    for (const auto& entry : fs::directory_iterator(path("marks"))) {
      if (!std::regex_match(entry.path().filename().string(), kPidFile)) continue;
      const std::string text = slurp(entry.path().string());
      char* end = nullptr;
      const long pid = std::strtol(text.c_str(), &end, 10);
      const bool whole = end != text.c_str() && (*end == '\0' || std::string(end) == "\n");
      pids.push_back(whole && pid > 0 ? std::optional<pid_t>(static_cast<pid_t>(pid))
                                      : std::nullopt);
    }
    return pids;
  }

  // The workers that wrote their pid file.
  std::vector<pid_t> startedWorkers() const {
    std::vector<pid_t> pids;
    for (const std::optional<pid_t>& pid : pidFiles()) {
      if (pid) {
        pids.push_back(*pid);
      } else {
        ADD_FAILURE() << "a pid file in " << path("marks") << " holds no pid";
      }
    }
    return pids;
  }

  // Every one of `n` workers has written its pid file, whole.
  bool workersStarted(size_t n) const {
    const std::vector<std::optional<pid_t>> pids = pidFiles();
    return pids.size() == n &&
           std::all_of(pids.begin(), pids.end(), [](const auto& pid) { return pid.has_value(); });
  }

  bool empty(const std::string& name) const { return fs::is_empty(path(name)); }

  TempDir dir_;
};

TEST_F(DistbenchBinary, Version) {
  Result r = distbench("--version");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out, std::string("distbench ") + DISTBENCH_VERSION + "\n");
}

TEST_F(DistbenchBinary, HelpListsCommandsAndRunFlags) {
  Result r = distbench("--help");
  EXPECT_EQ(r.exitCode, 0);
  for (const char* word : {"validate", "render", "run"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  }
  Result run = distbench("run --help");
  EXPECT_EQ(run.exitCode, 0);
  for (const char* flag : {"--preset", "--worker", "--report", "--no-report", "--dump-state",
                           "--metrics-linger", "--timeout", "--grace-period"}) {
    EXPECT_NE(run.out.find(flag), std::string::npos) << flag;
  }
  EXPECT_EQ(distbench("").exitCode, 2) << "no command is a usage error";
}

TEST_F(DistbenchBinary, UnknownCommandsAndFlagsAreNamed) {
  Result command = distbench("frobnicate");
  EXPECT_EQ(command.exitCode, 2);
  EXPECT_NE(command.err.find("unknown command 'frobnicate'"), std::string::npos) << command.err;

  Result flag = distbench("run small.yaml --bogus");
  EXPECT_EQ(flag.exitCode, 2);
  EXPECT_NE(flag.err.find("unknown flag --bogus"), std::string::npos) << flag.err;
  EXPECT_TRUE(empty("marks"));

  Result top = distbench("--verbose");
  EXPECT_EQ(top.exitCode, 2);
  EXPECT_NE(top.err.find("unknown flag --verbose"), std::string::npos) << top.err;
}

TEST_F(DistbenchBinary, ValidateGoodSpec) {
  Result r = distbench("validate small.yaml");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "small.yaml: valid (DistBenchmark small: 2 trainers, 1 parameter server)\n");
}

TEST_F(DistbenchBinary, ValidateBadSpecNamesTheFieldAndExits2) {
  Result r = distbench("validate bad.yaml");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("bad.yaml: invalid DistBenchmark\n"), std::string::npos) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("(^|\n)spec\\.topology\\.trainers: [^\n]+")))
      << r.err;
  EXPECT_EQ(r.out, "");
}

// What the operator refuses, validate refuses, naming the field: a size
// past a derived limit always, a root template unless allowed as the
// operator's --allow-privileged-overrides allows it.
TEST_F(DistbenchBinary, ValidateRefusesDerivedLimitsAndPrivilegedOverrides) {
  write("overflow.yaml", std::string(kSmallSpec) +
                             "  benchmark:\n"
                             "    hybridDDPRPC:\n"
                             "      warmupEpochs: 2147483647\n"
                             "      epochs: 2147483647\n");
  Result overflow = distbench("validate overflow.yaml --allow-privileged-overrides");
  EXPECT_EQ(overflow.exitCode, 2);
  EXPECT_NE(overflow.err.find("spec.benchmark.hybridDDPRPC.epochs: warmupEpochs + epochs"),
            std::string::npos)
      << overflow.err;

  write("root.yaml", std::string(kSmallSpec) +
                         "  podTemplates:\n"
                         "    trainer:\n"
                         "      podSecurityContext: {runAsNonRoot: false, runAsUser: 0}\n");
  Result root = distbench("validate root.yaml");
  EXPECT_EQ(root.exitCode, 2);
  EXPECT_NE(root.err.find("root.yaml: invalid DistBenchmark\n"), std::string::npos) << root.err;
  EXPECT_NE(root.err.find("spec.podTemplates.trainer.podSecurityContext.runAsUser: 0 (root)"),
            std::string::npos)
      << root.err;
  EXPECT_EQ(root.out, "");
  Result allowed = distbench("validate --allow-privileged-overrides root.yaml");
  EXPECT_EQ(allowed.exitCode, 0) << allowed.err;
  EXPECT_EQ(allowed.out, "root.yaml: valid (DistBenchmark small: 2 trainers, 1 parameter server)\n");
}

TEST_F(DistbenchBinary, ValidateMissingFileExits2) {
  Result r = distbench("validate nowhere.yaml");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("nowhere.yaml"), std::string::npos) << r.err;
}

TEST_F(DistbenchBinary, RenderPresetIsAYamlStreamOfRanksThenConfig) {
  Result r = distbench("render --preset tutorial --master-addr 10.0.0.1");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::vector<YAML::Node> docs = YAML::LoadAll(r.out);
  ASSERT_EQ(docs.size(), 5u) << r.out;  // master, ps0, trainer0, trainer1, config
  EXPECT_EQ(docs[0]["rankLabel"].as<std::string>(), "master");
  EXPECT_EQ(docs[0]["role"].as<std::string>(), "master");
  EXPECT_EQ(docs[0]["rank"].as<int>(), 0);
  EXPECT_EQ(docs[3]["rankLabel"].as<std::string>(), "trainer1");
  EXPECT_EQ(docs[3]["rank"].as<int>(), 3);
  bool sawMasterAddr = false;
  for (const auto& var : docs[1]["env"]) {
    if (var["name"].as<std::string>() == "MASTER_ADDR") {
      EXPECT_EQ(var["value"].as<std::string>(), "10.0.0.1");
      sawMasterAddr = true;
    }
  }
  EXPECT_TRUE(sawMasterAddr) << r.out;
  EXPECT_EQ(docs[0]["command"][0].as<std::string>(), "distbench-worker");
  EXPECT_EQ(docs[4]["kind"].as<std::string>(), "DistBenchmark");
  EXPECT_EQ(docs[4]["metadata"]["name"].as<std::string>(), "tutorial");

  Result unknown = distbench("render --preset nope");
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_NE(unknown.err.find("nope"), std::string::npos) << unknown.err;
}

TEST_F(DistbenchBinary, RunBadSpecStartsNothing) {
  Result r = distbench("run bad.yaml --worker '" FAKE_WORKER "'",
                       "FAKE_WORKER_MARK_DIR='" + path("marks") + "'");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("spec.topology.trainers"), std::string::npos) << r.err;
  EXPECT_TRUE(empty("marks"));
  EXPECT_TRUE(empty("tmp"));
}

TEST_F(DistbenchBinary, RunWithMissingWorkerStartsNothing) {
  Result r = distbench("run small.yaml --worker /no/such/distbench-worker");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("cannot use worker /no/such/distbench-worker"), std::string::npos) << r.err;
  EXPECT_TRUE(empty("tmp"));
}

TEST_F(DistbenchBinary, RunWiresEveryRankAndPassesTheTableThrough) {
  Result r = runSmall("");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "stdout of rank 0\nAll: p50: 0.100s\n");
  for (const char* line : {"distbench: started master (rank 0, pid ", "distbench: started ps0 (rank 1, pid ",
                           "distbench: started trainer1 (rank 3, pid ", "[ps0]      stdout of rank 1",
                           "[trainer1] stdout of rank 3", "distbench: all 4 ranks finished in "}) {
    EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
  }
  EXPECT_EQ(r.err.find("@@distbench-progress"), std::string::npos) << "not a terminal: no progress";
  EXPECT_EQ(r.err.find("config '"), std::string::npos) << r.err;

  // One rendezvous port for all, a metrics port each, none of the spec's defaults.
  std::regex wiring(R"(rank=(\d) role=\w+ master=127\.0\.0\.1:(\d+) metrics=(\d+) linger=0 progress=1)");
  std::set<std::string> masterPorts;
  std::set<std::string> metricsPorts;
  for (std::sregex_iterator it(r.err.begin(), r.err.end(), wiring), end; it != end; ++it) {
    masterPorts.insert((*it)[2]);
    metricsPorts.insert((*it)[3]);
    std::string announced = "metrics http://127.0.0.1:" + (*it)[3].str() + "/metrics";
    EXPECT_NE(r.err.find(announced), std::string::npos) << announced;
  }
  EXPECT_EQ(masterPorts.size(), 1u) << r.err;
  EXPECT_EQ(metricsPorts.size(), 4u) << r.err;
  EXPECT_EQ(masterPorts.count("29500"), 0u);

  std::string report = fs::canonical(dir_.path()).string() + "/small-report.json";
  EXPECT_EQ(slurp(report), "{\"schemaVersion\": 1}\n");
  EXPECT_NE(r.err.find("distbench: report written to " + report), std::string::npos) << r.err;
  EXPECT_TRUE(empty("tmp")) << "the temp dir with the config must be removed";
  EXPECT_EQ(startedWorkers().size(), 4u);
}

TEST_F(DistbenchBinary, RunWithABaselineSaysTheOperatorComparesAndRuns) {
  write("baseline.yaml", std::string(kSmallSpec) +
                             "  baseline:\n    benchmark: nightly\n    thresholdPercent: 7.5\n");
  Result r = distbench("run baseline.yaml --worker '" FAKE_WORKER "'",
                       "FAKE_WORKER_MARK_DIR='" + path("marks") + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("spec.baseline is compared by the operator in a cluster; locally, compare "
                       "the reports with `distbench diff BASE.json RUN.json --threshold 7.5`"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(startedWorkers().size(), 4u);
}

TEST_F(DistbenchBinary, RunFlagsReachTheWorkers) {
  Result r = runSmall("--no-report --dump-state /tmp/dump-here --metrics-linger 3");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("[trainer0] rank=2 role=trainer"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("linger=3 progress=1 dump=/tmp/dump-here"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("small-report.json")));

  Result custom = runSmall("--report custom.json");
  ASSERT_EQ(custom.exitCode, 0) << custom.err;
  EXPECT_TRUE(fs::exists(path("custom.json")));
}

TEST_F(DistbenchBinary, FailingRankFailsTheRunAndStopsTheRest) {
  auto start = Clock::now();
  Result r = runSmall("", "FAKE_WORKER_SLEEP=30 FAKE_WORKER_FAIL_RANK=3");
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_LT(elapsed, 25.0);
  EXPECT_NE(r.err.find("distbench: trainer1 (rank 3) failed: exited with status 7"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("distbench: stopping 3 ranks"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[trainer1] rank 3 giving up"), std::string::npos) << r.err;
  for (pid_t pid : startedWorkers()) EXPECT_TRUE(testing::processGone(pid)) << pid;
  EXPECT_TRUE(empty("tmp"));
}

TEST_F(DistbenchBinary, TimeoutFailsTheRun) {
  Result r = runSmall("--timeout 1", "FAKE_WORKER_SLEEP=30");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("distbench: timed out after 1 s (--timeout)"), std::string::npos) << r.err;
  for (pid_t pid : startedWorkers()) EXPECT_TRUE(testing::processGone(pid)) << pid;
}

TEST_F(DistbenchBinary, SigtermStopsEveryRankAndExits143) {
  ::setenv("FAKE_WORKER_SLEEP", "30", 1);
  ::setenv("FAKE_WORKER_MARK_DIR", path("marks").c_str(), 1);
  ChildProcess distbench = ChildProcess::spawn(
      {DISTBENCH_BINARY, "run", path("small.yaml"), "--worker", FAKE_WORKER, "--no-report"},
      {{"TMPDIR", path("tmp")}});
  ::unsetenv("FAKE_WORKER_SLEEP");
  ::unsetenv("FAKE_WORKER_MARK_DIR");

  ASSERT_TRUE(process::eventually([&] { return workersStarted(4); }))
      << pidFiles().size() << " of 4 pid files written";
  ASSERT_EQ(::kill(distbench.pid(), SIGTERM), 0);

  std::string err;
  char buffer[4096];
  std::optional<ExitStatus> status;
  for (int i = 0; i < 1000 && !status; ++i) {
    ssize_t n;
    while ((n = ::read(distbench.stderrFd(), buffer, sizeof buffer)) > 0) err.append(buffer, n);
    status = distbench.pollExit();
    if (!status) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ssize_t n;
  while ((n = ::read(distbench.stderrFd(), buffer, sizeof buffer)) > 0) err.append(buffer, n);
  ASSERT_TRUE(status.has_value()) << "distbench did not exit within 10 s of SIGTERM\n" << err;
  EXPECT_FALSE(status->signaled) << status->describe();
  EXPECT_EQ(status->code, 143) << err;
  EXPECT_NE(err.find("distbench: interrupted, stopping 4 ranks"), std::string::npos) << err;
  for (pid_t pid : startedWorkers()) EXPECT_TRUE(testing::processGone(pid)) << pid;
  EXPECT_TRUE(empty("tmp"));
}

}  // namespace
}  // namespace distbench::cli
