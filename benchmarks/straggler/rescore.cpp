// distbench-straggler-rescore: the straggler verdict of saved reports by
// the attribution rules of this build (report::attribute). A report keeps
// everything the rules read (results, series, local), so a change to the
// rules is scored on runs already made, and the runs a rule was tuned on
// are told apart from the runs it is tested on
// (benchmarks/straggler/straggler_check.py --rescore).
//
// usage: distbench-straggler-rescore REPORT.json...
// Prints one JSON object per report, a line each: file, kind, the verdict
// row (DDP's row with a stragglerCheck and the most ranks, HybridDDPRPC's
// All) and its stragglerCheck and straggler. Exit 2 on a bad flag or a
// report that does not read.
#include <cpprest/json.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "distbench/report/attribution.h"
#include "distbench/report/report_json.h"

namespace {

using web::json::value;

constexpr const char* kUsage =
    "usage: distbench-straggler-rescore REPORT.json...\n"
    "\n"
    "The straggler verdict of each saved report by this build's attribution\n"
    "rules, one JSON line per report.\n"
    "\n"
    "  --help   this text\n";

// The row whose verdict the benchmark scores.
const distbench::report::RowAttribution* verdictRow(const distbench::report::Report& report,
                                                    const distbench::report::Attribution& a) {
  const distbench::report::RowAttribution* pick = nullptr;
  for (const auto& row : a.rows) {
    if (report.kind == "HybridDDPRPC" ? row.row == "All" : row.stragglerCheck.has_value()) {
      pick = &row;
    }
  }
  return pick;
}

value lineOf(const std::string& file) {
  const distbench::report::Report report = distbench::report::loadReportFile(file);
  const distbench::report::Attribution a = distbench::report::attribute(report);
  value out = value::object(true);
  out["file"] = value::string(file);
  out["kind"] = value::string(report.kind);
  const distbench::report::RowAttribution* row = verdictRow(report, a);
  if (row == nullptr || !row->stragglerCheck) {
    out["verdict"] = value::null();
    return out;
  }
  out["row"] = value::string(row->row);
  out["verdict"] = value::string(row->stragglerCheck->verdict);
  out["named"] = value::string(row->straggler ? row->straggler->name : "");
  out["timingVerdict"] = value::string(row->stragglerCheck->timingVerdict);
  out["timingName"] = value::string(row->stragglerCheck->timingName);
  out["evidence"] = value::string(row->stragglerCheck->evidence);
  out["stepSeconds"] = value::number(row->stepSeconds);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg.rfind("-", 0) == 0) {
      std::fprintf(stderr,
                   "distbench-straggler-rescore: unknown flag %s\n"
                   "see 'distbench-straggler-rescore --help'\n",
                   arg.c_str());
      return 2;
    }
    files.push_back(arg);
  }
  if (files.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  for (const std::string& file : files) {
    try {
      std::printf("%s\n", lineOf(file).serialize().c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "distbench-straggler-rescore: %s: %s\n", file.c_str(), e.what());
      return 2;
    }
  }
  return 0;
}
