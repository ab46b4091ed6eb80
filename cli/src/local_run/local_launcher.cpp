#include "distbench/cli/local_run/local_launcher.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <deque>
#include <optional>
#include <system_error>

#include "distbench/api/progress_line.h"
#include "distbench/process/child_process.h"
#include "distbench/process/line_splitter.h"

namespace distbench::cli {
namespace {

using Clock = std::chrono::steady_clock;
using process::ChildProcess;
using process::ExitStatus;
using process::LineSplitter;
using std::chrono::milliseconds;

// Short enough that an exited rank whose pipes stay open (a grandchild holds
// them) is still noticed promptly; long enough to cost nothing.
constexpr milliseconds kReapInterval{100};
// How long SIGKILL gets before a rank is given up on.
constexpr milliseconds kKillWait{5000};
// Per poll round and stream, so one chatty rank cannot starve the others.
constexpr int kMaxReadsPerRound = 16;

enum class Stream { Out, Err };
enum class Phase { Running, Stopping, Killing };

std::string seconds(milliseconds duration) {
  char text[32];
  if (duration.count() % 1000 == 0) {
    std::snprintf(text, sizeof text, "%lld s", static_cast<long long>(duration.count() / 1000));
  } else {
    std::snprintf(text, sizeof text, "%.3g s", duration.count() / 1000.0);
  }
  return text;
}

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

const std::string* findEnv(const api::RankProcess& rank, const char* name) {
  for (const auto& var : rank.env) {
    if (var.name == name) return &var.value;
  }
  return nullptr;
}

struct RankState {
  const api::RankProcess* spec = nullptr;
  std::string prefix;  // "[ps1]      ": padded so every rank's text lines up
  bool master = false;
  std::optional<ChildProcess> child;
  LineSplitter stdoutLines;
  LineSplitter stderrLines;
  std::deque<std::string> stderrTail;

  std::string name() const {
    return spec->rankLabel + " (rank " + std::to_string(spec->rank) + ")";
  }
  bool running() const { return child && child->running(); }
};

class Supervisor {
 public:
  Supervisor(const std::vector<api::RankProcess>& specs, RunOutput& output,
             const LaunchOptions& options)
      : output_(output), options_(options) {
    std::size_t width = 0;
    for (const auto& spec : specs) width = std::max(width, spec.rankLabel.size() + 2);
    ranks_.resize(specs.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
      RankState& rank = ranks_[i];
      rank.spec = &specs[i];
      rank.master = specs[i].role == api::Role::Master;
      rank.prefix = "[" + specs[i].rankLabel + "]";
      rank.prefix.resize(width, ' ');
      rank.prefix += ' ';
    }
  }

  LaunchResult run() {
    runDeadline_ = Clock::now() + options_.timeout;
    startAll();
    while (runningCount() > 0) {
      pump(waitBudget());
      reapExited();
      if (!checkDeadlines()) break;
    }
    drainAll();
    for (const RankState& rank : ranks_) {
      if (!rank.child || !rank.child->exitStatus()) continue;
      const double cpu = rank.child->exitStatus()->cpuSeconds;
      if (cpu >= 0) result_.cpuSeconds[rank.spec->rank] = cpu;
    }
    return result_;
  }

 private:
  void startAll() {
    for (RankState& rank : ranks_) {
      try {
        ChildProcess::Env env;
        for (const auto& var : rank.spec->env) env.emplace_back(var.name, var.value);
        process::SpawnOptions spawnOptions;
        if (auto it = options_.spawnOptions.find(rank.spec->rank);
            it != options_.spawnOptions.end()) {
          spawnOptions = it->second;
        }
        rank.child.emplace(ChildProcess::spawn(rank.spec->command, env, spawnOptions));
      } catch (const std::exception& error) {
        output_.log("distbench: cannot start " + rank.name() + ": " + error.what());
        result_ = LaunchResult{LaunchOutcome::StartFailed, 1, rank.spec->rankLabel, 0, {}};
        stopRemaining();
        return;
      }
      std::string line = "distbench: started " + rank.spec->rankLabel + " (rank " +
                         std::to_string(rank.spec->rank) + ", pid " +
                         std::to_string(rank.child->pid()) + ")";
      if (const std::string* port = findEnv(*rank.spec, api::kEnvMetricsPort)) {
        line += ", metrics http://" + options_.metricsHost + ":" + *port + "/metrics";
      }
      output_.log(line);
    }
  }

