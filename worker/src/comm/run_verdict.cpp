#include "distbench/worker/comm/run_verdict.h"

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "distbench/worker/comm/run_store.h"

namespace distbench::worker {
namespace {

constexpr const char* kVerdictKey = "distbench/run/verdict";
constexpr const char* kClaimKey = "distbench/run/verdict-claim";
constexpr const char* kAckKey = "distbench/run/verdict-seen";
constexpr const char* kWatchersKey = "distbench/run/verdict-watchers";
// Set before the verdict itself, so a rank that reads the verdict finds it.
// A key of its own: ranks of an older build read the verdict as before.
constexpr const char* kRefusalKey = "distbench/run/verdict-refusal";

}  // namespace

bool publishVerdict(c10d::Store& store, const std::string& verdict, bool refusal) {
  // add is atomic on the store; set alone would let a later verdict
  // overwrite the cause others already printed.
  if (store.add(kClaimKey, 1) != 1) return false;
  // Every rank prints it, and it may end up in any pod's termination message.
  const std::string text = redactRunKey(verdict);
  if (refusal) store.set(kRefusalKey, std::vector<uint8_t>{1});
  store.set(kVerdictKey, std::vector<uint8_t>(text.begin(), text.end()));
  return true;
}

std::optional<RunVerdict> readVerdict(c10d::Store& store) {
  if (!store.check({kVerdictKey})) return std::nullopt;
  const std::vector<uint8_t> v = store.get(kVerdictKey);
  return RunVerdict{std::string(v.begin(), v.end()), store.check({kRefusalKey})};
}

void registerVerdictWatcher(c10d::Store& store) { store.add(kWatchersKey, 1); }

int64_t verdictWatchers(c10d::Store& store) { return store.add(kWatchersKey, 0); }

void acknowledgeVerdict(c10d::Store& store) { store.add(kAckKey, 1); }

int64_t verdictAcknowledgements(c10d::Store& store) { return store.add(kAckKey, 0); }

}  // namespace distbench::worker
