// Numbers as the report page prints them in tables and captions. The charts
// format their own (d3-format, in the specs).
#pragma once

#include <string>

namespace distbench::cli {

// In the unit that keeps 3-4 significant digits readable: "0.529 s",
// "28.4 ms", "312 µs".
std::string formatDuration(double seconds);

// `perSecond` of `workUnit` ("examples": "131.2 ex/s"; "bytes": "1.31 GB/s").
std::string formatRate(double perSecond, const std::string& workUnit);

// A change in percent, signed: "+2.8%", "-0.3%".
std::string formatChange(double percent);

// Up to `significant` digits, no exponent for everyday magnitudes: "25", "0.05".
std::string formatNumber(double value, int significant = 6);

}  // namespace distbench::cli
