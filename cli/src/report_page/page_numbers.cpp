#include "distbench/cli/report_page/page_numbers.h"

#include <cmath>
#include <cstdio>

namespace distbench::cli {
namespace {

std::string printed(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// 3 significant digits, at least the integer part. The thresholds are where
// rounding carries into another digit, so 99.97 prints "100", not "100.0".
std::string threeDigits(double value, const char* unit) {
  const double magnitude = std::fabs(value);
  const char* format = magnitude >= 99.95 ? "%.0f %s" : magnitude >= 9.995 ? "%.1f %s" : "%.2f %s";
  char text[64];
  std::snprintf(text, sizeof text, format, value, unit);
  return text;
}

}  // namespace

std::string formatDuration(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  const double magnitude = std::fabs(seconds);
  if (magnitude >= 0.9995 || magnitude == 0) return printed("%.3f s", seconds);
  if (magnitude >= 0.9995e-3) return threeDigits(seconds * 1e3, "ms");
  return threeDigits(seconds * 1e6, "µs");
}

std::string formatRate(double perSecond, const std::string& workUnit) {
  if (!std::isfinite(perSecond)) return "n/a";
  if (workUnit == "bytes") return printed("%.3g GB/s", perSecond / 1e9);
  return printed("%.1f ex/s", perSecond);
}

std::string formatChange(double percent) {
  if (!std::isfinite(percent)) return "n/a";
  return printed("%+.1f%%", percent);
}

std::string formatNumber(double value, int significant) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", significant, value);
  return text;
}

}  // namespace distbench::cli
