// `distbench run --links/--slow` for real: root only (ctest label sandbox,
// RUN_SERIAL, skipped with the reason elsewhere). Tiny Collectives and DDP
// runs with the real worker; after every case nothing of the sandbox may be
// left: no dbl-* network namespace, no distbench cgroup, no run lock.
#include <cpprest/json.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "distbench/process/binary_runner.h"
#include "distbench/process/child_process.h"
#include "distbench/process/eventually.h"
#include "distbench/process/process_gone.h"
#include "distbench/process/temp_dir.h"
#include "distbench/report/report.h"
#include "distbench/report/report_json.h"

namespace distbench::cli {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using process::slurp;

const std::string kDistbench = DISTBENCH_BINARY;
const std::string kWorker = WORKER_BINARY;

std::string shellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Why this machine cannot run the suite, or "".
std::string skipReason() {
  if (::geteuid() != 0) return "needs root (network namespaces, tc, cgroups)";
  if (std::system("command -v ip >/dev/null && command -v tc >/dev/null") != 0) {
    return "needs ip and tc (iproute2)";
  }
  const std::string ns = "dbl-probe" + std::to_string(::getpid()) + "-hub";
  const std::string probe = "ip netns add " + ns + " 2>/dev/null && tc -n " + ns +
                            " qdisc add dev lo root tbf rate 1mbit burst 32kb latency 50ms "
                            "2>/dev/null";
  const bool tbf = std::system(probe.c_str()) == 0;
  std::system(("ip netns del " + ns + " 2>/dev/null").c_str());
  if (!tbf) return "this kernel cannot make a network namespace with a tbf qdisc";
  return "";
}

std::vector<std::string> leftovers() {
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/run/netns", error)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("dbl-", 0) == 0) found.push_back("netns " + name);
  }
  for (const char* dir : {"/sys/fs/cgroup/cpu/distbench", "/sys/fs/cgroup/distbench"}) {
    if (fs::exists(dir, error)) found.push_back("cgroup " + std::string(dir));
  }
  for (const auto& entry : fs::directory_iterator("/run/distbench", error)) {
    found.push_back("lock " + entry.path().string());
  }
  return found;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

// One `distbench run` in the background, its output in files.
class CliRun {
 public:
  CliRun(const std::string& dir, const std::string& args)
      : out_(dir + "/out-" + std::to_string(++count_)), err_(out_ + ".err") {
    const std::string line = "exec " + shellQuote(kDistbench) + " run --worker " +
                             shellQuote(kWorker) + " " + args + " >" + shellQuote(out_) + " 2>" +
                             shellQuote(err_);
    started_ = std::chrono::steady_clock::now();
    child_.emplace(process::ChildProcess::spawn({"/bin/sh", "-c", line}, {}));
  }

  pid_t pid() const { return child_->pid(); }
  std::string err() const { return slurp(err_); }
  std::string out() const { return slurp(out_); }
  bool logged(const std::string& text) const { return err().find(text) != std::string::npos; }

  // Exit code, or -1 (killed by a signal) ; fails the test on a timeout.
  int wait(std::chrono::seconds timeout = 60s) {
    bool exited = process::eventually([&] { return child_->pollExit().has_value(); }, timeout);
    EXPECT_TRUE(exited) << "distbench run did not finish within " << timeout.count()
                        << " s:\n" << err();
    if (!exited) return -2;
    wall_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const process::ExitStatus& status = *child_->exitStatus();
    return status.signaled ? -1 : status.code;
  }
  double wallSeconds() const { return wall_; }

  // "distbench: started trainer1 (rank 2, pid 1234)"
  pid_t rankPid(const std::string& label) const {
    std::string text = err();
    std::size_t at = text.find("distbench: started " + label + " ");
    if (at == std::string::npos) return -1;
    at = text.find("pid ", at);
    return at == std::string::npos ? -1 : std::atoi(text.c_str() + at + 4);
  }

