#include "distbench/operator/common/status_conditions.h"

#include "distbench/api/run_key.h"
#include "distbench/kube/bounded_message.h"
#include "distbench/kube/json_fields.h"

namespace distbench::op {

using web::json::value;

// The entry of type `type` (one per type: the list is a map keyed by type).
const value* conditionOf(const value& status, const std::string& type) {
  const value* list = kube::fieldOf(status, "conditions");
  if (list == nullptr || !list->is_array()) return nullptr;
  for (const value& c : list->as_array())
    if (kube::stringField(c, "type") == type) return &c;
  return nullptr;
}

namespace {

const value* findCondition(const value& status, const std::string& type) {
  return conditionOf(status, type);
}

value* findCondition(value& status, const std::string& type) {
  return const_cast<value*>(conditionOf(static_cast<const value&>(status), type));
}

}  // namespace

std::string statusMessage(const std::string& text) {
  return kube::boundedMessage(api::redactRunKeys(text));
}

bool setCondition(value& status, const std::string& type, bool isTrue, const std::string& reason,
                  const std::string& message, const std::string& now, int64_t generation) {
  const bool isNew = !hasCondition(status, type);
  const bool changed =
      setConditionStatus(status, type, isTrue ? "True" : "False", reason, message, now, generation);
  // A new condition that is False is no news.
  return changed && !(isNew && !isTrue);
}

bool setConditionStatus(value& status, const std::string& type, const std::string& wanted,
                        const std::string& reason, const std::string& message,
                        const std::string& now, int64_t generation) {
  if (!status.has_field("conditions") || !status.at("conditions").is_array())
    status["conditions"] = value::array();
  value* c = findCondition(status, type);
  bool transitioned = false;
  if (c == nullptr) {
    value& conditions = status["conditions"];
    conditions[conditions.size()] = value::object();
    c = &conditions[conditions.size() - 1];
    (*c)["type"] = value::string(type);
    transitioned = true;
    (*c)["lastTransitionTime"] = value::string(now);
  } else if (!c->has_field("status") || c->at("status").as_string() != wanted) {
    transitioned = true;
    (*c)["lastTransitionTime"] = value::string(now);
  }
  (*c)["status"] = value::string(wanted);
  (*c)["reason"] = value::string(reason);
  (*c)["message"] = value::string(statusMessage(message));
  (*c)["observedGeneration"] = value::number(generation);
  return transitioned;
}

bool hasCondition(const value& status, const std::string& type) {
  return findCondition(status, type) != nullptr;
}

bool conditionIsTrue(const value& status, const std::string& type) {
  const value* c = findCondition(status, type);
  return c != nullptr && c->has_field("status") && c->at("status").as_string() == "True";
}

std::string conditionSince(const value& status, const std::string& type) {
  const value* c = findCondition(status, type);
  return c != nullptr && c->has_field("lastTransitionTime") ? c->at("lastTransitionTime").as_string()
                                                            : "";
}

int64_t conditionGeneration(const value& status, const std::string& type) {
  const value* c = findCondition(status, type);
  if (c == nullptr || !c->has_field("observedGeneration") || !c->at("observedGeneration").is_number())
    return 0;
  return c->at("observedGeneration").as_number().to_int64();
}

}  // namespace distbench::op
