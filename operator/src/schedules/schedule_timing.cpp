#include "distbench/operator/schedules/schedule_timing.h"

namespace distbench::op {

ScheduleTiming scheduleTiming(const NextFiring& nextFiring, kube::SystemTime since,
                              kube::SystemTime now,
                              std::optional<std::chrono::seconds> startingDeadline) {
  ScheduleTiming out;
  std::optional<kube::SystemTime> latest;
  std::optional<kube::SystemTime> t = nextFiring(since);
  bool jumped = false;
  while (t && *t <= now) {
    latest = t;
    ++out.firingsSince;
    if (out.firingsSince == kMaxCountedFirings && !jumped) {
      jumped = true;
      const kube::SystemTime dayAgo = now - std::chrono::hours(24);
      if (*t < dayAgo) {
        t = nextFiring(dayAgo);
        continue;
      }
    }
    t = nextFiring(*t);
  }
  if (latest) {
    if (startingDeadline && *latest < now - *startingDeadline) {
      out.missed = latest;
    } else {
      out.due = latest;
    }
  }
  out.next = t;
  if (t) {
    if (const std::optional<kube::SystemTime> after = nextFiring(*t))
      out.interval = std::chrono::duration_cast<std::chrono::seconds>(*after - *t);
  }
  return out;
}

}  // namespace distbench::op
