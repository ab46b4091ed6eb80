#include "distbench/worker/hybrid/wire_limits.h"

#include <stdexcept>

namespace distbench::worker {

int64_t checkedMul(int64_t a, int64_t b, const std::string& what) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) {
    throw std::overflow_error(what + " overflows 64 bits (" + std::to_string(a) + " × " +
                              std::to_string(b) + ")");
  }
  return out;
}

int64_t checkedAdd(int64_t a, int64_t b, const std::string& what) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) {
    throw std::overflow_error(what + " overflows 64 bits (" + std::to_string(a) + " + " +
                              std::to_string(b) + ")");
  }
  return out;
}

void checkRange(const std::string& field, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    throw std::invalid_argument(field + " = " + std::to_string(value) + ": must be " +
                                std::to_string(lo) + ".." + std::to_string(hi));
  }
}

}  // namespace distbench::worker
