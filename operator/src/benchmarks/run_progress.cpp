#include "distbench/operator/benchmarks/run_progress.h"

#include "distbench/kube/json_fields.h"

namespace distbench::op {

using web::json::value;

std::string progressLogQuery() {
  return "container=worker&tailLines=" + std::to_string(kProgressLogTailLines) +
         "&limitBytes=" + std::to_string(kProgressLogLimitBytes);
}

value progressStatus(const api::Progress& progress, int gang, const std::string& observedTime) {
  value out = value::object(true);
  out["unit"] = value::string(progress.unit);
  out["done"] = value::number(static_cast<int64_t>(progress.done));
  out["total"] = value::number(static_cast<int64_t>(progress.total));
  out["gang"] = value::number(gang);
  out["observedTime"] = value::string(observedTime);
  return out;
}

bool saysProgress(const value& status, const api::Progress& progress, int gang) {
  if (!status.is_object() || !status.has_field("progress")) return false;
  const value& p = status.at("progress");
  return kube::stringField(p, "unit") == progress.unit &&
         kube::intField(p, "done", -1) == progress.done &&
         kube::intField(p, "total", -1) == progress.total && kube::intField(p, "gang", -1) == gang;
}

}  // namespace distbench::op
