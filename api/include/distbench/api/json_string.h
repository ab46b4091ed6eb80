// A string as a JSON string literal, quotes included: for the few places
// that write small JSON documents by hand (the spec tree's JSON, Prometheus
// target files) without a JSON library.
#pragma once

#include <string>

namespace distbench::api {

std::string jsonString(const std::string& s);

}  // namespace distbench::api
