#include "distbench/worker/comm/termination_watch.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distbench/worker/comm/run_store.h"
#include "distbench/worker/comm/run_verdict.h"

namespace distbench::worker {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The bounds of an exit (docs/architecture.md#termination). kHardLimit caps
// the whole of it, whatever the store or stdout do meanwhile.
constexpr milliseconds kConnectTimeout{500};
constexpr milliseconds kMasterGrace{700};
constexpr milliseconds kHardLimit{1500};
// A verdict is read by every rank and may end up in a pod's termination
// message: an error's first lines say enough.
constexpr size_t kVerdictBytes = 512;

int gSignalPipe[2] = {-1, -1};
TerminationWatch* gInstalled = nullptr;

extern "C" void writeSignalToPipe(int sig) {
  const int savedErrno = errno;
  const unsigned char byte = static_cast<unsigned char>(sig);
  [[maybe_unused]] const ssize_t n = ::write(gSignalPipe[1], &byte, 1);
  errno = savedErrno;
}

const char* signalName(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
  }
  return "a signal";
}

void writeLine(const std::string& line) {
  const std::string text = line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
}

[[noreturn]] void park() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// The master hosts the store: once it exits, nobody can read the verdict.
void awaitReaders(c10d::Store& store) {
  const int64_t readers = verdictWatchers(store) - 1;  // all but the master
  const auto deadline = Clock::now() + kMasterGrace;
  while (verdictAcknowledgements(store) < readers && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(20));
  }
}

}  // namespace

int terminatedStatus(int signal) { return 128 + signal; }

struct TerminationWatch::State {
  std::string name;
  std::atomic<bool> exiting{false};
  std::mutex mutex;  // guards the fields below
  std::optional<WorkerIdentity> identity;
  // Handed to the watcher thread; a failing main thread borrows it, in turn
  // (storeTurn), as a fresh connection to a busy master can take longer
  // than an exit may.
  c10::intrusive_ptr<c10d::Store> verdictStore;
  milliseconds pollInterval{200};
  bool done = false;
  bool registered = false;  // counted among the verdict's watchers
  uint64_t polls = 0;  // verdict polls made, for a failing main thread to await
  std::condition_variable polled;
  std::mutex storeTurn;  // one request at a time on verdictStore

  // Whether this thread is the one to exit; if so, arms the hard limit.
  bool claim(int status, const std::string& text) {
    if (exiting.exchange(true)) return false;
    std::thread([status, line = redactRunKey(text)] {
      std::this_thread::sleep_for(kHardLimit);
      writeLine(line);
      ::_exit(status);
    }).detach();
    return true;
  }

  // Every line a rank exits with passes here: no run key in it, whatever
  // path it came by.
  [[noreturn]] static void finish(int status, const std::string& line) {
    std::fflush(stdout);
    writeLine(redactRunKey(line));
    ::_exit(status);
  }

  std::string who() {
    std::lock_guard<std::mutex> lock(mutex);
    return identity ? name + " (rank " + std::to_string(identity->rank) + ")" : name;
  }

  void onSignal(int sig) {
    std::optional<WorkerIdentity> id;
    c10::intrusive_ptr<c10d::Store> store;
    bool workDone;
    {
      std::lock_guard<std::mutex> lock(mutex);
      id = identity;
      store = verdictStore;
      workDone = done;
    }
    const std::string self = who();
    if (workDone) {
      // The results are delivered; only the scraper's last look is cut short.
      const std::string line =
          self + ": " + signalName(sig) + " during the metrics linger; the run had completed";
      if (!claim(0, line)) park();
      finish(0, line);
    }
    const int status = terminatedStatus(sig);
    const std::string line = self + ": terminated by " + signalName(sig);
    if (!claim(status, line)) park();
    if (id) announce(*id, store, id->label() + " was terminated by " + signalName(sig));
    finish(status, line);
  }

  // Publishes `verdict` (unless another came first) and stays until the
  // others can read it: the master hosts the store, so it waits for their
  // acknowledgements; any other rank acknowledges, as it watches too.
  // A rank that never registered as a watcher (it failed before checking
  // in) does not acknowledge: the master waits for the watchers' reads.
  void announce(const WorkerIdentity& id, c10::intrusive_ptr<c10d::Store> store,
                const std::string& verdict) {
    bool watching;
    {
      std::lock_guard<std::mutex> lock(mutex);
      watching = registered;
    }
    try {
      if (!store) store = connectRunStore(id, /*host=*/false, kConnectTimeout);
      publishVerdict(*store, verdict);
      if (id.role == api::Role::Master) {
        awaitReaders(*store);
      } else if (watching) {
        acknowledgeVerdict(*store);
      }
    } catch (const std::exception&) {
      // No store (rendezvous not reached, or the master is gone): the
      // others learn it from our closed connections and their timeouts.
    }
  }

