// validate(DistBenchmarkSchedule): the schedule's own fields, its template's
// metadata, and its template's spec as the DistBenchmark each run will be.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "distbench/api/cron_schedule.h"
#include "distbench/api/regression_threshold.h"
#include "distbench/api/schedule_spec.h"
#include "distbench/api/spec_validation.h"
#include "field_errors.h"
#include "object_name_rules.h"
#include "run_template_reader.h"

namespace distbench::api {
namespace {

using detail::checkNamespace;
using detail::checkTypeMeta;
using detail::FieldErrors;
using detail::isDns1123Label;

void checkMetadata(const DistBenchmarkSchedule& s, FieldErrors& e) {
  checkTypeMeta(s.apiVersion, s.kind, kScheduleKind, e);
  const std::string& name = s.metadata.name;
  if (name.empty()) {
    e.fail("metadata.name", "required");
  } else if (!isDns1123Label(name) || !(name.front() >= 'a' && name.front() <= 'z')) {
    e.fail("metadata.name",
           "must be a DNS-1123 label starting with a letter: at most 63 lowercase letters, "
           "digits and '-'; it prefixes its runs' names");
  }
  checkNamespace(s.metadata.namespace_, e);
}

void checkPolicies(const ScheduleSpec& spec, FieldErrors& e) {
  if (spec.startingDeadlineSeconds) {
    e.between<int64_t>("spec.startingDeadlineSeconds", *spec.startingDeadlineSeconds, 0,
                      kMaxStartingDeadlineSeconds);
  }
  e.between("spec.successfulRunsHistoryLimit", spec.successfulRunsHistoryLimit, 0,
            kMaxRunsHistoryLimit);
  e.between("spec.failedRunsHistoryLimit", spec.failedRunsHistoryLimit, 0, kMaxRunsHistoryLimit);
  e.between("spec.baseline.runs", spec.baseline.runs, 1, kMaxBaselineRuns);
  if (!isRegressionThresholdPercent(spec.baseline.thresholdPercent)) {
    e.fail("spec.baseline.thresholdPercent", std::string("must be ") + kRegressionThresholdRule);
  }
}

// The template as the run with the longest name, its errors under the
// schedule's paths.
void checkTemplateSpec(const DistBenchmarkSchedule& s, bool nameOk, FieldErrors& e) {
  if (s.spec.template_.spec.baseline) {
    e.fail("spec.template.spec.baseline",
           "set by the schedule (spec.baseline: the pooled recent runs); remove it");
  }
  DistBenchmark run;
  run.metadata.name = nameOk ? s.metadata.name + "-" + std::string(kRunSuffixDigits, '9') : "x";
  run.metadata.namespace_ = "default";
  run.spec = s.spec.template_.spec;
  run.spec.baseline.reset();
  for (FieldError& error : validate(run)) {
    if (error.field == "metadata.name") {
      e.fail("metadata.name", "too long for its runs' names (\"" + run.metadata.name +
                                  "\"): " + error.message);
    } else if (error.field.rfind("spec.", 0) == 0 || error.field == "spec") {
      e.fail("spec.template." + error.field, std::move(error.message));
    }
  }
}

}  // namespace

std::optional<ScheduleTiming> parseScheduleTiming(const std::string& schedule,
                                                  const std::string& timeZone,
                                                  std::vector<FieldError>* errors) {
  auto fail = [errors](const char* field, std::string message) {
    if (errors) errors->push_back({field, std::move(message)});
  };
  std::optional<TimeZone> zone;
  try {
    zone = TimeZone::load(timeZone);
  } catch (const std::invalid_argument& error) {
    fail("spec.timeZone", error.what());
  }
  if (schedule.empty()) {
    fail("spec.schedule", "required");
    return std::nullopt;
  }
  std::optional<CronSchedule> cron;
  try {
    cron = CronSchedule::parse(schedule);
    if (!cron->canFire()) {
      fail("spec.schedule", "never fires: no month of the month field has any of its days");
      cron.reset();
    }
  } catch (const std::invalid_argument& error) {
    fail("spec.schedule", error.what());
  }
  if (!zone || !cron) return std::nullopt;
  return ScheduleTiming{std::move(*cron), std::move(*zone)};
}

std::vector<FieldError> validate(const DistBenchmarkSchedule& schedule) {
  std::optional<ScheduleTiming> timing;
  return validate(schedule, timing);
}

std::vector<FieldError> validate(const DistBenchmarkSchedule& schedule,
                                 std::optional<ScheduleTiming>& timing) {
  FieldErrors e;
  checkMetadata(schedule, e);
  const bool nameOk = isDns1123Label(schedule.metadata.name) && schedule.metadata.name.front() >= 'a' &&
                      schedule.metadata.name.front() <= 'z';
  std::vector<FieldError> timingErrors;
  timing = parseScheduleTiming(schedule.spec.schedule, schedule.spec.timeZone, &timingErrors);
  for (FieldError& error : timingErrors) e.fail(std::move(error.field), std::move(error.message));
  checkPolicies(schedule.spec, e);
  detail::checkRunTemplateMetadata(schedule.spec.template_.metadata,
                                   {{kScheduleLabel}, {kScheduledAtAnnotation}, "the schedule"}, e);
  checkTemplateSpec(schedule, nameOk, e);
  return e.take();
}

}  // namespace distbench::api