 private:
  static inline int count_ = 0;
  std::string out_;
  std::string err_;
  std::optional<process::ChildProcess> child_;
  std::chrono::steady_clock::time_point started_;
  double wall_ = 0;
};

class SandboxRun : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason = skipReason();
    if (!reason.empty()) GTEST_SKIP() << reason;
    ASSERT_EQ(leftovers(), std::vector<std::string>{}) << "left by someone before this test";
    ::chmod(dir_.path().c_str(), 0755);  // readable for the unprivileged refusal case
  }
  void TearDown() override {
    if (IsSkipped()) return;
    EXPECT_EQ(joined(leftovers()), "") << "the sandbox was not removed";
  }

  std::string write(const std::string& name, const std::string& yaml) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << yaml;
    return path;
  }

  // Collectives allreduce only, between 2 trainers (the master coordinates).
  std::string allreduceSpec(long long bytes, int iterations) {
    return write("allreduce-" + std::to_string(iterations) + ".yaml",
                 "apiVersion: distbench.io/v1alpha1\nkind: DistBenchmark\n"
                 "metadata: {name: sandbox-allreduce}\nspec:\n  topology: {trainers: 2}\n"
                 "  benchmark:\n    kind: Collectives\n    collectives:\n"
                 "      ops: [allreduce]\n      minBytes: " + std::to_string(bytes) +
                 "\n      maxBytes: " + std::to_string(bytes) +
                 "\n      warmupIterations: 1\n      iterations: " + std::to_string(iterations) +
                 "\n  runtime: {rendezvousTimeoutSeconds: 60}\n");
  }

  std::string report(const std::string& name) const { return dir_.path() + "/" + name; }
  const std::string& dir() const { return dir_.path(); }

 private:
  process::TempDir dir_{"distbench-sandbox-"};
};

report::Report readReport(const std::string& path) {
  return report::parseReport(slurp(path), path);
}

// The `local` block's entry for a rank.
web::json::value localRank(const report::Report& report, const std::string& name) {
  web::json::value local = web::json::value::parse(report.localJson);
  for (const auto& rank : local.at("ranks").as_array()) {
    if (rank.at("name").as_string() == name) return rank;
  }
  ADD_FAILURE() << "no rank " << name << " in " << report.localJson;
  return web::json::value::object();
}

// A number of `rank` (field, or field of the object `in`); -1 when null or absent.
double number(const web::json::value& rank, const std::string& field, const std::string& in = "") {
  const web::json::value* object = &rank;
  if (!in.empty()) {
    if (!rank.has_field(in) || !rank.at(in).is_object()) return -1;
    object = &rank.at(in);
  }
  if (!object->has_field(field) || !object->at(field).is_number()) return -1;
  return object->at(field).as_double();
}

// Mid-run: every rank has joined the rendezvous and the measurements run.
bool allJoined(const CliRun& run) {
  const std::string err = run.err();
  for (const char* label : {"master (rank 0): joined", "trainer0 (rank 1): joined",
                            "trainer1 (rank 2): joined"}) {
    if (err.find(label) == std::string::npos) return false;
  }
  return true;
}

