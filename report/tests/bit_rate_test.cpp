#include "distbench/report/bit_rate.h"

#include <gtest/gtest.h>

namespace distbench::report {
namespace {

TEST(BitRate, UnitsAreDecimalAsTcWritesThem) {
  EXPECT_DOUBLE_EQ(parseBitRate("100mbit"), 100e6);
  EXPECT_DOUBLE_EQ(parseBitRate("1gbit"), 1e9);
  EXPECT_DOUBLE_EQ(parseBitRate("1GBit"), 1e9);
  EXPECT_DOUBLE_EQ(parseBitRate("500kbit"), 500e3);
  EXPECT_DOUBLE_EQ(parseBitRate("2.5gbps"), 2.5e9);
  EXPECT_DOUBLE_EQ(parseBitRate("1e9"), 1e9);
  EXPECT_DOUBLE_EQ(parseBitRate("9600bit"), 9600);
}

TEST(BitRate, NonsenseIsRefusedNamingTheText) {
  for (const char* bad : {"", "fast", "100mb", "100 mbit", " 1gbit", "0mbit", "-5mbit",
                          "nanmbit", "infgbit", "20tbit", "1gbit/s"}) {
    try {
      parseBitRate(bad);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const BitRateError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("\"") + bad + "\""), std::string::npos)
          << e.what();
    }
  }
}

TEST(BitRate, FormatPicksTheLargestWholeUnitAndParsesBack) {
  EXPECT_EQ(formatBitRate(100e6), "100mbit");
  EXPECT_EQ(formatBitRate(1.5e9), "1.5gbit");
  EXPECT_EQ(formatBitRate(800e3), "800kbit");
  EXPECT_EQ(formatBitRate(12), "12bit");
  for (double rate : {50e6, 200e6, 800e6, 1e9, 2.5e10}) {
    EXPECT_DOUBLE_EQ(parseBitRate(formatBitRate(rate)), rate);
  }
}

}  // namespace
}  // namespace distbench::report
