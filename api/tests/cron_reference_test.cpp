// CronSchedule::next against a brute-force reference: random expressions,
// built from value sets so the reference needs no parser, checked minute by
// minute (UTC) over windows around DST changes in several zones. The
// reference fires at instant U when U's wall-clock time matches and no
// earlier instant within two hours showed the same wall-clock time (the
// first occurrence); it uses only TimeZone::toLocal.
#include <gtest/gtest.h>

#include <ctime>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "distbench/api/cron_schedule.h"
#include "utc_time.h"

namespace distbench::api {
namespace {

using test::iso;
using test::utc;

struct Field {
  std::string text;
  std::set<int> values;
  bool star;  // "*" or "*/1": the day fields' AND/OR rule
};

Field randomField(std::mt19937& rng, int min, int max, bool allowStar = true) {
  std::uniform_int_distribution<int> kind(0, 3), value(min, max);
  Field f;
  switch (allowStar ? kind(rng) : 2 + kind(rng) % 2) {
    case 0:
      f.text = "*";
      f.star = true;
      for (int v = min; v <= max; ++v) f.values.insert(v);
      break;
    case 1: {
      const int step = std::uniform_int_distribution<int>(2, 7)(rng);
      f.text = "*/" + std::to_string(step);
      f.star = false;
      for (int v = min; v <= max; v += step) f.values.insert(v);
      break;
    }
    case 2: {
      const int a = value(rng), b = value(rng);
      f.text = std::to_string(std::min(a, b)) + "-" + std::to_string(std::max(a, b));
      f.star = false;
      for (int v = std::min(a, b); v <= std::max(a, b); ++v) f.values.insert(v);
      break;
    }
    default: {
      f.star = false;
      const int n = std::uniform_int_distribution<int>(1, 3)(rng);
      for (int i = 0; i < n; ++i) {
        const int v = value(rng);
        f.text += (i ? "," : "") + std::to_string(v);
        f.values.insert(v);
      }
    }
  }
  return f;
}

struct Expression {
  Field minute, hour, dom, month, dow;
  std::string text() const {
    return minute.text + " " + hour.text + " " + dom.text + " " + month.text + " " + dow.text;
  }
  bool matches(LocalSeconds local) const {
    const std::time_t t = static_cast<std::time_t>(local);
    std::tm tm{};
    gmtime_r(&t, &tm);
    if (!minute.values.count(tm.tm_min) || !hour.values.count(tm.tm_hour) ||
        !month.values.count(tm.tm_mon + 1)) {
      return false;
    }
    const bool d = dom.values.count(tm.tm_mday) > 0;
    const bool w = dow.values.count(tm.tm_wday) > 0;
    return dom.star || dow.star ? d && w : d || w;
  }
};

std::optional<SystemTime> reference(const Expression& e, SystemTime after, const TimeZone& zone,
                                    int64_t windowMinutes) {
  const int64_t start = toUnixSeconds(after) / 60 * 60 + 60;
  for (int64_t u = start; u < start + windowMinutes * 60; u += 60) {
    const LocalSeconds local = zone.toLocal(fromUnixSeconds(u));
    if (!e.matches(local)) continue;
    bool first = true;
    for (int64_t back = 60; back <= 2 * 3600 && first; back += 60) {
      if (zone.toLocal(fromUnixSeconds(u - back)) == local) first = false;
    }
    if (first) return fromUnixSeconds(u);
  }
  return std::nullopt;
}

TEST(CronReferenceTest, RandomExpressionsAroundDstChangesMatchBruteForce) {
  std::mt19937 rng(20261127);
  const struct {
    const char* zone;
    SystemTime change;  // a DST change in that zone
  } windows[] = {
      {"Europe/Berlin", utc(2026, 3, 29, 1)},        {"Europe/Berlin", utc(2026, 10, 25, 1)},
      {"America/New_York", utc(2026, 3, 8, 7)},      {"America/New_York", utc(2026, 11, 1, 6)},
      {"Australia/Lord_Howe", utc(2026, 4, 4, 15)},  {"Australia/Lord_Howe", utc(2026, 10, 3, 15, 30)},
      {"Europe/Berlin", utc(2045, 10, 29, 1)},       {"UTC", utc(2026, 12, 31, 23)},
  };
  int compared = 0, fired = 0;
  for (const auto& w : windows) {
    const TimeZone zone = TimeZone::load(w.zone);
    for (int i = 0; i < 40; ++i) {
      Expression e{randomField(rng, 0, 59), randomField(rng, 0, 23), randomField(rng, 1, 31),
                   Field{"*", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, true},
                   randomField(rng, 0, 6)};
      // Start somewhere in the 6 hours before the change; look 2 days ahead.
      const SystemTime after =
          w.change - std::chrono::seconds(std::uniform_int_distribution<int>(0, 6 * 3600)(rng));
      const int64_t window = 2 * 24 * 60;
      const std::optional<SystemTime> expected = reference(e, after, zone, window);
      const std::optional<SystemTime> actual = CronSchedule::parse(e.text()).next(after, zone);
      if (expected) {
        ASSERT_TRUE(actual.has_value()) << e.text() << " in " << w.zone << " after " << iso(after);
        EXPECT_EQ(iso(*actual), iso(*expected))
            << e.text() << " in " << w.zone << " after " << iso(after);
        ++fired;
      } else if (actual) {
        // Nothing within the window: next() must be beyond it.
        EXPECT_GE(*actual, after + std::chrono::minutes(window))
            << e.text() << " in " << w.zone << " after " << iso(after);
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 320);
  EXPECT_GT(fired, 160);  // most fire within two days, so the comparison has teeth
}

}  // namespace
}  // namespace distbench::api
