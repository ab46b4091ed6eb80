#include "distbench/api/schedule_spec.h"

#include <ctime>

namespace distbench::api {

const char* toString(ConcurrencyPolicy policy) {
  switch (policy) {
    case ConcurrencyPolicy::Forbid:
      return "Forbid";
    case ConcurrencyPolicy::Replace:
      return "Replace";
  }
  return "?";
}

std::string scheduledRunName(const std::string& schedule, SystemTime scheduledTime) {
  const int64_t seconds = toUnixSeconds(scheduledTime);
  const int64_t minutes = seconds / 60 - (seconds % 60 < 0 ? 1 : 0);
  return schedule + "-" + std::to_string(minutes);
}

std::string scheduleBaselineConfigMapName(const std::string& schedule) {
  return schedule + "-baseline";
}

std::string formatRfc3339(SystemTime t) {
  const std::time_t seconds = static_cast<std::time_t>(toUnixSeconds(t));
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

DistBenchmark scheduledRun(const DistBenchmarkSchedule& schedule, SystemTime scheduledTime) {
  DistBenchmark run;
  run.metadata.name = scheduledRunName(schedule.metadata.name, scheduledTime);
  run.metadata.namespace_ = schedule.metadata.namespace_;
  run.metadata.labels = schedule.spec.template_.metadata.labels;
  run.metadata.labels[kScheduleLabel] = schedule.metadata.name;
  run.metadata.annotations = schedule.spec.template_.metadata.annotations;
  run.metadata.annotations[kScheduledAtAnnotation] = formatRfc3339(scheduledTime);
  run.spec = schedule.spec.template_.spec;
  run.spec.baseline.reset();
  return run;
}

}  // namespace distbench::api
