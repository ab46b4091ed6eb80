// IANA time zones for DistBenchmarkSchedule's spec.timeZone, read from the
// TZif files of the operator's tz database ($TZDIR, else /usr/share/zoneinfo):
// the 64-bit (version 2+) transitions, and for instants after the last of
// them the POSIX TZ rule in the file's footer ("CET-1CEST,M3.5.0,M10.5.0/3"),
// so dates past 2037 follow the zone's current rule. Written here because
// GCC 12's library has no std::chrono time zones, and setting TZ for
// localtime_r is process-wide while the operator is multi-threaded.
// A loaded zone is an immutable value: share it between threads freely.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace distbench::api {

using SystemTime = std::chrono::system_clock::time_point;

// Seconds since 1970-01-01 00:00 of the local wall clock (leap seconds not
// counted, as in Unix time): what a calendar in the zone shows, as a number.
using LocalSeconds = int64_t;

class TimeZone {
 public:
  // "UTC" is built in; any other name is a file under the tz database.
  // Throws std::invalid_argument naming the zone when the name is not a
  // plain relative zone name ("../etc/passwd", "/etc/localtime"), or no
  // readable TZif file has it.
  static TimeZone load(const std::string& name);
  static TimeZone utc();

  const std::string& name() const;
  // Seconds east of UTC at `instant` (3600 in Berlin's winter).
  int64_t offsetAt(SystemTime instant) const;
  int64_t offsetAt(int64_t unixSeconds) const;
  // The wall-clock time at `instant`, whole seconds (rounded down).
  LocalSeconds toLocal(SystemTime instant) const;
  // Every instant whose wall-clock time is `local`, earliest first: none in
  // a gap (clocks jump forward), two in an overlap (clocks go back).
  std::vector<SystemTime> fromLocal(LocalSeconds local) const;

  struct Data;  // the parsed file; defined in the source

 private:
  explicit TimeZone(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;
};

// Unix seconds of a SystemTime, rounded down, and back.
int64_t toUnixSeconds(SystemTime instant);
SystemTime fromUnixSeconds(int64_t seconds);

}  // namespace distbench::api
