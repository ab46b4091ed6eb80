// Reading and writing reports as JSON (docs/report-schema.md).
#pragma once

#include <string>
#include <vector>

#include "distbench/report/percentiles.h"
#include "distbench/report/report.h"

namespace distbench::report {

// What a report may hold (docs/report-schema.md, "Bounds"). A number JSON
// can spell but a double cannot hold (1e999 reads as infinity) would reach a
// comparison, a status or a page that cannot carry it; a finite but absurd
// one says the report was not measured. Both are refused where a report is
// read, naming the field.
inline constexpr double kMaxSampleSeconds = 1e7;  // about 115 days
// Below a picosecond no clock measures: a rate or ratio over such a sample
// would not be a finite number.
inline constexpr double kMinPositiveSampleSeconds = 1e-12;
inline constexpr double kMaxWorkPerSample = 1e15;
inline constexpr double kMaxBucketCapMB = 1e6;
// Ranks in a row, and trainers, parameter servers and worldSize.
inline constexpr int kMaxReportRanks = 65536;

std::string toJson(const Report& report);
// Throws ReportError naming the field ("series[3].samples: must be a list of
// numbers") for anything malformed, a number that is not finite anywhere in
// the document or out of its bounds (above), and for a schemaVersion it
// cannot read. `source` names the document in messages (a path, or
// "<string>").
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
