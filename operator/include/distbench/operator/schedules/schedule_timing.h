// When a DistBenchmarkSchedule runs, as the CronJob controller decides it:
// the most recent firing time that has passed since the last run was
// scheduled is due, once (several missed firings make one catch-up run,
// never a burst), provided it is within startingDeadlineSeconds; an older
// one is reported as missed. Pure: the reconciler supplies the clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "distbench/kube/rfc3339.h"

namespace distbench::op {

// The firing after a time, or nothing when the schedule never fires again
// (api::CronSchedule::next in the schedule's time zone).
using NextFiring = std::function<std::optional<kube::SystemTime>(kube::SystemTime after)>;

struct ScheduleTiming {
  // The firing to run now: the latest one in (since, now], when it is no
  // older than the starting deadline.
  std::optional<kube::SystemTime> due;
  // The latest firing in (since, now] when it is past the starting deadline:
  // nothing runs for it (and `due` is empty).
  std::optional<kube::SystemTime> missed;
  // Firings in (since, now] in all (at most kMaxCountedFirings).
  int64_t firingsSince = 0;
  // The first firing after now, and the time from it to the one after
  // (what staleness is measured in).
  std::optional<kube::SystemTime> next;
  std::optional<std::chrono::seconds> interval;
};

// Past this many firings since, the count stops and the search jumps to the
// last day: a minutely schedule down for months is still one catch-up run,
// found in a bounded number of steps.
inline constexpr int64_t kMaxCountedFirings = 100000;

// `since`: status.lastScheduleTime, or the schedule's creation time when it
// has never run. `startingDeadline` absent: any firing since may run late.
ScheduleTiming scheduleTiming(const NextFiring& nextFiring, kube::SystemTime since,
                              kube::SystemTime now,
                              std::optional<std::chrono::seconds> startingDeadline);

}  // namespace distbench::op
