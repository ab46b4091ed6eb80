// The run's verdict: one store value saying why the run is over, written by
// whoever ends it first (the master giving up on a trainer, a rank told to
// terminate) and read by every other rank, which then exits naming it.
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <optional>
#include <string>

namespace c10d {
class Store;
}

namespace distbench::worker {

struct RunVerdict {
  std::string text;
  // A rank refused the run (a device it cannot compute on, a spec it cannot
  // run): running it again would fail the same way. Every rank then exits
  // with status 2, the refusal's, so that whichever pod the operator reads
  // first it does not restart the gang (docs/crd-reference.md, RankRefused).
  bool refusal = false;
};

// Publishes `verdict` unless another was published first (the first one
// stands, so every rank names the same cause). Returns whether it was ours.
// The text is published without the run key (run_store.h).
bool publishVerdict(c10d::Store& store, const std::string& verdict, bool refusal = false);

// The published verdict, if any. One store round trip when there is none.
std::optional<RunVerdict> readVerdict(c10d::Store& store);

// Ranks that exit on a verdict say so here, so the master (whose exit takes
// the store with it) can wait until they have read it, within a bound.
// Every rank that watches for a verdict registers once; every rank but the
// master acknowledges a verdict before it exits on it.
void registerVerdictWatcher(c10d::Store& store);
int64_t verdictWatchers(c10d::Store& store);
void acknowledgeVerdict(c10d::Store& store);
int64_t verdictAcknowledgements(c10d::Store& store);

}  // namespace distbench::worker
