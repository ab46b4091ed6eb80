// Reading the objects kubectl returns as JSON, where any field may be
// absent (a status not written yet, an older operator): an absent or
// mistyped field reads as null, "" or 0.
#pragma once

#include <cpprest/json.h>

#include <cstdint>
#include <string>

namespace distbench::plugin {

const web::json::value& fieldAt(const web::json::value& object, const char* name);
std::string textAt(const web::json::value& object, const char* name);
int64_t integerAt(const web::json::value& object, const char* name);
// The condition of `type` in status.conditions, or null.
const web::json::value* conditionOf(const web::json::value& object, const char* type);

}  // namespace distbench::plugin
