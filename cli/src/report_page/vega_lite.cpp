#include "distbench/cli/report_page/vega_lite.h"

#include <cmath>

namespace distbench::cli::vl {

Json obj(std::vector<std::pair<std::string, Json>> fields) {
  return Json::object(std::move(fields), /*keep_order=*/true);
}

Json arr(std::vector<Json> items) { return Json::array(std::move(items)); }

Json str(const std::string& text) { return Json::string(text); }

Json num(double value) { return std::isfinite(value) ? Json::number(value) : Json::null(); }

Json strings(const std::vector<std::string>& texts) {
  std::vector<Json> items;
  for (const std::string& text : texts) items.push_back(str(text));
  return arr(std::move(items));
}

Json field(const std::string& name, const std::string& type, const std::string& title,
           std::vector<std::pair<std::string, Json>> more) {
  std::vector<std::pair<std::string, Json>> fields = {
      {"field", str(name)}, {"type", str(type)}, {"title", str(title)}};
  for (auto& entry : more) fields.push_back(std::move(entry));
  return obj(std::move(fields));
}

Json tooltip(const std::string& name, const std::string& title, const std::string& format) {
  std::vector<std::pair<std::string, Json>> fields = {
      {"field", str(name)},
      {"type", str(format.empty() ? "nominal" : "quantitative")},
      {"title", str(title)}};
  if (!format.empty()) fields.emplace_back("format", str(format));
  return obj(std::move(fields));
}

}  // namespace distbench::cli::vl
