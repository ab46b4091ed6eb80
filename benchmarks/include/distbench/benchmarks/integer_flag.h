// The benchmark binaries' integer flags: a whole decimal integer in
// [minimum, maximum], or the binary's own usage error (exit 2) naming the
// flag. Header-only, templated on that error type, so the binaries share the
// check and its messages without a library.
#pragma once

#include <exception>
#include <string>

namespace distbench::bench {

template <typename UsageError>
long long integerFlag(const std::string& flag, const std::string& text, long long minimum,
                      long long maximum) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) throw UsageError(flag + ": not an integer: '" + text + "'");
  if (v < minimum || v > maximum)
    throw UsageError(flag + " must be between " + std::to_string(minimum) + " and " +
                     std::to_string(maximum));
  return v;
}

}  // namespace distbench::bench