TEST_F(SandboxRun, ShapedRankSlowsTheAllreduceAsTheRateSays) {
  const long long bytes = 4LL << 20;
  const double rate = 100e6;
  CliRun run(dir(), allreduceSpec(bytes, 3) + " --links trainer1=100mbit --report " +
                        report("shaped.json"));
  ASSERT_EQ(run.wait(), 0) << run.err();
  EXPECT_TRUE(run.logged("links are shaped in bandwidth only")) << run.err();
  EXPECT_TRUE(run.logged("no delay is added")) << run.err();
  EXPECT_TRUE(run.logged("rendezvous 198.18.0.16:")) << run.err();

  report::Report parsed = readReport(report("shaped.json"));
  // The trainers run the collectives; the master only coordinates.
  ASSERT_EQ(parsed.trainers, 2);
  std::vector<double> samples;
  for (const report::Series& series : parsed.series) {
    if (series.row == std::to_string(bytes)) samples = series.samples;
  }
  ASSERT_FALSE(samples.empty()) << "no allreduce of " << bytes << " bytes in the report";
  std::sort(samples.begin(), samples.end());
  const double p50 = samples[samples.size() / 2];
  // A ring allreduce moves 2(p-1)/p of the buffer through every rank's link.
  const double p = parsed.trainers;
  const double wireBits = 2.0 * (p - 1) / p * static_cast<double>(bytes) * 8.0;
  const double nominal = wireBits / rate;
  std::printf("[ figure ] 4 MiB allreduce over a 100mbit link: p50 %.3f s, nominal %.3f s, "
              "measured rate %.1f Mbit/s (%.0f %% of nominal)\n",
              p50, nominal, wireBits / p50 / 1e6, 100.0 * nominal / p50);
  // Unshaped it takes a few ms here; shaped it cannot beat the rate (the
  // 32 KiB burst is noise) and on a loaded machine takes up to a few times it.
  EXPECT_GT(p50, 0.8 * nominal);
  EXPECT_LT(p50, 4.0 * nominal);

  ASSERT_FALSE(parsed.localJson.empty()) << "no local block";
  EXPECT_NE(parsed.localJson.find("\"latencyEmulated\":false"), std::string::npos);
  EXPECT_NE(parsed.localJson.find("\"links\":\"trainer1=100mbit\""), std::string::npos);
  const web::json::value trainer1 = localRank(parsed, "trainer1");
  EXPECT_EQ(number(trainer1, "rank"), 2) << trainer1.serialize();
  EXPECT_EQ(number(trainer1, "linkBitsPerSecond"), rate) << trainer1.serialize();
  // 1 warm-up + 3 measured allreduces, each moving about the buffer each way.
  EXPECT_GT(number(trainer1, "bytes", "egress"), 3.0 * bytes) << trainer1.serialize();
  EXPECT_GT(number(trainer1, "bytes", "ingress"), 3.0 * bytes) << trainer1.serialize();
  EXPECT_GT(number(trainer1, "overlimits", "egress") + number(trainer1, "overlimits", "ingress"),
            0) << trainer1.serialize();
  EXPECT_GT(number(trainer1, "cpuSeconds"), 0) << trainer1.serialize();
  const web::json::value master = localRank(parsed, "master");
  EXPECT_TRUE(master.at("egress").is_null()) << master.serialize();
  EXPECT_EQ(master.at("address").as_string(), "198.18.0.16");
}

TEST_F(SandboxRun, CappedRankGetsHalfACpu) {
  const std::string spec = write("ddp.yaml", R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata: {name: sandbox-ddp}
spec:
  topology: {trainers: 2}
  benchmark:
    kind: DDP
    ddp: {models: [smallcnn], batchSize: 16, imageSize: 64, numClasses: 10,
          warmupIterations: 1, iterations: 6}
  runtime: {rendezvousTimeoutSeconds: 60}
)");
  CliRun run(dir(), spec + " --slow trainer1=cpu:50% --report " + report("slow.json"));
  ASSERT_EQ(run.wait(), 0) << run.err();
  EXPECT_TRUE(run.logged("trainer1 50% of one CPU")) << run.err();
  report::Report parsed = readReport(report("slow.json"));
  const web::json::value trainer1 = localRank(parsed, "trainer1");
  const double cpu = number(trainer1, "cpuSeconds");
  std::printf("[ figure ] trainer1 capped at 50%%: %.2f CPU s in %.2f s wall, throttled %.2f s\n",
              cpu, run.wallSeconds(), number(trainer1, "throttledSeconds"));
  EXPECT_GT(cpu, 0) << trainer1.serialize();
  EXPECT_LE(cpu, 0.6 * run.wallSeconds()) << trainer1.serialize();
  // The cap did bite: the kernel held the rank back.
  EXPECT_GT(number(trainer1, "throttledSeconds"), 0) << trainer1.serialize();
  EXPECT_EQ(number(trainer1, "cpuLimit"), 0.5) << trainer1.serialize();
  EXPECT_TRUE(localRank(parsed, "trainer0").at("throttledSeconds").is_null());
}

TEST_F(SandboxRun, SigintMidRunRemovesEverything) {
  CliRun run(dir(), allreduceSpec(4LL << 20, 200) + " --links bandwidth=100mbit --slow "
                    "rank1=cpu:80% --no-report");
  ASSERT_TRUE(process::eventually([&] { return allJoined(run); }, 30s)) << run.err();
  ASSERT_FALSE(leftovers().empty());
  ::kill(run.pid(), SIGINT);
  EXPECT_EQ(run.wait(30s), 130) << run.err();
  EXPECT_TRUE(run.logged("distbench: interrupted")) << run.err();
}

