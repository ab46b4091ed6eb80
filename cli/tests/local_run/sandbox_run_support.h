// What the root-only sandbox suites share (label sandbox): the skip reason,
// the leftovers check every case ends with, a `distbench run` in the
// background, and a fixture that owns a temporary directory of specs and
// reports.
#pragma once

#include <cpprest/json.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "distbench/process/binary_runner.h"
#include "distbench/process/child_process.h"
#include "distbench/process/eventually.h"
#include "distbench/process/temp_dir.h"
#include "distbench/report/report.h"
#include "distbench/report/report_json.h"

namespace distbench::cli::sandbox_testing {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using process::slurp;

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using process::slurp;

// smallcnn on 2 trainers: compute-heavy enough that a capped trainer holds
// the other back in every allreduce; 1.6 MB of gradients per iteration make
// a 100mbit link the bottleneck.
inline constexpr const char* kSmallDdpSpec = R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata: {name: sandbox-ddp}
spec:
  topology: {trainers: 2}
  benchmark:
    kind: DDP
    ddp: {models: [smallcnn], batchSize: 16, imageSize: 64, numClasses: 10,
          warmupIterations: 1, iterations: 6}
  runtime: {rendezvousTimeoutSeconds: 60}
)";

inline const std::string kDistbench = DISTBENCH_BINARY;
inline const std::string kWorker = WORKER_BINARY;

using process::shellQuoted;

// Why this machine cannot run the suite, or "".
inline std::string skipReason() {
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

inline std::vector<std::string> leftovers() {
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

inline std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

// One `distbench run` in the background, its output in files.
class CliRun {
 public:
  CliRun(const std::string& dir, const std::string& args)
      : out_(dir + "/out-" + std::to_string(++count_)), err_(out_ + ".err") {
    const std::string line = "exec " + shellQuoted(kDistbench) + " run --worker " +
                             shellQuoted(kWorker) + " " + args + " >" + shellQuoted(out_) + " 2>" +
                             shellQuoted(err_);
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

inline report::Report readReport(const std::string& path) {
  return report::parseReport(slurp(path), path);
}

// The `local` block's entry for a rank.
inline web::json::value localRank(const report::Report& report, const std::string& name) {
  web::json::value local = web::json::value::parse(report.localJson);
  for (const auto& rank : local.at("ranks").as_array()) {
    if (rank.at("name").as_string() == name) return rank;
  }
  ADD_FAILURE() << "no rank " << name << " in " << report.localJson;
  return web::json::value::object();
}

// A number of `rank` (field, or field of the object `in`); -1 when null or absent.
inline double number(const web::json::value& rank, const std::string& field, const std::string& in = "") {
  const web::json::value* object = &rank;
  if (!in.empty()) {
    if (!rank.has_field(in) || !rank.at(in).is_object()) return -1;
    object = &rank.at(in);
  }
  if (!object->has_field(field) || !object->at(field).is_number()) return -1;
  return object->at(field).as_double();
}

}  // namespace distbench::cli::sandbox_testing
