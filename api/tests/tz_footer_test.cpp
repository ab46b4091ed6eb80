// The POSIX TZ rule of a TZif footer, on files made here with no
// transitions at all, so every instant goes through the rule: quoted names,
// explicit DST offsets, Julian days, southern-hemisphere DST, the default
// rule, and footers the reader must refuse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "distbench/api/time_zone.h"
#include "utc_time.h"

namespace distbench::api {
namespace {

using test::utc;

std::string bigEndian32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// A version 2 TZif file with one time type and no transitions.
std::string tzif(int32_t offset, const std::string& footer) {
  auto header = [] {
    return std::string("TZif2") + std::string(15, '\0') + bigEndian32(0) + bigEndian32(0) +
           bigEndian32(0) + bigEndian32(0) + bigEndian32(1) + bigEndian32(4);
  };
  const std::string block = bigEndian32(static_cast<uint32_t>(offset)) + std::string(1, '\0') +
                            std::string(1, '\0') + std::string("ZZZ\0", 4);
  return header() + block + header() + block + "\n" + footer + "\n";
}

// A fresh directory under the system's temporary one, removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tzfooter-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class TzFooter : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("TZDIR");
    if (old) saved_ = old;
    setenv("TZDIR", dir_.path().c_str(), 1);
  }
  void TearDown() override {
    if (saved_) {
      setenv("TZDIR", saved_->c_str(), 1);
    } else {
      unsetenv("TZDIR");
    }
  }
  TimeZone zone(const std::string& footer, int32_t offset = 0) {
    std::ofstream(dir_.path() + "/Test", std::ios::binary) << tzif(offset, footer);
    return TimeZone::load("Test");
  }

  ScratchDir dir_;
  std::optional<std::string> saved_;
};

TEST_F(TzFooter, QuotedNamesAndHalfHourOffsets) {
  const TimeZone z = zone("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0");
  EXPECT_EQ(z.offsetAt(utc(2030, 1, 15)), 11 * 3600);
  EXPECT_EQ(z.offsetAt(utc(2030, 7, 15)), 10 * 3600 + 1800);
  // DST ends 02:00 daylight time, first Sunday of April 2030 (the 7th).
  EXPECT_EQ(z.offsetAt(utc(2030, 4, 6, 14, 59)), 11 * 3600);
  EXPECT_EQ(z.offsetAt(utc(2030, 4, 6, 15)), 10 * 3600 + 1800);
}

TEST_F(TzFooter, SouthernHemisphereDaylightTimeSpansNewYear) {
  const TimeZone sydney = zone("AEST-10AEDT,M10.1.0,M4.1.0/3");
  EXPECT_EQ(sydney.offsetAt(utc(2031, 1, 1)), 11 * 3600);
  EXPECT_EQ(sydney.offsetAt(utc(2031, 12, 31)), 11 * 3600);
  EXPECT_EQ(sydney.offsetAt(utc(2031, 6, 30)), 10 * 3600);
}

TEST_F(TzFooter, DefaultDstOffsetAndRule) {
  // No rule: the US one (second Sunday of March to first of November),
  // and no DST offset: one hour ahead of standard.
  const TimeZone ny = zone("EST5EDT");
  EXPECT_EQ(ny.offsetAt(utc(2033, 1, 10)), -5 * 3600);
  EXPECT_EQ(ny.offsetAt(utc(2033, 7, 10)), -4 * 3600);
  // Second Sunday of March 2033 is the 13th: 02:00 EST is 07:00 UTC.
  EXPECT_EQ(ny.offsetAt(utc(2033, 3, 13, 6, 59)), -5 * 3600);
  EXPECT_EQ(ny.offsetAt(utc(2033, 3, 13, 7)), -4 * 3600);
}

TEST_F(TzFooter, JulianDays) {
  // J60 is 1 March in every year (February 29 not counted); 60 (zero-based,
  // counted) is 1 March in a leap year and 2 March otherwise.
  const TimeZone j1 = zone("<-03>3<-02>,J60/0,J300/0");
  EXPECT_EQ(j1.offsetAt(utc(2032, 2, 29, 12)), -3 * 3600);
  EXPECT_EQ(j1.offsetAt(utc(2032, 3, 1, 3)), -2 * 3600);
  const TimeZone j0 = zone("<-03>3<-02>,60/0,300/0");
  EXPECT_EQ(j0.offsetAt(utc(2031, 3, 1, 12)), -3 * 3600);
  EXPECT_EQ(j0.offsetAt(utc(2031, 3, 2, 3)), -2 * 3600);
  EXPECT_EQ(j0.offsetAt(utc(2032, 3, 1, 3)), -2 * 3600);
}

TEST_F(TzFooter, NoFooterMeansTheOnlyType) {
  EXPECT_EQ(zone("", 5 * 3600 + 45 * 60).offsetAt(utc(2040, 6, 1)), 5 * 3600 + 45 * 60);
  EXPECT_EQ(zone("<+0545>-5:45").offsetAt(utc(2040, 6, 1)), 5 * 3600 + 45 * 60);
}

TEST_F(TzFooter, MalformedFootersAndFilesAreRefused) {
  for (const char* footer : {"garbage", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.5.0",
                             "CE-1", "CET-1CEST,M3.5.0,M10.5.0/200"}) {
    EXPECT_THROW(zone(footer), std::invalid_argument) << footer;
  }
  std::ofstream(dir_.path() + "/Short", std::ios::binary) << "TZif2";
  EXPECT_THROW(TimeZone::load("Short"), std::invalid_argument);
}

}  // namespace
}  // namespace distbench::api
