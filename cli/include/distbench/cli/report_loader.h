// Where the report commands (diff, report, predict) get the report a name on
// their command line stands for: a file, for `distbench`; the report the
// operator stored in the cluster, for `kubectl distbench`, which runs the
// same commands on its own loader. The name is also the report's source as
// the page and the messages print it.
#pragma once

#include <functional>
#include <string>

#include "distbench/report/report.h"

namespace distbench::cli {

// Throws report::ReportError (or an error of the loader's own, which the
// command lets escape) naming what could not be read.
using ReportLoader = std::function<report::Report(const std::string& name)>;

// report::loadReportFile.
const ReportLoader& fileReports();

}  // namespace distbench::cli
