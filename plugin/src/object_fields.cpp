#include "distbench/plugin/object_fields.h"

namespace distbench::plugin {

using web::json::value;

const value& fieldAt(const value& object, const char* name) {
  static const value null = value::null();
  return object.is_object() && object.has_field(name) ? object.at(name) : null;
}

std::string textAt(const value& object, const char* name) {
  const value& f = fieldAt(object, name);
  return f.is_string() ? f.as_string() : "";
}

int64_t integerAt(const value& object, const char* name) {
  const value& f = fieldAt(object, name);
  return f.is_number() ? f.as_number().to_int64() : 0;
}

const value* conditionOf(const value& object, const char* type) {
  const value& conditions = fieldAt(fieldAt(object, "status"), "conditions");
  if (!conditions.is_array()) return nullptr;
  for (const value& c : conditions.as_array()) {
    if (textAt(c, "type") == type) return &c;
  }
  return nullptr;
}

}  // namespace distbench::plugin
