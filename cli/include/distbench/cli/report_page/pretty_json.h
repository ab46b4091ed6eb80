// JSON indented for people: the resolved config on the report page.
#pragma once

#include <string>

#include "distbench/cli/report_page/vega_lite.h"

namespace distbench::cli {

// Two spaces per level, one member or element per line; empty objects and
// lists stay on one line ({} and []).
std::string prettyJson(const vl::Json& value);

}  // namespace distbench::cli