  std::size_t runningCount() const {
    return std::count_if(ranks_.begin(), ranks_.end(),
                         [](const RankState& r) { return r.running(); });
  }

  std::string runningNames() const {
    std::string names;
    for (const RankState& rank : ranks_) {
      if (!rank.running()) continue;
      if (!names.empty()) names += ", ";
      names += rank.spec->rankLabel;
    }
    return names;
  }

  // Until the next thing that must happen without any output arriving.
  int waitBudget() const {
    Clock::time_point next = Clock::now() + kReapInterval;
    if (phase_ == Phase::Running) next = std::min(next, runDeadline_);
    if (phase_ == Phase::Stopping) next = std::min(next, graceDeadline_);
    if (phase_ == Phase::Killing) next = std::min(next, killDeadline_);
    auto budget = std::chrono::duration_cast<milliseconds>(next - Clock::now()).count();
    return static_cast<int>(std::max<long long>(0, budget + 1));
  }

  void pump(int timeoutMs) {
    struct Source {
      RankState* rank;
      Stream stream;
    };
    std::vector<pollfd> fds;
    std::vector<Source> sources;
    for (RankState& rank : ranks_) {
      if (!rank.child) continue;
      if (rank.child->stdoutFd() >= 0) {
        fds.push_back({rank.child->stdoutFd(), POLLIN, 0});
        sources.push_back({&rank, Stream::Out});
      }
      if (rank.child->stderrFd() >= 0) {
        fds.push_back({rank.child->stderrFd(), POLLIN, 0});
        sources.push_back({&rank, Stream::Err});
      }
    }
    if (options_.interruptFd >= 0) fds.push_back({options_.interruptFd, POLLIN, 0});

    int ready = ::poll(fds.data(), fds.size(), timeoutMs);
    if (ready < 0) {
      if (errno == EINTR) return;  // a signal: its byte is in the pipe now
      throw std::system_error(errno, std::generic_category(), "poll");
    }
    for (std::size_t i = 0; i < sources.size(); ++i) {
      if (fds[i].revents != 0) read(*sources[i].rank, sources[i].stream, kMaxReadsPerRound);
    }
    if (options_.interruptFd >= 0 && fds.back().revents != 0) onInterrupt();
  }

  // Reads up to maxReads chunks (-1: until the pipe is empty).
  void read(RankState& rank, Stream stream, int maxReads) {
    ChildProcess& child = *rank.child;
    LineSplitter& splitter = stream == Stream::Out ? rank.stdoutLines : rank.stderrLines;
    auto onLine = [&](std::string_view line) { handleLine(rank, stream, line); };
    char buffer[64 * 1024];
    for (int reads = 0; maxReads < 0 || reads < maxReads; ++reads) {
      int fd = stream == Stream::Out ? child.stdoutFd() : child.stderrFd();
      if (fd < 0) return;
      ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) {
        splitter.feed(std::string_view(buffer, static_cast<std::size_t>(n)), onLine);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      // EOF, or an error that makes the pipe useless either way.
      splitter.finish(onLine);
      if (stream == Stream::Out) {
        child.closeStdout();
      } else {
        child.closeStderr();
      }
      return;
    }
  }

  void handleLine(RankState& rank, Stream stream, std::string_view line) {
    if (stream == Stream::Err) {
      if (auto progress = api::parseProgressLine(line)) {
        output_.progress(rank.spec->rank, rank.spec->rankLabel, *progress);
        return;
      }
      rank.stderrTail.emplace_back(line);
      while (rank.stderrTail.size() > options_.failureTailLines) rank.stderrTail.pop_front();
    } else if (rank.master) {
      output_.result(line);
      return;
    }
    std::string text = rank.prefix;
    text += line;
    output_.log(text);
  }

  void onInterrupt() {
    unsigned char signalNumber = 0;
    ssize_t n = ::read(options_.interruptFd, &signalNumber, 1);
    if (n <= 0) return;
    if (phase_ == Phase::Running) {
      int sig = signalNumber;
      result_ = LaunchResult{LaunchOutcome::Interrupted, 128 + sig, {}, sig, {}};
      output_.log("distbench: interrupted, stopping " + plural(runningCount(), "rank"));
      stopRemaining();
    } else if (phase_ == Phase::Stopping) {
      // A second Ctrl-C means "now": skip the rest of the grace period.
      output_.log("distbench: interrupted again, killing " + plural(runningCount(), "rank"));
      killRemaining(false);
    }
  }

