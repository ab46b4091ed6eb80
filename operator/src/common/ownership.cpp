#include "distbench/operator/common/ownership.h"

#include "distbench/api/benchmark_spec.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/common/labels.h"

namespace distbench::op {

using web::json::value;

bool isController(const value& object, const std::string& uid) {
  const value& meta = object.at("metadata");
  if (!meta.has_field("ownerReferences")) return false;
  for (const value& ref : meta.at("ownerReferences").as_array())
    if (ref.has_field("uid") && ref.at("uid").as_string() == uid && ref.has_field("controller") &&
        ref.at("controller").as_bool())
      return true;
  return false;
}

bool controlledByABenchmark(const value& object) {
  const value& meta = object.at("metadata");
  if (!meta.has_field("ownerReferences")) return false;
  for (const value& ref : meta.at("ownerReferences").as_array())
    if (kube::stringField(ref, "kind") == api::kKind && ref.has_field("controller") &&
        ref.at("controller").as_bool())
      return true;
  return false;
}

bool hasBenchmarkLabel(const value& object, const std::string& name) {
  const value& meta = object.at("metadata");
  return meta.has_field("labels") && meta.at("labels").has_field(kLabelBenchmark) &&
         meta.at("labels").at(kLabelBenchmark).as_string() == name;
}

bool isDeleting(const value& object) {
  return object.at("metadata").has_field("deletionTimestamp");
}

std::string objectName(const value& object) { return object.at("metadata").at("name").as_string(); }

ChildClaim claimOf(const web::json::value& found, const std::string& uid, const std::string& name) {
  if (isController(found, uid)) return ChildClaim::Ours;
  if (!hasBenchmarkLabel(found, name)) return ChildClaim::Foreign;
  return controlledByABenchmark(found) ? ChildClaim::Earlier : ChildClaim::Labelled;
}

}  // namespace distbench::op