TEST_F(SandboxRun, KilledRankEndsTheRunAndEverythingGoes) {
  CliRun run(dir(), allreduceSpec(4LL << 20, 200) + " --links rank2=100mbit --slow "
                    "rank2=cpu:80% --no-report");
  ASSERT_TRUE(process::eventually([&] { return allJoined(run); }, 30s)) << run.err();
  ::kill(run.rankPid("trainer1"), SIGKILL);
  EXPECT_EQ(run.wait(30s), 1) << run.err();
  EXPECT_TRUE(run.logged("trainer1 (rank 2) failed: killed by signal 9")) << run.err();
}

TEST_F(SandboxRun, NextRunSweepsWhatAKilledCliLeft) {
  CliRun killed(dir(), allreduceSpec(4LL << 20, 200) + " --links bandwidth=100mbit --slow "
                       "rank1=cpu:80% --no-report");
  ASSERT_TRUE(process::eventually([&] { return allJoined(killed); }, 30s))
      << killed.err();
  std::vector<pid_t> ranks = {killed.rankPid("master"), killed.rankPid("trainer0"),
                              killed.rankPid("trainer1")};
  ::kill(killed.pid(), SIGKILL);
  killed.wait(10s);
  // The ranks die with the CLI (PR_SET_PDEATHSIG); their names stay.
  for (pid_t pid : ranks) {
    EXPECT_TRUE(process::eventually([&] { return process::processGone(pid); }, 10s)) << pid;
  }
  const std::string left = joined(leftovers());
  EXPECT_NE(left.find("netns dbl-"), std::string::npos) << left;
  EXPECT_NE(left.find("cgroup "), std::string::npos) << left;

  CliRun next(dir(), allreduceSpec(1024, 1) + " --links bandwidth=1gbit --no-report");
  EXPECT_EQ(next.wait(), 0) << next.err();
  EXPECT_TRUE(next.logged("removed the leftovers of sandbox run")) << next.err();
}

TEST_F(SandboxRun, CleanUpFlagSweepsAlone) {
  CliRun killed(dir(), allreduceSpec(4LL << 20, 200) + " --links bandwidth=100mbit --no-report");
  ASSERT_TRUE(process::eventually([&] { return allJoined(killed); }, 30s))
      << killed.err();
  ::kill(killed.pid(), SIGKILL);
  killed.wait(10s);
  ASSERT_FALSE(leftovers().empty());
  process::BinaryResult clean = process::runCaptured(shellQuote(kDistbench) + " run --clean-up",
                                                     dir() + "/clean.out", dir() + "/clean.err");
  EXPECT_EQ(clean.exitCode, 0) << clean.err;
  EXPECT_NE(clean.err.find("removed the leftovers of sandbox run"), std::string::npos) << clean.err;
}

TEST_F(SandboxRun, UnprivilegedRunIsRefusedAndStartsNothing) {
  const std::string spec = allreduceSpec(1024, 1);
  process::BinaryResult refused = process::runCaptured(
      "setpriv --reuid=65534 --regid=65534 --clear-groups " + shellQuote(kDistbench) +
          " run --worker " + shellQuote(kWorker) + " " + spec + " --links bandwidth=1gbit --no-report",
      dir() + "/refused.out", dir() + "/refused.err");
  EXPECT_EQ(refused.exitCode, 2) << refused.err;
  EXPECT_NE(refused.err.find("--links needs network namespaces"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("run as root"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find("distbench: started"), std::string::npos) << refused.err;

  process::BinaryResult capped = process::runCaptured(
      "setpriv --reuid=65534 --regid=65534 --clear-groups " + shellQuote(kDistbench) +
          " run --worker " + shellQuote(kWorker) + " " + spec + " --slow rank1=cpu:50% --no-report",
      dir() + "/capped.out", dir() + "/capped.err");
  EXPECT_EQ(capped.exitCode, 2) << capped.err;
  EXPECT_NE(capped.err.find("--slow needs to make a cgroup in"), std::string::npos) << capped.err;
  EXPECT_EQ(capped.err.find("distbench: started"), std::string::npos) << capped.err;
}

}  // namespace
}  // namespace distbench::cli
