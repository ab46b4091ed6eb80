// The POSIX TZ string of a TZif footer (RFC 8536 section 3.3), e.g.
// "CET-1CEST,M3.5.0,M10.5.0/3": the rule a zone follows after its last
// listed transition. Internal to distbench_api.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace distbench::api::detail {

class PosixTzRule {
 public:
  // nullopt when `text` is not a TZ string this reader understands.
  static std::optional<PosixTzRule> parse(const std::string& text);
  // Seconds east of UTC at Unix time `t`.
  int64_t offsetAt(int64_t t) const;

 private:
  struct DateRule {
    enum class Kind { Julian1, Julian0, MonthWeekDay } kind = Kind::MonthWeekDay;
    int month = 0, week = 0, day = 0;  // MonthWeekDay: Mm.w.d; the Julian forms use day
    int64_t time = 7200;               // seconds after local midnight, may be negative or > 24h
  };
  // Unix day number of the rule's date in `year`.
  static int64_t dayOf(const DateRule& rule, int64_t year);

  int64_t stdOffset_ = 0;
  bool hasDst_ = false;
  int64_t dstOffset_ = 0;
  DateRule start_, end_;

  friend class PosixTzParser;
};

}  // namespace distbench::api::detail
