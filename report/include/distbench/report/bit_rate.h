// Link rates as people and tc write them: "100mbit", "1gbit", "500kbit",
// "1e9" (bits per second). One parser for every place that takes a rate
// (`distbench run --links`, `distbench predict --bandwidth`), so the two
// cannot disagree on what "1gbit" means. Decimal prefixes, as tc and
// network vendors use them: 1mbit = 1,000,000 bit/s.
#pragma once

#include <stdexcept>
#include <string>

namespace distbench::report {

struct BitRateError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Bits per second. Accepts a positive number with an optional unit: bit,
// kbit, mbit, gbit, tbit (case-insensitive; "bps", "kbps", ... too, meaning
// the same). Throws BitRateError naming the text for anything else, zero,
// or a rate above 10 tbit.
double parseBitRate(const std::string& text);

// "100mbit", "1.5gbit", "800kbit": the largest unit that keeps the number
// at least 1, as tc prints rates. Inverse of parseBitRate up to rounding.
std::string formatBitRate(double bitsPerSecond);

}  // namespace distbench::report
