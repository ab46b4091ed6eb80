#include "distbench/cli/report_page/report_results.h"

namespace distbench::cli {

vl::Json resultsOf(const report::Report& report) {
  try {
    vl::Json results = vl::Json::parse(report.resultsJson);
    if (results.is_object()) return results;
  } catch (const web::json::json_exception&) {
  }
  return vl::Json::object();
}

const vl::Json* member(const vl::Json& object, const std::string& key) {
  if (!object.is_object() || !object.has_field(key)) return nullptr;
  return &object.at(key);
}

std::optional<double> numberAt(const vl::Json& object, const std::string& key) {
  const vl::Json* value = member(object, key);
  if (!value || !value->is_number()) return std::nullopt;
  return value->as_double();
}

std::optional<std::string> stringAt(const vl::Json& object, const std::string& key) {
  const vl::Json* value = member(object, key);
  if (!value || !value->is_string()) return std::nullopt;
  return value->as_string();
}

std::vector<vl::Json> listAt(const vl::Json& object, const std::string& key) {
  const vl::Json* value = member(object, key);
  if (!value || !value->is_array()) return {};
  const web::json::array& list = value->as_array();
  return {list.begin(), list.end()};
}

const report::Series* seriesOf(const report::Report& report, const vl::Json& entry) {
  const vl::Json* index = member(entry, "series");
  if (!index || !index->is_number() || !index->as_number().is_int32()) return nullptr;
  const int i = index->as_number().to_int32();
  if (i < 0 || static_cast<size_t>(i) >= report.series.size()) return nullptr;
  return &report.series[static_cast<size_t>(i)];
}

}  // namespace distbench::cli
