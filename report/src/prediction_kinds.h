// What prediction.cpp hands each kind's model: the report, the links
// before (as measured) and after (as the options say), eta, and readers
// for the results JSON. Private to the report library.
#pragma once

#include <cpprest/json.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distbench/report/prediction.h"
#include "distbench/report/report.h"

namespace distbench::report::prediction {

class Context {
 public:
  Context(const Report& report, const PredictOptions& options, double efficiency,
          std::vector<std::string>& notes);

  const Report& report() const { return report_; }
  double efficiency() const { return efficiency_; }
  std::optional<int> worldSize() const { return worldSize_; }
  // A rank's link in the measured run (the report's `local` block; an
  // unlisted or unshaped rank: unlimited) and as the options predict it.
  double measuredLink(int rank) const;
  double targetLink(int rank) const;
  // The slowest of ranks first..first+count-1.
  double slowestMeasured(int first, int count) const;
  double slowestTarget(int first, int count) const;
  // p50 of series[index] (ReportError naming `path` if there is none).
  double seriesP50(int index, const std::string& path) const;
  const Series& series(int index, const std::string& path) const;
  void note(const std::string& text) const;

 private:
  const Report& report_;
  PredictOptions options_;
  double efficiency_;
  std::optional<int> worldSize_;
  std::map<int, double> measuredLinks_;
  std::vector<std::string>& notes_;
};

// Readers that tolerate what older reports lack: absent or not a number is
// nullopt. What a crafted report could hold is refused with a ReportError
// naming `path`.`name`: a number that is not finite (1e999), or a whole
// number outside min..max.
std::optional<double> number(const web::json::value& object, const std::string& name,
                             const std::string& path = "");
std::optional<int> wholeNumber(const web::json::value& object, const std::string& name,
                               const std::string& path, int min, int max);
// p50 of object[name] (a summary), if present.
std::optional<double> p50(const web::json::value& object, const std::string& name,
                          const std::string& path = "");
// A groupKey value as a number.
std::optional<double> keyNumber(const Series& series, const std::string& key);

// Fills bound and scalingEfficiency from predicted and communication.
void classify(RowPrediction& row, double computeOnlySeconds);

std::vector<RowPrediction> predictDdp(const web::json::value& results, const Context& context);
std::vector<RowPrediction> predictHybrid(const web::json::value& results, const Context& context);
std::vector<RowPrediction> predictCollectives(const Context& context);

}  // namespace distbench::report::prediction
