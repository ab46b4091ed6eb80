#include "status_conditions.h"


namespace distbench::op {

using web::json::value;

namespace {

value* findCondition(value& status, const std::string& type) {
  if (!status.has_field("conditions") || !status.at("conditions").is_array()) return nullptr;
  for (value& c : status["conditions"].as_array())
    if (c.has_field("type") && c.at("type").as_string() == type) return &c;
  return nullptr;
}

}  // namespace

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
  (*c)["message"] = value::string(message);
  (*c)["observedGeneration"] = value::number(generation);
  return transitioned;
}

bool hasCondition(const value& status, const std::string& type) {
  if (!status.is_object() || !status.has_field("conditions") || !status.at("conditions").is_array())
    return false;
  for (const value& c : status.at("conditions").as_array())
    if (c.has_field("type") && c.at("type").as_string() == type) return true;
  return false;
}

bool conditionIsTrue(const value& status, const std::string& type) {
  if (!status.is_object() || !status.has_field("conditions") || !status.at("conditions").is_array())
    return false;
  for (const value& c : status.at("conditions").as_array())
    if (c.has_field("type") && c.at("type").as_string() == type)
      return c.has_field("status") && c.at("status").as_string() == "True";
  return false;
}

std::string conditionSince(const value& status, const std::string& type) {
  if (!status.is_object() || !status.has_field("conditions") || !status.at("conditions").is_array())
    return "";
  for (const value& c : status.at("conditions").as_array())
    if (c.has_field("type") && c.at("type").as_string() == type && c.has_field("lastTransitionTime"))
      return c.at("lastTransitionTime").as_string();
  return "";
}

int64_t conditionGeneration(const value& status, const std::string& type) {
  if (!status.is_object() || !status.has_field("conditions") || !status.at("conditions").is_array())
    return 0;
  for (const value& c : status.at("conditions").as_array())
    if (c.has_field("type") && c.at("type").as_string() == type && c.has_field("observedGeneration") &&
        c.at("observedGeneration").is_number())
      return c.at("observedGeneration").as_number().to_int64();
  return 0;
}

}  // namespace distbench::op
