#include "distbench/kube/rfc3339.h"

#include <cstdio>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace distbench::kube {

std::string formatRfc3339(SystemTime t, int fractionDigits) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  if (fractionDigits > 0) {
    const long long micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                 t - std::chrono::system_clock::from_time_t(seconds))
                                 .count();
    char fraction[24];  // room for any long long, though micros is < 10^6
    std::snprintf(fraction, sizeof fraction, "%06lld", micros);
    n += std::snprintf(text + n, sizeof text - n, ".%.*s", fractionDigits > 6 ? 6 : fractionDigits,
                       fraction);
  }
  std::snprintf(text + n, sizeof text - n, "Z");
  return text;
}

std::optional<SystemTime> parseRfc3339(const std::string& text) {
  std::tm utc{};
  std::istringstream in(text);
  in >> std::get_time(&utc, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return std::nullopt;
  std::string rest;
  in >> rest;
  if (rest.empty() || rest.back() != 'Z') return std::nullopt;
  double fraction = 0;
  if (rest.size() > 1) {
    if (rest[0] != '.') return std::nullopt;
    try {
      fraction = std::stod("0" + rest.substr(0, rest.size() - 1));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::chrono::system_clock::from_time_t(timegm(&utc)) +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             std::chrono::duration<double>(fraction));
}

}  // namespace distbench::kube
