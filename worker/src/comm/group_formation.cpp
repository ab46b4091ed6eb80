#include "distbench/worker/comm/group_formation.h"

#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO  // Debian's header is empty without it
#endif
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
// The backend's complete type, for dropping it here (1.13's ProcessGroup,
// 2.x's Backend): ProcessGroupGloo's header includes both lines' base.
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "distbench/worker/comm/peer_error.h"

namespace distbench::worker {
namespace {

std::atomic<int> gAbandoned{0};

// What the caller and the building thread share; whoever is last drops it.
struct Formation {
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  bool abandoned = false;
  std::optional<BackendHandle> backend;
  std::exception_ptr error;
};

void closeQuietly(BackendHandle& handle) {
  if (!handle.close) return;
  try {
    handle.close();
  } catch (const std::exception&) {
    // Nobody is left to tell.
  }
}

}  // namespace

BackendHandle formWithin(std::function<BackendHandle()> build, std::chrono::milliseconds timeout,
                         const std::string& what) {
  auto formation = std::make_shared<Formation>();
  std::thread([formation, build = std::move(build)] {
    std::optional<BackendHandle> backend;
    std::exception_ptr error;
    try {
      backend = build();
    } catch (...) {
      error = std::current_exception();
    }
    bool abandoned;
    {
      std::lock_guard<std::mutex> lock(formation->mutex);
      abandoned = formation->abandoned;
      if (!abandoned) {
        formation->backend = std::move(backend);
        formation->error = error;
      }
      formation->finished = true;
    }
    formation->done.notify_all();
    if (abandoned) {
      if (backend) closeQuietly(*backend);
      backend.reset();  // the backend goes on this thread, not the caller's
      --gAbandoned;
    }
  }).detach();

  std::unique_lock<std::mutex> lock(formation->mutex);
  if (!formation->done.wait_for(lock, timeout, [&] { return formation->finished; })) {
    formation->abandoned = true;
    ++gAbandoned;
    throw PeerError("forming " + what + " failed after at most " +
                    std::to_string(timeout.count() / 1000) +
                    " s: not every rank connected within the timeout (peerTimeoutSeconds)");
  }
  if (formation->error) std::rethrow_exception(formation->error);
  return std::move(*formation->backend);
}

int abandonedFormations() { return gAbandoned.load(); }

}  // namespace distbench::worker
