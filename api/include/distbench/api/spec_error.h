// An error in a DistBenchmark document, always naming the field it is about.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace distbench::api {

struct FieldError {
  std::string field;    // JSON path, e.g. "spec.topology.trainers"
  std::string message;  // e.g. "must be ≥ 1"
  std::string str() const { return field + ": " + message; }
};

// Thrown by parsing and validation; what() lists every error, one per line.
class SpecError : public std::runtime_error {
 public:
  explicit SpecError(std::vector<FieldError> errors);
  const std::vector<FieldError>& errors() const { return errors_; }

 private:
  std::vector<FieldError> errors_;
};

}  // namespace distbench::api