  void onVerdict(c10d::Store& store, const RunVerdict& verdict, bool isMaster) {
    // A rank of an older build may have published one with the key in it.
    const std::string line = name + ": error: " + redactRunKey(verdict.text);
    // A refusal's echo is a refusal too: the operator must not restart a
    // gang that would be refused again, whichever rank's pod it reads first.
    const int status = verdict.refusal ? 2 : 1;
    if (!claim(status, line)) park();
    try {
      if (isMaster) {
        awaitReaders(store);
      } else {
        acknowledgeVerdict(store);
      }
    } catch (const std::exception&) {
      // The master is gone: nobody is left to wait for.
    }
    finish(status, line);
  }

  void loop() {
    for (;;) {
      c10::intrusive_ptr<c10d::Store> store;
      milliseconds interval;
      bool isMaster = false;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (!done) store = verdictStore;
        interval = pollInterval;
        isMaster = identity && identity->role == api::Role::Master;
      }
      pollfd p{gSignalPipe[0], POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(interval.count()));
      if (ready > 0) {
        unsigned char sig = 0;
        if (::read(gSignalPipe[0], &sig, 1) == 1) onSignal(sig);
        continue;
      }
      if (!store) continue;
      std::optional<RunVerdict> verdict;
      try {
        std::lock_guard<std::mutex> turn(storeTurn);
        verdict = readVerdict(*store);
      } catch (const std::exception&) {
        // The master is gone, after the run or because it failed: the main
        // thread's own waits say which, naming it.
        std::lock_guard<std::mutex> lock(mutex);
        verdictStore.reset();
        ++polls;
        polled.notify_all();
        continue;
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (done) continue;
        if (!verdict) {
          ++polls;
          polled.notify_all();
          continue;
        }
      }
      onVerdict(*store, *verdict, isMaster);
    }
  }
};

TerminationWatch::TerminationWatch(const std::string& name) : state_(new State) {
  state_->name = name;
}

TerminationWatch& TerminationWatch::install(const std::string& name) {
  if (gInstalled != nullptr) return *gInstalled;
  if (::pipe2(gSignalPipe, O_CLOEXEC) != 0) throw std::runtime_error("termination watch: no pipe");
  // Never block in the handler, even if signals pile up.
  ::fcntl(gSignalPipe[1], F_SETFL, O_NONBLOCK);
  struct sigaction action {};
  action.sa_handler = writeSignalToPipe;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : {SIGTERM, SIGINT}) ::sigaction(sig, &action, nullptr);
  gInstalled = new TerminationWatch(name);
  State* state = gInstalled->state_;
  std::thread([state] { state->loop(); }).detach();
  return *gInstalled;
}

TerminationWatch* TerminationWatch::installed() { return gInstalled; }

void TerminationWatch::setIdentity(const WorkerIdentity& id) {
  rememberRunKey(id.runKey);
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->identity = id;
  // Every rank polls the master's store: slower in large worlds, so that
  // 4096 ranks cost it at most ~8000 small requests a second.
  state_->pollInterval =
      std::clamp(milliseconds(static_cast<int64_t>(id.worldSize) / 8), milliseconds(100),
                 milliseconds(500));
}

void TerminationWatch::watchVerdicts() {
  std::optional<WorkerIdentity> id;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    id = state_->identity;
  }
  if (!id) return;
  try {
    auto store = connectRunStore(*id, /*host=*/false, std::chrono::seconds(10));
    registerVerdictWatcher(*store);
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->verdictStore = std::move(store);
    state_->registered = true;
  } catch (const std::exception&) {
    // The main thread's next store call reports the lost master.
  }
}

void TerminationWatch::workDone() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->done = true;
}

void TerminationWatch::exitWith(int status, const std::string& line) {
  awaitVerdictPolls(status);
  if (!state_->claim(status, line)) park();
  State::finish(status, line);
}

void TerminationWatch::failWith(int status, const std::string& error) {
  // Before the verdict's cut, which could leave a prefix of the key.
  const std::string why = redactRunKey(error);
  const std::string line = state_->name + ": error: " + why;
  awaitVerdictPolls(status);
  if (!state_->claim(status, line)) park();
  std::optional<WorkerIdentity> id;
  c10::intrusive_ptr<c10d::Store> store;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    id = state_->identity;
    store = state_->verdictStore;
  }
  if (id) {
    std::string verdict = id->label() + " failed: " + why;
    if (verdict.size() > kVerdictBytes) verdict = verdict.substr(0, kVerdictBytes - 3) + "...";
    // Not checked in yet: no watcher connection, a fresh one.
    std::lock_guard<std::mutex> turn(state_->storeTurn);
    state_->announce(*id, store, verdict);
  }
  State::finish(status, line);
}

void TerminationWatch::awaitVerdictPolls(int status) {
  if (status == 0) return;
  // A failure is often the echo of a verdict (a terminated rank's closed
  // connections reach its Gloo peers first): give the watcher two polls
  // to find it, so every rank names the cause rather than its echo.
  std::unique_lock<std::mutex> lock(state_->mutex);
  if (state_->verdictStore && !state_->done) {
    const uint64_t target = state_->polls + 2;
    state_->polled.wait_for(lock, 2 * state_->pollInterval + milliseconds(100),
                            [&] { return state_->polls >= target || !state_->verdictStore; });
  }
}

}  // namespace distbench::worker
