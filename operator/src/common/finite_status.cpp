#include "distbench/operator/common/finite_status.h"

#include <cmath>

namespace distbench::op {
namespace {

using web::json::value;

void visit(value& v, const std::string& path, std::vector<std::string>& replaced) {
  if (v.is_number()) {
    if (!std::isfinite(v.as_double())) {
      v = value::null();
      replaced.push_back(path);
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i)
      visit(v[i], path + "[" + std::to_string(i) + "]", replaced);
  } else if (v.is_object()) {
    for (auto& [name, field] : v.as_object())
      visit(field, path.empty() ? name : path + "." + name, replaced);
  }
}

}  // namespace

std::vector<std::string> nullNonFiniteNumbers(value& v) {
  std::vector<std::string> replaced;
  visit(v, "", replaced);
  return replaced;
}

std::optional<kube::StatusEvent> dropNonFiniteStatusNumbers(value& status) {
  const std::vector<std::string> replaced = nullNonFiniteNumbers(status);
  if (replaced.empty()) return std::nullopt;
  std::string fields;
  for (const std::string& path : replaced) fields += (fields.empty() ? "" : ", ") + path;
  return kube::StatusEvent{true, "StatusNumbersDropped",
                           "status fields that held no finite number, written as null: " + fields};
}

}  // namespace distbench::op
