// What `run --wait` prints as a run goes (pure: successive reads of the
// DistBenchmark in, lines out) and how it ends.
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>
#include <vector>

namespace distbench::plugin {

class RunFollower {
 public:
  // Lines for this read of the run: its state when it changed ("Running,
  // gang 0, ranks 6/6 ready"), each gang restart with its cause and the
  // failed rank's last line, from the Restarting condition, and the
  // progress bar when status.progress moved.
  std::vector<std::string> observe(const web::json::value& benchmark);

 private:
  std::string lastState_;
  std::string lastProgress_;
  int64_t lastGang_ = 0;
};

// Finished: Succeeded or Failed; and for a Succeeded run, done waiting for
// what the operator writes after it (ReportStored, and with spec.baseline
// the comparison).
bool runFinished(const web::json::value& benchmark);
bool runSettled(const web::json::value& benchmark);
// 0 Succeeded, 3 Succeeded with a regression against its baseline, 1 Failed.
int runExitCode(const web::json::value& benchmark);

}  // namespace distbench::plugin
