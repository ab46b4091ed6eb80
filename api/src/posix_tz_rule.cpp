#include "posix_tz_rule.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "civil_time.h"

namespace distbench::api::detail {

// A cursor over the TZ string; each read returns false on malformed input.
class PosixTzParser {
 public:
  explicit PosixTzParser(const std::string& text) : s_(text) {}

  std::optional<PosixTzRule> parse() {
    PosixTzRule rule;
    if (!name() || !offset(rule.stdOffset_, 24)) return std::nullopt;
    if (done()) return rule;
    if (!name()) return std::nullopt;
    rule.hasDst_ = true;
    rule.dstOffset_ = rule.stdOffset_ + 3600;
    if (!done() && peek() != ',' && !offset(rule.dstOffset_, 24)) return std::nullopt;
    if (done()) {
      // POSIX leaves the default rule to the implementation; tzcode uses the US one.
      rule.start_ = {PosixTzRule::DateRule::Kind::MonthWeekDay, 3, 2, 0, 7200};
      rule.end_ = {PosixTzRule::DateRule::Kind::MonthWeekDay, 11, 1, 0, 7200};
      return rule;
    }
    if (!take(',') || !date(rule.start_) || !take(',') || !date(rule.end_) || !done()) {
      return std::nullopt;
    }
    return rule;
  }

 private:
  bool done() const { return i_ == s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  bool take(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }

  bool name() {
    const std::size_t begin = i_;
    if (take('<')) {
      while (!done() && peek() != '>') ++i_;
      return take('>') && i_ - begin > 2;
    }
    while (std::isalpha(static_cast<unsigned char>(peek()))) ++i_;
    return i_ - begin >= 3;
  }

  bool number(int64_t& out, int64_t max) {
    if (!std::isdigit(static_cast<unsigned char>(peek()))) return false;
    out = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      out = out * 10 + (s_[i_++] - '0');
      if (out > max) return false;
    }
    return true;
  }

  // [+-]hh[:mm[:ss]] in seconds.
  bool hms(int64_t& out, int64_t maxHours) {
    int64_t sign = 1;
    if (take('-')) {
      sign = -1;
    } else {
      take('+');
    }
    int64_t h = 0, m = 0, sec = 0;
    if (!number(h, maxHours)) return false;
    if (take(':')) {
      if (!number(m, 59)) return false;
      if (take(':') && !number(sec, 59)) return false;
    }
    out = sign * (h * 3600 + m * 60 + sec);
    return true;
  }

  // POSIX offsets count hours west of UTC: "CET-1" is one hour east.
  bool offset(int64_t& eastSeconds, int64_t maxHours) {
    int64_t west = 0;
    if (!hms(west, maxHours)) return false;
    eastSeconds = -west;
    return true;
  }

  bool date(PosixTzRule::DateRule& rule) {
    using Kind = PosixTzRule::DateRule::Kind;
    int64_t a = 0, b = 0, c = 0;
    if (take('M')) {
      if (!number(a, 12) || a < 1 || !take('.') || !number(b, 5) || b < 1 || !take('.') ||
          !number(c, 6)) {
        return false;
      }
      rule = {Kind::MonthWeekDay, static_cast<int>(a), static_cast<int>(b), static_cast<int>(c),
              7200};
    } else if (take('J')) {
      if (!number(a, 365) || a < 1) return false;
      rule = {Kind::Julian1, 0, 0, static_cast<int>(a), 7200};
    } else {
      if (!number(a, 365)) return false;
      rule = {Kind::Julian0, 0, 0, static_cast<int>(a), 7200};
    }
    // RFC 8536 allows -167..167 hours, for rules such as "DST all year".
    if (take('/') && !hms(rule.time, 167)) return false;
    return true;
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

std::optional<PosixTzRule> PosixTzRule::parse(const std::string& text) {
  return PosixTzParser(text).parse();
}

int64_t PosixTzRule::dayOf(const DateRule& rule, int64_t year) {
  const int64_t jan1 = daysFromCivil(year, 1, 1);
  switch (rule.kind) {
    case DateRule::Kind::Julian1:  // 1..365, February 29 never counted
      return jan1 + rule.day - 1 + (isLeapYear(year) && rule.day >= 60 ? 1 : 0);
    case DateRule::Kind::Julian0:  // 0..365, February 29 counted
      return jan1 + rule.day;
    case DateRule::Kind::MonthWeekDay:
      break;
  }
  const int64_t first = daysFromCivil(year, rule.month, 1);
  int64_t day = first + (rule.day - weekday(first) + 7) % 7 + 7 * (rule.week - 1);
  // Week 5 means the last such weekday of the month.
  while (day >= first + daysInMonth(year, rule.month)) day -= 7;
  return day;
}

int64_t PosixTzRule::offsetAt(int64_t t) const {
  if (!hasDst_) return stdOffset_;
  const int64_t year = civilFromDays(floorDiv(t + stdOffset_, kSecondsPerDay)).year;
  // The transitions of the years around t, in order; the last one at or
  // before t decides. Three years cover rules whose DST spans New Year.
  std::pair<int64_t, bool> transitions[6];
  int n = 0;
  for (int64_t y = year - 1; y <= year + 1; ++y) {
    // Start is given in standard time, end in daylight time.
    transitions[n++] = {dayOf(start_, y) * kSecondsPerDay + start_.time - stdOffset_, true};
    transitions[n++] = {dayOf(end_, y) * kSecondsPerDay + end_.time - dstOffset_, false};
  }
  std::sort(transitions, transitions + n);
  bool dst = false;
  for (const auto& [at, isDst] : transitions) {
    if (at > t) break;
    dst = isDst;
  }
  return dst ? dstOffset_ : stdOffset_;
}

}  // namespace distbench::api::detail
