// The error collector of validation: each check appends "field: message"
// and goes on, so one pass reports everything wrong with a document. One
// class for both documents (spec_validation.cpp, schedule_validation.cpp), so
// a bound is worded alike wherever it is checked. Internal to distbench_api.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "distbench/api/spec_error.h"

namespace distbench::api::detail {

class FieldErrors {
 public:
  void fail(std::string field, std::string message) {
    errors_.push_back({std::move(field), std::move(message)});
  }
  template <typename T>
  void between(const std::string& field, T value, T minimum, T maximum) {
    if (value < minimum || value > maximum)
      fail(field, "must be in " + std::to_string(minimum) + ".." + std::to_string(maximum));
  }
  template <typename T>
  void atMost(const std::string& field, T value, T maximum) {
    if (value > maximum) fail(field, "must be ≤ " + std::to_string(maximum));
  }
  template <typename T>
  void atLeast(const std::string& field, T value, T minimum) {
    if (value < minimum) fail(field, "must be ≥ " + std::to_string(minimum));
  }
  void positive(const std::string& field, double value) {
    if (!(value > 0) || !std::isfinite(value)) fail(field, "must be > 0");
  }
  void port(const std::string& field, int value) {
    if (value < 1 || value > 65535) fail(field, "must be in 1..65535");
  }
  std::vector<FieldError> take() { return std::move(errors_); }

 private:
  std::vector<FieldError> errors_;
};

// apiVersion and kind, as every distbench document checks them.
void checkTypeMeta(const std::string& apiVersion, const std::string& kind, const char* wantKind,
                   FieldErrors& errors);
// metadata.namespace, as every distbench document checks it.
void checkNamespace(const std::string& namespace_, FieldErrors& errors);

}  // namespace distbench::api::detail
