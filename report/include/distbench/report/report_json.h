// Reading and writing reports as JSON (docs/report-schema.md).
#pragma once

#include <string>
#include <vector>

#include "distbench/report/percentiles.h"
#include "distbench/report/report.h"

namespace distbench::report {

std::string toJson(const Report& report);
// Throws ReportError naming the field ("series[3].samples: must be a list of
// numbers") for anything malformed, and for a schemaVersion it cannot read.
// `source` names the document in messages (a path, or "<string>").
Report parseReport(const std::string& json, const std::string& source = "<string>");

// The summary of `samples` as a series carries it (count, p50..p99, min,
// max, mean, stdev), as JSON text: for kind-specific results.
std::string summaryToJson(const std::vector<double>& samples);
// The same for a summary made elsewhere (a rank that summarized its own
// samples before handing them on).
std::string summaryToJson(const Summary& summary);

// Throw ReportError naming the path when it cannot be read or written.
Report loadReportFile(const std::string& path);
void writeReportFile(const std::string& path, const Report& report);

}  // namespace distbench::report
