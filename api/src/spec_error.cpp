#include "distbench/api/spec_error.h"

#include <utility>

namespace distbench::api {
namespace {

std::string joinLines(const std::vector<FieldError>& errors) {
  std::string text;
  for (const FieldError& e : errors) {
    if (!text.empty()) text += '\n';
    text += e.str();
  }
  return text;
}

}  // namespace

SpecError::SpecError(std::vector<FieldError> errors)
    : std::runtime_error(joinLines(errors)), errors_(std::move(errors)) {}

}  // namespace distbench::api
