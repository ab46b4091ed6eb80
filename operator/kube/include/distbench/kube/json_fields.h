// Reading fields of API objects that may be absent or of another type, as
// objects from the API server (or a test playing the kubelet) often are:
// absent reads as empty, never as an exception.
#pragma once

#include <cpprest/json.h>

#include <cstdint>
#include <map>
#include <string>

namespace distbench::kube {

// The field, or null when `object` is not an object or lacks it.
inline const web::json::value* fieldOf(const web::json::value& object, const char* name) {
  if (!object.is_object() || !object.has_field(name)) return nullptr;
  return &object.at(name);
}

// The field if it is a string, else "".
inline std::string stringField(const web::json::value& object, const char* name) {
  const web::json::value* v = fieldOf(object, name);
  return v != nullptr && v->is_string() ? v->as_string() : "";
}

// object[outer][inner] if it is a string, else "".
inline std::string stringField(const web::json::value& object, const char* outer,
                               const char* inner) {
  const web::json::value* v = fieldOf(object, outer);
  return v != nullptr ? stringField(*v, inner) : "";
}

inline std::string metadataField(const web::json::value& object, const char* name) {
  return stringField(object, "metadata", name);
}

// The field if it is a number, else `fallback`.
inline int64_t intField(const web::json::value& object, const char* name, int64_t fallback = 0) {
  const web::json::value* v = fieldOf(object, name);
  return v != nullptr && v->is_number() ? v->as_number().to_int64() : fallback;
}

// A map of strings as a JSON object (labels, annotations, quantities).
inline web::json::value stringMapJson(const std::map<std::string, std::string>& map) {
  web::json::value object = web::json::value::object();
  for (const auto& [k, v] : map) object[k] = web::json::value::string(v);
  return object;
}

}  // namespace distbench::kube
