#include "distbench/api/cron_schedule.h"

#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "civil_time.h"

namespace distbench::api {
namespace {

struct FieldSpec {
  const char* name;
  int min;
  int max;  // day-of-week: 7, read as 0
  std::vector<const char*> names;  // names[i] is min + i
  bool questionMark;               // `?` allowed, as `*`
};

const FieldSpec kMinute{"minute", 0, 59, {}, false};
const FieldSpec kHour{"hour", 0, 23, {}, false};
const FieldSpec kDayOfMonth{"day-of-month", 1, 31, {}, true};
const FieldSpec kMonth{"month",
                       1,
                       12,
                       {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                        "dec"},
                       false};
const FieldSpec kDayOfWeek{
    "day-of-week", 0, 7, {"sun", "mon", "tue", "wed", "thu", "fri", "sat"}, true};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? at : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class FieldParser {
 public:
  FieldParser(const FieldSpec& spec, const std::string& text) : spec_(spec), text_(text) {}

  // Bits min..max (day-of-week 7 folded onto 0); `any` tells whether a part
  // covered the whole field with step 1.
  std::vector<bool> parse(bool& any) {
    std::vector<bool> bits(static_cast<std::size_t>(spec_.max) + 1, false);
    any = false;
    for (const std::string& part : split(text_, ',')) {
      const std::vector<std::string> rangeAndStep = split(part, '/');
      if (rangeAndStep.size() > 2) fail("\"" + part + "\" has more than one '/'");
      const std::string& range = rangeAndStep[0];
      int start, end;
      bool star = false;
      if (range == "*" || (spec_.questionMark && range == "?")) {
        start = spec_.min;
        end = spec_.max == 7 ? 6 : spec_.max;
        star = true;
      } else {
        const std::vector<std::string> lowHigh = split(range, '-');
        if (lowHigh.size() > 2) fail("\"" + part + "\" has more than one '-'");
        start = value(lowHigh[0]);
        end = lowHigh.size() == 2 ? value(lowHigh[1]) : start;
        // "a/n" runs from a to the end of the field.
        if (rangeAndStep.size() == 2 && lowHigh.size() == 1) end = spec_.max;
        if (start > end) fail("range \"" + range + "\" ends before it starts");
      }
      int step = 1;
      if (rangeAndStep.size() == 2) {
        step = number(rangeAndStep[1], "step");
        if (step < 1) fail("step \"" + rangeAndStep[1] + "\" must be at least 1");
      }
      if (star && step == 1) any = true;
      for (int v = start; v <= end; v += step) bits[static_cast<std::size_t>(v)] = true;
    }
    return bits;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument(std::string(spec_.name) + " field \"" + text_ + "\": " + why);
  }

  int number(const std::string& text, const char* what) const {
    if (text.empty() || text.size() > 4) fail(std::string("empty or too long ") + what);
    int v = 0;
    for (char c : text) {
      if (!std::isdigit(static_cast<unsigned char>(c))) {
        fail(std::string(what) + " \"" + text + "\" is not a number");
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  int value(const std::string& text) const {
    const std::string name = lower(text);
    for (std::size_t i = 0; i < spec_.names.size(); ++i) {
      if (name == spec_.names[i]) return spec_.min + static_cast<int>(i);
    }
    if (!text.empty() && !std::isdigit(static_cast<unsigned char>(text[0]))) {
      fail("\"" + text + "\" is not a number" +
           (spec_.names.empty() ? std::string() : " or a name (" + namesList() + ")"));
    }
    const int v = number(text, "value");
    if (v < spec_.min || v > spec_.max) {
      fail(text + " is out of range " + std::to_string(spec_.min) + ".." +
           std::to_string(spec_.max));
    }
    return v;
  }

  std::string namesList() const {
    return std::string(spec_.names.front()) + ".." + spec_.names.back();
  }

  const FieldSpec& spec_;
  const std::string& text_;
};

template <std::size_t N>
std::bitset<N> toBits(const std::vector<bool>& bits) {
  std::bitset<N> out;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) out.set(i % N);  // day-of-week 7 -> 0
  }
  return out;
}

std::string trim(const std::string& s) {
  const std::size_t begin = s.find_first_not_of(" \t\n\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\n\r") - begin + 1);
}

std::string expandMacro(const std::string& expression) {
  const std::string macro = lower(expression);
  if (macro == "@yearly" || macro == "@annually") return "0 0 1 1 *";
  if (macro == "@monthly") return "0 0 1 * *";
  if (macro == "@weekly") return "0 0 * * 0";
  if (macro == "@daily" || macro == "@midnight") return "0 0 * * *";
  if (macro == "@hourly") return "0 * * * *";
  if (macro.rfind("@every", 0) == 0) {
    throw std::invalid_argument(
        "@every is not supported: write the interval as 5 fields (\"*/10 * * * *\" for every 10 "
        "minutes), on the wall clock of spec.timeZone");
  }
  throw std::invalid_argument("unknown macro \"" + expression +
                              "\": use @yearly, @annually, @monthly, @weekly, @daily, @midnight "
                              "or @hourly");
}

}  // namespace

CronSchedule CronSchedule::parse(const std::string& text) {
  CronSchedule schedule;
  schedule.expression_ = text;
  std::string expression = trim(text);
  if (expression.empty()) throw std::invalid_argument("empty: expected 5 fields");
  if (expression.rfind("TZ=", 0) == 0 || expression.rfind("CRON_TZ=", 0) == 0) {
    throw std::invalid_argument(
        "a TZ= or CRON_TZ= prefix is not supported: set the zone in spec.timeZone");
  }
  if (expression[0] == '@') expression = expandMacro(expression);

  std::vector<std::string> fields;
  std::size_t at = 0;
  while (at < expression.size()) {
    const std::size_t end = expression.find_first_of(" \t", at);
    if (end != at) fields.push_back(expression.substr(at, end == std::string::npos ? end : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  if (fields.size() != 5) {
    throw std::invalid_argument("expected 5 fields (minute hour day-of-month month day-of-week), "
                                "found " + std::to_string(fields.size()));
  }
  bool any = false;
  schedule.minutes_ = toBits<60>(FieldParser(kMinute, fields[0]).parse(any));
  schedule.hours_ = toBits<24>(FieldParser(kHour, fields[1]).parse(any));
  schedule.daysOfMonth_ = toBits<32>(FieldParser(kDayOfMonth, fields[2]).parse(schedule.anyDayOfMonth_));
  schedule.months_ = toBits<13>(FieldParser(kMonth, fields[3]).parse(any));
  schedule.daysOfWeek_ = toBits<7>(FieldParser(kDayOfWeek, fields[4]).parse(schedule.anyDayOfWeek_));
  return schedule;
}

bool CronSchedule::dayMatches(int64_t dayNumber) const {
  const bool dom = daysOfMonth_[static_cast<std::size_t>(detail::civilFromDays(dayNumber).day)];
  const bool dow = daysOfWeek_[static_cast<std::size_t>(detail::weekday(dayNumber))];
  return anyDayOfMonth_ || anyDayOfWeek_ ? dom && dow : dom || dow;
}

bool CronSchedule::canFire() const {
  // With a weekday restriction some day of every month matches (OR), or
  // every weekday is allowed and the day-of-month decides alone.
  if (!anyDayOfWeek_ && !anyDayOfMonth_) return true;
  if (anyDayOfMonth_) return daysOfWeek_.any();
  for (int month = 1; month <= 12; ++month) {
    if (!months_[static_cast<std::size_t>(month)]) continue;
    const int longest = month == 2 ? 29 : detail::daysInMonth(2001, month);
    for (int day = 1; day <= longest; ++day) {
      if (daysOfMonth_[static_cast<std::size_t>(day)]) return true;
    }
  }
  return false;
}

std::optional<SystemTime> CronSchedule::next(SystemTime after, const TimeZone& zone) const {
  using detail::kSecondsPerDay;
  const int64_t start = detail::floorDiv(zone.toLocal(after), 60) * 60 + 60;
  const int64_t limit = start + (5 * 365 + 2) * kSecondsPerDay;
  // Walk the wall clock field by field: a month, day or hour that does not
  // match is skipped whole, so a search over years takes a few thousand
  // steps at most.
  for (int64_t local = start; local <= limit;) {
    const int64_t day = detail::floorDiv(local, kSecondsPerDay);
    const int64_t secondOfDay = local - day * kSecondsPerDay;
    const detail::CivilDate date = detail::civilFromDays(day);
    if (!months_[static_cast<std::size_t>(date.month)]) {
      const bool december = date.month == 12;
      local = detail::daysFromCivil(date.year + (december ? 1 : 0), december ? 1 : date.month + 1, 1) *
              kSecondsPerDay;
      continue;
    }
    if (!dayMatches(day)) {
      local = (day + 1) * kSecondsPerDay;
      continue;
    }
    const int64_t hour = secondOfDay / 3600;
    const int64_t nextHour = day * kSecondsPerDay + (hour + 1) * 3600;
    if (!hours_[static_cast<std::size_t>(hour)]) {
      local = nextHour;
      continue;
    }
    std::size_t minute = static_cast<std::size_t>((secondOfDay % 3600) / 60);
    while (minute < 60 && !minutes_[minute]) ++minute;
    if (minute == 60) {
      local = nextHour;
      continue;
    }
    local = day * kSecondsPerDay + hour * 3600 + static_cast<int64_t>(minute) * 60;
    // A wall-clock time in a gap has no instant; one in an overlap fires at
    // its first instant only, and not at all if that was not after `after`.
    const std::vector<SystemTime> instants = zone.fromLocal(local);
    if (!instants.empty() && instants.front() > after) return instants.front();
    local += 60;
  }
  return std::nullopt;
}

}  // namespace distbench::api
