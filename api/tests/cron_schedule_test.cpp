// CronSchedule: the grammar CronJob accepts, the errors naming the field,
// next() on UTC and across DST changes (Berlin, New York, Lord Howe's half
// hour), schedules that never fire, and a search over years that stays fast.
#include "distbench/api/cron_schedule.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "utc_time.h"

namespace distbench::api {
namespace {

using test::iso;
using test::utc;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string nextIso(const std::string& expression, SystemTime after,
                    const TimeZone& zone = TimeZone::utc()) {
  const std::optional<SystemTime> next = CronSchedule::parse(expression).next(after, zone);
  return next ? iso(*next) : "none";
}

// The first `n` firings after `after`.
std::vector<std::string> firings(const std::string& expression, SystemTime after, int n,
                                 const TimeZone& zone = TimeZone::utc()) {
  const CronSchedule schedule = CronSchedule::parse(expression);
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    const std::optional<SystemTime> next = schedule.next(after, zone);
    if (!next) break;
    out.push_back(iso(*next));
    after = *next;
  }
  return out;
}

std::string parseError(const std::string& expression) {
  try {
    CronSchedule::parse(expression);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "parsed";
}

TEST(CronScheduleTest, NextIsStrictlyAfter) {
  EXPECT_EQ(nextIso("*/5 * * * *", utc(2026, 11, 27, 10, 2, 30)), "2026-11-27T10:05:00Z");
  EXPECT_EQ(nextIso("*/5 * * * *", utc(2026, 11, 27, 10, 5)), "2026-11-27T10:10:00Z");
  EXPECT_EQ(nextIso("*/5 * * * *", utc(2026, 11, 27, 10, 5) + std::chrono::milliseconds(1)),
            "2026-11-27T10:10:00Z");
  EXPECT_EQ(nextIso("* * * * *", utc(2026, 12, 31, 23, 59)), "2027-01-01T00:00:00Z");
}

TEST(CronScheduleTest, ListsRangesAndSteps) {
  EXPECT_EQ(firings("0,30 9-10 * * *", utc(2026, 11, 27), 5),
            (std::vector<std::string>{"2026-11-27T09:00:00Z", "2026-11-27T09:30:00Z",
                                      "2026-11-27T10:00:00Z", "2026-11-27T10:30:00Z",
                                      "2026-11-28T09:00:00Z"}));
  EXPECT_EQ(firings("10-40/15 * * * *", utc(2026, 11, 27), 4),
            (std::vector<std::string>{"2026-11-27T00:10:00Z", "2026-11-27T00:25:00Z",
                                      "2026-11-27T00:40:00Z", "2026-11-27T01:10:00Z"}));
  // "a/n" runs from a to the end of the field.
  EXPECT_EQ(firings("50/5 * * * *", utc(2026, 11, 27), 3),
            (std::vector<std::string>{"2026-11-27T00:50:00Z", "2026-11-27T00:55:00Z",
                                      "2026-11-27T01:50:00Z"}));
}

TEST(CronScheduleTest, NamesAndSundayAsSeven) {
  // 2026-11-27 is a Friday.
  EXPECT_EQ(nextIso("0 9 * * MON-fri", utc(2026, 11, 27, 9)), "2026-11-30T09:00:00Z");
  EXPECT_EQ(nextIso("0 9 * * 7", utc(2026, 11, 27)), "2026-11-29T09:00:00Z");
  EXPECT_EQ(nextIso("0 9 * * sun", utc(2026, 11, 27)), "2026-11-29T09:00:00Z");
  EXPECT_EQ(nextIso("0 9 * * 5-7", utc(2026, 11, 28, 10)), "2026-11-29T09:00:00Z");
  EXPECT_EQ(nextIso("0 0 1 Jan,jul *", utc(2026, 11, 27)), "2027-01-01T00:00:00Z");
}

TEST(CronScheduleTest, BothDayFieldsRestrictedMeansEither) {
  // The 13th, or any Friday: 2026-01-02 is a Friday.
  EXPECT_EQ(nextIso("0 0 13 * fri", utc(2026, 1, 1)), "2026-01-02T00:00:00Z");
  EXPECT_EQ(nextIso("0 0 13 * fri", utc(2026, 1, 12)), "2026-01-13T00:00:00Z");
  // One of them * : both must match, and * alone matches every day.
  EXPECT_EQ(nextIso("0 0 13 * *", utc(2026, 1, 1)), "2026-01-13T00:00:00Z");
  EXPECT_EQ(nextIso("0 0 * * fri", utc(2026, 1, 3)), "2026-01-09T00:00:00Z");
  EXPECT_EQ(nextIso("0 0 ? * fri", utc(2026, 1, 3)), "2026-01-09T00:00:00Z");
  // A step restricts: "*/10" days or Fridays.
  EXPECT_EQ(firings("0 0 */10 * fri", utc(2026, 1, 1), 3),
            (std::vector<std::string>{"2026-01-02T00:00:00Z", "2026-01-09T00:00:00Z",
                                      "2026-01-11T00:00:00Z"}));
}

TEST(CronScheduleTest, MacrosAreTheirFieldForms) {
  const struct {
    const char* macro;
    const char* fields;
  } cases[] = {{"@yearly", "0 0 1 1 *"},  {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
               {"@weekly", "0 0 * * 0"},  {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
               {"@hourly", "0 * * * *"}};
  for (const auto& c : cases) {
    EXPECT_EQ(firings(c.macro, utc(2026, 11, 27, 10, 17), 3),
              firings(c.fields, utc(2026, 11, 27, 10, 17), 3))
        << c.macro;
  }
  EXPECT_EQ(nextIso("@weekly", utc(2026, 11, 27)), "2026-11-29T00:00:00Z");
  EXPECT_EQ(nextIso("@hourly", utc(2026, 11, 27, 10, 17)), "2026-11-27T11:00:00Z");
}

TEST(CronScheduleTest, ErrorsNameTheField) {
  EXPECT_THAT(parseError("61 * * * *"), AllOf(HasSubstr("minute"), HasSubstr("0..59")));
  EXPECT_THAT(parseError("* 24 * * *"), AllOf(HasSubstr("hour"), HasSubstr("0..23")));
  EXPECT_THAT(parseError("* * 0 * *"), AllOf(HasSubstr("day-of-month"), HasSubstr("1..31")));
  EXPECT_THAT(parseError("* * * 13 *"), AllOf(HasSubstr("month"), HasSubstr("1..12")));
  EXPECT_THAT(parseError("* * * * 8"), AllOf(HasSubstr("day-of-week"), HasSubstr("0..7")));
  EXPECT_THAT(parseError("* * * foo *"), AllOf(HasSubstr("month"), HasSubstr("jan..dec")));
  EXPECT_THAT(parseError("* * * * funday"), AllOf(HasSubstr("day-of-week"), HasSubstr("sun..sat")));
  EXPECT_THAT(parseError("5-1 * * * *"), AllOf(HasSubstr("minute"), HasSubstr("ends before")));
  EXPECT_THAT(parseError("*/0 * * * *"), AllOf(HasSubstr("minute"), HasSubstr("step")));
  EXPECT_THAT(parseError("* */x * * *"), AllOf(HasSubstr("hour"), HasSubstr("not a number")));
  EXPECT_THAT(parseError("1,,2 * * * *"), HasSubstr("minute"));
  EXPECT_THAT(parseError("* ? * * *"), HasSubstr("hour"));  // ? only in the day fields
  EXPECT_THAT(parseError("* * * *"), HasSubstr("expected 5 fields"));
  EXPECT_THAT(parseError("0 * * * * *"), AllOf(HasSubstr("expected 5 fields"), HasSubstr("6")));
  EXPECT_THAT(parseError(""), HasSubstr("empty"));
}

TEST(CronScheduleTest, ZonePrefixesAndEveryPointToTimeZone) {
  EXPECT_THAT(parseError("TZ=Europe/Berlin 0 9 * * *"), HasSubstr("spec.timeZone"));
  EXPECT_THAT(parseError("CRON_TZ=UTC 0 9 * * *"), HasSubstr("spec.timeZone"));
  EXPECT_THAT(parseError("@every 5m"), AllOf(HasSubstr("@every"), HasSubstr("spec.timeZone")));
  EXPECT_THAT(parseError("@reboot"), HasSubstr("unknown macro"));
}

TEST(CronScheduleTest, ImpossibleDatesNeverFire) {
  const CronSchedule never = CronSchedule::parse("0 0 30 2 *");
  EXPECT_FALSE(never.canFire());
  EXPECT_FALSE(never.next(utc(2026, 1, 1), TimeZone::utc()).has_value());
  EXPECT_FALSE(CronSchedule::parse("0 0 31 4,6,9,11 *").canFire());
  // February 29 does come, every four years; the 31st skips short months.
  EXPECT_TRUE(CronSchedule::parse("0 0 29 2 *").canFire());
  EXPECT_EQ(nextIso("0 0 29 2 *", utc(2026, 1, 1)), "2028-02-29T00:00:00Z");
  EXPECT_EQ(nextIso("0 0 31 * *", utc(2026, 4, 1)), "2026-05-31T00:00:00Z");
  // With a weekday too, either matches, so it fires.
  EXPECT_TRUE(CronSchedule::parse("0 0 30 2 mon").canFire());
}

TEST(CronScheduleTest, SearchingYearsIsFast) {
  // Field-wise: skipping whole months and days, 200 searches over 5 years
  // each take far less than a second (minute by minute would be ~2.6 M steps each).
  const CronSchedule never = CronSchedule::parse("0 0 30 2 *");
  const TimeZone berlin = TimeZone::load("Europe/Berlin");
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) EXPECT_FALSE(never.next(utc(2026, 1, 1), berlin).has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(CronScheduleTest, TheSkippedHourDoesNotFire) {
  const TimeZone berlin = TimeZone::load("Europe/Berlin");
  // 29 March 2026: 02:00 CET jumps to 03:00 CEST (01:00 UTC); 02:30 is skipped that day.
  EXPECT_EQ(firings("30 2 * * *", utc(2026, 3, 27, 12), 3, berlin),
            (std::vector<std::string>{"2026-03-28T01:30:00Z", "2026-03-30T00:30:00Z",
                                      "2026-03-31T00:30:00Z"}));
  // Every 30 minutes: 01:30 CET, then 03:00 CEST.
  EXPECT_EQ(firings("*/30 * * * *", utc(2026, 3, 29, 0, 15), 3, berlin),
            (std::vector<std::string>{"2026-03-29T00:30:00Z", "2026-03-29T01:00:00Z",
                                      "2026-03-29T01:30:00Z"}));
  const TimeZone ny = TimeZone::load("America/New_York");
  // 8 March 2026 has no 02:00 in New York.
  EXPECT_EQ(firings("0 2 * * *", utc(2026, 3, 7, 12), 1, ny),
            (std::vector<std::string>{"2026-03-09T06:00:00Z"}));
}

TEST(CronScheduleTest, TheRepeatedHourFiresOnceAtItsFirstOccurrence) {
  const TimeZone berlin = TimeZone::load("Europe/Berlin");
  // 25 October 2026: 03:00 CEST goes back to 02:00 CET (01:00 UTC).
  EXPECT_EQ(firings("30 2 * * *", utc(2026, 10, 24, 12), 2, berlin),
            (std::vector<std::string>{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"}));
  EXPECT_EQ(firings("*/30 * * * *", utc(2026, 10, 24, 23, 45), 4, berlin),
            (std::vector<std::string>{"2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z",
                                      "2026-10-25T02:00:00Z", "2026-10-25T02:30:00Z"}));
  // From inside the second pass, the repeated times are behind us.
  EXPECT_EQ(nextIso("*/30 * * * *", utc(2026, 10, 25, 1, 10), berlin), "2026-10-25T02:00:00Z");
  // Lord Howe goes back half an hour: 02:00 +11 to 01:30 +10:30 on 5 April 2026.
  const TimeZone lordHowe = TimeZone::load("Australia/Lord_Howe");
  EXPECT_EQ(firings("45 1 * * *", utc(2026, 4, 4, 14), 2, lordHowe),
            (std::vector<std::string>{"2026-04-04T14:45:00Z", "2026-04-05T15:15:00Z"}));
}

TEST(CronScheduleTest, ZonesPastTheLastTransitionUseTheFooterRule) {
  const TimeZone berlin = TimeZone::load("Europe/Berlin");
  // 09:00 in Berlin: 08:00 UTC in winter, 07:00 UTC in summer, in 2045 as now.
  EXPECT_EQ(nextIso("0 9 * * *", utc(2045, 1, 10), berlin), "2045-01-10T08:00:00Z");
  EXPECT_EQ(nextIso("0 9 * * *", utc(2045, 7, 10), berlin), "2045-07-10T07:00:00Z");
  EXPECT_EQ(firings("30 2 * * *", utc(2045, 3, 25, 12), 2, berlin),
            (std::vector<std::string>{"2045-03-27T00:30:00Z", "2045-03-28T00:30:00Z"}));
}

}  // namespace
}  // namespace distbench::api
