#include "distbench/cli/report_page/pretty_json.h"

namespace distbench::cli {
namespace {

void write(const vl::Json& value, int depth, std::string& out) {
  const std::string indent(2 * (depth + 1), ' ');
  const std::string closing(2 * depth, ' ');
  if (value.is_object() && value.size() > 0) {
    out += "{\n";
    bool first = true;
    for (const auto& [name, member] : value.as_object()) {
      out += (first ? "" : ",\n") + indent + vl::Json::string(name).serialize() + ": ";
      write(member, depth + 1, out);
      first = false;
    }
    out += "\n" + closing + "}";
  } else if (value.is_array() && value.size() > 0) {
    out += "[\n";
    bool first = true;
    for (const vl::Json& element : value.as_array()) {
      out += (first ? "" : ",\n") + indent;
      write(element, depth + 1, out);
      first = false;
    }
    out += "\n" + closing + "]";
  } else {
    out += value.serialize();
  }
}

}  // namespace

std::string prettyJson(const vl::Json& value) {
  std::string out;
  write(value, 0, out);
  return out;
}

}  // namespace distbench::cli
