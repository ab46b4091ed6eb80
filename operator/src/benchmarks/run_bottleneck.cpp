#include "distbench/operator/benchmarks/run_bottleneck.h"

#include "distbench/kube/bounded_message.h"

namespace distbench::op {

std::optional<std::string> bottleneckOf(const web::json::value& summary) {
  if (!summary.is_object() || !summary.has_field("bottleneck")) return std::nullopt;
  const web::json::value& v = summary.at("bottleneck");
  if (!v.is_string() || v.as_string().empty()) return std::nullopt;
  return kube::boundedMessage(v.as_string());
}

}  // namespace distbench::op
