// How a plain YAML scalar's text resolves to a type. The reader needs it to
// type what yaml-cpp hands back as text, the YAML writer to know when a
// string needs quotes to read back as a string; one definition keeps the two
// agreeing. Internal to distbench_api.
#pragma once

#include <string>

namespace distbench::api::detail {

// The YAML 1.2 core schema, which is also how JSON reads: a plain scalar is
// an integer, a float, a bool, null or else a string.
enum class ScalarType { String, Integer, Float, Bool, Null };

ScalarType resolvePlainScalar(const std::string& text);

}  // namespace distbench::api::detail
