#include "distbench/plugin/run_follow.h"

#include "distbench/plugin/exit_codes.h"
#include "distbench/plugin/object_fields.h"
#include "distbench/plugin/run_view.h"

namespace distbench::plugin {
namespace {

using web::json::value;

std::string phase(const value& b) { return textAt(fieldAt(b, "status"), "phase"); }

}  // namespace

std::vector<std::string> RunFollower::observe(const value& b) {
  std::vector<std::string> lines;
  const value& gang = fieldAt(fieldAt(b, "status"), "restartCount");
  const int64_t g = gang.is_number() ? gang.as_number().to_int64() : 0;
  if (g > lastGang_) {
    const value* restarting = conditionOf(b, "Restarting");
    lines.push_back("restart " + std::to_string(g) + ": " +
                    (restarting
                         ? textAt(*restarting, "reason") + ": " + textAt(*restarting, "message")
                         : std::string("(no Restarting condition)")));
    lastGang_ = g;
  }
  const std::string state = runStateLine(b);
  if (state != lastState_) {
    lines.push_back(state);
    lastState_ = state;
  }
  const std::string progress = progressBar(b);
  if (!progress.empty() && progress != lastProgress_) lines.push_back("progress " + progress);
  lastProgress_ = progress;
  return lines;
}

bool runFinished(const value& b) { return phase(b) == "Succeeded" || phase(b) == "Failed"; }

bool runSettled(const value& b) {
  if (phase(b) != "Succeeded") return runFinished(b);
  if (!conditionOf(b, "ReportStored")) return false;
  const bool compares = fieldAt(fieldAt(b, "spec"), "baseline").is_object();
  return !compares || conditionOf(b, "RegressionDetected") != nullptr ||
         fieldAt(fieldAt(b, "status"), "baseline").is_object() ||
         textAt(*conditionOf(b, "ReportStored"), "status") != "True";
}

int runExitCode(const value& b) {
  if (phase(b) != "Succeeded") return kExitFailed;
  return runVerdict(b) == "Regression" ? kExitRegression : kExitOk;
}

}  // namespace distbench::plugin
