// A whole file as text, for the document loaders (spec_yaml.cpp,
// schedule_yaml.cpp). Private to the api library.
#pragma once

#include <string>

namespace distbench::api::detail {

// Throws std::runtime_error("cannot read PATH: reason"), a directory
// included (fopen accepts one; reading it fails with EISDIR).
std::string readTextFile(const std::string& path);

}  // namespace distbench::api::detail
