// The DistBenchmarkSchedule resource (distbench.io/v1alpha1): a cron
// schedule that creates a DistBenchmark from its template at each firing and
// compares each run with the pooled reports of the runs before it
// (docs/crd-reference.md, docs/continuous-benchmarking.md). Plain values, as
// benchmark_spec.h; the operator's controller turns them into runs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/cron_schedule.h"
#include "distbench/api/regression_threshold.h"
#include "distbench/api/run_template.h"
#include "distbench/api/spec_error.h"
#include "distbench/api/time_zone.h"

namespace distbench::api {

inline constexpr const char* kScheduleKind = "DistBenchmarkSchedule";
inline constexpr const char* kSchedulePlural = "distbenchmarkschedules";
// On every run (and its baseline ConfigMap): the schedule that made it.
inline constexpr const char* kScheduleLabel = "distbench.io/schedule";
// On every run: the time it was scheduled for, RFC 3339 UTC.
inline constexpr const char* kScheduledAtAnnotation = "distbench.io/scheduled-at";
// On the baseline ConfigMap: "true".
inline constexpr const char* kBaselineLabel = "distbench.io/baseline";
// The baseline ConfigMap's keys: the pooled report a run's spec.baseline
// reads, and the runs pooled into it.
inline constexpr const char* kScheduleBaselineKey = "baseline.json";
inline constexpr const char* kScheduleBaselineRunsKey = "runs.json";

// Bounds (docs/crd-reference.md; the CRD states the same).
inline constexpr int64_t kMaxStartingDeadlineSeconds = 31'536'000;  // a year
inline constexpr int kMaxRunsHistoryLimit = 100;
inline constexpr int kMaxBaselineRuns = 50;
// The digits of a run name's suffix (minutes since the epoch) until 2160.
inline constexpr int kRunSuffixDigits = 8;

// Forbid: a firing while a run is active is skipped. Replace: the active
// run is deleted and the new one created. (CronJob's Allow is refused: two
// runs at once disturb each other's numbers.)
enum class ConcurrencyPolicy { Forbid, Replace };
const char* toString(ConcurrencyPolicy);

// spec.baseline: what each run is compared with.
struct ScheduleBaseline {
  int runs = 5;  // the last N successful, unregressed runs, pooled
  double thresholdPercent = kDefaultRegressionThresholdPercent;  // regression_threshold.h
};

// spec.schedule and spec.timeZone parsed: what the next run is computed
// from (the controller, `distbench validate`, the schedule's metrics).
struct ScheduleTiming {
  CronSchedule cron;
  TimeZone zone;
};

struct ScheduleSpec {
  std::string schedule;  // cron_schedule.h; required
  std::string timeZone = "UTC";
  // The two above parsed, by validation, so no reader parses them again;
  // parseDistBenchmarkSchedule's result always has it.
  std::optional<ScheduleTiming> timing;
  ConcurrencyPolicy concurrencyPolicy = ConcurrencyPolicy::Forbid;
  // Seconds after the scheduled time within which a late run (operator
  // down, or busy) may still start. Absent: no deadline.
  std::optional<int64_t> startingDeadlineSeconds;
  bool suspend = false;
  int successfulRunsHistoryLimit = 3;
  int failedRunsHistoryLimit = 1;
  ScheduleBaseline baseline;
  // Each run's metadata and spec; spec.baseline is refused here: the
  // schedule sets it.
  RunTemplate template_;
};

// metadata as read from a document or the API server.
using ScheduleMetadata = StoredObjectMeta;

struct DistBenchmarkSchedule {
  std::string apiVersion = kApiVersion;
  std::string kind = kScheduleKind;
  ScheduleMetadata metadata;
  ScheduleSpec spec;
};

// YAML or JSON text; strict as parseDistBenchmark (unknown fields, wrong
// types, bad enum values are errors), defaults filled in, validated before
// return. Throws SpecError with every problem, each naming its field
// ("spec.schedule", "spec.template.spec.topology.trainers"); errors about
// the document as a whole name "<document>". A top-level status is ignored.
DistBenchmarkSchedule parseDistBenchmarkSchedule(const std::string& yamlOrJsonText);
// As parseDistBenchmarkSchedule, naming the file in place of "<document>".
// Throws std::runtime_error("cannot read PATH: reason") when unreadable.
DistBenchmarkSchedule loadDistBenchmarkScheduleFile(const std::string& path);

// Every problem, with full paths. The template is validated as the
// DistBenchmark the schedule creates, named with the longest run name
// (kRunSuffixDigits), so a schedule whose runs' names would be too long is
// refused at metadata.name.
std::vector<FieldError> validate(const DistBenchmarkSchedule& schedule);
// As validate, keeping spec.schedule and spec.timeZone parsed in `timing`
// when both are valid (parseDistBenchmarkSchedule fills spec.timing so).
std::vector<FieldError> validate(const DistBenchmarkSchedule& schedule,
                                 std::optional<ScheduleTiming>& timing);

// The one reader of spec.schedule and spec.timeZone, for validation and for
// a reader that has only the two texts (the operator's metrics read the
// object as the API server holds it). Empty when either is wrong; then
// `errors`, when given, receives why, spec.timeZone's first, as validation
// reports them: a missing schedule, an expression CronSchedule::parse
// refuses, or one that never fires.
std::optional<ScheduleTiming> parseScheduleTiming(const std::string& schedule,
                                                  const std::string& timeZone,
                                                  std::vector<FieldError>* errors = nullptr);

// "<schedule>-<minutes since the Unix epoch of scheduledTime>": CronJob's
// naming, so runs sort by time.
std::string scheduledRunName(const std::string& schedule, SystemTime scheduledTime);
// "<schedule>-baseline"
std::string scheduleBaselineConfigMapName(const std::string& schedule);
// The run the schedule creates for `scheduledTime`, without spec.baseline
// (the controller adds it when the pool holds a run) and without the owner
// reference (the controller's): name and namespace, the template's labels
// plus kScheduleLabel, its annotations plus kScheduledAtAnnotation, and the
// template's spec.
DistBenchmark scheduledRun(const DistBenchmarkSchedule& schedule, SystemTime scheduledTime);
// RFC 3339 UTC, whole seconds: "2026-11-27T09:00:00Z".
std::string formatRfc3339(SystemTime t);

}  // namespace distbench::api
