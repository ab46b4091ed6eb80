// Instants written as UTC calendar times, for the time zone and cron tests.
#pragma once

#include <ctime>
#include <string>

#include "distbench/api/time_zone.h"

namespace distbench::api::test {

// timegm reads its fields as UTC, whatever TZ says.
inline SystemTime utc(int year, int month, int day, int hour = 0, int minute = 0, int second = 0) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return fromUnixSeconds(static_cast<int64_t>(timegm(&tm)));
}

// "2026-03-29T01:00:00Z", so a failing comparison reads as a time.
inline std::string iso(SystemTime t) {
  const std::time_t seconds = static_cast<std::time_t>(toUnixSeconds(t));
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

}  // namespace distbench::api::test
