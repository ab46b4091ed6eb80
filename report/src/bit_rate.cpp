#include "distbench/report/bit_rate.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace distbench::report {
namespace {

constexpr double kMaxBitsPerSecond = 10e12;

struct Unit {
  std::string_view name;
  double factor;
};
// Longest names first is not needed: a unit must match the whole suffix.
constexpr Unit kUnits[] = {{"", 1},          {"bit", 1},     {"bps", 1},     {"kbit", 1e3},
                           {"kbps", 1e3},    {"mbit", 1e6},  {"mbps", 1e6},  {"gbit", 1e9},
                           {"gbps", 1e9},    {"tbit", 1e12}, {"tbps", 1e12}};

std::string lower(const std::string& text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

double parseBitRate(const std::string& text) {
  const std::string t = lower(text);
  const char* begin = t.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  const auto fail = [&](const std::string& why) -> double {
    throw BitRateError("rate \"" + text + "\": " + why +
                       " (write it as tc does: 100mbit, 1gbit, 500kbit, or bits per second)");
  };
  if (end == begin || t.empty() || std::isspace(static_cast<unsigned char>(t[0]))) {
    return fail("not a number");
  }
  const std::string_view unit(end);
  for (const Unit& u : kUnits) {
    if (unit != u.name) continue;
    if (!std::isfinite(number) || number <= 0) return fail("must be more than zero");
    const double rate = number * u.factor;
    if (rate > kMaxBitsPerSecond) return fail("over 10tbit");
    return rate;
  }
  return fail("unknown unit \"" + std::string(unit) + "\"");
}

std::string formatBitRate(double bitsPerSecond) {
  constexpr Unit kPrinted[] = {{"tbit", 1e12}, {"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}};
  for (const Unit& u : kPrinted) {
    if (bitsPerSecond >= u.factor) {
      char out[48];
      std::snprintf(out, sizeof out, "%.4g%s", bitsPerSecond / u.factor, u.name.data());
      return out;
    }
  }
  char out[48];
  std::snprintf(out, sizeof out, "%.4gbit", bitsPerSecond);
  return out;
}

}  // namespace distbench::report