  void reapExited() {
    for (RankState& rank : ranks_) {
      if (!rank.running()) continue;
      std::optional<ExitStatus> status = rank.child->pollExit();
      if (!status) continue;
      // What it wrote before dying is in the pipes already; read it now so
      // that the failure report below has its last words.
      read(rank, Stream::Out, -1);
      read(rank, Stream::Err, -1);
      if (phase_ != Phase::Running) {
        output_.log("distbench: stopped " + rank.name() + ": " + status->describe());
      } else if (!status->success()) {
        reportFailure(rank, *status);
        result_ = LaunchResult{LaunchOutcome::RankFailed, 1, rank.spec->rankLabel, 0, {}};
        if (runningCount() > 0) {
          output_.log("distbench: stopping " + plural(runningCount(), "rank"));
        }
        stopRemaining();
      }
    }
  }

  void reportFailure(const RankState& rank, const ExitStatus& status) {
    output_.log("distbench: " + rank.name() + " failed: " + status.describe());
    if (rank.stderrTail.empty()) {
      output_.log("distbench: " + rank.spec->rankLabel + " wrote nothing to stderr");
      return;
    }
    output_.log("distbench: last " + plural(rank.stderrTail.size(), "line") + " of " +
                rank.spec->rankLabel + "'s stderr:");
    for (const std::string& line : rank.stderrTail) output_.log(rank.prefix + line);
  }

  // False when it is time to stop waiting altogether.
  bool checkDeadlines() {
    Clock::time_point now = Clock::now();
    if (phase_ == Phase::Running && now >= runDeadline_ && runningCount() > 0) {
      output_.log("distbench: timed out after " + seconds(options_.timeout) +
                  " (--timeout); still running: " + runningNames() + "; stopping " +
                  plural(runningCount(), "rank"));
      result_ = LaunchResult{LaunchOutcome::TimedOut, 1, {}, 0, {}};
      stopRemaining();
    }
    if (phase_ == Phase::Stopping && Clock::now() >= graceDeadline_) killRemaining(true);
    if (phase_ == Phase::Killing && Clock::now() >= killDeadline_) {
      for (RankState& rank : ranks_) {
        if (!rank.running()) continue;
        output_.log("distbench: " + rank.name() + ", pid " + std::to_string(rank.child->pid()) +
                    ", did not exit within " + seconds(kKillWait) +
                    " of SIGKILL; giving up on it");
        rank.child->abandon();
      }
      return false;
    }
    return true;
  }

  void stopRemaining() {
    phase_ = Phase::Stopping;
    graceDeadline_ = Clock::now() + options_.gracePeriod;
    for (RankState& rank : ranks_) {
      if (rank.running()) rank.child->signalGroup(SIGTERM);
    }
  }

  void killRemaining(bool explain) {
    phase_ = Phase::Killing;
    killDeadline_ = Clock::now() + kKillWait;
    for (RankState& rank : ranks_) {
      if (!rank.running()) continue;
      if (explain) {
        output_.log("distbench: " + rank.name() + " did not stop within " +
                    seconds(options_.gracePeriod) + " of SIGTERM; sending SIGKILL");
      }
      rank.child->signalGroup(SIGKILL);
    }
  }

  // Every rank is gone; whatever is still buffered in a pipe is the last of
  // its output (or a grandchild's, which no one waits for).
  void drainAll() {
    for (RankState& rank : ranks_) {
      if (!rank.child) continue;
      read(rank, Stream::Out, -1);
      read(rank, Stream::Err, -1);
      auto onStdout = [&](std::string_view line) { handleLine(rank, Stream::Out, line); };
      auto onStderr = [&](std::string_view line) { handleLine(rank, Stream::Err, line); };
      rank.stdoutLines.finish(onStdout);
      rank.stderrLines.finish(onStderr);
      rank.child->closeStdout();
      rank.child->closeStderr();
    }
  }

  RunOutput& output_;
  const LaunchOptions& options_;
  std::vector<RankState> ranks_;
  Phase phase_ = Phase::Running;
  Clock::time_point runDeadline_;
  Clock::time_point graceDeadline_;
  Clock::time_point killDeadline_;
  LaunchResult result_;
};

}  // namespace

LocalLauncher::LocalLauncher(std::vector<api::RankProcess> ranks, RunOutput& output,
                             LaunchOptions options)
    : specs_(std::move(ranks)), output_(output), options_(std::move(options)) {}

LaunchResult LocalLauncher::run() {
  Supervisor supervisor(specs_, output_, options_);
  return supervisor.run();
}

}  // namespace distbench::cli
