#include "distbench/operator/benchmarks/run_progress.h"

#include "distbench/kube/json_fields.h"

namespace distbench::op {

using web::json::value;

value progressStatus(const api::Progress& progress, int gang, const std::string& observedTime) {
  value out = value::object(true);
  out["unit"] = value::string(progress.unit);
  out["done"] = value::number(static_cast<int64_t>(progress.done));
  out["total"] = value::number(static_cast<int64_t>(progress.total));
  out["gang"] = value::number(gang);
  out["observedTime"] = value::string(observedTime);
  return out;
}

bool progressMoved(const value& status, const api::Progress& progress, int gang) {
  if (!status.is_object() || !status.has_field("progress")) return true;
  const value& p = status.at("progress");
  const bool sameCount = kube::stringField(p, "unit") == progress.unit &&
                         kube::intField(p, "total", -1) == progress.total &&
                         kube::intField(p, "gang", -1) == gang;
  return !sameCount || kube::intField(p, "done", -1) < progress.done;
}

}  // namespace distbench::op
