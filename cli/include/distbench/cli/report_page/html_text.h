// How text gets into the report page. Every string that comes from a report
// is untrusted (benchmark names, hostnames, config values are whatever the
// spec or the machine said), so it reaches the page only through these two:
// as escaped HTML text, or inside the page's JSON data block.
#pragma once

#include <string>
#include <string_view>

namespace distbench::cli {

// For element text and attribute values: & < > " ' as character references.
std::string htmlEscape(std::string_view text);

// JSON text that can sit inside <script type="application/json"> and come out
// of JSON.parse unchanged. Every '<' becomes \u003c, so neither "</script"
// nor "<!--" (which changes how the HTML parser looks for the end of a
// script) can occur; '>' and '&' likewise for symmetry, and U+2028 and
// U+2029 so the text is also a valid JavaScript literal. Outside strings,
// valid JSON holds none of these characters, so only strings change.
std::string jsonForScriptElement(std::string_view json);

}  // namespace distbench::cli
