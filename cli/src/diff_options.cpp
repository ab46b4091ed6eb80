#include "distbench/cli/diff_options.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "distbench/api/regression_threshold.h"

namespace distbench::cli {
namespace {

std::vector<int> parsePercentiles(const std::string& text) {
  const std::string error =
      "--percentiles needs whole numbers 0-100 separated by commas, not '" + text + "'";
  std::vector<int> percentiles;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    errno = 0;
    const long p = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || p < 0 || p > 100) throw UsageError(error);
    percentiles.push_back(static_cast<int>(p));
    if (comma == std::string::npos) return percentiles;
    start = comma + 1;
  }
}

uint64_t parseSeed(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long seed = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0) {
    throw UsageError("--seed needs a whole number >= 0, not '" + text + "'");
  }
  return seed;
}

}  // namespace

std::vector<FlagSpec> diffOptionFlags() {
  return {{"--percentiles", true},
          {"--threshold", true},
          {"--confidence", true},
          {"--resamples", true},
          {"--seed", true}};
}

report::DiffOptions diffOptionsFrom(const ParsedArgs& parsed) {
  report::DiffOptions options;
  if (auto text = parsed.value("--percentiles")) options.percentiles = parsePercentiles(*text);
  if (auto text = parsed.value("--threshold")) {
    const double pct = parseNumberFlag("--threshold", *text, "a percentage >= 0");
    if (!api::isRegressionThresholdPercent(pct)) throw UsageError("--threshold needs a percentage >= 0, not '" + *text + "'");
    options.thresholdPercent = pct;
  }
  if (auto text = parsed.value("--confidence")) {
    const std::string what = "a confidence between 0 and 1 (0.95 for 95%)";
    const double c = parseNumberFlag("--confidence", *text, what);
    if (!(c > 0 && c < 1)) throw UsageError("--confidence needs " + what + ", not '" + *text + "'");
    options.bootstrap.confidence = c;
  }
  if (auto text = parsed.value("--resamples")) {
    const int n = parseNonNegativeIntFlag("--resamples", *text);
    if (n < 1) throw UsageError("--resamples needs a whole number >= 1, not '" + *text + "'");
    options.bootstrap.resamples = n;
  }
  if (auto text = parsed.value("--seed")) options.bootstrap.seed = parseSeed(*text);
  return options;
}

}  // namespace distbench::cli
