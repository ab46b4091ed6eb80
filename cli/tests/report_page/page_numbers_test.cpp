#include "distbench/cli/report_page/page_numbers.h"

#include <gtest/gtest.h>

#include <cmath>

namespace distbench::cli {
namespace {

TEST(FormatDuration, KeepsThreeOrFourDigitsInTheUnitThatFits) {
  EXPECT_EQ(formatDuration(1.5), "1.500 s");
  EXPECT_EQ(formatDuration(0.0723), "72.3 ms");
  EXPECT_EQ(formatDuration(0.00999), "9.99 ms");
  EXPECT_EQ(formatDuration(0.0000312), "31.2 µs");
  EXPECT_EQ(formatDuration(0), "0.000 s");
  EXPECT_EQ(formatDuration(NAN), "n/a");
}

// Where rounding carries into another digit, the column keeps one width:
// "100 ms" beside "100 ms", never "100.0 ms".
TEST(FormatDuration, RoundsAcrossDigitBoundariesLikeTheValueItRoundsTo) {
  EXPECT_EQ(formatDuration(0.09997), "100 ms");
  EXPECT_EQ(formatDuration(0.1), "100 ms");
  EXPECT_EQ(formatDuration(0.0999), "99.9 ms");
  EXPECT_EQ(formatDuration(0.0009996), "1.00 ms");
  EXPECT_EQ(formatDuration(0.9996), "1.000 s");
}

TEST(FormatRate, ExamplesPerSecondOrGigabytesPerSecond) {
  EXPECT_EQ(formatRate(131.24, "examples"), "131.2 ex/s");
  EXPECT_EQ(formatRate(1.31e9, "bytes"), "1.31 GB/s");
  EXPECT_EQ(formatRate(1575595.5, "bytes"), "0.00158 GB/s");
}

TEST(FormatChange, IsSigned) {
  EXPECT_EQ(formatChange(2.84), "+2.8%");
  EXPECT_EQ(formatChange(-0.31), "-0.3%");
  EXPECT_EQ(formatChange(INFINITY), "n/a");
}

}  // namespace
}  // namespace distbench::cli
