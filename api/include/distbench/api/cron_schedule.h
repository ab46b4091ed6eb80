// DistBenchmarkSchedule's spec.schedule: a standard 5-field cron expression,
// read as Kubernetes' CronJob reads it (robfig/cron's standard parser).
//
//   minute hour day-of-month month day-of-week
//
// Each field is `*`, a value, a range `a-b`, a step `*/n`, `a-b/n` or `a/n`
// (a to the field's end), or a comma list of those. Months may be named
// jan..dec and weekdays sun..sat (any case); weekday 7 is Sunday as 0 is;
// `?` is `*` in the two day fields. When both day fields are restricted
// (neither has a `*`, `?` or `*/1` part), a day matches when EITHER does, as
// in Vixie cron; otherwise both must (so `*/2` in one of them restricts it). The macros @yearly
// (@annually), @monthly, @weekly, @daily (@midnight) and @hourly stand for
// their 5-field forms. "TZ="/"CRON_TZ=" prefixes and @every are refused: the
// zone is spec.timeZone, and intervals are written as fields.
//
// Times are matched on the wall clock of a TimeZone. Across a DST change:
// a wall-clock time that does not exist that day (the hour skipped when
// clocks go forward) does not fire; one that occurs twice (clocks go back)
// fires once, at its first occurrence.
#pragma once

#include <bitset>
#include <optional>
#include <string>

#include "distbench/api/time_zone.h"

namespace distbench::api {

class CronSchedule {
 public:
  // Throws std::invalid_argument naming the field of the expression that is
  // wrong, e.g. `day-of-month "32": 32 is out of range 1..31`.
  static CronSchedule parse(const std::string& expression);

  // The first firing strictly after `after` on `zone`'s wall clock, or
  // nullopt when there is none within 5 years of it.
  std::optional<SystemTime> next(SystemTime after, const TimeZone& zone) const;

  // False when the day-of-month and month fields never meet (the 30th of
  // February), so the schedule can never fire; validation refuses that.
  bool canFire() const;

  const std::string& expression() const { return expression_; }

 private:
  bool dayMatches(int64_t dayNumber) const;

  std::string expression_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> daysOfMonth_;  // 1..31
  std::bitset<13> months_;       // 1..12
  std::bitset<7> daysOfWeek_;    // 0 = Sunday
  bool anyDayOfMonth_ = false;   // the field starts with * or ?
  bool anyDayOfWeek_ = false;
};

}  // namespace distbench::api
