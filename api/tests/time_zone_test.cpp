// TimeZone against offsets published for real zones (Europe/Berlin,
// America/New_York, Australia/Lord_Howe's half-hour DST), the footer rule
// past the file's last transition, local-time gaps and overlaps, and the
// names it must refuse.
#include "distbench/api/time_zone.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

#include "utc_time.h"

namespace distbench::api {
namespace {

using test::iso;
using test::utc;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Wall-clock seconds of a local calendar time (the same arithmetic as UTC).
LocalSeconds local(int year, int month, int day, int hour, int minute) {
  return toUnixSeconds(utc(year, month, day, hour, minute));
}

TEST(TimeZoneTest, UtcIsBuiltIn) {
  const TimeZone zone = TimeZone::load("UTC");
  EXPECT_EQ(zone.name(), "UTC");
  EXPECT_EQ(zone.offsetAt(utc(2026, 7, 1)), 0);
  EXPECT_EQ(zone.toLocal(utc(2026, 7, 1, 12)), local(2026, 7, 1, 12, 0));
}

TEST(TimeZoneTest, UtcNeedsNoDatabase) {
  const char* old = std::getenv("TZDIR");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  setenv("TZDIR", "/nonexistent-zoneinfo", 1);
  EXPECT_EQ(TimeZone::load("UTC").offsetAt(utc(2030, 1, 1)), 0);
  EXPECT_THROW(TimeZone::load("Europe/Berlin"), std::invalid_argument);
  if (saved) {
    setenv("TZDIR", saved->c_str(), 1);
  } else {
    unsetenv("TZDIR");
  }
}

TEST(TimeZoneTest, BerlinWinterAndSummer) {
  const TimeZone berlin = TimeZone::load("Europe/Berlin");
  EXPECT_EQ(berlin.offsetAt(utc(2026, 1, 15, 12)), 3600);
  EXPECT_EQ(berlin.offsetAt(utc(2026, 7, 15, 12)), 7200);
  // Clocks go forward at 01:00 UTC on the last Sunday of March.
  EXPECT_EQ(berlin.offsetAt(utc(2026, 3, 29, 0, 59, 59)), 3600);
  EXPECT_EQ(berlin.offsetAt(utc(2026, 3, 29, 1)), 7200);
  EXPECT_EQ(berlin.offsetAt(utc(2026, 10, 25, 0, 59, 59)), 7200);
  EXPECT_EQ(berlin.offsetAt(utc(2026, 10, 25, 1)), 3600);
}

TEST(TimeZoneTest, NewYorkChangesAtTwoLocal) {
  const TimeZone ny = TimeZone::load("America/New_York");
  EXPECT_EQ(ny.offsetAt(utc(2026, 1, 15)), -5 * 3600);
  EXPECT_EQ(ny.offsetAt(utc(2026, 7, 15)), -4 * 3600);
  EXPECT_EQ(ny.offsetAt(utc(2026, 3, 8, 6, 59, 59)), -5 * 3600);
  EXPECT_EQ(ny.offsetAt(utc(2026, 3, 8, 7)), -4 * 3600);
}

TEST(TimeZoneTest, LordHoweHasHalfHourDaylightSaving) {
  const TimeZone lordHowe = TimeZone::load("Australia/Lord_Howe");
  EXPECT_EQ(lordHowe.offsetAt(utc(2026, 1, 15)), 11 * 3600);
  EXPECT_EQ(lordHowe.offsetAt(utc(2026, 7, 15)), 10 * 3600 + 1800);
  // 02:00 daylight time (15:00 UTC the day before) goes back to 01:30.
  EXPECT_EQ(lordHowe.offsetAt(utc(2026, 4, 4, 14, 59, 59)), 11 * 3600);
  EXPECT_EQ(lordHowe.offsetAt(utc(2026, 4, 4, 15)), 10 * 3600 + 1800);
  // Past the file's transitions, through the footer rule.
  EXPECT_EQ(lordHowe.offsetAt(utc(2045, 1, 15)), 11 * 3600);
  EXPECT_EQ(lordHowe.offsetAt(utc(2045, 7, 15)), 10 * 3600 + 1800);
}

TEST(TimeZoneTest, DatesAfter2040FollowTheFooterRule) {
  const TimeZone berlin = TimeZone::load("Europe/Berlin");
  // Last Sundays: 26 March and 29 October 2045; 31 March and 27 October 2047.
  EXPECT_EQ(berlin.offsetAt(utc(2045, 3, 26, 0, 59, 59)), 3600);
  EXPECT_EQ(berlin.offsetAt(utc(2045, 3, 26, 1)), 7200);
  EXPECT_EQ(berlin.offsetAt(utc(2045, 10, 29, 0, 59, 59)), 7200);
  EXPECT_EQ(berlin.offsetAt(utc(2045, 10, 29, 1)), 3600);
  EXPECT_EQ(berlin.offsetAt(utc(2047, 3, 31, 1)), 7200);
  EXPECT_EQ(berlin.offsetAt(utc(2047, 10, 27, 1)), 3600);
  const TimeZone ny = TimeZone::load("America/New_York");
  // Second Sunday of March 2050 is the 13th: 02:00 EST = 07:00 UTC.
  EXPECT_EQ(ny.offsetAt(utc(2050, 3, 13, 6, 59, 59)), -5 * 3600);
  EXPECT_EQ(ny.offsetAt(utc(2050, 3, 13, 7)), -4 * 3600);
}

TEST(TimeZoneTest, FromLocalHasNothingInAGapAndTwoInAnOverlap) {
  const TimeZone berlin = TimeZone::load("Europe/Berlin");
  EXPECT_TRUE(berlin.fromLocal(local(2026, 3, 29, 2, 30)).empty());
  const std::vector<SystemTime> twice = berlin.fromLocal(local(2026, 10, 25, 2, 30));
  ASSERT_EQ(twice.size(), 2u);
  EXPECT_EQ(iso(twice[0]), "2026-10-25T00:30:00Z");
  EXPECT_EQ(iso(twice[1]), "2026-10-25T01:30:00Z");
  const std::vector<SystemTime> once = berlin.fromLocal(local(2026, 7, 1, 12, 0));
  ASSERT_EQ(once.size(), 1u);
  EXPECT_EQ(iso(once[0]), "2026-07-01T10:00:00Z");
  // The same in the footer's years.
  EXPECT_TRUE(berlin.fromLocal(local(2045, 3, 26, 2, 0)).empty());
  EXPECT_EQ(berlin.fromLocal(local(2045, 10, 29, 2, 0)).size(), 2u);
}

TEST(TimeZoneTest, ToLocalAndBackAgree) {
  const TimeZone lordHowe = TimeZone::load("Australia/Lord_Howe");
  for (SystemTime t : {utc(2026, 1, 1, 3, 17), utc(2026, 6, 30, 23, 59), utc(2044, 12, 1, 8)}) {
    const std::vector<SystemTime> back = lordHowe.fromLocal(lordHowe.toLocal(t));
    ASSERT_EQ(back.size(), 1u) << iso(t);
    EXPECT_EQ(back[0], t);
  }
}

TEST(TimeZoneTest, UnknownZoneIsAnErrorNamingIt) {
  try {
    TimeZone::load("Mars/Olympus_Mons");
    FAIL() << "loaded a zone that does not exist";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("unknown time zone"), HasSubstr("Mars/Olympus_Mons")));
  }
  // A directory of the database is not a zone.
  EXPECT_THROW(TimeZone::load("Europe"), std::invalid_argument);
  EXPECT_THROW(TimeZone::load(""), std::invalid_argument);
}

TEST(TimeZoneTest, NamesOutsideTheDatabaseAreRefused) {
  for (const char* name : {"../etc/passwd", "/etc/localtime", "Europe/../../etc/passwd",
                           "Europe//Berlin", "./UTC", "Europe/Berlin\n"}) {
    try {
      TimeZone::load(name);
      FAIL() << "loaded " << name;
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("not an IANA zone name")) << name;
    }
  }
}

}  // namespace
}  // namespace distbench::api
