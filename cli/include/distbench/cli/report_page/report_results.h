// Lenient reading of a report's kind-specific `results` (report.h keeps them
// as JSON text) for the report page. The page draws what a report has and
// says what it lacks, so a missing or odd field is an empty answer here,
// never an exception: older reports lack fields newer ones have.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "distbench/cli/report_page/vega_lite.h"
#include "distbench/report/report.h"

namespace distbench::cli {

// The `results` object; an empty object when the text is not a JSON object.
vl::Json resultsOf(const report::Report& report);

// `object[key]` when `object` is an object holding a value of that type.
const vl::Json* member(const vl::Json& object, const std::string& key);
std::optional<double> numberAt(const vl::Json& object, const std::string& key);
std::optional<std::string> stringAt(const vl::Json& object, const std::string& key);
// The elements of `object[key]` when it is a list, else none. A copy, so a
// range-for over it cannot outlive what it reads.
std::vector<vl::Json> listAt(const vl::Json& object, const std::string& key);

// The series an entry names by index (`"series": 3`), or nullptr.
const report::Series* seriesOf(const report::Report& report, const vl::Json& entry);

}  // namespace distbench::cli
